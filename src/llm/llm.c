/*
 * llm.c: the LLM client's front door: llm_open/llm_close and llm_run, which serves a batch
 * of calls from the memo, the cache file and a backend, and keeps the counters.
 *
 * llm_run cuts the batch into units: each candidate of a VERIFY, ANSWER or SUMMARY call is a
 * unit, and each other call is one. Every unit gets a key (SHA-256 of the backend, the model
 * and the exact single-unit request: for the HTTP backend the endpoint's origin and the
 * rendered messages, for the offline one the structured task). Units found in the
 * statement's memo or the cache file are filled at once; a unit identical to an earlier
 * one in the batch waits for it instead of being asked again; the remaining units of each
 * call become one job that the backend answers (several candidates in one request). A call finishes when all its units
 * have results; calls that needed no request count as cache hits, not calls. A verdict's
 * confidence (llm.logprobs) is part of its stored result, so a verdict served again shows
 * the confidence it was asked with; whether log-probabilities were asked for is not part
 * of the key (they do not change the answer), so a verdict first asked without them keeps
 * having none until the cache forgets it. The caller's
 * done callback runs as each call finishes and may stop the rest (they end CANCELLED).
 */
#include "base/util.h"
#include "base/vis.h"
#include "llm/llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const kind_names[LLM_NKINDS] = {
	"verify", "answer", "summary", "classify", "parse", "respond", "embed", "extract",
	"factor", "batch",
};

const char *llm_kind_name(LlmKind k)
{
	return k >= 0 && k < LLM_NKINDS ? kind_names[k] : "?";
}

Llm *llm_open(const LlmConfig *cfg, SuqlErr *err)
{
	Llm *llm = xcalloc(1, sizeof *llm);
	if (llm_settings_resolve(&llm->s, cfg, err) != SUQL_OK) {
		free(llm);
		return NULL;
	}
	llm->memo = llm_memo_new();
	if (llmp_load(llm, err) != SUQL_OK) {
		llm_close(llm);
		return NULL;
	}
	llm->cache_pending = !llm->s.no_cache;   /* opened when first needed */
	llm->rng = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	llm_relabel(llm);
	return llm;
}

void llm_cache_ensure(Llm *llm)
{
	if (!llm->cache_pending)
		return;
	llm->cache_pending = 0;
	if (llm->cache)
		return;
	/* a cache that cannot be used: run without it, and say so */
	SuqlErr cerr = {0};
	llm->cache = llm_cache_open(llm->s.cache_path, &cerr);
	if (!llm->cache)
		llm->cache_why = cerr.msg;
}

void llm_close(Llm *llm)
{
	if (!llm)
		return;
	llm_log_free(llm);   /* writes what is queued */
	llm_http_close(llm);
	llm_bulk_free(llm);
	llm_spend_free(llm);
	llm_cache_close(llm->cache);
	free(llm->cache_why);
	llm_memo_free(llm->memo);
	llmp_free(llm);
	llm_settings_free(&llm->s);
	free(llm->label);
	free(llm->origin);
	free(llm->model_id);
	free(llm);
}

static void item_clear(LlmItem *it)
{
	free(it->text);
	free(it->value);
	free(it->warning);
	it->text = it->value = it->warning = NULL;
	it->verdict = 0;
	it->unreadable = 0;
	it->cached = 0;
	free(it->evidence);
	it->evidence = NULL;
	free(it->note);
	it->note = NULL;
	it->has_confidence = 0;
	it->confidence = 0;
}

void llm_call_clear(LlmCall *c)
{
	for (int i = 0; i < c->nitems; i++)
		item_clear(&c->items[i]);
	free(c->text);
	for (int i = 0; i < c->nlabels; i++)
		free(c->labels[i]);
	free(c->labels);
	free(c->vec);
	free(c->error);
	c->text = NULL;
	c->labels = NULL;
	c->nlabels = 0;
	c->vec = NULL;
	c->dim = 0;
	c->tokens_in = c->tokens_out = 0;
	c->tokens_cached = 0;
	c->tokens_reasoning = 0;
	c->ms = 0;
	c->cached = 0;
	c->request = 0;
	c->attempts = 0;
	c->unreadable = 0;
	c->error = NULL;
	c->status = LLM_PENDING;
}

/* ---- counters ---- */

void llm_set_tick(Llm *llm, LlmTickFn fn, void *ctx)
{
	if (!llm)
		return;
	llm->tick = fn;
	llm->tick_ctx = fn ? ctx : NULL;
}

