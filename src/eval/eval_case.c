/*
 * eval_case.c: one case of a benchmark, run in one way, inside a worker process. The
 * worker has its own model client and session (the same configuration as the user's, with
 * the benchmark's settings), so cases in different workers never share a connection.
 *
 * A case's gold comes first: its answers or rows as written, or the first column of its
 * gold_sql run by SQLite alone, or else the result of its gold SUQL. Then the way runs, and
 * only the way's model calls are counted for the case: the counters are read from the
 * client's session totals just before and just after it. The suql way runs the gold SUQL
 * through the engine; the chat way asks the chat agent, on a fresh dialogue that sees only
 * the case's table, then (for QA) asks for the short answer, and compares the agent's query
 * with the gold SUQL by what both return (execution match); the linearize way is in
 * eval_linear.c.
 *
 * What a result's rows mean: for QA the prediction is the first value of the first row (the
 * seeds pick one answer out of several too); for sets of rows the keys are the values of
 * the benchmark's key column (case-insensitive), or of the first column when the result has
 * none by that name.
 */
#include "eval/eval_int.h"

#include "base/text.h"
#include "base/util.h"
#include "chat/agent.h"

#include <stdlib.h>
#include <string.h>

/* ---- the worker ---- */

SuqlStatus eval_apply_settings(Session *ses, const EvalShared *sh, SuqlErr *err)
{
	const EvalBench *b = sh->bench;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; s == SUQL_OK && i + 1 < b->nsettings; i += 2)
		s = session_set(ses, b->settings[i], b->settings[i + 1], err);
	if (s == SUQL_OK && b->examples)
		s = session_set(ses, "chat.examples", b->examples, err);
	for (int i = 0; s == SUQL_OK && i < sh->cfg->nsets; i++) {
		const char *kv = sh->cfg->sets[i], *eq = strchr(kv, '=');
		if (!eq)
			return err_set(err, SUQL_USAGE, "--set takes KEY=VALUE, not '%s'", kv);
		char *key = xstrndup(kv, (size_t)(eq - kv));
		s = session_set(ses, key, eq + 1, err);
		free(key);
	}
	return s;
}

