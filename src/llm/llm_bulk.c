/*
 * llm_bulk.c: bulk mode, a statement's model requests sent through the provider's batch
 * interface (llm_batch.c) at batch prices, and its answers read back later, by this suql
 * or another one (doc/bulk.md says why it is built this way).
 *
 * Collecting: while llm_bulk_collect_mode is on, llm_run hands each unit the cache cannot
 * answer to llm_bulk_collect, which writes the unit's request as one JSONL line, exactly
 * the request that would be sent to answer that unit alone (its custom_id is the unit's
 * cache key, so each reply fills exactly one entry of the cache); the unit's call fails
 * with LLM_BULK_MSG, and no value stands for an answer to come. llm_bulk_submit uploads the
 * lines and creates the batch, and keeps the job in the cache file's llm_bulk table.
 *
 * Answering: llm_bulk_fetch stores a completed batch's replies, by key, in llm_bulk_reply.
 * While llm_bulk_answering is on, llm_run asks llm_bulk_answer for each unit before it is
 * collected or sent: a reply is read by llm_read_reply, as a reply over HTTP is, so an
 * unreadable one is neither used nor cached (its unit is asked again, in the next batch).
 * Replies are kept, not read at once into the cache, because reading one needs its call
 * (the shape, the permitted values, the question), which only the statement run again
 * builds.
 *
 * Ownership: struct LlmBulk hangs off the Llm (llm_bulk_free); a job's strings are the
 * job's (llm_bulk_job_free).
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct LlmBulk {
	int collecting;
	SBuf jsonl;          /* the collected requests, one a line */
	LlmMemo *keys;       /* keys collected (each once) */
	long n;
	LlmMemo *replies;    /* key -> chat completion (JSON text) while answering, else NULL */
	char *batch;         /* the batch answering, for the request log */
	long answered, unreadable;
	int tables;          /* the tables exist and are suql's: 1; not usable: -1; 0: unknown */
	char *why;           /* why not usable */
};

static struct LlmBulk *state(Llm *llm)
{
	if (!llm->bulk)
		llm->bulk = xcalloc(1, sizeof *llm->bulk);
	return llm->bulk;
}

void llm_bulk_free(Llm *llm)
{
	struct LlmBulk *b = llm->bulk;
	if (!b)
		return;
	sb_free(&b->jsonl);
	llm_memo_free(b->keys);
	llm_memo_free(b->replies);
	free(b->batch);
	free(b->why);
	free(b);
	llm->bulk = NULL;
}

/* ---- the tables (in the cache file) ---- */

static const char *const SCHEMA =
	"CREATE TABLE IF NOT EXISTS llm_bulk("
	" seq INTEGER PRIMARY KEY,"
	" batch TEXT NOT NULL,"          /* the provider's batch id */
	" statement TEXT NOT NULL,"
	" database TEXT NOT NULL,"
	" status TEXT NOT NULL,"
	" output_file TEXT,"
	" error TEXT,"
	" created INTEGER NOT NULL,"
	" polled INTEGER NOT NULL DEFAULT 0,"
	" requests INTEGER NOT NULL,"
	" completed INTEGER NOT NULL DEFAULT 0,"
	" failed INTEGER NOT NULL DEFAULT 0,"
	" tokens_in INTEGER NOT NULL DEFAULT 0,"
	" tokens_out INTEGER NOT NULL DEFAULT 0,"
	" previous INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS llm_bulk_reply("
	" seq INTEGER NOT NULL,"         /* the job */
	" key TEXT NOT NULL,"            /* the unit's cache key (the request's custom_id) */
	" body TEXT NOT NULL,"           /* the chat completion, JSON */
	" PRIMARY KEY(seq, key)) WITHOUT ROWID;";

#define JOB_COLS "seq, batch, statement, database, status, output_file, error, created, " \
	"polled, requests, completed, failed, tokens_in, tokens_out, previous"

