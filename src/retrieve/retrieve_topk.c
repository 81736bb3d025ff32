/*
 * retrieve_topk.c: impact lists, so that the best k rows of a whole table for a question are
 * found without scoring every passage that shares a word with it.
 *
 * Why. A passage's BM25 for one word grows with the word's count in it (tf) and falls with
 * its length (dl). A common word ("romantic" in 200k of 6.5M passages) makes a full ranking
 * score every one of them; the best ones are the short passages with the highest counts.
 *
 * What is stored, per index, for every word (term, as FTS5's tokenizer spells it) and
 * stratum s (tf = 1, tf = 2, tf >= 3):
 *   suql_imp_<id>(term, s, dl, rid, pid, tf)  the RET_IMPACT_KEEP postings with the
 *                 smallest key (dl, rid, pid): within a stratum, the highest scores first
 *                 whatever the average length is, ties in row order;
 *   suql_rest_<id>(term, s, dl, rid, pid, tfmax)  for a stratum with more postings than
 *                 that: the smallest key not listed (every posting not listed has a key at
 *                 least as large) and, for s = 3, the largest tf not listed. A stratum
 *                 without a row here is listed whole.
 *   suql_df_<id>(term, df)  how many passages hold the word, so that a question's idf
 *                 needs no count through FTS5 (which visits every posting).
 * They are written when the index is built (the passages are cut into words by FTS5's own
 * tokenizer, the same one the FTS5 index uses) and kept true when rows are re-indexed: a
 * removed passage leaves the lists, an added one enters a list when its key is below the
 * stratum's rest (or the stratum is listed whole), else it only raises tfmax.
 *
 * The query (ret_topk_run): the listed postings of the question's words are the candidates;
 * each is scored exactly (its text cut into words again, the same BM25 arithmetic as the
 * FTS5 ranking function), a row taking its best passage. A passage that is not a candidate
 * has, for every question word it holds, a key at or past that stratum's rest, so its score
 * is at most f(d) = BM25 with each word at its largest possible count for length d >= the
 * rests' lengths. When the k-th row's score beats every f(d) (or equals it and the rests'
 * row order puts such passages after the k-th row), the k rows are the exact answer.
 * Else, for two to RET_SCAN_MAX words, the same bound is taken per set of words a passage
 * may hold: the sets of two or more whose bound the k-th row does not beat are scanned
 * (FTS5 AND, passages holding every word of such a set, scored by suql_rank), and the
 * answer stands when every set not scanned (each single word among them) loses to the
 * new k-th row; otherwise the caller scores everything as before. Nothing is approximate.
 */
#include "retrieve/retrieve_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tokenizer ---- */

SuqlStatus ret_tok_open(sqlite3 *db, RetTok *t, SuqlErr *err)
{
	memset(t, 0, sizeof *t);
	fts5_api *api = NULL;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	void *ud = NULL;
	/* RET_TOKENIZER: porter over unicode61 remove_diacritics 2 */
	static const char *const args[] = {"unicode61", "remove_diacritics", "2"};
	if (!api || api->xFindTokenizer(api, "porter", &ud, &t->api) != SQLITE_OK ||
	    t->api.xCreate(ud, (const char **)args, 3, &t->tok) != SQLITE_OK) {
		t->tok = NULL;
		return err_set(err, SUQL_ERROR, "retrieval index: this SQLite has no FTS5 porter tokenizer");
	}
	return SUQL_OK;
}

void ret_tok_close(RetTok *t)
{
	if (t->tok)
		t->api.xDelete(t->tok);
	t->tok = NULL;
	sb_free(&t->buf);
	free(t->off);
}

static int tok_cb(void *ctx, int flags, const char *s, int n, int start, int end)
{
	(void)start;
	(void)end;
	RetTok *t = ctx;
	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	if (t->n == t->cap)
		t->off = xrealloc(t->off, (size_t)(t->cap = t->cap ? t->cap * 2 : 64) * sizeof *t->off);
	t->off[t->n++] = t->buf.len;
	sb_putn(&t->buf, s, (size_t)n);
	sb_putc(&t->buf, '\0');
	return SQLITE_OK;
}

