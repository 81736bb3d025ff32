/*
 * retrieve_rank.c: scoring rows and passages with the retrieval index.
 *
 * FTS5's own bm25() counts every hit of every query term each time a statement starts,
 * which makes "score this one row" cost as much as scoring the whole table, and it reads
 * each passage's length with a query of its own. suql therefore registers its own FTS5
 * ranking function, suql_rank(fts, stats, ntok), that computes the same Okapi BM25 from
 * per-term document frequencies it is handed (kept per word in suql_df_<id>, else counted
 * once per term, and cached in the RetIndex) and the passage length stored beside the
 * passage (read in the same join that maps the passage to its row). With it a row is scored
 * by seeking to its passages (their pids are contiguous) and the whole table by one pass
 * over the matches; both give the same numbers, so ret_score picks whichever reads less.
 * The top k rows of the whole table for one question are first asked of the impact lists
 * (score_top, retrieve_topk.c), which give the same numbers when they can prove them.
 */
#include "retrieve/retrieve_int.h"

#include "base/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHRASES RET_MAX_PHRASES

double ret_rank_passage(const RetRank *rk, const int *tf, int dl)
{
	const double k1 = 1.2, b = 0.75;
	double score = 0, norm = k1 * (1 - b + b * (double)dl / rk->avgdl);
	for (int p = 0; p < rk->nphrase; p++)
		if (tf[p])
			score += rk->idf[p] * tf[p] * (k1 + 1) / (tf[p] + norm);
	return score;
}

static void rank_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                    int nval, sqlite3_value **val)
{
	RetRank *rk = nval > 0 ? sqlite3_value_pointer(val[0], "suql_rank") : NULL;
	if (!rk) {
		sqlite3_result_error(ctx, "suql_rank: no term statistics", -1);
		return;
	}
	int dl = 0, ninst = 0;
	if (!rk->ready) {
		sqlite3_int64 nrow = 0, ntok = 0;
		if (api->xRowCount(fts, &nrow) != SQLITE_OK ||
		    api->xColumnTotalSize(fts, -1, &ntok) != SQLITE_OK) {
			sqlite3_result_error(ctx, "suql_rank: cannot read the index", -1);
			return;
		}
		rk->avgdl = nrow > 0 && ntok > 0 ? (double)ntok / (double)nrow : 1;
		for (int p = 0; p < rk->nphrase; p++)
			rk->idf[p] = log(1.0 + ((double)nrow - rk->df[p] + 0.5) / (rk->df[p] + 0.5));
		rk->ready = 1;
	}
	if (nval > 1)
		dl = sqlite3_value_int(val[1]);
	if ((nval <= 1 && api->xColumnSize(fts, -1, &dl) != SQLITE_OK) ||
	    api->xInstCount(fts, &ninst) != SQLITE_OK) {
		sqlite3_result_error(ctx, "suql_rank: cannot read the index", -1);
		return;
	}
	int tf[MAX_PHRASES] = {0};
	for (int i = 0; i < ninst; i++) {
		int ph, col, off;
		if (api->xInst(fts, i, &ph, &col, &off) == SQLITE_OK && ph >= 0 && ph < rk->nphrase)
			tf[ph]++;
	}
	sqlite3_result_double(ctx, ret_rank_passage(rk, tf, dl));
}

static void marker_fn(sqlite3_context *ctx, int n, sqlite3_value **v)
{
	(void)n;
	(void)v;
	sqlite3_result_int(ctx, 1);
}

