/*
 * session_result.c: the last result, kept for :chart, and :chart itself. As a statement's
 * rows are shown, the session keeps a bounded copy of them: the first SESSION_KEEP_ROWS
 * rows, each value cut to SESSION_KEEP_BYTES (a label is cut to the chart's width anyway),
 * so a statement of millions of rows costs a few megabytes at most; the count of all rows
 * is kept too, and :chart says when it draws fewer. The copy is replaced when the next
 * statement's columns come (a statement with no result, an INSERT, leaves it).
 *
 * :chart chooses the columns (by name, or by number from 1): a label column, the first
 * that is not numeric unless named, and the value columns, the first numeric one unless
 * named (several named: a group of bars a row). A column is numeric when every value it
 * holds is an integer or a real; a column named as a value may also hold text that reads
 * wholly as a number. NULL values are left out with a note. The chart is drawn by
 * render_chart (render_chart_svg in the html mode) on the results' stream.
 */
#include "session/session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- keeping the last result ---- */

void session_result_free(SessionResult *res)
{
	for (int i = 0; i < res->ncols; i++)
		free(res->names[i]);
	free(res->names);
	for (long i = 0; i < res->nrows * res->ncols; i++)
		free(res->cells[i].text);
	free(res->cells);
	memset(res, 0, sizeof *res);
}

void session_result_begin(Session *s, const Row *r)
{
	SessionResult *res = &s->last;
	session_result_free(res);
	int n = row_count(r);
	if (n <= 0)
		return;
	res->ncols = n;
	res->names = xcalloc((size_t)n, sizeof *res->names);
	for (int i = 0; i < n; i++) {
		const char *name = row_name(r, i);
		res->names[i] = xstrdup(name ? name : "");
	}
}

/* s[0..n) cut to at most max bytes, at a character's start. */
static char *cut_copy(const char *s, size_t n, size_t max)
{
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return xstrndup(s, n);
}

void session_result_row(Session *s, const Row *r)
{
	SessionResult *res = &s->last;
	if (!res->ncols)
		return;
	res->total++;
	if (res->nrows >= SESSION_KEEP_ROWS)
		return;
	if (res->nrows == res->cap) {
		res->cap = res->cap ? res->cap * 2 : 64;
		res->cells = xrealloc(res->cells, (size_t)res->cap * (size_t)res->ncols *
		                                  sizeof *res->cells);
	}
	SessionCell *row = &res->cells[res->nrows * res->ncols];
	int n = row_count(r);
	for (int i = 0; i < res->ncols; i++) {
		SessionCell *c = &row[i];
		memset(c, 0, sizeof *c);
		c->kind = i < n ? (int)row_kind(r, i) : ROW_NULL;
		if (c->kind == ROW_NULL)
			continue;
		if (c->kind == ROW_INTEGER)
			c->num = (double)row_integer(r, i);
		else if (c->kind == ROW_REAL)
			c->num = row_real(r, i);
		size_t len = 0;
		const char *t = row_text(r, i, &len);
		c->text = cut_copy(t ? t : "", t ? len : 0, SESSION_KEEP_BYTES);
	}
	res->nrows++;
}

/* ---- choosing the columns ---- */

/* Text that reads wholly as a finite number (blanks around it allowed). */
static int text_number(const char *t, double *v)
{
	if (!t)
		return 0;
	char *end;
	double d = strtod(t, &end);
	if (end == t)
		return 0;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end || !isfinite(d))
		return 0;
	*v = d;
	return 1;
}

/* The number of a cell: 1 with *v set, 0 for NULL or a non-finite real (no bar), -1 for a
   value that is no number (text unless loose, a blob). */
static int cell_number(const SessionCell *c, int loose, double *v)
{
	if (c->kind == ROW_NULL)
		return 0;
	if (c->kind == ROW_INTEGER || c->kind == ROW_REAL) {
		if (!isfinite(c->num))
			return 0;
		*v = c->num;
		return 1;
	}
	if (loose && c->kind == ROW_TEXT && text_number(c->text, v))
		return 1;
	return -1;
}

/* Whether column col holds numbers alone (and at least one). */
static int numeric(const SessionResult *res, int col)
{
	int any = 0;
	for (long i = 0; i < res->nrows; i++) {
		const SessionCell *c = &res->cells[i * res->ncols + col];
		if (c->kind == ROW_NULL)
			continue;
		if (c->kind != ROW_INTEGER && c->kind != ROW_REAL)
			return 0;
		any = 1;
	}
	return any;
}