SuqlStatus eval_worker_open(EvalWorker *w, const EvalShared *sh, SuqlErr *err)
{
	memset(w, 0, sizeof *w);
	w->sh = sh;
	session_init(&w->s, 0);
	w->llm = llm_open(sh->cfg->llm, err);
	if (!w->llm)
		return SUQL_USAGE;
	w->s.llm = w->llm;
	SuqlStatus s = session_open(&w->s, sh->cfg->db, err);
	if (s != SUQL_OK)
		return s;
	/* workers write enum mappings and index updates to one file: wait for each other */
	store_busy_timeout(engine_store(w->s.engine), 60);
	w->devnull = fopen("/dev/null", "w");
	if (w->devnull)
		w->s.out = w->devnull;
	s = eval_apply_settings(&w->s, sh, err);
	if (s == SUQL_OK && sh->concurrency > 0) {
		char n[16];
		snprintf(n, sizeof n, "%d", sh->concurrency);
		s = session_set(&w->s, "concurrency", n, err);
	}
	if (s == SUQL_OK && sh->lin_path &&
	    sqlite3_open_v2(sh->lin_path, &w->lin, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		s = err_set(err, SUQL_IO, "cannot open %s: %s", sh->lin_path, sqlite3_errmsg(w->lin));
	return s;
}

void eval_worker_close(EvalWorker *w)
{
	w->s.out = stdout;
	if (w->devnull)
		fclose(w->devnull);
	sqlite3_close(w->lin);
	session_free(&w->s);
	llm_close(w->llm);
	memset(w, 0, sizeof *w);
}

/* ---- statements and their results ---- */

static void eval_table_free(EvalTable *t)
{
	json_decref(t->cols);
	json_decref(t->rows);
	json_decref(t->warnings);
	memset(t, 0, sizeof *t);
}

static void tab_columns(void *ctx, const Row *r)
{
	EvalTable *t = ctx;
	json_array_clear(t->cols);
	for (int i = 0; i < row_count(r); i++)
		json_array_append_new(t->cols, json_string(row_name(r, i)));
}

static int tab_row(void *ctx, const Row *r)
{
	EvalTable *t = ctx;
	json_t *row = json_array();
	for (int i = 0; i < row_count(r); i++) {
		size_t n;
		const char *s;
		switch (row_kind(r, i)) {
		case ROW_NULL:
			json_array_append_new(row, json_null());
			break;
		case ROW_INTEGER:
			json_array_append_new(row, json_integer(row_integer(r, i)));
			break;
		case ROW_REAL:
			json_array_append_new(row, json_real(row_real(r, i)));
			break;
		default:
			s = row_text(r, i, &n);
			json_array_append_new(row, json_stringn_nocheck(s ? s : "", n));
		}
	}
	json_array_append_new(t->rows, row);
	return 0;
}

static void tab_warning(void *ctx, const char *msg)
{
	EvalTable *t = ctx;
	if (json_array_size(t->warnings) < 20)
		json_array_append_new(t->warnings, json_string(msg));
}

/* Run the first statement of sql through the session's engine, keeping its result. */
static SuqlStatus eval_exec(EvalWorker *w, const char *sql, EvalTable *t, SuqlErr *err)
{
	t->cols = json_array();
	t->rows = json_array();
	t->warnings = json_array();
	EngineSink sink = {t, NULL, NULL, tab_columns, tab_row, NULL, tab_warning, NULL, 0, NULL, 0};
	size_t used = 0;
	SuqlStatus s = engine_exec(w->s.engine, sql, strlen(sql), &used, &sink, err);
	if (s == SUQL_INCOMPLETE)
		s = err_set(err, SUQL_ERROR, "the statement is not complete");
	return s;
}

char *eval_value_text(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v)) {
		char *s = sqlite3_mprintf("%!.15g", json_real_value(v));
		char *r = xstrdup(s ? s : "");
		sqlite3_free(s);
		return r;
	}
	if (json_is_boolean(v))
		return xstrdup(json_is_true(v) ? "1" : "0");
	return NULL;
}

/* The index of the key column among cols (names), else 0. */
static size_t key_index(const EvalBench *b, json_t *cols)
{
	size_t i;
	json_t *c;
	json_array_foreach(cols, i, c)
		if (b->key && json_is_string(c) && str_ieq(json_string_value(c), b->key))
			return i;
	return 0;
}

/* Keys of a table's rows (heap strings in a heap array). */
static int table_keys(const EvalBench *b, const EvalTable *t, char ***out)
{
	size_t k = key_index(b, t->cols), i;
	json_t *row;
	int n = 0;
	*out = xcalloc(json_array_size(t->rows) + 1, sizeof **out);
	json_array_foreach(t->rows, i, row) {
		char *s = eval_value_text(json_array_get(row, k));
		if (s)
			(*out)[n++] = s;
	}
	return n;
}

/* The answer a table gives: its first row's first value (NULL when none). */
static char *table_answer(const EvalTable *t)
{
	return eval_value_text(json_array_get(json_array_get(t->rows, 0), 0));
}

/* ---- results and scores ---- */

json_t *eval_result_new(const EvalCase *c, EvalWay way)
{
	json_t *r = json_object();
	json_object_set_new(r, "id", json_string(c->id));
	json_object_set_new(r, "way", json_string(eval_way_name(way)));
	json_object_set_new(r, "kind", json_string(c->kind == EVAL_QA ? "qa" : "rows"));
	if (c->split)
		json_object_set_new(r, "split", json_string(c->split));
	json_object_set_new(r, "question", json_string(c->question));
	return r;
}

