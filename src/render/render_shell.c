/*
 * render_shell.c: the sqlite3 shell's output modes, written as the sqlite3 shell (3.40)
 * writes them, so a script or a habit moved from it prints the same bytes:
 *
 *   list    values separated by '|', a row a line, the names first (headers on)
 *   tabs    the same with a tab between values
 *   quote   values as SQL literals ('it''s', X'00ff', NULL, 1.5) separated by ',', the
 *           names first as strings
 *   insert  INSERT INTO "table"[(names)] VALUES(...); a row a line (RenderOpts.table names
 *           the table; the names with headers on)
 *   column  aligned columns two blanks apart, every column padded, the names and a rule of
 *           dashes first; a value with line breaks spans lines, and then a blank line
 *           separates the rows
 *
 * As in the shell, a value is its text up to the first NUL byte (a blob's bytes in list,
 * tabs and column), NULL is nullvalue when it was set and nothing otherwise (quote and
 * insert write NULL), the names come only before a first row, and a result without rows
 * writes nothing. quote and insert write reals with SQLite's own printf ("%!.20g", or
 * "%lld.0" for a whole number) and quote a name the way the shell decides (SQLite's keyword
 * list), so this file calls SQLite (src/README.md lists it). In column mode a tab is blanks
 * to the next multiple of 8 and any other control character breaks the line (CR LF as
 * one), as the shell does; a character as wide as two columns (CJK) counts two where 3.40
 * counts one, so such columns still line up.
 *
 * On a terminal (RenderOpts.visible), control characters are shown as ^X, as csv shows
 * them there; elsewhere the bytes are written as they are.
 */
#define _XOPEN_SOURCE 700   /* wcwidth */
#include "base/vis.h"
#include "render/render_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- values ---- */

/* A value's text as the shell reads it (a C string): up to the first NUL byte. */
static void c_text(const Render *r, const RCell *c, const char **s, size_t *n)
{
	*s = c->n ? r->data.s + c->off : "";
	const char *nul = c->n ? memchr(*s, '\0', c->n) : NULL;
	*n = nul ? (size_t)(nul - *s) : c->n;
}

/* list, tabs, column: the text, or nullvalue (nothing unless it was set) for NULL. */
static void shell_text(const Render *r, const RCell *c, const char **s, size_t *n)
{
	if (c->type == ROW_NULL) {
		*s = r->o.nullvalue ? r->o.nullvalue : "";
		*n = strlen(*s);
		return;
	}
	c_text(r, c, s, n);
}

static void put_text(const Render *r, SBuf *b, const char *s, size_t n)
{
	if (r->o.visible)
		vis_put(b, s, n, VIS_TEXT);
	else
		sb_putn(b, s, n);
}

static size_t find(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++)
		if (memcmp(s + i, w, wl) == 0)
			return i;
	return n;
}

/* The shell's escape for a line break in insert mode: a, else b, else "(a0)", "(a1)", ...,
   the first that the text does not hold. */
static const char *unused(const char *s, size_t n, const char *a, const char *b, char *buf,
                          size_t cap)
{
	if (find(s, n, a) == n)
		return a;
	if (find(s, n, b) == n)
		return b;
	unsigned i = 0;
	do
		snprintf(buf, cap, "(%s%u)", a, i++);
	while (find(s, n, buf) < n);
	return buf;
}

/* 'text' with each quote doubled; in insert mode (nl, cr set) the line breaks written as
   the shell's escapes, which the replace() around the literal turns back. */
static void put_quoted(const Render *r, SBuf *b, const char *s, size_t n, const char *nl,
                       const char *cr)
{
	sb_putc(b, '\'');
	size_t a = 0;
	for (size_t i = 0; i <= n; i++) {
		const char *sub = i == n ? NULL : s[i] == '\'' ? "''" : s[i] == '\n' && nl ? nl
		                  : s[i] == '\r' && cr ? cr : NULL;
		if (i < n && !sub)
			continue;
		put_text(r, b, s + a, i - a);
		if (sub)
			sb_puts(b, sub);
		a = i + 1;
	}
	sb_putc(b, '\'');
}

/* insert: a text with line breaks is replace('a\nb','\n',char(10)), as the shell writes
   it, so the statement stays on one line. */
static void put_escaped(const Render *r, SBuf *b, const char *s, size_t n)
{
	int has_nl = memchr(s, '\n', n) != NULL, has_cr = memchr(s, '\r', n) != NULL;
	char bn[32], br[32];
	const char *nl = has_nl ? unused(s, n, "\\n", "\\012", bn, sizeof bn) : NULL;
	const char *cr = has_cr ? unused(s, n, "\\r", "\\015", br, sizeof br) : NULL;
	if (nl)
		sb_puts(b, "replace(");
	if (cr)
		sb_puts(b, "replace(");
	put_quoted(r, b, s, n, nl, cr);
	if (cr)
		sb_printf(b, ",'%s',char(13))", cr);
	if (nl)
		sb_printf(b, ",'%s',char(10))", nl);
}

