/*
 * exec_pg_index.c: suql's retrieval index on PostgreSQL, kept in suql's schema on the
 * server, so that an unordered LIMIT ranks its candidates as SQLite's index ranks them
 * (the same rows on both backends).
 *
 * SQLite ranks a FREE_TEXT column's candidates by BM25 over its FTS5 index (retrieve/):
 * each value cut into passages, each passage into FTS5's tokens (porter over unicode61),
 * a row's score its best passage's, with the statistics of the whole column (passages,
 * tokens, and each word's document frequency). Here the same passages and tokens are made
 * by the same code (retrieve_doc.c, FTS5's tokenizer run on the backend's scratch SQLite
 * connection) and kept on the server:
 *
 *   suql.ret_index(id, tbl, col, npsg, ntok, stamp)   an index per column: its passages,
 *                                                     its FTS5 tokens, what it was made of
 *   suql.ret_psg(idx, rid, ord, ntok, toks)           each passage of each row (rid: the
 *                                                     row's identity, as the walk's), its
 *                                                     length and its tokens
 *   suql.ret_term(idx, term, rid, ord, tf)            per token, the passages holding it
 *
 * A question is scored in two statements (each phrase's document frequency; the
 * candidates' passages holding one of its tokens) and BM25 computed here by the index's
 * own arithmetic (ret_words_bm25): the doubles SQLite computes. The index is made by
 * :index or on first use, and made again when the column's rows change: its stamp is the
 * row count and an md5 over each row's identity and text, read in the statement's
 * snapshot. Where it cannot be written (read-only mode, no right to) and is missing or
 * stale, the candidates are ranked in memory as before (exec_rank.c).
 */
#include "engine/engine_int.h"
#include "retrieve/retrieve.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const INDEX_DDL =
	"CREATE SCHEMA IF NOT EXISTS suql; "
	"CREATE TABLE IF NOT EXISTS suql.ret_index(id serial PRIMARY KEY, tbl text NOT NULL, "
	"col text NOT NULL, npsg bigint NOT NULL DEFAULT 0, ntok bigint NOT NULL DEFAULT 0, "
	"stamp text, UNIQUE (tbl, col)); "
	"CREATE TABLE IF NOT EXISTS suql.ret_psg(idx int NOT NULL, rid bigint NOT NULL, "
	"ord int NOT NULL, ntok int NOT NULL, toks text NOT NULL, PRIMARY KEY (idx, rid, ord)); "
	"CREATE TABLE IF NOT EXISTS suql.ret_term(idx int NOT NULL, term text NOT NULL, "
	"rid bigint NOT NULL, ord int NOT NULL, tf int NOT NULL); "
	"CREATE INDEX IF NOT EXISTS ret_term_lookup ON suql.ret_term(idx, term)";

/* table's identity and text expressions, as the walk's candidate statement reads them */
static void exprs(const char *key, const char *col, SBuf *id, SBuf *text)
{
	if (key) {
		sb_puts(id, "t.");
		sb_put_ident(id, key, strlen(key));
	} else {
		sb_puts(id, "((t.ctid::text::point)[0]::bigint * 65536 + (t.ctid::text::point)[1]::bigint)");
	}
	SBuf c = SBUF_INIT;
	sb_puts(&c, "t.");
	sb_put_ident(&c, col, strlen(col));
	sb_printf(text, "CASE WHEN json_typeof(to_json(%s)) = 'array' THEN to_json(%s)::text "
	          "ELSE (%s)::text END", sb_str(&c), sb_str(&c), sb_str(&c));
	sb_free(&c);
}

static char *qtable(const char *table)
{
	SBuf b = SBUF_INIT;
	sb_put_ident(&b, table, strlen(table));
	return sb_steal(&b);
}

/* What the column is made of now: its rows and an md5 over each row's identity and text. */
static char *stamp_now(Store *st, const char *table, const char *key, const char *col)
{
	SBuf id = SBUF_INIT, text = SBUF_INIT;
	exprs(key, col, &id, &text);
	char *qt = qtable(table);
	char *sql = xprintf("SELECT count(*)::text || ':' || coalesce(md5(string_agg(md5(%s::text "
	                    "|| ':' || coalesce(%s, '')), ',' ORDER BY %s)), '') FROM %s AS t",
	                    sb_str(&id), sb_str(&text), sb_str(&id), qt);
	StoreCursor *c;
	char *stamp = NULL;
	if (store_query(st, sql, NULL, 0, &c, NULL) == SUQL_OK) {
		if (store_next(c) > 0 && store_text(c, 0))
			stamp = xstrdup(store_text(c, 0));
		store_done(c);
	}
	free(sql);
	free(qt);
	sb_free(&id);
	sb_free(&text);
	return stamp;
}

