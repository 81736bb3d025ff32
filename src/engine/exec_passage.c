/*
 * exec_passage.c: optimize = passage, the per-passage baseline that the benchmark compares
 * against (see doc/executor.md).
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- optimize = passage: the per-passage baseline ----
   For each atom, the top PASSAGE_BASELINE_K x (LIMIT + OFFSET) passages of the candidates
   (all passages without LIMIT), taken from the candidates in relevance order, each passage
   verified by its own call; a row satisfies the atom when one of its passages does. This
   is how a system that verifies retrieved passages one by one behaves; it is here only to
   compare against, and its answers may differ from the other modes'. */

typedef struct PsgAsk {
	long long cand;
	char *text;
} PsgAsk;

static int psg_done(void *ctx, Req *r, const MemoVal *mv)
{
	signed char *pass = ctx;
	if (mv->verdict == VERDICT_YES)
		pass[r->tag] = 1;
	else if (pass[r->tag] < 0)
		pass[r->tag] = 0;
	return 0;
}

static SuqlStatus passage_unit(Exec *ex, Block *b, Unit *u, SuqlErr *err)
{
	Walk w = {0};
	w.ex = ex;
	w.b = b;
	w.u = u;
	w.stop_pos = -1;
	w.need = -1;
	exec_cand_ids(&w);
	w.atom_arg = xmalloc(((size_t)u->natoms + 1) * sizeof *w.atom_arg);
	for (int k = 0; k < u->natoms; k++)
		w.atom_arg[k] = exec_cand_arg(&w, ex->occ[u->atoms[k]].arg);
	SuqlStatus st = exec_cand_load(&w, err);
	u->rows = w.n;
	w.order = xmalloc(((size_t)w.n + 1) * sizeof *w.order);
	long long k_limit = b->limit >= 0 ? PASSAGE_BASELINE_K * (b->limit > 0 ? b->limit : 1) : -1;
	signed char *pass = xmalloc((size_t)w.n + 1);
	for (int k = 0; k < u->natoms && st == SUQL_OK; k++) {
		const Occ *o = &ex->occ[u->atoms[k]];
		if (o->sig < 0)
			continue;
		Unit one = *u;
		one.rank_note = NULL;
		int atoms1[1] = {u->atoms[k]};
		one.atoms = atoms1;
		one.natoms = 1;
		Walk w1 = w;
		w1.u = &one;
		int aa[1] = {w.atom_arg[k]};
		w1.atom_arg = aa;
		double prior;
		free(w.score);
		w.score = NULL;
		st = exec_rank_candidates(&w1, &prior, err);
		w.score = w1.score;   /* w1.order is w.order: ranked in place */
		free(u->rank_note);
		u->rank_note = one.rank_note;
		memset(pass, -1, (size_t)w.n + 1);
		PsgAsk *asks = NULL;
		long nask = 0, cap = 0;
		for (long long p = 0; p < w.n && st == SUQL_OK; p++) {
			if (k_limit >= 0 && nask >= k_limit)
				break;
			if (suql_interrupted) {
				st = err_set(err, SUQL_INTERRUPT, "interrupted");
				break;
			}
			long long c = w.order[p];
			size_t len;
			int failed;
			char *v = exec_cand_value(&w, c, w.atom_arg[k], &len, err, &failed);
			if (failed) {
				st = SUQL_ERROR;
				break;
			}
			if (!v)
				continue;
			char **ps;
			size_t np = exec_llm_passages(ex, &ex->sigs[o->sig], v, len, &ps);
			for (size_t i = 0; i < np; i++) {
				if (k_limit >= 0 && nask >= k_limit) {
					free(ps[i]);
					continue;
				}
				if (nask == cap) {
					cap = cap ? cap * 2 : 64;
					asks = xrealloc(asks, (size_t)cap * sizeof *asks);
				}
				asks[nask].cand = c;
				asks[nask++].text = ps[i];
			}
			free(ps);
			free(v);
		}
		if (st == SUQL_OK && nask) {
			Req *reqs = xcalloc((size_t)nask, sizeof *reqs);
			for (long i = 0; i < nask; i++) {
				reqs[i].sig = o->sig;
				reqs[i].v = asks[i].text;
				reqs[i].n = strlen(asks[i].text);
				reqs[i].tag = (int)asks[i].cand;
			}
			int saved = ex->set.batch;
			ex->set.batch = 1;   /* one passage, one call */
			st = exec_llm_run(ex, reqs, (int)nask, psg_done, pass, err);
			ex->set.batch = saved;
			free(reqs);
		}
		for (long i = 0; i < nask; i++)
			free(asks[i].text);
		free(asks);
		/* the row's verdict, where the final statement reads it */
		for (long long c = 0; c < w.n && st == SUQL_OK; c++) {
			if (pass[c] < 0)
				continue;
			size_t len;
			int failed;
			char *v = exec_cand_value(&w, c, w.atom_arg[k], &len, err, &failed);
			if (failed) {
				st = SUQL_ERROR;
				break;
			}
			if (!v)
				continue;
			MemoVal *mv = memo_put(ex->memo, o->sig, v, len);
			if (mv->verdict != VERDICT_YES)
				mv->verdict = pass[c];
			u->examined++;
			free(v);
		}
	}
	free(pass);
	exec_walk_free(&w);
	return st;
}

SuqlStatus exec_passage_block(Exec *ex, Block *b, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	for (int i = 0; i < b->nunits && st == SUQL_OK; i++)
		st = passage_unit(ex, b, &b->units[i], err);
	b->executed = 1;
	return st;
}
