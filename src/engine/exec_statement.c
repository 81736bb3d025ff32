/*
 * exec_statement.c: one statement, from its tree to its rows (see doc/executor.md), at the
 * top of the engine's groups (src/README.md): it calls every phase below it in turn:
 *
 *   bind          blocks, names, free-text occurrences, ENUM comparisons (bind.c)
 *   look up       ENUM literals in suql_enum_map (enum.c)
 *   rewrite       each occurrence becomes a call of suql's SQL functions (bind_occ_mutate)
 *   validate      the statement is prepared once, in read-only mode under the authorizer,
 *                 so a mistake is reported at its place in the user's text before anything
 *   plan          counts and the worst case, before any call (plan.c, plan_unit.c), then
 *                 each operator's plan (the operator table, op.c: joins, aggregates)
 *   budget        over it: refused, no call made
 *   classify      ENUM literals not seen before (one call each), then the IN-list rewrite
 *   show the plan
 *   execute       each operator's run in the table's order: a join's pairs, the walks of
 *                 the blocks in dependency order (exec_walk.c) with their values read
 *                 ahead, the aggregates; then the statement itself (exec_final.c), rows
 *                 to the sink
 *   counters
 *
 * Naive mode (optimize off) skips the walk and everything ahead: SQLite calls the
 * functions row by row. A statement with neither free text nor an ENUM literal to classify
 * runs as it is, with nothing shown but its rows (and the SQL it became, when it used a
 * SUQL form).
 *
 * The engine's own statements, and the errors and warnings every phase reports, are
 * exec.c's, at the bottom; exec_statement_begin and exec_statement_end make and free the
 * Exec, for PostgreSQL's statements too (exec_pg.c).
 */
#include "engine/bind_int.h"
#include "engine/bm25_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exec_free(Exec *ex)
{
	if (ex->ftmp) {
		char *q = sqlite3_mprintf("DROP TABLE IF EXISTS temp.\"%w\"", ex->tmpname);
		sqlite3_exec(ex->db, q, NULL, NULL, NULL);
		sqlite3_free(q);
	}
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		for (int k = 0; k < b->nitems; k++) {
			ScopeItem *it = &b->items[k];
			free(it->name);
			free(it->table);
			free(it->rowkey);
			free(it->rowbad);
			for (int j = 0; j < it->ncols; j++)
				free(it->cols[j]);
			free(it->cols);
		}
		free(b->items);
		free(b->with);
		free(b->colref);
		for (int k = 0; k < b->nunits; k++)
			plan_unit_free(&b->units[k]);
		free(b->units);
		free(b->acount);
		free(b->keep);
	}
	free(ex->blocks);
	for (int i = 0; i < ex->nocc; i++) {
		free(ex->occ[i].arg_table);
		free(ex->occ[i].arg_col);
	}
	free(ex->occ);
	for (int i = 0; i < ex->nsigs; i++)
		memo_sig_free(&ex->sigs[i]);
	free(ex->sigs);
	op_free(ex);   /* what each operator made (op.c) */
	exec_pg_plan_free(ex);
	sqlite3_finalize(ex->ready);
	memo_free(ex->memo);
	sb_free(&ex->plan);
	err_clear(&ex->fn_err);
	for (int i = 0; i < ex->nwarned; i++)
		free(ex->warned[i]);
	free(ex->warned);
	for (int i = 0; i < ex->ncolnames; i++)
		free(ex->colnames[i]);
	free(ex->colnames);
	free(ex->collist);
	bm25_free(ex);
	free(ex);
}

static int needs_plan_display(const Exec *ex)
{
	return ex->nocc > 0 || ex->nenums > 0 || ex->njoins > 0 || ex->naggs > 0;
}

/* Prepare the statement as the user wrote it (free text as function calls), under the
   read-only authorizer when that is on: the one place the user's statement is judged.
   When nothing is to be done ahead of it, this preparation is the one that runs. */
static SuqlStatus validate(Exec *ex, SuqlErr *err)
{
	Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sqlite3_stmt *st = NULL;
	ex->e->guard = ex->e->readonly;
	int rc = sqlite3_prepare_v2(ex->db, print_text(pr), (int)print_len(pr), &st, NULL);
	ex->e->guard = 0;
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_AUTH)
		s = engine_refused(ex->e, err);
	else if (rc != SQLITE_OK)
		s = exec_user_error(ex->db, pr, ex->sql, ex->len, err);
	if (st) {
		ex->ncolnames = sqlite3_column_count(st);
		ex->colnames = xcalloc((size_t)ex->ncolnames + 1, sizeof *ex->colnames);
		ex->collist = xcalloc((size_t)ex->ncolnames + 1, 1);
		for (int i = 0; i < ex->ncolnames; i++) {
			const char *n = sqlite3_column_name(st, i);
			ex->colnames[i] = xstrdup(n ? n : "");
			/* where a result column comes from, as the user wrote it (the statement
			   that finally runs may read a temp table instead) */
			const char *tab = sqlite3_column_table_name(st, i);
			const char *col = sqlite3_column_origin_name(st, i);
			const CatColumn *cc = tab && col ? bind_scope_catalog(ex, tab, col) : NULL;
			ex->collist[i] = cc && cc->is_array;
		}
	}
	if (s == SUQL_OK && st && !needs_plan_display(ex)) {
		exec_trace(print_text(pr));
		ex->ready = st;
		st = NULL;
	}
	sqlite3_finalize(st);
	print_free(pr);
	return s;
}

