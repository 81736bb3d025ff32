/*
 * exec_pg_walk.c: a free-text SELECT on PostgreSQL in three steps (exec_pg.c has the
 * overview; doc/postgres.md the design): the candidate statement and the final one,
 * printed PRINT_PG with a hook that leaves the atoms out, or puts the verified rows in
 * their place (key = ANY($1), or ctid: bind_scope.c says which); the ranking by Postgres
 * full-text search; and the walk
 * over the candidates, in waves sized as the SQLite walk sizes them; and the record
 * (:why) of the walk and of the rows returned, kept by exec_record.c's functions.
 */
#include "engine/exec_int.h"
#include "engine/record_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int atom_at(const PgWalk *w, const Expr *e)
{
	for (int k = 0; k < w->natoms; k++)
		if (*w->ex->occ[w->atoms[k]].slot == e)
			return k;
	return -1;
}

/* The identity of a row of every FROM item: its key, else its ctid (several items: their
   identities as text, joined by ','). */
static void pr_key(PgWalk *w, Printer *pr)
{
	Block *b = w->b;
	for (int i = 0; i < b->nitems; i++) {
		if (i)
			print_raw(pr, " || ',' || ");
		Expr *c = ast_column(w->ex->a, b->items[i].name, exec_pg_plan_identity(&b->items[i]));
		print_expr(pr, c);
		if (b->nitems > 1)
			print_raw(pr, "::text");
	}
}

/* The type of the array the final statement's verified rows are bound as. */
static const char *key_array(const PgWalk *w)
{
	return w->b->nitems > 1 ? "text[]" : w->b->items[0].rowkey ? "bigint[]" : "tid[]";
}

static void pr_text(PgWalk *w, Printer *pr, int k)
{
	exec_pg_plan_print_text(pr, w->ex->occ[w->atoms[k]].arg);
}

/* Ranking: the first atom's text against its question's words (any of them), as Postgres
   full-text search has it: ts_rank_cd (rank) or @@ (match). The text is suql.doc(arg),
   the expression the GIN index of :index holds, when that function exists; else the
   JSON of the value (its strings, for a text[] as for a text). */
static void pr_rank(PgWalk *w, Printer *pr, int rank)
{
	const Occ *o = &w->ex->occ[w->atoms[0]];
	print_raw(pr, rank ? "ts_rank_cd(" : "(");
	print_raw(pr, w->doc_fn ? "to_tsvector('english'::regconfig, suql.doc(" :
	                          "to_tsvector('english'::regconfig, to_json(");
	print_expr(pr, o->arg);
	print_raw(pr, rank ? ")), " : ")) @@ ");
	print_raw(pr, "replace(websearch_to_tsquery('english'::regconfig, ");
	Expr *q = ast_string(w->ex->a, w->ex->sigs[o->sig].question);
	print_expr(pr, q);
	print_raw(pr, ")::text, ' & ', ' | ')::tsquery)");
}

/* Printing hook: the WHERE without its atoms (candidates), or with them replaced by the
   verified rows (final). */