void llm_stats_begin(Llm *llm)
{
	memset(&llm->stmt, 0, sizeof llm->stmt);
	llm->cap = 0;
	llm->cap_usd = 0;
	llm_cap_begin(llm);
	llm_memo_clear(llm->memo);
}

void llm_set_cap(Llm *llm, long max_requests)
{
	llm->cap = max_requests > 0 ? max_requests : 0;
}

int llm_may_send(const Llm *llm)
{
	return (llm->cap <= 0 || llm->stmt.total.requests < llm->cap) && llm_under_cap_usd(llm);
}

const LlmStats *llm_stats_statement(const Llm *llm)
{
	return &llm->stmt;
}

const LlmStats *llm_stats_session(const Llm *llm)
{
	return &llm->sess;
}

/* body applied to the five counters a request of call counts in: the statement's and the
   session's, of its kind and in total, and its row of the session's spend */
#define EACH_COUNTS(llm, call, c, body)                                                  \
	do {                                                                                 \
		LlmKind k_ = (call)->kind;                                                       \
		LlmCounts *all_[5] = {&(llm)->stmt.kind[k_], &(llm)->stmt.total,                  \
		                      &(llm)->sess.kind[k_], &(llm)->sess.total,                  \
		                      llm_spend_counts(llm, call)};                              \
		for (int i_ = 0; i_ < 5; i_++) {                                                  \
			LlmCounts *c = all_[i_];                                                      \
			body;                                                                         \
		}                                                                                 \
	} while (0)

void llm_count_request(Llm *llm, LlmCall *call, LlmReason why)
{
	EACH_COUNTS(llm, call, c, (c->requests++, c->by_reason[why]++));
	if (!call->request)
		call->request = (int)llm->stmt.total.requests;
}

void llm_count_unsent(Llm *llm, const LlmCall *call, LlmReason why)
{
	EACH_COUNTS(llm, call, c, (c->requests--, c->by_reason[why]--));
}

void llm_count_in_flight_cancelled(Llm *llm, const LlmCall *call, long est_in, long max_out)
{
	LlmPrice p;
	int priced = llm_price_of(llm, llm_spend_model(llm, call), &p);
	double usd = priced ? llm_price_tokens(&p, (double)est_in, 0, (double)max_out) : 0;
	EACH_COUNTS(llm, call, c, (c->in_flight_cancelled++, c->cancelled_in += est_in,
	                           c->cancelled_out += max_out, c->cancelled_usd += usd,
	                           c->cancelled_unpriced += !priced));
}

void llm_count_usage(Llm *llm, LlmCall *call, const LlmUsage *u, int estimated)
{
	long in = u->in, out = u->out;
	long cached = u->cached < in ? u->cached : in;
	long reasoning = u->reasoning < out ? u->reasoning : out;
	call->tokens_in += (int)in;
	call->tokens_out += (int)out;
	call->tokens_cached += (int)cached;
	call->tokens_reasoning += (int)reasoning;
	LlmPrice p;
	int priced = llm_price_of(llm, llm_spend_model(llm, call), &p);
	double usd = priced ? llm_price_tokens(&p, (double)in, (double)cached, (double)out) : 0;
	long unpriced = priced ? 0 : in + out;
	EACH_COUNTS(llm, call, c, (c->tokens_in += in, c->tokens_out += out,
	                           c->tokens_cached += cached, c->tokens_reasoning += reasoning,
	                           c->est_in += estimated ? in : 0, c->est_out += estimated ? out : 0,
	                           c->usd += usd, c->unpriced += unpriced));
	llm_cap_seen(llm, in, out);
}

void llm_count_batch(Llm *llm, long in, long out)
{
	LlmCall call;
	memset(&call, 0, sizeof call);
	call.kind = LLM_BULK;
	LlmPrice p;
	int priced = llm_price_of(llm, NULL, &p);
	double usd = priced ? llm_price_tokens(&p, (double)in, 0, (double)out) *
	                      llm->s.bulk_discount : 0;
	long unpriced = priced ? 0 : in + out;
	EACH_COUNTS(llm, &call, c, (c->tokens_in += in, c->tokens_out += out, c->usd += usd,
	                            c->unpriced += unpriced));
}

static void count_one(LlmCounts *k, const LlmCall *c, const LlmJob *job, int hits)
{
	switch (c->status) {
	case LLM_DONE:
		if (job)
			k->calls++;
		else
			k->cache_hits++;
		k->cached_items += hits;
		break;
	case LLM_FAILED:
		k->failed++;
		break;
	case LLM_CANCELLED:
		k->cancelled++;
		break;
	default:
		break;
	}
	if (job) {
		k->items += c->status == LLM_DONE ? job->nitems : 0;
		k->ms += c->ms;
		if (c->status == LLM_DONE) {
			for (int i = 0; i < job->nitems; i++)
				k->unreadable += c->items[job->items[i]].unreadable;
			k->unreadable += c->unreadable;
		}
	}
}

