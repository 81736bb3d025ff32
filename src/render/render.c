/*
 * render.c: the result renderer's front half: collecting columns and rows from SQLite,
 * the CSV, JSON and line modes, the labelled sections, and the character-level helpers
 * (UTF-8 decoding, display width, terminal-safe text) that render_table.c shares.
 * See render.h for what each mode writes.
 */
#define _XOPEN_SOURCE 700   /* wcwidth */
#include "base/vis.h"
#include "render/render_int.h"

#include <jansson.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

/* ---- characters ---- */

/* How a character is shown: its width, and whether it is replaced (by ^X or U+FFFD). */
static int char_width(long cp)
{
	if (cp >= 0x20 && cp < 0x7F)
		return 1;   /* printable ASCII, the common case */
	if (cp < 0 || (cp >= 0x80 && cp < 0xA0) || cp == '\t')
		return 1;    /* U+FFFD, or a tab shown as a space */
	if (cp < 0x20 || cp == 0x7F)
		return 2;    /* ^X */
	if (vis_invisible(cp))
		return VIS_INVISIBLE_WIDTH;   /* <U+202E> */
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;   /* unknown to the locale: assume one column */
}

size_t render_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		w += (size_t)char_width(cp);
		i += k;
	}
	return w;
}

size_t render_put_line(SBuf *b, const char *s, size_t n, size_t maxw, int unicode)
{
	size_t total = render_width(s, n);
	int cut = maxw > 0 && total > maxw;
	size_t limit = cut ? maxw - 1 : total, w = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		size_t cw = (size_t)char_width(cp);
		if (w + cw > limit)
			break;
		vis_put_char(b, s + i, k, cp, 0);
		w += cw;
		i += k;
	}
	if (cut) {
		sb_puts(b, unicode ? "\xE2\x80\xA6" : "~");
		w++;
	}
	return w;
}

static int locale_utf8 = 1;   /* until render_init_locale says otherwise */

int render_locale_utf8(void)
{
	return locale_utf8;
}

void render_init_locale(void)
{
	if (setlocale(LC_CTYPE, "")) {
		const char *cs = nl_langinfo(CODESET);
		if (cs && (str_ieq(cs, "UTF-8") || str_ieq(cs, "utf8")))
			return;
	}
	locale_utf8 = 0;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "C");
}

void render_roff(SBuf *b, const char *s)
{
	if (*s == '.' || *s == '\'')
		sb_puts(b, "\\&");   /* would read as a request at the start of a line */
	for (; *s; s++) {
		if (*s == '\\')
			sb_puts(b, "\\e");
		else if (*s == '-')
			sb_puts(b, "\\-");
		else if (*s == '"')
			sb_puts(b, "\\(dq");
		else if (*s == '\'')
			sb_puts(b, "\\(aq");
		else
			sb_putc(b, *s);
	}
}

void render_roff_text(SBuf *b, const char *s)
{
	SBuf t = SBUF_INIT;
	render_roff(&t, s);
	/* source lines of at most 79 bytes, broken at blanks (man page linters ask for it), and
	   each sentence on a line of its own, as roff wants */
	const char *p = t.s ? t.s : "";
	while (*p) {
		size_t n = strlen(p), cut = n;
		for (const char *q = p; (q = strstr(q, ". ")) != NULL; q++)
			if (q[2] >= 'A' && q[2] <= 'Z') {   /* a sentence ends ("e.g. x" does not) */
				cut = (size_t)(q - p) + 1;
				break;
			}
		if (cut > 79) {
			cut = 79;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(p, " ");
		}
		if (*p == '.')
			sb_puts(b, "\\&");
		sb_putn(b, p, cut);
		sb_putc(b, '\n');
		p += cut;
		while (*p == ' ')
			p++;
	}
	sb_free(&t);
}

void render_roff_sentence(SBuf *b, const char *s)
{
	char *t = xprintf("%c%s.", *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s, *s ? s + 1 : "");
	render_roff_text(b, t);
	free(t);
}

/* ---- values ---- */

static void put_blob_literal(SBuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	sb_puts(b, "X'");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		sb_putc(b, hex[c >> 4]);
		sb_putc(b, hex[c & 15]);
	}
	sb_putc(b, '\'');
}

void render_cell_text(const Render *r, const RCell *c, SBuf *tmp, const char **s, size_t *n)
{
	if (c->type == ROW_NULL) {
		*s = r->o.nullvalue ? r->o.nullvalue : "NULL";
		*n = strlen(*s);
	} else if (c->type == ROW_BLOB) {
		sb_truncate(tmp, 0);
		put_blob_literal(tmp, r->data.s + c->off, c->n);
		*s = sb_str(tmp);
		*n = tmp->len;
	} else {
		*s = c->n ? r->data.s + c->off : "";
		*n = c->n;
	}
}