static int pg_hook(void *ctx, Printer *pr, const Expr *e)
{
	PgWalk *w = ctx;
	if (e == w->keyx) {
		pr_key(w, pr);
		return 1;
	}
	if (e == w->lenx) {
		print_raw(pr, "length(");
		pr_text(w, pr, w->lenk);
		print_raw(pr, ")");
		return 1;
	}
	for (int k = 0; k < w->nrec; k++)
		if (e == w->recx[k]) {
			exec_pg_plan_print_text(pr, w->ex->occ[w->recocc[k]].arg);
			return 1;
		}
	if (e == w->rankx || e == w->matchx) {
		pr_rank(w, pr, e == w->rankx);
		return 1;
	}
	for (int k = 0; k < w->natoms && w->argx; k++) {
		if (e != w->argx[k])
			continue;
		pr_text(w, pr, k);
		return 1;
	}
	for (int k = 0; k < w->nproj && w->final; k++)
		if (e == *w->ex->occ[w->proj[k].occ].slot) {
			exec_pg_plan_print_text(pr, w->ex->occ[w->proj[k].occ].arg);
			return 1;
		}
	if (!w->b->core || e != w->b->core->where || w->natoms == 0)
		return 0;
	int first = 1;
	for (int i = 0; i < w->nconj; i++) {
		if (atom_at(w, *w->conj[i]) >= 0)
			continue;
		print_raw(pr, first ? "(" : " AND (");
		print_expr(pr, *w->conj[i]);
		print_raw(pr, ")");
		first = 0;
	}
	if (w->final) {
		print_raw(pr, first ? "" : " AND ");
		pr_key(w, pr);
		print_raw(pr, " = ANY($1::");
		print_raw(pr, key_array(w));
		print_raw(pr, ")");
		first = 0;
	}
	if (first)
		print_raw(pr, "TRUE");
	return 1;
}

static char *print_pg(PgWalk *w, void (*fn)(Printer *, PgWalk *))
{
	PrintHooks hk = {w, pg_hook, NULL};
	Printer *pr = print_new(PRINT_PG, &hk, w->ex->ast->src, w->ex->ast->src_off);
	fn(pr, w);
	char *t = print_steal(pr);
	print_free(pr);
	return t;
}

static void pr_final(Printer *pr, PgWalk *w)
{
	print_stmt(pr, w->ex->ast->stmt);
}

/* The candidate statement: SELECT key, texts FROM ... WHERE <structured> [ORDER BY ...],
   its result columns placeholders that pg_hook prints. */
static void pr_cand(Printer *pr, PgWalk *w)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	w->keyx = ast_null(ex->a);
	exec_col(ex->a, &cols, w->keyx, NULL);
	w->argx = xcalloc((size_t)w->natoms + 1, sizeof *w->argx);
	for (int k = 0; k < w->natoms; k++) {
		w->argx[k] = ast_null(ex->a);
		exec_col(ex->a, &cols, w->argx[k], NULL);
	}
	/* ties of the ORDER BY in the order of the rows in the table (key or ctid), as SQLite's
	   candidates come in rowid order: both backends ask about the same candidates */
	if (w->share) {
		w->matchx = ast_null(ex->a);
		exec_col(ex->a, &cols, w->matchx, NULL);
	}
	Select *sel = ex->ast->stmt->select;
	OrderList *ord = NULL;
	if (w->ranked) {
		ord = arena_alloc(ex->a, sizeof *ord);
		ord->cap = 1 + w->b->nitems;
		ord->items = arena_alloc(ex->a, (size_t)ord->cap * sizeof *ord->items);
		OrderTerm *t = arena_alloc(ex->a, sizeof *t);
		w->rankx = ast_null(ex->a);
		t->expr = w->rankx;
		t->dir = SORT_DESC;
		ord->items[ord->n++] = t;
		for (int i = 0; i < w->b->nitems; i++) {
			t = arena_alloc(ex->a, sizeof *t);
			t->expr = ast_column(ex->a, w->b->items[i].name,
			                     exec_pg_plan_identity(&w->b->items[i]));
			ord->items[ord->n++] = t;
		}
	} else if (w->ordered) {
		ord = arena_alloc(ex->a, sizeof *ord);
		ord->cap = sel->order->n + w->b->nitems;
		ord->items = arena_alloc(ex->a, (size_t)ord->cap * sizeof *ord->items);
		for (int i = 0; i < sel->order->n; i++)
			ord->items[ord->n++] = sel->order->items[i];
		for (int i = 0; i < w->b->nitems; i++) {
			OrderTerm *t = arena_alloc(ex->a, sizeof *t);
			t->expr = ast_column(ex->a, w->b->items[i].name,
			                     exec_pg_plan_identity(&w->b->items[i]));
			ord->items[ord->n++] = t;
		}
	}
	print_select(pr, exec_select(ex, w->b, cols, w->b->core->where, ord));
}

