/*
 * exec_statement.c: one statement, from its tree to its rows (see doc/executor.md), on
 * either backend, at the top of the engine's groups (src/README.md): it calls every phase
 * below it in turn, and asks the backend's row of the driver's table (top_int.h,
 * exec_sqlite.c, exec_pg.c) for what the backends do differently:
 *
 *   bind          blocks, names, free-text occurrences, the operators' constructs
 *                 (bind.c, through the operator table's bind entries)
 *   prepare       what the operators learn without a call (ENUM: its literals' stored
 *                 mappings)
 *   rewrite       each occurrence becomes a call of suql's SQL functions (bind_occ_mutate)
 *   refuse        what the operator table says the backend cannot run (op.c)
 *   check         the backend's: the statement as written judged (SQLite prepares it in
 *                 read-only mode under the authorizer; the server plans it), so a mistake
 *                 is reported at its place in the user's text before anything
 *   begin         the backend's transaction, if any (PostgreSQL: one snapshot)
 *   plan          counts and the worst case, before any call (plan.c, plan_unit.c), then
 *                 each operator's plan (the operator table, op.c: joins, aggregates)
 *   budget        over it: refused, no call made
 *   settle        what the operators settle first (ENUM literals not seen before, one call
 *                 each), then their rewrite (the IN lists)
 *   show the plan
 *   execute       each operator's run in the table's order: a join's pairs, the walks of
 *                 the blocks in dependency order (exec_walk.c) with their values read
 *                 ahead, the aggregates; then the backend's final run of the statement
 *                 itself, rows to the sink, and the record's reading of them
 *   end           the transaction committed, or rolled back on a failure
 *   counters
 *
 * Naive mode (optimize off) skips the walk and everything ahead: SQLite calls the
 * functions row by row. A statement with neither free text nor an ENUM literal to classify
 * runs as it is, with nothing shown but its rows (and the SQL it became, when it used a
 * SUQL form).
 *
 * The engine's own statements, and the errors and warnings every phase reports, are
 * exec.c's, at the bottom; exec_statement_begin and exec_statement_end make and free the
 * Exec.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int asked(const Exec *ex);

static void exec_free(Exec *ex, const Backend *be)
{
	if (be->free)   /* the backend's own state (a temp table, PostgreSQL's parameters) */
		be->free(ex);
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
		free(b->budget.count);
		free(b->kept.ids);
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
	sqlite3_finalize(ex->ready);
	memo_free(ex->memo);
	sb_free(&ex->plan);
	err_clear(&ex->fn_err);
	for (int i = 0; i < ex->nwarned; i++)
		free(ex->warned[i]);
	free(ex->warned);
	for (int i = 0; i < ex->cols.n; i++)
		free(ex->cols.names[i]);
	free(ex->cols.names);
	free(ex->cols.list);
	free(ex->est.texts);
	bind_view_free(ex);
	free(ex);
}

/* Whether suql has a part in the statement: free text, or an operator's construct of its
   own (ENUM literals, a semantic join, an aggregate over free text). */
static int needs_plan_display(const Exec *ex)
{
	return ex->nocc > 0 || op_constructs(ex);
}

static void report(Exec *ex, void (*fn)(void *, const char *), SBuf *b)
{
	if (fn && b->len)
		fn(ex->sink->ctx, sb_str(b));
}

/* budget_usd: the expected cost is over it (usd), or there is no price to compare (usd < 0) */
static SuqlStatus exec_over_budget_usd(Exec *ex, double usd, SuqlErr *err)
{
	ex->refused_usd = 1;   /* (not a batch's lines over the request budget) */
	if (usd < 0)
		return err_set(err, SUQL_BUDGET, "budget_usd is set, but there is no price for %s: "
		               ":set llm.price_in and llm.price_out (dollars a million tokens), or "
		               ":set budget_usd 0", llm_model(ex->e->llm) ? llm_model(ex->e->llm) : "the model");
	SBuf b = SBUF_INIT, cap = SBUF_INIT;
	plan_cost_words(ex, &b);
	llm_money(&cap, ex->set.budget_usd);
	SuqlStatus s = err_set(err, SUQL_BUDGET, "this statement is expected to cost %s, more "
	                       "than the budget of %s; raise it with :set budget_usd DOLLARS (0 "
	                       "for no limit), or narrow the query", sb_str(&b), sb_str(&cap));
	sb_free(&b);
	sb_free(&cap);
	return s;
}

