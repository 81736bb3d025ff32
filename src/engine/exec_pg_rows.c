/*
 * exec_pg_rows.c: the rows of a statement run in PostgreSQL, handed to the sink as Rows
 * (base/row.h) read straight from the server's result: no copy is made. The Row the sink
 * sees is a wrapper over the cursor's row that
 *  - shows a column the final statement returned under a hidden name (PgName) under the
 *    name SQLite would give it;
 *  - gives a real the text SQLite gives a double (%!.15g), so that a number reads the
 *    same from either backend.
 * No SQLite is involved: the rows go from libpq's result to the sink.
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct PgRows {
	Exec *ex;
	int nc;
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
	RowKind k = row_kind(r->under, col);
	/* a NaN is NULL, as SQLite stores it */
	return k == ROW_REAL && isnan(row_real(r->under, col)) ? ROW_NULL : k;
}

static long long w_integer(const Row *r, int col)
{
	return row_integer(r->under, col);
}

static double w_real(const Row *r, int col)
{
	return row_real(r->under, col);
}

static const char *w_text(const Row *r, int col, size_t *n)
{
	PgRows *pr = rows_of(r);
	if (row_kind(r->under, col) == ROW_REAL) {
		if (!pr->real[col][0])
			real_text(row_real(r->under, col), pr->real[col]);
		*n = strlen(pr->real[col]);
		return pr->real[col];
	}
	return row_text(r->under, col, n);
}

static const RowOps pg_row = {w_count, w_name, w_kind, w_integer, w_real, w_text};

/* Stream the cursor's rows to the sink through the wrapper. */
static SuqlStatus pg_to_sink(Exec *ex, StoreCursor *c, const PgName *nm, int nnm)
{
	const EngineSink *sink = ex->sink;
	int nc = store_column_count(c);
	if (nc <= 0) {
		while (store_next(c) > 0)
			;
		return SUQL_OK;
	}
	PgRows pr = {ex, nc, NULL, NULL};
	pr.names = xmalloc((size_t)nc * sizeof *pr.names);
	pr.real = xcalloc((size_t)nc, sizeof *pr.real);
	for (int i = 0; i < nc; i++) {
		pr.names[i] = store_column_name(c, i);
		for (int k = 0; k < nnm; k++)
			if (strcmp(store_column_name(c, i), nm[k].hidden) == 0)
				pr.names[i] = nm[k].shown;
	}
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
	rows_clear_reals(&pr);
	free(pr.names);
	free(pr.real);
	return SUQL_OK;
}

/* Run sql (parameters: text, $1...) in Postgres and show its rows. */
SuqlStatus exec_pg_rows_run(Exec *ex, const char *sql, const char *const *params,
                            int nparams, const PgName *nm, int nnm, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(ex->e->store, sql, params, nparams, &c, err);
	if (s != SUQL_OK)
		return s;
	s = pg_to_sink(ex, c, nm, nnm);
	store_done(c);
	return s;
}