/* The cache file's handle with the tables made and checked; NULL with err set. */
static sqlite3 *tables(Llm *llm, SuqlErr *err)
{
	const char *why = llm_bulk_problem(llm);
	if (why) {
		err_set(err, SUQL_USAGE, "%s", why);
		return NULL;
	}
	struct LlmBulk *b = state(llm);
	sqlite3 *db = llm_cache_db(llm->cache);
	if (b->tables == 0) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_exec(db, SCHEMA, NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v2(db, "SELECT " JOB_COLS " FROM llm_bulk LIMIT 0", -1, &st,
			                        NULL);
		sqlite3_finalize(st);
		st = NULL;
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v2(db, "SELECT seq, key, body FROM llm_bulk_reply LIMIT 0",
			                        -1, &st, NULL);
		sqlite3_finalize(st);
		b->tables = rc == SQLITE_OK ? 1 : -1;
		if (rc != SQLITE_OK)
			b->why = xprintf("the cache file %s cannot keep batches: its llm_bulk tables "
			                 "are not suql's (%s)", llm_cache_path(llm->cache),
			                 sqlite3_errmsg(db));
	}
	if (b->tables < 0) {
		err_set(err, SUQL_IO, "%s", b->why);
		return NULL;
	}
	return db;
}

int llm_bulk_setting(const Llm *llm)
{
	return llm && llm->s.bulk;
}

const char *llm_bulk_problem(Llm *llm)
{
	if (llm_is_offline(llm))
		return "bulk mode needs an endpoint with a batch interface: the offline backend "
		       "answers at once (the statement runs as usual)";
	if (llm->s.no_cache)
		return "bulk mode needs the cache (:set cache on): the batch's id and replies are "
		       "kept in the cache file";
	llm_cache_ensure(llm);
	if (!llm->cache)
		return "bulk mode needs the cache, and the cache file cannot be used (see :cache)";
	return NULL;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static void job_read(sqlite3_stmt *st, LlmBulkJob *j)
{
	j->seq = sqlite3_column_int(st, 0);
	j->batch = col_dup(st, 1);
	j->statement = col_dup(st, 2);
	j->database = col_dup(st, 3);
	j->status = col_dup(st, 4);
	j->output_file = col_dup(st, 5);
	j->error = col_dup(st, 6);
	j->created = sqlite3_column_int64(st, 7);
	j->polled = sqlite3_column_int64(st, 8);
	j->requests = (long)sqlite3_column_int64(st, 9);
	j->completed = (long)sqlite3_column_int64(st, 10);
	j->failed = (long)sqlite3_column_int64(st, 11);
	j->tokens_in = (long)sqlite3_column_int64(st, 12);
	j->tokens_out = (long)sqlite3_column_int64(st, 13);
	j->previous = sqlite3_column_int(st, 14);
}

void llm_bulk_job_free(LlmBulkJob *j)
{
	free(j->batch);
	free(j->statement);
	free(j->database);
	free(j->status);
	free(j->output_file);
	free(j->error);
	memset(j, 0, sizeof *j);
}

static SuqlStatus db_fail(sqlite3 *db, SuqlErr *err)
{
	return err_set(err, SUQL_IO, "the cache file's batch table: %s", sqlite3_errmsg(db));
}

SuqlStatus llm_bulk_job(Llm *llm, int seq, LlmBulkJob *job, SuqlErr *err)
{
	memset(job, 0, sizeof *job);
	sqlite3 *db = tables(llm, err);
	if (!db)
		return err->code;
	sqlite3_stmt *st = NULL;
	const char *sql = seq > 0 ? "SELECT " JOB_COLS " FROM llm_bulk WHERE seq = ?"
	                          : "SELECT " JOB_COLS " FROM llm_bulk ORDER BY seq DESC LIMIT 1";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, err);
	if (seq > 0)
		sqlite3_bind_int(st, 1, seq);
	int rc = sqlite3_step(st);
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_ROW)
		job_read(st, job);
	else if (rc == SQLITE_DONE && seq > 0)
		s = err_set(err, SUQL_USAGE, "no batch %d in the cache file (:bulk list shows them)",
		            seq);
	else if (rc == SQLITE_DONE)
		s = err_set(err, SUQL_USAGE, "no batch was submitted (:set llm.bulk on, then run a "
		            "statement)");
	else
		s = db_fail(db, err);
	sqlite3_finalize(st);
	return s;
}

