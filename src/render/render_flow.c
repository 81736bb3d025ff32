/*
 * render_flow.c: text laid out for a terminal's width: labelled sections whose long lines
 * wrap with a hanging indent (the plan and counters at 80 columns), and RenderFlow, which
 * writes text that arrives in pieces (a chat reply streamed by the model) as it comes,
 * wrapped at blanks and with control characters made visible. See render.h.
 */
#include "base/vis.h"
#include "render/render_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- sections ---- */

void render_section_wrap(FILE *out, const char *label, const char *raw, int color, int width)
{
	SBuf shown = SBUF_INIT;   /* plans and replies quote the data: its controls made visible */
	vis_put(&shown, raw, strlen(raw), VIS_TEXT);
	const char *text = sb_str(&shown);
	size_t n = shown.len;
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	if (!n) {
		sb_free(&shown);
		return;
	}
	fprintf(out, "%s%s:%s\n", color ? RENDER_BOLD : "", label, color ? RENDER_RESET : "");
	for (size_t a = 0; a < n;) {
		size_t e = a;
		while (e < n && text[e] != '\n')
			e++;
		if (width <= 0 || 2 + render_width(text + a, e - a) <= (size_t)width) {
			fprintf(out, "  %.*s\n", (int)(e - a), text + a);
		} else {
			size_t lead = 0;
			while (a + lead < e && text[a + lead] == ' ')
				lead++;
			int at = 2 + (int)lead, hang = at + 4;
			if (hang > width / 2)
				hang = at < width / 2 ? width / 2 : at;
			char *words = xstrndup(text + a + lead, e - a - lead);
			fprintf(out, "%*s", at, "");
			render_wrap(out, words, at, hang, width);
			free(words);
		}
		a = e + 1;
	}
	sb_free(&shown);
}

/* ---- text in pieces ---- */

struct RenderFlow {
	FILE *out;
	int width;        /* content columns per line; 0: no wrapping */
	SBuf word;        /* the word being read */
	int col;          /* content columns on the current line */
	int started;      /* a word was written (a line is open) */
	int spaces;       /* blanks since the last word */
	int newlines;     /* line ends since the last word */
	int cr;           /* a '\r' is held: with a '\n' after it, it is a line end */
};

RenderFlow *render_flow_new(FILE *out, int width)
{
	RenderFlow *f = xcalloc(1, sizeof *f);
	f->out = out;
	f->width = width > 0 ? width : 0;
	return f;
}

static void flush_word(RenderFlow *f)
{
	if (!f->word.len)
		return;
	SBuf b = SBUF_INIT;
	size_t ww = render_width(f->word.s, f->word.len);
	if (!f->started) {
		sb_puts(&b, "  ");
		f->started = 1;
		f->col = 0;
	} else if (f->newlines) {
		sb_putc(&b, '\n');
		for (int i = 1; i < f->newlines; i++)
			sb_puts(&b, "  \n");   /* an empty line, as render_section writes one */
		sb_puts(&b, "  ");
		f->col = 0;
		for (int i = 0; i < f->spaces && i < 16; i++, f->col++)
			sb_putc(&b, ' ');   /* a line's own indentation is kept */
	} else if (f->spaces) {
		if (f->width && f->col > 0 && f->col + 1 + (int)ww > f->width) {
			sb_puts(&b, "\n  ");
			f->col = 0;
		} else {
			sb_putc(&b, ' ');
			f->col++;
		}
	}
	f->col += (int)render_put_line(&b, f->word.s, f->word.len, 0, 0);
	fwrite(b.s, 1, b.len, f->out);
	fflush(f->out);
	sb_free(&b);
	sb_truncate(&f->word, 0);
	f->spaces = f->newlines = 0;
}

void render_flow_put(RenderFlow *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (f->cr) {
			f->cr = 0;
			if (c != '\n')
				sb_putc(&f->word, '\r');   /* a lone CR: shown as ^M */
		}
		if (c == '\r') {
			f->cr = 1;
		} else if (c == ' ') {
			flush_word(f);
			if (f->started)
				f->spaces++;
		} else if (c == '\n') {
			flush_word(f);
			if (f->started) {
				f->newlines++;
				f->spaces = 0;
			}
		} else {
			sb_putc(&f->word, c);
		}
	}
}

void render_flow_end(RenderFlow *f)
{
	if (!f)
		return;
	flush_word(f);
	if (f->started) {
		fputc('\n', f->out);
		fflush(f->out);
	}
	sb_free(&f->word);
	free(f);
}
