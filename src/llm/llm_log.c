/*
 * llm_log.c: the request log, every request to the model and what came back, kept in a
 * SQLite file of its own so that a user can see (:log) and query (sqlite3) what suql sent
 * and what the model said, as `llm logs` lets its users.
 *
 * Where: $XDG_STATE_HOME/suql/log.db (else ~/.local/state/suql/log.db), or the path the
 * config file's `log` key names. The XDG base directories put logs and history under the
 * state directory, not the cache: the cache (cache.db) may be deleted at any time to get
 * room back and loses nothing but requests to come, while the log is the user's record of
 * what was sent, kept beside the REPL's history. A file of its own, not a table of the
 * cache's, so that clearing one never touches the other, :cache clear's VACUUM never
 * rewrites a large log, and the log's cap never evicts a cached answer.
 *
 * What is logged, one row each (doc/llm.md has the columns):
 *   - every HTTP request that left suql: a model call's first request, its retries, its
 *     re-asks and its splits (each with its reason), :llm test's and :llm models', and the
 *     batch interface's (upload, create, status, fetch, cancel); with the prompt as sent
 *     (the body's messages), the raw reply (the message's content, or the body of an
 *     error), tokens, cost, latency, HTTP status and the error a failure gave;
 *   - every answer the cache file gave (status cached, cache_hit 1): no request went over
 *     the wire; its prompt is the request the answer was kept under (the unit asked alone),
 *     its reply the result kept. Answers of the statement's own memory (a value asked twice
 *     in one statement) are not logged again: the request or cache hit that first answered
 *     them is;
 *   - every call the offline backend answered (backend offline, status ok): nothing went
 *     over the wire and no prompt exists, so the prompt column holds the task it was given
 *     (question, comparison, texts) as a JSON object, and the reply the answers it gave;
 *   - bulk mode: each request collected for a batch (status collected, its batch id once
 *     submitted), and each answer a fetched batch gave (status batch, the batch id).
 *
 * The rows of the offline backend, the cache and the one-off requests are built in
 * llm_log_entry.c; the HTTP backend's in llm_http.c.
 *
 * Cheap: an entry is queued in memory as its reply is read (copies of the messages sent
 * and of the reply, no more), and the queue is written in one transaction when the statement (or
 * the chat turn, or the meta-command) ends, like the cache's queue, or when it grows past
 * LOG_QUEUE_BYTES. Secrets are masked (llm_scrub: the key, a URL's credentials, any
 * Authorization value and every run of 8 characters of them or of their Base64) as the
 * queue is written, never on the request's path. A file another process holds past the
 * busy timeout keeps the queue for the next write; one that cannot be used at all is
 * given up with a warning, once (llm_log_notice), and the session goes on without it.
 *
 * The size cap (llm.log_max, in megabytes): each row's bytes (its texts and a row's
 * overhead) are summed in log_total by triggers, so that rows deleted with plain SQL are
 * counted out too; when a write passes the cap, the oldest rows go (never the newest).
 *
 * Ownership: struct LlmLog hangs off the Llm (llm_log_free); a queued entry owns its
 * strings; llm_log_add takes the heap strings of the entry it is given.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The queue is written before it holds more than this (a statement of many requests). */
#define LOG_QUEUE_BYTES (8u << 20)
/* Entries kept queued while the file is busy (another suql writing): past it, dropped. */
#define LOG_QUEUE_MAX 20000
/* A text longer than this is cut (the output file of a batch, a runaway reply): the row
   says how many bytes were left out. */
#define LOG_TEXT_MAX (1u << 20)
/* What a row costs besides its texts, counted against the cap. */
#define LOG_ROW_BYTES 200
#define LOG_BUSY_MS 2000

