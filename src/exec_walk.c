/*
 * exec_walk.c: walking a block's candidates. For each unit (a DNF conjunct, or the whole
 * tree past the cap) one SQLite statement lists the candidates: the rows that satisfy its
 * structured part, with what identifies each row (rowids, json_each ids) so its text can be
 * fetched when needed, in the query's ORDER BY order when the walk is ordered. Free-text
 * leaves are evaluated first for every candidate. Unordered lazy walks rank the candidates
 * by relevance: BM25 through the retrieval index of the argument's column (ret_score over
 * the candidates' rowids), or in memory over the candidates' own passages; scores add up
 * over the unit's atoms.
 *
 * Then waves: each takes undecided candidates from the front, asks each one's next atom
 * (short-circuit over the unit's tree), and runs the asks through ft_run, batched and
 * several at once. As results come in, candidates are decided; once enough rows passed
 * (LIMIT + OFFSET: counted from the front in an ordered walk, any distinct rows otherwise)
 * the calls still pending are cancelled. A wave is sized from the rows still needed and
 * the pass rate seen so far, so that speculation stays small.
 */
#include "exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NULL_ID INT64_MIN

typedef struct Walk {
	Exec *ex;
	Block *b;
	Unit *u;
	int nid;
	Expr **idx;             /* the id expressions */
	int narg;
	Expr **args;            /* distinct argument expressions of the unit's atoms */
	int *atom_arg;          /* per atom */
	long long n, cap;
	sqlite3_int64 *ids;     /* n * nid */
	char **vals;            /* n * narg, when rows cannot be fetched again */
	size_t *lens;
	signed char *sqlv;      /* n * nsqlcols */
	signed char *atomv;     /* n * natoms: -2 unknown, -1 NULL, 0, 1 */
	signed char *state;     /* -1 undecided, 1 passed, 0 not */
	unsigned char *busy;    /* an ask is in flight */
	double *score;
	long long *order;       /* walk position -> candidate */
	long long *pos;         /* candidate -> walk position */
	sqlite3_stmt *fetch;
	/* the stop rule */
	long long need;         /* rows needed; -1: all */
	long long front, front_pass;
	long long passes;
	long long ndecided;
	long long stop_pos;     /* walk position where enough rows had passed; -1 */
	int global;             /* unordered with identity: distinct rows across units */
	/* done asks, for the speculation count */
	long long *log_pos;
	int *log_call;
	int *log_sent;
	long nlog, caplog;
	int wave;
} Walk;

/* Rows already found by an earlier unit (unordered walks, and to skip work). */
typedef struct RowSet {
	uint64_t *h;
	size_t cap, n;
} RowSet;

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

static RowSet found;   /* per block walk; reset by walk_block */

/* ---- the candidate statement ---- */

static void id_exprs(Walk *w)
{
	Exec *ex = w->ex;
	Block *b = w->b;
	if (!b->identity)
		return;
	w->idx = xmalloc(((size_t)b->nitems + 1) * sizeof *w->idx);
	for (int i = 0; i < b->nitems; i++) {
		ScopeItem *it = &b->items[i];
		const char *col = it->kind == IT_TABLE ? "rowid" : "id";
		w->idx[w->nid++] = ast_column(ex->a, it->name, col);
	}
}

static int arg_index(Walk *w, Expr *e)
{
	for (int i = 0; i < w->narg; i++)
		if (w->args[i] == e)
			return i;
	w->args = xrealloc(w->args, ((size_t)w->narg + 1) * sizeof *w->args);
	w->args[w->narg] = e;
	return w->narg++;
}

