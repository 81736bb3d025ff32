/*
 * exec.c: one statement, from its tree to its rows (see doc/executor.md):
 *
 *   bind          blocks, names, free-text occurrences, ENUM comparisons (bind.c)
 *   look up       ENUM literals in suql_enum_map (enum.c)
 *   rewrite       each occurrence becomes a call of suql's SQL functions (bind_occ_mutate)
 *   validate      the statement is prepared once, in read-only mode under the authorizer,
 *                 so a mistake is reported at its place in the user's text before anything
 *   plan          counts and the worst case, before any call (plan.c, plan_unit.c)
 *   budget        over it: refused, no call made
 *   classify      ENUM literals not seen before (one call each), then the IN-list rewrite
 *   show the plan
 *   execute       blocks in dependency order: walk (exec_walk.c), evaluate ahead, then the
 *                 statement itself (exec_final.c), rows to the sink
 *   counters
 *
 * Naive mode (optimize off) skips the walk and everything ahead: SQLite calls the
 * functions row by row. A statement with neither free text nor an ENUM literal to classify
 * runs as it is, with nothing shown but its rows (and the SQL it became, when it used a
 * SUQL form).
 */
#include "engine/bind_int.h"
#include "engine/bm25_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/record_int.h"

#include "sql/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

char *exec_value_text(sqlite3_value *v, size_t *n)
{
	if (sqlite3_value_type(v) == SQLITE_NULL) {
		*n = 0;
		return NULL;
	}
	const char *t = (const char *)sqlite3_value_text(v);
	*n = (size_t)sqlite3_value_bytes(v);
	return xstrndup(t ? t : "", *n);
}

SuqlStatus exec_sqlerr(Exec *ex, SuqlErr *err, const char *what)
{
	if (ex->fn_err.code != SUQL_OK) {
		err_copy(err, &ex->fn_err);
		return err->code;
	}
	int rc = sqlite3_errcode(ex->db);
	if (rc == SQLITE_INTERRUPT || suql_interrupted)
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	if (what)
		return err_set(err, SUQL_ERROR, "%s (%s)", sqlite3_errmsg(ex->db), what);
	return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(ex->db));
}

void exec_strv_push(char ***v, int *n, const char *s)
{
	*v = xrealloc(*v, ((size_t)*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

SuqlStatus exec_run_sql(sqlite3 *db, const char *sql, SuqlErr *err)
{
	char *m = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &m) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "%s", m ? m : sqlite3_errmsg(db));
		sqlite3_free(m);
		return SUQL_ERROR;
	}
	return SUQL_OK;
}

/* Print sql on stderr when SUQL_TRACE_SQL is set (what SQLite is given to prepare). */
static void exec_trace(const char *sql)
{
	static int trace = -1;
	if (trace < 0)
		trace = getenv("SUQL_TRACE_SQL") != NULL;
	if (trace)
		fprintf(stderr, "suql sql: %s\n", sql);
}

SuqlStatus exec_prepare(Exec *ex, const char *sql, sqlite3_stmt **st, SuqlErr *err)
{
	*st = NULL;
	exec_trace(sql);
	if (sqlite3_prepare_v2(ex->db, sql, -1, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return exec_sqlerr(ex, err, NULL);
	}
	return SUQL_OK;
}

void exec_fail(Exec *ex, SuqlStatus st, const SuqlErr *e)
{
	if (ex->fn_err.code != SUQL_OK)
		return;
	if (e && e->msg)
		err_copy(&ex->fn_err, e);
	else
		err_set(&ex->fn_err, st, "no answer");
	ex->fn_err.code = st;
}

void exec_warn(Exec *ex, const char *msg)
{
	for (int i = 0; i < ex->nwarned; i++)
		if (strcmp(ex->warned[i], msg) == 0)
			return;
	ex->warned = xrealloc(ex->warned, ((size_t)ex->nwarned + 1) * sizeof *ex->warned);
	ex->warned[ex->nwarned++] = xstrdup(msg);
	if (ex->sink && ex->sink->warning)
		ex->sink->warning(ex->sink->ctx, msg);
}

void exec_unread(Exec *ex, int sig, const char *reply)
{
	if (ex->sigs[sig].join)   /* a join's left value: counted on the join's signature */
		sig = ex->joins[ex->sigs[sig].join - 1].sig;
	Sig *s = &ex->sigs[sig];
	s->unread++;
	ex->unread++;
	if (!s->unread_sample)
		s->unread_sample = xstrdup(reply ? reply : "");
}

/* The reply as a warning quotes it: one line, at most 60 characters. */
static char *sample_quote(const char *t)
{
	SBuf b = SBUF_INIT;
	size_t n = strlen(t), i = 0;
	for (; i < n && b.len < 57; i++)
		sb_putc(&b, t[i] == '\n' || t[i] == '\r' || t[i] == '\t' ? ' ' : t[i]);
	if (i < n)
		sb_puts(&b, "...");
	char *q = xprintf("'%s'", sb_str(&b));
	sb_free(&b);
	return q;
}

/* How the statement wrote what sig asks: the occurrence, else its question. */
static char *sig_label(Exec *ex, int sig)
{
	if (ex->sigs[sig].join)
		return plan_show_expr(ex, ex->joins[ex->sigs[sig].join - 1].orig);
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].sig == sig)
			return plan_show_expr(ex, ex->occ[i].orig);
	const Sig *s = &ex->sigs[sig];
	if (s->kind == FT_SUMMARY)
		return xstrdup("summary(...)");
	SBuf b = SBUF_INIT;
	if (s->kind == FT_EXTRACT) {
		sb_puts(&b, "extract(..., ");
		sb_put_sqlstr(&b, s->question ? s->question : "", s->question ? strlen(s->question) : 0);
		sb_putc(&b, ')');
		return sb_steal(&b);
	}
	sb_puts(&b, "answer(..., ");
	sb_put_sqlstr(&b, s->question ? s->question : "", s->question ? strlen(s->question) : 0);
	sb_putc(&b, ')');
	return sb_steal(&b);
}