void render_csv_field(SBuf *b, const char *s, size_t n)
{
	int quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= '"' || c == ',')   /* one test for most bytes */
			quote = c == ',' || c == '"' || c == '\r' || c == '\n';
	}
	if (!quote) {
		sb_putn(b, s, n);
		return;
	}
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			sb_putc(b, '"');
		sb_putc(b, s[i]);
	}
	sb_putc(b, '"');
}

/* Unlike sb_put_json (util.c), this checks the UTF-8 and replaces what is invalid, so the
   output is valid JSON whatever the bytes; the renderer cannot trust stored text. */
void render_json_string(SBuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n;) {
		/* printable ASCII but '"' and '\\' stands for itself: copied a run at a time */
		size_t j = i;
		while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x7F &&
		       s[j] != '"' && s[j] != '\\')
			j++;
		if (j > i) {
			sb_putn(b, s + i, j - i);
			if ((i = j) >= n)
				break;
		}
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		switch (cp) {
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\r': sb_puts(b, "\\r"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\b': sb_puts(b, "\\b"); break;
		case '\f': sb_puts(b, "\\f"); break;
		case -1: sb_puts(b, "\\ufffd"); break;
		default:
			/* controls must be escaped (C1 and DEL too, which a terminal may obey);
			   U+2028/9 are escaped so the text is also valid JavaScript */
			if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x2028 || cp == 0x2029 ||
			    vis_invisible(cp))
				sb_printf(b, "\\u%04lx", cp);
			else
				sb_putn(b, s + i, k);
		}
		i += k;
	}
	sb_putc(b, '"');
}

