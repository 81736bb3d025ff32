/*
 * exec_embed.c: dense similarity in the ranking, when an embedding model is configured
 * (llm_has_embeddings). BM25 through the retrieval index orders all candidates first; then
 * the top EMBED_TOP of them are ordered again by BM25 (divided by the best of them) plus the
 * cosine similarity between the question's embedding and the embedding of each candidate's
 * best passage. Embeddings come from LLM_EMBED calls (several in flight, cached by the
 * client) and are kept beside the retrieval index, in suql_emb_<index id>(pid, model, vec),
 * named in the index's registry row (embed_model, embed_dim, embed_table): a passage is
 * embedded once per model and endpoint (the column model holds "MODEL at ORIGIN", as
 * llm_model_id writes a chat model: vectors another endpoint gave under the same model's
 * name are not read; vectors kept before the origin was part of the key are never read
 * again). Passage ids are never given out twice, so a vector whose pid is
 * gone is simply never read again. Like BM25, this only orders candidates: the model
 * decides.
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int index_id(Exec *ex, const char *tbl, const char *col, sqlite3_int64 *id)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(ex->e->db, "SELECT id FROM suql_index WHERE tbl = ?1 AND col = ?2",
	                       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

static double cosine(const float *a, const float *b, int n)
{
	double ab = 0, aa = 0, bb = 0;
	for (int i = 0; i < n; i++) {
		ab += (double)a[i] * b[i];
		aa += (double)a[i] * a[i];
		bb += (double)b[i] * b[i];
	}
	return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0;
}

typedef struct EmbedCand {
	long long pos;        /* in the walk order */
	sqlite3_int64 pid;
	char *text;
	float *vec;
	int dim;
} EmbedCand;

/* Dense similarity of the candidates at positions [0, k) of order for one question; adds
   into dense[] (per position). Returns how many got a vector. */
static int dense_scores(Exec *ex, const Occ *o, const char *question, const sqlite3_int64 *rid,
                        int k, double *dense, SuqlErr *err, SuqlStatus *st)
{
	*st = SUQL_OK;
	sqlite3_int64 id;
	if (!index_id(ex, o->arg_table, o->arg_col, &id))
		return 0;
	RetIndex *ix = NULL;
	if (ret_open(ex->e->db, o->arg_table, o->arg_col, &ix, err) != SUQL_OK) {
		err_clear(err);
		return 0;
	}
	/* the model's name and the endpoint's origin are the key: vectors of different models,
	   or of one model's name at different endpoints, never mix */
	const char *origin = llm_origin(ex->e->llm);
	char *model = xprintf("%s at %s", llm_embed_model(ex->e->llm), origin ? origin : "");
	char *ddl = sqlite3_mprintf("CREATE TABLE IF NOT EXISTS suql_emb_%lld (pid INTEGER NOT NULL, "
	                            "model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (pid, model)) "
	                            "WITHOUT ROWID", (long long)id);
	int writable = sqlite3_exec(ex->e->db, ddl, NULL, NULL, NULL) == SQLITE_OK;
	sqlite3_free(ddl);
	char *qpid = sqlite3_mprintf("SELECT pid FROM suql_psg_%lld WHERE rid = ?1 AND ord = ?2",
	                             (long long)id);
	char *qvec = sqlite3_mprintf("SELECT vec FROM suql_emb_%lld WHERE pid = ?1 AND model = ?2",
	                             (long long)id);
	char *qput = sqlite3_mprintf("INSERT OR REPLACE INTO suql_emb_%lld (pid, model, vec) "
	                             "VALUES (?1, ?2, ?3)", (long long)id);
	sqlite3_stmt *spid = NULL, *svec = NULL, *sput = NULL;
	sqlite3_prepare_v2(ex->e->db, qpid, -1, &spid, NULL);
	sqlite3_prepare_v2(ex->e->db, qvec, -1, &svec, NULL);
	if (writable)
		sqlite3_prepare_v2(ex->e->db, qput, -1, &sput, NULL);
	sqlite3_free(qpid);
	sqlite3_free(qvec);
	sqlite3_free(qput);

	EmbedCand *c = xcalloc((size_t)k + 1, sizeof *c);
	LlmCall *calls = xcalloc((size_t)k + 1, sizeof *calls);
	LlmCall **cp = xmalloc(((size_t)k + 1) * sizeof *cp);
	int ncalls = 0;
	/* the question first */
	calls[0].kind = LLM_EMBED;
	calls[0].subject = question;
	cp[0] = &calls[0];
	ncalls = 1;
	for (int i = 0; i < k && spid && svec; i++) {
		c[i].pos = i;
		c[i].pid = -1;
		RetPassage *p = NULL;
		size_t np = 0;
		if (ret_index_passages(ix, rid[i], question, 0, &p, &np, err) != SUQL_OK || np == 0) {
			err_clear(err);
			ret_passages_free(p, np);
			continue;
		}
		c[i].text = xstrdup(p[0].text);
		sqlite3_reset(spid);
		sqlite3_bind_int64(spid, 1, rid[i]);
		sqlite3_bind_int(spid, 2, p[0].ord);
		if (sqlite3_step(spid) == SQLITE_ROW)
			c[i].pid = sqlite3_column_int64(spid, 0);
		ret_passages_free(p, np);
		if (c[i].pid >= 0) {
			sqlite3_reset(svec);
			sqlite3_bind_int64(svec, 1, c[i].pid);
			sqlite3_bind_text(svec, 2, model, -1, SQLITE_STATIC);
			if (sqlite3_step(svec) == SQLITE_ROW) {
				int bytes = sqlite3_column_bytes(svec, 0);
				c[i].dim = bytes / (int)sizeof(float);
				c[i].vec = xmalloc((size_t)bytes + 1);
				memcpy(c[i].vec, sqlite3_column_blob(svec, 0), (size_t)bytes);
				continue;
			}
		}
		calls[ncalls].kind = LLM_EMBED;
		calls[ncalls].subject = c[i].text;
		cp[ncalls] = &calls[ncalls];
		ncalls++;
	}
	*st = llm_run(ex->e->llm, cp, ncalls, NULL, NULL, err);
	int got = 0;
	if (*st == SUQL_OK && calls[0].status == LLM_DONE && calls[0].dim > 0) {
		int j = 1;
		for (int i = 0; i < k; i++) {
			if (!c[i].vec && c[i].text && j < ncalls && cp[j]->subject == c[i].text) {
				LlmCall *e = cp[j++];
				if (e->status == LLM_DONE && e->dim > 0) {
					c[i].dim = e->dim;
					c[i].vec = xmalloc((size_t)e->dim * sizeof(float));
					memcpy(c[i].vec, e->vec, (size_t)e->dim * sizeof(float));
					if (sput && c[i].pid >= 0) {
						sqlite3_reset(sput);
						sqlite3_bind_int64(sput, 1, c[i].pid);
						sqlite3_bind_text(sput, 2, model, -1, SQLITE_STATIC);
						sqlite3_bind_blob(sput, 3, c[i].vec, e->dim * (int)sizeof(float),
						                  SQLITE_STATIC);
						sqlite3_step(sput);
					}
				}
			}
			if (c[i].vec && c[i].dim == calls[0].dim) {
				dense[i] += cosine(calls[0].vec, c[i].vec, c[i].dim);
				got++;
			}
		}
		if (sput) {
			char *up = sqlite3_mprintf("UPDATE suql_index SET embed_model = %Q, embed_dim = %d, "
			                           "embed_table = 'suql_emb_%lld' WHERE id = %lld", model,
			                           calls[0].dim, (long long)id, (long long)id);
			sqlite3_exec(ex->e->db, up, NULL, NULL, NULL);
			sqlite3_free(up);
		}
	}
	for (int i = 0; i < ncalls; i++)
		llm_call_clear(cp[i]);
	for (int i = 0; i < k; i++) {
		free(c[i].text);
		free(c[i].vec);
	}
	free(c);
	free(calls);
	free(cp);
	sqlite3_finalize(spid);
	sqlite3_finalize(svec);
	sqlite3_finalize(sput);
	free(model);
	ret_close(ix);
	return got;
}