static json_t *str_array(const char *const *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* Score a prediction into res: QA with pred (may be NULL: no answer), rows with keys. */
static void eval_score_qa(json_t *res, const char *const *gold, int ngold, const char *pred)
{
	json_object_set_new(res, "pred", pred ? json_string(pred) : json_null());
	json_object_set_new(res, "gold", str_array(gold, ngold));
	json_object_set_new(res, "em", json_real(eval_exact(pred ? pred : "", gold, ngold)));
	json_object_set_new(res, "f1", json_real(eval_f1(pred ? pred : "", gold, ngold)));
}

static void eval_score_rows(json_t *res, const EvalBench *b, const char *const *gold, int ngold,
                     const char *const *keys, int nkeys)
{
	EvalSetScore sc;
	eval_set_score(keys, nkeys, gold, ngold, b->k, &sc);
	json_object_set_new(res, "pred", str_array(keys, nkeys));
	json_object_set_new(res, "gold", str_array(gold, ngold));
	json_object_set_new(res, "tp", json_integer(sc.tp));
	json_object_set_new(res, "fp", json_integer(sc.fp));
	json_object_set_new(res, "fn", json_integer(sc.fn));
	json_object_set_new(res, "hits_k", json_integer(sc.hits_k));
	json_object_set_new(res, "n_k", json_integer(sc.n_k));
	double p = sc.tp + sc.fp ? (double)sc.tp / (sc.tp + sc.fp) : -1;
	double r = sc.tp + sc.fn ? (double)sc.tp / (sc.tp + sc.fn) : -1;
	json_object_set_new(res, "p", p >= 0 ? json_real(p) : json_null());
	json_object_set_new(res, "r", r >= 0 ? json_real(r) : json_null());
	double f1 = p > 0 && r > 0 ? 2 * p * r / (p + r) : (sc.tp + sc.fp + sc.fn == 0);
	json_object_set_new(res, "f1", json_real(f1));
}

/* ---- the gold ---- */

typedef struct Gold {
	char **v;
	int n;
} Gold;

/* A gold SQL's rows read through the store (PostgreSQL), as the SQLite path reads them. */
static SuqlStatus gold_store(Store *st, const char *sql, EvalTable *t, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(st, sql, NULL, 0, &c, err);
	if (s != SUQL_OK) {
		char *why = xstrdup(err->msg ? err->msg : "failed");
		s = err_set(err, SUQL_ERROR, "gold_sql: %s", why);
		free(why);
		return s;
	}
	t->cols = json_array();
	t->rows = json_array();
	Row r;
	store_row_cursor(&r, c);
	tab_columns(t, &r);
	int rc;
	while ((rc = store_next(c)) > 0)
		tab_row(t, &r);
	store_done(c);
	if (rc < 0)
		s = err_set(err, SUQL_ERROR, "gold_sql: the server stopped while sending its rows");
	return s;
}

/* The gold of a case; SUQL_ERROR (err says why) when its SQL fails. suql_tab, when the
   gold is the gold SUQL's own result, receives that result (the suql way reuses it). */
static SuqlStatus gold_of(EvalWorker *w, const EvalCase *c, Gold *g, EvalTable *suql_tab,
                          SuqlErr *err)
{
	const EvalBench *b = w->sh->bench;
	memset(g, 0, sizeof *g);
	if (c->answers || c->has_rows) {
		char *const *v = c->answers ? c->answers : c->rows;
		g->n = c->answers ? c->nanswers : c->nrows;
		g->v = xcalloc((size_t)g->n + 1, sizeof *g->v);
		for (int i = 0; i < g->n; i++)
			g->v[i] = xstrdup(v[i]);
		return SUQL_OK;
	}
	EvalTable t = {0};
	SuqlStatus s;
	if (c->gold_sql && !engine_db(w->s.engine)) {   /* PostgreSQL: the server alone */
		s = gold_store(engine_store(w->s.engine), c->gold_sql, &t, err);
	} else if (c->gold_sql) {   /* SQLite alone: no model ever sees this */
		sqlite3 *db = engine_db(w->s.engine);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, c->gold_sql, -1, &st, NULL) != SQLITE_OK)
			return err_set(err, SUQL_ERROR, "gold_sql: %s", sqlite3_errmsg(db));
		t.cols = json_array();
		t.rows = json_array();
		Row r;
		store_row_sqlite(&r, st);
		tab_columns(&t, &r);
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			tab_row(&t, &r);
		s = rc == SQLITE_DONE ? SUQL_OK : err_set(err, SUQL_ERROR, "gold_sql: %s",
		                                          sqlite3_errmsg(db));
		sqlite3_finalize(st);
	} else {
		s = eval_exec(w, c->suql, &t, err);
	}
	if (s == SUQL_OK && c->kind == EVAL_QA) {   /* every value of the first column */
		size_t i;
		json_t *row;
		g->v = xcalloc(json_array_size(t.rows) + 1, sizeof *g->v);
		json_array_foreach(t.rows, i, row) {
			char *a = eval_value_text(json_array_get(row, 0));
			if (a && (c->gold_sql || g->n == 0))
				g->v[g->n++] = a;
			else
				free(a);
		}
	} else if (s == SUQL_OK) {
		char **keys;
		int n = table_keys(b, &t, &keys);
		g->v = xcalloc((size_t)n + 1, sizeof *g->v);
		for (int i = 0; i < n; i++) {
			int dup = 0;
			for (int k = 0; k < g->n && !dup; k++)
				dup = strcmp(g->v[k], keys[i]) == 0;
			if (dup)
				free(keys[i]);
			else
				g->v[g->n++] = keys[i];
		}
		free(keys);
	}
	if (s == SUQL_OK && suql_tab && !c->gold_sql)
		*suql_tab = t;
	else
		eval_table_free(&t);
	return s;
}

