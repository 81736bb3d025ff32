/*
 * exec_pg.c: PostgreSQL's row of the statement driver's backend table (top_int.h), for a
 * database in store_pg.c. SUQL's syntax is Postgres's, so the structured parts go to the
 * server as the user wrote them (printed PRINT_PG: arrays, `::` casts, `@>`, `&&`, ILIKE
 * and JSON pass through); only the free-text judgments happen in suql. doc/postgres.md
 * describes the design; in short:
 *
 *  - a statement without free text runs as it is;
 *  - a statement with free text runs the one pipeline and walk SQLite's statements run
 *    (exec_statement.c), inside one REPEATABLE READ transaction (READ ONLY in read-only
 *    mode) so that the rows the candidates listed are the rows the final statement
 *    reads: the candidates listed by Postgres with their texts (by the row identity
 *    bind_scope.c finds), asked of the model in waves, and the user's statement run last
 *    with the values bound as parameters (exec_pg_run.c; UPDATE and DELETE evaluate
 *    their values in the order SQLite's functions would, exec_pg_dml.c); what cannot run
 *    is refused by the operator table.
 *
 * This file holds the row, whole: the database (the server through the store, a scratch
 * SQLite connection beside it), a statement run (read-only mode's refusals and checks
 * around it, DDL with the catalog of SUQL types in one transaction), the transaction, the
 * check of read-only mode's hidden tables, a plain statement's run, refusals and errors
 * placed in the user's text; and :index (GIN indexes for the server's text search).
 * exec_pg_rows.c hands rows to the sink.
 */
#include "engine/bind_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chat statements (read-only mode) may run this long in Postgres. */
#define PG_READONLY_TIMEOUT_MS 30000

/* ---- transactions ---- */

/* The statement's transaction: read only in read-only mode (with a time limit for the
   chat agent's statements; fixed read-only by a first query, exec_pg_ro_lock), and
   REPEATABLE READ for a free-text statement (the rows listed as candidates, and their
   ctids, must be the rows its final statement reads). Under --readonly the user's
   transaction control runs as written (exec_pg_ro_after makes a BEGIN read-only), and a
   statement inside the user's transaction runs there, read-only since its BEGIN. */
static SuqlStatus pg_begin(Exec *ex, int snapshot, int *began, SuqlErr *err)
{
	char sql[160];
	Engine *e = ex->e;
	int ro = e->readonly || e->open_ro;
	*began = 0;
	if (e->open_ro && !e->readonly && exec_pg_ro_txn_control(ex->ast->stmt))
		return SUQL_OK;
	if (!ro && !snapshot)
		return SUQL_OK;
	if (store_pg_in_transaction(e->store)) {
		/* the user's own transaction: its isolation holds; the chat agent's read-only
		   mode cannot make it read-only, so it refuses rather than run there */
		if (e->readonly)
			return err_set(err, SUQL_ERROR, "a transaction is open (BEGIN without COMMIT): "
			               "statements here run read-only in a transaction of their own; "
			               "end it with COMMIT or ROLLBACK first");
		return SUQL_OK;
	}
	snprintf(sql, sizeof sql, "BEGIN ISOLATION LEVEL %s%s",
	         snapshot ? "REPEATABLE READ" : "READ COMMITTED", ro ? " READ ONLY" : "");
	SuqlStatus s = store_exec(e->store, sql, err);
	*began = s == SUQL_OK;
	if (s == SUQL_OK && ro)
		s = exec_pg_ro_lock(e, 0, err);
	if (s == SUQL_OK && e->readonly) {
		snprintf(sql, sizeof sql, "SET LOCAL statement_timeout = %d", PG_READONLY_TIMEOUT_MS);
		s = store_exec(e->store, sql, err);
	}
	return s;
}

