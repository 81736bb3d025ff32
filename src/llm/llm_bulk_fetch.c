/*
 * llm_bulk_fetch.c: a completed batch's output file, fetched and checked into the cache
 * file's replies table (doc/bulk.md, "The output checked").
 *
 * The output file is not trusted: each line is checked against the lines the batch was
 * sent (llm_bulk_unit): a custom_id that was never sent is dropped (not read, not counted,
 * not priced); an id that comes on several lines is used for nothing (its answers are
 * asked again in the next batch), since either copy could be the wrong one, and priced
 * once (the request was sent once); a line without a reply leaves its answers to the next
 * batch; a file with no usable line at all is an error that keeps nothing. The replies
 * kept and the job's new status (fetched, with the tokens) are written in one
 * transaction.
 *
 * A reply kept is scrubbed first, every string of it (llm_scrub_reply, as a reply over
 * HTTP is before it is read): an endpoint that echoes the request (its Authorization
 * header, the URL's credentials) in a batch's output puts no secret of suql's in the
 * cache file, and nothing read from it later can show one.
 *
 * Ownership: what this file reads it frees; the job's strings stay the job's.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct OutLine {
	char *id;          /* NULL: the line has none */
	char *body;        /* NULL: no usable reply */
} OutLine;

typedef struct Out {
	OutLine *v;
	long n, cap;
	long lines, unusable, garbage;
	char *why;         /* what the first unusable line lacks */
	long why_line;
} Out;

static void out_line(void *ctx, const char *id, const char *body, const char *why)
{
	Out *o = ctx;
	o->lines++;
	if (!body) {
		o->unusable++;
		if (!id)
			o->garbage++;
		if (!o->why) {
			o->why = xstrdup(why ? why : "no reply");
			o->why_line = o->lines;
		}
	}
	if (!id)
		return;
	if (o->n == o->cap)
		o->v = xrealloc(o->v, (size_t)(o->cap = o->cap * 2 + 16) * sizeof *o->v);
	o->v[o->n].id = xstrdup(id);
	o->v[o->n].body = body ? xstrdup(body) : NULL;
	o->n++;
}

static void out_free(Out *o)
{
	for (long i = 0; i < o->n; i++) {
		free(o->v[i].id);
		free(o->v[i].body);
	}
	free(o->v);
	free(o->why);
}

/* The custom_ids the job's batch was sent (NULL: a job kept before lines carried several
   units, whose ids are its units' keys: they cannot be checked). */
static LlmMemo *sent_lines(sqlite3 *db, int seq)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT line FROM llm_bulk_unit WHERE seq = ?", -1,
	                       &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int(st, 1, seq);
	LlmMemo *m = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!m)
			m = llm_memo_new();
		llm_memo_put(m, (const char *)sqlite3_column_text(st, 0), "1");
	}
	sqlite3_finalize(st);
	return m;
}

/* v with every string (and every object's key) scrubbed: a new reference. */
static json_t *scrubbed(const Llm *llm, json_t *v)
{
	if (json_is_string(v)) {
		char *c = llm_scrub_reply(llm, json_string_value(v));
		json_t *r = json_stringn_nocheck(c, strlen(c));
		free(c);
		return r;
	}
	if (json_is_array(v)) {
		json_t *a = json_array();
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			json_array_append_new(a, scrubbed(llm, e));
		return a;
	}
	if (json_is_object(v)) {
		json_t *o = json_object();
		const char *k;
		json_t *e;
		json_object_foreach(v, k, e) {
			char *ck = llm_scrub_reply(llm, k);
			json_object_set_new_nocheck(o, ck, scrubbed(llm, e));
			free(ck);
		}
		return o;
	}
	return json_incref(v);
}

static char *llm_bulk_scrub_body(const Llm *llm, const char *body)
{
	json_t *o = body ? json_loads(body, 0, NULL) : NULL;
	if (!o)
		return NULL;
	json_t *c = scrubbed(llm, o);
	char *s = json_dumps(c, JSON_COMPACT);
	json_decref(c);
	json_decref(o);
	return s;
}

static void usage_of(const char *body, long *in, long *out)
{
	json_t *o = json_loads(body, 0, NULL);
	json_t *usage = json_object_get(o, "usage");
	json_int_t i = json_integer_value(json_object_get(usage, "prompt_tokens"));
	json_int_t k = json_integer_value(json_object_get(usage, "completion_tokens"));
	*in += i > 0 ? (long)i : 0;
	*out += k > 0 ? (long)k : 0;
	json_decref(o);
}

static SuqlStatus fetch_run(Llm *llm, LlmBulkJob *job, LlmBulkFetched *got, SuqlErr *err);

SuqlStatus llm_bulk_fetch(Llm *llm, LlmBulkJob *job, LlmBulkFetched *got, SuqlErr *err)
{
	llm_log_begin(llm, ":bulk resume");   /* its requests are logged as its own */
	SuqlStatus s = fetch_run(llm, job, got, err);
	llm_log_end(llm);
	return s;
}

