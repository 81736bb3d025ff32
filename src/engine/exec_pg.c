/*
 * exec_pg.c: statements on a PostgreSQL database (store_pg.c). SUQL's syntax is
 * Postgres's, so the structured parts go to the server as the user wrote them (printed
 * PRINT_PG: arrays, `::` casts, `@>`, `&&`, ILIKE and JSON pass through); only the
 * free-text judgments happen here. doc/postgres.md describes the design; in short:
 *
 *  - a statement without free text runs as it is;
 *  - a statement with free text runs the one planner and walk SQLite's statements run
 *    (exec_pg_run.c), inside one REPEATABLE READ transaction (READ ONLY in read-only
 *    mode) so that the rows the candidates listed are the rows the final statement
 *    reads: the candidates listed by Postgres with their texts (by the row identity
 *    bind_scope.c finds), asked of the model in waves with the walk's sizing, batching,
 *    memo and cache, and the user's statement run last with the values bound as parameters
 *    (parameters, never text in the SQL); UPDATE and DELETE as SQLite's functions would
 *    call (exec_pg_dml.c); what cannot run is refused by the operator table.
 *
 * This file decides what runs, holds its transaction and :index; exec_pg_rows.c hands
 * rows to the sink.
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

/* The statement's transaction: read only in read-only mode (with a time limit), and
   REPEATABLE READ for a free-text statement (the rows listed as candidates, and their
   ctids, must be the rows its final statement reads). */
static SuqlStatus pg_begin(Exec *ex, int snapshot, int *began, SuqlErr *err)
{
	char sql[160];
	*began = 0;
	if (!ex->e->readonly && !snapshot)
		return SUQL_OK;
	if (store_pg_in_transaction(ex->e->store)) {
		/* the user's own transaction: its isolation holds; read-only mode cannot make it
		   read-only, so it refuses rather than run there */
		if (ex->e->readonly)
			return err_set(err, SUQL_ERROR, "a transaction is open (BEGIN without COMMIT): "
			               "statements here run read-only in a transaction of their own; "
			               "end it with COMMIT or ROLLBACK first");
		return SUQL_OK;
	}
	snprintf(sql, sizeof sql, "BEGIN ISOLATION LEVEL %s%s",
	         snapshot ? "REPEATABLE READ" : "READ COMMITTED",
	         ex->e->readonly ? " READ ONLY" : "");
	SuqlStatus s = store_exec(ex->e->store, sql, err);
	*began = s == SUQL_OK;
	if (s == SUQL_OK && ex->e->readonly) {
		snprintf(sql, sizeof sql, "SET LOCAL statement_timeout = %d", PG_READONLY_TIMEOUT_MS);
		s = store_exec(ex->e->store, sql, err);
	}
	return s;
}

static SuqlStatus pg_end(Exec *ex, int began, SuqlStatus s, SuqlErr *err)
{
	if (!began)
		return s;
	/* nothing a read-only or snapshot statement did is kept but its reads: roll back when
	   it failed (so the connection is usable), commit otherwise */
	if (s != SUQL_OK) {
		store_exec(ex->e->store, "ROLLBACK", NULL);
		return s;
	}
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
					return engine_refused(e, err);
				}
		}
	return SUQL_OK;
}

/* ---- the entry ---- */

SuqlStatus exec_pg_place(Exec *ex, const Printer *pr, SuqlStatus s, SuqlErr *err)
{
	return exec_pg_place_shifted(ex, pr, s, 0, err);
}

SuqlStatus exec_pg_place_shifted(Exec *ex, const Printer *pr, SuqlStatus s, long shift,
                                 SuqlErr *err)
{
	long off = store_pg_error_offset(ex->e->store);
	if (off >= 0)
		off -= shift;
	if (s != SUQL_ERROR || off < 0 || (size_t)off > print_len(pr))
		return s;
	/* the server's place in the printed text, mapped back to the user's */
	size_t at = print_map(pr, (size_t)off);
	char *msg = xstrdup(err->msg ? err->msg : "failed");
	err_clear(err);
	if (at < ex->len)
		s = err_at(err, SUQL_ERROR, ex->sql, ex->len, at, 1, NULL, "%s", msg);
	else
		s = err_set(err, SUQL_ERROR, "%s", msg);
	free(msg);
	return s;
}

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

