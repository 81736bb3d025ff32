/*
 * exec_pg_rows.c: the rows of a statement run in PostgreSQL, handed to the sink the way
 * the renderer reads them today, as an sqlite3_stmt: they are copied into a table of the
 * engine's in-memory SQLite database (e->db), each value with its kind (integer, real,
 * text, NULL), and read back in order. Projection last happens there: the texts Postgres
 * returned for answer() and summary() result columns are evaluated in batches and written
 * over. doc/architecture.md names the backend-neutral row that would replace the copy.
 */
#include "engine/exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The projected columns' texts, evaluated in batches (as SQLite's projection last: the
   distinct values of the rows kept), then written over them in the scratch table. */
static SuqlStatus pg_project(Exec *ex, const PgProj *pj, int npj, const int *pcol,
                             SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int k = 0; k < npj && s == SUQL_OK; k++) {
		if (pcol[k] < 0 || pj[k].occ < 0)   /* occ < 0: a column only renamed */
			continue;
		const Occ *o = &ex->occ[pj[k].occ];
		char q[160];
		snprintf(q, sizeof q, "SELECT DISTINCT c%d FROM temp.suql_pg_rows", pcol[k]);
		sqlite3_stmt *vs, *rd = NULL, *up = NULL;
		s = exec_prepare(ex, q, &vs, err);
		if (s == SUQL_OK)
			s = exec_llm_run_column(ex, o->sig, vs, "reading the rows kept",
			                        &ex->cnt.project_values, err);
		snprintf(q, sizeof q, "SELECT rowid, c%d FROM temp.suql_pg_rows", pcol[k]);
		if (s == SUQL_OK)
			s = exec_prepare(ex, q, &rd, err);
		snprintf(q, sizeof q, "UPDATE temp.suql_pg_rows SET c%d = ?1 WHERE rowid = ?2", pcol[k]);
		if (s == SUQL_OK)
			s = exec_prepare(ex, q, &up, err);
		while (s == SUQL_OK && sqlite3_step(rd) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(rd, 1);
			MemoVal *mv = v ? memo_get(ex->memo, o->sig, v, strlen(v)) : NULL;
			if (mv && !mv->value && mv->warning)
				exec_warn(ex, mv->warning);
			if (mv && mv->value)
				sqlite3_bind_text(up, 1, mv->value, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(up, 1);
			sqlite3_bind_int64(up, 2, sqlite3_column_int64(rd, 0));
			if (sqlite3_step(up) != SQLITE_DONE)
				s = exec_sqlerr(ex, err, NULL);
			sqlite3_reset(up);
		}
		sqlite3_finalize(rd);
		sqlite3_finalize(up);
	}
	return s;
}

/* Copy the cursor's rows into the engine's scratch table (projected columns computed
   there), then stream them to the sink. */
static SuqlStatus pg_to_sink(Exec *ex, StoreCursor *c, const PgProj *pj, int npj,
                             SuqlErr *err)
{
	Engine *e = ex->e;
	const EngineSink *sink = ex->sink;
	int nc = store_column_count(c);
	if (nc <= 0) {
		while (store_next(c) > 0)
			;
		return SUQL_OK;
	}
	SBuf ddl = SBUF_INIT, ins = SBUF_INIT, sel = SBUF_INIT;
	sb_puts(&ddl, "DROP TABLE IF EXISTS temp.suql_pg_rows; CREATE TEMP TABLE suql_pg_rows(");
	sb_puts(&ins, "INSERT INTO temp.suql_pg_rows VALUES (");
	sb_puts(&sel, "SELECT ");
	int *pcol = xmalloc(((size_t)npj + 1) * sizeof *pcol);
	for (int k = 0; k < npj; k++)
		pcol[k] = -1;
	for (int i = 0; i < nc; i++) {
		sb_printf(&ddl, "%sc%d", i ? ", " : "", i);
		sb_printf(&ins, "%s?", i ? ", " : "");
		const char *name = store_column_name(c, i);
		for (int k = 0; k < npj; k++)
			if (strcmp(name, pj[k].hidden) == 0) {
				pcol[k] = i;
				name = pj[k].shown;
			}
		char *q = sqlite3_mprintf("%sc%d AS \"%w\"", i ? ", " : "", i, name);
		sb_puts(&sel, q);
		sqlite3_free(q);
	}
	sb_puts(&ddl, ")");
	sb_puts(&ins, ")");
	sb_puts(&sel, " FROM temp.suql_pg_rows ORDER BY rowid");
	SuqlStatus s = exec_run_sql(e->db, sb_str(&ddl), err);
	sqlite3_stmt *st = NULL;
	if (s == SUQL_OK)
		s = exec_prepare(ex, sb_str(&ins), &st, err);
	int rc;
	while (s == SUQL_OK && (rc = store_next(c)) > 0) {
		for (int i = 0; i < nc; i++) {
			const char *v = store_text(c, i);
			switch (store_column_kind(c, i)) {
			case STORE_NULL:
				sqlite3_bind_null(st, i + 1);
				break;
			case STORE_INTEGER:
				sqlite3_bind_int64(st, i + 1, strtoll(v, NULL, 10));
				break;
			case STORE_REAL:
				sqlite3_bind_double(st, i + 1, strtod(v, NULL));
				break;
			default:
				sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT);
			}
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			s = exec_sqlerr(ex, err, NULL);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	int evaluate = 0;
	for (int k = 0; k < npj; k++)
		evaluate |= pj[k].occ >= 0;
	if (s == SUQL_OK && evaluate) {
		sqlite3_stmt *cnt;
		if (exec_prepare(ex, "SELECT count(*) FROM temp.suql_pg_rows", &cnt, NULL) == SUQL_OK) {
			if (sqlite3_step(cnt) == SQLITE_ROW)
				ex->cnt.project_rows = sqlite3_column_int64(cnt, 0);
			sqlite3_finalize(cnt);
		}
		s = pg_project(ex, pj, npj, pcol, err);
	}
	free(pcol);
	if (s == SUQL_OK)
		s = exec_prepare(ex, sb_str(&sel), &st, err);
	if (s == SUQL_OK) {
		if (sink && sink->columns)
			sink->columns(sink->ctx, st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			ex->cnt.rows_out++;
			if (sink && sink->row && sink->row(sink->ctx, st))
				break;
		}
	}
	sqlite3_finalize(st);
	sqlite3_exec(e->db, "DROP TABLE IF EXISTS temp.suql_pg_rows", NULL, NULL, NULL);
	sb_free(&ddl);
	sb_free(&ins);
	sb_free(&sel);
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
