/*
 * render_markup.c: the two output modes meant for documents: markdown (a pipe table: a
 * header row, its --- rule, then one line per row, every column padded to its widest cell
 * and the names centred, as sqlite3's markdown mode lays them out; '|' and '\' in a value
 * escaped with '\', a line break as <br>), written when the rows are held like a table's,
 * and html (a <table> with a <tr> per row, th cells for the column names, '"' as &quot;),
 * written a row at a time like CSV. Values are the text table mode
 * shows (render_cell_text: nullvalue for NULL, X'..' for a blob) with control characters
 * made visible and &, < and > as entities in both modes, so no byte of a value becomes
 * markup.
 */
#include "render/render_int.h"

#include <stdlib.h>
#include <string.h>

/* The characters markup gives a meaning, as entities (a value never becomes a tag). */
static void put_entities(SBuf *b, const char *s, size_t n, int md)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '&')
			sb_puts(b, "&amp;");
		else if (c == '<')
			sb_puts(b, "&lt;");
		else if (c == '>')
			sb_puts(b, "&gt;");
		else if (c == '"' && !md)
			sb_puts(b, "&quot;");
		else if (md && (c == '|' || c == '\\')) {
			sb_putc(b, '\\');
			sb_putc(b, c);
		} else
			sb_putc(b, c);
	}
}

/* One cell's text, line by line made visible (render_put_line), with put_entities' escapes
   and each line break as <br>. */
static void cell_text(SBuf *b, const char *s, size_t n, int md)
{
	SBuf v = SBUF_INIT;
	for (size_t a = 0;;) {
		size_t e = a;
		while (e < n && s[e] != '\n')
			e++;
		size_t le = e > a && e < n && s[e - 1] == '\r' ? e - 1 : e;
		sb_truncate(&v, 0);
		render_put_line(&v, s + a, le - a, 0, 0);
		put_entities(b, v.s ? v.s : "", v.len, md);
		if (e >= n)
			break;
		sb_puts(b, "<br>");
		a = e + 1;
	}
	sb_free(&v);
}

void render_markup_header(Render *r)
{
	if (r->header_done)
		return;
	r->header_done = 1;
	SBuf b = SBUF_INIT;
	sb_puts(&b, "<table>\n");
	if (r->o.headers) {
		sb_puts(&b, "<tr>");
		for (int i = 0; i < r->ncols; i++) {
			sb_puts(&b, "<th>");
			cell_text(&b, r->names[i], strlen(r->names[i]), 0);
			sb_puts(&b, "</th>");
		}
		sb_puts(&b, "</tr>\n");
	}
	fwrite(b.s, 1, b.len, r->out);
	sb_free(&b);
}

void render_markup_row(Render *r, const RCell *row, SBuf *b)
{
	SBuf tmp = SBUF_INIT;
	sb_puts(b, "<tr>");
	for (int i = 0; i < r->ncols; i++) {
		const char *s;
		size_t n;
		render_cell_text(r, &row[i], &tmp, &s, &n);
		sb_puts(b, "<td>");
		cell_text(b, s, n, 0);
		sb_puts(b, "</td>");
	}
	sb_puts(b, "</tr>\n");
	sb_free(&tmp);
}

/* A markdown cell padded to w columns; centred (the names, as sqlite3 centres them) or
   left-aligned. */
static void md_cell(SBuf *b, const SBuf *t, size_t w, int centre)
{
	size_t tw = render_width(sb_str(t), t->len), pad = w > tw ? w - tw : 0;
	size_t left = centre ? pad / 2 : 0;
	for (size_t p = 0; p < left; p++)
		sb_putc(b, ' ');
	sb_putn(b, sb_str(t), t->len);
	for (size_t p = left; p < pad; p++)
		sb_putc(b, ' ');
}

/* The held rows as a pipe table whose columns line up (as sqlite3's markdown mode pads
   them): the header row and its rule first, once; a later part of fetch_count rows is
   padded to its own widths. */
void render_markdown(Render *r)
{
	int nc = r->ncols;
	long nrows = nc ? (long)(r->ncells / (size_t)nc) : 0;
	SBuf *t = xcalloc((size_t)(nrows + 1) * (size_t)(nc ? nc : 1), sizeof *t), tmp = SBUF_INIT;
	size_t *w = xcalloc(nc ? (size_t)nc : 1, sizeof *w);
	for (long i = -1; i < nrows; i++)
		for (int c = 0; c < nc; c++) {
			SBuf *cell = &t[(size_t)(i + 1) * (size_t)nc + (size_t)c];
			const char *s;
			size_t n;
			if (i < 0) {
				if (r->header_done)
					continue;
				s = r->names[c];
				n = strlen(s);
			} else {
				render_cell_text(r, &RENDER_ROW(r, i)[c], &tmp, &s, &n);
			}
			cell_text(cell, s, n, 1);
			size_t cw = render_width(sb_str(cell), cell->len);
			w[c] = cw > w[c] ? cw : w[c];
		}
	SBuf b = SBUF_INIT;
	for (long i = r->header_done ? 0 : -1; i < nrows; i++) {
		sb_putc(&b, '|');
		for (int c = 0; c < nc; c++) {
			sb_putc(&b, ' ');
			md_cell(&b, &t[(size_t)(i + 1) * (size_t)nc + (size_t)c], w[c], i < 0);
			sb_puts(&b, " |");
		}
		sb_putc(&b, '\n');
		if (i < 0) {   /* the rule under the names */
			sb_putc(&b, '|');
			for (int c = 0; c < nc; c++) {
				for (size_t p = 0; p < w[c] + 2; p++)
					sb_putc(&b, '-');
				sb_putc(&b, '|');
			}
			sb_putc(&b, '\n');
		}
		if (b.len > 65536) {
			fwrite(b.s, 1, b.len, r->out);
			sb_truncate(&b, 0);
		}
	}
	r->header_done = 1;
	fwrite(b.s, 1, b.len, r->out);
	for (size_t k = 0; k < (size_t)(nrows + 1) * (size_t)nc; k++)
		sb_free(&t[k]);
	free(t);
	free(w);
	sb_free(&b);
	sb_free(&tmp);
}

void render_markup_end(Render *r)
{
	if (r->o.mode == RENDER_HTML) {
		render_markup_header(r);
		fputs("</table>\n", r->out);
	} else if (!r->header_done) {
		render_markdown(r);   /* no row came: the header alone */
	}
}