int ret_tok_run(RetTok *t, const char *text, size_t len, int query)
{
	t->n = 0;
	sb_truncate(&t->buf, 0);
	if (!t->tok || t->api.xTokenize(t->tok, t, query ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT,
	                                text, (int)len, tok_cb) != SQLITE_OK)
		return -1;
	return t->n;
}

/* ---- one passage's words and counts ---- */

typedef struct Word {
	const char *s;
	int tf;
} Word;

static int by_word(const void *a, const void *b)
{
	return strcmp(((const Word *)a)->s, ((const Word *)b)->s);
}

/* The distinct words of text and their counts, into *w (grown as needed); -1: no tokens
   could be read. Strings point into t's buffer until the next run. */
static int passage_words(RetTok *t, const char *text, size_t len, Word **w, int *cap)
{
	int n = ret_tok_run(t, text, len, 0);
	if (n < 0)
		return -1;
	if (n > *cap)
		*w = xrealloc(*w, (size_t)(*cap = n) * sizeof **w);
	for (int i = 0; i < n; i++)
		(*w)[i] = (Word){t->buf.s + t->off[i], 1};
	qsort(*w, (size_t)n, sizeof **w, by_word);
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (k && strcmp((*w)[k - 1].s, (*w)[i].s) == 0)
			(*w)[k - 1].tf++;
		else
			(*w)[k++] = (*w)[i];
	}
	return k;
}

static int stratum(int tf)
{
	return tf >= 3 ? 3 : tf;
}

/* ---- building ---- */

typedef struct Key {
	int dl, tf;
	sqlite3_int64 rid, pid;
} Key;

static int key_cmp(const Key *a, const Key *b)
{
	if (a->dl != b->dl)
		return a->dl < b->dl ? -1 : 1;
	if (a->rid != b->rid)
		return a->rid < b->rid ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The smallest RET_IMPACT_KEEP + 1 keys seen: a max-heap, its root the largest kept. */
typedef struct Heap {
	Key *v;
	int n;
	int tfmax;            /* s = 3: the largest tf of the postings dropped */
} Heap;

typedef struct Term {
	char *s;
	size_t len;
	long long df;         /* passages holding it */
	long long stamp;      /* the passage tf counts for */
	int tf;
	Heap h[3];
} Term;

struct RetImpact {
	RetTok tok;
	Term *v;
	size_t n, cap;
	size_t *slot;         /* open addressing: index + 1 into v */
	size_t nslot;
	size_t *seen;         /* the words of the current passage, as indexes into v */
	size_t nseen, capseen;
	long long cur;        /* passages offered so far */
};

static void terms_grow(RetImpact *im)
{
	size_t ns = im->nslot ? im->nslot * 2 : 4096;
	free(im->slot);
	im->slot = xcalloc(ns, sizeof *im->slot);
	im->nslot = ns;
	for (size_t i = 0; i < im->n; i++) {
		size_t h = (size_t)str_hash64(im->v[i].s, im->v[i].len) & (ns - 1);
		while (im->slot[h])
			h = (h + 1) & (ns - 1);
		im->slot[h] = i + 1;
	}
}

/* The index of the word s[0..n) in im->v, added when new. */
static size_t term_get(RetImpact *im, const char *s, size_t n)
{
	if ((im->n + 1) * 2 > im->nslot)
		terms_grow(im);
	size_t h = (size_t)str_hash64(s, n) & (im->nslot - 1);
	while (im->slot[h]) {
		Term *t = &im->v[im->slot[h] - 1];
		if (t->len == n && memcmp(t->s, s, n) == 0)
			return im->slot[h] - 1;
		h = (h + 1) & (im->nslot - 1);
	}
	if (im->n == im->cap)
		im->v = xrealloc(im->v, (im->cap = im->cap ? im->cap * 2 : 1024) * sizeof *im->v);
	Term *t = &im->v[im->n];
	memset(t, 0, sizeof *t);
	t->s = xstrndup(s, n);
	t->len = n;
	im->slot[h] = ++im->n;
	return im->n - 1;
}

static void sift_up(Key *v, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		if (key_cmp(&v[p], &v[i]) >= 0)
			return;
		Key x = v[p];
		v[p] = v[i];
		v[i] = x;
		i = p;
	}
}