/* Register the ranking function suql_rank with FTS5 on this connection (once). */
static SuqlStatus ret_register_rank(sqlite3 *db, SuqlErr *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT suql_rank_registered()", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_finalize(st);
		return SUQL_OK;
	}
	fts5_api *api = NULL;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (!api || api->iVersion < 2)
		return err_set(err, SUQL_ERROR, "retrieval index: this SQLite has no FTS5");
	if (api->xCreateFunction(api, "suql_rank", NULL, rank_fn, NULL) != SQLITE_OK ||
	    sqlite3_create_function(db, "suql_rank_registered", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
	                            NULL, marker_fn, NULL, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	return SUQL_OK;
}

/* ---- handles ---- */

struct RetIndex {
	sqlite3 *db;
	RetEntry e;
	sqlite3_stmt *count, *rows, *range, *rank_range, *scan, *dfrow;
	TextTerms table_terms;   /* stems of the table's name (names_the_table) */
	char **dfk;           /* df cache: phrase -> passages containing it */
	double *dfv;
	int ndf, capdf;
	RetTok tok;           /* FTS5's tokenizer, opened at the first question (phrase_token) */
	int tok_tried;
};

typedef struct Question {
	char *match;          /* the MATCH expression; NULL: no content words */
	RetRank rk;
	double hits;          /* sum of the phrases' document frequencies */
	char *tok[MAX_PHRASES];   /* each phrase's one token; NULL: it has none or several */
} Question;

SuqlStatus ret_open(sqlite3 *db, const char *table, const char *column, RetIndex **out,
                    SuqlErr *err)
{
	*out = NULL;
	if (ret_register_rank(db, err) != SUQL_OK || ret_ensure(db, table, column, NULL, err) != SUQL_OK)
		return SUQL_ERROR;
	RetIndex *ix = xcalloc(1, sizeof *ix);
	ix->db = db;
	int k = ret_entry_get(db, table, column, &ix->e, err);
	if (k != 1) {
		ret_close(ix);
		if (k == 0)
			err_set(err, SUQL_ERROR, "no retrieval index for %s.%s", table, column);
		return SUQL_ERROR;
	}
	text_terms(ix->e.table, strlen(ix->e.table), &ix->table_terms);
	const char *f = ix->e.fts, *p = ix->e.psg;
	char *q[6] = {
		xprintf("SELECT count(*) FROM %s WHERE %s MATCH ?1", f, f),
		xprintf("SELECT p.pid, p.ord, t.text FROM %s AS p JOIN %s AS t ON t.pid = p.pid "
		        "WHERE p.rid = ?1 ORDER BY p.pid", p, ix->e.txt),
		xprintf("SELECT min(pid), max(pid) FROM %s WHERE rid = ?1", p),
		xprintf("SELECT %s.rowid, suql_rank(%s, ?1, p.ntok) FROM %s CROSS JOIN %s AS p ON "
		        "p.pid = %s.rowid WHERE %s MATCH ?2 AND %s.rowid BETWEEN ?3 AND ?4", f, f, f, p, f,
		        f, f),
		xprintf("SELECT p.rid, suql_rank(%s, ?1, p.ntok) FROM %s CROSS JOIN %s AS p ON "
		        "p.pid = %s.rowid WHERE %s MATCH ?2", f, f, p, f, f),
		xprintf("SELECT df FROM %s WHERE term = ?1", ix->e.df),
	};
	sqlite3_stmt **dst[6] = {&ix->count, &ix->rows, &ix->range, &ix->rank_range, &ix->scan,
	                         &ix->dfrow};
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < 6; i++) {
		if (s == SUQL_OK && sqlite3_prepare_v2(db, q[i], -1, dst[i], NULL) != SQLITE_OK)
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
		free(q[i]);
	}
	if (s != SUQL_OK) {
		ret_close(ix);
		return s;
	}
	*out = ix;
	return SUQL_OK;
}

void ret_close(RetIndex *ix)
{
	if (!ix)
		return;
	sqlite3_finalize(ix->count);
	sqlite3_finalize(ix->rows);
	sqlite3_finalize(ix->range);
	sqlite3_finalize(ix->rank_range);
	sqlite3_finalize(ix->scan);
	sqlite3_finalize(ix->dfrow);
	for (int i = 0; i < ix->ndf; i++)
		free(ix->dfk[i]);
	free(ix->dfk);
	free(ix->dfv);
	text_terms_free(&ix->table_terms);
	ret_tok_close(&ix->tok);
	ret_entry_free(&ix->e);
	free(ix);
}

