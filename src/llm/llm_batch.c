/*
 * llm_batch.c: the provider's batch interface (OpenAI's Batch API, which other endpoints
 * copy): POST /files uploads the requests as JSONL (purpose "batch"), POST /batches creates
 * a batch of them, GET /batches/{id} says how far it got, GET /files/{id}/content returns
 * its output, POST /batches/{id}/cancel stops it. bulk mode (llm_bulk.c) is its one user.
 *
 * Each function is one HTTP request through llm_http_once (or llm_http_upload), counted in
 * the counters as a request of kind LLM_BULK ("batch"): they are requests that left suql,
 * but none of them is a call of the model. A reply that is not what the interface promises
 * is an error that quotes the server (scrubbed of the key, cut short, made visible); an
 * endpoint that answers 404 has no batch interface, and the message says so.
 */
#include "base/util.h"
#include "base/vis.h"
#include "llm/llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count(Llm *llm, const LlmHttpOnce *r)
{
	if (!r->sent)
		return;
	LlmCall c = {0};
	c.kind = LLM_BULK;
	llm_count_request(llm, &c, LLM_REQ_FIRST);
}

/* The server's words, safe to show: the key scrubbed, control characters made visible. */
static char *quoted(Llm *llm, const SBuf *reply)
{
	const char *text = sb_str(reply);
	json_t *j = json_loads(text, 0, NULL);
	const char *m = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
	char *clean = llm_scrub(llm, m ? m : text);
	json_decref(j);
	SBuf v = SBUF_INIT;
	size_t n = strlen(clean);
	vis_put(&v, clean, n > 300 ? 300 : n, 0);
	free(clean);
	return sb_steal(&v);
}

/* The reply's JSON object, or an error naming what was asked (what: "POST /batches"). */
static SuqlStatus reply_object(Llm *llm, SuqlStatus st, LlmHttpOnce *r, const char *what,
                               json_t **out, SuqlErr *err)
{
	*out = NULL;
	if (st != SUQL_OK) {
		sb_free(&r->reply);
		return st;
	}
	if (r->code == 404 || r->code == 405) {
		char *q = quoted(llm, &r->reply);
		st = err_set(err, SUQL_LLM, "%s got HTTP %ld: the endpoint has no batch interface "
		             "(llm.bulk needs OpenAI's Batch API: /files and /batches); nothing was "
		             "lost: :set llm.bulk off and run the statement as usual (%s)", what,
		             r->code, q);
		free(q);
	} else if (r->code < 200 || r->code > 299) {
		char *q = quoted(llm, &r->reply);
		st = err_set(err, SUQL_LLM, "%s got HTTP %ld: %s", what, r->code, q);
		free(q);
	} else {
		*out = json_loads(sb_str(&r->reply), 0, NULL);
		if (!json_is_object(*out)) {
			json_decref(*out);
			*out = NULL;
			char *q = quoted(llm, &r->reply);
			st = err_set(err, SUQL_LLM, "%s: the reply is not a JSON object: %s", what, q);
			free(q);
		}
	}
	sb_free(&r->reply);
	return st;
}

SuqlStatus llm_batch_upload(Llm *llm, const char *jsonl, size_t n, char **file_id,
                            SuqlErr *err)
{
	LlmHttpOnce r;
	*file_id = NULL;
	SuqlStatus st = llm_http_upload(llm, "files", "batch", "suql-batch.jsonl", jsonl, n, &r,
	                                err);
	count(llm, &r);
	json_t *o;
	st = reply_object(llm, st, &r, "POST /files", &o, err);
	if (st != SUQL_OK)
		return st;
	const char *id = json_string_value(json_object_get(o, "id"));
	if (!id || !*id)
		st = err_set(err, SUQL_LLM, "POST /files: the reply names no file id");
	else
		*file_id = xstrdup(id);
	json_decref(o);
	return st;
}

/* A batch object has an id and a status. */
static SuqlStatus batch_reply(Llm *llm, SuqlStatus st, LlmHttpOnce *r, const char *what,
                              json_t **batch, SuqlErr *err)
{
	st = reply_object(llm, st, r, what, batch, err);
	if (st == SUQL_OK && (!json_string_value(json_object_get(*batch, "id")) ||
	                      !json_string_value(json_object_get(*batch, "status")))) {
		json_decref(*batch);
		*batch = NULL;
		st = err_set(err, SUQL_LLM, "%s: the reply is not a batch (no id or status)", what);
	}
	return st;
}

