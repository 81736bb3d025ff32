/*
 * eval_linear.c: the linearization baseline of the seed papers, for comparison with SUQL.
 * Every row of a table is written out as one text passage ("column: value" lines, list
 * elements joined by "; "), the passages are indexed with SQLite's FTS5 (BM25, the Porter
 * stemmer), and for each question the k best passages go to the model through the same
 * client the engine uses:
 *   - sets of rows: one verify call over the k passages, one candidate each, asking the
 *     question itself ("any romantic places in Palo Alto?" is the condition, expected yes);
 *     the rows whose passage the model accepts are the prediction, in BM25 order;
 *   - answers: one answer call that reads the k passages together, then the chat agent's
 *     short-answer step when a language model is configured (the offline backend's answer,
 *     a sentence of the passages, is the prediction as it is).
 * The parent process builds the passages once, in a temporary SQLite file the workers read.
 */
#include "eval/eval_int.h"

#include "base/text.h"
#include "base/util.h"
#include "chat/agent.h"
#include "store/catalog.h"

#include <stdlib.h>
#include <string.h>

#define LIN_MAX_BYTES 8000   /* a longer passage is cut (a wide row with long linked texts) */

static int run(sqlite3 *db, const char *sql, SuqlErr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, SUQL_IO, "linearize: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* One cell: lists (JSON arrays) as their elements joined by "; ". */
static void put_value(SBuf *b, const char *v, int is_array)
{
	json_t *a = is_array ? json_loads(v, 0, NULL) : NULL;
	if (json_is_array(a)) {
		size_t i;
		json_t *e;
		json_array_foreach(a, i, e) {
			char *t = eval_value_text(e);
			if (t && *t)
				sb_printf(b, "%s%s", i ? "; " : "", t);
			free(t);
		}
	} else {
		sb_puts(b, v);
	}
	json_decref(a);
}

/* Cut at LIN_MAX_BYTES, on a character boundary. */
static void cut(SBuf *b)
{
	if (b->len <= LIN_MAX_BYTES)
		return;
	size_t n = LIN_MAX_BYTES;
	while (n > 0 && ((unsigned char)b->s[n] & 0xc0) == 0x80)
		n--;
	sb_truncate(b, n);
}

static SuqlStatus build_table(Store *store, sqlite3 *out, const char *table, const char *key,
                              int ix, SuqlErr *err)
{
	CatColumn *cols = NULL;
	int n = 0;
	SuqlStatus s = catalog_table(store, table, &cols, &n, err);
	if (s != SUQL_OK)
		return err_set(err, SUQL_USAGE, "linearize: no table %s in the database", table);
	int keycol = -1;
	for (int i = 0; i < n && key; i++)
		if (str_ieq(cols[i].column, key))
			keycol = i;
	/* a row's name when the benchmark has no key: SQLite's rowid, PostgreSQL's ctid */
	SBuf q = SBUF_INIT;
	sb_printf(&q, "SELECT %s", store_row_name(store));
	for (int i = 0; i < n; i++) {
		sb_puts(&q, ", ");
		sb_put_ident(&q, cols[i].column, strlen(cols[i].column));
	}
	sb_puts(&q, " FROM ");
	sb_put_ident(&q, table, strlen(table));
	char *ins = xprintf("INSERT INTO p%d(key, body) VALUES (?, ?)", ix);
	StoreCursor *st = NULL;
	sqlite3_stmt *put = NULL;
	if (sqlite3_prepare_v2(out, ins, -1, &put, NULL) != SQLITE_OK) {
		s = err_set(err, SUQL_IO, "linearize %s: %s", table, sqlite3_errmsg(out));
	} else if (store_query(store, q.s, NULL, 0, &st, err) != SUQL_OK) {
		char *why = xstrdup(err->msg ? err->msg : "failed");
		s = err_set(err, SUQL_IO, "linearize %s: %s", table, why);
		free(why);
		st = NULL;
	} else {
		SBuf body = SBUF_INIT;
		int rc;
		while (s == SUQL_OK && (rc = store_next(st)) > 0) {
			sb_truncate(&body, 0);
			for (int i = 0; i < n; i++) {
				const char *v = store_text(st, i + 1);
				if (!v || !*v)
					continue;
				sb_printf(&body, "%s%s: ", body.len ? "\n" : "", cols[i].column);
				put_value(&body, v, cols[i].is_array);
			}
			cut(&body);
			const char *k = store_text(st, keycol >= 0 ? keycol + 1 : 0);
			sqlite3_bind_text(put, 1, k ? k : "", -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(put, 2, sb_str(&body), -1, SQLITE_TRANSIENT);
			if (sqlite3_step(put) != SQLITE_DONE)
				s = err_set(err, SUQL_IO, "linearize %s: %s", table, sqlite3_errmsg(out));
			sqlite3_reset(put);
		}
		if (s == SUQL_OK && rc < 0)
			s = err_set(err, SUQL_IO, "linearize %s: reading the table failed", table);
		sb_free(&body);
	}
	if (st)
		store_done(st);
	sqlite3_finalize(put);
	free(ins);
	sb_free(&q);
	catalog_columns_free(cols, n);
	return s;
}

SuqlStatus eval_linear_build(Store *store, const EvalBench *b, const char *path, SuqlErr *err)
{
	sqlite3 *out = NULL;
	if (sqlite3_open(path, &out) != SQLITE_OK) {
		SuqlStatus s = err_set(err, SUQL_IO, "cannot create %s: %s", path,
		                       sqlite3_errmsg(out));
		sqlite3_close(out);
		return s;
	}
	SuqlStatus s = SUQL_OK;
	if (run(out, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN; "
	        "CREATE TABLE lin_tables (name TEXT PRIMARY KEY, ix INTEGER)", err) < 0)
		s = SUQL_IO;
	int ntables = 0;
	for (int i = 0; s == SUQL_OK && i < b->ncases; i++) {
		const char *t = b->cases[i].table ? b->cases[i].table : b->table;
		if (!t) {
			s = err_set(err, SUQL_USAGE, "the linearize way needs the table each question "
			            "is about: give \"table\" in the header or in case \"%s\"",
			            b->cases[i].id);
			break;
		}
		sqlite3_stmt *st;
		int have = 0;
		if (sqlite3_prepare_v2(out, "SELECT 1 FROM lin_tables WHERE name = ?", -1, &st,
		                       NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
			have = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
		}
		if (have)
			continue;
		char *sql = sqlite3_mprintf("INSERT INTO lin_tables VALUES (%Q, %d); CREATE VIRTUAL "
		                            "TABLE p%d USING fts5(key UNINDEXED, body, tokenize = "
		                            "'porter unicode61 remove_diacritics 2')", t, ntables,
		                            ntables);
		if (run(out, sql, err) < 0)
			s = SUQL_IO;
		sqlite3_free(sql);
		if (s == SUQL_OK)
			s = build_table(store, out, t, b->key, ntables++, err);
	}
	if (s == SUQL_OK && run(out, "COMMIT", err) < 0)
		s = SUQL_IO;
	sqlite3_close(out);
	return s;
}

/* The k best passages for the question: keys and bodies (heap strings), best first. */
static int top_k(sqlite3 *lin, const char *table, const char *question, int k, char ***keys,
                 char ***bodies, SuqlErr *err)
{
	*keys = xcalloc((size_t)k + 1, sizeof **keys);
	*bodies = xcalloc((size_t)k + 1, sizeof **bodies);
	char *match = text_fts_query(question);
	if (!match)
		return 0;   /* no content words: nothing to look for */
	int ix = -1, n = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(lin, "SELECT ix FROM lin_tables WHERE name = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			ix = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	char *sql = xprintf("SELECT key, body FROM p%d WHERE p%d MATCH ? ORDER BY bm25(p%d) "
	                    "LIMIT %d", ix, ix, ix, k);
	if (ix < 0 || sqlite3_prepare_v2(lin, sql, -1, &st, NULL) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "linearize: no passages of %s (%s)", table,
		        sqlite3_errmsg(lin));
		n = -1;
	} else {
		sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
		while (n < k && sqlite3_step(st) == SQLITE_ROW) {
			(*keys)[n] = xstrdup((const char *)sqlite3_column_text(st, 0));
			(*bodies)[n] = xstrdup((const char *)sqlite3_column_text(st, 1));
			n++;
		}
		sqlite3_finalize(st);
	}
	free(sql);
	free(match);
	return n;
}

/* QA: one answer call over the passages together, then the short answer. */
static SuqlStatus answer(EvalWorker *w, const EvalCase *c, char **bodies, int n, json_t *res,
                         SuqlErr *err)
{
	LlmItem it;
	memset(&it, 0, sizeof it);
	it.passages = (const char *const *)bodies;
	it.npassages = n;
	LlmCall call;
	memset(&call, 0, sizeof call);
	call.kind = LLM_ANSWER;
	call.shape = LLM_SHAPE_TEXT;
	call.question = c->question;
	call.items = &it;
	call.nitems = 1;
	LlmCall *cp = &call;
	SuqlStatus s = n > 0 ? llm_run(w->llm, &cp, 1, NULL, NULL, err) : SUQL_OK;
	const char *detail = n > 0 && s == SUQL_OK ? (it.value ? it.value : NULL) : NULL;
	if (detail)
		json_object_set_new(res, "reply", json_string(detail));
	char *span = NULL;
	if (s == SUQL_OK && detail && !llm_is_offline(w->llm))
		s = agent_short_answer(session_agent(&w->s), c->question, NULL, detail, &span, err);
	if (s == SUQL_OK)
		json_object_set_new(res, "pred", span ? json_string(span)
		                                      : detail ? json_string(detail) : json_null());
	free(span);
	llm_call_clear(&call);   /* frees the item's results too */
	return s;
}

/* Rows: one verify call, one candidate per passage. */
static SuqlStatus judge(EvalWorker *w, const EvalCase *c, char **keys, char **bodies, int n,
                        json_t *res, SuqlErr *err)
{
	json_t *pred = json_array();
	SuqlStatus s = SUQL_OK;
	if (n > 0) {
		LlmItem *items = xcalloc((size_t)n, sizeof *items);
		for (int i = 0; i < n; i++) {
			items[i].passages = (const char *const *)&bodies[i];
			items[i].npassages = 1;
		}
		static const char *const yes[] = {"Yes"};
		LlmCall call;
		memset(&call, 0, sizeof call);
		call.kind = LLM_VERIFY;
		call.shape = LLM_SHAPE_YESNO;
		call.question = c->question;
		call.op = "=";
		call.expected = yes;
		call.nexpected = 1;
		call.items = items;
		call.nitems = n;
		LlmCall *cp = &call;
		s = llm_run(w->llm, &cp, 1, NULL, NULL, err);
		for (int i = 0; i < n; i++) {
			if (s == SUQL_OK && items[i].verdict)
				json_array_append_new(pred, json_string(keys[i]));
		}
		llm_call_clear(&call);
		free(items);
	}
	json_object_set_new(res, "pred", pred);
	return s;
}

SuqlStatus eval_linear_case(EvalWorker *w, const EvalCase *c, json_t *res, SuqlErr *err)
{
	const EvalBench *b = w->sh->bench;
	const char *table = c->table ? c->table : b->table;
	char **keys, **bodies;
	int n = top_k(w->lin, table, c->question, b->k, &keys, &bodies, err);
	SuqlStatus s = SUQL_OK;
	if (n < 0) {
		json_object_set_new(res, "error", json_string(err->msg ? err->msg : "failed"));
		json_object_set_new(res, "pred", c->kind == EVAL_QA ? json_null() : json_array());
		n = 0;
	} else {
		json_t *got = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(got, json_string(keys[i]));
		json_object_set_new(res, "passages", got);
		s = c->kind == EVAL_QA ? answer(w, c, bodies, n, res, err)
		                       : judge(w, c, keys, bodies, n, res, err);
	}
	text_strv_free(keys, (size_t)n);
	text_strv_free(bodies, (size_t)n);
	return s;
}