/* Passages that hold the phrase: for a phrase of one token (tok not NULL) the count kept
   in suql_df_<id> (retrieve_topk.c), else counted through FTS5 (which visits every one). */
static double phrase_df(RetIndex *ix, const char *phrase, const char *tok)
{
	for (int i = 0; i < ix->ndf; i++)
		if (strcmp(ix->dfk[i], phrase) == 0)
			return ix->dfv[i];
	double df = 0;
	int have = 0;
	if (tok) {
		sqlite3_bind_text(ix->dfrow, 1, tok, -1, SQLITE_STATIC);
		if (sqlite3_step(ix->dfrow) == SQLITE_ROW) {
			df = (double)sqlite3_column_int64(ix->dfrow, 0);
			have = 1;
		}
		sqlite3_reset(ix->dfrow);
	}
	if (!have) {
		sqlite3_bind_text(ix->count, 1, phrase, -1, SQLITE_STATIC);
		if (sqlite3_step(ix->count) == SQLITE_ROW)
			df = (double)sqlite3_column_int64(ix->count, 0);
		sqlite3_reset(ix->count);
	}
	if (ix->ndf == ix->capdf) {
		ix->capdf = ix->capdf ? ix->capdf * 2 : 16;
		ix->dfk = xrealloc(ix->dfk, (size_t)ix->capdf * sizeof *ix->dfk);
		ix->dfv = xrealloc(ix->dfv, (size_t)ix->capdf * sizeof *ix->dfv);
	}
	ix->dfk[ix->ndf] = xstrdup(phrase);
	ix->dfv[ix->ndf++] = df;
	return df;
}

/* The one token FTS5 makes of a quoted phrase ("romantic" -> romant); NULL when it makes
   none or several. */
static char *phrase_token(RetIndex *ix, const char *phrase)
{
	if (!ix->tok_tried) {
		ix->tok_tried = 1;
		ret_tok_open(ix->db, &ix->tok, NULL);
	}
	SBuf b = SBUF_INIT;
	for (const char *c = phrase + 1; c[0] && c[1]; c++) {   /* unquote: "" is one " */
		sb_putc(&b, *c);
		if (c[0] == '"')
			c++;
	}
	char *t = NULL;
	if (b.len && ret_tok_run(&ix->tok, b.s, b.len, 1) == 1)
		t = xstrdup(ix->tok.buf.s);
	sb_free(&b);
	return t;
}

static void question_free(Question *q)
{
	free(q->match);
	for (int i = 0; i < q->rk.nphrase; i++)
		free(q->tok[i]);
}

/* Does the phrase name the kind of thing a row is? "restaurant" in "is this restaurant
   romantic?" asked of the table restaurants says nothing about any row, yet it is a rare
   word in reviews and would outweigh "romantic". Compared by stem with each word of the
   table's name (stemmed once, in ret_open). */
static int names_the_table(const RetIndex *ix, const char *phrase)
{
	TextTerms pt = TEXT_TERMS_INIT;
	text_terms(phrase, strlen(phrase), &pt);
	int hit = pt.n == 1 && text_terms_has(&ix->table_terms, pt.v[0]);
	text_terms_free(&pt);
	return hit;
}

/* The question's MATCH expression (its content words, each a quoted phrase, OR-ed, less
   the words that name the table's rows) and the statistics suql_rank needs. */
const char *ret_phrase(const char *p, const char **end)
{
	const char *a = strchr(p, '"');
	if (!a)
		return NULL;
	const char *z = a + 1;
	while (*z && !(*z == '"' && z[1] != '"'))
		z += *z == '"' ? 2 : 1;
	if (!*z)
		return NULL;
	*end = z;
	return a;
}

