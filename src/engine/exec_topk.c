/*
 * exec_topk.c: the walk of a semantic top-k (plan_topk.c says when, and the rule). The
 * candidates are the rows that pass WHERE, with their argument texts; the retrieval index
 * ranks them (BM25 of their passages for the question, rows that match nothing last, ties in
 * the statement's order); waves of candidates are scored through exec_llm_run, batched and
 * several calls in flight, and the walk stops once k scored candidates have the best value:
 * a call not sent yet when that happens is not sent. The wave size is what is still needed
 * over the share of scored candidates that had the best value so far (starting from one in
 * the number of values allowed, weighted as two candidates), at least 1 and at most batch x
 * concurrency. The scores go to the memo; the final statement reads them, and a candidate
 * not scored is NULL there (its occurrence is planned), which sorts after every value.
 * On PostgreSQL (exec_pg_run.c) the candidates and their texts come from the store, in ctid
 * order, and the BM25 is computed in memory (exec_rank_texts): Postgres holds no retrieval
 * index of suql's; the final statement reads the scores from the bound arrays.
 */
#include "engine/exec_int.h"
#include "engine/op_int.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct TopWalk {
	Exec *ex;
	const TopK *t;
	long long n;
	sqlite3_int64 *ids;
	char **vals;
	size_t *lens;
	long long *order;
	unsigned char *done;
	long long at_best;
} TopWalk;

/* The value is the best one (as the ORDER BY key converts it). */
static int is_best(const TopK *t, const MemoVal *mv)
{
	if (!mv || !mv->value)
		return 0;
	if (!t->numeric)
		return strcmp(mv->value, t->best_text) == 0;
	char *end;
	double d = strtod(mv->value, &end);
	if (end == mv->value)
		return 0;
	return (t->integer ? trunc(d) : d) == t->best_num;
}

static int on_done(void *ctx, Req *r, const MemoVal *mv)
{
	TopWalk *w = ctx;
	if (!w->done[r->tag]) {
		w->done[r->tag] = 1;
		w->at_best += is_best(w->t, mv);
	}
	return w->at_best >= w->t->k;
}

static void topwalk_free(TopWalk *w)
{
	for (long long i = 0; i < w->n; i++)
		free(w->vals[i]);
	free(w->vals);
	free(w->lens);
	free(w->ids);
	free(w->order);
	free(w->done);
}