static SuqlStatus job_save(Llm *llm, const LlmBulkJob *j, SuqlErr *err)
{
	sqlite3 *db = tables(llm, err);
	if (!db)
		return err->code;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "UPDATE llm_bulk SET status = ?, output_file = ?, error = ?, "
	                       "polled = ?, completed = ?, failed = ?, tokens_in = ?, "
	                       "tokens_out = ? WHERE seq = ?", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, err);
	sqlite3_bind_text(st, 1, j->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, j->output_file, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, j->error, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, j->polled);
	sqlite3_bind_int64(st, 5, j->completed);
	sqlite3_bind_int64(st, 6, j->failed);
	sqlite3_bind_int64(st, 7, j->tokens_in);
	sqlite3_bind_int64(st, 8, j->tokens_out);
	sqlite3_bind_int(st, 9, j->seq);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SUQL_OK : db_fail(db, err);
}

/* ---- collecting ---- */

void llm_bulk_collect_mode(Llm *llm, int on)
{
	struct LlmBulk *b = state(llm);
	b->collecting = on;
	if (on) {
		sb_truncate(&b->jsonl, 0);
		llm_memo_free(b->keys);
		b->keys = llm_memo_new();
		b->n = 0;
	}
}

int llm_bulk_collecting(const Llm *llm)
{
	return llm->bulk && llm->bulk->collecting;
}

long llm_bulk_collected(const Llm *llm)
{
	return llm->bulk ? llm->bulk->n : 0;
}

int llm_bulk_collect(Llm *llm, const LlmCall *c, int item, const char *key)
{
	struct LlmBulk *b = llm->bulk;
	if (!b || !b->collecting || llm_is_offline(llm) || c->on_text || c->readable)
		return 0;
	if (c->kind != LLM_VERIFY && c->kind != LLM_ANSWER && c->kind != LLM_SUMMARY &&
	    c->kind != LLM_CLASSIFY && c->kind != LLM_EXTRACT)
		return 0;   /* embeddings and chat turns are asked as usual */
	if (llm_memo_get(b->keys, key))
		return 1;
	if (b->n >= LLM_BULK_MAX)
		return 0;   /* past a batch's size: asked as usual */
	int sent;
	json_t *body = llmp_chat_body(llm, c, item >= 0 ? &item : NULL, item >= 0 ? 1 : 0, &sent);
	if (!body)
		return 0;
	json_t *line = json_pack("{s:s, s:s, s:s, s:o}", "custom_id", key, "method", "POST", "url",
	                         "/v1/chat/completions", "body", body);
	char *s = line ? json_dumps(line, JSON_COMPACT) : NULL;
	json_decref(line);
	if (!s)
		return 0;
	sb_puts(&b->jsonl, s);
	sb_putc(&b->jsonl, '\n');
	if (llm_log_wanted(llm)) {   /* no request yet: the batch's id comes when it is made */
		LlmLogEntry e = {0};
		e.status = "collected";
		e.reason = -1;
		e.items = item >= 0 ? 1 : 0;
		e.usd = 0;
		e.prompt = s;
		e.prompt_body = 1;
		llm_log_add(llm, c, &e);
	} else {
		free(s);
	}
	llm_memo_put(b->keys, key, "1");
	b->n++;
	return 1;
}

static SuqlStatus submit_run(Llm *llm, const char *statement, const char *database,
                            int previous, LlmBulkJob *job, SuqlErr *err)
{
	memset(job, 0, sizeof *job);
	struct LlmBulk *b = state(llm);
	SBuf lines = b->jsonl;
	long n = b->n;
	b->jsonl = (SBuf)SBUF_INIT;
	llm_bulk_collect_mode(llm, 0);
	sqlite3 *db = tables(llm, err);
	SuqlStatus st = db ? SUQL_OK : err->code;
	char *file = NULL;
	json_t *batch = NULL;
	if (st == SUQL_OK && n == 0)
		st = err_set(err, SUQL_USAGE, "no requests were collected for a batch");
	if (st == SUQL_OK)
		st = llm_batch_upload(llm, sb_str(&lines), lines.len, &file, err);
	if (st == SUQL_OK)
		st = llm_batch_create(llm, file, &batch, err);
	if (st == SUQL_OK) {
		sqlite3_stmt *ins = NULL;
		job->batch = xstrdup(json_string_value(json_object_get(batch, "id")));
		llm_log_batch(llm, job->batch);
		job->statement = xstrdup(statement);
		job->database = xstrdup(database ? database : "");
		job->status = xstrdup(json_string_value(json_object_get(batch, "status")));
		job->created = (long long)time(NULL);
		job->requests = n;
		job->previous = previous;
		if (sqlite3_prepare_v2(db, "INSERT INTO llm_bulk(batch, statement, database, status, "
		                       "created, requests, previous) VALUES (?, ?, ?, ?, ?, ?, ?)",
		                       -1, &ins, NULL) != SQLITE_OK) {
			st = db_fail(db, err);
		} else {
			sqlite3_bind_text(ins, 1, job->batch, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 2, job->statement, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 3, job->database, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 4, job->status, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, 5, job->created);
			sqlite3_bind_int64(ins, 6, n);
			sqlite3_bind_int(ins, 7, previous);
			if (sqlite3_step(ins) != SQLITE_DONE)
				st = err_set(err, SUQL_IO, "batch %s was created but could not be kept in "
				             "the cache file (%s): note its id", job->batch,
				             sqlite3_errmsg(db));
			else
				job->seq = (int)sqlite3_last_insert_rowid(db);
			sqlite3_finalize(ins);
		}
	}
	json_decref(batch);
	free(file);
	sb_free(&lines);
	return st;
}