SuqlStatus exec_embed_rerank(Exec *ex, const Unit *u, const int *atom_item, const sqlite3_int64 *ids,
                        int nid, const double *score, long long *order, long long n, int *used,
                        SuqlErr *err)
{
	*used = 0;
	if (!ex->e->llm || !llm_has_embeddings(ex->e->llm) || n < 2 || !ex->e->dialect->embeddings)
		return SUQL_OK;
	int k = n < EMBED_TOP ? (int)n : EMBED_TOP;
	double *dense = xcalloc((size_t)k, sizeof *dense);
	sqlite3_int64 *rid = xmalloc((size_t)k * sizeof *rid);
	SuqlStatus st = SUQL_OK;
	int any = 0;
	for (int a = 0; a < u->natoms && st == SUQL_OK; a++) {
		const Occ *o = &ex->occ[u->atoms[a]];
		if (o->sig < 0 || !o->arg_indexed || atom_item[a] < 0 || !ex->sigs[o->sig].question)
			continue;
		for (int i = 0; i < k; i++)
			rid[i] = ids[order[i] * nid + atom_item[a]];
		any |= dense_scores(ex, o, ex->sigs[o->sig].question, rid, k, dense, err, &st) > 0;
	}
	if (st == SUQL_OK && any) {
		double best = 0;
		for (int i = 0; i < k; i++)
			if (score[order[i]] > best)
				best = score[order[i]];
		double *mix = xmalloc((size_t)k * sizeof *mix);
		for (int i = 0; i < k; i++)
			mix[i] = (best > 0 ? score[order[i]] / best : 0) + dense[i];
		/* stable insertion sort of the top k by the mixed score */
		for (int i = 1; i < k; i++) {
			long long oi = order[i];
			double mi = mix[i];
			int j = i;
			while (j > 0 && mix[j - 1] < mi) {
				order[j] = order[j - 1];
				mix[j] = mix[j - 1];
				j--;
			}
			order[j] = oi;
			mix[j] = mi;
		}
		free(mix);
		*used = 1;
	}
	free(dense);
	free(rid);
	return st;
}