static void grow(TopWalk *w, long long *cap)
{
	if (w->n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 64;
	w->ids = xrealloc(w->ids, (size_t)*cap * sizeof *w->ids);
	w->vals = xrealloc(w->vals, (size_t)*cap * sizeof *w->vals);
	w->lens = xrealloc(w->lens, (size_t)*cap * sizeof *w->lens);
}

/* The rows that pass WHERE: the argument's text (a list as JSON, as SQLite keeps it), and
   its rowid when the retrieval index ranks them (byid; else a candidate's id is its
   position), in the order SQLite lists the rows (Dialect.list_order). */
static SuqlStatus load(TopWalk *w, Block *b, const Occ *o, int byid, SuqlErr *err)
{
	Exec *ex = w->ex;
	const Dialect *d = ex->e->dialect;
	ResultList *cols = NULL;
	if (byid)
		exec_col(ex->a, &cols, ast_column(ex->a, b->items[o->arg_item].name, "rowid"),
		         "suql_id");
	exec_col(ex->a, &cols, d->text_of(ex, o->arg), "suql_arg");
	char *sql = exec_print_select(ex, exec_select(ex, b, cols, b->core->where,
	                                               d->list_order(ex, b, NULL)));
	StoreCursor *c;
	SuqlStatus r = d->query(ex, sql, &c, err);
	free(sql);
	if (r != SUQL_OK)
		return r;
	long long cap = 0;
	int rc;
	while ((rc = store_next(c)) > 0) {
		const char *t = store_text(c, byid);
		if (!t)
			continue;   /* no text: NULL without a call, never in the top */
		grow(w, &cap);
		w->lens[w->n] = store_bytes(c, byid);
		w->vals[w->n] = xstrndup(t, w->lens[w->n]);
		w->ids[w->n] = byid ? store_integer(c, 0) : w->n;
		w->n++;
	}
	store_done(c);
	if (rc < 0)
		return exec_sqlerr(ex, err, "listing the candidates of a top-k");
	return SUQL_OK;
}

typedef struct Ranked {
	long long c;
	double s;
} Ranked;

static int by_score(const void *a, const void *b)
{
	const Ranked *x = a, *y = b;
	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c;
}

static int by_rowid(const void *a, const void *b)
{
	sqlite3_int64 x = ((const RetScore *)a)->rowid, y = ((const RetScore *)b)->rowid;
	return x < y ? -1 : x > y;
}

/* Relevance order: BM25 of each candidate's row for the question, best first. */
static void rank(TopWalk *w, const Occ *o, const Sig *s)
{
	Ranked *v = xmalloc(((size_t)w->n + 1) * sizeof *v);
	RetScore *sc = NULL;
	size_t ns = 0;
	SuqlErr err = {0};
	RetQuestion q = {o->arg_col, s->question};
	long long matched = 0;
	double *mem = NULL;
	if (!w->ex->e->dialect->retrieval) {
		/* no retrieval index of suql's (Postgres): the same BM25 in memory, its
		   statistics over the candidates */
		mem = xcalloc((size_t)w->n + 1, sizeof *mem);
		if (exec_rank_texts(s, w->vals, w->lens, w->n, mem, &matched, &err) != SUQL_OK)
			memset(mem, 0, ((size_t)w->n + 1) * sizeof *mem);
	} else if (ret_score(w->ex->e->db, o->arg_table, &q, 1, w->ids, (size_t)w->n, RET_MATCHED_ONLY, 0,
	              &sc, &ns, &err) != SUQL_OK)
		ns = 0;   /* no ranking: the statement's order */
	err_clear(&err);
	if (ns)   /* (sc is NULL without scores: qsort wants an array) */
		qsort(sc, ns, sizeof *sc, by_rowid);
	for (long long c = 0; c < w->n; c++) {
		RetScore key = {w->ids[c], 0, 0};
		RetScore *f = ns ? bsearch(&key, sc, ns, sizeof *sc, by_rowid) : NULL;
		v[c].c = c;
		v[c].s = mem ? mem[c] : f ? f->score : 0;
	}
	qsort(v, (size_t)w->n, sizeof *v, by_score);
	for (long long i = 0; i < w->n; i++)
		w->order[i] = v[i].c;
	free(v);
	free(sc);
	free(mem);
}

static SuqlStatus exec_topk_run(Exec *ex, Block *b, SuqlErr *err)
{
	const TopK *t = b->topk;
	const Occ *o = &ex->occ[t->occ];
	const Sig *s = &ex->sigs[o->sig];
	TopWalk w = {0};
	w.ex = ex;
	w.t = t;
	int ranked = o->arg_item >= 0 && o->arg_indexed && s->question;
	SuqlStatus st = load(&w, b, o, ranked && ex->e->dialect->retrieval, err);
	if (st != SUQL_OK) {
		topwalk_free(&w);
		return st;
	}
	w.order = xmalloc(((size_t)w.n + 1) * sizeof *w.order);
	w.done = xcalloc((size_t)w.n + 1, 1);
	for (long long i = 0; i < w.n; i++)
		w.order[i] = i;
	if (ranked && w.n > 1)
		rank(&w, o, s);
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	long long maxwave = (long long)batch * llm_concurrency(ex->e->llm);
	double prior = 1.0 / (s->noptions > 0 ? s->noptions : 2);
	Req *reqs = xcalloc((size_t)(maxwave < w.n ? maxwave : w.n) + 1, sizeof *reqs);
	long long next = 0, scored = 0;
	while (st == SUQL_OK && w.at_best < t->k && !suql_interrupted) {
		while (next < w.n && w.done[w.order[next]])
			next++;
		if (next >= w.n)
			break;
		double rate = ((double)w.at_best + 2.0 * prior) / ((double)scored + 2.0);
		long long size = (long long)ceil((double)(t->k - w.at_best) / rate);
		if (size < 1)
			size = 1;
		if (size > maxwave)
			size = maxwave;
		int nr = 0;
		for (long long p = next; p < w.n && nr < size; p++) {
			long long c = w.order[p];
			if (w.done[c])
				continue;
			reqs[nr] = (Req){0};
			reqs[nr].sig = o->sig;
			reqs[nr].v = w.vals[c];
			reqs[nr].n = w.lens[c];
			reqs[nr].tag = (int)c;
			nr++;
		}
		ex->cnt.topk_waves++;
		st = exec_llm_run(ex, reqs, nr, on_done, &w, err);
		long long before = scored;
		for (int i = 0; i < nr; i++)
			if (reqs[i].state == REQ_DONE && !w.done[reqs[i].tag])
				on_done(&w, &reqs[i], memo_get(ex->memo, o->sig, reqs[i].v, reqs[i].n));
		scored = 0;
		for (long long c = 0; c < w.n; c++)
			scored += w.done[c];
		if (scored == before && st == SUQL_OK && w.at_best < t->k)
			break;   /* nothing came back: the final statement asks no more either */
	}
	ex->cnt.topk_cands += w.n;
	ex->cnt.topk_scored += scored;
	ex->cnt.topk_stopped |= w.at_best >= t->k && scored < w.n;
	free(reqs);
	topwalk_free(&w);
	return st;
}

/* ---- its row of the operator table (op.c) ---- */

static int exec_topk_op_applies(const Exec *ex)
{
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].plan == PL_TOPK)
			return 1;
	return ex->cnt.topk_cands > 0;
}

