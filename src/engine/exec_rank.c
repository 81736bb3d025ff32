/*
 * exec_rank.c: the relevance order of an unordered lazy walk. An atom whose argument is a
 * FREE_TEXT column of a rowid table (or an indexed column) is ranked by the retrieval index
 * (ret_score over the candidates' rowids, or over the whole table when nothing was filtered
 * out); any other argument in memory, by BM25 of each candidate's best passage with
 * statistics over all candidates (two passes over the texts). Scores add up over the unit's
 * atoms; equal scores keep the statement's order; with embeddings the top of the order is
 * ranked again (exec_embed.c). Retrieval only orders: the model decides.
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ranking ---- */

typedef struct IdScore {
	sqlite3_int64 id;
	double s;
	int matched;
} IdScore;

static int by_id(const void *a, const void *b)
{
	sqlite3_int64 x = ((const IdScore *)a)->id, y = ((const IdScore *)b)->id;
	return x < y ? -1 : x > y;
}

/* Through the retrieval index: the atom's column, the candidates' rowids of its table. */
static int rank_index(Walk *w, int k, long long *matched)
{
	Exec *ex = w->ex;
	const Occ *o = &ex->occ[w->u->atoms[k]];
	const Sig *s = &ex->sigs[o->sig];
	int item = o->arg_item;
	if (!o->arg_indexed || item < 0 || !w->b->identity || !s->question)
		return 0;
	/* PostgreSQL: suql's index on the server, where it can be had (its Dialect row's
	   rank_index, exec_pg_index.c) */
	const ScopeItem *it = &w->b->items[item];
	int own = !ex->e->dialect->retrieval;
	if (own && (!ex->e->dialect->rank_index || it->kind != IT_TABLE || !it->rowid))
		return 0;
	sqlite3_int64 *rid = xmalloc(((size_t)w->n + 1) * sizeof *rid);
	for (long long c = 0; c < w->n; c++)
		rid[c] = w->ids[c * w->nid + item];
	/* the whole table when the structured part kept every row of it */
	long long total = w->b->nitems == 1 ? w->b->from_rows : -1;
	SuqlErr err = {0};
	RetQuestion q = {o->arg_col, s->question};
	RetScore *sc = NULL;
	size_t n = 0;
	SuqlStatus st = own ? ex->e->dialect->rank_index(ex->e, o->arg_table, it->rowkey,
	                                                 o->arg_col, s->question, rid,
	                                                 (size_t)w->n, &sc, &n, &err)
	                   : ret_score(ex->e->db, o->arg_table, &q, 1, total == w->n ? NULL : rid,
	                               total == w->n ? 0 : (size_t)w->n, RET_MATCHED_ONLY, 0,
	                               &sc, &n, &err);
	err_clear(&err);
	if (st != SUQL_OK) {
		free(rid);
		return 0;
	}
	IdScore *v = xmalloc((n + 1) * sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].id = sc[i].rowid;
		v[i].s = sc[i].score;
	}
	free(sc);
	qsort(v, n, sizeof *v, by_id);
	for (long long c = 0; c < w->n; c++) {
		IdScore key = {rid[c], 0, 0};
		IdScore *f = n ? bsearch(&key, v, n, sizeof *v, by_id) : NULL;
		if (f) {
			w->score[c] += f->s;
			++*matched;
		}
	}
	free(v);
	free(rid);
	return 1;
}

/* In memory: BM25 of each text's best passage for the question, statistics over all the
   texts (two passes); get(ctx, c, &len, &failed) gives text c (allocated, NULL for none). */
typedef char *(*TextGet)(void *ctx, long long c, size_t *len, SuqlErr *err, int *failed);