static void count(Llm *llm, const LlmCall *c, const LlmJob *job, int hits)
{
	count_one(&llm->stmt.kind[c->kind], c, job, hits);
	count_one(&llm->stmt.total, c, job, hits);
	count_one(&llm->sess.kind[c->kind], c, job, hits);
	count_one(&llm->sess.total, c, job, hits);
}

/* ---- results as JSON (the memo and the cache file hold these) ---- */

static int has_items(LlmKind k)
{
	return k == LLM_VERIFY || k == LLM_ANSWER || k == LLM_SUMMARY || k == LLM_EXTRACT;
}

/* A key's string: the text as it is sent (invalid UTF-8 replaced by U+FFFD, as the
   prompts do), so that two texts differing only in invalid bytes never share a key with
   a third. */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	char *fixed = vis_utf8_repair(s);
	json_t *j = json_string(fixed);
	free(fixed);
	return j ? j : json_null();
}

static char *result_dump(const LlmCall *c, int item)
{
	json_t *o = json_object();
	if (item >= 0) {
		const LlmItem *it = &c->items[item];
		json_object_set_new(o, "text", jstr(it->text));
		json_object_set_new(o, "value", jstr(it->value));
		json_object_set_new(o, "warning", jstr(it->warning));
		json_object_set_new(o, "verdict", json_integer(it->verdict));
		if (it->unreadable)
			json_object_set_new(o, "unreadable", json_true());
		if (it->evidence)
			json_object_set_new(o, "evidence", json_string(it->evidence));
		if (it->note)
			json_object_set_new(o, "note", json_string(it->note));
		if (it->has_confidence)
			json_object_set_new(o, "confidence", json_real(it->confidence));
	} else if (c->kind == LLM_EMBED) {
		json_t *v = json_array();
		for (int i = 0; i < c->dim; i++)
			json_array_append_new(v, json_real(c->vec[i]));
		json_object_set_new(o, "vec", v);
	} else {
		json_object_set_new(o, "text", jstr(c->text));
		if (c->kind == LLM_CLASSIFY) {
			json_t *l = json_array();
			for (int i = 0; i < c->nlabels; i++)
				json_array_append_new(l, json_string(c->labels[i]));
			json_object_set_new(o, "labels", l);
			if (c->unreadable)
				json_object_set_new(o, "unreadable", json_true());
		}
	}
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static char *jdup(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* Fill a unit from a stored result; 0 when the text is not a result of that kind. */
static int result_load(LlmCall *c, int item, const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	if (!o || !json_is_object(o)) {
		json_decref(o);
		return 0;
	}
	int ok = 1;
	if (item >= 0) {
		LlmItem *it = &c->items[item];
		item_clear(it);
		it->text = jdup(o, "text");
		it->value = jdup(o, "value");
		it->warning = jdup(o, "warning");
		it->verdict = (int)json_integer_value(json_object_get(o, "verdict"));
		it->unreadable = json_is_true(json_object_get(o, "unreadable"));
		it->evidence = jdup(o, "evidence");
		it->note = jdup(o, "note");
		/* a result stored without one (asked without log-probabilities, or before suql
		   kept them) has none */
		json_t *cf = json_object_get(o, "confidence");
		double d = json_is_number(cf) ? json_number_value(cf) : -1;
		if (d >= 0 && d <= 1) {
			it->has_confidence = 1;
			it->confidence = d;
		}
	} else if (c->kind == LLM_EMBED) {
		json_t *v = json_object_get(o, "vec");
		ok = json_is_array(v) && json_array_size(v) > 0;
		if (ok) {
			free(c->vec);
			c->dim = (int)json_array_size(v);
			c->vec = xmalloc((size_t)c->dim * sizeof *c->vec);
			for (int i = 0; i < c->dim; i++)
				c->vec[i] = (float)json_number_value(json_array_get(v, (size_t)i));
		}
	} else {
		free(c->text);
		c->text = jdup(o, "text");
		if (c->kind == LLM_CLASSIFY) {
			json_t *l = json_object_get(o, "labels");
			const char **v = xcalloc(json_array_size(l) + 1, sizeof *v);
			int n = 0;
			for (size_t i = 0; i < json_array_size(l); i++)
				if (json_is_string(json_array_get(l, i)))
					v[n++] = json_string_value(json_array_get(l, i));
			llm_set_labels(c, v, n);
			free(v);
			c->unreadable = json_is_true(json_object_get(o, "unreadable"));
		}
	}
	json_decref(o);
	return ok;
}

/* ---- keys ---- */

static json_t *strv(const char *const *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

/* The unit's key; 0 when its request cannot be built (a message that cannot be encoded).
   With keep, *keep is what the key holds of the request as sent (its messages, or an
   embedding's input; NULL for the offline backend), for the request log. */
static int unit_key(Llm *llm, const LlmCall *c, int item, char out[65], json_t **keep)
{
	if (keep)
		*keep = NULL;
	json_t *o = json_object();
	int offline = llm_is_offline(llm);
	json_object_set_new(o, "backend", json_string(offline ? LLM_OFFLINE_VERSION : "http"));
	json_object_set_new(o, "kind", json_string(llm_kind_name(c->kind)));
	json_object_set_new(o, "shape", json_integer(c->shape));
	json_object_set_new(o, "max_tokens", json_integer(c->max_tokens));
	if (c->quotes)   /* EXTRACT with quotes: another answer */
		json_object_set_new(o, "quotes", json_true());
	/* who answers: a model's name does not say which endpoint serves it (llm_endpoint.c) */
	if (!offline)
		json_object_set_new(o, "endpoint", jstr(llm_origin(llm)));
	if (c->kind == LLM_EMBED) {
		json_object_set_new(o, "model", jstr(offline ? NULL : llm->s.embed_model));
		json_object_set_new(o, "input", jstr(c->subject));
		if (keep && !offline)
			*keep = json_incref(json_object_get(o, "input"));
	} else if (offline) {
		/* the offline backend decides from the structured task */
		json_object_set_new(o, "question", jstr(c->question));
		json_object_set_new(o, "op", jstr(c->op));
		json_object_set_new(o, "expected", strv(c->expected, c->nexpected));
		json_object_set_new(o, "subject", jstr(c->subject ? c->subject : item >= 0
		                                        ? c->items[item].left : NULL));
		json_object_set_new(o, "options", strv(c->options, c->noptions));
		if (item >= 0)
			json_object_set_new(o, "passages", strv(c->items[item].passages,
			                                        c->items[item].npassages));
	} else {
		/* the exact request, as sent when the unit is asked alone */
		json_object_set_new(o, "model", jstr(llmp_model(llm, c)));
		json_t *m = llmp_messages(llm, c, item);
		if (!m) {
			json_decref(o);
			return 0;
		}
		json_object_set_new(o, "messages", m);
		if (keep)
			*keep = json_incref(m);
		if (c->kind == LLM_CLASSIFY)   /* labels are checked against the options */
			json_object_set_new(o, "options", strv(c->options, c->noptions));
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	llm_sha256_hex(s, strlen(s), out);
	free(s);
	json_decref(o);
	return 1;
}

/* ---- the run ---- */

enum { U_TODO, U_HIT, U_DUP, U_DONE, U_FAIL, U_CANCEL };

typedef struct CallUnit {
	int call;        /* index in the batch */
	int item;        /* -1: the call itself */
	int state;
	int owner;       /* U_DUP: the unit whose answer this one copies */
	char key[65];
} CallUnit;

typedef struct LlmRun {
	Llm *llm;
	LlmCall *const *calls;
	int n;
	CallUnit *u;
	int nu;
	int *first, *cnt;     /* units of call i: u[first[i] .. first[i] + cnt[i]) */
	LlmJob **job_of;      /* per call, NULL when no job */
	int *finished;
	LlmDoneFn done;
	void *ctx;
	int stop;
	int ndup;             /* units waiting on an identical unit's answer */
	int nfailed;
	int capped;           /* a call was stopped by the statement's cap */
	char *first_error;
} LlmRun;

static int finish_call(LlmRun *r, int i, LlmCallStatus st, const char *error)
{
	LlmCall *c = r->calls[i];
	if (r->finished[i])
		return 0;
	r->finished[i] = 1;
	c->status = st;
	if (st == LLM_FAILED) {
		free(c->error);
		c->error = xstrdup(error ? error : "the call failed");
		if (!r->first_error)
			r->first_error = xstrdup(c->error);
		r->nfailed++;
	}
	if (st == LLM_DONE && !r->job_of[i])
		c->cached = 1;
	/* candidates answered without a request: from the cache, or from an identical one */
	int hits = 0;
	for (int k = r->first[i]; st == LLM_DONE && k < r->first[i] + r->cnt[i]; k++) {
		if (r->u[k].item < 0 || r->u[k].state != U_HIT)
			continue;
		c->items[r->u[k].item].cached = 1;
		hits++;
	}
	count(r->llm, c, r->job_of[i], hits);
	/* every answered call is told, after a stop too: its results are the caller's */
	if (st != LLM_CANCELLED && r->done && r->done(r->ctx, c))
		r->stop = 1;
	return r->stop;
}

/* A unit's answer could be kept: read, and not cancelled. */
static int unit_readable(const LlmCall *c, int item)
{
	if (item >= 0)
		return !c->items[item].unreadable;
	return !c->unreadable && (!c->readable || (c->text && c->readable(c->text)));
}

/* Finish call i if every unit has its answer (copying answers of identical units). */
static void try_finish(LlmRun *r, int i)
{
	if (r->finished[i])
		return;
	const char *fail = NULL;
	for (int k = r->first[i]; k < r->first[i] + r->cnt[i]; k++) {
		CallUnit *u = &r->u[k];
		if (u->state == U_DUP) {
			CallUnit *o = &r->u[u->owner];
			if (o->state == U_DONE || o->state == U_HIT) {
				/* straight from the owner's results (an unread answer is in no memo) */
				char *v = result_dump(r->calls[o->call], o->item);
				u->state = result_load(r->calls[i], u->item, v) ? U_HIT : U_FAIL;
				free(v);
			} else if (o->state == U_FAIL) {
				u->state = U_FAIL;
				fail = r->calls[o->call]->error;
			} else if (o->state == U_CANCEL) {
				u->state = U_CANCEL;
			}
		}
		if (u->state == U_TODO || u->state == U_DUP)
			return;   /* still waiting */
		if (u->state == U_FAIL && !fail)
			fail = r->calls[i]->error ? r->calls[i]->error : "an identical call failed";
		if (u->state == U_CANCEL) {
			finish_call(r, i, LLM_CANCELLED, NULL);
			return;
		}
	}
	if (fail) {
		char *f = xstrdup(fail);
		finish_call(r, i, LLM_FAILED, f);
		free(f);
	} else {
		finish_call(r, i, LLM_DONE, NULL);
	}
}

static int job_done(void *ctx, LlmJob *job)
{
	LlmRun *r = ctx;
	int i = job->index;
	LlmCall *c = r->calls[i];
	for (int k = r->first[i]; k < r->first[i] + r->cnt[i]; k++) {
		CallUnit *u = &r->u[k];
		if (u->state != U_TODO)
			continue;
		if (job->status == LLM_DONE) {
			u->state = U_DONE;
			if (!unit_readable(c, u->item))
				continue;   /* never remembered: the next statement asks again */
			char *v = result_dump(c, u->item);
			llm_memo_put(r->llm->memo, u->key, v);
			if (r->llm->cache && !r->llm->s.no_cache)
				llm_cache_put(r->llm->cache, u->key, llm_kind_name(c->kind), v);
			free(v);
		} else {
			u->state = job->status == LLM_CANCELLED ? U_CANCEL : U_FAIL;
		}
	}
	if (job->status == LLM_FAILED) {
		free(c->error);
		c->error = xstrdup(job->error ? job->error : "the call failed");
		r->capped |= job->capped;
	}
	if (job->status == LLM_CANCELLED)
		finish_call(r, i, LLM_CANCELLED, NULL);
	else
		try_finish(r, i);
	/* calls waiting on identical units may be complete now */
	for (int k = 0; k < r->n && r->ndup; k++)
		try_finish(r, k);
	return r->stop;
}

/* Bulk mode (llm_bulk.c): units a fetched batch answered are filled as from the cache
   (and kept there); while a statement is collected, the rest of each call are written for
   the next batch as one line, the request a job of theirs would send (llm_http.c), and
   their calls fail with LLM_BULK_MSG: no value stands for an answer to come. */
static void bulk_units(LlmRun *r)
{
	for (int k = 0; k < r->nu; k++) {
		CallUnit *u = &r->u[k];
		LlmCall *c = r->calls[u->call];
		if (u->state != U_TODO || r->finished[u->call])
			continue;
		if (llm_bulk_answer(r->llm, c, u->item, u->key) > 0) {
			u->state = U_HIT;
			char *v = result_dump(c, u->item);
			llm_memo_put(r->llm->memo, u->key, v);
			if (r->llm->cache && !r->llm->s.no_cache)
				llm_cache_put(r->llm->cache, u->key, llm_kind_name(c->kind), v);
			free(v);
		}
	}
	for (int i = 0; i < r->n && llm_bulk_collecting(r->llm); i++) {
		LlmCall *c = r->calls[i];
		if (r->finished[i] || r->cnt[i] == 0)
			continue;
		int *items = xmalloc((size_t)r->cnt[i] * sizeof *items);
		const char **keys = xmalloc((size_t)r->cnt[i] * sizeof *keys);
		int n = 0, whole = 0;
		for (int k = r->first[i]; k < r->first[i] + r->cnt[i]; k++) {
			CallUnit *u = &r->u[k];
			if (u->state != U_TODO)
				continue;
			whole |= u->item < 0;
			items[n] = u->item;
			keys[n++] = u->key;
		}
		const char *why = NULL;
		if (n > 0 && r->llm->cap > 0 && llm_bulk_fresh(r->llm, keys, n) &&
		    r->llm->stmt.total.requests + llm_bulk_collected(r->llm) >= r->llm->cap) {
			/* the budget counts the batch's requests: no line is written past it (the
			   statement then fails, and nothing is submitted) */
			why = LLM_CAP_MSG;
			r->capped = 1;
			r->llm->capped_by = LLM_CAPPED_REQUESTS;
		} else if (n > 0 &&
		           llm_bulk_collect(r->llm, c, whole ? NULL : items, whole ? 0 : n, keys)) {
			why = LLM_BULK_MSG;
		}
		if (why) {
			for (int k = r->first[i]; k < r->first[i] + r->cnt[i]; k++)
				if (r->u[k].state == U_TODO)
					r->u[k].state = U_FAIL;
			if (!c->error)
				c->error = xstrdup(why);
		}
		free(items);
		free(keys);
	}
	for (int i = 0; i < r->n; i++)
		if (!r->finished[i] && r->cnt[i] > 0)
			try_finish(r, i);
}

static const char *invalid(const LlmCall *c)
{
	if (c->kind < 0 || c->kind >= LLM_NKINDS)
		return "unknown kind of call";
	if (has_items(c->kind) && (c->nitems < 1 || !c->items))
		return "a verify, answer, summary or extract call needs at least one candidate";
	if ((c->kind == LLM_VERIFY || c->kind == LLM_ANSWER || c->kind == LLM_EXTRACT) &&
	    !c->question)
		return "a verify, answer or extract call needs a question (extract: its spec)";
	if (c->kind == LLM_FACTOR && (!c->question || c->noptions < 1 || c->nexpected < 1))
		return "a factor call needs a question and example values of each side";
	if (c->kind == LLM_CLASSIFY && (!c->subject || c->noptions < 1))
		return "a classify call needs a value and at least one permitted value";
	if ((c->kind == LLM_PARSE || c->kind == LLM_RESPOND) && c->nmsgs < 1)
		return "a parse or respond call needs messages";
	if (c->kind == LLM_EMBED && !c->subject)
		return "an embed call needs a text";
	return NULL;
}

/* Whether every request of the call can be built (its messages encoded as JSON). */
static int encodable(Llm *llm, const LlmCall *c)
{
	if (llm_is_offline(llm) || c->kind == LLM_EMBED)
		return 1;
	int items = has_items(c->kind);
	for (int k = 0; k < (items ? c->nitems : 1); k++) {
		json_t *m = llmp_messages(llm, c, items ? k : -1);
		if (!m)
			return 0;
		json_decref(m);
	}
	return 1;
}

/* Errors known before any request: every such call fails with the same message. */
static const char *config_problem(const Llm *llm, const LlmCall *c)
{
	if (llm_is_offline(llm)) {
		if (c->kind == LLM_EMBED)
			return "the offline backend has no embeddings: configure an embedding model "
			       "(SUQL_EMBED_MODEL or :set llm.embed_model) with an endpoint";
		if (c->kind == LLM_PARSE || c->kind == LLM_RESPOND)
			return "the offline backend cannot write or explain SUQL from natural language: "
			       "configure a language model (SUQL_LLM_URL and SUQL_MODEL, or "
			       "OPENAI_API_KEY), or type SUQL at suql>";
		return NULL;
	}
	if (c->kind == LLM_EMBED)
		return llm->s.embed_model ? NULL : "no embedding model configured: set "
		       "SUQL_EMBED_MODEL or :set llm.embed_model";
	return llm_chat_problem(llm);
}

const char *llm_chat_problem(const Llm *llm)
{
	if (!llm || llm_is_offline(llm) || llm->s.model)
		return NULL;
	return "no model configured: set SUQL_MODEL, --model NAME or :set llm.model NAME";
}

SuqlStatus llm_run(Llm *llm, LlmCall *const *calls, int n, LlmDoneFn done, void *ctx,
                   SuqlErr *err)
{
	double t0 = util_now_ms();
	LlmRun r = {0};
	r.llm = llm;
	r.calls = calls;
	r.n = n;
	r.done = done;
	r.ctx = ctx;
	r.first = xcalloc((size_t)n + 1, sizeof *r.first);
	r.cnt = xcalloc((size_t)n + 1, sizeof *r.cnt);
	r.job_of = xcalloc((size_t)n + 1, sizeof *r.job_of);
	r.finished = xcalloc((size_t)n + 1, sizeof *r.finished);
	int nunits = 0;
	for (int i = 0; i < n; i++)
		nunits += has_items(calls[i]->kind) && calls[i]->nitems > 0 ? calls[i]->nitems : 1;
	r.u = xcalloc((size_t)nunits + 1, sizeof *r.u);
	LlmMemo *seen = llm_memo_new();   /* key -> index of the first unit asking it */
	if (!llm->s.no_cache)
		llm_cache_ensure(llm);
	int use_file = llm->cache && !llm->s.no_cache;
	SuqlStatus st = SUQL_OK;
	SuqlErr nohash = {0};   /* the keys are SHA-256: without libcrypto, every call fails */
	llm_sha256_load(&nohash);
	int logging = llm_log_wanted(llm);   /* the cache's answers are logged */

	for (int i = 0; i < n; i++) {
		LlmCall *c = calls[i];
		r.first[i] = r.nu;
		if (c->status != LLM_PENDING) {   /* already answered: left as it is */
			r.finished[i] = 1;
			continue;
		}
		const char *bad = invalid(c);
		if (!bad)
			bad = config_problem(llm, c);
		if (!bad)
			bad = nohash.msg;
		if (!bad && !encodable(llm, c))   /* never sent, never cached */
			bad = "a message of the request could not be encoded as JSON: nothing was sent";
		if (bad) {
			c->error = xstrdup(bad);
			continue;   /* failed below, in order, once units exist for the others */
		}
		int items = has_items(c->kind);
		for (int k = 0; k < (items ? c->nitems : 1); k++) {
			CallUnit *u = &r.u[r.nu++];
			u->call = i;
			u->item = items ? k : -1;
			json_t *sent = NULL;
			/* encodable: checked by invalid() */
			unit_key(llm, c, u->item, u->key, logging ? &sent : NULL);
			const char *mv = llm_memo_get(llm->memo, u->key);
			char *fv = NULL;
			if (mv && result_load(c, u->item, mv)) {
				u->state = U_HIT;
			} else if (use_file && (fv = llm_cache_get(llm->cache, u->key)) != NULL &&
			           result_load(c, u->item, fv)) {
				u->state = U_HIT;
				llm_memo_put(llm->memo, u->key, fv);
				llm->cache_hits_file++;
				if (logging)   /* no request went over the wire: said so in the log */
					llm_log_cached(llm, c, u->item, sent ? json_dumps(sent, JSON_COMPACT |
					               JSON_ENCODE_ANY) : NULL, fv);
			} else {
				const char *owner = llm_memo_get(seen, u->key);
				if (owner) {
					u->state = U_DUP;
					u->owner = atoi(owner);
					r.ndup++;
				} else {
					char idx[16];
					snprintf(idx, sizeof idx, "%d", (int)(u - r.u));
					llm_memo_put(seen, u->key, idx);
				}
			}
			free(fv);
			json_decref(sent);
		}
		r.cnt[i] = r.nu - r.first[i];
	}
	llm_memo_free(seen);
	if (llm->bulk)
		bulk_units(&r);

	/* calls that fail before any request, and calls answered entirely from the cache */
	for (int i = 0; i < n && !r.stop; i++) {
		if (r.finished[i])
			continue;
		if (calls[i]->error && r.cnt[i] == 0) {
			char *e = calls[i]->error;
			calls[i]->error = NULL;
			finish_call(&r, i, LLM_FAILED, e);
			free(e);
			continue;
		}
		int all = 1;
		for (int k = r.first[i]; k < r.first[i] + r.cnt[i]; k++)
			all &= r.u[k].state == U_HIT;
		if (all)
			finish_call(&r, i, LLM_DONE, NULL);
	}

	/* one job per call for the units nobody has answered yet */
	LlmJob **jobs = xcalloc((size_t)n + 1, sizeof *jobs);
	int njobs = 0;
	for (int i = 0; i < n && !r.stop; i++) {
		if (r.finished[i])
			continue;
		LlmJob *j = NULL;
		for (int k = r.first[i]; k < r.first[i] + r.cnt[i]; k++) {
			if (r.u[k].state != U_TODO)
				continue;
			if (!j) {
				j = xcalloc(1, sizeof *j);
				j->call = calls[i];
				j->index = i;
				j->items = xcalloc((size_t)r.cnt[i], sizeof *j->items);
			}
			if (r.u[k].item >= 0)
				j->items[j->nitems++] = r.u[k].item;
		}
		if (j) {
			jobs[njobs++] = j;
			r.job_of[i] = j;
		}
	}
	if (!r.stop && njobs > 0) {
		if (suql_interrupted)
			st = SUQL_INTERRUPT;
		else if (llm_is_offline(llm))
			st = llm_offline_run(llm, jobs, njobs, job_done, &r);
		else
			st = llm_http_run(llm, jobs, njobs, job_done, &r);
	}
	/* whatever is left was stopped by the callback or by Ctrl-C */
	for (int i = 0; i < n; i++) {
		if (!r.finished[i]) {
			for (int k = r.first[i]; k < r.first[i] + r.cnt[i]; k++)
				if (r.u[k].state == U_TODO || r.u[k].state == U_DUP)
					r.u[k].state = U_CANCEL;
			finish_call(&r, i, LLM_CANCELLED, NULL);
		}
	}
	for (int i = 0; i < njobs; i++) {
		free(jobs[i]->items);
		free(jobs[i]->error);
		free(jobs[i]);
	}
	free(jobs);
	if (llm->cache) {
		llm_cache_flush(llm->cache);
		if (llm_cache_failure(llm->cache)) {   /* given up: the session goes on without */
			free(llm->cache_why);
			llm->cache_why = xstrdup(llm_cache_failure(llm->cache));
			llm->cache_told = 0;
			llm_cache_close(llm->cache);
			llm->cache = NULL;
		}
	}

	if (st == SUQL_INTERRUPT || suql_interrupted)
		st = err_set(err, SUQL_INTERRUPT, "interrupted");
	else if (r.capped)
		st = err_set(err, SUQL_BUDGET, "%s of %ld requests to the model", LLM_CAP_MSG,
		             llm->cap);
	else if (r.nfailed) {
		if (r.nfailed > 1)
			st = err_set(err, SUQL_LLM, "%s (%d calls failed)", r.first_error, r.nfailed);
		else
			st = err_set(err, SUQL_LLM, "%s", r.first_error);
	}
	err_clear(&nohash);
	free(r.first_error);
	free(r.first);
	free(r.cnt);
	free(r.job_of);
	free(r.finished);
	free(r.u);
	double wall = util_now_ms() - t0;
	llm->stmt.wall_ms += wall;
	llm->sess.wall_ms += wall;
	return st;
}

const char *llm_cache_notice(Llm *llm)
{
	if (!llm || !llm->cache_why || llm->cache_told)
		return NULL;
	llm->cache_told = 1;
	return llm->cache_why;
}

void llm_cache_describe(Llm *llm, SBuf *out)
{
	const LlmCounts *t = &llm->sess.total;
	llm_cache_ensure(llm);
	if (!llm->cache) {
		sb_printf(out, "cache        off (%s)\n", llm->s.cache_path ? llm->s.cache_path : "");
		if (llm->cache_why && !llm->s.no_cache)
			sb_printf(out, "             not usable: %s\n", llm->cache_why);
		sb_printf(out, "hits         %ld this session (from this session's memory)\n",
		          t->cache_hits);
		return;
	}
	sb_printf(out, "cache        %s (%s)\n", llm_cache_path(llm->cache),
	          llm->s.no_cache ? "off" : "on");
	sb_printf(out, "hits         %ld calls this session (%ld results read from the file)\n",
	          t->cache_hits, llm->cache_hits_file);
	llm_cache_report(llm->cache, out);
}

SuqlStatus llm_cache_clear(Llm *llm, SuqlErr *err)
{
	llm_memo_clear(llm->memo);
	if (!llm->cache) {
		LlmCache *c = llm_cache_open(llm->s.cache_path, err);
		if (!c)
			return SUQL_IO;
		SuqlStatus st = llm_cache_wipe(c, err);
		llm_cache_close(c);
		return st;
	}
	return llm_cache_wipe(llm->cache, err);
}