const LlmLogColumn llm_log_columns[] = {
	{"id", "INTEGER PRIMARY KEY", 1},
	{"bytes", "INTEGER NOT NULL", 1},
	{"time", "TEXT NOT NULL", 0},
	{"session", "TEXT NOT NULL", 0},
	{"statement", "INTEGER NOT NULL", 1},
	{"kind", "TEXT NOT NULL", 0},
	{"backend", "TEXT NOT NULL", 0},
	{"model", "TEXT", 0},
	{"endpoint", "TEXT", 0},
	{"status", "TEXT NOT NULL", 0},
	{"cache_hit", "INTEGER NOT NULL", 1},
	{"reason", "TEXT", 0},
	{"items", "INTEGER NOT NULL", 1},
	{"http", "INTEGER", 1},
	{"tokens_in", "INTEGER NOT NULL", 1},
	{"tokens_out", "INTEGER NOT NULL", 1},
	{"tokens_cached", "INTEGER NOT NULL", 1},
	{"tokens_reasoning", "INTEGER NOT NULL", 1},
	{"tokens_estimated", "INTEGER NOT NULL", 1},
	{"usd", "REAL", 1},
	{"ms", "REAL NOT NULL", 1},
	{"bulk", "TEXT", 0},
	{"error", "TEXT", 0},
	{"sql", "TEXT", 0},
	{"chat", "TEXT", 0},
	{"prompt", "TEXT", 0},
	{"reply", "TEXT", 0},
};
const int llm_log_ncolumns = (int)(sizeof llm_log_columns / sizeof *llm_log_columns);

/* A queued entry and the statement it belongs to. */
typedef struct LogEnt {
	LlmLogEntry e;
	int stmt;
	char *sql, *chat;
} LogEnt;

struct LlmLog {
	sqlite3 *db;
	sqlite3_stmt *ins;
	char *path;          /* the file in use */
	int state;           /* 0: not opened yet, 1: open, -1: given up (why) */
	char *why;
	int told;            /* why was handed to llm_log_notice */
	LogEnt *q;
	int nq, capq;
	size_t qbytes;
	long dropped;        /* entries lost while the file was busy */
	char session[24];
	int seq;             /* statements, chat turns and meta-commands numbered so far */
	int cur;             /* the number entries get now (0: none began) */
	int chat_seq;        /* the chat turn's number while one runs */
	const char *text;    /* the statement's text (borrowed until llm_log_end) */
	char *sql;           /* ... copied at its first entry */
	char *chat;          /* the chat turn's line */
};

static struct LlmLog *state(Llm *llm)
{
	if (!llm->log) {
		struct LlmLog *g = xcalloc(1, sizeof *g);
		/* a session: when it began and which process, so that two suql at once differ */
		snprintf(g->session, sizeof g->session, "%lx-%x", (unsigned long)time(NULL),
		         (unsigned)getpid());
		llm->log = g;
	}
	return llm->log;
}

char *llm_log_default_path(void)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	if (xdg && *xdg)
		return xprintf("%s/suql/log.db", xdg);
	const char *home = getenv("HOME");
	return xprintf("%s/.local/state/suql/log.db", home && *home ? home : ".");
}

int llm_log_wanted(const Llm *llm)
{
	return llm && !llm->s.log_off;
}

double llm_log_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void entry_free(LlmLogEntry *e)
{
	free(e->model);
	free(e->endpoint);
	free(e->prompt);
	free(e->reply);
	free(e->bulk);
	free(e->error);
	memset(e, 0, sizeof *e);
}

static void queue_drop(struct LlmLog *g)
{
	for (int i = 0; i < g->nq; i++) {
		entry_free(&g->q[i].e);
		free(g->q[i].sql);
		free(g->q[i].chat);
	}
	g->nq = 0;
	g->qbytes = 0;
}

/* Write the queue now (llm_log_end, llm_close). */
static void llm_log_flush(Llm *llm);

void llm_log_free(Llm *llm)
{
	struct LlmLog *g = llm->log;
	if (!g)
		return;
	llm_log_flush(llm);
	queue_drop(g);
	free(g->q);
	sqlite3_finalize(g->ins);
	sqlite3_close(g->db);
	free(g->path);
	free(g->why);
	free(g->sql);
	free(g->chat);
	free(g);
	llm->log = NULL;
}

/* ---- what entries belong to ---- */

void llm_log_begin(Llm *llm, const char *text)
{
	if (!llm)
		return;
	struct LlmLog *g = state(llm);
	g->cur = ++g->seq;
	g->text = text;
	free(g->sql);
	g->sql = NULL;
}

void llm_log_end(Llm *llm)
{
	if (!llm || !llm->log)
		return;
	struct LlmLog *g = llm->log;
	llm_log_flush(llm);
	g->text = NULL;
	free(g->sql);
	g->sql = NULL;
	g->cur = g->chat ? g->chat_seq : 0;
}

void llm_log_chat(Llm *llm, const char *turn)
{
	if (!llm)
		return;
	struct LlmLog *g = state(llm);
	llm_log_flush(llm);
	free(g->chat);
	g->chat = NULL;
	g->text = NULL;
	free(g->sql);
	g->sql = NULL;
	if (turn) {
		g->chat = xstrdup(turn);
		g->cur = g->chat_seq = ++g->seq;
	} else {
		g->cur = g->chat_seq = 0;
	}
}

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