/* LIMIT + OFFSET when the walk may stop early: literal integers, no aggregate. */
static long long pg_need(PgWalk *w)
{
	const Select *sel = w->ex->ast->stmt->select;
	if (!sel->limit || w->b->aggregate)
		return -1;
	if (sel->limit->kind != EX_LITERAL || sel->limit->lit != LIT_INTEGER)
		return -1;
	long long n = strtoll(ast_name_value(w->ex->a, sel->limit->name), NULL, 10);
	if (sel->offset) {
		if (sel->offset->kind != EX_LITERAL || sel->offset->lit != LIT_INTEGER)
			return -1;
		n += strtoll(ast_name_value(w->ex->a, sel->offset->name), NULL, 10);
	}
	return n;
}

/* ---- the walk ---- */

static Tri pg_eval(PgWalk *w, long long c, int *next)
{
	int unknown = 0;
	*next = -1;
	for (int k = 0; k < w->natoms; k++) {
		signed char v = w->atomv[c * w->natoms + k];
		if (v == VERDICT_NO)
			return TRI_FALSE;
		if (v == VERDICT_NULL)
			unknown = 1;
		if (v == VERDICT_UNASKED && *next < 0)
			*next = k;
	}
	if (*next >= 0)
		return TRI_UNDECIDED;
	return unknown ? TRI_NULL : TRI_TRUE;
}

static void pg_decide(PgWalk *w, long long c)
{
	int next;
	if (w->state[c] != CAND_UNDECIDED)
		return;
	Tri v = pg_eval(w, c, &next);
	if (v == TRI_UNDECIDED)
		return;
	w->state[c] = v == TRI_TRUE ? CAND_PASSED : v == TRI_NULL ? CAND_NULL : CAND_FAILED;
	w->ndecided++;
	w->passes += v == TRI_TRUE;
}

static long long pg_have(const PgWalk *w)
{
	return w->ordered ? w->front_pass : w->passes;
}

static int pg_enough(PgWalk *w)
{
	while (w->front < w->n && w->state[w->front] != CAND_UNDECIDED)
		w->front_pass += w->state[w->front++] == CAND_PASSED;
	return w->need >= 0 && pg_have(w) >= w->need;
}

static int pg_done(void *ctx, Req *r, const MemoVal *mv)
{
	PgWalk *w = ctx;
	w->atomv[(long long)r->tag * w->natoms + r->tag2] = (signed char)mv->verdict;
	w->busy[r->tag] = 0;
	pg_decide(w, r->tag);
	return pg_enough(w);
}

/* The waves: the same sizing as the SQLite walk (plan_cost_wave_size), candidates in the
   order Postgres returned them. */
static SuqlStatus pg_waves(PgWalk *w, double prior, SuqlErr *err)
{
	Exec *ex = w->ex;
	long long maxwave = plan_max_wave(ex);
	long long seen_dec = 0, seen_pass = 0;
	int first_wave = 1;
	SuqlStatus st = SUQL_OK;
	for (;;) {
		if (suql_interrupted)
			return err_set(err, SUQL_INTERRUPT, "interrupted");
		if (pg_enough(w) || w->front >= w->n)
			break;
		long long want = plan_cost_wave_size(w->need < 0 ? -1 : w->need - pg_have(w),
		                                     seen_pass, seen_dec, prior, maxwave,
		                                     w->ranked && first_wave);
		first_wave = 0;
		Req *reqs = xcalloc((size_t)want, sizeof *reqs);
		int nreq = 0;
		long long progress = 0;
		for (long long c = w->front; c < w->n && nreq < want; c++) {
			if (w->state[c] != CAND_UNDECIDED || w->busy[c])
				continue;
			for (;;) {
				int k;
				if (pg_eval(w, c, &k) != TRI_UNDECIDED) {
					pg_decide(w, c);
					progress++;
					break;
				}
				const Occ *o = &ex->occ[w->atoms[k]];
				const char *val = w->vals[c * w->natoms + k];
				if (!val) {
					w->atomv[c * w->natoms + k] = VERDICT_NULL;   /* NULL text: unknown */
					continue;
				}
				MemoVal *mv = memo_get(ex->memo, o->sig, val, strlen(val));
				if (mv) {
					w->atomv[c * w->natoms + k] = (signed char)mv->verdict;
					continue;
				}
				Req *r = &reqs[nreq++];
				r->sig = o->sig;
				r->v = val;
				r->n = strlen(val);
				r->tag = (int)c;
				r->tag2 = k;
				w->busy[c] = 1;
				break;
			}
		}
		long long pass0 = w->passes, dec0 = w->ndecided;
		if (nreq > 0) {
			st = exec_llm_run(ex, reqs, nreq, pg_done, w, err);
			for (int i = 0; i < nreq; i++)
				if (reqs[i].state == REQ_CANCELLED)
					w->busy[reqs[i].tag] = 0;
		}
		seen_dec += w->ndecided - dec0;
		seen_pass += w->passes - pass0;
		free(reqs);
		if (st != SUQL_OK || (nreq == 0 && progress == 0))
			break;
	}
	return st;
}