SuqlStatus llm_batch_create(Llm *llm, const char *file_id, json_t **batch, SuqlErr *err)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "input_file_id", file_id, "endpoint",
	                      "/v1/chat/completions", "completion_window", "24h");
	char *body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	LlmHttpOnce r;
	SuqlStatus st = llm_http_once(llm, "batches", body, &r, err);
	free(body);
	count(llm, &r);
	return batch_reply(llm, st, &r, "POST /batches", batch, err);
}

/* An id as part of a path: only the characters ids are made of. */
static int id_ok(const char *id)
{
	if (!id || !*id || strlen(id) > 200)
		return 0;
	for (const char *p = id; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", *p))
			return 0;
	return 1;
}


/* GET batches/ID (body NULL) or POST batches/ID + tail with body: the batch object the
   endpoint answers with, in *batch. */
static SuqlStatus batch_call(Llm *llm, const char *id, const char *tail, const char *body,
                             json_t **batch, SuqlErr *err)
{
	*batch = NULL;
	if (!id_ok(id))
		return err_set(err, SUQL_LLM, "the stored batch id is not one the endpoint gave");
	char *path = xprintf("batches/%s%s", id, tail);
	LlmHttpOnce r;
	SuqlStatus st = llm_http_once(llm, path, body, &r, err);
	count(llm, &r);
	char *what = xprintf("%s /%s", body ? "POST" : "GET", path);
	st = batch_reply(llm, st, &r, what, batch, err);
	free(what);
	free(path);
	return st;
}

SuqlStatus llm_batch_get(Llm *llm, const char *id, json_t **batch, SuqlErr *err)
{
	return batch_call(llm, id, "", NULL, batch, err);
}

SuqlStatus llm_batch_cancel(Llm *llm, const char *id, json_t **batch, SuqlErr *err)
{
	return batch_call(llm, id, "/cancel", "{}", batch, err);
}

SuqlStatus llm_batch_content(Llm *llm, const char *file_id, SBuf *out, SuqlErr *err)
{
	if (!id_ok(file_id))
		return err_set(err, SUQL_LLM, "the batch's output file id is not one the endpoint "
		               "could have given");
	char *path = xprintf("files/%s/content", file_id);
	LlmHttpOnce r;
	SuqlStatus st = llm_http_once(llm, path, NULL, &r, err);
	count(llm, &r);
	if (st == SUQL_OK && (r.code < 200 || r.code > 299)) {
		char *q = quoted(llm, &r.reply);
		st = err_set(err, SUQL_LLM, "GET /%s got HTTP %ld: %s", path, r.code, q);
		free(q);
	}
	if (st == SUQL_OK)
		sb_putn(out, sb_str(&r.reply), r.reply.len);
	sb_free(&r.reply);
	free(path);
	return st;
}

/* ---- the output file ---- */

long llm_bulk_read_output(const char *data, size_t n, LlmBatchLineFn fn, void *ctx)
{
	long lines = 0;
	size_t at = 0;
	while (at < n) {
		const char *p = data + at;
		const char *nl = memchr(p, '\n', n - at);
		size_t len = nl ? (size_t)(nl - p) : n - at;
		at += len + (nl ? 1 : 0);
		size_t k = 0;
		while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
			k++;
		if (k == len)
			continue;   /* a blank line */
		lines++;
		json_t *o = json_loadb(p, len, JSON_REJECT_DUPLICATES, NULL);
		const char *id = json_string_value(json_object_get(o, "custom_id"));
		if (id && (strlen(id) > 128 || !*id))
			id = NULL;
		json_t *resp = json_object_get(o, "response");
		json_t *code = json_object_get(resp, "status_code");
		json_t *body = json_object_get(resp, "body");
		const char *why = NULL;
		if (!json_is_object(o))
			why = "the line is not a JSON object";
		else if (!id)
			why = "the line has no custom_id";
		else if (!json_is_object(resp))
			why = "the line has no response (the request failed)";
		else if (!json_is_integer(code) || json_integer_value(code) != 200)
			why = "the response's status is not 200";
		else if (!json_is_object(body))
			why = "the response has no body";
		char *text = why ? NULL : json_dumps(body, JSON_COMPACT);
		if (!why && !text)
			why = "the response's body cannot be written back";
		fn(ctx, id, text, why);
		free(text);
		json_decref(o);
	}
	return lines;
}