static void report(Exec *ex, void (*fn)(void *, const char *), SBuf *b)
{
	if (fn && b->len)
		fn(ex->sink->ctx, sb_str(b));
}

/* budget_usd: the expected cost is over it (usd), or there is no price to compare (usd < 0) */
static SuqlStatus exec_over_budget_usd(Exec *ex, double usd, SuqlErr *err)
{
	if (usd < 0)
		return err_set(err, SUQL_BUDGET, "budget_usd is set, but there is no price for %s: "
		               ":set llm.price_in and llm.price_out (dollars a million tokens), or "
		               ":set budget_usd 0", llm_model(ex->llm) ? llm_model(ex->llm) : "the model");
	return err_set(err, SUQL_BUDGET, "this statement is expected to cost about $%.5f, more than "
	               "the budget of $%g; raise it with :set budget_usd DOLLARS (0 for no limit), "
	               "or narrow the query", usd, ex->set.budget_usd);
}

Exec *exec_statement_begin(Engine *e, Ast *ast, const char *sql, size_t len, const EngineSink *sink)
{
	Exec *ex = xcalloc(1, sizeof *ex);
	ex->e = e;
	ex->db = e->db;
	ex->llm = e->llm;
	ex->ast = ast;
	ex->a = ast->arena;
	ex->sql = sql;
	ex->len = len;
	ex->set = e->set;
	ex->sink = sink;
	ex->memo = memo_new();
	exec_record_begin(ex);
	ex->cnt.t0 = util_now_ms();
	e->seq++;
	if (e->llm) {
		llm_stats_begin(e->llm);
		/* the budget is a hard cap on what the statement sends (not in passage mode, the
		   baseline kept for measuring) */
		if (ex->set.optimize != OPT_PASSAGE) {
			llm_set_cap(e->llm, ex->set.budget);
			llm_set_cap_usd(e->llm, ex->set.budget_usd);
		}
	}
	ex->outer = e->cur;
	e->cur = ex;
	return ex;
}

void exec_statement_end(Exec *ex)
{
	exec_record_end(ex, ex->outer == NULL);   /* the outermost statement's record is kept */
	if (ex->e->llm)
		llm_set_cap(ex->e->llm, 0);
	ex->e->cur = ex->outer;
	exec_free(ex);
}

/* EXPLAIN of a statement with free text, ENUM literals or a semantic join: the statement
   as suql reads it and its plan with the estimate, made as for running it (st->explain is
   cleared first) but stopped before the first model call; nothing runs, no row comes. */
static SuqlStatus explain_only(Exec *ex, const char *parsed, SuqlErr *err)
{
	Stmt *st = ex->ast->stmt;
	st->explain = 0;
	SuqlStatus s = SUQL_OK;
	if (!ex->standalone) {
		if (!ex->e->llm)
			return err_set(err, SUQL_LLM, "no language model client: free-text functions "
			               "need one");
		s = plan_statement(ex, err);
		if (s == SUQL_OK)   /* (an aggregate's dry run reads rows: not here) */
			s = op_plan(ex, 1, err);
		if (s == SUQL_OK && ex->set.optimize != OPT_OFF && enum_pending(ex) == 0)
			plan_exec(ex);
		if (s == SUQL_OK)
			plan_show(ex, &ex->plan);
	} else {
		Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
		print_stmt(pr, st);
		sb_printf(&ex->plan, "a view: its ENUM comparisons are classified when it is "
		          "created; SQLite runs\n%s\n", print_text(pr));
		print_free(pr);
	}
	if (s != SUQL_OK)
		return s;
	exec_statement_explained(ex, parsed, "EXPLAIN QUERY PLAN shows SQLite's plan of the "
	                         "statement");
	return SUQL_OK;
}

void exec_statement_explained(Exec *ex, const char *parsed, const char *other)
{
	const EngineSink *sink = ex->sink;
	sb_printf(&ex->plan, "EXPLAIN: nothing ran and no model was asked (%s)\n", other);
	if (sink && sink->explained) {
		sink->explained(sink->ctx, "parsed", parsed);
		sink->explained(sink->ctx, "plan", sb_str(&ex->plan));
	} else if (sink && sink->plan) {
		sink->plan(sink->ctx, sb_str(&ex->plan));
	}
}