/* A real as quote and insert write it: a whole number as 12.0, others with SQLite's
   "%!.20g" (insert writes the infinities as 1e999, which SQLite reads back). */
static void put_real(SBuf *b, double d, int insert)
{
	char z[64];
	if (insert && isinf(d)) {
		sb_puts(b, d > 0 ? "1e999" : "-1e999");
		return;
	}
	/* the shell compares d with (sqlite3_int64)d; out of that range they never agree */
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
	    d == (double)(sqlite3_int64)d)
		sqlite3_snprintf((int)sizeof z, z, "%lld.0", (sqlite3_int64)d);
	else
		sqlite3_snprintf((int)sizeof z, z, "%!.20g", d);
	sb_puts(b, z);
}

static void put_literal(const Render *r, SBuf *b, const RCell *c, int insert)
{
	static const char hex[] = "0123456789abcdef";
	const char *s;
	size_t n;
	if (c->type == ROW_NULL) {
		sb_puts(b, "NULL");
	} else if (c->type == ROW_BLOB) {
		s = c->n ? r->data.s + c->off : "";
		sb_puts(b, "X'");
		for (size_t i = 0; i < c->n; i++) {
			sb_putc(b, hex[(unsigned char)s[i] >> 4]);
			sb_putc(b, hex[(unsigned char)s[i] & 15]);
		}
		sb_putc(b, '\'');
	} else if (c->type == ROW_REAL) {
		put_real(b, c->d, insert);
	} else if (c->type == ROW_INTEGER) {
		c_text(r, c, &s, &n);
		sb_putn(b, s, n);
	} else {
		c_text(r, c, &s, &n);
		if (insert)
			put_escaped(r, b, s, n);
		else
			put_quoted(r, b, s, n, NULL, NULL);
	}
}

/* A name in an INSERT: as it is when it is a plain word that is not a keyword, else in
   double quotes (each '"' doubled), as the shell decides. */
static void put_name(const Render *r, SBuf *b, const char *name)
{
	size_t n = strlen(name);
	int quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++) {
		char c = name[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
		quote = !(alpha || (i > 0 && c >= '0' && c <= '9'));
	}
	if (!quote)
		quote = sqlite3_keyword_check(name, (int)n) != 0;
	if (!quote) {
		put_text(r, b, name, n);
		return;
	}
	sb_putc(b, '"');
	for (size_t a = 0, i = 0; i <= n; i++)
		if (i == n || name[i] == '"') {
			put_text(r, b, name + a, i - a);
			if (i < n)
				sb_puts(b, "\"\"");
			a = i + 1;
		}
	sb_putc(b, '"');
}

/* ---- list, tabs, quote, insert: a row at a time ---- */

static void names_line(Render *r, SBuf *b, char sep)
{
	for (int i = 0; i < r->ncols; i++) {
		if (i)
			sb_putc(b, sep);
		size_t n = strlen(r->names[i]);
		if (r->o.mode == RENDER_QUOTE)
			put_quoted(r, b, r->names[i], n, NULL, NULL);
		else
			put_text(r, b, r->names[i], n);
	}
	sb_putc(b, '\n');
}

void render_shell_row(Render *r, const RCell *row, SBuf *b)
{
	RenderMode m = r->o.mode;
	char sep = m == RENDER_TABS ? '\t' : m == RENDER_QUOTE ? ',' : '|';
	if (m != RENDER_INSERT && r->o.headers && !r->header_done)
		names_line(r, b, sep);
	r->header_done = 1;
	if (m == RENDER_INSERT) {
		sb_puts(b, "INSERT INTO ");
		put_name(r, b, r->o.table ? r->o.table : "table");
		if (r->o.headers) {
			sb_putc(b, '(');
			for (int i = 0; i < r->ncols; i++) {
				if (i)
					sb_putc(b, ',');
				put_name(r, b, r->names[i]);
			}
			sb_putc(b, ')');
		}
		sb_puts(b, " VALUES(");
	}
	for (int i = 0; i < r->ncols; i++) {
		if (i)
			sb_putc(b, m == RENDER_INSERT ? ',' : sep);
		if (m == RENDER_QUOTE || m == RENDER_INSERT) {
			put_literal(r, b, &row[i], m == RENDER_INSERT);
		} else {
			const char *s;
			size_t n;
			shell_text(r, &row[i], &s, &n);
			put_text(r, b, s, n);
		}
	}
	sb_puts(b, m == RENDER_INSERT ? ");\n" : "\n");
}

/* ---- column: the buffered rows at once ---- */

/* The columns one character takes: on a terminal as vis shows it, elsewhere as the shell
   counts (one a character) but two for a wide one. */
