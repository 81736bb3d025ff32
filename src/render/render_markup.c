/*
 * render_markup.c: the two output modes meant for documents, written a row at a time like
 * CSV: markdown (a pipe table: a header row, its --- rule, then one line per row; '|' and
 * '\' in a value escaped with '\', a line break as <br>) and html (a <table> with a <tr>
 * per row, th cells for the column names, '"' as &quot;). Values are the text table mode
 * shows (render_cell_text: nullvalue for NULL, X'..' for a blob) with control characters
 * made visible and &, < and > as entities in both modes, so no byte of a value becomes
 * markup.
 */
#include "render/render_int.h"

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
	if (r->o.mode == RENDER_HTML) {
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
	} else {   /* markdown: a table has its header row, whatever the headers setting */
		sb_putc(&b, '|');
		for (int i = 0; i < r->ncols; i++) {
			sb_putc(&b, ' ');
			cell_text(&b, r->names[i], strlen(r->names[i]), 1);
			sb_puts(&b, " |");
		}
		sb_puts(&b, "\n|");
		for (int i = 0; i < r->ncols; i++)
			sb_puts(&b, "---|");
		sb_putc(&b, '\n');
	}
	fwrite(b.s, 1, b.len, r->out);
	sb_free(&b);
}

void render_markup_row(Render *r, const RCell *row, SBuf *b)
{
	SBuf tmp = SBUF_INIT;
	int html = r->o.mode == RENDER_HTML;
	sb_puts(b, html ? "<tr>" : "|");
	for (int i = 0; i < r->ncols; i++) {
		const char *s;
		size_t n;
		render_cell_text(r, &row[i], &tmp, &s, &n);
		if (html) {
			sb_puts(b, "<td>");
			cell_text(b, s, n, 0);
			sb_puts(b, "</td>");
		} else {
			sb_putc(b, ' ');
			cell_text(b, s, n, 1);
			sb_puts(b, " |");
		}
	}
	sb_puts(b, html ? "</tr>\n" : "\n");
	sb_free(&tmp);
}

void render_markup_end(Render *r)
{
	if (r->o.mode == RENDER_HTML) {
		render_markup_header(r);
		fputs("</table>\n", r->out);
	} else {
		render_markup_header(r);
	}
}
