/*
 * render_flow.c: text laid out for a terminal's width, always broken at blanks: labelled
 * sections whose long lines wrap with a hanging indent (the plan and counters at 80
 * columns; the parsed statement broken outside its quotes), one-line sections (the compact
 * display), messages (an error's text wraps, its excerpt is cut around the caret), and
 * RenderFlow, which writes text that arrives in pieces (a chat reply streamed by the model)
 * as it comes, wrapped at blanks and with control characters made visible. See render.h.
 */
#include "base/vis.h"
#include "render/render_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- words ----
   Every place suql wraps text to a width breaks it at blanks, never inside a word; a word
   wider than the line is written whole (the terminal folds it). SQL text (the parsed
   statement) is broken outside its quoted strings and names where it can, so a line holds
   'is it romantic?' whole; a quoted run wider than the line is broken at its own blanks. */

/* The end of the unit that starts at p (not a blank): the next blank, or with sql the next
   blank outside quotes ('...' with '' inside, "...", `...`, [...]). */
static const char *unit_end(const char *p, int sql)
{
	char q = 0;
	for (; *p; p++) {
		if (q) {
			if (*p == q) {
				if (q != ']' && p[1] == q)
					p++;   /* a doubled quote stays inside */
				else
					q = 0;
			}
		} else if (*p == ' ') {
			break;
		} else if (sql && (*p == '\'' || *p == '"' || *p == '`')) {
			q = *p;
		} else if (sql && *p == '[') {
			q = ']';
		}
	}
	return p;
}

static void wrap_text(FILE *out, const char *text, int at, int indent, int width, int sql)
{
	int col = at, fresh = 1;
	const char *words_to = NULL;   /* inside a quoted run too wide for a line: word by word */
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *e = unit_end(p, sql && (!words_to || p >= words_to));
		int n = (int)render_width(p, (size_t)(e - p));
		if (sql && e > p && memchr(p, ' ', (size_t)(e - p)) && n > width - indent &&
		    (!words_to || p >= words_to)) {
			words_to = e;   /* this run cannot fit any line: break it at its blanks */
			e = unit_end(p, 0);
			n = (int)render_width(p, (size_t)(e - p));
		}
		if (width > 0 && !fresh && col + 1 + n > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			fresh = 1;
		}
		if (!fresh) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, (size_t)(e - p), out);
		col += n;
		fresh = 0;
		p = e;
	}
	fputc('\n', out);
}

void render_wrap(FILE *out, const char *text, int at, int indent, int width)
{
	wrap_text(out, text, at, indent, width, 0);
}

/* ---- sections ---- */

/* Whether a line of a plan quotes SQL literals ("answer(reviews, 'is it romantic?')"), so
   it is best broken outside them: it holds a quote, and none between two letters as an
   English possessive has one ("the model's price"). */
static int quotes_sql(const char *l, size_t n)
{
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		if (l[i] != '\'')
			continue;
		any = 1;
		int before = i > 0 && ((l[i - 1] | 0x20) >= 'a' && (l[i - 1] | 0x20) <= 'z');
		int after = i + 1 < n && ((l[i + 1] | 0x20) >= 'a' && (l[i + 1] | 0x20) <= 'z');
		if (before && after)
			return 0;
	}
	return any;
}

static void section(FILE *out, const char *label, const char *raw, int color, int width,
                    int sql)
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
			wrap_text(out, words, at, hang, width, sql || quotes_sql(text + a, e - a));
			free(words);
		}
		a = e + 1;
	}
	sb_free(&shown);
}

void render_section_wrap(FILE *out, const char *label, const char *raw, int color, int width)
{
	section(out, label, raw, color, width, 0);
}

void render_section_sql(FILE *out, const char *label, const char *raw, int color, int width)
{
	section(out, label, raw, color, width, 1);
}