static void sift_down(Key *v, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && key_cmp(&v[l], &v[m]) > 0)
			m = l;
		if (r < n && key_cmp(&v[r], &v[m]) > 0)
			m = r;
		if (m == i)
			return;
		Key x = v[m];
		v[m] = v[i];
		v[i] = x;
		i = m;
	}
}

static void heap_offer(Heap *h, const Key *k)
{
	enum { CAP = RET_IMPACT_KEEP + 1 };
	if (h->n < CAP) {
		if (!h->v)
			h->v = xmalloc(CAP * sizeof *h->v);
		h->v[h->n] = *k;
		sift_up(h->v, h->n++);
		return;
	}
	if (key_cmp(k, &h->v[0]) >= 0) {
		if (k->tf > h->tfmax)
			h->tfmax = k->tf;
		return;
	}
	if (h->v[0].tf > h->tfmax)
		h->tfmax = h->v[0].tf;
	h->v[0] = *k;
	sift_down(h->v, h->n, 0);
}

SuqlStatus ret_impact_begin(sqlite3 *db, RetImpact **out, SuqlErr *err)
{
	RetImpact *im = xcalloc(1, sizeof *im);
	if (ret_tok_open(db, &im->tok, err) != SUQL_OK) {
		ret_impact_free(im);
		*out = NULL;
		return SUQL_ERROR;
	}
	*out = im;
	return SUQL_OK;
}

void ret_impact_free(RetImpact *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->n; i++) {
		free(im->v[i].s);
		for (int s = 0; s < 3; s++)
			free(im->v[i].h[s].v);
	}
	free(im->v);
	free(im->slot);
	free(im->seen);
	ret_tok_close(&im->tok);
	free(im);
}

/* Building sees every token of millions of passages: each is counted in its word's entry
   as the tokenizer hands it over (no copy, no sort). */
static int add_cb(void *ctx, int flags, const char *s, int n, int start, int end)
{
	(void)start;
	(void)end;
	RetImpact *im = ctx;
	if (flags & FTS5_TOKEN_COLOCATED)
		return SQLITE_OK;
	size_t i = term_get(im, s, (size_t)n);
	Term *t = &im->v[i];
	if (t->stamp == im->cur) {
		t->tf++;
		return SQLITE_OK;
	}
	t->stamp = im->cur;
	t->tf = 1;
	if (im->nseen == im->capseen)
		im->seen = xrealloc(im->seen, (im->capseen = im->capseen ? im->capseen * 2 : 64) *
		                    sizeof *im->seen);
	im->seen[im->nseen++] = i;
	return SQLITE_OK;
}

SuqlStatus ret_impact_add(RetImpact *im, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                          const char *text, SuqlErr *err)
{
	im->cur++;
	im->nseen = 0;
	if (im->tok.api.xTokenize(im->tok.tok, im, FTS5_TOKENIZE_DOCUMENT, text, (int)strlen(text),
	                          add_cb) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "retrieval index: the tokenizer failed on passage %lld",
		               (long long)pid);
	for (size_t i = 0; i < im->nseen; i++) {
		Term *t = &im->v[im->seen[i]];
		t->df++;
		Key k = {dl, t->tf, rid, pid};
		heap_offer(&t->h[stratum(k.tf) - 1], &k);
	}
	return SUQL_OK;
}