static SuqlStatus pg_end(Exec *ex, SuqlStatus s, SuqlErr *err)
{
	/* nothing a read-only or snapshot statement did is kept but its reads: roll back when
	   it failed (so the connection is usable), commit otherwise; a read-only one only
	   when its settings are still read-only (exec_pg_ro_verify rolls back otherwise) */
	if (s != SUQL_OK) {
		store_exec(ex->e->store, "ROLLBACK", NULL);
		return s;
	}
	if ((ex->e->readonly || ex->e->open_ro) &&
	    (s = exec_pg_ro_verify(ex->e, ex->e->open_ro, err)) != SUQL_OK)
		return s;
	return store_exec(ex->e->store, "COMMIT", err);
}

/* Read-only mode: a statement that reads a table marked as holding evaluation labels
   (catalog.h) is refused, as SQLite's authorizer refuses it: any FROM item of any block
   naming one. */
static SuqlStatus pg_hidden(Exec *ex, SuqlErr *err)
{
	Engine *e = ex->e;
	for (int i = 0; i < ex->nblocks; i++)
		for (int k = 0; k < ex->blocks[i].nitems; k++) {
			const ScopeItem *it = &ex->blocks[i].items[k];
			for (int h = 0; it->kind == IT_TABLE && it->table && h < e->nhidden; h++)
				if (str_ieq(it->table, e->hidden[h])) {
					e->denied = e->hidden[h];
					return exec_refused(e, err);
				}
		}
	return SUQL_OK;
}

/* ---- the entry ---- */

/* A refusal of the operator table, placed at what it is about when the row said
   (ex->refused_at: the occurrence, join or aggregate as written). */
static SuqlStatus pg_refused(Exec *ex, const char *why, SuqlErr *err)
{
	const Expr *at = ex->refused_at;
	if (at && at->span.len > 0 && at->span.off + at->span.len <= ex->len)
		return err_at(err, SUQL_ERROR, ex->sql, ex->len, at->span.off, at->span.len, NULL,
		              "not supported on PostgreSQL yet: %s; the SQLite backend runs it", why);
	return err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: %s; the SQLite backend "
	               "runs it", why);
}

static SuqlStatus exec_pg_index(Engine *e, const char *table, FILE *out, SuqlErr *err);

/* ---- the database ---- */

static int pg_claims(const char *path)
{
	return store_pg_target(path);
}

/* The server through the store; suql's SQLite connection a scratch database in memory,
   for the little SQLite evaluates whatever the backend (the binder's reading of a
   constant question, bind_occ.c). Read-only (--readonly): the session's transactions
   read-only, and strings read as suql's lexer reads them (no backslash escapes), so that
   what suql checks of a statement is what the server runs (exec_pg_ro.c). */
static Store *pg_open(const char *path, int readonly, sqlite3 **db, SuqlErr *err)
{
	Store *store = store_pg_open(path, err);
	*db = NULL;
	if (!store)
		return NULL;
	if (readonly && store_exec(store, "SET default_transaction_read_only = on; "
	                           "SET standard_conforming_strings = on", err) != SUQL_OK) {
		store_close(store);
		return NULL;
	}
	if (sqlite3_open(":memory:", db) != SQLITE_OK) {
		sqlite3_close(*db);
		*db = NULL;
		store_close(store);
		err_set(err, SUQL_IO, "cannot open an in-memory SQLite database");
		return NULL;
	}
	return store;
}

static void pg_close(Engine *e)
{
	sqlite3_close(e->db);
}

/* Every statement goes to the driver with PostgreSQL's row; DDL that declares or changes
   SUQL types runs in a transaction with the catalog's rows (in the schema suql), and
   read-only mode refuses it before the server sees it. In read-only mode what no read-only transaction
   stops is refused first, and under --readonly the settings are verified after each
   statement (exec_pg_ro.c). */