void render_labelled_line(FILE *out, const char *label, const char *raw, int color, int width)
{
	SBuf shown = SBUF_INIT;
	vis_put(&shown, raw, strlen(raw), 0);   /* one line: a newline shows as ^J */
	int at = (int)render_width(label, strlen(label)) + 2;
	fprintf(out, "%s%s:%s ", color ? RENDER_BOLD : "", label, color ? RENDER_RESET : "");
	wrap_text(out, sb_str(&shown), at, 2, width, 0);
	sb_free(&shown);
}

/* ---- messages ---- */

/* Whether line l (n bytes) is a caret line under an excerpt: blanks, then '^', then '~'s. */
static int caret_line(const char *l, size_t n)
{
	size_t i = 0;
	while (i < n && l[i] == ' ')
		i++;
	if (i == n || l[i] != '^')
		return 0;
	for (i++; i < n; i++)
		if (l[i] != '~')
			return 0;
	return 1;
}

/* The byte offset of the k-th character of s[0..n) (n when there are fewer). */
static size_t char_at(const char *s, size_t n, size_t k)
{
	size_t i = 0;
	while (k-- && i < n) {
		long cp;
		i += vis_utf8(s + i, n - i, &cp);
	}
	return i;
}

/* An excerpt of a statement (two blanks, the source line) and the caret line under it,
   wider than width: a window of both around the caret, "..." where the line goes on, so
   the caret still points at its place. */
static void excerpt_window(FILE *out, const char *src, size_t sn, const char *car, size_t cn,
                           int width)
{
	size_t chars = 0;
	for (size_t i = 0; i < sn; chars++) {
		long cp;
		i += vis_utf8(src + i, sn - i, &cp);
	}
	size_t k = 0;
	while (k < cn && car[k] != '^')
		k++;
	size_t m = width > 16 ? (size_t)width - 8 : 8;   /* two blanks and "..." each side */
	size_t from = k > m / 2 ? k - m / 2 : 0;
	if (from + m > chars)
		from = chars > m ? chars - m : 0;
	size_t to = from + m < chars ? from + m : chars;
	size_t a = char_at(src, sn, from), b = char_at(src, sn, to);
	fprintf(out, "  %s%.*s%s\n", from ? "..." : "", (int)(b - a), src + a, to < chars ? "..." : "");
	size_t ce = cn < to ? cn : to;
	fprintf(out, "  %s%.*s\n", from ? "   " : "", (int)(ce > from ? ce - from : 0),
	        car + (from < cn ? from : cn));
}

void render_message(FILE *out, int at, const char *msg, int width)
{
	SBuf shown = SBUF_INIT;   /* messages quote the data and the model */
	vis_put(&shown, msg, strlen(msg), VIS_TEXT);
	const char *t = sb_str(&shown);
	int first = 1;
	while (*t || first) {
		size_t n = strcspn(t, "\n");
		const char *next = t + n + (t[n] == '\n');
		size_t n2 = strcspn(next, "\n");
		if (width <= 0) {
			fprintf(out, "%.*s\n", (int)n, t);
		} else if (!first && n >= 2 && t[0] == ' ' && t[1] == ' ') {
			/* an excerpt: lines kept as they are, cut around the caret when too wide */
			if (*next && n2 >= 2 && caret_line(next + 2, n2 - 2) &&
			    render_width(t, n) > (size_t)width) {
				excerpt_window(out, t + 2, n - 2, next + 2, n2 - 2, width);
				next += n2 + (next[n2] == '\n');
			} else {
				fprintf(out, "%.*s\n", (int)n, t);
			}
		} else {
			/* prose: "hint: ..." lines hang under their text, others under the message */
			int hang = first && at > 0 ? at : 2;
			size_t w = strspn(t, "abcdefghijklmnopqrstuvwxyz");
			if ((!first || at == 0) && w > 0 && w < n && t[w] == ':' && t[w + 1] == ' ')
				hang = (int)w + 2;
			char *line = xstrndup(t, n);
			wrap_text(out, line, first ? at : 0, hang, width, 0);
			free(line);
		}
		first = 0;
		t = next;
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