static SuqlStatus prepare(sqlite3 *db, sqlite3_stmt **st, SuqlErr *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static SuqlStatus prepare(sqlite3 *db, sqlite3_stmt **st, SuqlErr *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	SBuf b = SBUF_INIT;
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	int rc = sqlite3_prepare_v2(db, b.s, -1, st, NULL);
	sb_free(&b);
	if (rc != SQLITE_OK) {
		*st = NULL;
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	}
	return SUQL_OK;
}

static void bind_key(sqlite3_stmt *st, const char *term, int s, const Key *k)
{
	sqlite3_bind_text(st, 1, term, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, s);
	sqlite3_bind_int(st, 3, k->dl);
	sqlite3_bind_int64(st, 4, k->rid);
	sqlite3_bind_int64(st, 5, k->pid);
	sqlite3_bind_int(st, 6, k->tf);
}

SuqlStatus ret_impact_finish(sqlite3 *db, RetImpact *im, const RetEntry *e, SuqlErr *err)
{
	sqlite3_stmt *ins = NULL, *rest = NULL, *df = NULL;
	SuqlStatus s = prepare(db, &ins, err, "INSERT INTO %s(term, s, dl, rid, pid, tf) VALUES "
	                       "(?1, ?2, ?3, ?4, ?5, ?6)", e->imp);
	if (s == SUQL_OK)
		s = prepare(db, &df, err, "INSERT INTO %s(term, df) VALUES (?1, ?2)", e->df);
	if (s == SUQL_OK)
		s = prepare(db, &rest, err, "INSERT INTO %s(term, s, dl, rid, pid, tfmax) VALUES "
		            "(?1, ?2, ?3, ?4, ?5, ?6)", e->rest);
	/* in term order, so that the WITHOUT ROWID tables are written in key order */
	size_t *ord = xmalloc((im->n ? im->n : 1) * sizeof *ord);
	for (size_t i = 0; i < im->n; i++)
		ord[i] = i;
	for (size_t i = 1; i < im->n; i++) {   /* insertion sort of a few thousand names */
		size_t x = ord[i], j = i;
		while (j > 0 && strcmp(im->v[ord[j - 1]].s, im->v[x].s) > 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = x;
	}
	for (size_t i = 0; i < im->n && s == SUQL_OK; i++) {
		Term *t = &im->v[ord[i]];
		sqlite3_bind_text(df, 1, t->s, -1, SQLITE_STATIC);
		sqlite3_bind_int64(df, 2, t->df);
		s = ret_step(db, df, err);
		for (int k = 0; k < 3 && s == SUQL_OK; k++) {
			Heap *h = &t->h[k];
			if (h->n > RET_IMPACT_KEEP) {   /* the largest kept is the rest */
				Key r = h->v[0];
				h->v[0] = h->v[--h->n];
				sift_down(h->v, h->n, 0);
				if (r.tf < h->tfmax)
					r.tf = h->tfmax;
				bind_key(rest, t->s, k + 1, &r);
				s = ret_step(db, rest, err);
			}
			/* ascending key order: sort the heap in place */
			for (int m = h->n; m > 1 && s == SUQL_OK; m--) {
				Key x = h->v[0];
				h->v[0] = h->v[m - 1];
				h->v[m - 1] = x;
				sift_down(h->v, m - 1, 0);
			}
			for (int m = 0; m < h->n && s == SUQL_OK; m++) {
				bind_key(ins, t->s, k + 1, &h->v[m]);
				s = ret_step(db, ins, err);
			}
		}
	}
	free(ord);
	sqlite3_finalize(ins);
	sqlite3_finalize(rest);
	sqlite3_finalize(df);
	return s;
}

/* ---- keeping the lists true when rows are re-indexed ---- */

struct RetImpactW {
	sqlite3 *db;
	RetTok tok;
	sqlite3_stmt *del, *ins, *rest, *raise, *df;
	Word *w;
	int wcap;
};

SuqlStatus ret_impactw_open(sqlite3 *db, const RetEntry *e, RetImpactW **out, SuqlErr *err)
{
	RetImpactW *u = xcalloc(1, sizeof *u);
	u->db = db;
	SuqlStatus s = ret_tok_open(db, &u->tok, err);
	if (s == SUQL_OK)
		s = prepare(db, &u->del, err, "DELETE FROM %s WHERE term = ?1 AND s = ?2 AND dl = ?3 AND "
		            "rid = ?4 AND pid = ?5", e->imp);
	if (s == SUQL_OK)
		s = prepare(db, &u->ins, err, "INSERT OR REPLACE INTO %s(term, s, dl, rid, pid, tf) VALUES "
		            "(?1, ?2, ?3, ?4, ?5, ?6)", e->imp);
	if (s == SUQL_OK)
		s = prepare(db, &u->rest, err, "SELECT dl, rid, pid, tfmax FROM %s WHERE term = ?1 AND s = ?2",
		            e->rest);
	if (s == SUQL_OK)
		s = prepare(db, &u->df, err, "INSERT INTO %s(term, df) VALUES (?1, ?2) ON CONFLICT(term) "
		            "DO UPDATE SET df = df + ?2", e->df);
	if (s == SUQL_OK)
		s = prepare(db, &u->raise, err, "UPDATE %s SET tfmax = ?3 WHERE term = ?1 AND s = ?2 AND "
		            "tfmax < ?3", e->rest);
	if (s != SUQL_OK) {
		ret_impactw_close(u);
		u = NULL;
	}
	*out = u;
	return s;
}

void ret_impactw_close(RetImpactW *u)
{
	if (!u)
		return;
	sqlite3_finalize(u->del);
	sqlite3_finalize(u->ins);
	sqlite3_finalize(u->rest);
	sqlite3_finalize(u->raise);
	sqlite3_finalize(u->df);
	ret_tok_close(&u->tok);
	free(u->w);
	free(u);
}

static SuqlStatus count_word(RetImpactW *u, const char *term, int by, SuqlErr *err)
{
	sqlite3_bind_text(u->df, 1, term, -1, SQLITE_STATIC);
	sqlite3_bind_int(u->df, 2, by);
	return ret_step(u->db, u->df, err);
}

SuqlStatus ret_impactw_remove(RetImpactW *u, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                              const char *text, SuqlErr *err)
{
	int n = passage_words(&u->tok, text, strlen(text), &u->w, &u->wcap);
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++) {
		Key k = {dl, u->w[i].tf, rid, pid};
		bind_key(u->del, u->w[i].s, stratum(k.tf), &k);
		s = ret_step(u->db, u->del, err);
		if (s == SUQL_OK)
			s = count_word(u, u->w[i].s, -1, err);
	}
	return s;
}

SuqlStatus ret_impactw_add(RetImpactW *u, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                           const char *text, SuqlErr *err)
{
	int n = passage_words(&u->tok, text, strlen(text), &u->w, &u->wcap);
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++) {
		Key k = {dl, u->w[i].tf, rid, pid};
		int st = stratum(k.tf);
		if ((s = count_word(u, u->w[i].s, 1, err)) != SUQL_OK)
			break;
		sqlite3_bind_text(u->rest, 1, u->w[i].s, -1, SQLITE_STATIC);
		sqlite3_bind_int(u->rest, 2, st);
		int below = 1;
		if (sqlite3_step(u->rest) == SQLITE_ROW) {
			Key r = {sqlite3_column_int(u->rest, 0), 0, sqlite3_column_int64(u->rest, 1),
			         sqlite3_column_int64(u->rest, 2)};
			below = key_cmp(&k, &r) < 0;
		}
		sqlite3_reset(u->rest);
		if (below) {
			bind_key(u->ins, u->w[i].s, st, &k);
			s = ret_step(u->db, u->ins, err);
		} else if (st == 3) {
			sqlite3_bind_text(u->raise, 1, u->w[i].s, -1, SQLITE_STATIC);
			sqlite3_bind_int(u->raise, 2, st);
			sqlite3_bind_int(u->raise, 3, k.tf);
			s = ret_step(u->db, u->raise, err);
		}
	}
	return s;
}