static SuqlStatus pg_run(Engine *e, Ast *ast, const char *sql, size_t len,
                         const EngineSink *sink, SuqlErr *err)
{
	const Stmt *stmt = ast->stmt;
	if (e->readonly || e->open_ro) {
		SuqlStatus s = exec_pg_ro_refuse(e, ast, sql, len, err);
		if (s == SUQL_OK && e->open_ro)
			s = exec_pg_ro_before(e, ast, err);
		if (s != SUQL_OK)
			return s;
	}
	if (e->open_ro && !e->readonly) {
		/* DDL of SUQL types too: in its read-only transaction, the server refuses it */
		SuqlStatus s = exec_statement(e, &exec_pg_backend, ast, sql, len, sink, err);
		return exec_pg_ro_after(e, ast, s, err);
	}
	if (!engine_ddl_needs_catalog(stmt))
		return exec_statement(e, &exec_pg_backend, ast, sql, len, sink, err);
	int view_only = engine_ddl_view_only(e, ast);   /* nothing of it on the server */
	if (e->readonly)
		return exec_refused(e, err);
	int existed = stmt->kind == ST_CREATE_TABLE && stmt->if_not_exists &&
	              store_has_table(e->store, ast_name_value(ast->arena, stmt->table));
	/* inside the user's own transaction, a savepoint of it */
	int own = !store_pg_in_transaction(e->store);
	SuqlStatus s = own ? store_exec(e->store, "BEGIN", err)
	                   : store_savepoint(e->store, "suql_ddl", err);
	if (s != SUQL_OK)
		return s;
	if (!view_only)
		s = exec_statement(e, &exec_pg_backend, ast, sql, len, sink, err);
	if (s == SUQL_OK)
		s = engine_ddl_catalog(e, ast, existed, err);
	if (s == SUQL_OK)
		return own ? store_exec(e->store, "COMMIT", err)
		           : store_release(e->store, "suql_ddl", err);
	if (own)
		store_exec(e->store, "ROLLBACK", NULL);
	else
		store_rollback_to(e->store, "suql_ddl");
	return s;
}

/* ---- the row ---- */

static SuqlStatus pg_check(Exec *ex, int suql, int explain, SuqlErr *err)
{
	SuqlStatus s = ex->e->readonly ? pg_hidden(ex, err) : SUQL_OK;
	/* a view of suql's expanded into the statement goes to the server with it: its text
	   meets read-only mode's refusals as the statement's did (pg_run) */
	for (int i = 0; s == SUQL_OK && (ex->e->readonly || ex->e->open_ro) && i < ex->nviews; i++)
		s = exec_pg_ro_refuse(ex->e, ex->views[i].ast, ex->sql, ex->len, err);
	/* a statement suql plans is planned by the server too; the rest (a view, DDL, a
	   statement without free text) meets the server's check as it runs */
	if (s == SUQL_OK && suql && !ex->standalone)
		s = exec_pg_run_check(ex, explain, err);
	else if (s == SUQL_OK && ex->standalone && ex->nocc > 0 && !bind_view_reads(ex))
		s = exec_pg_run_check_view(ex, err);   /* (one reading a view of suql's: when read) */
	return s;
}

/* A planned statement with its values bound (exec_pg_run.c); any other as the user wrote
   it (a view's ENUM literals rewritten), printed for Postgres. */