/* SQLite prints reals like 1.5, 100.0 and 1.0e+20; check the text is a JSON number. */
static int json_number_ok(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return 0;
	if (s[i] == '0')
		i++;
	else
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	if (i < n && s[i] == '.') {
		size_t d = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* A list column's text as the JSON array it holds; 0 (nothing written) when it is not one. */
static int json_array_text(SBuf *b, const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, JSON_DECODE_ANY, NULL);
	char *t = json_is_array(j) ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	if (!t)
		return 0;
	sb_puts(b, t);
	free(t);
	return 1;
}

/* One value as JSON, from its kind and bytes; a real's value (for one whose text is not a
   JSON number: not finite, or printed otherwise) from the cell, or read from the row. The
   text of a finite real is all SQLite prints for one, so a text that is a JSON number is
   written as it is. */
static void json_put(SBuf *b, const Render *r, int col, int type, const char *s, size_t n,
                     const RCell *c, const Row *st)
{
	if (type == ROW_TEXT && r->jsoncol && r->jsoncol[col] && json_array_text(b, s, n))
		return;
	switch (type) {
	case ROW_NULL:
		sb_puts(b, "null");
		break;
	case ROW_INTEGER:
		sb_putn(b, s, n);
		break;
	case ROW_REAL: {
		if (json_number_ok(s, n)) {
			sb_putn(b, s, n);
			break;
		}
		double d = c ? c->d : row_real(st, col);
		if (!isfinite(d))
			sb_puts(b, "null");
		else
			sb_printf(b, "%.17g", d);
		break;
	}
	case ROW_BLOB: {
		SBuf lit = SBUF_INIT;
		put_blob_literal(&lit, s, n);
		render_json_string(b, lit.s, lit.len);
		sb_free(&lit);
		break;
	}
	default:
		render_json_string(b, s, n);
	}
}

/* ---- the streaming modes ---- */

/* A CSV field; on a terminal (RenderOpts.visible) with its control characters shown. */
static void csv_field(const Render *r, SBuf *b, const char *s, size_t n)
{
	if (!r->o.visible) {
		render_csv_field(b, s, n);
		return;
	}
	SBuf v = SBUF_INIT;
	vis_put(&v, s, n, VIS_TEXT);
	render_csv_field(b, sb_str(&v), v.len);
	sb_free(&v);
}

static void csv_header(Render *r)
{
	if (!r->o.headers || r->header_done)
		return;
	r->header_done = 1;
	SBuf *b = &r->line;   /* no row is being written */
	sb_truncate(b, 0);
	for (int i = 0; i < r->ncols; i++) {
		if (i)
			sb_putc(b, ',');
		csv_field(r, b, r->names[i], strlen(r->names[i]));
	}
	sb_putc(b, '\n');
	fwrite(b->s, 1, b->len, r->out);
}

static void csv_row(Render *r, const RCell *row, SBuf *b)
{
	for (int i = 0; i < r->ncols; i++) {
		const RCell *c = &row[i];
		if (i)
			sb_putc(b, ',');
		if (c->type == ROW_NULL)
			continue;
		if (c->type == ROW_BLOB)
			put_blob_literal(b, r->data.s + c->off, c->n);
		else
			csv_field(r, b, c->n ? r->data.s + c->off : "", c->n);
	}
	sb_putc(b, '\n');
}

/* Each column's name as a JSON key with its ':' (and the ',' before all but the first),
   escaped once per statement rather than once per row. */
static void json_keys(Render *r)
{
	if (r->keyed)
		return;
	r->keyed = 1;
	for (int i = 0; i < r->ncols; i++) {
		r->keyoff[i] = r->keys.len;
		if (i)
			sb_putc(&r->keys, ',');
		render_json_string(&r->keys, r->names[i], strlen(r->names[i]));
		sb_putc(&r->keys, ':');
	}
	r->keyoff[r->ncols] = r->keys.len;
}

static void json_key(const Render *r, SBuf *b, int i)
{
	sb_putn(b, r->keys.s + r->keyoff[i], r->keyoff[i + 1] - r->keyoff[i]);
}

static void json_row(Render *r, const RCell *row, SBuf *b)
{
	json_keys(r);
	sb_puts(b, r->nemitted ? ",\n{" : "[\n{");
	for (int i = 0; i < r->ncols; i++) {
		json_key(r, b, i);
		json_put(b, r, i, row[i].type, row[i].n ? r->data.s + row[i].off : "", row[i].n,
		         &row[i], NULL);
	}
	sb_putc(b, '}');
}

/* "name = value", names right-aligned; the lines of a multi-line value line up under the
   first. */
static void line_row(Render *r, const RCell *row, SBuf *b)
{
	size_t w = r->namew;
	if (r->nemitted)
		sb_putc(b, '\n');
	SBuf tmp = SBUF_INIT;
	for (int i = 0; i < r->ncols; i++) {
		size_t nl = strlen(r->names[i]);
		for (size_t p = render_width(r->names[i], nl); p < w; p++)
			sb_putc(b, ' ');
		render_put_line(b, r->names[i], nl, 0, 0);
		sb_puts(b, " = ");
		const char *s;
		size_t n;
		render_cell_text(r, &row[i], &tmp, &s, &n);
		int dim = r->o.color && row[i].type == ROW_NULL;
		if (dim)
			sb_puts(b, RENDER_DIM);
		for (size_t a = 0;;) {
			size_t e = a;
			while (e < n && s[e] != '\n')
				e++;
			size_t le = e > a && s[e - 1] == '\r' && e < n ? e - 1 : e;
			render_put_line(b, s + a, le - a, 0, 0);
			if (e >= n)
				break;
			sb_putc(b, '\n');
			for (size_t p = 0; p < w + 3; p++)
				sb_putc(b, ' ');
			a = e + 1;
		}
		if (dim)
			sb_puts(b, RENDER_RESET);
		sb_putc(b, '\n');
	}
	sb_free(&tmp);
}

static void emit_row(Render *r, const RCell *row)
{
	SBuf *b = &r->line;
	sb_truncate(b, 0);
	switch (r->o.mode) {
	case RENDER_CSV: csv_row(r, row, b); break;
	case RENDER_JSON: json_row(r, row, b); break;
	case RENDER_HTML: render_markup_row(r, row, b); break;
	case RENDER_LIST: case RENDER_TABS: case RENDER_QUOTE: case RENDER_INSERT:
		render_shell_row(r, row, b);
		break;
	default: line_row(r, row, b);   /* line, and expanded display */
	}
	fwrite(b->s, 1, b->len, r->out);
	r->nemitted++;
}

/* Whether m is aligned (table, box, column), the modes that expanded display changes. */
static int render_mode_aligned(RenderMode m);

/* The modes that align their columns hold their rows; the others write each as it comes. */
static int holds(RenderMode m)
{
	return render_mode_aligned(m) || m == RENDER_MARKDOWN;
}

static int streaming(const Render *r)
{
	return r->o.stream && !holds(r->o.mode);
}

/* ---- the API ---- */

/* The options of the next result, for render_new and render_reset alike. */
static void set_opts(Render *r, const RenderOpts *opts, FILE *out)
{
	r->o = *opts;
	if (r->o.expanded == RENDER_EXPANDED_ON && render_mode_aligned(r->o.mode))
		r->o.mode = RENDER_LINE;   /* psql's \x: a value a line */
	r->out = out;
}

Render *render_new(const RenderOpts *opts, FILE *out)
{
	Render *r = xcalloc(1, sizeof *r);
	set_opts(r, opts, out);
	return r;
}

void render_free(Render *r)
{
	if (!r)
		return;
	free(r->names);
	sb_free(&r->namebuf);
	free(r->jsoncol);
	free(r->keyoff);
	sb_free(&r->keys);
	free(r->cells);
	sb_free(&r->data);
	sb_free(&r->line);
	free(r);
}

void render_reset(Render *r, const RenderOpts *opts, FILE *out)
{
	/* what render_new leaves zero, but the memory grown: names, keys, cells, buffers */
	free(r->jsoncol);
	r->jsoncol = NULL;
	set_opts(r, opts, out);
	r->ncols = 0;
	r->namew = 0;
	r->has_columns = 0;
	r->nrows = r->nemitted = r->ntables = 0;
	r->header_done = 0;
	r->ncells = 0;
	r->finished = 0;
	r->keyed = 0;
	sb_truncate(&r->namebuf, 0);
	sb_truncate(&r->keys, 0);
	sb_truncate(&r->data, 0);
	sb_truncate(&r->line, 0);
}

void render_columns(Render *r, const Row *st)
{
	if (r->has_columns)
		return;
	r->has_columns = 1;
	r->ncols = row_count(st);
	if (r->ncols > r->capnames || !r->keyoff) {
		r->capnames = r->ncols;
		r->names = xrealloc(r->names, (size_t)r->ncols * sizeof *r->names);
		r->keyoff = xrealloc(r->keyoff, ((size_t)r->ncols + 1) * sizeof *r->keyoff);
	}
	/* the names one after the other in namebuf, each ended by its NUL, pointed at once
	   namebuf has stopped growing (keyoff, not made yet, holds their offsets meanwhile) */
	for (int i = 0; i < r->ncols; i++) {
		const char *nm = row_name(st, i);
		r->keyoff[i] = r->namebuf.len;
		sb_puts(&r->namebuf, nm ? nm : "");
		sb_putc(&r->namebuf, '\0');
	}
	for (int i = 0; i < r->ncols; i++) {
		r->names[i] = r->namebuf.s + r->keyoff[i];
		if (r->o.mode != RENDER_LINE && r->o.expanded != RENDER_EXPANDED_AUTO)
			continue;   /* only line mode aligns on the names (expanded auto may turn to it) */
		size_t nw = render_width(r->names[i], strlen(r->names[i]));
		if (nw > r->namew)
			r->namew = nw;
	}
	if (streaming(r) && r->o.mode == RENDER_CSV)
		csv_header(r);
	else if (streaming(r) && r->o.mode == RENDER_HTML)
		render_markup_header(r);
}

void render_json_column(Render *r, int col)
{
	if (col < 0 || col >= r->ncols)
		return;
	if (!r->jsoncol)
		r->jsoncol = xcalloc((size_t)r->ncols, 1);
	r->jsoncol[col] = 1;
}

/* A row of a streaming CSV or JSON result, written from the Row itself: its values are
   not copied into the held cells first (render_row). */
static void emit_direct(Render *r, const Row *st)
{
	SBuf *b = &r->line;
	sb_truncate(b, 0);
	int json = r->o.mode == RENDER_JSON;
	if (json) {
		json_keys(r);
		sb_puts(b, r->nemitted ? ",\n{" : "[\n{");
	}
	for (int i = 0; i < r->ncols; i++) {
		int type = (int)row_kind(st, i);
		size_t n = 0;
		const char *p = type == ROW_NULL ? NULL : row_text(st, i, &n);
		if (!p)
			n = 0;
		const char *s = n ? p : "";
		if (json) {
			json_key(r, b, i);
			json_put(b, r, i, type, s, n, NULL, st);
			continue;
		}
		if (i)
			sb_putc(b, ',');
		if (type == ROW_BLOB)
			put_blob_literal(b, s, n);
		else if (type != ROW_NULL)
			csv_field(r, b, s, n);
	}
	sb_puts(b, json ? "}" : "\n");
	fwrite(b->s, 1, b->len, r->out);
	r->nemitted++;
}

void render_row(Render *r, const Row *st)
{
	if (!r->has_columns)
		render_columns(r, st);
	if (streaming(r) && (r->o.mode == RENDER_CSV || r->o.mode == RENDER_JSON)) {
		r->nrows++;
		emit_direct(r, st);
		return;
	}
	if (r->ncells + (size_t)r->ncols > r->capcells) {
		r->capcells = r->capcells ? r->capcells * 2 : 64;
		while (r->capcells < r->ncells + (size_t)r->ncols)
			r->capcells *= 2;
		r->cells = xrealloc(r->cells, r->capcells * sizeof *r->cells);
	}
	RCell *row = &r->cells[r->ncells];
	for (int i = 0; i < r->ncols; i++) {
		RCell *c = &row[i];
		c->type = (int)row_kind(st, i);
		c->d = c->type == ROW_REAL ? row_real(st, i) : 0;
		size_t n = 0;
		const char *p = c->type == ROW_NULL ? NULL : row_text(st, i, &n);
		c->n = p ? n : 0;
		c->off = r->data.len;
		if (c->n)
			sb_putn(&r->data, p, c->n);
	}
	r->ncells += (size_t)r->ncols;
	r->nrows++;
	if (streaming(r)) {
		emit_row(r, row);
		r->ncells = 0;
		sb_truncate(&r->data, 0);
	}
}

/* Write the buffered rows and empty the buffer. */
/* Expanded display auto: the held rows are wider as a table than the terminal. */
static int too_wide(Render *r)
{
	if (r->o.expanded != RENDER_EXPANDED_AUTO || r->o.width <= 0 || r->ncells == 0 ||
	    !render_mode_aligned(r->o.mode))
		return 0;
	size_t w = r->o.mode == RENDER_COLUMN ? render_column_width(r) : render_table_width(r);
	return w > (size_t)r->o.width;
}

static void write_held(Render *r, int last)
{
	long n = r->ncols ? (long)(r->ncells / (size_t)r->ncols) : 0;
	if (too_wide(r)) {
		SBuf *b = &r->line;
		for (long i = 0; i < n; i++) {   /* as line mode writes them */
			sb_truncate(b, 0);
			line_row(r, RENDER_ROW(r, i), b);
			fwrite(b->s, 1, b->len, r->out);
			r->nemitted++;
		}
	} else if (r->o.mode == RENDER_TABLE || r->o.mode == RENDER_BOX) {
		render_table(r, last);
	} else if (r->o.mode == RENDER_COLUMN) {
		render_column(r);
	} else if (r->o.mode == RENDER_MARKDOWN) {
		render_markdown(r);
	} else {
		if (r->o.mode == RENDER_CSV)
			csv_header(r);
		else if (r->o.mode == RENDER_HTML)
			render_markup_header(r);
		for (long i = 0; i < n; i++)
			emit_row(r, RENDER_ROW(r, i));
	}
	r->ncells = 0;
	sb_truncate(&r->data, 0);
}

int render_full(const Render *r)
{
	if (r->finished || !r->has_columns || streaming(r) || !r->ncols)
		return 0;
	long held = (long)(r->ncells / (size_t)r->ncols);
	return (r->o.fetch > 0 && held >= r->o.fetch) || r->data.len >= (size_t)RENDER_FETCH_BYTES;
}

void render_flush(Render *r)
{
	if (!r->finished && r->has_columns && !streaming(r) && r->ncells > 0)
		write_held(r, 0);
}

void render_finish(Render *r)
{
	if (r->finished || !r->has_columns)
		return;
	r->finished = 1;
	write_held(r, 1);
	if (r->o.mode == RENDER_JSON)
		fputs(r->nemitted ? "\n]\n" : "[]\n", r->out);
	else if (r->o.mode == RENDER_MARKDOWN || r->o.mode == RENDER_HTML)
		render_markup_end(r);
}

int render_has_columns(const Render *r)
{
	return r->has_columns;
}

long render_rows(const Render *r)
{
	return r->nrows;
}

static const char *const mode_names[] = {"table", "box", "csv", "json", "line", "markdown",
                                         "html", "column", "list", "tabs", "insert", "quote"};

static int render_mode_aligned(RenderMode m)
{
	return m == RENDER_TABLE || m == RENDER_BOX || m == RENDER_COLUMN;
}

const char *render_mode_name(RenderMode m)
{
	return (unsigned)m < sizeof mode_names / sizeof *mode_names ? mode_names[m] : "?";
}

int render_mode_parse(const char *name, RenderMode *m)
{
	for (unsigned i = 0; i < sizeof mode_names / sizeof *mode_names; i++)
		if (str_ieq(name, mode_names[i])) {
			*m = (RenderMode)i;
			return 1;
		}
	return 0;
}

int render_term_width(FILE *f)
{
	if (!util_isatty(f))
		return 0;
	struct winsize ws;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	return c && atoi(c) > 0 ? atoi(c) : 80;
}


