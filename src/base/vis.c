/*
 * vis.c: terminal-safe text (see vis.h): one character at a time, for the renderer's cells
 * and for whole messages, and a stream that applies it to everything written through it
 * (meta-command output).
 */
#define _GNU_SOURCE   /* fopencookie */
#include "base/vis.h"

#include <stdlib.h>
#include <string.h>

size_t vis_utf8(const char *str, size_t n, long *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	size_t len;
	long v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	if (n < len) {
		*cp = -1;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = -1;   /* overlong, out of range, or a surrogate */
		return 1;
	}
	*cp = v;
	return len;
}

size_t vis_utf8_bad(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (cp < 0)
			return i;
		i += k;
	}
	return n;
}

char *vis_utf8_repair(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	if (vis_utf8_bad(s, n) == n)
		return xstrdup(s);
	SBuf b = SBUF_INIT;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (cp < 0)
			sb_puts(&b, "\xEF\xBF\xBD");
		else
			sb_putn(&b, s + i, k);
		i += k;
	}
	return sb_steal(&b);
}

int vis_invisible(long cp)
{
	return cp == 0x061C || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB);
}

void vis_put_char(SBuf *b, const char *s, size_t k, long cp, int flags)
{
	if (cp < 0 || (cp >= 0x80 && cp < 0xA0))
		sb_puts(b, "\xEF\xBF\xBD");
	else if (cp >= 0x600 && vis_invisible(cp))
		sb_printf(b, "<U+%04lX>", cp);
	else if (cp == '\t')
		sb_putc(b, (flags & VIS_TABS) ? '\t' : ' ');
	else if (cp == '\n' && (flags & VIS_LINES))
		sb_putc(b, '\n');
	else if (cp < 0x20 || cp == 0x7F) {
		sb_putc(b, '^');
		sb_putc(b, (char)(cp ^ 0x40));
	} else
		sb_putn(b, s, k);
}

/* A sequence that its lead byte says is longer than what is left: more may follow. */
static int incomplete(const char *str, size_t n)
{
	unsigned c = (unsigned char)str[0];
	size_t need = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
	              : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
	if (need <= n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if (((unsigned char)str[i] & 0xC0) != 0x80)
			return 0;
	return 1;
}

size_t vis_put(SBuf *b, const char *s, size_t n, int flags)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7F) {   /* a run of printable ASCII, the common case */
			size_t j = i + 1;
			while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x7F)
				j++;
			sb_putn(b, s + i, j - i);
			i = j;
			continue;
		}
		if ((flags & VIS_PARTIAL) && c >= 0x80 && incomplete(s + i, n - i))
			return i;
		if (c == '\r' && (flags & VIS_LINES) && (flags & VIS_PARTIAL) && i + 1 == n)
			return i;   /* a CR that the next piece may end a line with */
		if (c == '\r' && (flags & VIS_LINES) && i + 1 < n && s[i + 1] == '\n') {
			i++;   /* CRLF: the line ends once */
			continue;
		}
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		vis_put_char(b, s + i, k, cp, flags);
		i += k;
	}
	return n;
}

void vis_fputs(FILE *f, const char *s, int flags)
{
	SBuf b = SBUF_INIT;
	vis_put(&b, s, strlen(s), flags);
	if (b.len)
		fwrite(b.s, 1, b.len, f);
	sb_free(&b);
}

/* ---- the stream ---- */

typedef struct VisCookie {
	FILE *to;
	char held[4];      /* the start of a character the last write ended in */
	size_t nheld;
} VisCookie;

static ssize_t vis_write(void *ctx, const char *buf, size_t n)
{
	VisCookie *c = ctx;
	SBuf in = SBUF_INIT, out = SBUF_INIT;
	sb_putn(&in, c->held, c->nheld);
	sb_putn(&in, buf, n);
	size_t took = vis_put(&out, in.s, in.len, VIS_TEXT | VIS_PARTIAL);
	c->nheld = in.len - took;   /* fewer than 4 bytes: the start of one character */
	memcpy(c->held, in.s + took, c->nheld);
	if (out.len)
		fwrite(out.s, 1, out.len, c->to);
	sb_free(&in);
	sb_free(&out);
	return (ssize_t)n;
}

static int vis_close(void *ctx)
{
	VisCookie *c = ctx;
	if (c->nheld) {   /* it never completed: shown as invalid */
		SBuf out = SBUF_INIT;
		vis_put(&out, c->held, c->nheld, VIS_TEXT);
		fwrite(out.s, 1, out.len, c->to);
		sb_free(&out);
	}
	free(c);   /* c->to is not touched otherwise: a command may have closed it (:output) */
	return 0;
}

FILE *vis_stream(FILE *to)
{
	VisCookie *c = xcalloc(1, sizeof *c);
	c->to = to;
	cookie_io_functions_t io = {NULL, vis_write, NULL, vis_close};
	FILE *f = fopencookie(c, "w", io);
	if (!f) {
		free(c);
		return NULL;
	}
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}
