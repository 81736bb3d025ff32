/*
 * exec_walk.c: walking a block's candidates, unit by unit (a DNF conjunct, or the whole
 * tree past the cap). Free-text leaves are evaluated first for every candidate; the
 * candidates are listed (exec_cand.c) and, for an unordered lazy walk, ranked by relevance
 * (exec_rank.c). The unit's tree judges each candidate in three-valued logic.
 *
 * Then waves: each takes undecided candidates from the front, asks each one's next atom
 * (short-circuit over the unit's tree), and runs the asks through exec_llm_run, batched and
 * several at once. As results come in, candidates are decided; once enough rows passed
 * (LIMIT + OFFSET: counted from the front in an ordered walk, any distinct rows otherwise)
 * the calls still pending are cancelled. A wave is sized from the rows still needed and
 * the pass rate seen so far, so that speculation stays small (plan_cost_wave_size: the
 * planner's cost model counts the same waves).
 */
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/record_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The filter walk's state (Exec.opstate[OP_WALK], freed by its row): the walk running
   now, for engine_progress. */
typedef struct WalkState {
	const Walk *walking;
} WalkState;

static WalkState *walk_state(Exec *ex)
{
	if (!ex->opstate[OP_WALK])
		ex->opstate[OP_WALK] = xcalloc(1, sizeof(WalkState));
	return ex->opstate[OP_WALK];
}

int exec_walk_progress(const Exec *ex, long long *judged, long long *of)
{
	const WalkState *ws = ex->opstate[OP_WALK];
	if (!ws || !ws->walking)
		return 0;
	*judged = ws->walking->ndecided;
	*of = ws->walking->n;
	return 1;
}

static uint64_t row_hash(const sqlite3_int64 *ids, int n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)ids[i];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static int rowset_has(const RowSet *s, uint64_t h)
{
	if (!s->cap)
		return 0;
	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (!s->h[i])
			return 0;
		if (s->h[i] == h)
			return 1;
	}
}

static int rowset_add(RowSet *s, uint64_t h)
{
	if ((s->n + 1) * 2 >= s->cap) {
		RowSet o = *s;
		s->cap = s->cap ? s->cap * 2 : 64;
		s->h = xcalloc(s->cap, sizeof *s->h);
		s->n = 0;
		for (size_t i = 0; i < o.cap; i++)
			if (o.h[i])
				rowset_add(s, o.h[i]);
		free(o.h);
	}
	if (rowset_has(s, h))
		return 0;
	size_t i = h & (s->cap - 1);
	while (s->h[i])
		i = (i + 1) & (s->cap - 1);
	s->h[i] = h;
	s->n++;
	return 1;
}


void exec_walk_free(Walk *w)
{
	if (w->vals)
		for (long long i = 0; i < w->n * w->narg; i++)
			free(w->vals[i]);
	free(w->vals);
	free(w->lens);
	free(w->idx);
	free(w->args);
	free(w->atom_arg);
	free(w->ids);
	free(w->sqlv);
	free(w->atomv);
	free(w->state);
	free(w->fresh);
	free(w->busy);
	free(w->score);
	free(w->order);
	free(w->pos);
	free(w->log_pos);
	free(w->log_call);
	free(w->log_sent);
	sqlite3_finalize(w->fetch);
	sqlite3_finalize(w->keyq);
	free(w->key);
	free(w->front_keys.h);
	exec_window_free(w);
}

/* Room in the walk's arrays for the candidates read so far (w->nl): the new ones
   undecided, unasked, in the order they were read. */