void llm_log_add(Llm *llm, const LlmCall *c, LlmLogEntry *e)
{
	if (!llm_log_wanted(llm)) {
		entry_free(e);
		return;
	}
	struct LlmLog *g = state(llm);
	if (g->state < 0) {   /* given up: the session said so once */
		entry_free(e);
		return;
	}
	if (!e->t)
		e->t = llm_log_now();
	if (c) {
		if (!e->kind)
			e->kind = llm_kind_name(c->kind);
		if (!e->model)
			e->model = xstrdup(llm_spend_model(llm, c));
	}
	e->offline = llm_is_offline(llm);
	if (!e->endpoint && !e->offline && llm_origin(llm))
		e->endpoint = xstrdup(llm_origin(llm));
	if (!e->kind)
		e->kind = "?";
	if (!e->status)
		e->status = "ok";
	if (g->text && !g->sql) {   /* the statement's text, once per statement */
		size_t n = strlen(g->text);
		const char *s = g->text;
		str_trim(&s, &n);
		g->sql = xstrndup(s, n);
	}
	if (g->nq == g->capq)
		g->q = xrealloc(g->q, (size_t)(g->capq = g->capq ? 2 * g->capq : 32) * sizeof *g->q);
	LogEnt *q = &g->q[g->nq++];
	q->e = *e;
	q->stmt = g->cur;
	q->sql = g->sql ? xstrdup(g->sql) : NULL;
	q->chat = g->chat ? xstrdup(g->chat) : NULL;
	memset(e, 0, sizeof *e);
	g->qbytes += len0(q->e.prompt) + len0(q->e.reply) + len0(q->sql) + LOG_ROW_BYTES;
	if (g->qbytes > LOG_QUEUE_BYTES)
		llm_log_flush(llm);
}

/* ---- the file ---- */

/* SQL of the columns, for CREATE TABLE (with types) or INSERT and SELECT (names). */
static char *column_list(int types, int from)
{
	SBuf b = SBUF_INIT;
	for (int i = from; i < llm_log_ncolumns; i++)
		sb_printf(&b, "%s%s%s%s", i > from ? ", " : "", llm_log_columns[i].name,
		          types ? " " : "", types ? llm_log_columns[i].type : "");
	return sb_steal(&b);
}

static void give_up(struct LlmLog *g, const char *fmt, const char *detail)
{
	if (!g->why)
		g->why = xprintf(fmt, g->path, detail);
	g->state = -1;
	sqlite3_finalize(g->ins);
	g->ins = NULL;
	sqlite3_close(g->db);
	g->db = NULL;
}

