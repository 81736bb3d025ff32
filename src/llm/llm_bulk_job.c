/*
 * llm_bulk_job.c: bulk mode's jobs, kept in the cache file so that any suql finds them
 * (doc/bulk.md): the tables, a job's row and its status, the claim that lets one process
 * at a time resume a job, the batch's progress, and a job marked done (its output file is
 * read and checked by llm_bulk_fetch.c).
 *
 * A job's row moves through the provider's statuses (validating ... completed) and then
 * suql's own: fetched (its replies are kept), running (its statement runs again), resumed
 * (it did). Which process may move it is the claim (llm_bulk_claim.c). Every write here
 * waits for the file longer than the cache does (BULK_WAIT_MS): a job's state is worth
 * waiting for. A job remembers the endpoint and model it was submitted to, and is asked
 * of no other (llm_bulk_here).

 *
 * Ownership: job strings are the job's (llm_bulk_job_free); what this file reads it frees.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BULK_WAIT_MS 30000    /* a job's write waits this long for another suql */
#define CACHE_WAIT_MS 5000    /* the cache's own wait (llm_cache.c), restored after */

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
	" key TEXT NOT NULL,"            /* the line's custom_id */
	" body TEXT NOT NULL,"           /* the chat completion, JSON */
	" PRIMARY KEY(seq, key)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS llm_bulk_unit("
	" seq INTEGER NOT NULL,"         /* the job */
	" key TEXT NOT NULL,"            /* the unit's cache key */
	" line TEXT NOT NULL,"           /* the custom_id of the line carrying it */
	" pos INTEGER NOT NULL,"         /* its place among the line's candidates */
	" n INTEGER NOT NULL,"           /* the line's candidates (0: a call without any) */
	" PRIMARY KEY(seq, key)) WITHOUT ROWID;";

/* Columns added to llm_bulk after it was first made: a file made before gets them. */
static const char *const ADDED[][2] = {
	{"owner", "TEXT"},
	{"claimed", "INTEGER NOT NULL DEFAULT 0"},
	{"token", "TEXT"},
	{"units", "INTEGER NOT NULL DEFAULT 0"},
	{"endpoint", "TEXT"},   /* the endpoint's origin (llm_origin): NULL in older files */
	{"model", "TEXT"},
};

#define JOB_COLS "seq, batch, statement, database, status, output_file, error, created, " \
	"polled, requests, completed, failed, tokens_in, tokens_out, previous, owner, claimed, " \
	"token, units, endpoint, model"

static int has_column(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1,
	                       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return found;
}

static int probe(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_finalize(st);
	return rc;
}

sqlite3 *llm_bulk_db(Llm *llm, SuqlErr *err)
{
	const char *why = llm_bulk_problem(llm);
	if (why) {
		err_set(err, SUQL_USAGE, "%s", why);
		return NULL;
	}
	struct LlmBulk *b = llm_bulk_state(llm);
	sqlite3 *db = llm_cache_db(llm->cache);
	if (b->tables == 0) {
		sqlite3_busy_timeout(db, BULK_WAIT_MS);
		int rc = sqlite3_exec(db, SCHEMA, NULL, NULL, NULL);
		for (size_t i = 0; rc == SQLITE_OK && i < sizeof ADDED / sizeof *ADDED; i++)
			if (!has_column(db, "llm_bulk", ADDED[i][0])) {
				char *sql = xprintf("ALTER TABLE llm_bulk ADD COLUMN %s %s", ADDED[i][0],
				                    ADDED[i][1]);
				rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
				free(sql);
				/* another suql may have added it meanwhile */
				if (rc != SQLITE_OK && has_column(db, "llm_bulk", ADDED[i][0]))
					rc = SQLITE_OK;
			}
		sqlite3_busy_timeout(db, CACHE_WAIT_MS);
		if (rc == SQLITE_OK)
			rc = probe(db, "SELECT " JOB_COLS " FROM llm_bulk LIMIT 0");
		if (rc == SQLITE_OK)
			rc = probe(db, "SELECT seq, key, body FROM llm_bulk_reply LIMIT 0");
		if (rc == SQLITE_OK)
			rc = probe(db, "SELECT seq, key, line, pos, n FROM llm_bulk_unit LIMIT 0");
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

/* ---- a job's row ---- */

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
	j->owner = col_dup(st, 15);
	j->claimed = sqlite3_column_int64(st, 16);
	j->token = col_dup(st, 17);
	j->units = (long)sqlite3_column_int64(st, 18);
	j->endpoint = col_dup(st, 19);
	j->model = col_dup(st, 20);
}

void llm_bulk_job_free(LlmBulkJob *j)
{
	free(j->batch);
	free(j->statement);
	free(j->database);
	free(j->status);
	free(j->output_file);
	free(j->error);
	free(j->owner);
	free(j->token);
	free(j->endpoint);
	free(j->model);
	memset(j, 0, sizeof *j);
}

SuqlStatus llm_bulk_db_fail(sqlite3 *db, SuqlErr *err)
{
	return err_set(err, SUQL_IO, "the cache file's batch table: %s", sqlite3_errmsg(db));
}

int llm_bulk_job_load(sqlite3 *db, int seq, LlmBulkJob *job)
{
	sqlite3_stmt *st = NULL;
	const char *sql = seq > 0 ? "SELECT " JOB_COLS " FROM llm_bulk WHERE seq = ?"
	                          : "SELECT " JOB_COLS " FROM llm_bulk ORDER BY seq DESC LIMIT 1";
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (seq > 0)
		sqlite3_bind_int(st, 1, seq);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		llm_bulk_job_free(job);
		job_read(st, job);
	}
	sqlite3_finalize(st);
	return rc;
}