/* ---- counters ---- */

typedef struct Snap {
	LlmCounts c;
	double t0;
} Snap;

static void snap(EvalWorker *w, Snap *s)
{
	s->c = llm_stats_session(w->llm)->total;
	s->t0 = util_now_ms();
}

static void put_counters(EvalWorker *w, const Snap *s0, json_t *res)
{
	const LlmCounts *c = &llm_stats_session(w->llm)->total;
	json_object_set_new(res, "calls", json_integer(c->calls - s0->c.calls));
	json_object_set_new(res, "cache_hits", json_integer(c->cache_hits - s0->c.cache_hits));
	json_object_set_new(res, "tokens_in", json_integer(c->tokens_in - s0->c.tokens_in));
	json_object_set_new(res, "tokens_out", json_integer(c->tokens_out - s0->c.tokens_out));
	json_object_set_new(res, "requests", json_integer(c->requests - s0->c.requests));
	json_object_set_new(res, "model_ms", json_real(c->ms - s0->c.ms));
	json_object_set_new(res, "ms", json_real(util_now_ms() - s0->t0));
}

/* ---- the ways ---- */

static void score_table(EvalWorker *w, const EvalCase *c, const Gold *g, const EvalTable *t,
                        json_t *res)
{
	const EvalBench *b = w->sh->bench;
	if (c->kind == EVAL_QA) {
		char *a = t ? table_answer(t) : NULL;
		eval_score_qa(res, (const char *const *)g->v, g->n, a);
		free(a);
	} else {
		char **keys = NULL;
		int n = t ? table_keys(b, t, &keys) : 0;
		eval_score_rows(res, b, (const char *const *)g->v, g->n, (const char *const *)keys, n);
		text_strv_free(keys, (size_t)n);
	}
}