/* Open the file and make its tables: 1, or 0 with the log given up (why). */
static int open_file(Llm *llm, struct LlmLog *g)
{
	if (g->state)
		return g->state > 0;
	free(g->path);
	g->path = xstrdup(llm->s.log_path);
	if (!util_make_parent_dirs(g->path)) {
		give_up(g, "the request log %s cannot be made: %s", strerror(errno));
		return 0;
	}
	/* it holds prompts, which hold the data: readable by its owner alone (SQLite gives
	   the -wal and -shm files the same mode) */
	int fd = open(g->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	int rc = sqlite3_open_v2(g->path, &g->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		give_up(g, "the request log %s cannot be opened: %s",
		        g->db ? sqlite3_errmsg(g->db) : sqlite3_errstr(rc));
		return 0;
	}
	sqlite3_busy_timeout(g->db, LOG_BUSY_MS);
	char *cols = column_list(1, 0);
	char *sql = xprintf(
		"PRAGMA journal_mode=WAL;"
		"PRAGMA synchronous=NORMAL;"
		"CREATE TABLE IF NOT EXISTS log(%s);"
		"CREATE TABLE IF NOT EXISTS log_total(bytes INTEGER NOT NULL);"
		"INSERT INTO log_total SELECT coalesce(sum(bytes), 0) FROM log "
		" WHERE NOT EXISTS (SELECT 1 FROM log_total);"
		"CREATE TRIGGER IF NOT EXISTS log_bytes_in AFTER INSERT ON log BEGIN "
		" UPDATE log_total SET bytes = bytes + NEW.bytes; END;"
		"CREATE TRIGGER IF NOT EXISTS log_bytes_out AFTER DELETE ON log BEGIN "
		" UPDATE log_total SET bytes = bytes - OLD.bytes; END;", cols);
	free(cols);
	rc = sqlite3_exec(g->db, sql, NULL, NULL, NULL);
	free(sql);
	if (rc == SQLITE_OK && sqlite3_db_readonly(g->db, "main") == 1) {
		give_up(g, "the request log %s cannot be written: %s", "the file is read-only");
		return 0;
	}
	if (rc != SQLITE_OK) {
		give_up(g, "the request log %s cannot be used: %s", sqlite3_errmsg(g->db));
		return 0;
	}
	cols = column_list(0, 1);
	SBuf q = SBUF_INIT;
	sb_printf(&q, "INSERT INTO log(%s) VALUES (", cols);
	for (int i = 1; i < llm_log_ncolumns; i++)
		sb_puts(&q, i > 1 ? ", ?" : "?");
	sb_puts(&q, ")");
	free(cols);
	rc = sqlite3_prepare_v2(g->db, sb_str(&q), -1, &g->ins, NULL);
	sb_free(&q);
	if (rc != SQLITE_OK) {
		give_up(g, "the request log %s cannot be used: it holds a log table that is not "
		        "suql's (%s)", sqlite3_errmsg(g->db));
		return 0;
	}
	g->state = 1;
	return 1;
}

/* t as "2025-11-05T12:34:56.789Z" (UTC). */
static void iso_time(double t, char out[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	int ms = (int)((t - (double)s) * 1000);
	if (ms > 999)
		ms = 999;
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03dZ", ms < 0 ? 0 : ms);
}

/* A text as it is written: its secrets masked, and cut at LOG_TEXT_MAX (whole UTF-8
   characters) with a note of what was left out. Heap string, or NULL for NULL. */
static char *clean_text(const Llm *llm, const char *s)
{
	if (!s)
		return NULL;
	char *m = llm_scrub(llm, s);
	size_t n = strlen(m);
	if (n <= LOG_TEXT_MAX)
		return m;
	size_t cut = LOG_TEXT_MAX;
	while (cut > 0 && ((unsigned char)m[cut] & 0xC0) == 0x80)
		cut--;
	char *r = xprintf("%.*s [%zu bytes more, not kept]", (int)cut, m, n - cut);
	free(m);
	return r;
}

/* The prompt of a request body: its messages (a chat request), its input (embeddings),
   else the body as it is. Heap JSON text. */
static char *body_prompt(const char *body)
{
	json_t *j = json_loads(body, 0, NULL);
	json_t *m = json_object_get(j, "messages");
	if (!m)
		m = json_object_get(j, "input");
	char *s = m ? json_dumps(m, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	return s ? s : xstrdup(body);
}

static void bind_text(sqlite3_stmt *st, int i, char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, free);
	else
		sqlite3_bind_null(st, i);
}

static const char *const reasons[LLM_NREASONS] = {"first", "retry", "reask", "split"};

/* Write one queued entry with the prepared insert; its bytes in *bytes. */
static int write_entry(const Llm *llm, sqlite3_stmt *st, const LogEnt *q, struct LlmLog *g)
{
	const LlmLogEntry *e = &q->e;
	char *raw = e->prompt && e->prompt_body ? body_prompt(e->prompt) : NULL;
	char *prompt = clean_text(llm, raw ? raw : e->prompt);
	free(raw);
	char *reply = clean_text(llm, e->reply);
	char *sql = clean_text(llm, q->sql), *chat = clean_text(llm, q->chat);
	char *error = clean_text(llm, e->error), *endpoint = clean_text(llm, e->endpoint);
	char *model = clean_text(llm, e->model), *bulk = clean_text(llm, e->bulk);
	long long bytes = (long long)(len0(prompt) + len0(reply) + len0(sql) + len0(chat) +
	                              len0(error) + len0(model) + len0(endpoint)) + LOG_ROW_BYTES;
	char when[32];
	iso_time(e->t, when);
	int i = 1;
	sqlite3_bind_int64(st, i++, bytes);
	sqlite3_bind_text(st, i++, when, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, i++, g->session, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, i++, q->stmt);
	sqlite3_bind_text(st, i++, e->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, e->offline ? "offline" : "http", -1, SQLITE_STATIC);
	bind_text(st, i++, model);
	bind_text(st, i++, endpoint);
	sqlite3_bind_text(st, i++, e->status, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, i++, e->cache_hit);
	if (e->reason >= 0 && e->reason < LLM_NREASONS && !e->cache_hit && !e->offline)
		sqlite3_bind_text(st, i++, reasons[e->reason], -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i++);
	sqlite3_bind_int(st, i++, e->items);
	if (e->http)
		sqlite3_bind_int64(st, i++, e->http);
	else
		sqlite3_bind_null(st, i++);
	sqlite3_bind_int64(st, i++, e->tokens_in);
	sqlite3_bind_int64(st, i++, e->tokens_out);
	sqlite3_bind_int64(st, i++, e->tokens_cached);
	sqlite3_bind_int64(st, i++, e->tokens_reasoning);
	sqlite3_bind_int(st, i++, e->estimated);
	if (e->usd >= 0)
		sqlite3_bind_double(st, i++, e->usd);
	else
		sqlite3_bind_null(st, i++);
	sqlite3_bind_double(st, i++, (double)(long long)(e->ms * 10 + 0.5) / 10);   /* 0.1 ms */
	bind_text(st, i++, bulk);
	bind_text(st, i++, error);
	bind_text(st, i++, sql);
	bind_text(st, i++, chat);
	bind_text(st, i++, prompt);
	bind_text(st, i++, reply);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static long long one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Past llm.log_max: the oldest rows go, until the rest fit (the newest always stays). */
static int keep_cap(Llm *llm, struct LlmLog *g)
{
	long long cap = (long long)(llm->s.log_max * 1048576.0);
	long long total = one_int(g->db, "SELECT bytes FROM log_total");
	if (total <= cap)
		return SQLITE_OK;
	long long newest = one_int(g->db, "SELECT max(id) FROM log");
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(g->db, "SELECT id, bytes FROM log ORDER BY id", -1, &st, NULL);
	long long cut = 0, freed = 0;
	while (rc == SQLITE_OK && total - freed > cap && sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		if (id >= newest)
			break;
		cut = id;
		freed += sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK || cut == 0)
		return rc;
	st = NULL;
	rc = sqlite3_prepare_v2(g->db, "DELETE FROM log WHERE id <= ?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, cut);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(g->db);
	}
	sqlite3_finalize(st);
	return rc;
}

static void llm_log_flush(Llm *llm)
{
	struct LlmLog *g = llm ? llm->log : NULL;
	if (!g || g->nq == 0)
		return;
	if (!open_file(llm, g)) {
		queue_drop(g);
		return;
	}
	int rc = sqlite3_exec(g->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
		/* another suql holds it past the timeout: the next write tries again */
		if (g->nq > LOG_QUEUE_MAX) {
			g->dropped += g->nq;
			queue_drop(g);
		}
		return;
	}
	for (int i = 0; i < g->nq && rc == SQLITE_OK; i++)
		rc = write_entry(llm, g->ins, &g->q[i], g);
	if (rc == SQLITE_OK)
		rc = keep_cap(llm, g);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(g->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		char *m = xstrdup(sqlite3_errmsg(g->db));
		sqlite3_exec(g->db, "ROLLBACK", NULL, NULL, NULL);
		give_up(g, "writing the request log %s failed: %s", m);
		free(m);
	}
	queue_drop(g);
}

const char *llm_log_notice(Llm *llm)
{
	struct LlmLog *g = llm ? llm->log : NULL;
	if (!g || !g->why || g->told || !llm_log_wanted(llm))
		return NULL;
	g->told = 1;
	return g->why;
}

/* The log's state changed (llm.log, llm.log_max, the path): a log given up is tried again
   when asked for again. */
void llm_log_changed(Llm *llm)
{
	struct LlmLog *g = llm->log;
	if (!g)
		return;
	if (!llm_log_wanted(llm)) {
		queue_drop(g);   /* off: what was not written yet is not written */
	}
	if (g->path && strcmp(g->path, llm->s.log_path) != 0) {
		llm_log_flush(llm);
		sqlite3_finalize(g->ins);
		g->ins = NULL;
		sqlite3_close(g->db);
		g->db = NULL;
		g->state = 0;
	}
	if (g->state < 0 && !llm_log_wanted(llm)) {
		g->state = 0;   /* asked for again later: tried afresh */
		free(g->why);
		g->why = NULL;
		g->told = 0;
	}
}

const char *llm_log_path(const Llm *llm)
{
	return llm->s.log_path;
}

/* ---- reading it back (:log) ---- */

/* The file for reading: the writer's, or NULL when there is none yet (*err says why when
   it cannot be opened). */
static sqlite3 *reader(Llm *llm, SuqlErr *err)
{
	struct LlmLog *g = state(llm);
	llm_log_flush(llm);
	if (g->state > 0)
		return g->db;
	if (access(llm->s.log_path, F_OK) != 0)
		return NULL;
	/* written before (by another suql, or with llm.log on): opened as the writer is */
	if (g->state < 0) {
		err_set(err, SUQL_IO, "%s", g->why);
		return NULL;
	}
	if (!open_file(llm, g)) {
		err_set(err, SUQL_IO, "%s", g->why);
		return NULL;
	}
	return g->db;
}

SuqlStatus llm_log_read(Llm *llm, int newest, LlmLogRows *out, SuqlErr *err)
{
	memset(out, 0, sizeof *out);
	sqlite3 *db = reader(llm, err);
	if (!db)
		return err->code ? err->code : SUQL_OK;
	char *cols = column_list(0, 0);
	char *sql = xprintf("SELECT %s FROM log ORDER BY id DESC LIMIT ?", cols);
	free(cols);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return err_set(err, SUQL_IO, "cannot read the request log %s: %s", llm->s.log_path,
		               sqlite3_errmsg(db));
	sqlite3_bind_int(st, 1, newest);
	int cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			out->v = xrealloc(out->v, (size_t)cap * (size_t)llm_log_ncolumns * sizeof *out->v);
		}
		char **row = out->v + (size_t)out->n * (size_t)llm_log_ncolumns;
		for (int i = 0; i < llm_log_ncolumns; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			row[i] = t ? xstrdup((const char *)t) : NULL;
		}
		out->n++;
	}
	SuqlStatus s = SUQL_OK;
	if (rc != SQLITE_DONE)
		s = err_set(err, SUQL_IO, "cannot read the request log %s: %s", llm->s.log_path,
		            sqlite3_errmsg(db));
	sqlite3_finalize(st);
	out->total = one_int(db, "SELECT count(*) FROM log");
	if (s != SUQL_OK)
		llm_log_rows_free(out);
	return s;
}

void llm_log_rows_free(LlmLogRows *r)
{
	for (long i = 0; i < (long)r->n * llm_log_ncolumns; i++)
		free(r->v[i]);
	free(r->v);
	memset(r, 0, sizeof *r);
}

SuqlStatus llm_log_clear(Llm *llm, long long *removed, SuqlErr *err)
{
	*removed = 0;
	sqlite3 *db = reader(llm, err);
	if (!db)
		return err->code ? err->code : SUQL_OK;
	*removed = one_int(db, "SELECT count(*) FROM log");
	if (sqlite3_exec(db, "DELETE FROM log", NULL, NULL, NULL) != SQLITE_OK)
		return err_set(err, SUQL_IO, "cannot clear the request log %s: %s", llm->s.log_path,
		               sqlite3_errmsg(db));
	/* the deleted texts leave the file, not only the table */
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;", NULL, NULL, NULL);
	return SUQL_OK;
}

void llm_log_describe(const Llm *llm, SBuf *out)
{
	if (!llm_log_wanted(llm)) {
		sb_printf(out, "log          off (%s)\n", llm->s.log_path);
		return;
	}
	struct LlmLog *g = llm->log;
	sb_printf(out, "log          %s (on, at most %g MB)\n", llm->s.log_path, llm->s.log_max);
	if (g && g->why)
		sb_printf(out, "             not usable: %s\n", g->why);
	if (g && g->dropped)
		sb_printf(out, "             %ld entries lost while the file was busy\n", g->dropped);
}

/* ---- bulk mode ---- */

void llm_log_batch(Llm *llm, const char *batch)
{
	struct LlmLog *g = llm->log;
	if (!g || !llm_log_wanted(llm) || !batch)
		return;
	for (int i = 0; i < g->nq; i++)
		if (strcmp(g->q[i].e.status, "collected") == 0 && !g->q[i].e.bulk)
			g->q[i].e.bulk = xstrdup(batch);
	if (g->state <= 0)
		return;
	/* the statement's rows were written when it ended, before its batch was made */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(g->db, "UPDATE log SET bulk = ? WHERE session = ? AND "
	                       "status = 'collected' AND bulk IS NULL", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, batch, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, g->session, -1, SQLITE_STATIC);
		sqlite3_step(st);
	}
	sqlite3_finalize(st);
}