static SuqlStatus pg_final(Exec *ex, int planned, SuqlErr *err)
{
	if (planned)
		return exec_pg_run_final(ex, err);
	Printer *pr = print_new(PRINT_PG, NULL, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	SuqlStatus s = exec_pg_rows_run(ex, print_text(pr), NULL, 0, NULL, 0, err);
	s = exec_pg_plan_place(ex, pr, s, err);
	print_free(pr);
	return s;
}

const Backend exec_pg_backend = {
	.name = "PostgreSQL",
	.print = PRINT_PG,
	.explain_other = "EXPLAIN of a statement without free text shows PostgreSQL's plan",
	.begin = pg_begin,
	.end = pg_end,
	.check = pg_check,
	.final = pg_final,
	.record = exec_pg_run_record,
	.refused = pg_refused,
	.free = exec_pg_plan_free,
	.dialect = &dialect_pg,
	.claims = pg_claims,
	.open = pg_open,
	.close = pg_close,
	.run = pg_run,
	.index = exec_pg_index,
};

/* ---- :index ---- */

/* suql's retrieval index of t.col on the server (exec_pg_index.c), made again: the one an
   unordered LIMIT ranks its candidates by, as SQLite's index ranks them. */
static SuqlStatus pg_ret_index(Engine *e, const char *t, const char *col, FILE *out,
                               SuqlErr *err)
{
	TabInfo ti = {0};
	ti.name = xstrdup(t);
	e->dialect->table_facts(e, &ti);
	int ok = ti.exists && ti.rowid;
	char *key = ti.rowkey ? xstrdup(ti.rowkey) : NULL;
	free(ti.name);
	free(ti.rowkey);
	free(ti.rowbad);
	for (int i = 0; i < ti.ncols; i++)
		free(ti.cols[i]);
	free(ti.cols);
	SuqlStatus s = SUQL_OK;
	if (ok) {
		int own = !store_pg_in_transaction(e->store), built = 0;
		s = own ? store_exec(e->store, "BEGIN", err) : SUQL_OK;
		if (s == SUQL_OK)
			s = exec_pg_index_ensure(e, t, key, col, 1, &built, err);
		if (own)
			s = s == SUQL_OK ? store_exec(e->store, "COMMIT", err)
			                 : (store_exec(e->store, "ROLLBACK", NULL), s);
		if (s == SUQL_OK)
			fprintf(out, "%s.%s: suql's retrieval index (BM25 over SQLite's passages and "
			        "tokens), in suql.ret_index\n", t, col);
	}
	free(key);
	return s;
}

static SuqlStatus exec_pg_index(Engine *e, const char *table, FILE *out, SuqlErr *err)
{
	Store *st = e->store;
	if (!store_has_table(st, "suql.catalog")) {
		fprintf(out, "no free-text columns to index\n");
		return SUQL_OK;
	}
	/* the text of a value, immutable so that an index may hold it: a text[] as its
	   elements joined by spaces */
	SuqlStatus s = store_exec(st, "CREATE OR REPLACE FUNCTION suql.doc(text) RETURNS text "
	                          "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT $1'; "
	                          "CREATE OR REPLACE FUNCTION suql.doc(text[]) RETURNS text "
	                          "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS "
	                          "'SELECT array_to_string($1, '' '')'", err);
	if (s != SUQL_OK)
		return s;
	const char *args[] = {table ? table : ""};
	StoreCursor *c;
	s = store_query(st, "SELECT tbl, col FROM suql.catalog WHERE type LIKE 'FREE_TEXT%' AND "
	                "($1 = '' OR lower(tbl) = lower($1)) ORDER BY 1, 2", args, 1, &c, err);
	if (s != SUQL_OK)
		return s;
	int n = 0;
	while (s == SUQL_OK && store_next(c) > 0) {
		const char *t = store_text(c, 0), *col = store_text(c, 1);
		char *name = xprintf("suql_fts_%s_%s", t, col);
		char *q = xprintf("CREATE INDEX IF NOT EXISTS \"%s\" ON \"%s\" USING gin "
		                  "(to_tsvector('english'::regconfig, suql.doc(\"%s\")))", name, t, col);
		if (strchr(t, '"') || strchr(col, '"'))
			s = err_set(err, SUQL_ERROR, "cannot index %s.%s: a name with a double quote", t,
			            col);
		else
			s = store_exec(st, q, err);
		if (s == SUQL_OK)
			fprintf(out, "%s.%s: GIN index %s (Postgres full-text search)\n", t, col, name);
		if (s == SUQL_OK)
			s = pg_ret_index(e, t, col, out, err);
		n += s == SUQL_OK;
		free(q);
		free(name);
	}
	store_done(c);
	if (s == SUQL_OK && n == 0)
		fprintf(out, "no free-text columns to index\n");
	return s;
}