SuqlStatus llm_bulk_submit(Llm *llm, const char *statement, const char *database,
                           int previous, LlmBulkJob *job, SuqlErr *err)
{
	/* the batch's requests belong to the statement that collected them */
	llm_log_begin(llm, statement);
	SuqlStatus s = submit_run(llm, statement, database, previous, job, err);
	llm_log_end(llm);
	return s;
}

/* ---- the batch's progress ---- */

static long count_of(json_t *counts, const char *k)
{
	json_t *v = json_object_get(counts, k);
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : 0;
}

/* What the batch object says, into the job. */
static void job_update(LlmBulkJob *j, json_t *batch)
{
	free(j->status);
	j->status = xstrdup(json_string_value(json_object_get(batch, "status")));
	json_t *counts = json_object_get(batch, "request_counts");
	if (json_is_object(counts)) {
		j->completed = count_of(counts, "completed");
		j->failed = count_of(counts, "failed");
	}
	const char *out = json_string_value(json_object_get(batch, "output_file_id"));
	free(j->output_file);
	j->output_file = out ? xstrdup(out) : NULL;
	json_t *errs = json_object_get(json_object_get(batch, "errors"), "data");
	const char *m = json_string_value(json_object_get(json_array_get(errs, 0), "message"));
	if (m) {
		free(j->error);
		j->error = xstrndup(m, strlen(m) > 300 ? 300 : strlen(m));
	}
	j->polled = (long long)time(NULL);
}

static SuqlStatus poll_run(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	json_t *batch;
	SuqlStatus st = llm_batch_get(llm, job->batch, &batch, err);
	if (st != SUQL_OK)
		return st;
	job_update(job, batch);
	json_decref(batch);
	return job_save(llm, job, err);
}

SuqlStatus llm_bulk_poll(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	llm_log_begin(llm, ":bulk status");   /* its requests are logged as its own */
	SuqlStatus s = poll_run(llm, job, err);
	llm_log_end(llm);
	return s;
}

static SuqlStatus cancel_run(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	json_t *batch;
	SuqlStatus st = llm_batch_cancel(llm, job->batch, &batch, err);
	if (st != SUQL_OK)
		return st;
	job_update(job, batch);
	json_decref(batch);
	return job_save(llm, job, err);
}

SuqlStatus llm_bulk_cancel(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	llm_log_begin(llm, ":bulk cancel");   /* its requests are logged as its own */
	SuqlStatus s = cancel_run(llm, job, err);
	llm_log_end(llm);
	return s;
}

/* ---- the replies ---- */

typedef struct Fetch {
	sqlite3_stmt *ins;
	long replies, unusable;
	long in, out;
	int failed;
} Fetch;