/* The index's row: its id, totals and stamp (*stamp heap); 0 when there is none. */
static int index_row(Store *st, const char *table, const char *col, long long *id,
                     double *npsg, double *ntok, char **stamp)
{
	*stamp = NULL;
	if (!store_has_table(st, "suql.ret_index"))
		return 0;
	const char *args[] = {table, col};
	StoreCursor *c;
	int found = 0;
	if (store_query(st, "SELECT id, npsg, ntok, stamp FROM suql.ret_index WHERE tbl = $1 AND "
	                "col = $2", args, 2, &c, NULL) != SUQL_OK)
		return 0;
	if (store_next(c) > 0) {
		*id = store_integer(c, 0);
		*npsg = (double)store_integer(c, 1);
		*ntok = (double)store_integer(c, 2);
		*stamp = store_text(c, 3) ? xstrdup(store_text(c, 3)) : NULL;
		found = 1;
	}
	store_done(c);
	return found;
}

typedef struct Build {
	json_t *rows;         /* passages not yet sent */
	long long rid;
	long long npsg, ntok;
} Build;

static void each_passage(void *ctx, int ord, int ntok, int ftok, const char *toks)
{
	Build *b = ctx;
	json_t *r = json_object();
	json_object_set_new(r, "rid", json_integer(b->rid));
	json_object_set_new(r, "ord", json_integer(ord));
	json_object_set_new(r, "ntok", json_integer(ntok));
	json_object_set_new(r, "toks", json_string(toks));
	json_array_append_new(b->rows, r);
	b->npsg++;
	b->ntok += ftok;
}

static SuqlStatus flush(Store *st, const char *idx, Build *b, SuqlErr *err)
{
	if (!json_array_size(b->rows))
		return SUQL_OK;
	char *js = json_dumps(b->rows, JSON_COMPACT);
	const char *args[] = {idx, js};
	SuqlStatus s = store_run(st, "INSERT INTO suql.ret_psg SELECT $1::int, r.rid, r.ord, r.ntok, "
	                         "r.toks FROM jsonb_to_recordset($2::jsonb) AS r(rid bigint, ord int, "
	                         "ntok int, toks text)", args, 2, err);
	free(js);
	json_array_clear(b->rows);
	return s;
}

/* The index of table.col made again from the column's rows, under the stamp. */
static SuqlStatus build(Engine *e, const char *table, const char *key, const char *col,
                        const char *stamp, SuqlErr *err)
{
	Store *st = e->store;
	SuqlStatus s = store_exec(st, INDEX_DDL, err);
	const char *args[] = {table, col, stamp};
	StoreCursor *c;
	char idx[32] = "";
	if (s == SUQL_OK)
		s = store_query(st, "INSERT INTO suql.ret_index(tbl, col, stamp) VALUES ($1, $2, $3) "
		                "ON CONFLICT (tbl, col) DO UPDATE SET stamp = $3 RETURNING id", args, 3,
		                &c, err);
	if (s == SUQL_OK) {
		if (store_next(c) > 0)
			snprintf(idx, sizeof idx, "%lld", store_integer(c, 0));
		store_done(c);
	}
	const char *ia[] = {idx};
	if (s == SUQL_OK)
		s = store_run(st, "DELETE FROM suql.ret_psg WHERE idx = $1::int", ia, 1, err);
	if (s == SUQL_OK)
		s = store_run(st, "DELETE FROM suql.ret_term WHERE idx = $1::int", ia, 1, err);
	RetWords *w = NULL;
	if (s == SUQL_OK)
		s = ret_words_open(e->db, table, &w, err);
	SBuf id = SBUF_INIT, text = SBUF_INIT;
	exprs(key, col, &id, &text);
	char *qt = qtable(table);
	char *sql = xprintf("SELECT %s, %s FROM %s AS t WHERE %s IS NOT NULL ORDER BY 1",
	                    sb_str(&id), sb_str(&text), qt, sb_str(&text));
	Build b = {json_array(), 0, 0, 0};
	if (s == SUQL_OK)
		s = store_query(st, sql, NULL, 0, &c, err);
	if (s == SUQL_OK) {
		while (s == SUQL_OK && store_next(c) > 0) {
			b.rid = store_integer(c, 0);
			const char *v = store_text(c, 1);
			s = ret_words_value(w, v, store_bytes(c, 1), each_passage, &b, err);
			if (s == SUQL_OK && json_array_size(b.rows) >= 2000)
				s = flush(st, idx, &b, err);
		}
		store_done(c);
	}
	if (s == SUQL_OK)
		s = flush(st, idx, &b, err);
	if (s == SUQL_OK)   /* each token of each passage, counted */
		s = store_run(st, "INSERT INTO suql.ret_term SELECT idx, w, rid, ord, count(*) FROM "
		              "suql.ret_psg, regexp_split_to_table(toks, ' ') AS w WHERE idx = $1::int "
		              "AND toks <> '' GROUP BY idx, w, rid, ord", ia, 1, err);
	char np[32], nt[32];
	snprintf(np, sizeof np, "%lld", b.npsg);
	snprintf(nt, sizeof nt, "%lld", b.ntok);
	const char *ua[] = {idx, np, nt};
	if (s == SUQL_OK)
		s = store_run(st, "UPDATE suql.ret_index SET npsg = $2::bigint, ntok = $3::bigint WHERE "
		              "id = $1::int", ua, 3, err);
	json_decref(b.rows);
	free(sql);
	free(qt);
	sb_free(&id);
	sb_free(&text);
	ret_words_close(w);
	return s;
}