/* One warning per question whose replies could not be read. */
static void warn_unread(Exec *ex)
{
	for (int i = 0; i < ex->nsigs; i++) {
		const Sig *s = &ex->sigs[i];
		if (!s->unread)
			continue;
		char *what = sig_label(ex, i), *q = sample_quote(s->unread_sample);
		int v = s->kind == FT_VERIFY;
		char *m = xprintf("%s: could not read the model's reply for %ld %s%s, even when "
		                  "asked again (one said %s): %s", what, s->unread,
		                  v ? "candidate" : "value", s->unread == 1 ? "" : "s", q,
		                  v ? "they count as unknown, and their rows are not returned"
		                    : "those values are NULL");
		exec_warn(ex, m);
		free(m);
		free(q);
		free(what);
	}
}

SuqlStatus exec_unread_report(Exec *ex, SuqlStatus s, SuqlErr *err)
{
	warn_unread(ex);
	if (s == SUQL_OK && ex->unread && llm_unreadable_fails(ex->llm))
		s = err_set(err, SUQL_LLM, "%ld of the model's replies could not be read (see the "
		            "warning): what depends on them is unknown, so rows may be missing; "
		            ":set llm.unreadable warn to only warn", ex->unread);
	return s;
}

/* An SQLite error in the user's statement, at its place in the user's text. */
SuqlStatus exec_user_error(sqlite3 *db, const Printer *pr, const char *sql, size_t len,
                           SuqlErr *err)
{
	int off = sqlite3_error_offset(db);
	char *msg = xstrdup(sqlite3_errmsg(db));   /* the lookups below run statements */
	long at = -1;
	size_t tl = 0;
	if (off >= 0 && pr && (size_t)off <= print_len(pr)) {
		size_t src = print_map(pr, (size_t)off);
		if (src < len) {
			Lexer lx;
			lex_init(&lx, sql, len, src);
			Token t = lex_next(&lx);
			tl = t.off == src ? t.len : 0;
			at = (long)src;
		}
	}
	SuqlStatus s = exec_hint_name_error(db, msg, sql, len, at, tl, err);
	free(msg);
	return s;
}

/* ---- the statement ---- */

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
	for (int i = 0; i < ex->nenums; i++)
		enum_free(&ex->enums[i]);
	free(ex->enums);
	exec_join_free(ex);
	exec_agg_free(ex);
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