static char *candidate_sql(Walk *w, int with_args)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	char al[32];
	for (int i = 0; i < w->nid; i++) {
		snprintf(al, sizeof al, "suql_id%d", i);
		x_col(ex->a, &cols, w->idx[i], al);
	}
	if (with_args)
		for (int i = 0; i < w->narg; i++) {
			snprintf(al, sizeof al, "suql_arg%d", i);
			x_col(ex->a, &cols, w->args[i], al);
		}
	for (int i = 0; i < w->u->nsqlcols; i++) {
		snprintf(al, sizeof al, "suql_leaf%d", i);
		x_col(ex->a, &cols, w->u->sqlcols[i], al);
	}
	if (!cols)
		x_col(ex->a, &cols, ast_integer(ex->a, 1), "suql_one");
	Select *s = x_select(ex, w->b, cols, w->u->where, w->b->ordered ? w->b->order : NULL);
	return x_print_select(ex, s);
}

static void grow(Walk *w)
{
	if (w->n < w->cap)
		return;
	w->cap = w->cap ? w->cap * 2 : 256;
	size_t c = (size_t)w->cap;
	w->ids = xrealloc(w->ids, c * ((size_t)w->nid + 1) * sizeof *w->ids);
	if (!w->b->identity) {
		w->vals = xrealloc(w->vals, c * ((size_t)w->narg + 1) * sizeof *w->vals);
		w->lens = xrealloc(w->lens, c * ((size_t)w->narg + 1) * sizeof *w->lens);
	}
	w->sqlv = xrealloc(w->sqlv, c * ((size_t)w->u->nsqlcols + 1));
}

static SuqlStatus load_candidates(Walk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	char *sql = candidate_sql(w, !w->b->identity);
	free(w->u->sql);
	w->u->sql = sql;
	sqlite3_stmt *st;
	SuqlStatus s = x_prepare(ex, sql, &st, err);
	if (s != SUQL_OK)
		return s;
	int rc;
	int argc0 = w->nid, leafc0 = w->nid + (w->b->identity ? 0 : w->narg);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		grow(w);
		long long c = w->n++;
		for (int i = 0; i < w->nid; i++)
			w->ids[c * w->nid + i] = sqlite3_column_type(st, i) == SQLITE_NULL
			                         ? NULL_ID : sqlite3_column_int64(st, i);
		if (!w->b->identity)
			for (int i = 0; i < w->narg; i++) {
				size_t n = 0;
				char *v = x_value_text(sqlite3_column_value(st, argc0 + i), &n);
				w->vals[c * w->narg + i] = v;
				w->lens[c * w->narg + i] = n;
			}
		for (int i = 0; i < w->u->nsqlcols; i++) {
			int k = leafc0 + i;
			w->sqlv[c * w->u->nsqlcols + i] =
				sqlite3_column_type(st, k) == SQLITE_NULL ? -1
				: sqlite3_column_double(st, k) != 0 ? 1 : 0;
		}
		if (suql_interrupted)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		s = exec_sqlerr(ex, err, "listing candidates");
	else if (suql_interrupted)
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	sqlite3_finalize(st);
	return s;
}

/* The text of argument a of candidate c: stored, or fetched again by the row's ids. The
   returned text is the caller's (free). NULL: the value is NULL. */