SuqlStatus exec_pg_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                             const EngineSink *sink, SuqlErr *err)
{
	/* an EXPLAIN's statement as written, before the binder's rewrite (as exec_statement);
	   EXPLAIN QUERY PLAN of a statement with free text shows suql's plan too (the
	   server's plan of the final statement would depend on values not asked yet) */
	char *parsed = NULL;
	int explained = ast->stmt->explain;
	if (explained) {
		ast->stmt->explain = 0;
		parsed = print_suql_stmt(ast);
		ast->stmt->explain = explained;
	}
	Exec *ex = exec_statement_begin(e, ast, sql, len, sink);
	Stmt *st = ast->stmt;
	SuqlStatus s = SUQL_OK;
	int bound = st->kind == ST_SELECT || st->kind == ST_INSERT || st->kind == ST_UPDATE ||
	            st->kind == ST_DELETE || st->kind == ST_CREATE_VIEW ||
	            (st->kind == ST_CREATE_TABLE && st->select);
	if (bound)
		s = bind_statement(ex, err);
	if (s == SUQL_OK && ex->nenums > 0)
		s = enum_lookup(ex, err);
	/* ENUM literals the map does not know yet are classified once the statement's
	   transaction has begun (the mapping is written into suql.enum_map there) */
	int classify = s == SUQL_OK && ex->nenums > 0 && enum_pending(ex) > 0;
	int freetext = s == SUQL_OK && (ex->nocc > 0 || ex->naggs > 0 || ex->njoins > 0);
	/* EXPLAIN with free text, or with an ENUM literal to classify: suql's plan, nothing
	   asked (the classification too waits for a statement that runs) */
	int explain = parsed && (freetext || (classify && explained == 1)) &&
	              ex->set.optimize != OPT_OFF;
	if (explain) {
		classify = 0;
		st->explain = 0;
	}
	if (s == SUQL_OK && ex->nenums > 0 && enum_pending(ex) == 0)
		enum_rewrite(ex, 0);
	int began = 0;
	if (freetext && !explain && sink && sink->freetext)
		sink->freetext(sink->ctx);
	/* what the operator table refuses before the plan is refused before anything is
	   asked (an ENUM classified, a transaction begun); the rest once planned (exec_pg_run) */
	const char *why = s == SUQL_OK && freetext ? op_refusal(ex, ex->e->dialect) : NULL;
	if (why)
		s = pg_refused(ex, why, err);
	if (s == SUQL_OK && e->readonly)
		s = pg_hidden(ex, err);
	if (s == SUQL_OK && (freetext || classify) && !e->llm)
		s = err_set(err, SUQL_LLM, "no language model client: free-text functions need one");
	if (s == SUQL_OK && classify && !freetext && sink && sink->freetext)
		sink->freetext(sink->ctx);
	if (s == SUQL_OK && classify && ex->set.budget > 0 && enum_pending(ex) > ex->set.budget) {
		ex->worst_total = ex->expect_total = enum_pending(ex);
		s = exec_over_budget(ex, err);
	}
	if (s == SUQL_OK)
		s = pg_begin(ex, freetext, &began, err);
	if (s == SUQL_OK && classify) {
		s = enum_classify(ex, err);
		if (s == SUQL_OK)
			enum_rewrite(ex, 0);
		if (s != SUQL_OK)
			s = pg_end(ex, began, s, err);
	}
	/* the ENUM comparisons and what they became head the plan (the SQLite planner's
	   plan shows them itself) */
	int mapped = s == SUQL_OK && ex->nenums > 0;
	if (mapped && !freetext && !explain)
		enum_show(ex, &ex->plan);
	if (s == SUQL_OK) {
		if (freetext || explain) {
			why = exec_pg_run(ex, explain ? parsed : NULL, &s, err);
			if (why)
				s = pg_refused(ex, why, err);
		} else {
			Printer *pr = print_new(PRINT_PG, NULL, ast->src, ast->src_off);
			print_stmt(pr, st);
			if (st->has_suql && sink && sink->plan) {
				sb_printf(&ex->plan, "no free text: PostgreSQL runs\n%s\n", print_text(pr));
				sink->plan(sink->ctx, sb_str(&ex->plan));
			}
			sb_truncate(&ex->plan, 0);
			s = exec_pg_rows_run(ex, print_text(pr), NULL, 0, NULL, 0, err);
			s = exec_pg_place(ex, pr, s, err);
			print_free(pr);
		}
		s = pg_end(ex, began, s, err);
	}
	s = exec_budget_stopped(ex, s, err);
	s = exec_unread_report(ex, s, err);
	if ((freetext || mapped) && !explain && sink && sink->counters &&
	    (s == SUQL_OK || s == SUQL_LLM || s == SUQL_INTERRUPT)) {
		SBuf c = SBUF_INIT;
		sb_puts(&c, sb_str(&ex->plan));
		plan_show_counters(ex, &c);
		sink->counters(sink->ctx, sb_str(&c));
		sb_free(&c);
	}
	ex->rec->freetext = freetext;   /* :why reads the record, as on SQLite */
	exec_statement_end(ex);
	free(parsed);
	return s;
}

/* ---- :index ---- */

SuqlStatus exec_pg_index(Engine *e, const char *table, FILE *out, SuqlErr *err)
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
		n += s == SUQL_OK;
		free(q);
		free(name);
	}
	store_done(c);
	if (s == SUQL_OK && n == 0)
		fprintf(out, "no free-text columns to index\n");
	return s;
}
