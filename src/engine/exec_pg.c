/*
 * exec_pg.c: statements on a PostgreSQL database (store_pg.c). SUQL's syntax is
 * Postgres's, so the structured parts go to the server as the user wrote them (printed
 * PRINT_PG: arrays, `::` casts, `@>`, `&&`, ILIKE and JSON pass through); only the
 * free-text judgments happen here. doc/postgres.md describes the design; in short:
 *
 *  - a statement without free text runs as it is;
 *  - a SELECT whose free text is verify atoms standing as conjuncts of its WHERE
 *    (answer(reviews, 'q') = 'Yes' AND rating > 4) runs in three steps, inside one
 *    REPEATABLE READ READ ONLY transaction so that row identities hold between them:
 *      1. candidates: SELECT the rows' ctid and the atoms' texts FROM ... WHERE <the
 *         structured conjuncts> [ORDER BY ...], in Postgres;
 *      2. judgments: the atoms asked of the model in waves, with the SQLite walk's wave
 *         sizing, batching, memo and cache (exec_llm_run), stopping once a LIMIT has its
 *         rows;
 *      3. the final statement: the user's, with the atoms replaced by
 *         t.ctid = ANY($1::tid[]), $1 bound to the array of verified rows (a parameter,
 *         never text in the SQL).
 *  - answer() and summary() that are whole result columns are evaluated last, for the
 *    rows the final statement returns (its argument's text stands in their place);
 *  - everything else a free-text statement may hold (free text inside expressions, in
 *    ORDER BY, under OR or NOT, in subqueries, a semantic top-k, a cascade) runs the
 *    SQLite planner's plan (exec_pg_run.c), UPDATE and DELETE as SQLite's functions
 *    would call (exec_pg_dml.c); what neither runs is refused with an error naming what
 *    is not supported on PostgreSQL yet.
 *
 * This file decides what runs (the statement's shape), holds its transaction and :index;
 * exec_pg_walk.c runs the three steps, exec_pg_rows.c hands rows to the sink.
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
   REPEATABLE READ for the three steps of a free-text query (ctid must hold between them). */
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

/* ---- which statements run here ---- */

static void conj_flatten(PgWalk *w, Expr **slot)
{
	Expr *e = *slot;
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		conj_flatten(w, &e->left);
		conj_flatten(w, &e->right);
		return;
	}
	w->conj = xrealloc(w->conj, ((size_t)w->nconj + 1) * sizeof *w->conj);
	w->conj[w->nconj++] = slot;
}

/* Occurrence i, in the result columns, is a plain answer() or summary() that is a whole
   result column of a block without aggregates: projection last. NULL, or why not. */
static const char *pg_projection(PgWalk *w, int i)
{
	Exec *ex = w->ex;
	const Occ *o = &ex->occ[i];
	SelectCore *c = w->b->core;
	if (w->b->aggregate || o->in_agg)
		return "answer() or summary() in the result columns of a query with aggregates, "
		       "GROUP BY or DISTINCT";
	int col = -1;
	for (int k = 0; c->cols && k < c->cols->n && col < 0; k++)
		if (o->slot == &c->cols->items[k]->expr)
			col = k;
	Expr *e = *o->slot;
	if (col < 0 || (e->kind != EX_ANSWER && e->kind != EX_SUMMARY) || o->kind == FT_VERIFY)
		return "answer() or summary() inside an expression of the result columns (only a "
		       "whole column is)";
	ResultCol *rc = c->cols->items[col];
	/* the column is computed after Postgres has sorted: ORDER BY cannot name it */
	const OrderList *ord = ex->ast->stmt->select->order;
	for (int k = 0; ord && k < ord->n; k++) {
		const Expr *t = ord->items[k]->expr;
		if ((t->kind == EX_COLUMN && !t->table.n && rc->alias.n &&
		     ast_name_eq(t->name, rc->alias)) ||
		    (t->kind == EX_LITERAL && t->lit == LIT_INTEGER &&
		     strtol(t->name.s, NULL, 10) == col + 1))
			return "ORDER BY a free-text result column";
	}
	PgProj *p;
	w->proj = xrealloc(w->proj, ((size_t)w->nproj + 1) * sizeof *w->proj);
	p = &w->proj[w->nproj];
	p->occ = i;
	snprintf(p->hidden, sizeof p->hidden, "suql_proj%d", w->nproj);
	p->shown = rc->alias.s ? xstrdup(ast_name_value(ex->a, rc->alias))
	                       : xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off),
	                                  rc->span.len);
	w->nproj++;
	return NULL;
}

