/*
 * exec.c: the engine's own SQL, at the bottom of the engine's groups (src/README.md): the
 * statements the binder, the planner, the walks and the SQL functions build, print (for
 * SQLite, or for PostgreSQL through exec_pg_plan_hook), prepare, count and run; the text
 * of an expression as the user would write it; the statement's errors and warnings (an
 * SQLite error placed in the user's text, a failure of an SQL function, replies that
 * could not be read, the budget's refusals). It reads the statement model (engine_int.h)
 * and calls nothing above it: the pipeline that runs a statement is exec_statement.c.
 */
#include "engine/sql_int.h"

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
	int rc = sqlite3_errcode(ex->e->db);
	if (rc == SQLITE_INTERRUPT || suql_interrupted)
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	if (what)
		return err_set(err, SUQL_ERROR, "%s (%s)", sqlite3_errmsg(ex->e->db), what);
	return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(ex->e->db));
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
void exec_trace(const char *sql)
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
	if (sqlite3_prepare_v2(ex->e->db, sql, -1, st, NULL) != SQLITE_OK) {
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
	if (ex->sigs[sig].unread_to)   /* a join's left value: counted on the join's signature */
		sig = ex->sigs[sig].unread_to - 1;
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
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].sig == sig)
			return exec_print_expr(ex, ex->occ[i].orig);
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
	if (s == SUQL_OK && ex->unread && llm_unreadable_fails(ex->e->llm))
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

/* ---- the budget ---- */

SuqlStatus exec_over_budget(Exec *ex, SuqlErr *err)
{
	if (ex->est.expect_total < ex->est.worst_total)
		return err_set(err, SUQL_BUDGET, "this statement is expected to need up to %lld "
		               "LLM calls (%lld in the worst case), more than the budget of %ld; "
		               "raise it with :set budget %lld (or :set budget 0 for no limit), "
		               "or narrow the query", ex->est.expect_total, ex->est.worst_total,
		               ex->set.budget, ex->est.expect_total);
	return err_set(err, SUQL_BUDGET, "this statement may need up to %lld LLM calls, "
	               "more than the budget of %ld; raise it with :set budget %lld (or "
	               ":set budget 0 for no limit), or narrow the query",
	               ex->est.worst_total, ex->set.budget, ex->est.worst_total);
}

/* A statement past its dollar cap: say by how much, and what the endpoint reported. */
static SuqlStatus passed_usd(Exec *ex, double over, double hw_in, double hw_out, int shown,
                             SuqlErr *err)
{
	const LlmCounts *t = &llm_stats_statement(ex->e->llm)->total;
	double spent = llm_stmt_usd(ex->e->llm);
	SBuf cap = SBUF_INIT, sp = SBUF_INIT, by = SBUF_INIT;
	llm_money(&cap, ex->set.budget_usd);
	llm_money(&sp, spent);
	llm_money(&by, over);
	SuqlStatus s = err_set(err, SUQL_LLM, "the statement passed its budget of %s by %s: it "
	                       "spent %s in %ld request%s, the endpoint reporting more tokens "
	                       "than suql could foresee (up to %.0f in and %.0f out a request)%s; "
	                       "raise it with :set budget_usd DOLLARS (0 for no limit), or narrow "
	                       "the query", sb_str(&cap), sb_str(&by), sb_str(&sp), t->requests,
	                       t->requests == 1 ? "" : "s", hw_in, hw_out,
	                       shown ? "" : "; no rows are returned");
	sb_free(&cap);
	sb_free(&sp);
	sb_free(&by);
	return s;
}

