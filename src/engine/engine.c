/*
 * engine.c: runs statements. Each statement is parsed by the SUQL front end (parse.h) and
 * reported to the sink as normalised SUQL; queries and data changes go to the free-text
 * executor (exec.c), which plans, runs and reports them; other statements are translated
 * to SQLite SQL (print.h) and run as they are. SQLite's error offsets in the translated SQL
 * are mapped back to the user's text. DDL keeps the SUQL catalog (catalog.h) in step:
 * CREATE TABLE records SUQL column types in the same savepoint, DROP TABLE forgets them,
 * ALTER TABLE RENAME / ADD COLUMN / DROP COLUMN follow. This file also holds the engine's
 * settings (:set optimize, batch, budget, ...) and read-only mode.
 */
#include "engine/engine.h"

#include "engine/bind_int.h"
#include "engine/engine_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"
#include "sql/lex.h"
#include "sql/parse.h"
#include "store/own.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The authorizer of read-only mode: it judges only what is prepared while guard is set
   (the user's statement), so the engine's own statements are never refused. */
static int readonly_auth(void *ctx, int action, const char *a, const char *b, const char *c,
                         const char *d)
{
	Engine *e = ctx;
	(void)c, (void)d;
	if (!e->guard)
		return SQLITE_OK;
	switch (action) {
	case SQLITE_READ:
		for (int i = 0; i < e->nhidden && a; i++)
			if (str_ieq(a, e->hidden[i])) {
				e->denied = e->hidden[i];
				return SQLITE_DENY;
			}
		return SQLITE_OK;
	case SQLITE_SELECT:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		return b == NULL ? SQLITE_OK : SQLITE_DENY;   /* reading a pragma, not setting it */
	default:
		return SQLITE_DENY;
	}
}

/* The authorizer, on every statement: a trigger of the file on one of suql's tables never
   runs (a statement that would fire it is refused, store/own.h), and none is made; in
   read-only mode, also readonly_auth. */
static int engine_auth(void *ctx, int action, const char *a, const char *b, const char *c,
                       const char *d)
{
	Engine *e = ctx;
	for (int i = 0; d && i < e->nown_trig; i++)
		if (str_ieq(d, e->own_trig[i])) {
			e->own_denied = e->own_trig[i];
			return SQLITE_DENY;
		}
	if ((action == SQLITE_CREATE_TRIGGER || action == SQLITE_CREATE_TEMP_TRIGGER) &&
	    own_is_name(b)) {
		e->own_create = 1;
		return SQLITE_DENY;
	}
	return e->readonly ? readonly_auth(ctx, action, a, b, c, d) : SQLITE_OK;
}

/* The triggers on suql's tables, read again when the schema changed (another process may
   have added one). */
static void engine_own_check(Engine *e)
{
	if (!e->backend->own_db)   /* a file of the database's own: the triggers it holds */
		return;
	long long cookie = -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(e->db, "PRAGMA schema_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			cookie = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (cookie >= 0 && cookie == e->own_cookie)
		return;
	own_strings_free(e->own_trig, e->nown_trig);
	e->nown_trig = own_triggers(e->db, &e->own_trig);
	e->own_cookie = cookie;
}

static void forget_hidden(Engine *e)
{
	for (int i = 0; i < e->nhidden; i++)
		free(e->hidden[i]);
	free(e->hidden);
	e->hidden = NULL;
	e->nhidden = 0;
	e->denied = NULL;
}

void engine_set_readonly(Engine *e, int on)
{
	e->readonly = on != 0;
	forget_hidden(e);
	if (e->readonly)   /* the tables of evaluation labels, read once for the authorizer */
		e->nhidden = catalog_prop_tables(e->store, CATALOG_LABELS, "on", &e->hidden);
	sqlite3_set_authorizer(e->db, engine_auth, e);
}

/* SQLite's progress handler, every 1000 instructions of any statement: stops it at Ctrl-C
   or the time limit, also when the statement started after the signal (sqlite3_interrupt
   reaches only the statements running then), and stops a bounded count (exec_count) that
   has run its course. */
static int on_progress(void *ctx)
{
	Engine *e = ctx;
	if (suql_interrupted)
		return 1;
	return e->steps_left > 0 && --e->steps_left == 0;
}

Engine *engine_open(const char *path, Llm *llm, SuqlErr *err)
{
	return engine_open_mode(path, llm, 0, err);
}

/* The backends' rows of the driver's table (top_int.h), each in its own file: a database
   opens with the first that claims its path (SQLite's claims any). */
static const Backend *const backends[] = {&exec_pg_backend, &exec_sqlite_backend, NULL};

Engine *engine_open_mode(const char *path, Llm *llm, int readonly, SuqlErr *err)
{
	const Backend *be = backends[0];
	for (int i = 0; backends[i]; i++)
		if (!backends[i]->claims || backends[i]->claims(path)) {
			be = backends[i];
			break;
		}
	sqlite3 *db = NULL;   /* the executor's statements are SQLite's */
	Store *store = be->open(path, readonly, &db, err);
	if (!store)
		return NULL;
	store_busy_timeout(store, ENGINE_DEFAULT_BUSY);
	Engine *e = xcalloc(1, sizeof *e);
	e->store = store;
	e->db = db;
	e->backend = be;
	e->open_ro = readonly;
	e->dialect = be->dialect;
	e->path = xstrdup(path);
	e->llm = llm;
	e->set.optimize = OPT_ON;
	e->set.batch = ENGINE_DEFAULT_BATCH;
	e->set.batch_tokens = ENGINE_DEFAULT_BATCH_TOKENS;
	e->set.join_candidates = ENGINE_DEFAULT_JOIN_CANDIDATES;
	e->set.join_factor = 1;
	e->set.agg_tokens = ENGINE_DEFAULT_AGG_TOKENS;
	e->set.cascade_sample = ENGINE_DEFAULT_CASCADE_SAMPLE;
	e->set.budget = ENGINE_DEFAULT_BUDGET;
	e->set.passage_tokens = ENGINE_DEFAULT_PASSAGE_TOKENS;
	e->set.dnf_cap = ENGINE_DEFAULT_DNF_CAP;
	e->set.times = 1;
	e->set.window = ENGINE_DEFAULT_WINDOW;
	e->set.busy = ENGINE_DEFAULT_BUSY;   /* set on the store above */
	e->set.fast_path = 1;
	op_functions(e);   /* every operator's SQL functions (op.c) */
	e->own_cookie = -1;
	engine_own_check(e);
	sqlite3_set_authorizer(db, engine_auth, e);
	sqlite3_progress_handler(db, 1000, on_progress, e);
	/* ranking reads the retrieval index a lot: map the file where the system allows */
	sqlite3_exec(db, "PRAGMA mmap_size = 268435456", NULL, NULL, NULL);
	return e;
}

void engine_copy_settings(Engine *to, const Engine *from)
{
	if (to && from) {
		to->set = from->set;
		store_busy_timeout(to->store, to->set.busy);
	}
}

void engine_close(Engine *e)
{
	if (!e)
		return;
	bind_scope_tabs_check(e, 1);
	engine_plain_free(e);
	forget_hidden(e);
	own_strings_free(e->own_trig, e->nown_trig);
	exec_record_free(e->record);
	store_close(e->store);
	if (e->backend->close)
		e->backend->close(e);
	free(e->path);
	free(e);
}

sqlite3 *engine_db(Engine *e) { return e->backend->own_db ? e->db : NULL; }
Store *engine_store(Engine *e) { return e->store; }

int engine_progress(const Engine *e, long long *judged, long long *of)
{
	const Exec *ex = e ? e->cur : NULL;
	return ex && exec_walk_progress(ex, judged, of);
}

int engine_column_is_list(const Engine *e, int col)
{
	const Exec *ex = e ? e->cur : NULL;
	return ex && ex->cols.list && col >= 0 && col < ex->cols.n && ex->cols.list[col];
}
const char *engine_path(const Engine *e) { return e->path; }

int engine_complete(const char *sql, size_t len)
{
	if (engine_plain_complete(sql, len) == 1)
		return 1;
	size_t pos = 0;
	for (;;) {
		int complete, empty;
		size_t end = lex_statement_end(sql, len, pos, &complete, &empty);
		if (!complete)
			return 0;
		if (end >= len || end <= pos)
			return 1;
		pos = end;
	}
}

const char *engine_function(int i)
{
	return op_sql_name(i);
}

SuqlStatus engine_exec(Engine *e, const char *sql, size_t len, size_t *used,
                       const EngineSink *sink, SuqlErr *err)
{
	SuqlStatus s;
	/* A plain statement needs no look at the triggers first: the fast path declines a
	   database with any trigger that names suql's tables (engine_plain.c), checked in the
	   statement's own read transaction, so reading the schema cookie here as well would
	   cost every plain statement a second lock of the file */
	if (engine_plain_run(e, sql, len, used, sink, &s, err))
		return s;
	engine_own_check(e);
	e->plain.full++;
	Ast *ast = NULL;
	size_t end = len;
	s = parse_statement(sql, len, 0, &ast, &end, err);
	*used = end;
	if (s != SUQL_OK || !ast)
		return s;
	if (sink && sink->parsed) {
		char *q = print_suql_stmt(ast);
		sink->parsed(sink->ctx, q);
		free(q);
	}
	s = e->backend->run(e, ast, sql, len, sink, err);   /* the backend's row (top_int.h) */
	ast_free(ast);
	return s;
}

/* ---- settings ---- */

/* ---- settings ---- */

/* busy_timeout takes effect on the connection at once. */
static void settings_changed(void *obj)
{
	Engine *e = obj;
	store_busy_timeout(e->store, e->set.busy);
}

#define ES(field) offsetof(Engine, set.field)

static const SetRow engine_rows[] = {
	{"optimize", SET_CHOICE, ES(optimize), 0, 0, "off on passage", "on|off|passage", "on",
	 "how free text runs: through the optimizer (on), row by row as a plain SQL engine with "
	 "user-defined functions would (off), or by a per-passage baseline (passage); off and "
	 "passage are there to compare against",
	 "With off (naive mode) SQLite calls the free-text functions row by row, each value not "
	 "seen before in the statement costing one call; on PostgreSQL each row's value is "
	 "evaluated ahead, one a call, and bound into the statement. With passage each "
	 "free-text filter "
	 "verifies the top " SETTING_STR(PASSAGE_BASELINE_K) " x LIMIT passages of the candidates "
	 "(all of them without LIMIT), one call per passage and question, and a row passes when "
	 "one of its passages does; the budget is not applied, and its rows may differ.",
	 "takes on, off or passage", NULL, 0, NULL, NULL},
	{"batch", SET_INT, ES(batch), 1, 256, NULL, "N", SETTING_STR(ENGINE_DEFAULT_BATCH),
	 "the most candidates one LLM call carries", NULL,
	 "is a whole number from {range} (candidates per LLM call)", NULL, 0, NULL, NULL},
	{"batch_tokens", SET_INT, ES(batch_tokens), 64, 10000000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_BATCH_TOKENS), "the most passage tokens one call carries; a "
	 "call takes fewer candidates when their text would pass it",
	 "Lower it for a model with a small context window.",
	 "is a whole number from {range} (passage tokens per LLM call)", NULL, 0, NULL,
	 NULL},
	{"budget", SET_LONG, ES(budget), 0, 2000000000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_BUDGET), "the most requests to the model one statement may "
	 "send, a hard cap (first asks, retries, re-asks and single candidates all count; the "
	 "offline backend counts one per call); 0: no limit",
	 "Before any call the plan adds up the cost; a statement whose expected cost is over the "
	 "budget is refused without any call. The expected cost of a lazy LIMIT walk assumes that "
	 "at least 1 candidate in 50 passes (a LIMIT 1 over a million rows expects a few calls); "
	 "otherwise it is the worst case. While it runs, a walk sizes its waves to the requests "
	 "left, and a statement that reaches the budget stops there, without rows, with exit "
	 "status 3 in a script. In bulk mode it counts the requests of the batch: a batch that "
	 "would hold more is not submitted.",
	 "is a whole number of LLM calls (0: no limit)", NULL, 0, NULL, NULL},
	{"budget_usd", SET_REAL, ES(budget_usd), 0, 1000000000, NULL, "DOLLARS", "0",
	 "the most one statement may cost in dollars, at the model's price (llm.price_in, "
	 "llm.price_out or the built-in list); 0: no limit",
	 "Like the budget of requests: a statement whose expected cost (in the plan's cost line, "
	 "read from the texts it will send) is over it is refused before any call. While it runs, "
	 "a request is sent only when its worst case (its own bytes and max_tokens, or the most "
	 "tokens a request of the statement was reported to take) fits in what is left with those "
	 "in flight, the first one alone; a statement whose next request does not fit stops "
	 "there, without rows (exit status 3 in a script). An endpoint reporting more tokens "
	 "than any bound may take it past the cap by the one request that showed it: the "
	 "statement then stops, says by how much, and exits 3. In bulk mode the batch's worst "
	 "case (each line's bytes / 4 in and its max_tokens out, at batch prices) is compared "
	 "with it before the batch is uploaded: a batch over it is not submitted. Without a "
	 "price for the model it cannot be applied, and a statement is refused with how to set "
	 "one.",
	 "is a number of dollars (0: no limit)", NULL, 0, NULL, NULL},
	{"passage_tokens", SET_INT, ES(passage_tokens), 16, 1000000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_PASSAGE_TOKENS), "text shown to the model per candidate, in "
	 "tokens counted as " SETTING_STR(TEXT_BYTES_PER_TOKEN) " bytes; a text that fits is "
	 "shown as written, a longer one cut to the passages that share most words with the "
	 "question", NULL, "is a whole number from {range}", NULL,
	 0, NULL, NULL},
	{"dnf_cap", SET_INT, ES(dnf_cap), 1, 100000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_DNF_CAP), "the most conjuncts a WHERE clause may have in "
	 "disjunctive normal form; past it the condition is judged per candidate as a tree, with "
	 "short-circuit", NULL, "is a whole number from {range}", NULL, 0, NULL, NULL},
	{"llm.cascade_target", SET_REAL, ES(cascade_target), 0, 0.999, NULL, "P", "0",
	 "a learned proxy in front of the main model for free-text filters that judge every "
	 "candidate (no LIMIT): the precision and recall against the main model it must keep, "
	 "such as 0.95; 0: off",
	 "The main model judges a random sample of llm.cascade_sample candidates; a classifier on "
	 "hashed words and BM25 learns its verdicts, and two thresholds chosen on the sample send "
	 "the candidates it is unsure of to the main model. Used when a unit has at least twice "
	 "the sample; the counters say how many verdicts each judge gave.",
	 "is a number from {range} (0: no cascade)", NULL, 0, NULL, NULL},
	{"llm.cascade_sample", SET_INT, ES(cascade_sample), 50, 20000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_CASCADE_SAMPLE), "candidates the main model labels for the "
	 "learned proxy (llm.cascade_target)", NULL, "is a whole number from {range}", NULL, 0,
	 NULL, NULL},
	{"join_candidates", SET_INT, ES(join_candidates), 0, 100000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_JOIN_CANDIDATES), "semantic join (matches()): the most right "
	 "values one left value is compared with; past it, BM25 keeps those that share the most "
	 "words with it; 0: all of them, in as many batched requests as they need",
	 "Pairs not kept are not asked and count as no match; the plan and the counters say "
	 "how many were never asked.",
	 "is a whole number from {range} (0: every right value)", NULL, 0, NULL, NULL},
	{"join_factor", SET_CHOICE, ES(join_factor), 0, 0, "off auto", "auto|off", "auto",
	 "semantic join (matches()) with many pairs: ask the model once whether the question "
	 "is settled by one property of each side (the same company, both positive), classify "
	 "each side's values into it in batches, and decide the pairs by comparing; off: judge "
	 "the pairs",
	 "Tried when the factor attempt (one call, the classification, a check of each value "
	 "once) costs less than half the pairwise calls. Each classified value is judged "
	 "directly once against a value of its class, and one value of each class against "
	 "one of every other; a value whose pair disagrees has its pairs judged, and past a "
	 "quarter of the values checked the pairs are judged as with off. Under a LIMIT "
	 "without ORDER BY the values are classified in waves, the shortest first, until the "
	 "LIMIT's rows are decided.",
	 "takes auto or off", NULL, 0, NULL, NULL},
	{"window", SET_INT, ES(window), 0, 100000000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_WINDOW), "a LIMIT walk over one table reads its candidates "
	 "this many at a time (best first by the retrieval index, or in the ORDER BY's order), "
	 "the window doubling as the waves use it up; 0: list every candidate before the first "
	 "call",
	 "Memory then follows the candidates the walk reached, not the table. It applies to an "
	 "ORDER BY walk, and to an unordered one whose conjunct asks one question of an indexed "
	 "column and whose candidates read in rowid order; the others are listed. The "
	 "candidates sent and the calls are the same either way; the counters say how many "
	 "candidates were read.",
	 "is a whole number from {range} (candidates; 0: list them all)", NULL, 0, NULL, NULL},
	{"times", SET_BOOL, ES(times), 0, 0, NULL, "on|off", "on",
	 "show times in the counters (off makes them reproducible)", NULL, NULL, NULL, 0, NULL,
	 NULL},
	{"fast_path", SET_BOOL, ES(fast_path), 0, 0, NULL, "on|off", "on",
	 "run plain SQL (no SUQL syntax, no ENUM or list columns in the database) as written, "
	 "without suql's parser; off parses every statement (the same results, slower)",
	 "A statement SQLite will not prepare as written takes the full path, so its error is "
	 "reported in place, with its caret, either way.", NULL, NULL, 0, NULL, NULL},
	{"agg_tokens", SET_INT, ES(agg_tokens), 64, 100000000, NULL, "N",
	 SETTING_STR(ENGINE_DEFAULT_AGG_TOKENS), "answer_agg() and summary_agg(): the most "
	 "passage tokens of one group sent to the model, the passages most relevant to the "
	 "question first (BM25)",
	 "A group whose passages fit one request (batch_tokens) shares requests with other "
	 "small groups; a larger one is cut into chunks of one request each, whose partial "
	 "answers one more call reduces to the group's answer. The plan shows the tree and its "
	 "calls before any call.",
	 "is a whole number from {range} (tokens)", NULL, 0, NULL, NULL},
	{"extract_quotes", SET_BOOL, ES(extract_quotes), 0, 0, NULL, "on|off", "off",
	 "extract() objects also hold, under \"_quotes\", the words of the text that support "
	 "each field",
	 "A quote the text does not contain word for word is dropped (null), as chat citations "
	 "are checked; the model is asked for the quotes, so turning this on asks again.",
	 NULL, NULL, 0, NULL, NULL},
	{"busy_timeout", SET_REAL, ES(busy), 0, 86400, NULL, "SECONDS",
	 SETTING_STR(ENGINE_DEFAULT_BUSY), "how long to wait for a database another process is "
	 "writing (several suql processes, or an :import under way) before failing with "
	 "'database is locked'", NULL, "is a number of seconds from {range} (how long to wait for "
	 "a database another process holds)", NULL, 0, NULL, NULL},
};