static void room(Walk *w)
{
	if (w->nl <= w->capl && w->atomv)
		return;
	long long old = w->atomv ? w->capl : 0, cap = w->capl ? w->capl : 1;
	while (cap < w->nl)
		cap *= 2;
	if (!w->win)
		cap = w->nl;   /* listed: every candidate at once */
	size_t n1 = (size_t)cap + 1, na = (size_t)w->u->natoms + 1;
	w->atomv = xrealloc(w->atomv, n1 * na);
	w->state = xrealloc(w->state, n1);
	w->fresh = xrealloc(w->fresh, n1);
	w->busy = xrealloc(w->busy, n1);
	w->order = xrealloc(w->order, n1 * sizeof *w->order);
	w->pos = xrealloc(w->pos, n1 * sizeof *w->pos);
	size_t a0 = (size_t)old * (size_t)w->u->natoms;   /* candidate old's first atom */
	memset(w->atomv + a0, VERDICT_UNASKED, n1 * na - a0);
	memset(w->state + old, CAND_UNDECIDED, n1 - (size_t)old);
	memset(w->fresh + old, 0, n1 - (size_t)old);
	memset(w->busy + old, 0, n1 - (size_t)old);
	for (long long i = old; i < cap; i++)
		w->order[i] = w->pos[i] = i;
	w->capl = cap;
}

/* Read the next window of a windowed walk, and make room for it. */
static SuqlStatus more(Walk *w, SuqlErr *err)
{
	if (!w->win || w->nl >= w->n)
		return SUQL_OK;
	SuqlStatus st = exec_window_more(w, err);
	room(w);
	return st;
}

/* ---- the waves ---- */

static void log_ask(Walk *w, long long c, const Req *r)
{
	if (r->call < 0)
		return;   /* answered from the memo: no call */
	if (w->nlog == w->caplog) {
		w->caplog = w->caplog ? w->caplog * 2 : 64;
		w->log_pos = xrealloc(w->log_pos, (size_t)w->caplog * sizeof *w->log_pos);
		w->log_call = xrealloc(w->log_call, (size_t)w->caplog * sizeof *w->log_call);
		w->log_sent = xrealloc(w->log_sent, (size_t)w->caplog * sizeof *w->log_sent);
	}
	w->log_pos[w->nlog] = w->pos[c];
	/* a request's index in its wave is below batch x concurrency (at most 65536) */
	w->log_call[w->nlog] = (long long)w->wave * 1000003 + r->call;
	w->log_sent[w->nlog] = r->sent;
	w->nlog++;
}

/* ---- DISTINCT: a passing candidate counts once per distinct result row ---- */

/* The hash of candidate c's result row (its result columns, read again by its ids), 0
   when it cannot be read: such a candidate adds no distinct row, so the walk goes on. */
static uint64_t key_of(Walk *w, long long c)
{
	uint64_t *slot = exec_cand_key_slot(w, c);
	if (*slot)
		return *slot;
	Exec *ex = w->ex;
	SelectCore *core = w->b->core;
	if (!w->keyq) {
		ResultList *cols = NULL;
		for (int i = 0; i < core->cols->n; i++)
			exec_col(ex->a, &cols, core->cols->items[i]->expr, NULL);
		Select *s = exec_select(ex, w->b, cols, exec_cand_by_ids(w), NULL);
		char *sql = exec_print_select(ex, s);
		SuqlErr err = {0};
		SuqlStatus st = exec_prepare(ex, sql, &w->keyq, &err);
		free(sql);
		err_clear(&err);
		if (st != SUQL_OK)
			return 0;
	}
	exec_cand_bind_ids(w, w->keyq, c);
	uint64_t h = 0;
	if (sqlite3_step(w->keyq) == SQLITE_ROW) {
		Row r;
		store_row_sqlite(&r, w->keyq);
		h = exec_cand_row_hash(&r, 0);
	}
	sqlite3_reset(w->keyq);
	return *slot = h;
}

static long long have(const Walk *w)
{
	if (w->b->ordered)
		return w->front_pass;
	return w->global ? (long long)w->found->n : w->passes;
}

static int enough(Walk *w)
{
	while (w->front < w->nl && w->state[w->order[w->front]] != CAND_UNDECIDED) {
		long long fc = w->order[w->front];
		if (w->state[fc] == CAND_PASSED &&
		    (!w->b->distinct_walk || !w->b->ordered ||
		     (key_of(w, fc) && rowset_add(&w->front_keys, key_of(w, fc))))) {
			w->front_pass++;
			if (w->b->ordered && w->front_pass == w->need && w->stop_pos < 0)
				w->stop_pos = w->front;
		}
		w->front++;
	}
	return w->need >= 0 && have(w) >= w->need;
}