static void question_prepare(RetIndex *ix, const char *text, Question *q)
{
	memset(q, 0, sizeof *q);
	char *m = text ? text_fts_query(text) : NULL;
	if (!m)
		return;
	SBuf match = SBUF_INIT;
	const char *p = m;
	while (*p && q->rk.nphrase < MAX_PHRASES) {
		const char *z, *a = ret_phrase(p, &z);
		if (!a)
			break;
		char *phrase = xstrndup(a, (size_t)(z + 1 - a));
		if (names_the_table(ix, phrase)) {
			free(phrase);
			p = z + 1;
			continue;
		}
		q->tok[q->rk.nphrase] = phrase_token(ix, phrase);
		double df = phrase_df(ix, phrase, q->tok[q->rk.nphrase]);
		q->rk.df[q->rk.nphrase++] = df;
		q->hits += df;
		if (match.len)
			sb_puts(&match, " OR ");
		sb_puts(&match, phrase);
		free(phrase);
		p = z + 1;
	}
	free(m);
	q->match = match.len ? sb_steal(&match) : (sb_free(&match), NULL);
}

/* ---- a row's passages ---- */

void ret_passages_free(RetPassage *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].text);
	free(p);
}

typedef struct RankCand {
	sqlite3_int64 pid;
	RetPassage p;
} RankCand;

static int cand_cmp(const void *a, const void *b)
{
	const RankCand *x = a, *y = b;
	if (x->p.score != y->p.score)
		return x->p.score > y->p.score ? -1 : 1;
	return (x->p.ord > y->p.ord) - (x->p.ord < y->p.ord);
}

/* Cut text to at most max bytes at a word boundary (and never inside a UTF-8 sequence). */
static void cut_to(char *text, size_t max)
{
	size_t n = strlen(text);
	if (n <= max)
		return;
	size_t k = max;
	while (k > 0 && ((unsigned char)text[k] & 0xC0) == 0x80)
		k--;
	size_t w = k;
	while (w > 0 && text[w] != ' ')
		w--;
	text[w > max / 2 ? w : k] = '\0';
}

SuqlStatus ret_index_passages(RetIndex *ix, sqlite3_int64 rowid, const char *question,
                              size_t budget, RetPassage **out, size_t *n, SuqlErr *err)
{
	*out = NULL;
	*n = 0;
	RankCand *c = NULL;
	size_t nc = 0, cap = 0;
	sqlite3_bind_int64(ix->rows, 1, rowid);
	while (sqlite3_step(ix->rows) == SQLITE_ROW) {
		if (nc == cap)
			c = xrealloc(c, (cap = cap ? cap * 2 : 16) * sizeof *c);
		c[nc].pid = sqlite3_column_int64(ix->rows, 0);
		c[nc].p.ord = sqlite3_column_int(ix->rows, 1);
		c[nc].p.text = xstrdup((const char *)sqlite3_column_text(ix->rows, 2));
		c[nc].p.score = 0;
		nc++;
	}
	sqlite3_reset(ix->rows);
	Question q;
	question_prepare(ix, question, &q);
	SuqlStatus s = SUQL_OK;
	if (nc && q.match) {
		sqlite3_stmt *st = ix->rank_range;
		sqlite3_bind_pointer(st, 1, &q.rk, "suql_rank", NULL);
		sqlite3_bind_text(st, 2, q.match, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, c[0].pid);
		sqlite3_bind_int64(st, 4, c[nc - 1].pid);
		int rc;
		size_t j = 0;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			sqlite3_int64 pid = sqlite3_column_int64(st, 0);
			while (j < nc && c[j].pid < pid)
				j++;
			if (j < nc && c[j].pid == pid)
				c[j].p.score = sqlite3_column_double(st, 1);
		}
		if (rc != SQLITE_DONE)
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(ix->db));
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	question_free(&q);
	if (s != SUQL_OK) {
		for (size_t i = 0; i < nc; i++)
			free(c[i].p.text);
		free(c);
		return s;
	}
	if (nc)
		qsort(c, nc, sizeof *c, cand_cmp);
	RetPassage *res = xmalloc((nc ? nc : 1) * sizeof *res);
	size_t nr = 0, used = 0;
	for (size_t i = 0; i < nc; i++) {
		size_t len = strlen(c[i].p.text);
		if (budget && nr == 0 && len > budget && i == 0)
			cut_to(c[i].p.text, budget), len = strlen(c[i].p.text);
		if (!budget || used + len <= budget) {
			res[nr++] = c[i].p;
			used += len;
		} else {
			free(c[i].p.text);
		}
	}
	free(c);
	*out = res;
	*n = nr;
	return SUQL_OK;
}