SuqlStatus exec_budget_passed(Exec *ex, SuqlStatus s, int shown, SuqlErr *err)
{
	if (s != SUQL_OK || !ex->e->llm)
		return s;
	double over, hw_in, hw_out;
	int which = llm_cap_passed(ex->e->llm, &over, &hw_in, &hw_out);
	if (which == LLM_CAPPED_USD)
		return passed_usd(ex, over, hw_in, hw_out, shown, err);
	if (which == LLM_CAPPED_REQUESTS)
		return err_set(err, SUQL_LLM, "the statement passed its budget of %ld requests to "
		               "the model by %.0f%s; raise it with :set budget N (0 for no limit), or "
		               "narrow the query", ex->set.budget, over,
		               shown ? "" : "; no rows are returned");
	return s;
}

SuqlStatus exec_budget_stopped(Exec *ex, SuqlStatus s, SuqlErr *err)
{
	Engine *e = ex->e;
	if (s == SUQL_BUDGET && e->llm && llm_bulk_collecting(e->llm) &&
	    llm_stats_statement(e->llm)->total.requests == 0 && !ex->refused_usd &&
	    llm_capped_by(e->llm, NULL) != LLM_CAPPED_USD) {
		/* bulk mode: the budget counts the requests of the batch, which is not sent */
		err_clear(err);
		return err_set(err, SUQL_BUDGET, "the batch would hold more than the budget of %ld "
		               "requests to the model, so it is not submitted (nothing was sent); "
		               "raise it with :set budget N (0 for no limit), or narrow the query",
		               ex->set.budget);
	}
	if (s == SUQL_BUDGET && e->llm && llm_stats_statement(e->llm)->total.requests > 0) {
		/* the cap stopped the statement while it ran: what was spent is spent */
		const LlmCounts *t = &llm_stats_statement(e->llm)->total;
		long sent = t->requests;
		double spent = llm_stmt_usd(e->llm);
		double next = 0, over, hw_in, hw_out;
		int by = llm_capped_by(e->llm, &next);
		err_clear(err);
		if (llm_cap_passed(e->llm, &over, &hw_in, &hw_out) == LLM_CAPPED_USD)
			return passed_usd(ex, over, hw_in, hw_out, 0, err);
		if (by == LLM_CAPPED_USD) {
			SBuf cap = SBUF_INIT, sp = SBUF_INIT, nx = SBUF_INIT;
			llm_money(&cap, ex->set.budget_usd);
			llm_money(&sp, spent);
			llm_money(&nx, next);
			s = err_set(err, SUQL_LLM, "stopped at the budget of %s (spent %s in %ld "
			            "request%s; the next may cost up to %s) before the statement was "
			            "complete, so no rows are returned; raise it with :set budget_usd "
			            "DOLLARS (0 for no limit), or narrow the query", sb_str(&cap),
			            sb_str(&sp), sent, sent == 1 ? "" : "s", sb_str(&nx));
			sb_free(&cap);
			sb_free(&sp);
			sb_free(&nx);
			return s;
		}
		s = err_set(err, SUQL_LLM, "stopped at the budget of %ld requests to the model "
		            "(%ld made) before the statement was complete, so no rows are returned; "
		            "raise it with :set budget N (0 for no limit), or narrow the query",
		            ex->set.budget, sent);
	}
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
int exec_relax_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (b->core && b->core->where == e && b->budget.relaxed_set) {
			if (b->budget.relaxed == e)
				return 0;   /* nothing to drop: printed as it is */
			if (b->budget.relaxed)
				print_expr(pr, b->budget.relaxed);
			else
				print_raw(pr, ex->e->dialect->true_lit);
			return 1;
		}
	}
	return 0;
}

char *exec_print_sqlite(Exec *ex, Select *s)
{
	PrintHooks hk = {ex, exec_relax_hook, NULL};
	Printer *pr = print_new(PRINT_SQL, ex->relaxing ? &hk : NULL, ex->ast->src,
	                        ex->ast->src_off);
	print_select(pr, s);
	char *t = print_steal(pr);
	print_free(pr);
	return t;
}

char *exec_print_select(Exec *ex, Select *s)
{
	return ex->e->dialect->print_select(ex, s);
}

