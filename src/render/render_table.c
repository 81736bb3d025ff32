/*
 * render_table.c: the aligned table and box modes. Columns are as wide as their widest line
 * (display width, so CJK and emoji line up); numbers are right-aligned; a value with
 * newlines spans several lines of its row. When RenderOpts.width is set (a terminal), the
 * widest columns give way until the table fits and long cells end in an ellipsis; anywhere,
 * a line of a cell past RenderOpts.max_width columns is cut the same way. A footer
 * says how many rows there were. Past RenderOpts.fetch rows, the rows so far are written as
 * a table of their own and the next rows start another (render_flush).
 */
#include "render/render_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct Lines {   /* walks the lines of one cell */
	const char *s;
	size_t n, pos;
	int done;
} Lines;

static int next_line(Lines *l, const char **s, size_t *n)
{
	if (l->done) {
		*s = "";
		*n = 0;
		return 0;
	}
	size_t e = l->pos;
	while (e < l->n && l->s[e] != '\n')
		e++;
	*s = l->s + l->pos;
	*n = e - l->pos;
	if (*n && e < l->n && l->s[e - 1] == '\r')
		(*n)--;   /* CRLF line ends */
	if (e >= l->n)
		l->done = 1;
	else
		l->pos = e + 1;
	return 1;
}

static size_t max_line_width(const char *s, size_t n)
{
	Lines l = {s, n, 0, 0};
	const char *ls;
	size_t ln, w = 0;
	while (next_line(&l, &ls, &ln)) {
		size_t lw = render_width(ls, ln);
		if (lw > w)
			w = lw;
	}
	return w;
}

/* Narrow the widest columns, one column at a time, until the table fits in width. */
static void fit(size_t *w, int nc, int width)
{
	size_t avail = (size_t)width > 3 * (size_t)nc + 1 ? (size_t)width - 3 * (size_t)nc - 1 : 0;
	size_t sum = 0;
	for (int c = 0; c < nc; c++)
		sum += w[c];
	size_t *minw = xmalloc((size_t)nc * sizeof *minw);
	for (int c = 0; c < nc; c++)
		minw[c] = w[c] < 6 ? w[c] : 6;
	while (sum > avail) {
		int widest = -1;
		for (int c = 0; c < nc; c++)
			if (w[c] > minw[c] && (widest < 0 || w[c] > w[widest]))
				widest = c;
		if (widest < 0)
			break;   /* as narrow as it goes: let the terminal wrap */
		size_t second = 0;   /* shrink straight to the next widest, or just enough */
		for (int c = 0; c < nc; c++)
			if (c != widest && w[c] > second)
				second = w[c];
		size_t step = w[widest] - (second > minw[widest] ? second : minw[widest]);
		if (step == 0)
			step = 1;
		if (step > sum - avail)
			step = sum - avail;
		w[widest] -= step;
		sum -= step;
	}
	free(minw);
}

typedef struct Frame {
	const char *h, *v;            /* horizontal and vertical line */
	const char *tl, *tm, *tr;     /* top: left, middle, right */
	const char *ml, *mm, *mr;     /* under the header */
	const char *bl, *bm, *br;     /* bottom */
} Frame;

static const Frame ascii = {"-", "|", "+", "+", "+", "+", "+", "+", "+", "+", "+"};
static const Frame unicode = {"\xE2\x94\x80", "\xE2\x94\x82", "\xE2\x94\x8C", "\xE2\x94\xAC",
                              "\xE2\x94\x90", "\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4",
                              "\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98"};

static void rule(SBuf *b, const Frame *f, const size_t *w, int nc, const char *l, const char *m,
                 const char *r)
{
	sb_puts(b, l);
	for (int c = 0; c < nc; c++) {
		for (size_t i = 0; i < w[c] + 2; i++)
			sb_puts(b, f->h);
		sb_puts(b, c + 1 < nc ? m : r);
	}
	sb_putc(b, '\n');
}

/* One row of the table (the header when names is set), over as many lines as its tallest
   cell. */