SuqlStatus ret_passages(sqlite3 *db, const char *table, const char *column,
                        sqlite3_int64 rowid, const char *question, size_t budget,
                        RetPassage **out, size_t *n, SuqlErr *err)
{
	RetIndex *ix;
	*out = NULL;
	*n = 0;
	if (ret_open(db, table, column, &ix, err) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = ret_index_passages(ix, rowid, question, budget, out, n, err);
	ret_close(ix);
	return s;
}

/* ---- ranking rows ---- */

typedef struct Entry {
	sqlite3_int64 rowid;
	double total, cur;    /* sum over questions; best passage for the current question */
	double base;          /* sum over the questions before the current one */
	int matched, stamp;   /* stamp: the question cur belongs to, plus one */
	size_t order;         /* position among the given candidates */
} Entry;

typedef struct Rows {
	Entry *v;
	size_t n, cap;
	size_t *slot;         /* open addressing: index + 1 into v, 0 empty */
	size_t nslot;
} Rows;

static size_t mix(sqlite3_int64 k)
{
	unsigned long long x = (unsigned long long)k;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (size_t)x;
}

static void rows_grow(Rows *r)
{
	size_t ns = r->nslot ? r->nslot * 2 : 1024;
	free(r->slot);
	r->slot = xcalloc(ns, sizeof *r->slot);
	r->nslot = ns;
	for (size_t i = 0; i < r->n; i++) {
		size_t h = mix(r->v[i].rowid) & (ns - 1);
		while (r->slot[h])
			h = (h + 1) & (ns - 1);
		r->slot[h] = i + 1;
	}
}

/* The entry of rowid; created when create is set, else NULL when absent. */
static Entry *rows_get(Rows *r, sqlite3_int64 rowid, int create)
{
	if (r->nslot == 0 || (create && (r->n + 1) * 2 > r->nslot))
		rows_grow(r);
	size_t h = mix(rowid) & (r->nslot - 1);
	while (r->slot[h]) {
		Entry *e = &r->v[r->slot[h] - 1];
		if (e->rowid == rowid)
			return e;
		h = (h + 1) & (r->nslot - 1);
	}
	if (!create)
		return NULL;
	if (r->n == r->cap)
		r->v = xrealloc(r->v, (r->cap = r->cap ? r->cap * 2 : 1024) * sizeof *r->v);
	Entry *e = &r->v[r->n];
	memset(e, 0, sizeof *e);
	e->rowid = rowid;
	e->order = r->n;
	r->slot[h] = ++r->n;
	return e;
}

/* The total is always base + best, never adjusted by differences, so that it does not
   depend on the order the passages come in (a row scored from its best passage alone, as
   retrieve_topk.c does, gets the same double). */
static void credit(Entry *e, int qi, double s)
{
	if (s <= 0)
		return;
	if (e->stamp != qi + 1) {
		e->stamp = qi + 1;
		e->base = e->total;
		e->cur = s;
		e->total = e->base + s;
		e->matched++;
	} else if (s > e->cur) {
		e->cur = s;
		e->total = e->base + s;
	}
}

/* One question over the whole index, crediting the rows in r (all rows: add them). */
static SuqlStatus score_scan(RetIndex *ix, Question *q, int qi, Rows *r, int add, SuqlErr *err)
{
	sqlite3_stmt *st = ix->scan;
	sqlite3_bind_pointer(st, 1, &q->rk, "suql_rank", NULL);
	sqlite3_bind_text(st, 2, q->match, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		Entry *e = rows_get(r, sqlite3_column_int64(st, 0), add);
		if (e)
			credit(e, qi, sqlite3_column_double(st, 1));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(ix->db));
	return SUQL_OK;
}

/* One question, row by row: seek to each candidate's passages. */
static SuqlStatus score_each(RetIndex *ix, Question *q, int qi, Rows *r, SuqlErr *err)
{
	for (size_t i = 0; i < r->n; i++) {
		Entry *e = &r->v[i];
		sqlite3_bind_int64(ix->range, 1, e->rowid);
		int have = sqlite3_step(ix->range) == SQLITE_ROW &&
		           sqlite3_column_type(ix->range, 0) != SQLITE_NULL;
		sqlite3_int64 lo = have ? sqlite3_column_int64(ix->range, 0) : 0;
		sqlite3_int64 hi = have ? sqlite3_column_int64(ix->range, 1) : 0;
		sqlite3_reset(ix->range);
		if (!have)
			continue;
		sqlite3_stmt *st = ix->rank_range;
		sqlite3_bind_pointer(st, 1, &q->rk, "suql_rank", NULL);
		sqlite3_bind_text(st, 2, q->match, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, lo);
		sqlite3_bind_int64(st, 4, hi);
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			credit(e, qi, sqlite3_column_double(st, 1));
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(ix->db));
	}
	sqlite3_clear_bindings(ix->rank_range);
	return SUQL_OK;
}