/* A statement's Exec (its memo, counters and the model's statement counters begun, the
   budget set as the model's cap, the running statement of the engine), and its end
   (exec_statement_end: the cap lifted, the statement before it running again, the Exec
   freed). */
static Exec *exec_statement_begin(Engine *e, Ast *ast, const char *sql, size_t len, const EngineSink *sink)
{
	Exec *ex = xcalloc(1, sizeof *ex);
	ex->e = e;
	ex->e->db = e->db;
	ex->e->llm = e->llm;
	ex->ast = ast;
	ex->a = ast->arena;
	ex->sql = sql;
	ex->len = len;
	ex->user_len = len;
	ex->set = e->set;
	ex->sink = sink;
	ex->memo = memo_new();
	exec_record_begin(ex);
	ex->cnt.t0 = util_now_ms();
	e->seq++;
	if (e->llm) {
		if (!e->cur)   /* the request log: what the statement asks is logged as its own */
			llm_log_begin(e->llm, ast->src);
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

static void exec_statement_end(Exec *ex, const Backend *be)
{
	exec_record_end(ex, ex->outer == NULL);   /* the outermost statement's record is kept */
	if (ex->e->llm) {
		llm_set_cap(ex->e->llm, 0);
		llm_set_cap_usd(ex->e->llm, 0);
		if (!ex->outer)
			llm_log_end(ex->e->llm);   /* its rows written, in one transaction */
	}
	ex->e->cur = ex->outer;
	exec_free(ex, be);
}

/* An EXPLAIN's answer: ex->plan with a last line saying nothing ran (and what `other`
   shows instead), handed to the sink with the statement as parsed. */
static void explained(Exec *ex, const char *parsed, const char *other)
{
	const EngineSink *sink = ex->sink;
	sb_printf(&ex->plan, "EXPLAIN: nothing ran and no model was asked (%s)\n", other);
	if (sink && sink->explained && sink->explain_json) {
		SBuf j = SBUF_INIT;
		plan_show_json(ex, parsed, &j);
		sink->explained(sink->ctx, "json", sb_str(&j));
		sb_free(&j);
	} else if (sink && sink->explained) {
		sink->explained(sink->ctx, "parsed", parsed);
		sink->explained(sink->ctx, "plan", sb_str(&ex->plan));
	} else if (sink && sink->plan) {
		sink->plan(sink->ctx, sb_str(&ex->plan));
	}
}

/* EXPLAIN of a statement with free text, ENUM literals or a semantic join: the statement
   as suql reads it and its plan with the estimate, made as for running it (st->explain
   was cleared before the check) but stopped before the first model call; nothing runs,
   no row comes. */
static SuqlStatus explain_only(Exec *ex, const Backend *be, const char *parsed, SuqlErr *err)
{
	Stmt *st = ex->ast->stmt;
	SuqlStatus s = SUQL_OK;
	if (!ex->standalone) {
		if (!ex->e->llm)
			return err_set(err, SUQL_LLM, "no language model client: free-text functions "
			               "need one");
		s = plan_statement(ex, err);
		if (s == SUQL_OK)   /* (an aggregate's dry run reads rows: not here) */
			s = op_plan(ex, 1, err);
		const char *why = s == SUQL_OK ? op_refusal(ex, ex->e->dialect) : NULL;
		if (why)
			return be->refused(ex, why, err);
		if (s == SUQL_OK && ex->set.optimize != OPT_OFF && op_pending(ex) == 0)
			plan_exec(ex);
		if (s == SUQL_OK)
			plan_show(ex, &ex->plan);
	} else {
		Printer *pr = print_new(be->print, NULL, ex->ast->src, ex->ast->src_off);
		print_stmt(pr, st);
		sb_printf(&ex->plan, "a view: its ENUM comparisons are classified when it is "
		          "created; %s runs\n%s\n", be->name, print_text(pr));
		print_free(pr);
	}
	if (s != SUQL_OK)
		return s;
	explained(ex, parsed, be->explain_other);
	return SUQL_OK;
}

int exec_statement_bound(const Stmt *st)
{
	switch (st->kind) {
	case ST_SELECT:
	case ST_INSERT:
	case ST_UPDATE:
	case ST_DELETE:
	case ST_CREATE_VIEW:
		return 1;
	case ST_CREATE_TABLE:
		return st->select != NULL;
	default:
		return 0;
	}
}

/* The planned statement: what the operators settle first (ENUM literals), the plan and
   its budget, the operators' runs; then the statement runs (exec_statement). */
static SuqlStatus planned(Exec *ex, const Backend *be, SuqlErr *err)
{
	const EngineSink *sink = ex->sink;
	op_rewrite(ex, 1);   /* ENUM literals whose mapping is stored: counted as they run */
	SuqlStatus s = plan_statement(ex, err);
	/* what an operator must settle before the statement reads as it will run (ENUM
	   literals to classify) is settled first when its calls fit the budget, and the
	   statement counted again as it will run ('affordable' becomes price IN ('cheap'),
	   not a predicate that keeps every row): the estimates and the budget check are then
	   those of the rewritten statement */
	long pend = s == SUQL_OK ? op_pending(ex) : 0;
	if (pend > 0 && ex->set.optimize != OPT_OFF &&
	    (ex->set.budget <= 0 || pend <= ex->set.budget)) {
		s = op_settle(ex, err);
		if (s == SUQL_OK) {
			op_rewrite(ex, 0);
			s = plan_recount(ex, (int)pend, err);
		}
	}
	/* the operators' plans, in the table's order (op.c): a semantic join's sides and
	   candidates; aggregates over free text read their groups now (a dry run, no call)
	   when nothing the model answers comes before them, else after the walks */
	if (s == SUQL_OK)
		s = op_plan(ex, 0, err);
	/* what the operator table refuses once planned (free text a backend could only
	   evaluate row by row) is refused before any call */
	const char *why = s == SUQL_OK ? op_refusal(ex, ex->e->dialect) : NULL;
	if (why)
		return be->refused(ex, why, err);
	/* refused before any call when even the expected cost is over the budget (a lazy
	   walk's expected cost assumes it stops early; past the budget the cap stops it) */
	int over = ex->set.budget > 0 && ex->est.expect_total > ex->set.budget &&
	           ex->set.optimize != OPT_PASSAGE;
	double usd = 0;
	int over_usd = s == SUQL_OK && !over && ex->set.optimize != OPT_PASSAGE &&
	               (plan_cost_over(ex, &usd) || usd < 0);
	if (s == SUQL_OK && (over || over_usd)) {
		plan_show(ex, &ex->plan);
		report(ex, sink ? sink->plan : NULL, &ex->plan);
		return over ? exec_over_budget(ex, err) : exec_over_budget_usd(ex, usd, err);
	}
	if (s == SUQL_OK && op_pending(ex) > 0)
		s = op_settle(ex, err);
	if (s != SUQL_OK)
		return s;
	op_rewrite(ex, 0);
	if (ex->set.optimize != OPT_OFF)
		plan_exec(ex);
	plan_show(ex, &ex->plan);
	report(ex, sink ? sink->plan : NULL, &ex->plan);
	/* the operators' runs in the table's order: a join's pairs, the walks (each block's
	   values read ahead), then the aggregates over what the walks kept */
	if (ex->set.optimize != OPT_OFF || !ex->e->dialect->functions)
		s = op_run(ex, err);   /* (naive mode there: its values ahead, one a call) */
	return s;
}

/* Whether the statement asked the model anything (a request, or an answer from the
   cache). */
static int asked(const Exec *ex)
{
	const LlmStats *ls = ex->e->llm ? llm_stats_statement(ex->e->llm) : NULL;
	return ls && (ls->total.calls > 0 || ls->total.cache_hits > 0);
}

SuqlStatus exec_statement(Engine *e, const Backend *be, Ast *ast, const char *sql, size_t len,
                          const EngineSink *sink, SuqlErr *err)
{
	Stmt *st = ast->stmt;
	/* EXPLAIN of a statement suql plans shows suql's plan (its statement as written,
	   before the binder's rewrite, kept for it); EXPLAIN QUERY PLAN shows the backend's
	   own where the backend calls suql's functions itself */
	char *parsed = NULL;
	int x = st->explain;
	if (x == 1 || (x && !e->dialect->functions)) {
		st->explain = 0;
		parsed = print_suql_stmt(ast);
		st->explain = x;
	}
	Exec *ex = exec_statement_begin(e, ast, sql, len, sink);
	SuqlStatus s = SUQL_OK;
	if (exec_statement_bound(st)) {
		s = bind_view_expand(ex, err);   /* views of suql's become subqueries */
		if (s == SUQL_OK)
			s = bind_statement(ex, err);
		if (s == SUQL_OK)   /* what the operators learn without a call (ENUM's mappings) */
			s = op_prepare(ex, err);
		if (s == SUQL_OK)
			bind_occ_mutate(ex);
	}
	int keepview = s == SUQL_OK && engine_ddl_view_keeps(ex);
	int suql = needs_plan_display(ex);
	int explain = s == SUQL_OK && suql && parsed;
	/* what the operator table refuses of the statement as written is refused first */
	const char *why = s == SUQL_OK && suql ? op_refusal(ex, e->dialect) : NULL;
	if (why)
		s = be->refused(ex, why, err);
	if (explain)
		st->explain = 0;   /* what is checked and planned is the statement explained */
	if (s == SUQL_OK)
		s = be->check(ex, suql, explain, err);
	int freetext = suql && !x && !ex->standalone;
	/* what cannot run is refused before the plan, the parsed SUQL and the counters show */
	why = s == SUQL_OK && freetext ? llm_chat_problem(e->llm) : NULL;
	if (why) {
		s = err_set(err, SUQL_LLM, "%s", why);
		freetext = 0;
	}
	if (s == SUQL_OK && freetext && sink && sink->freetext)
		sink->freetext(sink->ctx);
	if (s == SUQL_OK && freetext && !e->llm)
		s = err_set(err, SUQL_LLM, "no language model client: free-text functions need one");
	int began = 0;
	if (s == SUQL_OK && be->begin)
		s = be->begin(ex, freetext || explain, &began, err);
	if (s == SUQL_OK && explain) {
		s = explain_only(ex, be, parsed, err);
		freetext = 0;
	} else if (s == SUQL_OK && freetext) {
		s = planned(ex, be, err);
	} else if (s == SUQL_OK && ex->standalone && op_rewrites(ex)) {
		/* a view stores its ENUM comparisons rewritten */
		s = op_settle(ex, err);
		if (s == SUQL_OK)
			op_rewrite(ex, 0);
	} else if (s == SUQL_OK && st->has_suql && sink && sink->plan && st->kind == ST_SELECT) {
		/* no free text: show what the backend runs */
		Printer *pr = print_new(be->print, NULL, ast->src, ast->src_off);
		print_stmt(pr, st);
		sb_printf(&ex->plan, "no free text: %s runs\n%s\n", be->name, print_text(pr));
		print_free(pr);
		report(ex, sink->plan, &ex->plan);
	}
	free(parsed);
	/* a spend past a cap (an endpoint reporting more than any bound) stops the statement
	   before its rows, and after them when the final statement asked too */
	if (freetext)
		s = exec_budget_passed(ex, s, 0, err);
	if (s == SUQL_OK && !explain && keepview)
		s = engine_ddl_view(ex, be, err);   /* kept in suql's catalog, and expanded */
	else if (s == SUQL_OK && !explain)
		s = be->final(ex, freetext, err);
	if (freetext || asked(ex))
		s = exec_budget_passed(ex, s, !explain, err);
	if (s == SUQL_OK && freetext && ex->set.optimize != OPT_PASSAGE)
		be->record(ex);
	if (s == SUQL_OK && !explain)
		op_record(ex);
	if (began)
		s = be->end(ex, s, err);
	ex->rec->freetext = freetext;
	s = exec_budget_stopped(ex, s, err);
	s = exec_unread_report(ex, s, err);
	/* the counters of a statement with free text, and of any other that asked the model
	   (free text it reads through a view, which suql's functions asked as
	   SQLite read each row: nothing planned it, but what went over the wire is shown) */
	int unplanned = !freetext && !ex->standalone && asked(ex);
	if ((freetext || unplanned) && sink && sink->counters &&
	    (s == SUQL_OK || s == SUQL_LLM || s == SUQL_INTERRUPT)) {
		SBuf c = SBUF_INIT;
		if (unplanned)
			sb_puts(&c, "free text the statement reads through a view: asked by "
			        "suql's functions as each row was read, not planned\n");
		plan_show_counters(ex, &c);
		report(ex, sink->counters, &c);
		sb_free(&c);
	}
	if (s != SUQL_OK)   /* a place in a view's text is said there */
		bind_view_error(ex, err);
	exec_statement_end(ex, be);
	return s;
}