SuqlStatus exec_pg_index_ensure(Engine *e, const char *table, const char *key, const char *col,
                                int force, int *built, SuqlErr *err)
{
	Store *st = e->store;
	*built = 0;
	long long id;
	double npsg, ntok;
	char *have = NULL;
	int found = index_row(st, table, col, &id, &npsg, &ntok, &have);
	char *now = stamp_now(st, table, key, col);
	SuqlStatus s = SUQL_OK;
	if (!now) {
		s = err_set(err, SUQL_ERROR, "cannot read %s.%s for its retrieval index", table, col);
	} else if (force || !found || !have || strcmp(have, now) != 0) {
		if (e->readonly || e->open_ro) {
			s = err_set(err, SUQL_ERROR, "read-only: the retrieval index of %s.%s is %s", table,
			            col, found ? "stale" : "not made");
		} else {
			/* under a savepoint: a failure (no right to write) leaves the statement's
			   transaction usable */
			s = store_savepoint(st, "suql_ret", err);
			if (s == SUQL_OK) {
				s = build(e, table, key, col, now, err);
				if (s == SUQL_OK)
					s = store_release(st, "suql_ret", err);
				else
					store_rollback_to(st, "suql_ret");
			}
			*built = s == SUQL_OK;
		}
	}
	free(have);
	free(now);
	return s;
}

/* a text[] literal of words (FTS5's tokens: letters and digits, quoted all the same) */
static char *text_array(char **v, int n)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '{');
	for (int i = 0; i < n; i++) {
		sb_puts(&b, i ? ",\"" : "\"");
		for (const char *p = v[i]; *p; p++) {
			if (*p == '"' || *p == '\\')
				sb_putc(&b, '\\');
			sb_putc(&b, *p);
		}
		sb_putc(&b, '"');
	}
	sb_putc(&b, '}');
	return sb_steal(&b);
}

static int by_rid(const void *a, const void *b)
{
	sqlite3_int64 x = ((const RetScore *)a)->rowid, y = ((const RetScore *)b)->rowid;
	return x < y ? -1 : x > y;
}