static void fetch_line(void *ctx, const char *id, const char *body, const char *why)
{
	Fetch *f = ctx;
	(void)why;
	if (!id || !body) {
		f->unusable++;
		return;
	}
	json_t *o = json_loads(body, 0, NULL);
	json_t *usage = json_object_get(o, "usage");
	f->in += (long)json_integer_value(json_object_get(usage, "prompt_tokens"));
	f->out += (long)json_integer_value(json_object_get(usage, "completion_tokens"));
	json_decref(o);
	sqlite3_bind_text(f->ins, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(f->ins, 2, body, -1, SQLITE_STATIC);
	if (sqlite3_step(f->ins) != SQLITE_DONE)
		f->failed = 1;
	sqlite3_reset(f->ins);
	f->replies++;
}

static SuqlStatus fetch_run(Llm *llm, LlmBulkJob *job, long *replies, long *unusable,
                           SuqlErr *err)
{
	*replies = *unusable = 0;
	sqlite3 *db = tables(llm, err);
	if (!db)
		return err->code;
	if (!job->output_file)
		return err_set(err, SUQL_LLM, "batch %s has no output file (status %s)", job->batch,
		               job->status ? job->status : "unknown");
	SBuf out = SBUF_INIT;
	SuqlStatus st = llm_batch_content(llm, job->output_file, &out, err);
	if (st != SUQL_OK) {
		sb_free(&out);
		return st;
	}
	Fetch f = {0};
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		char *sql = xprintf("INSERT OR REPLACE INTO llm_bulk_reply(seq, key, body) VALUES "
		                    "(%d, ?, ?)", job->seq);
		rc = sqlite3_prepare_v2(db, sql, -1, &f.ins, NULL);
		free(sql);
	}
	if (rc == SQLITE_OK) {
		llm_bulk_read_output(sb_str(&out), out.len, fetch_line, &f);
		sqlite3_finalize(f.ins);
		job->tokens_in = f.in;
		job->tokens_out = f.out;
		llm_count_batch(llm, f.in, f.out);   /* the session's spend, at batch prices */
		free(job->status);
		job->status = xstrdup("fetched");
		if (f.failed || job_save(llm, job, err) != SUQL_OK ||
		    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			rc = SQLITE_ERROR;
	}
	if (rc != SQLITE_OK) {
		st = db_fail(db, err);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	*replies = f.replies;
	*unusable = f.unusable;
	sb_free(&out);
	return st;
}

SuqlStatus llm_bulk_fetch(Llm *llm, LlmBulkJob *job, long *replies, long *unusable,
                          SuqlErr *err)
{
	llm_log_begin(llm, ":bulk resume");   /* its requests are logged as its own */
	SuqlStatus s = fetch_run(llm, job, replies, unusable, err);
	llm_log_end(llm);
	return s;
}

void llm_bulk_answering(Llm *llm, const LlmBulkJob *job, int on)
{
	struct LlmBulk *b = state(llm);
	llm_memo_free(b->replies);
	b->replies = NULL;
	b->answered = b->unreadable = 0;
	free(b->batch);
	b->batch = on && job->batch ? xstrdup(job->batch) : NULL;
	SuqlErr err = {0};
	sqlite3 *db = on ? tables(llm, &err) : NULL;
	err_clear(&err);
	if (!db)
		return;
	b->replies = llm_memo_new();
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT key, body FROM llm_bulk_reply WHERE seq = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 1, job->seq);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0) && sqlite3_column_text(st, 1))
			llm_memo_put(b->replies, (const char *)sqlite3_column_text(st, 0),
			             (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
}

void llm_bulk_answered(const Llm *llm, long *answered, long *unreadable)
{
	*answered = llm->bulk ? llm->bulk->answered : 0;
	*unreadable = llm->bulk ? llm->bulk->unreadable : 0;
}

/* What llm_read_reply wrote into a unit whose reply could not be read. */
static void unit_forget(LlmCall *c, int item)
{
	if (item >= 0) {
		LlmItem *it = &c->items[item];
		free(it->text);
		free(it->value);
		free(it->warning);
		free(it->evidence);
		free(it->note);
		it->text = it->value = it->warning = it->evidence = it->note = NULL;
		it->verdict = it->unreadable = 0;
		return;
	}
	free(c->text);
	c->text = NULL;
	for (int i = 0; i < c->nlabels; i++)
		free(c->labels[i]);
	free(c->labels);
	c->labels = NULL;
	c->nlabels = 0;
	c->unreadable = 0;
}

/* A unit answered (ok) or not by a fetched batch's reply o (content: its text): a row of
   the request log, with the batch's id, the request the unit was asked with, and the
   reply's tokens at batch prices. */
static void log_answer(Llm *llm, const LlmCall *c, int item, json_t *o, const char *content,
                       int ok)
{
	if (!llm_log_wanted(llm))
		return;
	LlmLogEntry e = {0};
	e.status = ok ? "batch" : "unreadable";
	if (!ok)
		e.error = xstrdup(content ? "the batch's reply could not be read: asked again in "
		                  "the next batch" : "the batch's reply holds no content");
	e.reason = -1;
	e.items = item >= 0 ? 1 : 0;
	e.bulk = llm->bulk->batch ? xstrdup(llm->bulk->batch) : NULL;
	json_t *m = llmp_messages(llm, c, item);
	e.prompt = m ? json_dumps(m, JSON_COMPACT) : NULL;
	json_decref(m);
	e.reply = content ? xstrdup(content) : NULL;
	e.usd = -1;
	if (llm_log_usage(o, &e)) {   /* at batch prices */
		e.usd = llm_log_usd(llm, NULL, &e);
		if (e.usd > 0)
			e.usd *= llm->s.bulk_discount;
	}
	llm_log_add(llm, c, &e);
}

int llm_bulk_answer(Llm *llm, LlmCall *c, int item, const char *key)
{
	struct LlmBulk *b = llm->bulk;
	const char *body = b && b->replies ? llm_memo_get(b->replies, key) : NULL;
	if (!body)
		return 0;
	json_t *o = json_loads(body, 0, NULL);
	json_t *msg = json_object_get(json_array_get(json_object_get(o, "choices"), 0), "message");
	const char *content = json_string_value(json_object_get(msg, "content"));
	int ok = 0;
	if (content) {
		int bad[1];
		ok = llm_read_reply(c, item >= 0 ? &item : NULL, item >= 0 ? 1 : 0, content, bad) == 0;
		if (ok && c->kind == LLM_CLASSIFY && c->unreadable)
			ok = 0;
	}
	log_answer(llm, c, item, o, content, ok);
	json_decref(o);
	if (!ok) {
		unit_forget(c, item);
		b->unreadable++;
		return -1;
	}
	b->answered++;
	return 1;
}

void llm_bulk_done(Llm *llm, LlmBulkJob *job)
{
	SuqlErr err = {0};
	sqlite3 *db = tables(llm, &err);
	if (db) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, "DELETE FROM llm_bulk_reply WHERE seq = ?", -1, &st,
		                       NULL) == SQLITE_OK) {
			sqlite3_bind_int(st, 1, job->seq);
			sqlite3_step(st);
		}
		sqlite3_finalize(st);
		free(job->status);
		job->status = xstrdup("resumed");
		job_save(llm, job, &err);
	}
	err_clear(&err);
	llm_bulk_answering(llm, job, 0);
}