static void decide(Walk *w, long long c)
{
	if (w->state[c] != CAND_UNDECIDED)
		return;
	int next;
	Tri v = plan_unit_eval(w->u, w->sqlv + c * w->u->nsqlcols, w->atomv + c * w->u->natoms,
	                       &next);
	if (v == TRI_UNDECIDED)
		return;
	w->state[c] = v == TRI_TRUE ? CAND_PASSED : v == TRI_NULL ? CAND_NULL : CAND_FAILED;
	w->ndecided++;
	if (v != TRI_TRUE)
		return;
	w->passes++;
	if (w->b->distinct_walk) {
		uint64_t k = key_of(w, c);
		if (k && rowset_add(w->found, k))
			w->fresh[c] = 1;   /* a result row no earlier candidate gave */
	} else if (w->b->identity &&
	           rowset_add(w->found, row_hash(w->ids + c * w->nid, w->nid))) {
		w->fresh[c] = 1;   /* a row no earlier unit found */
	}
}

static int on_done(void *ctx, Req *r, const MemoVal *mv)
{
	Walk *w = ctx;
	long long c = r->tag;
	w->atomv[c * w->u->natoms + r->tag2] = (signed char)mv->verdict;
	w->busy[c] = 0;
	log_ask(w, c, r);
	decide(w, c);
	return enough(w);
}

/* ranked: the candidates are in relevance order (the first wave is sized for its top);
   learned: prior is the pass rate earlier walks saw (plan_cost_learned) */
static SuqlStatus run_waves(Walk *w, double prior, int ranked, int learned, SuqlErr *err)
{
	Exec *ex = w->ex;
	Unit *u = w->u;
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	int conc = llm_concurrency(ex->e->llm);
	long long maxwave = (long long)batch * (conc > 0 ? conc : 1);
	SuqlStatus st = SUQL_OK;
	long long seen_dec = 0, seen_pass = 0;
	char **wv = NULL;        /* values fetched in this wave */
	long nwv = 0, capwv = 0;
	for (;;) {
		if (suql_interrupted)
			return err_set(err, SUQL_INTERRUPT, "interrupted");
		if (enough(w) || w->front >= w->n)
			break;
		/* the wave's calls fit in what is left of the statement's caps (budget and
		   budget_usd at a call's worst case, llm_cap_room; a call of batch candidates): a
		   wave the cap would cut short fails, where a smaller one may find the rows */
		long long mw = maxwave;
		long room = llm_cap_room(ex->e->llm, ex->est.call_in, ex->est.call_out);
		if (room < mw / batch)
			mw = (room > 0 ? room : 1) * (long long)batch;
		long long rest = w->need < 0 ? -1 : w->need - have(w);
		long long want = plan_cost_wave_size(rest, seen_pass, seen_dec, prior, mw,
		                                     ranked && w->wave == 0);
		/* the first wave of a walk in the query's order: sized from the rate learned, else
		   at the rate the budget assumes, not from the question's words (their share only
		   bounds the rate from above), so that a rare predicate is found in two round trips
		   whatever its wording; the waves after it follow the rate seen */
		if (rest >= 0 && !ranked && seen_dec == 0 && w->wave == 0)
			want = plan_cost_first_wave(rest, learned ? prior : PLAN_WALK_EXPECT_RATE, mw);
		if (want > mw && mw < maxwave)
			want = mw;
		Req *reqs = xcalloc((size_t)want, sizeof *reqs);
		int nreq = 0;
		long long progress = 0;
		for (long long p = w->front; p < w->n && nreq < want; p++) {
			if (p >= w->nl && (st = more(w, err)) != SUQL_OK)
				break;
			if (p >= w->nl)
				break;
			long long c = w->order[p];
			if (w->state[c] != CAND_UNDECIDED || w->busy[c])
				continue;
			/* a row an earlier unit found passes here too */
			if (w->b->identity && w->found->n &&
			    rowset_has(w->found, row_hash(w->ids + c * w->nid, w->nid))) {
				w->state[c] = CAND_PASSED;
				w->ndecided++;
				w->passes++;
				progress++;
				continue;
			}
			for (;;) {
				int k;
				Tri v = plan_unit_eval(u, w->sqlv + c * u->nsqlcols, w->atomv + c * u->natoms,
				                       &k);
				if (v != TRI_UNDECIDED) {
					decide(w, c);
					progress++;
					break;
				}
				const Occ *o = &ex->occ[u->atoms[k]];
				size_t len;
				int failed;
				char *val = exec_cand_value(w, c, w->atom_arg[k], &len, err, &failed);
				if (failed) {
					free(reqs);
					for (long i = 0; i < nwv; i++)
						free(wv[i]);
					free(wv);
					return SUQL_ERROR;
				}
				if (!val) {
					w->atomv[c * u->natoms + k] = VERDICT_NULL;   /* NULL text: unknown */
					continue;
				}
				MemoVal *mv = o->sig >= 0 ? memo_get(ex->memo, o->sig, val, len) : NULL;
				if (mv) {
					w->atomv[c * u->natoms + k] = (signed char)mv->verdict;
					free(val);
					continue;
				}
				if (nwv == capwv) {
					capwv = capwv ? capwv * 2 : 64;
					wv = xrealloc(wv, (size_t)capwv * sizeof *wv);
				}
				wv[nwv++] = val;
				Req *r = &reqs[nreq++];
				r->sig = o->sig;
				r->v = val;
				r->n = len;
				r->tag = (int)c;
				r->tag2 = k;
				w->busy[c] = 1;
				break;
			}
		}
		if (st != SUQL_OK) {   /* reading the next window failed */
			free(reqs);
			for (long i = 0; i < nwv; i++)
				free(wv[i]);
			free(wv);
			return st;
		}
		long long dec0 = w->passes;
		long long decided_before = w->ndecided;
		if (nreq > 0) {
			w->wave++;
			st = exec_llm_run(ex, reqs, nreq, on_done, w, err);
			for (int i = 0; i < nreq; i++)
				if (reqs[i].state == REQ_CANCELLED)
					w->busy[reqs[i].tag] = 0;   /* cancelled: still undecided */
		}
		seen_dec += w->ndecided - decided_before;
		seen_pass += w->passes - dec0;
		free(reqs);
		for (long i = 0; i < nwv; i++)
			free(wv[i]);
		nwv = 0;
		if (st != SUQL_OK)
			break;
		if (nreq == 0 && progress == 0)
			break;
	}
	free(wv);
	return st;
}