static SuqlStatus pg_load(PgWalk *w, const char *sql, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(w->ex->e->store, sql, NULL, 0, &c, err);
	if (s != SUQL_OK)
		return s;
	long long cap = 0;
	while (store_next(c) > 0) {
		if (w->n == cap) {
			cap = cap ? cap * 2 : 64;
			w->keys = xrealloc(w->keys, (size_t)cap * sizeof *w->keys);
			w->vals = xrealloc(w->vals, (size_t)cap * (size_t)w->natoms * sizeof *w->vals);
		}
		const char *k = store_text(c, 0);
		w->keys[w->n] = xstrdup(k ? k : "");
		for (int i = 0; i < w->natoms; i++)
			w->vals[w->n * w->natoms + i] = xstrdup_or_null(store_text(c, 1 + i));
		if (w->share)
			w->matches += store_integer(c, 1 + w->natoms);
		w->n++;
	}
	store_done(c);
	size_t n1 = (size_t)w->n + 1;
	w->atomv = xmalloc(n1 * ((size_t)w->natoms + 1));
	memset(w->atomv, VERDICT_UNASKED, n1 * ((size_t)w->natoms + 1));
	w->state = xmalloc(n1);
	memset(w->state, CAND_UNDECIDED, n1);
	w->busy = xcalloc(n1, 1);
	return SUQL_OK;
}

void exec_pg_walk_free(PgWalk *w)
{
	for (long long i = 0; i < w->n; i++) {
		free(w->keys[i]);
		for (int k = 0; k < w->natoms; k++)
			free(w->vals[i * w->natoms + k]);
	}
	free(w->keys);
	free(w->vals);
	free(w->atomv);
	free(w->state);
	free(w->busy);
	free(w->conj);
	free(w->atoms);
	free(w->argx);
	for (int k = 0; k < w->nproj; k++)
		free(w->proj[k].shown);
	free(w->proj);
}

/* The verified rows as a Postgres array literal, the value of $1: {"(0,1)","(3,7)"}. */
static char *pg_array(PgWalk *w, long long *count)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '{');
	*count = 0;
	for (long long c = 0; c < w->n; c++) {
		if (w->state[c] != CAND_PASSED)
			continue;
		if ((*count)++)
			sb_putc(&b, ',');
		sb_putc(&b, '"');
		for (const char *p = w->keys[c]; *p; p++) {
			if (*p == '"' || *p == '\\')
				sb_putc(&b, '\\');
			sb_putc(&b, *p);
		}
		sb_putc(&b, '"');
	}
	sb_putc(&b, '}');
	return sb_steal(&b);
}

