/*
 * exec_pg_rows.c: the rows of a statement run in PostgreSQL, handed to the sink as Rows
 * (base/row.h) read straight from the server's result: no copy is made. The Row the sink
 * sees is a wrapper over the cursor's row that
 *  - shows a projected column (an answer() or summary() that is a whole result column:
 *    Postgres returned its argument's text under a hidden name) under the name SQLite
 *    would give it, with the value suql evaluated for that text (projection last: the
 *    distinct texts of the rows returned are evaluated in batches first);
 *  - gives a real the text SQLite gives a double (%!.15g), so that a number reads the
 *    same from either backend.
 * No SQLite is involved: the rows go from libpq's result to the sink.
 * The server's rows are held by the cursor, so they are read three times: the texts to
 * evaluate, the warnings of texts the model gave no value for, then the rows to show.
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct PgRows {
	Exec *ex;
	const PgProj *pj;
	int npj;
	int nc;
	int *proj;       /* per column: the index in pj of an evaluated projection, or -1 */
	const char **names;   /* per column: the name shown */
	char (*real)[80];   /* per column: a real's text, SQLite's way (made on demand) */
} PgRows;

static PgRows *rows_of(const Row *r)
{
	return r->ctx;
}

static void rows_clear_reals(PgRows *pr)
{
	for (int i = 0; i < pr->nc; i++)
		pr->real[i][0] = 0;
}

/* d as SQLite prints a double ("%!.15g"): 15 significant digits, always with a decimal
   point ("4.0", "1.0e+20"), infinities as "Inf" and "-Inf". */
static void real_text(double d, char out[80])
{
	if (isinf(d)) {
		snprintf(out, 80, "%sInf", d < 0 ? "-" : "");
		return;
	}
	char t[40];
	snprintf(t, sizeof t, "%.15g", d);
	const char *e = strchr(t, 'e');
	if (isnan(d) || strchr(t, '.'))
		snprintf(out, 80, "%s", t);
	else if (e)
		snprintf(out, 80, "%.*s.0%s", (int)(e - t), t, e);
	else
		snprintf(out, 80, "%s.0", t);
}

/* The value suql evaluated for column col's text, or NULL when it has none. */
static const char *projected(const Row *r, int col)
{
	const PgRows *pr = rows_of(r);
	size_t n;
	const char *v = row_text(r->under, col, &n);
	if (!v)
		return NULL;
	const MemoVal *mv = memo_get(pr->ex->memo, pr->ex->occ[pr->pj[pr->proj[col]].occ].sig, v, n);
	return mv ? mv->value : NULL;
}

static int w_count(const Row *r)
{
	return rows_of(r)->nc;
}

static const char *w_name(const Row *r, int col)
{
	return rows_of(r)->names[col];
}

static RowKind w_kind(const Row *r, int col)
{
	if (rows_of(r)->proj[col] >= 0)
		return projected(r, col) ? ROW_TEXT : ROW_NULL;
	RowKind k = row_kind(r->under, col);
	/* a NaN is NULL, as SQLite stores it */
	return k == ROW_REAL && isnan(row_real(r->under, col)) ? ROW_NULL : k;
}

static long long w_integer(const Row *r, int col)
{
	return rows_of(r)->proj[col] >= 0 ? 0 : row_integer(r->under, col);
}

static double w_real(const Row *r, int col)
{
	return rows_of(r)->proj[col] >= 0 ? 0 : row_real(r->under, col);
}

static const char *w_text(const Row *r, int col, size_t *n)
{
	PgRows *pr = rows_of(r);
	if (pr->proj[col] >= 0) {
		const char *v = projected(r, col);
		*n = v ? strlen(v) : 0;
		return v;
	}
	if (row_kind(r->under, col) == ROW_REAL) {
		if (!pr->real[col][0])
			real_text(row_real(r->under, col), pr->real[col]);
		*n = strlen(pr->real[col]);
		return pr->real[col];
	}
	return row_text(r->under, col, n);
}

static const RowOps pg_row = {w_count, w_name, w_kind, w_integer, w_real, w_text};

/* A set of texts (open addressing by their hash): which texts a column has had. */
typedef struct Seen {
	const char **slot;
	size_t cap, n;
} Seen;

/* Adds t (borrowed: it must outlive the set); 1 when it was not there yet. */
static int seen_add(Seen *st, const char *t, size_t n)
{
	if (2 * (st->n + 1) > st->cap) {
		Seen big = {xcalloc(st->cap ? st->cap * 2 : 64, sizeof *big.slot),
		            st->cap ? st->cap * 2 : 64, 0};
		for (size_t i = 0; i < st->cap; i++)
			if (st->slot[i])
				seen_add(&big, st->slot[i], strlen(st->slot[i]));
		free(st->slot);
		*st = big;
	}
	size_t i = (size_t)(str_hash64(t, n) % st->cap);
	for (; st->slot[i]; i = (i + 1) % st->cap)
		if (strlen(st->slot[i]) == n && memcmp(st->slot[i], t, n) == 0)
			return 0;
	st->slot[i] = t;
	st->n++;
	return 1;
}