/* ---- the query ---- */

typedef struct Cand {
	sqlite3_int64 pid, rid;
	int dl;
	double score;
} Cand;

static int by_pid(const void *a, const void *b)
{
	sqlite3_int64 x = ((const Cand *)a)->pid, y = ((const Cand *)b)->pid;
	return (x > y) - (x < y);
}

static int by_rid_score(const void *a, const void *b)
{
	const Cand *x = a, *y = b;
	if (x->rid != y->rid)
		return x->rid < y->rid ? -1 : 1;
	return (x->score < y->score) - (x->score > y->score);
}

static int by_score_rid(const void *a, const void *b)
{
	const Cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (x->rid > y->rid) - (x->rid < y->rid);
}

typedef struct Rest {
	int has;              /* 0: the stratum is listed whole */
	Key k;                /* k.tf: the largest count a posting past the rest may have */
} Rest;

/* Rows, each with its best passage, best first (ties by rowid); the count. */
static size_t best_per_row(Cand *c, size_t nc)
{
	if (nc)
		qsort(c, nc, sizeof *c, by_rid_score);
	size_t k = 0;
	for (size_t i = 0; i < nc; i++)
		if (c[i].score > 0 && (k == 0 || c[k - 1].rid != c[i].rid))
			c[k++] = c[i];
	if (k)
		qsort(c, k, sizeof *c, by_score_rid);
	return k;
}