SuqlStatus exec_pg_index_score(Engine *e, const char *table, const char *key, const char *col,
                               const char *question, const sqlite3_int64 *rids, size_t nrids,
                               RetScore **out, size_t *nout, SuqlErr *err)
{
	Store *st = e->store;
	*out = NULL;
	*nout = 0;
	int built;
	SuqlStatus s = exec_pg_index_ensure(e, table, key, col, 0, &built, err);
	if (s != SUQL_OK)
		return s;
	long long id;
	double npsg, ntok;
	char *stamp = NULL;
	if (!index_row(st, table, col, &id, &npsg, &ntok, &stamp))
		return err_set(err, SUQL_ERROR, "no retrieval index of %s.%s", table, col);
	free(stamp);
	RetWords *w;
	if (ret_words_open(e->db, table, &w, err) != SUQL_OK)
		return SUQL_ERROR;
	char **ph = NULL;
	int np = ret_words_question(w, question, &ph);
	ret_words_close(w);
	if (np == 0) {
		free(ph);
		return SUQL_OK;
	}
	char idx[32];
	snprintf(idx, sizeof idx, "%lld", id);
	double *df = xcalloc((size_t)np, sizeof *df);
	/* the tokens looked up: each phrase's first (a phrase of several stands where its
	   first does) */
	char **first = xcalloc((size_t)np, sizeof *first);
	int nf = 0;
	for (int p = 0; p < np; p++) {
		if (!ph[p][0])
			continue;
		size_t k = strcspn(ph[p], " ");
		first[nf++] = xstrndup(ph[p], k);
	}
	char *terms = text_array(first, nf);
	/* each phrase's document frequency: the passages holding it, over the whole column */
	for (int p = 0; s == SUQL_OK && p < np; p++) {
		if (!ph[p][0])
			continue;
		StoreCursor *c;
		if (!strchr(ph[p], ' ')) {
			const char *a[] = {idx, ph[p]};
			s = store_query(st, "SELECT count(*) FROM suql.ret_term WHERE idx = $1::int AND "
			                "term = $2", a, 2, &c, err);
		} else {
			char *like = xprintf("%% %s %%", ph[p]);
			const char *a[] = {idx, like};
			s = store_query(st, "SELECT count(*) FROM suql.ret_psg WHERE idx = $1::int AND "
			                "' ' || toks || ' ' LIKE $2", a, 2, &c, err);
			free(like);
		}
		if (s == SUQL_OK) {
			if (store_next(c) > 0)
				df[p] = (double)store_integer(c, 0);
			store_done(c);
		}
	}
	/* the candidates' passages holding one of the words, each scored */
	SBuf ids = SBUF_INIT;
	sb_putc(&ids, '{');
	for (size_t i = 0; rids && i < nrids; i++)
		sb_printf(&ids, "%s%lld", i ? "," : "", (long long)rids[i]);
	sb_putc(&ids, '}');
	const char *a[] = {idx, terms, sb_str(&ids)};
	StoreCursor *c;
	RetScore *v = NULL;
	size_t n = 0, cap = 0;
	int *tf = xcalloc((size_t)np, sizeof *tf);
	if (s == SUQL_OK)
		s = store_query(st, rids ? "SELECT p.rid, p.ntok, p.toks FROM suql.ret_psg p WHERE "
		                "p.idx = $1::int AND p.rid = ANY($3::bigint[]) AND (p.rid, p.ord) IN "
		                "(SELECT rid, ord FROM suql.ret_term WHERE idx = $1::int AND term = "
		                "ANY($2::text[])) ORDER BY p.rid, p.ord"
		                     : "SELECT p.rid, p.ntok, p.toks FROM suql.ret_psg p WHERE "
		                "p.idx = $1::int AND (p.rid, p.ord) IN (SELECT rid, ord FROM "
		                "suql.ret_term WHERE idx = $1::int AND term = ANY($2::text[])) ORDER BY "
		                "p.rid, p.ord", a, rids ? 3 : 2, &c, err);
	if (s == SUQL_OK) {
		while (store_next(c) > 0) {
			long long rid = store_integer(c, 0);
			int dl = (int)store_integer(c, 1);
			const char *toks = store_text(c, 2);
			int any = 0;
			for (int p = 0; p < np; p++)
				any |= (tf[p] = ph[p][0] ? ret_words_tf(toks ? toks : "", ph[p]) : 0) > 0;
			if (!any)
				continue;
			double sc = ret_words_bm25(np, df, npsg, ntok, tf, dl);
			if (n && v[n - 1].rowid == rid) {   /* a row's best passage */
				if (sc > v[n - 1].score)
					v[n - 1].score = sc;
				continue;
			}
			if (n == cap)
				v = xrealloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
			v[n++] = (RetScore){rid, sc, 1};
		}
		store_done(c);
	}
	if (n > 1)
		qsort(v, n, sizeof *v, by_rid);
	free(tf);
	sb_free(&ids);
	free(terms);
	for (int i = 0; i < nf; i++)
		free(first[i]);
	free(first);
	for (int p = 0; p < np; p++)
		free(ph[p]);
	free(ph);
	free(df);
	if (s != SUQL_OK) {
		free(v);
		return s;
	}
	*out = v;
	*nout = n;
	return SUQL_OK;
}