static void table_row(Render *r, SBuf *b, const Frame *f, const size_t *w, const RCell *row,
                      char **names, int uni, SBuf *tmp)
{
	int nc = r->ncols;
	Lines *cur = xcalloc((size_t)nc, sizeof *cur);
	for (int c = 0; c < nc; c++) {
		const char *s;
		size_t n;
		if (names) {
			s = names[c];
			n = strlen(s);
		} else {
			render_cell_text(r, &row[c], &tmp[c], &s, &n);
		}
		cur[c] = (Lines){s, n, 0, 0};
	}
	SBuf cell = SBUF_INIT;
	for (int more = 1; more;) {
		more = 0;
		sb_puts(b, f->v);
		for (int c = 0; c < nc; c++) {
			const char *ls;
			size_t ln;
			next_line(&cur[c], &ls, &ln);
			more |= !cur[c].done;
			sb_truncate(&cell, 0);
			size_t cw = render_put_line(&cell, ls, ln,
			                            r->o.width || r->o.max_width ? w[c] : 0, uni);
			int right = !names && (row[c].type == ROW_INTEGER || row[c].type == ROW_REAL);
			const char *on = !r->o.color || !cell.len ? NULL : names ? RENDER_BOLD
			                 : row[c].type == ROW_NULL ? RENDER_DIM : NULL;
			sb_putc(b, ' ');
			for (size_t p = cw; right && p < w[c]; p++)
				sb_putc(b, ' ');
			if (on)
				sb_puts(b, on);
			sb_putn(b, sb_str(&cell), cell.len);
			if (on)
				sb_puts(b, RENDER_RESET);
			for (size_t p = cw; !right && p < w[c]; p++)
				sb_putc(b, ' ');
			sb_putc(b, ' ');
			sb_puts(b, f->v);
		}
		sb_putc(b, '\n');
	}
	sb_free(&cell);
	free(cur);
}

/* The width of each column: its widest line (its name's too, with headers on), at most
   max_width. */
static void widths(Render *r, size_t *w, SBuf *tmp)
{
	int nc = r->ncols;
	long nrows = nc ? (long)(r->ncells / (size_t)nc) : 0;
	for (int c = 0; c < nc; c++) {
		w[c] = r->o.headers ? max_line_width(r->names[c], strlen(r->names[c])) : 0;
		for (long i = 0; i < nrows; i++) {
			const char *s;
			size_t n;
			render_cell_text(r, &RENDER_ROW(r, i)[c], &tmp[c], &s, &n);
			size_t cw = max_line_width(s, n);
			if (cw > w[c])
				w[c] = cw;
		}
		if (r->o.max_width > 0 && w[c] > (size_t)r->o.max_width)
			w[c] = (size_t)r->o.max_width;   /* one huge value never makes every row huge */
	}
}

size_t render_table_width(Render *r)
{
	int nc = r->ncols;
	size_t *w = xcalloc(nc ? (size_t)nc : 1, sizeof *w), sum = 1;
	SBuf *tmp = xcalloc(nc ? (size_t)nc : 1, sizeof *tmp);
	widths(r, w, tmp);
	for (int c = 0; c < nc; c++) {
		sum += w[c] + 3;
		sb_free(&tmp[c]);
	}
	free(tmp);
	free(w);
	return sum;
}

void render_table(Render *r, int last)
{
	int nc = r->ncols;
	long nrows = nc ? (long)(r->ncells / (size_t)nc) : 0;
	if (nrows == 0 && r->ntables > 0) {
		if (last)
			fprintf(r->out, "(%ld row%s)\n", r->nrows, r->nrows == 1 ? "" : "s");
		return;
	}
	r->ntables++;
	int uni = r->o.mode == RENDER_BOX || r->o.unicode;
	const Frame *f = uni ? &unicode : &ascii;
	size_t *w = xcalloc((size_t)nc ? (size_t)nc : 1, sizeof *w);
	SBuf *tmp = xcalloc((size_t)nc ? (size_t)nc : 1, sizeof *tmp);

	widths(r, w, tmp);
	if (r->o.width > 0)
		fit(w, nc, r->o.width);

	SBuf b = SBUF_INIT;
	rule(&b, f, w, nc, f->tl, f->tm, f->tr);
	if (r->o.headers) {
		table_row(r, &b, f, w, NULL, r->names, uni, tmp);
		rule(&b, f, w, nc, f->ml, f->mm, f->mr);
	}
	for (long i = 0; i < nrows; i++) {
		table_row(r, &b, f, w, RENDER_ROW(r, i), NULL, uni, tmp);
		if (b.len > 65536) {   /* write big tables as they are laid out */
			fwrite(b.s, 1, b.len, r->out);
			sb_truncate(&b, 0);
		}
	}
	rule(&b, f, w, nc, f->bl, f->bm, f->br);
	if (last)
		sb_printf(&b, "(%ld row%s)\n", r->nrows, r->nrows == 1 ? "" : "s");
	fwrite(b.s, 1, b.len, r->out);
	sb_free(&b);
	for (int c = 0; c < nc; c++)
		sb_free(&tmp[c]);
	free(tmp);
	free(w);
}