/* The column named name (any case) or numbered by it (from 1); -1 with err set. */
static int find_column(const SessionResult *res, const char *name, SuqlErr *err)
{
	for (int i = 0; i < res->ncols; i++)
		if (str_ieq(res->names[i], name))
			return i;
	char *end;
	long k = strtol(name, &end, 10);
	if (*name && !*end && k >= 1 && k <= res->ncols)
		return (int)k - 1;
	SBuf b = SBUF_INIT;
	for (int i = 0; i < res->ncols; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", res->names[i]);
	err_set(err, SUQL_USAGE, "the last result has no column '%s' (its columns: %s; a number "
	        "from 1 names one too)", name, sb_str(&b));
	sb_free(&b);
	return -1;
}

/* ---- drawing ---- */

static void note(FILE *notes, const char *fmt, long n, const char *what)
{
	fputs("note: ", notes);
	fprintf(notes, fmt, n, n == 1 ? "" : "s", what);
	fputc('\n', notes);
}

/* The chart on out: text at the width of the terminal (of $COLUMNS, else 80, off one),
   coloured at a terminal where colour is allowed; an SVG image in the html mode. */
static void draw(Session *s, const RenderChart *c, FILE *out)
{
	SBuf b = SBUF_INIT;
	RenderMode mode = s->once && s->once_mode ? (RenderMode)(s->once_mode - 1) : s->mode;
	if (mode == RENDER_HTML) {
		render_chart_svg(&b, c);
	} else {
		int tty = util_isatty(out);
		int width = render_term_width(out);
		if (width <= 0) {
			const char *cols = getenv("COLUMNS");
			width = cols && atoi(cols) > 0 ? atoi(cols) : 80;
		}
		RenderChartOpts o = {width, !s->ascii && render_locale_utf8(),
		                     tty && s->color_ok && s->interactive};
		render_chart(&b, c, &o);
	}
	fwrite(b.s ? b.s : "", 1, b.len, out);
	fflush(out);
	sb_free(&b);
}

static SuqlStatus chart_hist(Session *s, int argc, char **argv, FILE *out, FILE *notes,
                             SuqlErr *err)
{
	const SessionResult *res = &s->last;
	if (argc < 2 || argc > 3)
		return err_set(err, SUQL_USAGE, "usage: :chart hist COLUMN [BINS]");
	int col = find_column(res, argv[1], err);
	if (col < 0)
		return SUQL_USAGE;
	long bins = 0;
	if (argc == 3) {
		char *end;
		bins = strtol(argv[2], &end, 10);
		if (*end || bins < 1 || bins > 100)
			return err_set(err, SUQL_USAGE, ":chart hist takes BINS from 1 to 100, not '%s'",
			               argv[2]);
	}
	double *v = xcalloc((size_t)(res->nrows ? res->nrows : 1), sizeof *v);
	long n = 0, nulls = 0;
	int integers = 1;
	for (long i = 0; i < res->nrows; i++) {
		const SessionCell *c = &res->cells[i * res->ncols + col];
		int k = cell_number(c, 1, &v[n]);
		if (k < 0) {
			free(v);
			return err_set(err, SUQL_USAGE, "column %s is not numeric: row %ld holds '%s'",
			               res->names[col], i + 1, c->text ? c->text : "");
		}
		if (k == 0) {
			nulls++;
			continue;
		}
		integers &= v[n] == floor(v[n]);
		n++;
	}
	if (n == 0) {
		free(v);
		return err_set(err, SUQL_USAGE, "column %s holds no number to count (%ld NULL%s)",
		               res->names[col], nulls, nulls == 1 ? "" : "s");
	}
	if (!bins)   /* Sturges' rule */
		bins = (long)ceil(log2((double)n)) + 1;
	int unicode = !s->ascii && render_locale_utf8();
	RenderHist h;
	render_hist(&h, v, n, (int)bins, integers, unicode);
	free(v);
	unsigned char *has = xcalloc((size_t)h.nbins, 1);
	memset(has, 1, (size_t)h.nbins);
	const char *series[] = {"count"};
	RenderChart c = {res->names[col], 1, series, h.nbins, (const char *const *)h.labels,
	                 h.counts, has};
	draw(s, &c, out);
	free(has);
	render_hist_free(&h);
	if (nulls)
		note(notes, "%ld NULL%s of %s left out", nulls, res->names[col]);
	return SUQL_OK;
}

SuqlStatus session_chart(Session *s, int argc, char **argv, FILE *out, FILE *notes,
                         SuqlErr *err)
{
	const SessionResult *res = &s->last;
	if (!res->ncols)
		return err_set(err, SUQL_USAGE, "no result to chart yet: run a query first (:chart "
		               "draws the last result that had columns)");
	if (argc >= 1 && strcmp(argv[0], "hist") == 0) {
		SuqlStatus st = chart_hist(s, argc, argv, out, notes, err);
		if (st == SUQL_OK && res->total > res->nrows) {
			char *all = xprintf("%ld", res->total);
			note(notes, "%ld row%s kept of %s: the chart counts those", res->nrows, all);
			free(all);
		}
		return st;
	}
	if (res->nrows == 0)
		return err_set(err, SUQL_USAGE, "the last result has no rows to chart");
	int label = -1, nval = 0;
	int *vals = xcalloc((size_t)res->ncols + (size_t)argc + 1, sizeof *vals);
	SuqlStatus st = SUQL_OK;
	if (argc >= 1) {
		label = find_column(res, argv[0], err);
		for (int i = 1; label >= 0 && i < argc; i++) {
			int k = find_column(res, argv[i], err);
			if (k < 0) {
				label = -1;
				break;
			}
			vals[nval++] = k;
		}
		if (label < 0) {
			free(vals);
			return SUQL_USAGE;
		}
	} else {   /* the first column that is not numeric labels the first that is */
		for (int i = 0; i < res->ncols && label < 0; i++)
			if (!numeric(res, i))
				label = i;
		if (label < 0 && res->ncols >= 2)
			label = 0;   /* numbers alone: the first column labels the next */
	}
	if (nval == 0) {
		for (int i = 0; i < res->ncols && !nval; i++)
			if (i != label && numeric(res, i))
				vals[nval++] = i;
		if (!nval) {
			free(vals);
			return err_set(err, SUQL_USAGE, "the last result has no numeric column to chart "
			               "(a column of integers or reals; :chart LABEL VALUE names one "
			               "that holds numbers as text)");
		}
	}
	long nrows = res->nrows;
	double *values = xcalloc((size_t)nrows * (size_t)nval, sizeof *values);
	unsigned char *has = xcalloc((size_t)nrows * (size_t)nval, 1);
	const char **labels = xcalloc((size_t)nrows, sizeof *labels);
	char **numbers = xcalloc((size_t)nrows, sizeof *numbers);   /* labels by row number */
	const char **series = xcalloc((size_t)nval, sizeof *series);
	long nulls = 0, left = 0;
	for (int j = 0; j < nval; j++)
		series[j] = res->names[vals[j]];
	for (long i = 0; i < nrows && st == SUQL_OK; i++) {
		const SessionCell *row = &res->cells[i * res->ncols];
		if (label >= 0) {
			labels[i] = row[label].text;
		} else {
			numbers[i] = xprintf("%ld", i + 1);
			labels[i] = numbers[i];
		}
		int any = 0;
		for (int j = 0; j < nval; j++) {
			size_t k = (size_t)i * (size_t)nval + (size_t)j;
			int got = cell_number(&row[vals[j]], 1, &values[k]);
			if (got < 0)
				st = err_set(err, SUQL_USAGE, "column %s is not numeric: row %ld holds '%s' "
				             "(:chart LABEL VALUE names the columns)", res->names[vals[j]],
				             i + 1, row[vals[j]].text ? row[vals[j]].text : "");
			has[k] = got > 0;
			any |= got > 0;
			nulls += got == 0;
		}
		left += !any;
	}
	if (st == SUQL_OK) {
		RenderChart c = {label >= 0 ? res->names[label] : "row", nval, series, nrows, labels,
		                 values, has};
		draw(s, &c, out);
		if (nulls && nval == 1)
			note(notes, "%ld row%s left out: %s is NULL", nulls, series[0]);
		else if (nulls)
			fprintf(notes, "note: %ld NULL value%s left out (%ld row%s with none)\n", nulls,
			        nulls == 1 ? "" : "s", left, left == 1 ? "" : "s");
		if (res->total > res->nrows) {
			char *all = xprintf("%ld", res->total);
			note(notes, "%ld row%s kept of %s: the chart shows those", res->nrows, all);
			free(all);
		}
	}
	for (long i = 0; i < nrows; i++)
		free(numbers[i]);
	free(numbers);
	free(labels);
	free(values);
	free(has);
	free(series);
	free(vals);
	return st;
}