SuqlStatus exec_over_budget(Exec *ex, SuqlErr *err)
{
	if (ex->expect_total < ex->worst_total)
		return err_set(err, SUQL_BUDGET, "this statement is expected to need up to %lld "
		               "LLM calls (%lld in the worst case), more than the budget of %ld; "
		               "raise it with :set budget %lld (or :set budget 0 for no limit), "
		               "or narrow the query", ex->expect_total, ex->worst_total,
		               ex->set.budget, ex->expect_total);
	return err_set(err, SUQL_BUDGET, "this statement may need up to %lld LLM calls, "
	               "more than the budget of %ld; raise it with :set budget %lld (or "
	               ":set budget 0 for no limit), or narrow the query",
	               ex->worst_total, ex->set.budget, ex->worst_total);
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

SuqlStatus exec_budget_stopped(Exec *ex, SuqlStatus s, SuqlErr *err)
{
	Engine *e = ex->e;
	if (s == SUQL_BUDGET && e->llm && llm_stats_statement(e->llm)->total.requests > 0) {
		/* the cap stopped the statement while it ran: what was spent is spent */
		const LlmCounts *t = &llm_stats_statement(e->llm)->total;
		long sent = t->requests;
		double spent = llm_cost(e->llm, (double)t->tokens_in, (double)t->tokens_out);
		err_clear(err);
		if (ex->set.budget_usd > 0 && spent >= ex->set.budget_usd &&
		    (ex->set.budget <= 0 || sent < ex->set.budget))
			return err_set(err, SUQL_LLM, "stopped at the budget of $%g (spent $%.5f in %ld "
			               "requests) before the statement was complete, so no rows are "
			               "returned; raise it with :set budget_usd DOLLARS (0 for no limit), "
			               "or narrow the query", ex->set.budget_usd, spent, sent);
		s = err_set(err, SUQL_LLM, "stopped at the budget of %ld requests to the model "
		            "(%ld made) before the statement was complete, so no rows are returned; "
		            "raise it with :set budget N (0 for no limit), or narrow the query",
		            ex->set.budget, sent);
	}
	return s;
}

Exec *exec_new(Engine *e, Ast *ast, const char *sql, size_t len, const EngineSink *sink)
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

void exec_end(Exec *ex)
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
	const EngineSink *sink = ex->sink;
	Stmt *st = ex->ast->stmt;
	st->explain = 0;
	SuqlStatus s = SUQL_OK;
	if (!ex->standalone) {
		if (!ex->e->llm)
			return err_set(err, SUQL_LLM, "no language model client: free-text functions "
			               "need one");
		s = plan_statement(ex, err);
		if (s == SUQL_OK)
			s = exec_join_plan(ex, err);
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
	sb_puts(&ex->plan, "EXPLAIN: nothing ran and no model was asked (EXPLAIN QUERY PLAN "
	        "shows SQLite's plan of the statement)\n");
	if (sink && sink->explained) {
		sink->explained(sink->ctx, "parsed", parsed);
		sink->explained(sink->ctx, "plan", sb_str(&ex->plan));
	} else if (sink && sink->plan) {
		sink->plan(sink->ctx, sb_str(&ex->plan));
	}
	return SUQL_OK;
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
	Exec *ex = exec_new(e, ast, sql, len, sink);
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
		exec_end(ex);
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
		if (s == SUQL_OK)
			s = exec_join_plan(ex, err);
		/* aggregates over free text: their groups are read now (a dry run, no call) when
		   nothing the model answers comes before them, else after the walks */
		if (s == SUQL_OK && ex->naggs && ex->nocc == 0 && ex->njoins == 0)
			s = exec_agg_plan(ex, err);
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
		if (s == SUQL_OK && ex->set.optimize != OPT_OFF)
			s = exec_join_run(ex, err);
		if (s == SUQL_OK && ex->set.optimize != OPT_OFF) {
			int *order = plan_order(ex);
			for (int i = 0; i < ex->nblocks && s == SUQL_OK; i++) {
				Block *b = &ex->blocks[order[i]];
				if (b->planned)
					s = ex->set.optimize == OPT_PASSAGE ? exec_passage_block(ex, b, err)
					                                    : exec_walk_block(ex, b, err);
				if (s == SUQL_OK && b->exec && b->core && !b->correlated)
					s = exec_final_ahead(ex, b, err);
			}
			free(order);
			if (s == SUQL_OK && ex->naggs && !ex->agg_planned) {
				s = exec_agg_plan(ex, err);
				if (s == SUQL_OK && ex->set.budget > 0 && ex->expect_total > ex->set.budget)
					s = exec_over_budget(ex, err);
			}
			if (s == SUQL_OK && ex->naggs)
				s = exec_agg_run(ex, err);
		}
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
	if (s == SUQL_OK && ex->naggs)
		exec_agg_record(ex);
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
	exec_end(ex);
	return s;
}

/* ---- statements the planner and the executor build and run ---- */

Expr *exec_and(Arena *a, Expr *l, Expr *r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	return ast_binary(a, OP_AND, l, r);
}

void exec_col(Arena *a, ResultList **l, Expr *e, const char *alias)
{
	if (!*l)
		*l = arena_alloc(a, sizeof **l);
	ResultList *r = *l;
	if (r->n == r->cap) {
		int nc = r->cap ? r->cap * 2 : 8;
		ResultCol **v = arena_alloc(a, (size_t)nc * sizeof *v);
		if (r->n)
			memcpy(v, r->items, (size_t)r->n * sizeof *v);
		r->items = v;
		r->cap = nc;
	}
	ResultCol *c = arena_alloc(a, sizeof *c);
	c->expr = e;
	if (alias)
		c->alias = ast_name_make(a, alias);
	r->items[r->n++] = c;
}

/* A SELECT over block b's FROM, with the WITH clauses in scope of the block. */
Select *exec_select(Exec *ex, Block *b, ResultList *cols, Expr *where, OrderList *order)
{
	Arena *a = ex->a;
	Select *s = arena_alloc(a, sizeof *s);
	SelectCore *c = arena_alloc(a, sizeof *c);
	c->kind = CORE_SELECT;
	c->cols = cols;
	c->from = b->core ? b->core->from : NULL;
	c->where = where;
	s->ncore = s->capcore = 1;
	s->cores = arena_alloc(a, sizeof *s->cores);
	s->cores[0] = c;
	s->ops = arena_alloc(a, sizeof *s->ops);
	s->order = order;
	if (b->nwith) {
		With *w = arena_alloc(a, sizeof *w);
		int total = 0;
		for (int i = 0; i < b->nwith; i++)
			total += b->with[i]->n;
		w->items = arena_alloc(a, (size_t)(total ? total : 1) * sizeof *w->items);
		/* outer clauses first; a name defined again further in hides the outer one */
		for (int i = 0; i < b->nwith; i++) {
			w->recursive |= b->with[i]->recursive;
			for (int k = 0; k < b->with[i]->n; k++) {
				Cte *cte = b->with[i]->items[k];
				if (cte->select == b->sel)
					continue;   /* the block's own definition */
				int hidden = 0;
				for (int j = i + 1; j < b->nwith && !hidden; j++)
					for (int m = 0; m < b->with[j]->n && !hidden; m++)
						hidden = ast_name_eq(b->with[j]->items[m]->name, cte->name);
				if (!hidden)
					w->items[w->n++] = cte;
			}
		}
		w->cap = total;
		if (w->n)
			s->with = w;
	}
	return s;
}

/* Budget phase: every block's WHERE printed relaxed (see above). */
static int relax_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (b->core && b->core->where == e && b->relaxed_set) {
			if (b->relaxed == e)
				return 0;   /* nothing to drop: printed as it is */
			if (b->relaxed)
				print_expr(pr, b->relaxed);
			else
				print_raw(pr, ex->e->pg ? "TRUE" : "1");
			return 1;
		}
	}
	return 0;
}