/* SUQL text of an expression, as the user would write it (plans, warnings, the record). */
char *exec_print_expr(Exec *ex, const Expr *e)
{
	Printer *pr = print_new(PRINT_SUQL, NULL, ex->ast->src, ex->ast->src_off);
	print_expr(pr, e);
	char *s = print_steal(pr);
	print_free(pr);
	return s;
}

void exec_bound(Exec *ex, int on)
{
	ex->e->steps_left = on ? EXEC_COUNT_STEPS / 1000 : 0;
}

/* ---- running the engine's statements ---- */

SuqlStatus exec_query_sqlite(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err)
{
	exec_trace(sql);
	if (store_query(ex->e->store, sql, NULL, 0, c, NULL) != SUQL_OK)
		return exec_sqlerr(ex, err, NULL);
	return SUQL_OK;
}

SuqlStatus exec_try_sqlite(Exec *ex, const char *sql, StoreCursor **c)
{
	return store_query(ex->e->store, sql, NULL, 0, c, NULL);
}

int exec_probe_open(ExecProbe *p, Exec *ex, const char *sql)
{
	memset(p, 0, sizeof *p);
	p->ex = ex;
	p->saved = ex->counting;
	ex->counting = 1;   /* functions answer NULL without calling anything */
	exec_bound(ex, 1);
	return ex->e->dialect->try_query(ex, sql, &p->c) == SUQL_OK ? 0 : -1;
}

int exec_probe_next(ExecProbe *p)
{
	if (!p->c)
		return -1;
	int rc = store_next(p->c);
	if (rc >= 0)
		return rc;
	return p->ex->e->steps_left == 0 && !suql_interrupted ? -2 : -1;
}

void exec_probe_close(ExecProbe *p)
{
	if (p->c)
		store_done(p->c);
	p->c = NULL;
	exec_bound(p->ex, 0);
	p->ex->counting = p->saved;
}

long long exec_count(Exec *ex, const char *sql)
{
	ExecProbe p;
	long long n = -1;
	if (exec_probe_open(&p, ex, sql) == 0) {
		int rc = exec_probe_next(&p);
		if (rc > 0 && store_text(p.c, 0))
			n = store_integer(p.c, 0);
		else if (rc == -2)
			n = EXEC_COUNT_CUT;
	}
	exec_probe_close(&p);
	return n;
}

/* ---- refusals of the authorizer ---- */

SuqlStatus exec_refused(Engine *e, SuqlErr *err)
{
	if (e->own_denied) {
		SBuf b = SBUF_INIT;
		sb_put_ident(&b, e->own_denied, strlen(e->own_denied));
		SuqlStatus s = err_set(err, SUQL_ERROR, "refused: this statement would run the trigger "
		                       "%s, which the database file has on one of suql's own tables; "
		                       "suql runs no such trigger (DROP TRIGGER %s removes it)",
		                       sb_str(&b), sb_str(&b));
		sb_free(&b);
		e->own_denied = NULL;
		return s;
	}
	if (e->own_create) {
		e->own_create = 0;
		return err_set(err, SUQL_ERROR, "refused: suql's own tables (suql_*) take no "
		               "triggers: one there would run each time suql stores its data");
	}
	if (e->denied) {
		SuqlStatus s = err_set(err, SUQL_ERROR, "refused: %s holds evaluation labels, which "
		                       "statements here may not read (:labels %s off allows it)",
		                       e->denied, e->denied);
		e->denied = NULL;
		return s;
	}
	return err_set(err, SUQL_ERROR, "refused: this statement would change the database, "
	               "and statements here may only read it");
}

/* ---- blocks ---- */

Block *exec_dml_block(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++)
		if (!ex->blocks[i].core && ex->blocks[i].parent < 0)
			return &ex->blocks[i];
	return NULL;
}

int exec_once_marked(Engine *e, const char *table, const char *job, SuqlErr *err)
{
	char *sql = xprintf("SELECT 1 FROM %s WHERE job = ?1", table);
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