static char *cand_value(Walk *w, long long c, int a, size_t *len, SuqlErr *err, int *failed)
{
	*failed = 0;
	if (!w->b->identity) {
		const char *v = w->vals[c * w->narg + a];
		*len = w->lens[c * w->narg + a];
		return v ? xstrndup(v, *len) : NULL;
	}
	Exec *ex = w->ex;
	if (!w->fetch) {
		ResultList *cols = NULL;
		for (int i = 0; i < w->narg; i++)
			x_col(ex->a, &cols, w->args[i], NULL);
		Expr *where = NULL;
		for (int i = 0; i < w->nid; i++) {
			Expr *p = ast_expr_new(ex->a, EX_PARAM);
			char nm[16];
			snprintf(nm, sizeof nm, "?%d", i + 1);
			p->name.s = arena_strndup(ex->a, nm, strlen(nm));
			p->name.n = strlen(nm);
			where = x_and(ex->a, where, ast_binary(ex->a, OP_IS, w->idx[i], p));
		}
		Select *s = x_select(ex, w->b, cols, where, NULL);
		char *sql = x_print_select(ex, s);
		SuqlStatus st = x_prepare(ex, sql, &w->fetch, err);
		free(sql);
		if (st != SUQL_OK) {
			*failed = 1;
			return NULL;
		}
	}
	sqlite3_reset(w->fetch);
	for (int i = 0; i < w->nid; i++) {
		sqlite3_int64 id = w->ids[c * w->nid + i];
		if (id == NULL_ID)
			sqlite3_bind_null(w->fetch, i + 1);
		else
			sqlite3_bind_int64(w->fetch, i + 1, id);
	}
	char *v = NULL;
	*len = 0;
	int rc = sqlite3_step(w->fetch);
	if (rc == SQLITE_ROW) {
		v = x_value_text(sqlite3_column_value(w->fetch, a), len);
	} else if (rc != SQLITE_DONE) {
		exec_sqlerr(ex, err, "fetching a candidate");
		*failed = 1;
	}
	sqlite3_reset(w->fetch);
	return v;
}

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
	sqlite3_int64 *rid = xmalloc(((size_t)w->n + 1) * sizeof *rid);
	for (long long c = 0; c < w->n; c++)
		rid[c] = w->ids[c * w->nid + item];
	/* the whole table when the structured part kept every row of it */
	long long total = w->b->nitems == 1 ? w->b->from_rows : -1;
	SuqlErr err = {0};
	RetQuestion q = {o->arg_col, s->question};
	RetScore *sc = NULL;
	size_t n = 0;
	SuqlStatus st = ret_score(ex->db, o->arg_table, &q, 1, total == w->n ? NULL : rid,
	                          total == w->n ? 0 : (size_t)w->n, RET_MATCHED_ONLY, 0, &sc, &n,
	                          &err);
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

/* In memory: BM25 of each candidate's best passage, statistics over all candidates. */
static SuqlStatus rank_memory(Walk *w, int k, long long *matched, SuqlErr *err)
{
	Exec *ex = w->ex;
	const Occ *o = &ex->occ[w->u->atoms[k]];
	const Sig *s = &ex->sigs[o->sig];
	if (!s->question)
		return SUQL_OK;
	TextTerms q = TEXT_TERMS_INIT;
	text_terms(s->question, strlen(s->question), &q);
	if (q.n == 0) {
		text_terms_free(&q);
		return SUQL_OK;
	}
	long long *df = xcalloc((size_t)q.n, sizeof *df);
	double npass = 0, totlen = 0;
	SuqlStatus st = SUQL_OK;
	for (int pass = 0; pass < 2 && st == SUQL_OK; pass++) {
		double avg = npass > 0 ? totlen / npass : 1;
		for (long long c = 0; c < w->n && st == SUQL_OK; c++) {
			size_t len;
			int failed;
			char *v = cand_value(w, c, w->atom_arg[k], &len, err, &failed);
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
				if (pass == 0) {
					npass++;
					totlen += t.n;
					for (int j = 0; j < q.n; j++)
						df[j] += text_terms_has(&t, q.v[j]);
				} else {
					double sc = 0;
					for (int j = 0; j < q.n; j++) {
						int tf = 0;
						for (int m = 0; m < t.n; m++)
							tf += strcmp(t.v[m], q.v[j]) == 0;
						if (!tf || !df[j])
							continue;
						double idf = log((npass - df[j] + 0.5) / (df[j] + 0.5) + 1.0);
						sc += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * t.n / avg));
					}
					if (sc > best)
						best = sc;
				}
				text_terms_free(&t);
			}
			if (pass == 1 && best > 0) {
				w->score[c] += best;
				++*matched;
			}
			text_strv_free(p, np);
			free(v);
			if (suql_interrupted)
				st = err_set(err, SUQL_INTERRUPT, "interrupted");
		}
	}
	free(df);
	text_terms_free(&q);
	return st;
}