void llm_bulk_list(Llm *llm, SBuf *out)
{
	SuqlErr err = {0};
	sqlite3 *db = tables(llm, &err);
	if (!db) {
		sb_printf(out, "%s\n", err.msg);
		err_clear(&err);
		return;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT " JOB_COLS " FROM llm_bulk ORDER BY seq DESC", -1, &st,
	                       NULL) != SQLITE_OK)
		return;
	int any = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		LlmBulkJob j;
		job_read(st, &j);
		sb_printf(out, "%d  batch %s  %s  %ld request%s\n", j.seq, j.batch, j.status,
		          j.requests, j.requests == 1 ? "" : "s");
		llm_bulk_job_free(&j);
		any = 1;
	}
	sqlite3_finalize(st);
	if (!any)
		sb_puts(out, "no batches\n");
}

void llm_bulk_cost(const Llm *llm, const LlmBulkJob *job, SBuf *out)
{
	if (!job->tokens_in && !job->tokens_out)
		return;
	double full = llm_cost(llm, (double)job->tokens_in, (double)job->tokens_out);
	if (full < 0) {
		sb_printf(out, "cost: %ld tokens in, %ld out, at batch prices (no price for the "
		          "model: :set llm.price_in and llm.price_out)\n", job->tokens_in,
		          job->tokens_out);
		return;
	}
	double d = llm->s.bulk_discount;
	sb_printf(out, "cost: $%.4f at batch prices (", full * d);
	if (d == 0.5)
		sb_puts(out, "half");
	else
		sb_printf(out, "%g%%", d * 100);
	sb_printf(out, " of $%.4f; %ld tokens in, %ld out)\n", full, job->tokens_in,
	          job->tokens_out);
}