/* ---- free-text leaves: every candidate's calls, before the candidates are listed ---- */

/* ---- a block ---- */

/* Where in the walk's order the result was complete: the position of the candidate that
   brought the passes up to what the LIMIT needs (in an ordered walk, counted from the
   front; otherwise any passes, distinct rows across units when rows have identity). It
   depends on which candidates passed, not on the order their replies came in. */
static void find_stop(Walk *w, long long found_before)
{
	if (w->b->ordered || w->need < 0)
		return;   /* ordered: enough() set it from the front */
	long long want = w->global ? w->need - found_before : w->need, got = 0;
	for (long long p = 0; p < w->nl && w->stop_pos < 0 && want > 0; p++) {
		long long c = w->order[p];
		got += w->global ? w->fresh[c] : w->state[c] == CAND_PASSED;
		if (got >= want)
			w->stop_pos = p;
	}
}

static int by_id(const void *x, const void *y)
{
	sqlite3_int64 a = *(const sqlite3_int64 *)x, b = *(const sqlite3_int64 *)y;
	return (a > b) - (a < b);
}

static void speculation(Walk *w)
{
	if (w->stop_pos < 0 || w->nlog == 0)
		return;
	Exec *ex = w->ex;
	for (long i = 0; i < w->nlog; i++) {
		if (w->log_pos[i] <= w->stop_pos)
			continue;
		ex->cnt.spec_items++;
		w->u->spec_items++;
		/* a call whose every candidate came after the stop was not needed at all */
		int all = w->log_sent[i], first = 1;
		for (long j = 0; j < w->nlog && all; j++) {
			if (w->log_call[j] != w->log_call[i])
				continue;
			if (j < i)
				first = 0;
			all &= w->log_pos[j] > w->stop_pos;
		}
		if (all && first)
			ex->cnt.spec_calls++;
	}
}