static SuqlStatus bm25_texts(const Sig *s, long long n, TextGet get, void *ctx, double *score,
                             long long *matched, SuqlErr *err)
{
	if (!s->question)
		return SUQL_OK;
	TextTerms q = TEXT_TERMS_INIT;
	text_terms(s->question, strlen(s->question), &q);
	if (q.n == 0) {
		text_terms_free(&q);
		return SUQL_OK;
	}
	TextQuery tq;   /* each passage counted in one pass (text.h) */
	text_query_init(&tq, &q);
	long long *df = xcalloc((size_t)tq.n + 1, sizeof *df);
	int *ix = xmalloc(((size_t)tq.n + 1) * sizeof *ix), *tf = xmalloc(((size_t)tq.n + 1) * sizeof *tf);
	double npass = 0, totlen = 0;
	SuqlStatus st = SUQL_OK;
	for (int pass = 0; pass < 2 && st == SUQL_OK; pass++) {
		double avg = npass > 0 ? totlen / npass : 1;
		for (long long c = 0; c < n && st == SUQL_OK; c++) {
			size_t len;
			int failed = 0;
			char *v = get(ctx, c, &len, err, &failed);
			if (failed) {
				st = SUQL_ERROR;
				break;
			}
			if (!v)
				continue;
			char **p;
			size_t np = s->list == 0 ? 1 : text_passages(v, len, RET_CHUNK, &p);
			if (s->list == 0) {
				p = xmalloc(sizeof *p);
				p[0] = xstrndup(v, len);
			}
			double best = 0;
			for (size_t i = 0; i < np; i++) {
				TextTerms t = TEXT_TERMS_INIT;
				text_terms(p[i], strlen(p[i]), &t);
				int m = text_query_count(&tq, &t, ix, tf);
				if (pass == 0) {
					npass++;
					totlen += t.n;
					for (int j = 0; j < m; j++)
						df[ix[j]]++;
				} else {
					double sc = 0;
					for (int j = 0; j < m; j++) {
						double d = (double)df[ix[j]], all = (double)npass;
						double idf = log((all - d + 0.5) / (d + 0.5) + 1.0);
						sc += idf * tf[j] * 2.2 /
						      (tf[j] + 1.2 * (0.25 + 0.75 * (double)t.n / avg));
					}
					if (sc > best)
						best = sc;
				}
				text_terms_free(&t);
			}
			if (pass == 1 && best > 0) {
				score[c] += best;
				++*matched;
			}
			text_strv_free(p, np);
			free(v);
			if (suql_interrupted)
				st = err_set(err, SUQL_INTERRUPT, "interrupted");
		}
	}
	free(df);
	free(ix);
	free(tf);
	text_query_free(&tq);
	text_terms_free(&q);
	return st;
}

typedef struct CandGet {
	Walk *w;
	int arg;
} CandGet;

static char *cand_get(void *ctx, long long c, size_t *len, SuqlErr *err, int *failed)
{
	CandGet *g = ctx;
	return exec_cand_value(g->w, c, g->arg, len, err, failed);
}

/* In memory: BM25 of each candidate's best passage, statistics over all candidates. */
static SuqlStatus rank_memory(Walk *w, int k, long long *matched, SuqlErr *err)
{
	const Occ *o = &w->ex->occ[w->u->atoms[k]];
	CandGet g = {w, w->atom_arg[k]};
	return bm25_texts(&w->ex->sigs[o->sig], w->n, cand_get, &g, w->score, matched, err);
}

typedef struct ArrGet {
	char *const *vals;
	const size_t *lens;
} ArrGet;

static char *arr_get(void *ctx, long long c, size_t *len, SuqlErr *err, int *failed)
{
	ArrGet *g = ctx;
	(void)err;
	*failed = 0;
	*len = g->lens[c];
	return g->vals[c] ? xstrndup(g->vals[c], g->lens[c]) : NULL;
}

SuqlStatus exec_rank_texts(const Sig *s, char *const *vals, const size_t *lens, long long n,
                           double *score, long long *matched, SuqlErr *err)
{
	ArrGet g = {vals, lens};
	return bm25_texts(s, n, arr_get, &g, score, matched, err);
}

void exec_rank_share(Walk *w, double *prior)
{
	double p = 1;
	int any = 0;
	if (!w->win)
		w->score = xcalloc((size_t)w->n + 1, sizeof *w->score);
	for (int k = 0; k < w->u->natoms; k++) {
		long long m = 0;
		if (w->win)   /* the candidates are not all held: the index is read again */
			m = exec_window_matched(w, k);
		if (w->ex->occ[w->u->atoms[k]].sig < 0 || (w->win && m < 0))
			continue;
		if (!w->win && !rank_index(w, k, &m)) {
			/* PostgreSQL has no index of suql's: the share of what SQLite would read
			   from one (a FREE_TEXT column), counted in memory */
			SuqlErr e = {0};
			int ok = !w->ex->e->dialect->retrieval && w->ex->occ[w->u->atoms[k]].arg_indexed &&
			         w->ex->occ[w->u->atoms[k]].arg_item >= 0 && w->b->identity &&
			         rank_memory(w, k, &m, &e) == SUQL_OK;
			err_clear(&e);
			if (!ok)
				continue;
		}
		p *= w->n ? (double)m / (double)w->n : 0.5;
		any = 1;
	}
	if (!w->win) {
		free(w->score);
		w->score = NULL;
	}
	if (any)
		*prior = p;
}

