/*
 * err.c: error records (suql.h). An error about a place in a text keeps the place in parts:
 * its offset and length, its line and column counted from the text's start, the line of
 * text with a caret under the place, and a related place its hint may name. err_render is
 * the one writer of such errors: from the text's own start (the message a caller gets) or
 * moved to where the text stands in a script (the REPL's "stdin:4:41: ...").
 */
#include "base/suql.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PLACE_MARK "{place}"   /* where a hint names the related place */

static void unplace(SuqlErr *e)
{
	free(e->what);
	free(e->excerpt);
	free(e->hint);
	e->what = e->excerpt = e->hint = NULL;
	e->placed = 0;
	e->off = e->len = e->rel_off = 0;
	e->at = e->rel = (SuqlPlace){0, 0};
}

SuqlStatus err_set(SuqlErr *e, SuqlStatus code, const char *fmt, ...)
{
	if (!e)
		return code;
	va_list ap;
	va_start(ap, fmt);
	char *m = xvprintf(fmt, ap);
	va_end(ap);
	unplace(e);
	free(e->msg);
	e->msg = m;
	e->code = code;
	return code;
}

void err_clear(SuqlErr *e)
{
	if (!e)
		return;
	unplace(e);
	free(e->msg);
	e->msg = NULL;
	e->code = SUQL_OK;
}

void err_copy(SuqlErr *to, const SuqlErr *from)
{
	if (to == from)
		return;
	err_clear(to);
	*to = *from;
	to->msg = xstrdup_or_null(from->msg);
	to->what = xstrdup_or_null(from->what);
	to->excerpt = xstrdup_or_null(from->excerpt);
	to->hint = xstrdup_or_null(from->hint);
}

void err_linecol(const char *src, size_t srclen, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	if (off > srclen)
		off = srclen;
	for (size_t i = 0; i < off; i++) {
		if (src[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)src[i] & 0xC0) != 0x80) {
			c++;   /* count characters, not UTF-8 continuation bytes */
		}
	}
	*line = l;
	*col = c;
}

/* The line of src holding off, and a caret line under the place (len bytes long). */
static char *excerpt(const char *src, size_t srclen, size_t off, size_t len)
{
	SBuf b = SBUF_INIT;
	size_t ls = off, le = off;
	while (ls > 0 && src[ls - 1] != '\n')
		ls--;
	while (le < srclen && src[le] != '\n')
		le++;
	/* Show at most 200 bytes of a long line, keeping the caret in view. */
	size_t show_from = ls;
	if (off - ls > 160)
		show_from = off - 80;
	size_t show_to = le;
	if (show_to - show_from > 200)
		show_to = show_from + 200;
	sb_puts(&b, "  ");
	if (show_from > ls)
		sb_puts(&b, "...");
	for (size_t i = show_from; i < show_to; i++)
		sb_putc(&b, src[i] == '\t' ? ' ' : src[i]);
	if (show_to < le)
		sb_puts(&b, "...");
	sb_puts(&b, "\n  ");
	if (show_from > ls)
		sb_puts(&b, "   ");
	for (size_t i = show_from; i < off; i++)
		if (((unsigned char)src[i] & 0xC0) != 0x80)
			sb_putc(&b, ' ');
	sb_putc(&b, '^');
	size_t tl = len;
	if (off + tl > le)
		tl = le > off ? le - off : 0;
	for (size_t i = 1; i < tl && i < 60; i++)
		if (((unsigned char)src[off + i] & 0xC0) != 0x80)
			sb_putc(&b, '~');
	return sb_steal(&b);
}

static SuqlStatus vat(SuqlErr *e, SuqlStatus code, const char *src, size_t srclen, size_t off,
                      size_t len, int has_rel, size_t rel_off, const char *hint,
                      const char *fmt, va_list ap)
{
	if (!e)
		return code;
	if (off > srclen)
		off = srclen;
	err_clear(e);
	e->code = code;
	e->placed = 1;
	e->off = off;
	e->len = len;
	err_linecol(src, srclen, off, &e->at.line, &e->at.col);
	if (has_rel) {
		e->rel_off = rel_off > srclen ? srclen : rel_off;
		err_linecol(src, srclen, e->rel_off, &e->rel.line, &e->rel.col);
	}
	e->what = xvprintf(fmt, ap);
	e->excerpt = excerpt(src, srclen, off, len);
	e->hint = hint ? xstrdup(hint) : NULL;
	e->msg = err_render(e, NULL, (SuqlPlace){1, 1});
	return code;
}

SuqlStatus err_at(SuqlErr *e, SuqlStatus code, const char *src, size_t srclen, size_t off,
                  size_t len, const char *hint, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	SuqlStatus st = vat(e, code, src, srclen, off, len, 0, 0, hint, fmt, ap);
	va_end(ap);
	return st;
}

SuqlStatus err_at_rel(SuqlErr *e, SuqlStatus code, const char *src, size_t srclen, size_t off,
                      size_t len, size_t rel_off, const char *hint, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	SuqlStatus st = vat(e, code, src, srclen, off, len, 1, rel_off, hint, fmt, ap);
	va_end(ap);
	return st;
}

/* p, counted from a text's start, where the text starts at base: the first line's columns
   move by base's column, the lines by base's line. */
static SuqlPlace moved(SuqlPlace p, SuqlPlace base)
{
	SuqlPlace r = {base.line + p.line - 1, p.line == 1 ? base.col + p.col - 1 : p.col};
	return r;
}

char *err_render(const SuqlErr *e, const char *name, SuqlPlace base)
{
	if (!e->placed)
		return xstrdup(e->msg ? e->msg : "failed");
	SBuf b = SBUF_INIT;
	SuqlPlace at = moved(e->at, base);
	if (name)
		sb_printf(&b, "%s:%d:%d: ", name, at.line, at.col);
	else
		sb_printf(&b, "line %d, column %d: ", at.line, at.col);
	sb_puts(&b, e->what);
	sb_printf(&b, "\n%s", e->excerpt);
	if (e->hint) {
		sb_puts(&b, "\nhint: ");
		const char *mark = e->rel.line ? strstr(e->hint, PLACE_MARK) : NULL;
		if (mark) {
			SuqlPlace rel = moved(e->rel, base);
			sb_putn(&b, e->hint, (size_t)(mark - e->hint));
			sb_printf(&b, "line %d, column %d", rel.line, rel.col);
			sb_puts(&b, mark + strlen(PLACE_MARK));
		} else {
			sb_puts(&b, e->hint);
		}
	}
	return sb_steal(&b);
}

int suql_exit_worst(int a, int b)
{
	return a > b ? a : b;   /* the statuses are numbered in their order of precedence */
}