static SuqlStatus fetch_run(Llm *llm, LlmBulkJob *job, LlmBulkFetched *got, SuqlErr *err)
{
	memset(got, 0, sizeof *got);
	sqlite3 *db = llm_bulk_db(llm, err);
	if (!db)
		return err->code;
	if (!job->output_file)
		return err_set(err, SUQL_LLM, "batch %s has no output file (status %s)", job->batch,
		               job->status ? job->status : "unknown");
	SBuf raw = SBUF_INIT;
	SuqlStatus st = llm_batch_content(llm, job->output_file, &raw, err);
	Out o = {0};
	if (st == SUQL_OK)
		llm_bulk_read_output(sb_str(&raw), raw.len, out_line, &o);
	sb_free(&raw);
	if (st != SUQL_OK)
		return st;
	LlmMemo *sent = sent_lines(db, job->seq);
	LlmMemo *seen = llm_memo_new();   /* id -> how many lines carry it */
	for (long i = 0; i < o.n; i++) {
		const char *c = llm_memo_get(seen, o.v[i].id);
		char num[24];
		snprintf(num, sizeof num, "%d", c ? atoi(c) + 1 : 1);
		llm_memo_put(seen, o.v[i].id, num);
	}
	got->lines = o.lines;
	got->unusable = o.unusable;
	long in = 0, out = 0;
	for (long i = 0; i < o.n; i++) {
		OutLine *l = &o.v[i];
		if (sent && !llm_memo_get(sent, l->id)) {
			got->foreign++;   /* never sent: not read, not counted, not priced */
			if (!l->body)
				got->unusable--;
			free(l->body);
			l->body = NULL;
			continue;
		}
		const char *c = llm_memo_get(seen, l->id);
		if (c && strcmp(c, "0") == 0) {   /* a later copy of an id told already */
			free(l->body);
			l->body = NULL;
			continue;
		}
		if (c && atoi(c) > 1) {
			/* one request, billed once (its first copy's usage); none of the copies is
			   used, since either may be the wrong one */
			got->twice++;
			if (l->body)
				usage_of(l->body, &in, &out);
			llm_memo_put(seen, l->id, "0");
			free(l->body);
			l->body = NULL;
			continue;
		}
		if (l->body) {
			usage_of(l->body, &in, &out);
			got->replies++;
			char *clean = llm_bulk_scrub_body(llm, l->body);
			free(l->body);
			l->body = clean;   /* NULL (not JSON after all): not kept */
		}
	}
	llm_memo_free(seen);
	llm_memo_free(sent);
	if (got->replies == 0 && got->twice == 0 &&
	    (o.garbage > 0 || o.lines == 0 || got->foreign == o.lines)) {
		SBuf why = SBUF_INIT;
		if (o.lines == 0)
			sb_puts(&why, "it is empty");
		else if (got->foreign == o.lines)
			sb_puts(&why, "none of its lines answers a request of this batch");
		else
			sb_printf(&why, "line %ld: %s", o.why_line, o.why);
		st = err_set(err, SUQL_LLM, "the output file of batch %d (%s) holds no reply suql "
		             "can use (%s): nothing was kept, and the batch is as it was; :bulk "
		             "resume %d tries again, or run the statement without bulk mode",
		             job->seq, job->output_file, sb_str(&why), job->seq);
		sb_free(&why);
		out_free(&o);
		return st;
	}
	int rc = llm_bulk_write_begin(db);
	sqlite3_stmt *ins = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO llm_bulk_reply(seq, key, body) "
		                        "VALUES (?, ?, ?)", -1, &ins, NULL);
	for (long i = 0; rc == SQLITE_OK && i < o.n; i++) {
		if (!o.v[i].body)
			continue;
		sqlite3_bind_int(ins, 1, job->seq);
		sqlite3_bind_text(ins, 2, o.v[i].id, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, o.v[i].body, -1, SQLITE_STATIC);
		rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	LlmBulkJob j = *job;   /* saved as fetched only if all of it is kept */
	char *status = xstrdup("fetched");
	j.status = status;
	j.tokens_in = in;
	j.tokens_out = out;
	if (rc == SQLITE_OK)
		rc = llm_bulk_job_save(db, &j);
	if (rc == SQLITE_OK) {
		rc = llm_bulk_write_end(db, rc);
	} else {
		st = llm_bulk_db_fail(db, err);
		llm_bulk_write_end(db, rc);
	}
	if (rc == SQLITE_OK) {
		free(job->status);
		job->status = status;
		job->tokens_in = in;
		job->tokens_out = out;
		llm_count_batch(llm, in, out);   /* the session's spend, at batch prices */
	} else {
		free(status);
		if (st == SUQL_OK)
			st = llm_bulk_db_fail(db, err);
	}
	out_free(&o);
	return st;
}