static SuqlStatus rank_dense(Walk *w, double p, double *prior, SBuf *note, SuqlErr *err);

SuqlStatus exec_rank_candidates(Walk *w, double *prior, SuqlErr *err)
{
	Exec *ex = w->ex;
	double p = 1;
	int any = 0;
	SBuf note = SBUF_INIT;
	if (w->win) {
		/* read in this order already (exec_window.c): its one atom is indexed */
		const Occ *o = &ex->occ[w->u->atoms[0]];
		sb_printf(&note, "BM25 over the index of %s.%s", o->arg_table, o->arg_col);
		p = (double)exec_window_matched(w, 0) / (double)w->n;
		return rank_dense(w, p, prior, &note, err);
	}
	w->score = xcalloc((size_t)w->n + 1, sizeof *w->score);
	for (int k = 0; k < w->u->natoms; k++) {
		const Occ *o = &ex->occ[w->u->atoms[k]];
		if (o->sig < 0)
			continue;
		long long m = 0;
		if (rank_index(w, k, &m)) {
			/* several questions over the same index: their scores add up, said once */
			char *one = xprintf("BM25 over the index of %s.%s", o->arg_table, o->arg_col);
			if (!strstr(sb_str(&note), one))
				sb_printf(&note, "%s%s", any ? " + " : "", one);
			free(one);
		} else {
			SuqlStatus st = rank_memory(w, k, &m, err);
			if (st != SUQL_OK) {
				sb_free(&note);
				return st;
			}
			sb_printf(&note, "%sBM25 in memory over the candidates' passages",
			          any ? " + " : "");
		}
		any = 1;
		double share = w->n ? (double)m / (double)w->n : 0.5;
		p *= share;
	}
	/* best first; equal scores keep the statement's order */
	for (long long i = 0; i < w->n; i++)
		w->order[i] = i;
	long long *tmp = xmalloc(((size_t)w->n + 1) * sizeof *tmp);
	/* merge sort by score, stable */
	for (long long width = 1; width < w->n; width *= 2) {
		for (long long lo = 0; lo < w->n; lo += 2 * width) {
			long long mid = lo + width < w->n ? lo + width : w->n;
			long long hi = lo + 2 * width < w->n ? lo + 2 * width : w->n;
			long long i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = w->score[w->order[j]] > w->score[w->order[i]] ? w->order[j++]
				                                                         : w->order[i++];
			while (i < mid)
				tmp[k++] = w->order[i++];
			while (j < hi)
				tmp[k++] = w->order[j++];
		}
		memcpy(w->order, tmp, (size_t)w->n * sizeof *tmp);
	}
	free(tmp);
	return rank_dense(w, p, prior, &note, err);
}

/* Dense similarity over the top of the ranking, when embeddings are configured; the
   note (consumed) becomes the unit's, p the prior. */
static SuqlStatus rank_dense(Walk *w, double p, double *prior, SBuf *note, SuqlErr *err)
{
	Exec *ex = w->ex;
	int *item = xmalloc(((size_t)w->u->natoms + 1) * sizeof *item);
	for (int k = 0; k < w->u->natoms; k++) {
		const Occ *o = &ex->occ[w->u->atoms[k]];
		item[k] = o->arg_indexed && w->b->identity ? o->arg_item : -1;
	}
	int dense = 0;
	SuqlStatus est = exec_embed_rerank(ex, w->u, item, w->ids, w->nid, w->score, w->order, w->nl,
	                              &dense, err);
	free(item);
	if (est != SUQL_OK) {
		sb_free(note);
		return est;
	}
	if (dense)
		sb_printf(note, ", the top %d again with embeddings (%s)", EMBED_TOP,
		          llm_embed_model(ex->e->llm));
	free(w->u->rank_note);
	w->u->rank_note = sb_steal(note);
	*prior = p;
	return SUQL_OK;
}