SuqlStatus llm_bulk_job(Llm *llm, int seq, LlmBulkJob *job, SuqlErr *err)
{
	memset(job, 0, sizeof *job);
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	int rc = llm_bulk_job_load(db, seq, job);
	if (rc == SQLITE_ROW)
		return SUQL_OK;
	if (rc == SQLITE_DONE && seq > 0)
		return err_set(err, SUQL_USAGE, "no batch %d in the cache file (:bulk list shows "
		               "them)", seq);
	if (rc == SQLITE_DONE)
		return err_set(err, SUQL_USAGE, "no batch was submitted (:set llm.bulk on, then run "
		               "a statement)");
	return llm_bulk_db_fail(db, err);
}

int llm_bulk_write_begin(sqlite3 *db)
{
	sqlite3_busy_timeout(db, BULK_WAIT_MS);
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		sqlite3_busy_timeout(db, CACHE_WAIT_MS);
	return rc;
}

int llm_bulk_write_end(sqlite3 *db, int rc)
{
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_busy_timeout(db, CACHE_WAIT_MS);
	return rc;
}

int llm_bulk_job_save(sqlite3 *db, const LlmBulkJob *j)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "UPDATE llm_bulk SET status = ?, output_file = ?, "
	                            "error = ?, polled = ?, completed = ?, failed = ?, "
	                            "tokens_in = ?, tokens_out = ? WHERE seq = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, j->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, j->output_file, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, j->error, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, j->polled);
	sqlite3_bind_int64(st, 5, j->completed);
	sqlite3_bind_int64(st, 6, j->failed);
	sqlite3_bind_int64(st, 7, j->tokens_in);
	sqlite3_bind_int64(st, 8, j->tokens_out);
	sqlite3_bind_int(st, 9, j->seq);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* job_save in a transaction of its own. */
static SuqlStatus job_store(Llm *llm, const LlmBulkJob *j, SuqlErr *err)
{
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	int rc = llm_bulk_write_begin(db);
	if (rc == SQLITE_OK)
		rc = llm_bulk_write_end(db, llm_bulk_job_save(db, j));
	return rc == SQLITE_OK ? SUQL_OK : llm_bulk_db_fail(db, err);
}