static int by_score_order(const void *a, const void *b)
{
	const Entry *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int by_score_rowid(const void *a, const void *b)
{
	const Entry *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->rowid > y->rowid) - (x->rowid < y->rowid);
}

/* Move the k best entries (by cmp) to the front of v, sorted; returns k. A heap whose root
   is the worst of the best k seen so far: each entry costs O(log k) instead of sorting all. */
static void sift_down(Entry *h, size_t k, size_t i, int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		if (l < k && cmp(&h[l], &h[w]) > 0)
			w = l;
		if (r < k && cmp(&h[r], &h[w]) > 0)
			w = r;
		if (w == i)
			return;
		Entry t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

static size_t top_k(Entry *v, size_t n, size_t k, int (*cmp)(const void *, const void *))
{
	for (size_t i = k / 2; i-- > 0;)
		sift_down(v, k, i, cmp);
	for (size_t i = k; i < n; i++) {
		if (cmp(&v[i], &v[0]) < 0) {
			v[0] = v[i];
			sift_down(v, k, 0, cmp);
		}
	}
	qsort(v, k, sizeof *v, cmp);
	return k;
}

static SuqlStatus add_all_rows(sqlite3 *db, const char *table, Rows *r, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "SELECT rowid FROM ");
	sb_put_ident(&b, table, strlen(table));
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, b.s, -1, &st, NULL);
	sb_free(&b);
	if (rc != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW)
		rows_get(r, sqlite3_column_int64(st, 0), 1);
	sqlite3_finalize(st);
	return SUQL_OK;
}

static long long topk_counts[2];   /* rankings the impact lists settled, and not */

void ret_topk_counts(long long *settled, long long *scanned)
{
	*settled = topk_counts[0];
	*scanned = topk_counts[1];
}

/* The question's phrases, quoted as in its MATCH ("p0" OR "p1" OR ...; "" is a quote),
   into ph[0..nphrase) (heap) for the impact lists' second step; 0 when there are more
   than RET_SCAN_MAX or the MATCH is not that shape. */
static int question_phrases(const Question *q, char **ph)
{
	int np = q->rk.nphrase, n = 0;
	if (np < 2 || np > RET_SCAN_MAX || !q->match)
		return 0;
	const char *a = q->match;
	for (; *a && n < np; n++) {
		const char *z = a + 1;
		while (*a == '"' && *z && !(*z == '"' && z[1] != '"'))
			z += *z == '"' ? 2 : 1;
		if (*a != '"' || !*z || (z[1] && strncmp(z + 1, " OR ", 4) != 0))
			break;
		ph[n] = xstrndup(a, (size_t)(z + 1 - a));
		a = z[1] ? z + 5 : z + 1;
	}
	if (n == np && !*a)
		return 1;
	while (n > 0)
		free(ph[--n]);
	return 0;
}

