/*
 * exec_sqlite.c: SQLite's row of the statement driver's backend table (top_int.h). The
 * statement is checked by preparing it once as the user wrote it (free text as calls of
 * suql's SQL functions), under the read-only authorizer when that is on; a statement
 * with nothing for suql to plan keeps that preparation and runs it. The final statement
 * is exec_final.c's; SQLite calls suql's functions as it reads each row, so a value the
 * walks did not evaluate is evaluated on demand. Statements run in SQLite's own
 * transactions (a write takes its own, engine.c).
 */
#include "engine/bind_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"

#include <stdlib.h>

/* Prepare the statement as the user wrote it: the one place it is judged. When nothing
   is to be planned, this preparation is the one that runs (ex->ready). */
static SuqlStatus sqlite_check(Exec *ex, int suql, int explain, SuqlErr *err)
{
	(void)explain;
	Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sqlite3_stmt *st = NULL;
	ex->e->guard = ex->e->readonly;
	int rc = sqlite3_prepare_v2(ex->e->db, print_text(pr), (int)print_len(pr), &st, NULL);
	ex->e->guard = 0;
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_AUTH)
		s = exec_refused(ex->e, err);
	else if (rc != SQLITE_OK)
		s = exec_user_error(ex->e->db, pr, ex->sql, ex->len, err);
	if (st) {
		ex->cols.n = sqlite3_column_count(st);
		ex->cols.names = xcalloc((size_t)ex->cols.n + 1, sizeof *ex->cols.names);
		ex->cols.list = xcalloc((size_t)ex->cols.n + 1, 1);
		for (int i = 0; i < ex->cols.n; i++) {
			const char *n = sqlite3_column_name(st, i);
			ex->cols.names[i] = xstrdup(n ? n : "");
			/* where a result column comes from, as the user wrote it (the statement
			   that finally runs may read a temp table instead) */
			const char *tab = sqlite3_column_table_name(st, i);
			const char *col = sqlite3_column_origin_name(st, i);
			const CatColumn *cc = tab && col ? bind_scope_catalog(ex, tab, col) : NULL;
			ex->cols.list[i] = cc && cc->is_array;
		}
	}
	if (s == SUQL_OK && st && !suql) {
		exec_trace(print_text(pr));
		ex->ready = st;
		st = NULL;
	}
	sqlite3_finalize(st);
	print_free(pr);
	return s;
}

static SuqlStatus sqlite_final(Exec *ex, int planned, SuqlErr *err)
{
	(void)planned;   /* (ex->ready holds a statement that is not) */
	return exec_final_run(ex, err);
}

/* SQLite runs every operator; a refusal would be a row's mistake, said as it is. */
static SuqlStatus sqlite_refused(Exec *ex, const char *why, SuqlErr *err)
{
	(void)ex;
	return err_set(err, SUQL_ERROR, "not supported: %s", why);
}

const Backend exec_sqlite_backend = {
	.name = "SQLite",
	.print = PRINT_SQL,
	.explain_other = "EXPLAIN QUERY PLAN shows SQLite's plan of the statement",
	.check = sqlite_check,
	.final = sqlite_final,
	.record = exec_record_result,
	.refused = sqlite_refused,
	.free = exec_final_free,
};
