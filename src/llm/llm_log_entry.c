/*
 * llm_log_entry.c: the rows of the request log (llm_log.c) that are more than a request
 * of the HTTP backend: the offline backend's calls (the task it was given, as it reads no
 * prompt, and its answers), the cache's answers (the request each was kept under), and
 * the one-off requests of :llm test, :llm models and the batch interface; and the price
 * of a row's tokens, as the counters price them.
 *
 * Ownership: each function builds an LlmLogEntry of heap strings and hands it to
 * llm_log_add, which takes them; its arguments are borrowed.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <stdlib.h>
#include <string.h>

double llm_log_usd(const Llm *llm, const LlmCall *c, const LlmLogEntry *e)
{
	LlmPrice p;
	if (!llm_price_of(llm, c ? llm_spend_model(llm, c) : NULL, &p))
		return -1;
	return llm_price_tokens(&p, (double)e->tokens_in, (double)e->tokens_cached,
	                        (double)e->tokens_out);
}

/* The tokens a reply's usage reports, into e (cached at most the input, reasoning at
   most the output, as llm_count_usage counts them); 0 when it reports none. */
int llm_log_usage(const json_t *reply, LlmLogEntry *e)
{
	LlmUsage u;
	if (!reply || !llm_usage_read(reply, &u))
		return 0;
	e->tokens_in = u.in;
	e->tokens_out = u.out;
	e->tokens_cached = u.cached < u.in ? u.cached : u.in;
	e->tokens_reasoning = u.reasoning < u.out ? u.reasoning : u.out;
	return 1;
}

/* ---- the offline backend and the cache ---- */

static json_t *jtext(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;
	return j ? j : json_null();
}

static json_t *jtexts(const char *const *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, jtext(v[i]));
	return a;
}

/* The task the offline backend was given about items[0..n) (all of the call's when items
   is NULL and n < 0; none for kinds without candidates): heap JSON text. */
static char *offline_task(const LlmCall *c, const int *items, int n)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(llm_kind_name(c->kind)));
	if (c->question)
		json_object_set_new(o, "question", jtext(c->question));
	if (c->op)
		json_object_set_new(o, "op", jtext(c->op));
	if (c->nexpected)
		json_object_set_new(o, "expected", jtexts(c->expected, c->nexpected));
	if (c->subject)
		json_object_set_new(o, "subject", jtext(c->subject));
	if (c->noptions)
		json_object_set_new(o, "options", jtexts(c->options, c->noptions));
	if (n != 0 && c->items) {
		json_t *texts = json_array();
		for (int k = 0; k < (n < 0 ? c->nitems : n); k++) {
			const LlmItem *it = &c->items[items ? items[k] : k];
			json_array_append_new(texts, jtexts(it->passages, it->npassages));
		}
		json_object_set_new(o, "texts", texts);
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

/* What the offline backend answered about items[0..n): one entry per candidate (the
   answer's text, and the value read from it when it differs), or the call's text or
   labels. Heap JSON text. */
static char *offline_answers(const LlmCall *c, const int *items, int n)
{
	json_t *a;
	if (n > 0 && c->items) {
		a = json_array();
		for (int k = 0; k < n; k++) {
			const LlmItem *it = &c->items[items ? items[k] : k];
			json_array_append_new(a, jtext(it->text));
		}
	} else if (c->kind == LLM_CLASSIFY) {
		a = jtexts((const char *const *)c->labels, c->nlabels);
	} else {
		a = jtext(c->text);
	}
	char *s = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(a);
	return s;
}

void llm_log_offline(Llm *llm, const LlmCall *c, const int *items, int n)
{
	if (!llm_log_wanted(llm))
		return;
	LlmLogEntry e = {0};
	e.reason = -1;
	e.items = n;
	e.ms = c->ms;
	e.status = c->status == LLM_FAILED ? "error" : "ok";
	e.usd = 0;
	e.prompt = offline_task(c, items, n);
	e.reply = offline_answers(c, items, n);
	llm_log_add(llm, c, &e);
}

void llm_log_cached(Llm *llm, const LlmCall *c, int item, char *prompt, const char *value)
{
	if (!llm_log_wanted(llm)) {
		free(prompt);
		return;
	}
	LlmLogEntry e = {0};
	e.reason = -1;
	e.items = item >= 0 ? 1 : 0;
	e.status = "cached";
	e.cache_hit = 1;
	e.usd = 0;
	if (!prompt && llm_is_offline(llm))
		prompt = offline_task(c, item >= 0 ? &item : NULL, item >= 0 ? 1 : 0);
	e.prompt = prompt;
	e.reply = xstrdup(value);
	llm_log_add(llm, c, &e);
}

/* ---- the one-off requests (llm_http_once, llm_http_upload) ---- */

/* One request of llm_http_once or llm_http_upload in the request log: kind test (:llm
   test's chat completions), models, or batch (the batch interface); upload: the bytes of
   the file uploaded (its requests were logged one by one as they were collected). */
void llm_log_once(Llm *llm, const char *path, const char *body, size_t upload,
                     const LlmHttpOnce *res, double sent_at, const char *error)
{
	if (!llm_log_wanted(llm))
		return;
	LlmLogEntry e = {0};
	int chat = strcmp(path, "chat/completions") == 0;
	e.kind = chat ? "test" : strcmp(path, "models") == 0 ? "models" : "batch";
	e.model = llm->s.model ? xstrdup(llm->s.model) : NULL;
	e.reason = LLM_REQ_FIRST;
	e.t = sent_at;
	e.ms = res->ms;
	e.http = res->code;
	if (body) {
		e.prompt = xstrdup(body);
		e.prompt_body = 1;
	} else if (upload) {
		e.prompt = xprintf("(POST /%s: a file of %zu bytes, its requests logged one by one "
		                   "as they were collected)", path, upload);
	} else {
		e.prompt = xprintf("(GET /%s)", path);
	}
	e.reply = res->reply.len ? xstrndup(res->reply.s, res->reply.len) : NULL;
	int failed = error || res->code < 200 || res->code > 299;
	e.status = failed ? "error" : "ok";
	if (failed)
		e.error = error ? xstrdup(error) : xprintf("HTTP %ld", res->code);
	json_t *j = chat && e.reply ? json_loads(e.reply, 0, NULL) : NULL;
	if (llm_log_usage(j, &e))
		e.usd = llm_log_usd(llm, NULL, &e);
	json_decref(j);
	llm_log_add(llm, NULL, &e);
}