/* The best limit rows of the whole table for one question from the impact lists
   (retrieve_topk.c); *done 0 when they cannot show them (the caller scores everything). */
static SuqlStatus score_top(RetIndex *ix, const char *text, int flags, size_t limit,
                            RetScore **out, size_t *nout, int *done, SuqlErr *err)
{
	*done = 0;
	Question q;
	question_prepare(ix, text, &q);
	int usable = q.match != NULL;
	for (int p = 0; p < q.rk.nphrase; p++)
		usable &= q.tok[p] != NULL;
	SuqlStatus s = SUQL_OK;
	if (usable) {
		/* one matching passage makes the statistics ready (idf, average length) exactly as
		   the scan computes them */
		sqlite3_stmt *st = ix->scan;
		sqlite3_bind_pointer(st, 1, &q.rk, "suql_rank", NULL);
		sqlite3_bind_text(st, 2, q.match, -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(ix->db));
		usable = rc == SQLITE_ROW && q.rk.ready;
	}
	if (s == SUQL_OK && usable) {
		int proven = 0;
		char *ph[RET_SCAN_MAX];
		int scan = question_phrases(&q, ph);
		s = ret_topk_run(ix->db, &ix->e, &q.rk, q.tok, scan ? ix->scan : NULL,
		                 scan ? (const char *const *)ph : NULL, limit, out, nout, &proven, err);
		for (int p = 0; scan && p < q.rk.nphrase; p++)
			free(ph[p]);
		if (s == SUQL_OK && proven && ((flags & RET_MATCHED_ONLY) || *nout == limit)) {
			*done = 1;
		} else {
			free(*out);
			*out = NULL;
			*nout = 0;
		}
	}
	if (s == SUQL_OK)
		topk_counts[*done ? 0 : 1]++;
	question_free(&q);
	return s;
}

SuqlStatus ret_score(sqlite3 *db, const char *table, const RetQuestion *qs, int nq,
                     const sqlite3_int64 *rowids, size_t nrowids, int flags, size_t limit,
                     RetScore **out, size_t *nout, SuqlErr *err)
{
	*out = NULL;
	*nout = 0;
	Rows r = {0};
	RetIndex **ix = xcalloc((size_t)(nq > 0 ? nq : 1), sizeof *ix);
	SuqlStatus s = SUQL_OK;
	for (size_t i = 0; rowids && i < nrowids; i++)
		rows_get(&r, rowids[i], 1);
	for (int i = 0; i < nq && s == SUQL_OK; i++) {
		for (int j = 0; j < i && !ix[i]; j++)
			if (str_ieq(qs[j].column, qs[i].column))
				ix[i] = ix[j];
		if (!ix[i])
			s = ret_open(db, table, qs[i].column, &ix[i], err);
	}
	int done = 0;
	if (s == SUQL_OK && nq == 1 && !rowids && limit > 0 && limit <= RET_IMPACT_KEEP / 2 &&
	    !(flags & RET_SCAN_ALL))
		s = score_top(ix[0], qs[0].text, flags, limit, out, nout, &done, err);
	for (int i = 0; i < nq && s == SUQL_OK && !done; i++) {
		Question q;
		question_prepare(ix[i], qs[i].text, &q);
		if (q.match) {
			/* Seeking costs a new FTS5 cursor per candidate (several hundred times one step
			   of a scan, measured), a scan one step per matching passage. */
			if (rowids && (double)nrowids * 500 < q.hits)
				s = score_each(ix[i], &q, i, &r, err);
			else
				s = score_scan(ix[i], &q, i, &r, rowids == NULL, err);
		}
		question_free(&q);
	}
	for (int i = 0; i < nq; i++) {
		int shared = 0;
		for (int j = 0; j < i; j++)
			shared |= ix[j] == ix[i];
		if (!shared)
			ret_close(ix[i]);
	}
	free(ix);
	if (done || s != SUQL_OK) {
		free(r.v);
		free(r.slot);
		return s;
	}
	if (!rowids && !(flags & RET_MATCHED_ONLY))
		s = add_all_rows(db, table, &r, err);
	if (s != SUQL_OK) {
		free(r.v);
		free(r.slot);
		return s;
	}
	if (flags & RET_MATCHED_ONLY) {
		size_t k = 0;
		for (size_t i = 0; i < r.n; i++)
			if (r.v[i].matched)
				r.v[k++] = r.v[i];
		r.n = k;
	}
	int (*cmp)(const void *, const void *) = rowids ? by_score_order : by_score_rowid;
	if (limit && limit < r.n / 2)
		r.n = top_k(r.v, r.n, limit, cmp);
	else if (r.n)
		qsort(r.v, r.n, sizeof *r.v, cmp);
	size_t n = 0;
	RetScore *res = xmalloc((r.n ? r.n : 1) * sizeof *res);
	for (size_t i = 0; i < r.n && (!limit || n < limit); i++) {
		res[n].rowid = r.v[i].rowid;
		res[n].score = r.v[i].total;
		res[n].matched = r.v[i].matched;
		n++;
	}
	free(r.v);
	free(r.slot);
	*out = res;
	*nout = n;
	return SUQL_OK;
}