SuqlStatus exec_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                          const EngineSink *sink, SuqlErr *err)
{
	char *parsed = NULL;   /* an EXPLAIN's statement as written, before the binder's rewrite */
	if (ast->stmt->explain == 1) {
		ast->stmt->explain = 0;
		parsed = print_suql_stmt(ast);
		ast->stmt->explain = 1;
	}
	Exec *ex = exec_statement_begin(e, ast, sql, len, sink);
	SuqlStatus s = bind_statement(ex, err);
	if (s == SUQL_OK)
		s = enum_lookup(ex, err);
	if (s == SUQL_OK)
		bind_occ_mutate(ex);
	if (s == SUQL_OK)
		s = validate(ex, err);
	Stmt *st = ast->stmt;
	if (s == SUQL_OK && st->explain == 1 && needs_plan_display(ex)) {
		s = explain_only(ex, parsed, err);
		free(parsed);
		exec_statement_end(ex);
		return s;
	}
	free(parsed);
	int freetext = needs_plan_display(ex) && !st->explain && !ex->standalone;
	/* what cannot run is refused before the plan, the parsed SUQL and the counters show */
	const char *why = s == SUQL_OK && freetext ? llm_chat_problem(e->llm) : NULL;
	if (why) {
		s = err_set(err, SUQL_LLM, "%s", why);
		freetext = 0;
	}
	if (s == SUQL_OK && freetext && sink && sink->freetext)
		sink->freetext(sink->ctx);
	if (s == SUQL_OK && freetext && !e->llm)
		s = err_set(err, SUQL_LLM, "no language model client: free-text functions need one");
	if (s == SUQL_OK && freetext) {
		enum_rewrite(ex, 1);   /* literals whose mapping is stored: counted as they run */
		s = plan_statement(ex, err);
		/* ENUM literals are classified first when their calls fit the budget, and the
		   statement counted again as it will run ('affordable' becomes price IN
		   ('cheap'), not a predicate that keeps every row): the estimates and the budget
		   check are then those of the rewritten statement */
		int pend = s == SUQL_OK ? enum_pending(ex) : 0;
		if (pend > 0 && ex->set.optimize != OPT_OFF &&
		    (ex->set.budget <= 0 || pend <= ex->set.budget)) {
			s = enum_classify(ex, err);
			if (s == SUQL_OK) {
				enum_rewrite(ex, 0);
				s = plan_recount(ex, pend, err);
			}
		}
		/* the operators' plans, in the table's order (op.c): a semantic join's sides and
		   candidates; aggregates over free text read their groups now (a dry run, no
		   call) when nothing the model answers comes before them, else after the walks */
		if (s == SUQL_OK)
			s = op_plan(ex, 0, err);
		/* refused before any call when even the expected cost is over the budget (a lazy
		   walk's expected cost assumes it stops early; past the budget the cap stops it) */
		int over = ex->set.budget > 0 && ex->expect_total > ex->set.budget &&
		           ex->set.optimize != OPT_PASSAGE;
		double usd = 0;
		int over_usd = s == SUQL_OK && !over && ex->set.optimize != OPT_PASSAGE &&
		               (plan_cost_over(ex, &usd) || usd < 0);
		if (s == SUQL_OK && (over || over_usd)) {
			plan_show(ex, &ex->plan);
			report(ex, sink ? sink->plan : NULL, &ex->plan);
			s = over ? exec_over_budget(ex, err) : exec_over_budget_usd(ex, usd, err);
		}
		if (s == SUQL_OK && enum_pending(ex) > 0)
			s = enum_classify(ex, err);
		if (s == SUQL_OK) {
			enum_rewrite(ex, 0);
			if (ex->set.optimize != OPT_OFF)
				plan_exec(ex);
			plan_show(ex, &ex->plan);
			report(ex, sink ? sink->plan : NULL, &ex->plan);
		}
		/* the operators' runs in the table's order: a join's pairs, the walks (each
		   block's values read ahead), then the aggregates over what the walks kept */
		if (s == SUQL_OK && ex->set.optimize != OPT_OFF)
			s = op_run(ex, err);
	} else if (s == SUQL_OK && ex->standalone && ex->nenums > 0) {
		/* a view stores its ENUM comparisons rewritten */
		s = enum_classify(ex, err);
		if (s == SUQL_OK)
			enum_rewrite(ex, 0);
	} else if (s == SUQL_OK && st->has_suql && sink && sink->plan && st->kind == ST_SELECT) {
		/* no free text: show what SQLite runs */
		Printer *pr = print_new(PRINT_SQL, NULL, ast->src, ast->src_off);
		print_stmt(pr, st);
		sb_printf(&ex->plan, "no free text: SQLite runs\n%s\n", print_text(pr));
		print_free(pr);
		report(ex, sink->plan, &ex->plan);
	}
	if (s == SUQL_OK)
		s = exec_final_run(ex, err);
	if (s == SUQL_OK && freetext && ex->set.optimize != OPT_PASSAGE)
		exec_record_result(ex);
	if (s == SUQL_OK)
		op_record(ex);
	ex->rec->freetext = freetext;
	s = exec_budget_stopped(ex, s, err);
	s = exec_unread_report(ex, s, err);
	if (freetext && sink && sink->counters && (s == SUQL_OK || s == SUQL_LLM ||
	                                           s == SUQL_INTERRUPT)) {
		SBuf c = SBUF_INIT;
		plan_show_counters(ex, &c);
		report(ex, sink->counters, &c);
		sb_free(&c);
	}
	exec_statement_end(ex);
	return s;
}