static void pr_len(Printer *pr, PgWalk *w)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	w->lenx = ast_null(ex->a);
	exec_col(ex->a, &cols, w->lenx, NULL);
	Select *s = exec_select(ex, w->b, cols, NULL, NULL);
	s->limit = ast_integer(ex->a, 32);
	print_select(pr, s);
}

/* ---- the record (record_int.h) ---- */

/* The record's second reading of the rows returned: the final statement (the verified
   rows as $1, its ORDER BY, LIMIT and OFFSET) with each row's key and the texts its free
   text read as more columns, in the statement's snapshot. */
static void pr_rec_rows(Printer *pr, PgWalk *w)
{
	Exec *ex = w->ex;
	const Select *sel = ex->ast->stmt->select;
	ResultList *cols = NULL;
	for (int i = 0; i < w->b->core->cols->n; i++) {
		exec_col(ex->a, &cols, NULL, NULL);
		*cols->items[i] = *w->b->core->cols->items[i];
	}
	for (int i = 0; i < w->b->nitems; i++) {   /* as exec_record.c knows the rows */
		char al[32];
		snprintf(al, sizeof al, "suql_rid%d", i);
		exec_col(ex->a, &cols, ast_column(ex->a, w->b->items[i].name,
		                                  exec_record_pg_key(w->b, i)), al);
	}
	for (int k = 0; k < w->nrec; k++) {
		char al[32];
		snprintf(al, sizeof al, "suql_rarg%d", k + 1);
		exec_col(ex->a, &cols, w->recx[k], al);
	}
	Select *s = exec_select(ex, w->b, cols, w->b->core->where, sel->order);
	s->limit = sel->limit;
	s->offset = sel->offset;
	print_select(pr, s);
}

/* The walk's candidates into the record, and the rows of the final statement (params:
   its parameters) read again, tied to the asks their values came from. */
static void pg_record(PgWalk *w, const char *const *params, int nparams)
{
	Exec *ex = w->ex;
	if (!ex->rec)
		return;
	int identity = w->b->nitems > 0;   /* the three steps read tables only */
	for (int i = 0; i < w->b->nitems; i++)
		identity &= w->b->items[i].kind == IT_TABLE;
	w->b->identity = identity;
	exec_record_pg_walk(w);
	Block *top;
	int nv = 0;
	int *occs = exec_record_pg_rows_begin(ex, &top, &nv);
	if (!top)
		return;
	int traced = top == w->b && w->b->core && w->b->core->cols;
	w->nrec = nv;
	w->recocc = occs;
	w->recx = xcalloc((size_t)nv + 1, sizeof *w->recx);
	for (int k = 0; k < nv; k++)
		w->recx[k] = ast_null(ex->a);
	char *sql = traced ? print_pg(w, pr_rec_rows) : NULL;
	exec_record_pg_rows(ex, occs, sql, params, nparams);
	free(sql);
	free(w->recx);
	w->recx = NULL;
	w->nrec = 0;
	w->recocc = NULL;
}

/* Several atoms: tried cheapest first, as the SQLite planner orders them (plan.c,
   order_atoms): by the average length in tokens of the first 32 texts of the FROM, an
   estimate of selectivity of one half for each (Postgres gives no retrieval index's
   share of matches here). */
static void pg_order_atoms(PgWalk *w)
{
	Exec *ex = w->ex;
	if (w->natoms < 2)
		return;
	double *key = xmalloc((size_t)w->natoms * sizeof *key);
	for (int k = 0; k < w->natoms; k++) {
		w->lenk = k;
		char *sql = print_pg(w, pr_len);
		StoreCursor *c;
		double sum = 0;
		int n = 0;
		if (store_query(ex->e->store, sql, NULL, 0, &c, NULL) == SUQL_OK)
			sum = exec_pg_plan_sum(c, &n);
		free(sql);
		double t = n ? sum / n / TEXT_BYTES_PER_TOKEN : 100, cap = ex->set.passage_tokens;
		key[k] = (t > cap ? cap : t < 1 ? 1 : t) / 0.5;
	}
	for (int k = 1; k < w->natoms; k++) {
		int a = w->atoms[k];
		double ka = key[k];
		int j = k;
		while (j > 0 && key[j - 1] > ka) {
			w->atoms[j] = w->atoms[j - 1];
			key[j] = key[j - 1];
			j--;
		}
		w->atoms[j] = a;
		key[j] = ka;
	}
	free(key);
	w->lenx = NULL;
}