/* ---- learned pass rates (plan_cost_learned) ---- */

/* The share of unit u's candidates its questions let through, as earlier walks saw them
   (each question's rate, 1 - it under NOT, multiplied), or -1 when one is not known. */
static double learned_rate(Exec *ex, const Unit *u)
{
	if (u->natoms < 1)
		return -1;
	double rate = 1;
	for (int k = 0; k < u->natoms; k++) {
		const Occ *o = &ex->occ[u->atoms[k]];
		double r = plan_cost_learned(ex, o, NULL, NULL);
		if (r < 0)
			return -1;
		for (int l = 0; l < u->nlits; l++)
			if (u->lits[l].kind == LK_ATOM && u->lits[l].occ == o->id && u->lits[l].neg)
				r = 1 - r;
		rate *= r;
	}
	return rate;
}

/* What a walk in the query's order saw of its conjunct's first question (asked of every
   candidate it reached; the others only of those the first passed, which say nothing of
   the column): the candidates the model said yes or no for (an unknown, from a NULL text
   or a reply that could not be read, is neither, and is not counted), added to the
   question's rate on its column. A walk by relevance saw its best candidates first, and a
   cascade's proxy judged for the model: neither adds anything. */
static void learn(Walk *w)
{
	Unit *u = w->u;
	if (u->natoms < 1 || u->cascade)
		return;
	long long passed = 0, decided = 0;
	for (long long c = 0; c < w->nl; c++) {
		signed char v = w->atomv[c * u->natoms];
		passed += v == VERDICT_YES;
		decided += v == VERDICT_YES || v == VERDICT_NO;
	}
	if (decided > 0)
		plan_cost_learn(w->ex, &w->ex->occ[u->atoms[0]], passed, decided);
}