/* Whether the statement is a SELECT this file runs: one block, and every occurrence a
   verify atom with a literal question standing as a conjunct of the block's WHERE. NULL,
   or what is not supported (for the error). */
static const char *pg_shape(PgWalk *w)
{
	Exec *ex = w->ex;
	const Stmt *st = ex->ast->stmt;
	if (st->kind != ST_SELECT || st->explain)
		return "free text in a statement other than SELECT";
	if (ex->naggs > 0)
		return "an aggregate over free text";
	if (ex->njoins > 0)
		return "a semantic join";
	if (ex->set.cascade_target > 0)   /* the general path's walk runs the cascade */
		return "a cascade";
	if (ex->nblocks != 1 || st->select->ncore != 1)
		return "free text in a query with subqueries, CTEs or compound SELECTs";
	Block *b = &ex->blocks[0];
	w->b = b;
	if (b->core && b->core->distinct == DISTINCT_DISTINCT)
		return "DISTINCT (the general path's walk stops once LIMIT distinct rows passed)";
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->sig < 0)
			return "a question that is not a literal";
		if (o->pos == POS_SELECT) {
			const char *why = pg_projection(w, i);
			if (why)
				return why;
			continue;
		}
		if (o->pos == POS_WHERE && o->kind != FT_VERIFY)
			return "an answer() in WHERE other than answer(...) = 'text' (typed or "
			       "constrained answers, answers inside expressions)";
		if (o->kind != FT_VERIFY || o->pos != POS_WHERE)
			return "free text outside WHERE and the result columns (ORDER BY, GROUP BY, "
			       "HAVING, JOIN ... ON)";
	}
	for (int i = 0; i < b->nitems; i++)
		if (b->items[i].kind != IT_TABLE)
			return "free text over a FROM item that is not a table";
	if (b->core->where)
		conj_flatten(w, &b->core->where);
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->pos == POS_SELECT)
			continue;
		int at = -1;
		for (int k = 0; k < w->nconj && at < 0; k++)
			if (w->conj[k] == o->slot)
				at = k;
		if (at < 0)
			return "a free-text condition under OR or NOT (only ANDed conditions are)";
		w->atoms = xrealloc(w->atoms, ((size_t)w->natoms + 1) * sizeof *w->atoms);
		w->atoms[w->natoms++] = i;
	}
	return NULL;
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

SuqlStatus exec_pg_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                             const EngineSink *sink, SuqlErr *err)
{
	/* an EXPLAIN's statement as written, before the binder's rewrite (as exec_statement) */
	char *parsed = NULL;
	if (ast->stmt->explain == 1) {
		ast->stmt->explain = 0;
		parsed = print_suql_stmt(ast);
		ast->stmt->explain = 1;
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
	int explain = parsed && (freetext || classify) && ex->set.optimize == OPT_ON;
	if (explain) {
		classify = 0;
		st->explain = 0;
	}
	if (s == SUQL_OK && ex->nenums > 0 && enum_pending(ex) == 0)
		enum_rewrite(ex, 0);
	PgWalk w = {0};
	w.ex = ex;
	int began = 0;
	const char *why = freetext ? pg_shape(&w) : NULL;
	if (freetext && !explain && sink && sink->freetext)
		sink->freetext(sink->ctx);
	/* a shape the three steps do not take, an EXPLAIN, or naive mode (which the general
	   path refuses through the operator table): the SQLite planner's plan (exec_pg_plan.c) */
	int general = (why && freetext) || explain || (freetext && ex->set.optimize != OPT_ON);
	if (general)
		why = NULL;
	if (freetext && st->explain) {
		general = 0;
		why = st->explain == 2 ? "EXPLAIN QUERY PLAN of a statement with free text (EXPLAIN "
		                         "shows suql's plan)"
		                       : "EXPLAIN with optimize off or passage (Postgres has no suql "
		                         "functions to call per row)";
	}
	if (why)
		s = err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: %s; the SQLite "
		            "backend runs it", why);
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
	if (mapped && !general)
		enum_show(ex, &ex->plan);
	if (s == SUQL_OK) {
		if (general) {
			why = exec_pg_run(ex, explain ? parsed : NULL, &s, err);
			if (why)
				s = err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: %s; the "
				            "SQLite backend runs it", why);
		} else if (freetext) {
			s = exec_pg_walk_run(&w, err);
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
	exec_pg_walk_free(&w);
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