static SuqlStatus way_suql(EvalWorker *w, const EvalCase *c, const Gold *g, EvalTable *have,
                           json_t *res, SuqlErr *err)
{
	if (!c->suql) {
		json_object_set_new(res, "error", json_string("the case has no gold SUQL to run"));
		score_table(w, c, g, NULL, res);
		return SUQL_OK;
	}
	json_object_set_new(res, "query", json_string(c->suql));
	EvalTable t = {0};
	SuqlStatus s = SUQL_OK;
	if (have->rows) {
		t = *have;
		memset(have, 0, sizeof *have);
	} else {
		s = eval_exec(w, c->suql, &t, err);
	}
	if (s == SUQL_OK || s == SUQL_ERROR || s == SUQL_BUDGET) {
		if (s != SUQL_OK)
			json_object_set_new(res, "error", json_string(err->msg ? err->msg : "failed"));
		score_table(w, c, g, s == SUQL_OK ? &t : NULL, res);
		if (t.warnings && json_array_size(t.warnings))
			json_object_set(res, "warnings", t.warnings);
		s = SUQL_OK;
	}
	eval_table_free(&t);
	return s;
}

/* The keys of an agent's rows (objects): the key column's values, else the first one's. */
static int agent_keys(const EvalBench *b, const AgentRows *rows, char ***out)
{
	const char *col = rows->ncols ? rows->cols[0] : NULL;
	for (int i = 0; i < rows->ncols && b->key; i++)
		if (str_ieq(rows->cols[i], b->key))
			col = rows->cols[i];
	size_t i;
	json_t *row;
	int n = 0;
	*out = xcalloc(json_array_size(rows->rows) + 1, sizeof **out);
	json_array_foreach(rows->rows, i, row) {
		char *s = col ? eval_value_text(json_object_get(row, col)) : NULL;
		if (s)
			(*out)[n++] = s;
	}
	return n;
}

/* Does the agent's result match the gold SUQL's (run with the same default LIMIT)? Rows:
   the same set of keys. QA: the gold query's answer is one of the values the agent's query
   returned (its projection may differ). -1 when the gold query cannot run. */
static int exec_match(EvalWorker *w, const EvalCase *c, const AgentOutcome *o, json_t *res)
{
	char *sql = NULL;
	int limited = 0, match = -1;
	SuqlErr e = {0};
	EvalTable t = {0};
	if (agent_prepare(c->suql, o->limit, &sql, &limited, &e) == SUQL_OK &&
	    eval_exec(w, sql, &t, &e) == SUQL_OK) {
		if (c->kind == EVAL_QA) {
			char *want = table_answer(&t);
			char *nw = eval_normalize(want ? want : "");
			match = json_array_size(o->rows->rows) == 0 && !want;
			size_t i;
			json_t *row, *v;
			json_array_foreach(o->rows->rows, i, row) {
				const char *k;
				json_object_foreach(row, k, v) {
					char *got = eval_value_text(v), *ng = eval_normalize(got ? got : "");
					match |= want && strcmp(ng, nw) == 0;
					free(got);
					free(ng);
				}
			}
			free(nw);
			free(want);
		} else {
			char **mine, **ref;
			int nm = agent_keys(w->sh->bench, o->rows, &mine);
			int nr = table_keys(w->sh->bench, &t, &ref);
			EvalSetScore a, b;
			eval_set_score((const char *const *)mine, nm, (const char *const *)ref, nr, 1, &a);
			eval_set_score((const char *const *)ref, nr, (const char *const *)mine, nm, 1, &b);
			match = a.fp == 0 && b.fp == 0;
			text_strv_free(mine, (size_t)nm);
			text_strv_free(ref, (size_t)nr);
		}
	} else {
		json_object_set_new(res, "gold_suql_error", json_string(e.msg ? e.msg : "failed"));
	}
	eval_table_free(&t);
	err_clear(&e);
	free(sql);
	return match;
}