/* The top-k's floor: k candidates scored, in full calls, when they all take the best
   value the answer can take (no other candidate can then enter the top k); a top-k that
   must score every candidate (its plan says why) scores the rows that pass WHERE. */
static long long exec_topk_op_floor(Exec *ex)
{
	long long per = plan_cost_floor_batch(ex), total = 0;
	for (int i = 0; i < ex->nblocks; i++) {
		const Block *b = &ex->blocks[i];
		const TopK *t = b->topk;
		if (!t || t->occ < 0 || t->occ >= ex->nocc || ex->occ[t->occ].plan != PL_TOPK)
			continue;
		long long n = !t->why_not && t->k >= 0 && t->k < b->bound ? t->k : b->bound;
		total += plan_cost_floor_items(n, per);
	}
	return total;
}

static void exec_topk_op_counters(Exec *ex, SBuf *out)
{
	if (ex->cnt.topk_cands)
		sb_printf(out, "semantic top-k: %lld of %lld candidates scored in %ld wave%s%s\n",
		          ex->cnt.topk_scored, ex->cnt.topk_cands, ex->cnt.topk_waves,
		          ex->cnt.topk_waves == 1 ? "" : "s", ex->cnt.topk_stopped
		          ? " (stopped: the top k had the best value)" : "");
}

/* The block's values read ahead: its top-k occurrence scored in waves. */
static int topk_ahead(Exec *ex, Block *b, int occ, SuqlStatus *s, SuqlErr *err)
{
	if (ex->occ[occ].plan != PL_TOPK)
		return 0;
	*s = exec_topk_run(ex, b, err);
	return 1;
}

const EngineOp exec_topk_row = {
	.name = "top-k",
	.slot = OP_TOPK,
	.applies = exec_topk_op_applies,
	.floor = exec_topk_op_floor,
	.counters = exec_topk_op_counters,
	.ahead = topk_ahead,
	.show_occ = plan_topk_show,
};
