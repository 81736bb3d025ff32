/*
 * import_csv.c: the reader's common parts (positions, error messages that point into the
 * file) and the CSV record reader.
 *
 * CSV follows RFC 4180, read leniently where that is harmless: LF or CRLF ends a record,
 * blank lines are skipped, a '"' inside an unquoted field is an ordinary character, and a
 * UTF-8 byte order mark at the start is ignored. What cannot be read unambiguously is an
 * error: a quoted field that never ends, and text after a field's closing quote.
 */
#include "import/import_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void imp_reader_init(ImpReader *r, const char *name, const char *buf, size_t len,
                     ImportFormat fmt, char delim)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->buf = buf;
	r->len = len;
	r->fmt = fmt;
	r->delim = delim ? delim : ',';
	imp_reader_rewind(r);
}

void imp_reader_rewind(ImpReader *r)
{
	r->pos = 0;
	r->line = 1;
	r->lstart = 0;
	r->recno = 0;
	r->array_done = 0;
	if (r->len >= 3 && memcmp(r->buf, "\xEF\xBB\xBF", 3) == 0)
		r->pos = r->lstart = 3;
	json_decref(r->obj);
	r->obj = NULL;
}

void imp_reader_free(ImpReader *r)
{
	for (int i = 0; i < r->capfield; i++)
		sb_free(&r->field[i]);
	free(r->field);
	free(r->fpos);
	free(r->fquoted);
	json_decref(r->obj);
	memset(r, 0, sizeof *r);
}

ImpPos imp_pos_advance(const ImpReader *r, ImpPos p, size_t off)
{
	if (off > r->len)
		off = r->len;
	for (size_t i = p.off; i < off; i++) {
		if (r->buf[i] == '\n') {
			p.line++;
			p.lstart = i + 1;
		}
	}
	if (off > p.off)
		p.off = off;
	return p;
}

SuqlStatus imp_error(SuqlErr *err, const ImpReader *r, ImpPos p, int with_col,
                     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvprintf(fmt, ap);
	va_end(ap);
	if (!err) {
		free(msg);
		return SUQL_ERROR;
	}
	if (!with_col) {
		err_set(err, SUQL_ERROR, "%s:%ld: %s", r->name, p.line, msg);
		free(msg);
		return SUQL_ERROR;
	}
	/* err_at draws the line (given on its own) and the caret; err_render places them on
	   the file's line: "name:L:C: ". */
	size_t lend = p.lstart;
	while (lend < r->len && r->buf[lend] != '\n')
		lend++;
	if (lend > p.lstart && r->buf[lend - 1] == '\r')
		lend--;
	size_t off = p.off > lend ? lend - p.lstart : p.off - p.lstart;
	/* the line as shown: a NUL byte (which would end the message) as the symbol for NUL,
	   one character like the byte, so the caret and the column stay right */
	SBuf ln = SBUF_INIT;
	size_t at = off;
	for (size_t i = p.lstart; i < lend; i++) {
		if (r->buf[i]) {
			sb_putc(&ln, r->buf[i]);
			continue;
		}
		sb_puts(&ln, "\xE2\x90\x80");
		if (i - p.lstart < off)
			at += 2;
	}
	err_at(err, SUQL_ERROR, sb_str(&ln), ln.len, at, 1, NULL, "%s", msg);
	sb_free(&ln);
	char *full = err_render(err, r->name, (SuqlPlace){(int)p.line, 1});
	err_set(err, SUQL_ERROR, "%s", full);   /* about the file now, not the line alone */
	free(full);
	free(msg);
	return SUQL_ERROR;
}

/* ---- CSV ---- */

static ImpPos here(const ImpReader *r)
{
	ImpPos p = {r->pos, r->line, r->lstart};
	return p;
}

static void newline_at(ImpReader *r, size_t i)   /* buf[i] is '\n' */
{
	r->line++;
	r->lstart = i + 1;
}

static int start_field(ImpReader *r)
{
	if (r->nfield == r->capfield) {
		int cap = r->capfield ? r->capfield * 2 : 16;
		r->field = xrealloc(r->field, (size_t)cap * sizeof *r->field);
		r->fpos = xrealloc(r->fpos, (size_t)cap * sizeof *r->fpos);
		r->fquoted = xrealloc(r->fquoted, (size_t)cap * sizeof *r->fquoted);
		for (int i = r->capfield; i < cap; i++) {
			SBuf z = SBUF_INIT;
			r->field[i] = z;
		}
		r->capfield = cap;
	}
	int k = r->nfield++;
	sb_truncate(&r->field[k], 0);
	sb_putn(&r->field[k], "", 0);   /* never NULL, even when empty */
	r->fpos[k] = here(r);
	r->fquoted[k] = 0;
	return k;
}

int imp_csv_next(ImpReader *r, SuqlErr *err)
{
	const char *b = r->buf;
	size_t n = r->len;
	/* skip blank lines */
	for (;;) {
		if (r->pos >= n)
			return 0;
		if (b[r->pos] == '\n') {
			newline_at(r, r->pos);
			r->pos++;
		} else if (b[r->pos] == '\r' && r->pos + 1 < n && b[r->pos + 1] == '\n') {
			r->pos++;
		} else {
			break;
		}
	}
	r->nfield = 0;
	for (;;) {
		int k = start_field(r);
		SBuf *f = &r->field[k];
		if (r->pos < n && b[r->pos] == '"') {
			r->fquoted[k] = 1;
			ImpPos open = here(r);
			size_t i = r->pos + 1;
			for (;;) {
				if (i >= n) {
					r->pos = n;
					return imp_error(err, r, open, 1, "unterminated quoted field"), -1;
				}
				if (b[i] == '"') {
					if (i + 1 < n && b[i + 1] == '"') {
						sb_putc(f, '"');
						i += 2;
						continue;
					}
					i++;
					break;
				}
				size_t j = i;
				while (j < n && b[j] != '"' && b[j] != '\n')
					j++;
				if (j < n && b[j] == '\n') {
					sb_putn(f, b + i, j + 1 - i);
					newline_at(r, j);
					i = j + 1;
				} else {
					sb_putn(f, b + i, j - i);
					i = j;
				}
			}
			r->pos = i;
			if (i < n && b[i] != r->delim && b[i] != '\n' &&
			    !(b[i] == '\r' && (i + 1 >= n || b[i + 1] == '\n'))) {
				ImpPos at = here(r);
				return imp_error(err, r, at, 1, "unexpected '%c' after the closing quote of a "
				                 "field (a quote inside a field is written \"\")", b[i]), -1;
			}
		} else {
			size_t i = r->pos;
			while (i < n && b[i] != r->delim && b[i] != '\n' &&
			       !(b[i] == '\r' && i + 1 < n && b[i + 1] == '\n'))
				i++;
			size_t e = i;
			if (e == n && e > r->pos && b[e - 1] == '\r')
				e--;   /* a lone CR before the end of the file */
			sb_putn(f, b + r->pos, e - r->pos);
			r->pos = i;
		}
		if (r->pos < n && b[r->pos] == r->delim) {
			r->pos++;
			continue;
		}
		if (r->pos < n && b[r->pos] == '\r')
			r->pos++;
		if (r->pos < n && b[r->pos] == '\n') {
			newline_at(r, r->pos);
			r->pos++;
		}
		break;
	}
	r->recno++;
	return 1;
}