static SuqlStatus walk_unit(Exec *ex, Block *b, Unit *u, RowSet *found, SuqlErr *err)
{
	Walk w = {0};
	w.found = found;
	w.ex = ex;
	w.b = b;
	w.u = u;
	w.stop_pos = -1;
	w.need = b->limit;
	w.global = !b->ordered && b->identity && w.need >= 0;
	exec_cand_ids(&w);
	w.atom_arg = xmalloc(((size_t)u->natoms + 1) * sizeof *w.atom_arg);
	for (int k = 0; k < u->natoms; k++)
		w.atom_arg[k] = exec_cand_arg(&w, ex->occ[u->atoms[k]].arg);
	SuqlStatus st = SUQL_OK;
	long long nvals = 0;
	for (int i = 0; i < u->nleaf_occ && st == SUQL_OK; i++)
		if (ex->occ[u->leaf_occ[i]].own != 3)   /* (that one before the walk: plan_ahead_nested) */
			st = exec_final_values(ex, b, u->leaf_occ[i], u->where_sql, &nvals, err);
	ex->cnt.ahead_values += nvals;
	int windowed = 0;
	if (st == SUQL_OK && exec_window_applies(&w))
		st = exec_window_open(&w, &windowed, err);
	if (st == SUQL_OK && !windowed) {
		st = exec_cand_load(&w, err);
		w.nl = w.n;
	}
	if (st != SUQL_OK) {
		exec_walk_free(&w);
		return st;
	}
	u->rows = w.n;
	room(&w);
	long long found_before = (long long)found->n;
	double prior = PLAN_WAVE_PRIOR;
	int ranked = w.need >= 0 && !b->ordered && u->natoms > 0 && w.n > 1;
	if (ranked)
		st = exec_rank_candidates(&w, &prior, err);
	else if (w.need >= 0 && u->natoms > 0 && w.n > 1) {
		/* in the query's order: only the prior. The share of candidates that hold a word
		   of the question bounds the pass rate from above; when it is more than one in ten, or
		   none (a question in other words than the texts), it says nothing of a rare
		   predicate, and the walk starts from the rate the budget assumes: a first wave
		   sized for 1 in 50 finds a rare predicate's rows in two round trips, where a
		   prior near 1 asked a few candidates a wave, one round trip after another */
		double share = -1;
		exec_rank_share(&w, &share);
		if (share == 0 || share > PLAN_WAVE_SHARE_UNINFORMATIVE)
			prior = PLAN_WALK_EXPECT_RATE;
		else if (share > 0)
			prior = share;
	}
	if (prior <= 0)
		prior = PLAN_WAVE_PRIOR_RANKED_MIN;
	/* a rate earlier walks saw for these questions of this column rules over the words */
	double seen = w.need >= 0 && !b->dnf_over ? learned_rate(ex, u) : -1;
	if (seen >= 0)
		prior = seen;
	for (long long i = 0; i < w.nl; i++)
		w.pos[w.order[i]] = i;
	if (st == SUQL_OK)   /* what an operator decides first (a cascade's proxy) */
		st = op_walk_unit(ex, &w, err);
	if (st == SUQL_OK) {
		WalkState *ws = walk_state(ex);
		ws->walking = &w;
		st = run_waves(&w, prior, ranked, seen >= 0, err);
		ws->walking = NULL;
	}
	find_stop(&w, found_before);
	speculation(&w);
	long nkeep0 = b->kept.n;
	for (long long c = 0; c < w.nl && b->kept.on; c++) {
		if (w.state[c] != CAND_PASSED)
			continue;
		if (b->kept.n == b->kept.cap) {
			b->kept.cap = b->kept.cap ? b->kept.cap * 2 : 64;
			b->kept.ids = xrealloc(b->kept.ids, (size_t)b->kept.cap * sizeof *b->kept.ids);
		}
		b->kept.ids[b->kept.n++] = w.ids[c * w.nid];
	}
	/* in the statement's order, as a listed walk keeps them (ranked windowed: rowid order) */
	if (windowed && !b->ordered && b->kept.n > nkeep0)
		qsort(b->kept.ids + nkeep0, (size_t)(b->kept.n - nkeep0), sizeof *b->kept.ids, by_id);
	for (long long c = 0; c < w.nl; c++) {
		int any = w.state[c] != CAND_UNDECIDED;
		for (int k = 0; k < u->natoms && !any; k++)
			any = w.atomv[c * u->natoms + k] != VERDICT_UNASKED;
		u->examined += any;
		u->accepted += w.state[c] == CAND_PASSED;
		u->rejected += w.state[c] == CAND_FAILED;
		u->unknown += w.state[c] == CAND_NULL;
	}
	if (!ranked && !b->dnf_over)
		learn(&w);
	exec_record_walk(&w);
	exec_walk_free(&w);
	return st;
}

/* Whether the rows a lazy walk passes are the only ones the block's WHERE can let through
   in the final statement: one rowid table, every conjunct asks the model (a conjunct of
   plain SQL lets rows through unwalked), and the statement's own SELECT. A row the walk
   did not decide has its atoms NULL there (a planned miss), so it cannot pass; one whose
   text equals a decided row's would, and an unordered LIMIT may return either, while an
   ordered walk decided every row before its stop. */
static int keeps_to_passed(const Block *b)
{
	if (b->limit < 0 || !b->top || b->nitems != 1 || !b->identity ||
	    b->items[0].kind != IT_TABLE || !b->items[0].rowid || b->correlated)
		return 0;
	for (int i = 0; i < b->nunits; i++)
		if (b->units[i].natoms == 0)
			return 0;
	return b->nunits > 0;
}

SuqlStatus exec_walk_block(Exec *ex, Block *b, SuqlErr *err)
{
	RowSet found = {0};
	SuqlStatus st = SUQL_OK;
	long long best = 0;
	b->kept.on = keeps_to_passed(b);
	for (int i = 0; i < b->nunits && st == SUQL_OK; i++) {
		Unit *u = &b->units[i];
		/* unordered under LIMIT: any rows will do, and enough were found */
		if (b->limit >= 0 && !b->ordered &&
		    ((b->identity && (long long)found.n >= b->limit) || best >= b->limit)) {
			u->skipped = 1;
			continue;
		}
		st = walk_unit(ex, b, u, &found, err);
		if (u->accepted > best)
			best = u->accepted;
	}
	free(found.h);
	b->executed = 1;
	return st;
}