/* Can no passage outside the candidates beat the k-th row (score theta, row rid_k)? Such
   a passage of length d holds each word it holds (of those in mask, bit p for word p) in a
   stratum whose rest starts at or below d, so it scores at most f(d), BM25 with each word
   at the largest count those strata allow. f only rises at the rests' lengths and falls
   between them, so those are the lengths to try. At f(d) = theta the passage ties; it
   still comes after the k-th row when some word's stratum starts at d exactly, past row
   rid_k. */
static int bound_ok(const RetRank *rk, const Rest *rs, int np, unsigned long long mask,
                    double theta, sqlite3_int64 rid_k)
{
	for (int i = 0; i < np * 3; i++) {
		if (!rs[i].has || !(mask >> (i / 3) & 1))
			continue;
		int d = rs[i].k.dl;
		int tf[RET_MAX_PHRASES] = {0};
		sqlite3_int64 after = 0;   /* such a passage's row is at least this (when known) */
		int known = 0;
		for (int p = 0; p < np; p++) {
			if (!(mask >> p & 1))
				continue;
			int best = -1;
			for (int st = 0; st < 3; st++) {
				const Rest *r = &rs[p * 3 + st];
				if (r->has && r->k.dl <= d && (best < 0 || r->k.tf > rs[p * 3 + best].k.tf))
					best = st;
			}
			if (best < 0)
				continue;
			tf[p] = rs[p * 3 + best].k.tf;
			if (rs[p * 3 + best].k.dl == d && (!known || rs[p * 3 + best].k.rid > after)) {
				after = rs[p * 3 + best].k.rid;
				known = 1;
			}
		}
		double f = ret_rank_passage(rk, tf, d);
		if (f > theta || (f == theta && (!known || after < rid_k)))
			return 0;
	}
	return 1;
}

/* Is some set in pick[0..n) inside the set m (its passages scanned already)? */
static int covered(const unsigned long long *pick, int n, unsigned long long m)
{
	for (int i = 0; i < n; i++)
		if ((pick[i] & m) == pick[i])
			return 1;
	return 0;
}

/* The MATCH for the passages holding every word of one of the sets pick[0..n): the words
   AND-ed when the one set is all of them, else ("a" OR "b" OR "c") AND (("a" AND "b") OR
   ...). The question's own phrases come first, in order, and under the root AND each of
   them is on the current passage whenever it holds the word, so suql_rank (which ignores
   the later phrases) counts the words as the full scan does. */