const SetTable engine_settings_table = {
	"The free-text executor", NULL, NULL, engine_rows,
	(int)(sizeof engine_rows / sizeof *engine_rows), settings_changed,
};

SuqlStatus engine_set(Engine *e, const char *key, const char *value, SuqlErr *err)
{
	return setting_set(&engine_settings_table, e, key, value, err);
}

void engine_settings(const Engine *e, SBuf *out)
{
	setting_show_all(&engine_settings_table, e, out);
}

/* ---- :index (each backend's row) ---- */

SuqlStatus engine_index(Engine *e, const char *table, FILE *out, SuqlErr *err)
{
	return e->backend->index(e, table, out, err);
}

int engine_import_indexes(const Engine *e)
{
	return e->backend->import_indexes;
}

int engine_own_scan(Engine *e, char ***msgs)
{
	return e->backend->own_db ? own_scan(e->db, msgs) : 0;
}

/* ---- :enum (the mappings live in enum.c) ---- */

SuqlStatus engine_enum_list(Engine *e, SBuf *out, SuqlErr *err)
{
	return enum_list(e, out, err);
}

SuqlStatus engine_enum_forget(Engine *e, const char *table, const char *column,
                              const char *literal, long *n, SuqlErr *err)
{
	return enum_forget(e, table, column, literal, n, err);
}