static int run1(sqlite3 *db, const char *sql, int seq)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int(st, 1, seq);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Job seq is done: its replies and lines forgotten, its status resumed, its claim given
   back (inside the caller's transaction). */
static int mark_resumed(sqlite3 *db, int seq)
{
	int rc = run1(db, "DELETE FROM llm_bulk_reply WHERE seq = ?", seq);
	if (rc == SQLITE_OK)
		rc = run1(db, "DELETE FROM llm_bulk_unit WHERE seq = ?", seq);
	if (rc == SQLITE_OK)
		rc = run1(db, "UPDATE llm_bulk SET status = 'resumed', owner = NULL WHERE seq = ?",
		          seq);
	return rc;
}

char *llm_bulk_new_token(void)
{
	unsigned char r[16];
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = f ? fread(r, 1, sizeof r, f) : 0;
	if (f)
		fclose(f);
	if (got != sizeof r) {   /* no /dev/urandom: the time and the process, hashed */
		char seed[96];
		char hex[65];
		snprintf(seed, sizeof seed, "%lld %ld %d", (long long)time(NULL), (long)clock(),
		         (int)getpid());
		llm_sha256_hex(seed, strlen(seed), hex);
		return xstrndup(hex, 32);
	}
	char *t = xmalloc(33);
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(t + 2 * i, 3, "%02x", r[i]);
	return t;
}

SuqlStatus llm_bulk_store_job(Llm *llm, LlmBulkJob *job, const LlmBulkUnit *u, long nu,
                              SuqlErr *err)
{
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	int rc = llm_bulk_write_begin(db);
	sqlite3_stmt *st = NULL;
	if (rc == SQLITE_OK && job->previous > 0) {   /* the statement's job goes on */
		LlmBulkJob prev = {0};
		if (llm_bulk_job_load(db, job->previous, &prev) == SQLITE_ROW && prev.token)
			job->token = xstrdup(prev.token);
		llm_bulk_job_free(&prev);
		rc = mark_resumed(db, job->previous);
	}
	if (!job->token)
		job->token = llm_bulk_new_token();
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO llm_bulk(batch, statement, database, "
		                        "status, created, requests, previous, token, units, endpoint, "
		                        "model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
		                        NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, job->batch, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, job->statement, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, job->database, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, job->status, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, job->created);
		sqlite3_bind_int64(st, 6, job->requests);
		sqlite3_bind_int(st, 7, job->previous);
		sqlite3_bind_text(st, 8, job->token, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, job->units);
		sqlite3_bind_text(st, 10, job->endpoint, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 11, job->model, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		job->seq = (int)sqlite3_last_insert_rowid(db);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO llm_bulk_unit(seq, key, line, pos, n) "
		                        "VALUES (?, ?, ?, ?, ?)", -1, &st, NULL);
	for (long i = 0; rc == SQLITE_OK && i < nu; i++) {
		sqlite3_bind_int(st, 1, job->seq);
		sqlite3_bind_text(st, 2, u[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, u[i].line, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, u[i].pos);
		sqlite3_bind_int(st, 5, u[i].n);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	char *m = rc == SQLITE_OK ? NULL : xstrdup(sqlite3_errmsg(db));
	if (llm_bulk_write_end(db, rc) != SQLITE_OK && !m)
		m = xstrdup(sqlite3_errmsg(db));
	if (!m)
		return SUQL_OK;
	err_set(err, SUQL_IO, "batch %s was created but could not be kept in the cache file (%s): "
	        "note its id", job->batch, m);
	free(m);
	return SUQL_IO;
}

/* ---- the endpoint that issued it ---- */

SuqlStatus llm_bulk_here(const Llm *llm, const LlmBulkJob *job, const char *verb, char **note,
                         SuqlErr *err)
{
	*note = NULL;
	const char *origin = llm_origin(llm) ? llm_origin(llm) : "(no endpoint)";
	const char *model = llm_model(llm) ? llm_model(llm) : "";
	if (!job->endpoint) {
		*note = xprintf("note: batch %d was kept before jobs recorded their endpoint: it is "
		                "asked of the current one (%s at %s); if another endpoint issued it, "
		                ":set llm.url to that one first", job->seq, model, origin);
		return SUQL_OK;
	}
	const char *jmodel = job->model ? job->model : "";
	int url_differs = strcmp(job->endpoint, origin) != 0;
	int model_differs = strcmp(jmodel, model) != 0;
	if (!url_differs && !model_differs)
		return SUQL_OK;
	SBuf how = SBUF_INIT;
	if (url_differs)
		sb_printf(&how, ":set llm.url %s", job->endpoint);
	if (url_differs && model_differs)
		sb_puts(&how, " and ");
	if (model_differs)
		sb_printf(&how, ":set llm.model %s", jmodel);
	SuqlStatus st;
	if (url_differs)
		st = err_set(err, SUQL_USAGE, "batch %d was submitted to %s at %s, and the endpoint "
		             "now is %s at %s, which never issued it: nothing was asked of it; switch "
		             "back with %s, then :bulk %s %d", job->seq, jmodel, job->endpoint, model,
		             origin, sb_str(&how), verb, job->seq);
	else   /* its answers are another model's, kept under that model's keys */
		st = err_set(err, SUQL_USAGE, "batch %d was submitted for %s at %s, and the model now "
		             "is %s: nothing was asked; switch back with %s, then :bulk %s %d",
		             job->seq, jmodel, job->endpoint, model, sb_str(&how), verb, job->seq);
	sb_free(&how);
	return st;
}

SuqlStatus llm_bulk_set_status(Llm *llm, LlmBulkJob *job, const char *status, SuqlErr *err)
{
	free(job->status);
	job->status = xstrdup(status);
	return job_store(llm, job, err);
}

/* ---- the batch's progress ---- */

static long count_of(json_t *counts, const char *k)
{
	json_t *v = json_object_get(counts, k);
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : 0;
}

/* What the batch object says, into the job: its words scrubbed of suql's secrets (they are
   kept and shown, and come from the endpoint). */
static void job_update(const Llm *llm, LlmBulkJob *j, json_t *batch)
{
	free(j->status);
	j->status = llm_scrub(llm, json_string_value(json_object_get(batch, "status")));
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
		char *clean = llm_scrub(llm, m);
		free(j->error);
		j->error = xstrndup(clean, strlen(clean) > 300 ? 300 : strlen(clean));
		free(clean);
	}
	j->polled = (long long)time(NULL);
}

/* Ask the provider about the job's batch (cancel: to stop it) and keep what it says; the
   requests are logged as the meta-command's own. */
static SuqlStatus ask_batch(Llm *llm, LlmBulkJob *job, int cancel, SuqlErr *err)
{
	llm_log_begin(llm, cancel ? ":bulk cancel" : ":bulk status");
	json_t *batch;
	SuqlStatus st = cancel ? llm_batch_cancel(llm, job->batch, &batch, err)
	                       : llm_batch_get(llm, job->batch, &batch, err);
	if (st == SUQL_OK) {
		job_update(llm, job, batch);
		json_decref(batch);
		st = job_store(llm, job, err);
	}
	llm_log_end(llm);
	return st;
}

SuqlStatus llm_bulk_poll(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	return ask_batch(llm, job, 0, err);
}

SuqlStatus llm_bulk_cancel(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	return ask_batch(llm, job, 1, err);
}

SuqlStatus llm_bulk_done(Llm *llm, LlmBulkJob *job, SuqlErr *err)
{
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	int rc = llm_bulk_write_begin(db);
	if (rc == SQLITE_OK)
		rc = llm_bulk_write_end(db, mark_resumed(db, job->seq));
	if (rc != SQLITE_OK)
		return llm_bulk_db_fail(db, err);
	free(job->status);
	job->status = xstrdup("resumed");
	free(job->owner);
	job->owner = NULL;
	return SUQL_OK;
}

void llm_bulk_list(Llm *llm, SBuf *out)
{
	SuqlErr err = {0};
	sqlite3 *db = llm_bulk_db(llm, &err);
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
		sb_printf(out, "%d  batch %s  %s  %ld request%s", j.seq, j.batch, j.status,
		          j.requests, j.requests == 1 ? "" : "s");
		if (j.units > 0)
			sb_printf(out, " (%ld answer%s)", j.units, j.units == 1 ? "" : "s");
		if (llm_bulk_taken(&j))
			sb_printf(out, "  taken by process %ld", llm_bulk_taken(&j));
		if (j.endpoint)
			sb_printf(out, "  %s at %s", j.model ? j.model : "", j.endpoint);
		else
			sb_puts(out, "  (endpoint not recorded)");
		sb_putc(out, '\n');
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
	sb_puts(out, "cost: ");
	llm_money(out, full * d);
	sb_puts(out, " at batch prices (");
	if (d == 0.5)
		sb_puts(out, "half");
	else
		sb_printf(out, "%g%%", d * 100);
	sb_puts(out, " of ");
	llm_money(out, full);
	sb_printf(out, "; %ld tokens in, %ld out)\n", job->tokens_in, job->tokens_out);
}