static SuqlStatus rank(Walk *w, double *prior, SuqlErr *err)
{
	Exec *ex = w->ex;
	w->score = xcalloc((size_t)w->n + 1, sizeof *w->score);
	double p = 1;
	int any = 0;
	SBuf note = SBUF_INIT;
	for (int k = 0; k < w->u->natoms; k++) {
		const Occ *o = &ex->occ[w->u->atoms[k]];
		if (o->sig < 0)
			continue;
		long long m = 0;
		if (rank_index(w, k, &m)) {
			sb_printf(&note, "%sBM25 over the index of %s.%s", any ? " + " : "",
			          o->arg_table, o->arg_col);
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
	/* dense similarity over the top of the ranking, when embeddings are configured */
	int *item = xmalloc(((size_t)w->u->natoms + 1) * sizeof *item);
	for (int k = 0; k < w->u->natoms; k++) {
		const Occ *o = &ex->occ[w->u->atoms[k]];
		item[k] = o->arg_indexed && w->b->identity ? o->arg_item : -1;
	}
	int dense = 0;
	SuqlStatus est = embed_rerank(ex, w->u, item, w->ids, w->nid, w->score, w->order, w->n,
	                              &dense, err);
	free(item);
	if (est != SUQL_OK) {
		sb_free(&note);
		return est;
	}
	if (dense)
		sb_printf(&note, ", the top %d again with embeddings (%s)", EMBED_TOP,
		          llm_embed_model(ex->llm));
	w->u->ranking = 1;
	free(w->u->rank_note);
	w->u->rank_note = sb_steal(&note);
	*prior = p;
	return SUQL_OK;
}

/* ---- the tree ---- */

static int eval_node(const Unit *u, int n, const signed char *sqlv, const signed char *av,
                     int *next)
{
	const TNode *t = &u->nodes[n];
	switch (t->kind) {
	case TN_TRUE:
		return 1;
	case TN_SQL: {
		int v = sqlv[t->col];
		return v < 0 ? 2 : v;
	}
	case TN_ATOM: {
		int v = av[t->occ];
		if (v == -2) {
			if (*next < 0)
				*next = t->occ;
			return 3;
		}
		return v < 0 ? 2 : v;
	}
	case TN_NOT: {
		int v = eval_node(u, t->kids[0], sqlv, av, next);
		return v == 1 ? 0 : v == 0 ? 1 : v;
	}
	case TN_AND:
	case TN_OR: {
		int and = t->kind == TN_AND;
		int any_u = 0, any_n = 0, first = -1;
		for (int i = 0; i < t->nkids; i++) {
			int nx = -1;
			int v = eval_node(u, t->kids[i], sqlv, av, &nx);
			if (v == (and ? 0 : 1))
				return v;   /* decided whatever the rest says */
			if (v == 3) {
				any_u = 1;
				if (first < 0)
					first = nx;
			}
			if (v == 2)
				any_n = 1;
		}
		if (any_u) {
			if (*next < 0)
				*next = first;
			return 3;
		}
		return any_n ? 2 : and ? 1 : 0;
	}
	}
	return 2;
}

int unit_eval(const Unit *u, const signed char *sqlv, const signed char *atomv, int *next)
{
	*next = -1;
	if (u->nnodes == 0)
		return 1;
	return eval_node(u, 0, sqlv, atomv, next);
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
	w->log_call[w->nlog] = w->wave * 1000003 + r->call;
	w->log_sent[w->nlog] = r->sent;
	w->nlog++;
}

static long long have(const Walk *w)
{
	if (w->b->ordered)
		return w->front_pass;
	return w->global ? (long long)found.n : w->passes;
}

static int enough(Walk *w)
{
	while (w->front < w->n && w->state[w->order[w->front]] >= 0) {
		if (w->state[w->order[w->front]] == 1) {
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
	if (w->state[c] >= 0)
		return;
	int next;
	int v = unit_eval(w->u, w->sqlv + c * w->u->nsqlcols, w->atomv + c * w->u->natoms, &next);
	if (v == 3)
		return;
	w->state[c] = v == 1;
	w->ndecided++;
	if (v != 1)
		return;
	w->passes++;
	if (w->b->identity && rowset_add(&found, row_hash(w->ids + c * w->nid, w->nid)) &&
	    w->global && (long long)found.n == w->need && w->stop_pos < 0)
		w->stop_pos = w->pos[c];
	if (!w->b->ordered && !w->global && w->passes == w->need && w->stop_pos < 0)
		w->stop_pos = w->pos[c];
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

static SuqlStatus run_waves(Walk *w, double prior, SuqlErr *err)
{
	Exec *ex = w->ex;
	Unit *u = w->u;
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	int conc = llm_concurrency(ex->llm);
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
		long long want;
		if (w->need < 0) {
			want = 4096 > maxwave ? 4096 : maxwave;
		} else {
			double rate = (seen_pass + 2 * prior) / (seen_dec + 2.0);
			if (rate < 0.02)
				rate = 0.02;
			double rest = (double)(w->need - have(w));
			want = (long long)ceil(rest / rate);
			if (want > maxwave)
				want = maxwave;
			if (want < 1)
				want = 1;
		}
		Req *reqs = xcalloc((size_t)want, sizeof *reqs);
		int nreq = 0;
		long long progress = 0;
		for (long long p = w->front; p < w->n && nreq < want; p++) {
			long long c = w->order[p];
			if (w->state[c] >= 0 || w->busy[c])
				continue;
			/* a row an earlier unit found passes here too */
			if (w->b->identity && found.n &&
			    rowset_has(&found, row_hash(w->ids + c * w->nid, w->nid))) {
				w->state[c] = 1;
				w->ndecided++;
				w->passes++;
				progress++;
				continue;
			}
			for (;;) {
				int k;
				int v = unit_eval(u, w->sqlv + c * u->nsqlcols, w->atomv + c * u->natoms, &k);
				if (v != 3) {
					decide(w, c);
					progress++;
					break;
				}
				const Occ *o = &ex->occ[u->atoms[k]];
				size_t len;
				int failed;
				char *val = cand_value(w, c, w->atom_arg[k], &len, err, &failed);
				if (failed) {
					free(reqs);
					for (long i = 0; i < nwv; i++)
						free(wv[i]);
					free(wv);
					return SUQL_ERROR;
				}
				if (!val) {
					w->atomv[c * u->natoms + k] = -1;   /* NULL text: unknown */
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
		long long dec0 = w->passes;
		long long decided_before = w->ndecided;
		if (nreq > 0) {
			w->wave++;
			st = ft_run(ex, reqs, nreq, on_done, w, err);
			for (int i = 0; i < nreq; i++)
				if (reqs[i].state == 2)
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

static SuqlStatus ahead_values(Exec *ex, Block *b, int occ, Expr *where, long long *nvals,
                               SuqlErr *err)
{
	const Occ *o = &ex->occ[occ];
	if (o->sig < 0)
		return SUQL_OK;
	ResultList *cols = NULL;
	x_col(ex->a, &cols, o->arg, "suql_arg");
	Select *s = x_select(ex, b, cols, where, NULL);
	s->cores[0]->distinct = DISTINCT_DISTINCT;
	char *sql = x_print_select(ex, s);
	sqlite3_stmt *st;
	SuqlStatus r = x_prepare(ex, sql, &st, err);
	free(sql);
	if (r != SUQL_OK)
		return r;
	char **v = NULL;
	size_t *len = NULL;
	long n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof *v);
			len = xrealloc(len, (size_t)cap * sizeof *len);
		}
		v[n] = x_value_text(sqlite3_column_value(st, 0), &len[n]);
		n++;
	}
	if (rc != SQLITE_DONE)
		r = exec_sqlerr(ex, err, "reading the rows that pass WHERE");
	sqlite3_finalize(st);
	if (r == SUQL_OK && n) {
		Req *reqs = xcalloc((size_t)n, sizeof *reqs);
		for (long i = 0; i < n; i++) {
			reqs[i].sig = o->sig;
			reqs[i].v = v[i];
			reqs[i].n = len[i];
		}
		r = ft_run(ex, reqs, (int)n, NULL, NULL, err);
		free(reqs);
	}
	*nvals += n;
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(len);
	return r;
}

SuqlStatus walk_ahead(Exec *ex, Block *b, int occ, Expr *where, long long *nvals, SuqlErr *err)
{
	return ahead_values(ex, b, occ, where, nvals, err);
}

/* ---- a block ---- */

static void walk_free(Walk *w)
{
	if (!w->b->identity && w->vals)
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
	free(w->busy);
	free(w->score);
	free(w->order);
	free(w->pos);
	free(w->log_pos);
	free(w->log_call);
	free(w->log_sent);
	sqlite3_finalize(w->fetch);
}

static int same_arg(const Expr *a, const Expr *b)
{
	if (a == b)
		return 1;
	SBuf x = SBUF_INIT, y = SBUF_INIT;
	ast_dump_expr(&x, a);
	ast_dump_expr(&y, b);
	int eq = strcmp(sb_str(&x), sb_str(&y)) == 0;
	sb_free(&x);
	sb_free(&y);
	return eq;
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

static SuqlStatus walk_unit(Exec *ex, Block *b, Unit *u, SuqlErr *err)
{
	Walk w = {0};
	w.ex = ex;
	w.b = b;
	w.u = u;
	w.stop_pos = -1;
	w.need = b->limit;
	w.global = !b->ordered && b->identity && w.need >= 0;
	id_exprs(&w);
	w.atom_arg = xmalloc(((size_t)u->natoms + 1) * sizeof *w.atom_arg);
	for (int k = 0; k < u->natoms; k++) {
		Expr *a = ex->occ[u->atoms[k]].arg;
		int found_i = -1;
		for (int i = 0; i < w.narg && found_i < 0; i++)
			if (same_arg(w.args[i], a))
				found_i = i;
		w.atom_arg[k] = found_i >= 0 ? found_i : arg_index(&w, a);
	}
	SuqlStatus st = SUQL_OK;
	long long nvals = 0;
	for (int i = 0; i < u->nleaf_occ && st == SUQL_OK; i++)
		st = ahead_values(ex, b, u->leaf_occ[i], u->where_sql, &nvals, err);
	ex->cnt.ahead_values += nvals;
	if (st == SUQL_OK)
		st = load_candidates(&w, err);
	if (st != SUQL_OK) {
		walk_free(&w);
		return st;
	}
	u->rows = w.n;
	size_t n1 = (size_t)w.n + 1;
	w.atomv = xmalloc(n1 * ((size_t)u->natoms + 1));
	memset(w.atomv, -2, n1 * ((size_t)u->natoms + 1));
	w.state = xmalloc(n1);
	memset(w.state, -1, n1);
	w.busy = xcalloc(n1, 1);
	w.order = xmalloc(n1 * sizeof *w.order);
	w.pos = xmalloc(n1 * sizeof *w.pos);
	for (long long i = 0; i < w.n; i++)
		w.order[i] = i;
	double prior = 0.3;
	if (w.need >= 0 && !b->ordered && u->natoms > 0 && w.n > 1) {
		st = rank(&w, &prior, err);
		if (prior <= 0)
			prior = 0.05;
	}
	for (long long i = 0; i < w.n; i++)
		w.pos[w.order[i]] = i;
	if (st == SUQL_OK)
		st = run_waves(&w, prior, err);
	speculation(&w);
	for (long long c = 0; c < w.n; c++) {
		int any = w.state[c] >= 0;
		for (int k = 0; k < u->natoms && !any; k++)
			any = w.atomv[c * u->natoms + k] != -2;
		u->examined += any;
		u->accepted += w.state[c] == 1;
		u->rejected += w.state[c] == 0;
	}
	walk_free(&w);
	return st;
}

SuqlStatus walk_block(Exec *ex, Block *b, SuqlErr *err)
{
	free(found.h);
	memset(&found, 0, sizeof found);
	SuqlStatus st = SUQL_OK;
	long long best = 0;
	for (int i = 0; i < b->nunits && st == SUQL_OK; i++) {
		Unit *u = &b->units[i];
		/* unordered under LIMIT: any rows will do, and enough were found */
		if (b->limit >= 0 && !b->ordered &&
		    ((b->identity && (long long)found.n >= b->limit) || best >= b->limit)) {
			u->skipped = 1;
			continue;
		}
		st = walk_unit(ex, b, u, err);
		if (u->accepted > best)
			best = u->accepted;
	}
	free(found.h);
	memset(&found, 0, sizeof found);
	b->executed = 1;
	return st;
}

char *walk_sql(Exec *ex, Block *b, Unit *u)
{
	Walk w = {0};
	w.ex = ex;
	w.b = b;
	w.u = u;
	id_exprs(&w);
	for (int k = 0; k < u->natoms; k++) {
		Expr *a = ex->occ[u->atoms[k]].arg;
		int f = -1;
		for (int i = 0; i < w.narg && f < 0; i++)
			if (same_arg(w.args[i], a))
				f = i;
		if (f < 0)
			arg_index(&w, a);
	}
	char *s = candidate_sql(&w, !b->identity);
	free(w.idx);
	free(w.args);
	return s;
}

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
	if (mv->verdict == 1)
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
	id_exprs(&w);
	w.atom_arg = xmalloc(((size_t)u->natoms + 1) * sizeof *w.atom_arg);
	for (int k = 0; k < u->natoms; k++)
		w.atom_arg[k] = arg_index(&w, ex->occ[u->atoms[k]].arg);
	SuqlStatus st = load_candidates(&w, err);
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
		st = rank(&w1, &prior, err);
		w.score = w1.score;   /* w1.order is w.order: ranked in place */
		free(u->rank_note);
		u->rank_note = one.rank_note;
		u->ranking = one.ranking;
		memset(pass, -1, (size_t)w.n + 1);
		PsgAsk *asks = NULL;
		long nask = 0, cap = 0;
		for (long long p = 0; p < w.n && st == SUQL_OK; p++) {
			if (k_limit >= 0 && nask >= k_limit)
				break;
			long long c = w.order[p];
			size_t len;
			int failed;
			char *v = cand_value(&w, c, w.atom_arg[k], &len, err, &failed);
			if (failed) {
				st = SUQL_ERROR;
				break;
			}
			if (!v)
				continue;
			char **ps;
			size_t np = ft_passages(ex, &ex->sigs[o->sig], v, len, &ps);
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
			st = ft_run(ex, reqs, (int)nask, psg_done, pass, err);
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
			char *v = cand_value(&w, c, w.atom_arg[k], &len, err, &failed);
			if (failed) {
				st = SUQL_ERROR;
				break;
			}
			if (!v)
				continue;
			MemoVal *mv = memo_put(ex->memo, o->sig, v, len);
			if (mv->verdict != 1)
				mv->verdict = pass[c];
			u->examined++;
			free(v);
		}
	}
	free(pass);
	walk_free(&w);
	return st;
}

SuqlStatus passage_block(Exec *ex, Block *b, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	for (int i = 0; i < b->nunits && st == SUQL_OK; i++)
		st = passage_unit(ex, b, &b->units[i], err);
	b->executed = 1;
	return st;
}