/* ---- rows one at a time ---- */

/* A row's passages have consecutive pids and the scan reads the matches in pid order, so
   a row's matching passages arrive together: its best one is known when the rid changes.
   Its own statement, with the order said (FTS5 reads its rowids in order anyway). */
struct RetScan {
	RetIndex *ix;
	sqlite3_stmt *st;
	Question q;
	int started, done;
	sqlite3_int64 rid;   /* the row being read (started) */
	double best;
};

SuqlStatus ret_scan_open(sqlite3 *db, const char *table, const RetQuestion *q, RetScan **out,
                         SuqlErr *err)
{
	*out = NULL;
	RetScan *s = xcalloc(1, sizeof *s);
	if (ret_open(db, table, q->column, &s->ix, err) != SUQL_OK) {
		free(s);
		return SUQL_ERROR;
	}
	const char *f = s->ix->e.fts;
	char *sql = xprintf("SELECT p.rid, suql_rank(%s, ?1, p.ntok) FROM %s CROSS JOIN %s AS p "
	                    "ON p.pid = %s.rowid WHERE %s MATCH ?2 ORDER BY %s.rowid", f, f,
	                    s->ix->e.psg, f, f, f);
	int rc = sqlite3_prepare_v2(db, sql, -1, &s->st, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
		ret_scan_close(s);
		return SUQL_ERROR;
	}
	question_prepare(s->ix, q->text, &s->q);
	s->done = !s->q.match;
	if (s->q.match) {
		sqlite3_bind_pointer(s->st, 1, &s->q.rk, "suql_rank", NULL);
		sqlite3_bind_text(s->st, 2, s->q.match, -1, SQLITE_STATIC);
	}
	*out = s;
	return SUQL_OK;
}

int ret_scan_next(RetScan *s, sqlite3_int64 *rowid, double *score, SuqlErr *err)
{
	while (!s->done) {
		int rc = sqlite3_step(s->st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(s->ix->db));
			return -1;
		}
		sqlite3_int64 rid = rc == SQLITE_ROW ? sqlite3_column_int64(s->st, 0) : 0;
		double sc = rc == SQLITE_ROW ? sqlite3_column_double(s->st, 1) : 0;
		s->done = rc == SQLITE_DONE;
		if (s->started && (s->done || rid != s->rid) && s->best > 0) {
			*rowid = s->rid;
			*score = s->best;
			s->rid = rid;
			s->best = sc > 0 ? sc : 0;
			return 1;
		}
		if (!s->started || rid != s->rid) {
			s->started = 1;
			s->rid = rid;
			s->best = 0;
		}
		if (sc > s->best)
			s->best = sc;
	}
	return 0;
}

void ret_scan_close(RetScan *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->st);
	question_free(&s->q);
	ret_close(s->ix);
	free(s);
}