static SuqlStatus way_chat(EvalWorker *w, const EvalCase *c, const Gold *g, json_t *res,
                           SuqlErr *err)
{
	const EvalBench *b = w->sh->bench;
	Agent *a = session_agent(&w->s);
	agent_reset(a);
	const char *table = c->table ? c->table : b->table;
	SuqlStatus s = agent_set(a, "chat.tables", table ? table : "all", err);
	if (s != SUQL_OK)
		return s;
	Snap s0;
	snap(w, &s0);
	s = agent_turn(a, c->question, err);
	if (s == SUQL_LLM || s == SUQL_INTERRUPT || s == SUQL_USAGE)
		return s;
	AgentOutcome o;
	agent_last(a, &o);
	if (s != SUQL_OK)
		json_object_set_new(res, "error", json_string(err->msg ? err->msg : "failed"));
	err_clear(err);
	if (o.suql)
		json_object_set_new(res, "query", json_string(o.suql));
	if (o.reply)
		json_object_set_new(res, "reply", json_string(o.reply));
	if (o.relaxed)
		json_object_set_new(res, "relaxed", json_true());
	if (o.repaired)
		json_object_set_new(res, "repaired", json_true());
	if (c->kind == EVAL_QA) {
		char *span = NULL;
		if (s == SUQL_OK) {
			char *rows = json_dumps(o.rows->rows, JSON_COMPACT | JSON_PRESERVE_ORDER);
			s = agent_short_answer(a, c->question, rows, o.reply, &span, err);
			free(rows);
			if (s != SUQL_OK) {
				free(span);
				return s;
			}
		}
		eval_score_qa(res, (const char *const *)g->v, g->n, span);
		free(span);
	} else {
		char **keys = NULL;
		int n = o.rows ? agent_keys(b, o.rows, &keys) : 0;
		eval_score_rows(res, b, (const char *const *)g->v, g->n, (const char *const *)keys, n);
		text_strv_free(keys, (size_t)n);
	}
	put_counters(w, &s0, res);
	if (c->suql && o.suql && o.rows) {
		int m = exec_match(w, c, &o, res);
		json_object_set_new(res, "exec_match", m < 0 ? json_null() : json_integer(m));
	} else if (c->suql) {
		json_object_set_new(res, "exec_match", json_integer(0));
	}
	return SUQL_OK;
}

json_t *eval_run_case(EvalWorker *w, const EvalCase *c, EvalWay way)
{
	const EvalBench *b = w->sh->bench;
	json_t *res = eval_result_new(c, way);
	SuqlErr err = {0};
	Gold g;
	EvalTable have = {0};
	SuqlStatus s = gold_of(w, c, &g, way == EVAL_SUQL ? &have : NULL, &err);
	if (s == SUQL_OK) {
		Snap s0;
		snap(w, &s0);
		if (way == EVAL_SUQL) {
			s = way_suql(w, c, &g, &have, res, &err);
			put_counters(w, &s0, res);
		} else if (way == EVAL_CHAT) {
			s = way_chat(w, c, &g, res, &err);
		} else {
			s = eval_linear_case(w, c, res, &err);
			if (s == SUQL_OK) {
				/* scoring replaces "pred": hold a reference to what it was */
				json_t *pred = json_incref(json_object_get(res, "pred"));
				if (c->kind == EVAL_QA) {
					eval_score_qa(res, (const char *const *)g.v, g.n,
					              json_string_value(pred));
				} else {
					int n = (int)json_array_size(pred);
					const char **keys = xcalloc((size_t)n + 1, sizeof *keys);
					for (int i = 0; i < n; i++)
						keys[i] = json_string_value(json_array_get(pred, (size_t)i));
					eval_score_rows(res, b, (const char *const *)g.v, g.n, keys, n);
					free(keys);
				}
				json_decref(pred);
			}
			put_counters(w, &s0, res);
		}
	} else if (s == SUQL_ERROR || s == SUQL_BUDGET) {
		json_object_set_new(res, "gold_error", json_string(err.msg ? err.msg : "failed"));
		s = SUQL_OK;
	}
	if (s == SUQL_INTERRUPT) {
		json_object_set_new(res, "interrupted", json_true());
	} else if (s != SUQL_OK) {
		json_object_set_new(res, "model_error", json_string(err.msg ? err.msg : "failed"));
		json_object_set_new(res, "status", json_integer(s));
	}
	text_strv_free(g.v, (size_t)g.n);
	eval_table_free(&have);
	err_clear(&err);
	return res;
}
