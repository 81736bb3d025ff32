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
 * SQLite: BEGIN IMMEDIATE takes the write lock first, so the check for the row is the
 * truth until COMMIT; suql's table is written under own_write_begin (a table of that name
 * suql did not make, or a trigger on it, is refused). PostgreSQL: the table is made in a
 * transaction of its own (a concurrent CREATE ... IF NOT EXISTS may fail: it is tried
 * twice), then BEGIN ISOLATION LEVEL REPEATABLE READ (the snapshot the planned statement
 * needs) and the row inserted first: a row committed by another resume makes the INSERT
 * fail on its key, and the row is then looked for outside the failed transaction.
 */
#include "engine/top_int.h"
#include "sql/parse.h"
#include "store/own.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int engine_once_writes(const char *sql, size_t len)
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

static const char *table_of(Engine *e)
{
	return e->pg ? "suql.bulk_done" : "suql_bulk_done";
}

/* Whether the job's row is there: 1, 0, or -1 (an error, in err). */
static int marked(Engine *e, const char *job, SuqlErr *err)
{
	char *sql = xprintf("SELECT 1 FROM %s WHERE job = ?1", table_of(e));
	StoreCursor *c = NULL;
	const char *p[1] = {job};
	SuqlStatus s = store_query(e->store, sql, p, 1, &c, err);
	free(sql);
	if (s != SUQL_OK)
		return -1;
	int r = store_next(c);
	store_done(c);
	return r < 0 ? -1 : r;
}

static SuqlStatus sqlite_begin(Engine *e, const char *job, const char *batch, int *state,
                               SuqlErr *err)
{
	if (!sqlite3_get_autocommit(e->db))
		return err_set(err, SUQL_USAGE, "a transaction is open (BEGIN without COMMIT): a "
		               "batch's write commits in a transaction of its own, with the mark "
		               "that it ran; end it with COMMIT or ROLLBACK, then :bulk resume");
	SuqlStatus s = store_exec(e->store, "BEGIN IMMEDIATE", err);
	if (s != SUQL_OK)
		return s;
	s = own_write_begin(e->db, "suql_bulk_done", err);
	if (s == SUQL_OK) {
		s = store_exec(e->store, "CREATE TABLE IF NOT EXISTS suql_bulk_done(job TEXT PRIMARY "
		               "KEY, batch TEXT, done TEXT NOT NULL)", err);
		int m = s == SUQL_OK ? marked(e, job, err) : -1;
		if (m < 0 && s == SUQL_OK)
			s = err->code;
		if (m == 1)
			*state = ENGINE_ONCE_DONE;
		const char *p[2] = {job, batch};
		if (m == 0)
			s = store_run(e->store, "INSERT INTO suql_bulk_done(job, batch, done) VALUES "
			              "(?1, ?2, datetime('now'))", p, 2, err);
		own_write_end(e->db);
	}
	if (s != SUQL_OK || *state == ENGINE_ONCE_DONE) {
		store_exec(e->store, "ROLLBACK", NULL);
		return s;
	}
	*state = ENGINE_ONCE_BEGUN;
	return SUQL_OK;
}

static SuqlStatus pg_begin(Engine *e, const char *job, const char *batch, int *state,
                           SuqlErr *err)
{
	if (store_pg_in_transaction(e->store))
		return err_set(err, SUQL_USAGE, "a transaction is open (BEGIN without COMMIT): a "
		               "batch's write commits in a transaction of its own, with the mark "
		               "that it ran; end it with COMMIT or ROLLBACK, then :bulk resume");
	static const char *const DDL = "CREATE SCHEMA IF NOT EXISTS suql; CREATE TABLE IF NOT "
	                               "EXISTS suql.bulk_done(job text PRIMARY KEY, batch text, "
	                               "done timestamptz NOT NULL DEFAULT now())";
	SuqlErr first = {0};
	SuqlStatus s = store_exec(e->store, DDL, &first);
	if (s != SUQL_OK)   /* another suql made it at the same time */
		s = store_exec(e->store, DDL, err);
	err_clear(&first);
	if (s != SUQL_OK)
		return s;
	s = store_exec(e->store, "BEGIN ISOLATION LEVEL REPEATABLE READ", err);
	if (s != SUQL_OK)
		return s;
	const char *p[2] = {job, batch};
	SuqlErr ins = {0};
	s = store_run(e->store, "INSERT INTO suql.bulk_done(job, batch) VALUES (?1, ?2)", p, 2,
	              &ins);
	if (s == SUQL_OK) {
		*state = ENGINE_ONCE_BEGUN;
		return SUQL_OK;
	}
	store_exec(e->store, "ROLLBACK", NULL);
	int m = marked(e, job, err);
	if (m == 1) {
		*state = ENGINE_ONCE_DONE;
		s = SUQL_OK;
	} else if (m == 0) {
		*err = ins;
		ins = (SuqlErr){0};
	}
	err_clear(&ins);
	return m == 1 ? SUQL_OK : err->code ? err->code : SUQL_ERROR;
}

SuqlStatus engine_once_begin(Engine *e, const char *sql, size_t len, const char *job,
                             const char *batch, int *state, SuqlErr *err)
{
	*state = ENGINE_ONCE_NONE;
	/* read-only mode refuses the write itself: nothing to mark */
	if (e->readonly || !job || !*job || !engine_once_writes(sql, len))
		return SUQL_OK;
	return e->pg ? pg_begin(e, job, batch, state, err) : sqlite_begin(e, job, batch, state, err);
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