static size_t char_cols(const Render *r, const char *s, size_t k, long cp)
{
	if (r->o.visible)
		return render_width(s, k);
	int w = cp >= 0x20 ? wcwidth((wchar_t)cp) : 1;
	return w == 2 ? 2 : 1;
}

/* The next line of a column cell, from s[*pos..n): its characters up to a control
   character other than a tab, each tab as blanks to the next multiple of 8 columns.
   Appended to out (when not NULL); returns its width. The control character that ended it
   is skipped (CR LF as one); *pos is n when no line follows. */
static size_t column_line(const Render *r, const char *s, size_t n, size_t *pos, SBuf *out)
{
	size_t i = *pos, w = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t') {
			do {
				if (out)
					sb_putc(out, ' ');
				w++;
			} while (w % 8);
			i++;
			continue;
		}
		if (c < 0x20)
			break;
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		w += char_cols(r, s + i, k, cp);
		if (out)
			put_text(r, out, s + i, k);
		i += k;
	}
	if (i < n)
		i += s[i] == '\r' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
	*pos = i;
	return w;
}

/* Every cell's width (the widest of its lines) into w, the names included (as the shell
   counts them, even with headers off); returns whether some value spans lines. */
static int column_widths(Render *r, size_t *w)
{
	int nc = r->ncols, multi = 0;
	long nrows = nc ? (long)(r->ncells / (size_t)nc) : 0;
	for (int c = 0; c < nc; c++) {
		w[c] = 0;
		const char *name = r->names[c];   /* the names count with headers off too */
		size_t nn = strlen(name), npos = 0;
		do {
			size_t lw = column_line(r, name, nn, &npos, NULL);
			w[c] = lw > w[c] ? lw : w[c];
		} while (npos < nn);
		for (long i = 0; i < nrows; i++) {
			const char *s;
			size_t n, pos = 0;
			shell_text(r, &RENDER_ROW(r, i)[c], &s, &n);
			int lines = 0;
			do {
				size_t lw = column_line(r, s, n, &pos, NULL);
				w[c] = lw > w[c] ? lw : w[c];
				lines++;
			} while (pos < n);
			multi |= lines > 1;
		}
	}
	return multi;
}

size_t render_column_width(Render *r)
{
	int nc = r->ncols;
	size_t *w = xcalloc(nc ? (size_t)nc : 1, sizeof *w), sum = 0;
	column_widths(r, w);
	for (int c = 0; c < nc; c++)
		sum += w[c] + (c ? 2 : 0);
	free(w);
	return sum;
}

/* One row (the names when names is set) over as many lines as its tallest cell. */
static void column_row(Render *r, SBuf *b, const size_t *w, const RCell *row, char **names)
{
	int nc = r->ncols;
	size_t *pos = xcalloc((size_t)nc, sizeof *pos), *len = xcalloc((size_t)nc, sizeof *len);
	const char **text = xcalloc((size_t)nc, sizeof *text);
	for (int c = 0; c < nc; c++) {
		if (names) {
			text[c] = names[c];
			len[c] = strlen(names[c]);
		} else {
			shell_text(r, &row[c], &text[c], &len[c]);
		}
	}
	for (int first = 1, more = 1; more; first = 0) {
		more = 0;
		for (int c = 0; c < nc; c++) {
			size_t cw = 0;
			if (first || pos[c] < len[c])
				cw = column_line(r, text[c], len[c], &pos[c], b);
			more |= pos[c] < len[c];
			for (size_t p = cw; p < w[c]; p++)
				sb_putc(b, ' ');
			if (c + 1 < nc)
				sb_puts(b, "  ");
		}
		sb_putc(b, '\n');
	}
	free(pos);
	free(len);
	free(text);
}

void render_column(Render *r)
{
	int nc = r->ncols;
	long nrows = nc ? (long)(r->ncells / (size_t)nc) : 0;
	if (nrows == 0)
		return;   /* as the shell: no rows, no names */
	size_t *w = xcalloc((size_t)nc, sizeof *w);
	int multi = column_widths(r, w);
	SBuf b = SBUF_INIT;
	if (r->o.headers) {
		column_row(r, &b, w, NULL, r->names);
		for (int c = 0; c < nc; c++) {
			for (size_t p = 0; p < w[c]; p++)
				sb_putc(&b, '-');
			if (c + 1 < nc)
				sb_puts(&b, "  ");
		}
		sb_putc(&b, '\n');
	}
	for (long i = 0; i < nrows; i++) {
		if (multi && i > 0)
			sb_putc(&b, '\n');   /* rows of several lines apart, as the shell sets them */
		column_row(r, &b, w, RENDER_ROW(r, i), NULL);
		if (b.len > 65536) {
			fwrite(b.s, 1, b.len, r->out);
			sb_truncate(&b, 0);
		}
	}
	fwrite(b.s, 1, b.len, r->out);
	sb_free(&b);
	free(w);
}