/* PostgreSQL: relaxed as above, and free text read from the bound values
   (exec_pg_plan_hook). */
static int pg_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	if (ex->relaxing && relax_hook(ctx, pr, e))
		return 1;
	return exec_pg_plan_hook(ctx, pr, e);
}

char *exec_print_select(Exec *ex, Select *s)
{
	if (ex->e->pg) {
		PrintHooks ph = {ex, pg_hook, exec_pg_plan_from};
		if (ex->pgb)
			ex->pgb->n = 0;
		Printer *pr = print_new(PRINT_PG, &ph, ex->ast->src, ex->ast->src_off);
		print_select(pr, s);
		char *t = print_steal(pr);
		print_free(pr);
		return t;
	}
	PrintHooks hk = {ex, relax_hook, NULL};
	Printer *pr = print_new(PRINT_SQL, ex->relaxing ? &hk : NULL, ex->ast->src,
	                        ex->ast->src_off);
	print_select(pr, s);
	char *t = print_steal(pr);
	print_free(pr);
	return t;
}

void exec_bound(Exec *ex, int on)
{
	ex->e->steps_left = on ? EXEC_COUNT_STEPS / 1000 : 0;
}

long long exec_count(Exec *ex, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (ex->e->pg) {   /* printed last by exec_print_select: its parameters are ex->pgb's */
		StoreCursor *c;
		if (exec_pg_plan_try(ex, sql, &c) == SUQL_OK) {
			if (store_next(c) > 0 && store_text(c, 0))
				n = store_integer(c, 0);
			store_done(c);
		}
		return n;
	}
	int saved = ex->counting;
	ex->counting = 1;   /* functions answer NULL without calling anything */
	exec_bound(ex, 1);
	if (sqlite3_prepare_v2(ex->db, sql, -1, &st, NULL) == SQLITE_OK) {
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		else if (rc == SQLITE_INTERRUPT && ex->e->steps_left == 0 && !suql_interrupted)
			n = EXEC_COUNT_CUT;
		sqlite3_finalize(st);
	}
	exec_bound(ex, 0);
	ex->counting = saved;
	return n;
}
