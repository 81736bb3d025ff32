/*
 * engine_once.c: a statement that changes the database, run at most once for a job
 * (bulk mode's :bulk resume; doc/bulk.md, "Every job runs once").
 *
 * The job's state lives in the LLM cache file and the statement's effect in the user's
 * database: two files (or a file and a server), which no one transaction spans. So the
 * user's database keeps its own record of the jobs whose write committed: a table of
 * suql's (suql_bulk_done in SQLite, suql.bulk_done in PostgreSQL), one row per job,
 * inserted in the same transaction as the statement's write. Whatever happens to the
 * process, the row and the write are both there or neither is; a resume that finds the
 * row runs nothing (the cache file is then brought up to date by the caller), and two
 * resumes racing both insert it, of which the second waits for the first and fails on its
 * key, its own write rolled back.
 *
 * How each backend begins the transaction with the row in it is its Dialect's once_begin
 * (dialect_sqlite.c, dialect_pg.c); this file decides when, and ends it.
 */
#include "engine/top_int.h"
#include "sql/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether sql is INSERT, UPDATE, DELETE or CREATE TABLE ... AS. */
static int engine_once_writes(const char *sql, size_t len)
{
	Ast *ast = NULL;
	size_t end;
	SuqlErr err = {0};
	int w = 0;
	if (parse_statement(sql, len, 0, &ast, &end, &err) == SUQL_OK && ast && ast->stmt) {
		const Stmt *st = ast->stmt;
		w = !st->explain && (st->kind == ST_INSERT || st->kind == ST_UPDATE ||
		                     st->kind == ST_DELETE ||
		                     (st->kind == ST_CREATE_TABLE && st->select));
	}
	ast_free(ast);
	err_clear(&err);
	return w;
}

SuqlStatus engine_once_begin(Engine *e, const char *sql, size_t len, const char *job,
                             const char *batch, int *state, SuqlErr *err)
{
	*state = ENGINE_ONCE_NONE;
	/* read-only mode refuses the write itself: nothing to mark */
	if (e->readonly || !job || !*job || !engine_once_writes(sql, len))
		return SUQL_OK;
	return e->dialect->once_begin(e, job, batch, state, err);
}

SuqlStatus engine_once_end(Engine *e, int commit, SuqlErr *err)
{
	if (!commit) {
		store_exec(e->store, "ROLLBACK", NULL);
		return SUQL_OK;
	}
	SuqlStatus s = store_exec(e->store, "COMMIT", err);
	if (s != SUQL_OK)
		store_exec(e->store, "ROLLBACK", NULL);
	return s;
}