/* The distinct texts of column col, in the order the rows first have them (NULL left
   out), evaluated as SQLite's projection last evaluates them. */
static SuqlStatus evaluate(PgRows *pr, StoreCursor *c, int col, SuqlErr *err)
{
	Exec *ex = pr->ex;
	char **v = NULL;
	size_t *len = NULL;
	long n = 0, cap = 0;
	Seen seen = {0};
	store_rewind(c);
	while (store_next(c) > 0) {
		const char *t = store_text(c, col);
		if (!t)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof *v);
			len = xrealloc(len, (size_t)cap * sizeof *len);
		}
		len[n] = strlen(t);
		v[n] = xstrdup(t);   /* the set borrows the copy: the cursor's text moves on */
		if (seen_add(&seen, v[n], len[n]))
			n++;
		else
			free(v[n]);
	}
	free(seen.slot);
	return exec_llm_run_values(ex, ex->occ[pr->pj[pr->proj[col]].occ].sig, v, len, n,
	                           &ex->cnt.project_values, err);
}

/* Stream the cursor's rows to the sink through the wrapper, projected columns evaluated
   first. */
static SuqlStatus pg_to_sink(Exec *ex, StoreCursor *c, const PgProj *pj, int npj,
                             SuqlErr *err)
{
	const EngineSink *sink = ex->sink;
	int nc = store_column_count(c);
	if (nc <= 0) {
		while (store_next(c) > 0)
			;
		return SUQL_OK;
	}
	PgRows pr = {ex, pj, npj, nc, NULL, NULL, NULL};
	pr.proj = xmalloc((size_t)nc * sizeof *pr.proj);
	pr.names = xmalloc((size_t)nc * sizeof *pr.names);
	pr.real = xcalloc((size_t)nc, sizeof *pr.real);
	int evaluated = 0;
	for (int i = 0; i < nc; i++) {
		pr.proj[i] = -1;
		pr.names[i] = store_column_name(c, i);
		for (int k = 0; k < npj; k++)
			if (strcmp(store_column_name(c, i), pj[k].hidden) == 0) {
				pr.names[i] = pj[k].shown;
				if (pj[k].occ >= 0) {   /* occ < 0: a column only renamed */
					pr.proj[i] = k;
					evaluated = 1;
				}
			}
	}
	SuqlStatus s = SUQL_OK;
	if (evaluated) {
		long long rows = 0;
		while (store_next(c) > 0)
			rows++;
		ex->cnt.project_rows = rows;
		for (int k = 0; k < npj && s == SUQL_OK; k++)
			for (int i = 0; i < nc && s == SUQL_OK; i++)
				if (pr.proj[i] == k)
					s = evaluate(&pr, c, i, err);
		/* a text the model gave no value for: its warning, row by row */
		store_rewind(c);
		while (s == SUQL_OK && store_next(c) > 0)
			for (int i = 0; i < nc; i++) {
				const char *t = pr.proj[i] >= 0 ? store_text(c, i) : NULL;
				const MemoVal *mv = t ? memo_get(ex->memo, ex->occ[pj[pr.proj[i]].occ].sig,
				                                 t, strlen(t)) : NULL;
				if (mv && !mv->value && mv->warning)
					exec_warn(ex, mv->warning);
			}
		store_rewind(c);
	}
	if (s == SUQL_OK) {
		Row under, row = {&pg_row, NULL, &under, &pr};
		store_row_cursor(&under, c);
		if (sink && sink->columns)
			sink->columns(sink->ctx, &row);
		while (store_next(c) > 0) {
			rows_clear_reals(&pr);
			ex->cnt.rows_out++;
			if (sink && sink->row && sink->row(sink->ctx, &row))
				break;
		}
	}
	rows_clear_reals(&pr);
	free(pr.proj);
	free(pr.names);
	free(pr.real);
	return s;
}

/* Run sql (parameters: text, $1...) in Postgres and show its rows. */
SuqlStatus exec_pg_rows_run(Exec *ex, const char *sql, const char *const *params,
                            int nparams, const PgProj *pj, int npj, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(ex->e->store, sql, params, nparams, &c, err);
	if (s != SUQL_OK)
		return s;
	s = pg_to_sink(ex, c, pj, npj, err);
	store_done(c);
	return s;
}