static char *scan_match(const char *const *phrase, int np, const unsigned long long *pick, int n)
{
	SBuf b = SBUF_INIT;
	const char *sep = "";
	int all = n == 1 && pick[0] == (1ULL << np) - 1;
	if (!all) {
		sb_putc(&b, '(');
		for (int p = 0; p < np; p++, sep = " OR ")
			sb_printf(&b, "%s%s", sep, phrase[p]);
		sb_puts(&b, ") AND (");
	}
	for (int i = 0; i < n; i++) {
		sb_puts(&b, i ? " OR (" : "(");
		sep = "";
		for (int p = 0; p < np; p++)
			if (pick[i] >> p & 1) {
				sb_printf(&b, "%s%s", sep, phrase[p]);
				sep = " AND ";
			}
		sb_putc(&b, ')');
	}
	if (!all)
		sb_putc(&b, ')');
	return sb_steal(&b);
}

SuqlStatus ret_topk_run(sqlite3 *db, const RetEntry *e, const RetRank *rk, char *const *tok,
                        sqlite3_stmt *scan, const char *const *phrase, size_t limit,
                        RetScore **out, size_t *nout, int *proven, SuqlErr *err)
{
	*out = NULL;
	*nout = 0;
	*proven = 0;
	int np = rk->nphrase;
	sqlite3_stmt *list = NULL, *rest = NULL, *text = NULL;
	SuqlStatus s = prepare(db, &list, err, "SELECT pid, rid, dl FROM %s WHERE term = ?1", e->imp);
	if (s == SUQL_OK)
		s = prepare(db, &rest, err, "SELECT s, dl, rid, pid, tfmax FROM %s WHERE term = ?1", e->rest);
	if (s == SUQL_OK)
		s = prepare(db, &text, err, "SELECT t.text, p.ntok FROM %s AS t JOIN %s AS p ON p.pid = t.pid "
		            "WHERE t.pid = ?1", e->txt, e->psg);
	Rest *rs = xcalloc((size_t)(np ? np : 1) * 3, sizeof *rs);
	Cand *c = NULL;
	size_t nc = 0, cap = 0;
	for (int p = 0; p < np && s == SUQL_OK; p++) {
		int dup = 0;
		for (int q = 0; q < p && !dup; q++)
			dup = strcmp(tok[q], tok[p]) == 0;
		sqlite3_bind_text(rest, 1, tok[p], -1, SQLITE_STATIC);
		while (sqlite3_step(rest) == SQLITE_ROW) {
			int st = sqlite3_column_int(rest, 0);
			if (st < 1 || st > 3)
				continue;
			Rest *r = &rs[p * 3 + st - 1];
			r->has = 1;
			r->k = (Key){sqlite3_column_int(rest, 1), sqlite3_column_int(rest, 4),
			             sqlite3_column_int64(rest, 2), sqlite3_column_int64(rest, 3)};
		}
		sqlite3_reset(rest);
		if (dup)
			continue;
		sqlite3_bind_text(list, 1, tok[p], -1, SQLITE_STATIC);
		while (sqlite3_step(list) == SQLITE_ROW) {
			if (nc == cap)
				c = xrealloc(c, (cap = cap ? cap * 2 : 256) * sizeof *c);
			c[nc++] = (Cand){sqlite3_column_int64(list, 0), sqlite3_column_int64(list, 1), 0, 0};
		}
		sqlite3_reset(list);
	}
	/* every candidate once, scored from its text */
	if (nc)
		qsort(c, nc, sizeof *c, by_pid);
	size_t k = 0;
	for (size_t i = 0; i < nc; i++)
		if (k == 0 || c[k - 1].pid != c[i].pid)
			c[k++] = c[i];
	nc = k;
	RetTok tk;
	if (s == SUQL_OK)
		s = ret_tok_open(db, &tk, err);
	else
		memset(&tk, 0, sizeof tk);
	Word *w = NULL;
	int wcap = 0;
	for (size_t i = 0; i < nc && s == SUQL_OK; i++) {
		sqlite3_bind_int64(text, 1, c[i].pid);
		if (sqlite3_step(text) != SQLITE_ROW) {   /* a list names a passage that is gone */
			sqlite3_reset(text);
			goto done;
		}
		c[i].dl = sqlite3_column_int(text, 1);
		int n = passage_words(&tk, (const char *)sqlite3_column_text(text, 0),
		                      (size_t)sqlite3_column_bytes(text, 0), &w, &wcap);
		int tf[RET_MAX_PHRASES] = {0};
		for (int j = 0; j < n; j++)
			for (int p = 0; p < np; p++)
				if (strcmp(w[j].s, tok[p]) == 0)
					tf[p] = w[j].tf;
		c[i].score = ret_rank_passage(rk, tf, c[i].dl);
		sqlite3_reset(text);
	}
	if (s != SUQL_OK)
		goto done;
	nc = best_per_row(c, nc);
	int truncated = 0;
	for (int i = 0; i < np * 3; i++)
		truncated |= rs[i].has;
	int ok = !truncated ||
	         (nc >= limit && bound_ok(rk, rs, np, ~0ULL, c[limit - 1].score, c[limit - 1].rid));
	if (!ok && scan && phrase && np >= 2 && np <= RET_SCAN_MAX &&
	    (np > 2 || strcmp(tok[0], tok[1]) != 0)) {
		/* Score every passage holding one of the sets of two or more words whose bound the
		   k-th row does not beat yet (smallest sets first; FTS5's AND, far fewer passages
		   than any one word's). A passage seen neither by this nor by the lists holds a set
		   of words none of them scanned and sits past each word's rest: that set's bound
		   must lose to the k-th row found after the scan. */
		unsigned long long full = (1ULL << np) - 1, pick[1 << RET_SCAN_MAX];
		int npick = 0;
		for (int size = 2; size <= np; size++)
			for (unsigned long long m = 3; m <= full; m++)
				if (__builtin_popcountll(m) == size && !covered(pick, npick, m) &&
				    (nc < limit || !bound_ok(rk, rs, np, m, c[limit - 1].score, c[limit - 1].rid)))
					pick[npick++] = m;
		char *match = scan_match(phrase, np, pick, npick);
		sqlite3_bind_pointer(scan, 1, (void *)rk, "suql_rank", NULL);
		sqlite3_bind_text(scan, 2, match, -1, SQLITE_STATIC);
		int rc;
		while ((rc = sqlite3_step(scan)) == SQLITE_ROW) {
			if (nc == cap)
				c = xrealloc(c, (cap = cap ? cap * 2 : 256) * sizeof *c);
			c[nc++] = (Cand){0, sqlite3_column_int64(scan, 0), 0, sqlite3_column_double(scan, 1)};
		}
		sqlite3_reset(scan);
		sqlite3_clear_bindings(scan);
		free(match);
		if (rc != SQLITE_DONE) {
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
			goto done;
		}
		nc = best_per_row(c, nc);
		ok = nc >= limit;
		for (unsigned long long m = 1; m <= full && ok; m++)
			ok = covered(pick, npick, m) || bound_ok(rk, rs, np, m, c[limit - 1].score,
			                                         c[limit - 1].rid);
	}
	if (!ok)
		goto done;
	if (nc > limit)
		nc = limit;
	RetScore *res = xmalloc((nc ? nc : 1) * sizeof *res);
	for (size_t i = 0; i < nc; i++)
		res[i] = (RetScore){c[i].rid, c[i].score, 1};
	*out = res;
	*nout = nc;
	*proven = 1;
done:
	free(w);
	ret_tok_close(&tk);
	free(c);
	free(rs);
	sqlite3_finalize(list);
	sqlite3_finalize(rest);
	sqlite3_finalize(text);
	return s;
}
