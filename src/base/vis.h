/*
 * vis.h: text made safe for a terminal. Anything that came from the data or from a model
 * (values, messages that quote them, the chat reply, plans and parsed SUQL that hold
 * literals, meta-command listings) may hold control characters: ESC ]0;title BEL retitles
 * the terminal, ESC [2J clears it. Every path that writes such text to the user goes
 * through here, so those characters are shown, not obeyed:
 *
 *   - C0 controls and DEL as ^X (ESC as ^[, BEL as ^G, DEL as ^?), except a newline and a
 *     tab when the flags keep them (a tab not kept is a space; a CR before a kept newline
 *     is dropped);
 *   - C1 controls (U+0080..U+009F, which some terminals obey too) and invalid UTF-8 as
 *     U+FFFD;
 *   - invisible format characters as <U+XXXX> (vis_invisible): the bidirectional
 *     overrides, embeddings and isolates that reorder what follows them on the screen
 *     (U+202E shows "gpj.exe" as "exe.jpg"), zero-width spaces and joiners, the
 *     byte-order mark;
 *   - everything else as it is.
 *
 * The result modes table, box and line write every cell this way; csv does on a terminal;
 * json escapes these characters itself.
 *
 * Ownership: vis_stream's FILE belongs to the caller (fclose it); the FILE it writes to is
 * borrowed.
 */
#ifndef SUQL_VIS_H
#define SUQL_VIS_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

enum {
	VIS_LINES = 1,     /* keep newlines */
	VIS_TABS = 2,      /* keep tabs (else each is a space) */
	VIS_PARTIAL = 4    /* more text follows: leave an incomplete UTF-8 sequence at the end
	                      for the next piece (streamed text) */
};
#define VIS_TEXT (VIS_LINES | VIS_TABS)   /* messages, replies: lines and tabs kept */

/* Decode one UTF-8 character of s[0..n) (n >= 1): returns the bytes it takes (>= 1) and sets
   *cp to the code point, or to -1 for an invalid or truncated sequence (one byte taken). */
size_t vis_utf8(const char *s, size_t n, long *cp);

/* The offset of the first byte of s[0..n) that is not valid UTF-8, or n when all of it is. */
size_t vis_utf8_bad(const char *s, size_t n);

/* A heap copy of s with each invalid byte replaced by U+FFFD (the text a model is sent when
   a stored value is not valid UTF-8). NULL for NULL. */
char *vis_utf8_repair(const char *s);

/* Whether code point cp is an invisible format character shown as <U+XXXX>: U+061C,
   U+180E, U+200B..U+200F, U+202A..U+202E, U+2060..U+2064, U+2066..U+206F, U+FEFF,
   U+FFF9..U+FFFB. */
int vis_invisible(long cp);
/* The columns <U+XXXX> takes. */
#define VIS_INVISIBLE_WIDTH 8

/* Append one decoded character (s[0..k), code point cp from vis_utf8) as shown. */
void vis_put_char(SBuf *b, const char *s, size_t k, long cp, int flags);

/* Append s[0..n) as shown. Returns the bytes taken: n, or less with VIS_PARTIAL when s ends
   inside a character (give the rest again with the next piece). */
size_t vis_put(SBuf *b, const char *s, size_t n, int flags);

/* Write NUL-terminated s to f as shown. */
void vis_fputs(FILE *f, const char *s, int flags);

/* A stream whose text reaches to as shown (VIS_TEXT), unbuffered so that it interleaves
   with what is written to `to` directly. NULL when one cannot be made (use `to`). */
FILE *vis_stream(FILE *to);

#endif