SuqlStatus exec_pg_walk_run(PgWalk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	const EngineSink *sink = ex->sink;
	w->need = pg_need(w);
	w->ordered = ex->ast->stmt->select->order != NULL && w->need >= 0;
	/* as the SQLite walk: a lazy walk without ORDER BY takes the most relevant first */
	w->ranked = !w->ordered && w->need >= 0 && w->natoms > 0;
	w->share = w->need >= 0 && w->natoms > 0;
	if (w->share) {
		StoreCursor *c;
		if (store_query(ex->e->store, "SELECT to_regprocedure('suql.doc(text[])') IS NOT NULL",
		                NULL, 0, &c, NULL) == SUQL_OK) {
			w->doc_fn = store_next(c) > 0 && store_integer(c, 0);
			store_done(c);
		}
	}
	pg_order_atoms(w);
	char *cand = w->natoms ? print_pg(w, pr_cand) : NULL;
	/* the final statement: projected columns under hidden names (pg_to_sink) */
	w->final = 1;
	SelectCore *core = w->b->core;
	AstName *saved = xcalloc((size_t)w->nproj + 1, sizeof *saved);
	for (int k = 0; k < w->nproj; k++) {
		for (int i = 0; i < core->cols->n; i++)
			if (ex->occ[w->proj[k].occ].slot == &core->cols->items[i]->expr) {
				saved[k] = core->cols->items[i]->alias;
				core->cols->items[i]->alias = ast_name_make(ex->a, w->proj[k].hidden);
			}
	}
	char *fin = print_pg(w, pr_final);
	for (int k = 0; k < w->nproj; k++)
		for (int i = 0; i < core->cols->n; i++)
			if (ex->occ[w->proj[k].occ].slot == &core->cols->items[i]->expr)
				core->cols->items[i]->alias = saved[k];
	free(saved);
	if (cand)
		sb_printf(&ex->plan, "PostgreSQL: the structured part lists the candidates\n  %s\n",
		          cand);
	for (int k = 0; k < w->natoms; k++) {
		char *t = exec_print_expr(ex, ex->occ[w->atoms[k]].orig);
		sb_printf(&ex->plan, "suql judges %s per candidate%s\n", t,
		          k ? " (still undecided)" : "");
		free(t);
	}
	if (w->need >= 0 && w->natoms)
		sb_printf(&ex->plan, "lazy: stops once %lld row%s passed%s\n", w->need,
		          w->need == 1 ? "" : "s", w->ordered ? ", in ORDER BY order" :
		          w->doc_fn ? ", most relevant first (full-text rank, the GIN index's "
		                      "expression)" : ", most relevant first (full-text rank, "
		                                      "computed per candidate: no :index)");
	if (w->natoms)
		exec_pg_plan_show_identity(ex, &ex->plan);
	if (w->natoms)
		sb_printf(&ex->plan, "PostgreSQL runs the statement over the verified rows, bound as "
		          "$1\n  %s\n", fin);
	else
		sb_printf(&ex->plan, "PostgreSQL runs the statement\n  %s\n", fin);
	for (int k = 0; k < w->nproj; k++) {
		char *t = exec_print_expr(ex, ex->occ[w->proj[k].occ].orig);
		sb_printf(&ex->plan, "projection last: suql evaluates %s for the rows returned\n", t);
		free(t);
	}
	SuqlStatus s = cand ? pg_load(w, cand, err) : SUQL_OK;
	/* the calls it may cost, counted as the SQLite planner counts them, checked against
	   the budget before any call (projection last: what a LIMIT allows, else not known
	   before the rows come) */
	long long mw = plan_max_wave(ex), pc = plan_per_call(ex);
	ex->worst_total = w->natoms * plan_cost_worst_calls(w->n, w->need, w->natoms, mw, pc);
	ex->expect_total = w->need < 0 ? ex->worst_total :
	                   w->natoms * plan_cost_expect_calls(w->n, w->need, w->natoms, mw, pc,
	                                                      PLAN_WALK_EXPECT_RATE);
	if (w->need >= 0 && w->nproj) {
		long long pw = w->nproj * ((w->need + pc - 1) / pc);
		ex->worst_total += pw;
		ex->expect_total += pw;
	}
	if (s == SUQL_OK && w->natoms)
		sb_printf(&ex->plan, "%lld candidate%s", w->n, w->n == 1 ? "" : "s");
	if (s == SUQL_OK && (w->natoms || w->need >= 0)) {
		if (ex->expect_total < ex->worst_total)
			sb_printf(&ex->plan, "; expected: at most %lld LLM calls while at least 1 "
			          "candidate in %.0f passes", ex->expect_total, 1 / PLAN_WALK_EXPECT_RATE);
		sb_printf(&ex->plan, "%sworst case: %lld LLM calls%s; budget %ld\n",
		          w->natoms ? "\n" : "", ex->worst_total,
		          w->natoms ? ", if too few candidates pass" : "", ex->set.budget);
	}
	if (sink && sink->plan)
		sink->plan(sink->ctx, sb_str(&ex->plan));
	if (s == SUQL_OK && ex->set.budget > 0 && ex->expect_total > ex->set.budget)
		s = exec_over_budget(ex, err);
	double prior = PLAN_WAVE_PRIOR;
	if (s == SUQL_OK && (w->ranked || (w->share && w->n > 1))) {
		/* as the SQLite walk: the share of candidates the question's words match; in the
		   query's order, a share that says nothing (none, or more than one in ten) starts
		   from the rate the budget assumes (exec_walk.c) */
		prior = w->n ? (double)w->matches / (double)w->n : 0;
		if (!w->ranked && (prior <= 0 || prior > PLAN_WAVE_SHARE_UNINFORMATIVE))
			prior = PLAN_WALK_EXPECT_RATE;
		if (prior <= 0)
			prior = PLAN_WAVE_PRIOR_RANKED_MIN;
	}
	if (s == SUQL_OK)
		s = pg_waves(w, prior, err);
	if (s == SUQL_OK) {
		long long count;
		char *arr = pg_array(w, &count);
		const char *params[] = {arr};
		s = exec_pg_rows_run(ex, fin, w->natoms ? params : NULL, w->natoms ? 1 : 0, w->proj, w->nproj,
		            err);
		if (s == SUQL_OK)
			pg_record(w, w->natoms ? params : NULL, w->natoms ? 1 : 0);
		free(arr);
	}
	long long passed = 0, failed = 0, unknown = 0, judged = 0;
	for (long long c = 0; c < w->n; c++) {
		passed += w->state[c] == CAND_PASSED;
		failed += w->state[c] == CAND_FAILED;
		unknown += w->state[c] == CAND_NULL;
		judged += w->state[c] != CAND_UNDECIDED;
	}
	SBuf *pl = &ex->plan;
	sb_truncate(pl, 0);
	if (w->natoms) {
		sb_printf(pl, "where: %lld candidate%s after the structured filter; %lld judged: "
		          "%lld passed, %lld failed", w->n, w->n == 1 ? "" : "s", judged, passed,
		          failed);
		if (unknown)
			sb_printf(pl, ", %lld unknown (no text, %sa reply that could not be read%s)",
			          unknown, ex->cnt.low_confidence ? "" : "or ",
			          ex->cnt.low_confidence ? ", or a verdict of low confidence" : "");
		sb_putc(pl, '\n');
	}
	free(cand);
	free(fin);
	return s;
}
