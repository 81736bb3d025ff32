/*
 * exec_sqlite.c: SQLite's row of the statement driver's backend table (top_int.h), whole:
 * the database file opened as the store and suql's connection, a statement run (through
 * the pipeline when suql binds it, else translated and run as it is, DDL with the catalog
 * of SUQL types), :index (suql's retrieval index), and the pipeline's entries. The
 * statement is checked by preparing it once as the user wrote it (free text as calls of
 * suql's SQL functions), under the read-only authorizer when that is on; a statement
 * with nothing for suql to plan keeps that preparation and runs it. The final statement
 * is exec_final.c's; SQLite calls suql's functions as it reads each row, so a value the
 * walks did not evaluate is evaluated on demand. Statements run in SQLite's own
 * transactions (a write takes its own, engine.c); a data change that may ask the model
 * runs its final statement under a savepoint, rolled back when it fails or passes a cap.
 */
#include "engine/bind_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"
#include "retrieve/retrieve.h"

#include <stdio.h>
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

/* A data change that may ask the model as SQLite writes its rows runs under a savepoint:
   when a spend went past a cap meanwhile (an endpoint reporting more than any bound; the
   statement then fails, exec_budget_passed), or the statement failed, what it wrote is
   rolled back, so that a statement said to have failed has changed nothing. */
static SuqlStatus sqlite_final(Exec *ex, int planned, SuqlErr *err)
{
	(void)planned;   /* (ex->ready holds a statement that is not) */
	StmtKind k = ex->ast->stmt->kind;
	int write = ex->e->llm && (k == ST_INSERT || k == ST_UPDATE || k == ST_DELETE ||
	                        k == ST_CREATE_TABLE);
	if (!write || exec_run_sql(ex->e->db, "SAVEPOINT suql_final", NULL) != SUQL_OK)
		return exec_final_run(ex, err);
	SuqlStatus s = exec_final_run(ex, err);
	double over, hw_in, hw_out;
	if (s != SUQL_OK || llm_cap_passed(ex->e->llm, &over, &hw_in, &hw_out))
		sqlite3_exec(ex->e->db, "ROLLBACK TO suql_final", NULL, NULL, NULL);
	sqlite3_exec(ex->e->db, "RELEASE suql_final", NULL, NULL, NULL);
	return s;
}

/* SQLite runs every operator; a refusal would be a row's mistake, said as it is. */
static SuqlStatus sqlite_refused(Exec *ex, const char *why, SuqlErr *err)
{
	(void)ex;
	return err_set(err, SUQL_ERROR, "not supported: %s", why);
}

static int table_exists(Engine *e, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(e->db, "SELECT 1 FROM sqlite_schema WHERE type IN ('table','view') "
	                       "AND name = ?1 COLLATE NOCASE", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

/* Prepare and run the translated statement, streaming rows to the sink. */
static SuqlStatus run_translated(Engine *e, const Printer *pr, const char *sql, size_t len,
                                 const EngineSink *sink, SuqlErr *err)
{
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	e->guard = e->readonly;
	int rc = sqlite3_prepare_v2(e->db, print_text(pr), (int)print_len(pr), &st, &tail);
	e->guard = 0;
	if (rc == SQLITE_AUTH)
		return exec_refused(e, err);
	if (rc != SQLITE_OK)
		return exec_user_error(e->db, pr, sql, len, err);
	if (!st)
		return SUQL_OK;
	Row row;
	store_row_sqlite(&row, st);
	if (sink && sink->columns && sqlite3_column_count(st) > 0)
		sink->columns(sink->ctx, &row);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sink && sink->row && sink->row(sink->ctx, &row))
			break;
	}
	SuqlStatus s = SUQL_OK;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		s = err_set(err, rc == SQLITE_INTERRUPT ? SUQL_INTERRUPT : SUQL_ERROR, "%s",
		            sqlite3_errmsg(e->db));
	sqlite3_finalize(st);
	return s;
}

/* One parsed statement: one suql binds through the pipeline (exec_statement); any other
   translated to SQLite SQL and run as it is, DDL inside a savepoint with the catalog's
   rows of its SUQL types (engine_ddl.c). */
static SuqlStatus sqlite_run(Engine *e, Ast *ast, const char *sql, size_t len,
                             const EngineSink *sink, SuqlErr *err)
{
	const Stmt *stmt = ast->stmt;
	if (!engine_ddl_needs_catalog(stmt) && exec_statement_bound(stmt))
		return exec_statement(e, &exec_sqlite_backend, ast, sql, len, sink, err);
	SuqlStatus s;
	Printer *pr = print_new(PRINT_SQL, NULL, ast->src, ast->src_off);
	print_stmt(pr, stmt);
	if (!engine_ddl_needs_catalog(stmt)) {
		s = run_translated(e, pr, sql, len, sink, err);
	} else {
		int existed = stmt->kind == ST_CREATE_TABLE && stmt->if_not_exists &&
		              table_exists(e, ast_name_value(ast->arena, stmt->table));
		s = exec_run_sql(e->db, "SAVEPOINT suql_ddl", err);
		if (s == SUQL_OK) {
			s = run_translated(e, pr, sql, len, sink, err);
			if (s == SUQL_OK)
				s = engine_ddl_catalog(e, ast, existed, err);
			if (s == SUQL_OK) {
				s = exec_run_sql(e->db, "RELEASE suql_ddl", err);
			} else {
				sqlite3_exec(e->db, "ROLLBACK TO suql_ddl", NULL, NULL, NULL);
				sqlite3_exec(e->db, "RELEASE suql_ddl", NULL, NULL, NULL);
			}
		}
	}
	/* The binder's table facts are kept while the schema cookie, the change count and the
	   data version hold (bind_scope.c); a ROLLBACK takes the cookie back to an earlier
	   value, which a later CREATE or ALTER can reach again with other tables: so anything
	   run here (DDL, transactions, ATTACH, PRAGMA) forgets them. */
	bind_scope_tabs_check(e, 1);
	print_free(pr);
	return s;
}

/* The database file itself: suql's connection is the store's. */
static Store *sqlite_open(const char *path, int readonly, sqlite3 **db, SuqlErr *err)
{
	Store *store = store_sqlite_open(path, readonly, err);
	*db = store ? store_sqlite(store) : NULL;
	return store;
}

typedef struct Report {
	FILE *out;
	int n;
} Report;

static void report(void *ctx, const char *table, const char *column, const RetInfo *info)
{
	Report *r = ctx;
	r->n++;
	fprintf(r->out, "%s.%s: %lld row%s, %lld passage%s\n", table, column, info->rows,
	        info->rows == 1 ? "" : "s", info->passages, info->passages == 1 ? "" : "s");
}

/* :index: suql's retrieval index (FTS5) of each free-text column made current. */
static SuqlStatus sqlite_index(Engine *e, const char *table, FILE *out, SuqlErr *err)
{
	Report r = {out, 0};
	SuqlStatus s = ret_rebuild(e->db, table, report, &r, err);
	if (s == SUQL_OK && r.n == 0)
		fprintf(out, "no free-text columns to index\n");
	return s;
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
	.dialect = &dialect_sqlite,
	.own_db = 1,
	.import_indexes = 1,
	.open = sqlite_open,
	.run = sqlite_run,
	.index = sqlite_index,
};
