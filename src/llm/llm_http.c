/*
 * llm_http.c: the OpenAI-compatible backend: POST {url}/chat/completions and
 * {url}/embeddings through libcurl's multi interface, JSON through jansson.
 *
 * Each job starts as one request (a batch of candidates is one request). Up to
 * `concurrency` requests are in flight at once; the rest wait their turn. A request that
 * meets a refused connection, a timeout, a reset, a malformed body, HTTP 408, 429 or 5xx is
 * retried after an exponential backoff with jitter (or after exactly what Retry-After says),
 * up to `retries` times. 400, 401, 403 and 404 are not retried: 401, 403 and 404 (and an
 * unusable URL) concern every call, so the remaining calls fail at once with the same
 * message instead of repeating the request. A 400 to a request carrying response_format is
 * retried once without it, and the endpoint is remembered as not supporting it; so is one
 * to a request carrying a prompt_cache_key that names the key, or that nothing else the
 * request carries explains.
 *
 * A reply that cannot be read (llm_reply.c says what can) is asked again once, for the
 * candidates it left unread; what a batch leaves unread a second time is asked candidate by
 * candidate; what is still unread then is unknown (llm_mark_unreadable). Every request is
 * counted as it goes out, with its reason (first, retry, re-ask, split); one of which no
 * byte was sent is taken back. Once a job has sent a request it is seen through even after
 * the caller said stop: only jobs not yet started are dropped then, so what a statement
 * costs does not depend on the order in which replies arrive. Ctrl-C and errors that concern
 * every call drop requests in flight; those already sent are counted as cancelled in flight.
 *
 * A yes/no verdict request asks for log-probabilities when llm.logprobs says so; a 400 to
 * it that names them (or that no weaker reply format explains) is asked again without,
 * and the endpoint remembered. A reply that brings them gives each of its verdicts a
 * confidence (llm_logprobs.c); one without, none.
 *
 * A call with on_text (the chat agent's reply) is asked for a stream (stream: true): a
 * reply that comes as server-sent events is read by llm_stream.c as it arrives, each piece
 * handed over at once; one that comes whole is read as usual. A 400 to a streamed request
 * is asked again without streaming, and the endpoint remembered. Once pieces were handed
 * over, a stream that breaks off is an error, never asked again (the reader saw them).
 *
 * Every error names the cause and the fix; none contains the API key (llm_scrub). What an
 * error status or a broken transfer calls for is read by llm_http_err.c; the one-off
 * requests of :llm test, :llm models and bulk mode are llm_http_once.c's.
 *
 * libcurl is loaded when the first request is about to go out (base/dynlib.h: libcurl.so.4
 * from the package libcurl4, or $SUQL_LIBCURL), so that a session that never asks a model
 * never maps it and its TLS stack; every call goes through the table llm_cu
 * (llm_cu.easy_init is curl_easy_init). When it cannot be loaded, every call of the run
 * fails with that message.
 */
#include "base/util.h"
#include "llm/llm_http_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_SYM(f) {"curl_" #f, offsetof(CuTable, f)},

static const DynSym cu_syms[] = {CU_FUNCS(CU_SYM) {NULL, 0}};
CuTable llm_cu;
DynLib llm_cu_lib = {"libcurl.so.4", "libcurl4", "SUQL_LIBCURL", cu_syms, &llm_cu, 0};

enum { R_QUEUED, R_FLIGHT, R_DONE };

typedef struct JobState {
	int pending;        /* requests not finished */
	int finished;
	int started;        /* a request of it has been handed to the transport */
	double t0;
	char *error;
	int fatal;
	int capped;
} JobState;

typedef struct HttpRun {
	Llm *llm;
	CURLM *multi;
	LlmHttpReq **r;
	int nr, capr;
	int inflight;
	double inflight_usd;   /* what the requests in flight cost at most */
	LlmJobDoneFn done;
	void *ctx;
	int stop;
	char *shown;        /* the base URL as it may be printed */
} HttpRun;

static char *msg(const HttpRun *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *msg(const HttpRun *run, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = llm_http_vmsg(run->llm, fmt, ap);
	va_end(ap);
	return m;
}

/* A streamed reply's pieces, as the caller is given them: without secrets. */
static char *stream_scrub(void *llm, const char *text)
{
	return llm_scrub_reply(llm, text);
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	LlmHttpReq *r = ud;
	size_t n = size * nmemb;
	if (r->got + n > LLM_MAX_REPLY) {
		r->oversize = 1;
		return 0;   /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	r->got += n;
	if (r->stream && r->sse == 0) {
		long code = 0;
		char *ct = NULL;
		llm_cu.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
		llm_cu.easy_getinfo(r->easy, CURLINFO_CONTENT_TYPE, &ct);
		r->sse = code >= 200 && code <= 299 && ct &&
		         strncasecmp(ct, "text/event-stream", 17) == 0 ? 1 : -1;
	}
	if (r->sse == 1)
		llm_stream_feed(&r->st, p, n);
	else
		sb_putn(&r->resp, p, n);
	return n;
}

/* A request for n of the job's candidates (items: indices into the call's items; n = 0 for
   a call without candidates). */
static LlmHttpReq *req_new(HttpRun *run, LlmJob *job, const int *items, int n, LlmReason why)
{
	LlmHttpReq *r = xcalloc(1, sizeof *r);
	r->job = job;
	r->why = why;
	if (n > 0) {
		r->items = xmalloc((size_t)n * sizeof *r->items);
		memcpy(r->items, items, (size_t)n * sizeof *r->items);
		r->nitems = n;
	}
	if (run->nr == run->capr)
		run->r = xrealloc(run->r, (size_t)(run->capr = run->capr * 2 + 16) * sizeof *run->r);
	run->r[run->nr++] = r;
	((JobState *)job->priv)->pending++;
	return r;
}

static void req_body(HttpRun *run, LlmHttpReq *r)
{
	LlmJob *j = r->job;
	json_t *b;
	free(r->body);
	if (j->call->kind == LLM_EMBED) {
		b = llmp_embed_body(run->llm, j->call);
		r->json_mode = 0;
	} else {
		b = llmp_chat_body(run->llm, j->call, r->items, r->nitems, &r->json_mode);
		r->stream = j->call->on_text && !run->llm->no_stream &&
		            (j->call->kind == LLM_PARSE || j->call->kind == LLM_RESPOND);
		if (r->stream) {
			json_object_set_new(b, "stream", json_true());
			json_object_set_new(b, "stream_options", json_pack("{s:b}", "include_usage", 1));
		}
		r->logprobs = b && llm_logprobs_wanted(run->llm, j->call);
		if (r->logprobs) {
			json_object_set_new(b, "logprobs", json_true());
			json_object_set_new(b, "top_logprobs", json_integer(LLM_TOP_LOGPROBS));
		}
	}
	r->cache_key = json_object_get(b, "prompt_cache_key") != NULL;
	r->body = b ? json_dumps(b, JSON_COMPACT) : NULL;   /* NULL: a message could not be encoded */
	free(r->prompt);
	r->prompt = NULL;
	if (b && llm_log_wanted(run->llm)) {   /* what the log keeps of it */
		json_t *m = json_object_get(b, j->call->kind == LLM_EMBED ? "input" : "messages");
		r->prompt = m ? json_dumps(m, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	}
	r->max_out = (long)json_integer_value(json_object_get(b, "max_tokens"));
	if (!r->max_out)   /* a reasoning model's limit, hidden tokens included */
		r->max_out = (long)json_integer_value(json_object_get(b, "max_completion_tokens"));
	json_decref(b);
}

/* ---- the request log ---- */

/* A call's tokens before a reply was counted, to log what that reply added. */
typedef struct Tokens {
	long in, out, cached, reasoning;
} Tokens;

static Tokens tokens_of(const LlmCall *c)
{
	Tokens t = {c->tokens_in, c->tokens_out, c->tokens_cached, c->tokens_reasoning};
	return t;
}

/* The attempt r ended (status; error: heap, or NULL): one row of the request log with the
   tokens its reply added to the call since before. */
static void log_attempt(HttpRun *run, LlmHttpReq *r, const char *status, long code, char *error,
                        const Tokens *before)
{
	Llm *llm = run->llm;
	LlmCall *c = r->job->call;
	char *reply = r->reply;
	r->reply = NULL;
	if (!llm_log_wanted(llm)) {
		free(reply);
		free(error);
		return;
	}
	LlmLogEntry e = {0};
	e.status = status;
	e.reason = (int)r->counted;
	e.items = r->nitems;
	e.http = code;
	e.t = r->sent_at;
	e.ms = util_now_ms() - r->t0;
	e.prompt = r->prompt ? xstrdup(r->prompt) : r->body ? xstrdup(r->body) : NULL;
	e.prompt_body = !r->prompt;
	if (!reply && r->sse == 1 && r->st.text.len)
		reply = xstrdup(sb_str(&r->st.text));
	else if (!reply && r->resp.len)
		reply = xstrndup(r->resp.s, r->resp.len);
	if (c->kind == LLM_EMBED && c->dim > 0 && strcmp(status, "ok") == 0) {
		free(reply);   /* the vector is not worth its room: its size is */
		reply = xprintf("(an embedding of %d numbers)", c->dim);
	}
	e.reply = reply;
	e.error = error;
	if (before) {
		e.tokens_in = c->tokens_in - before->in;
		e.tokens_out = c->tokens_out - before->out;
		e.tokens_cached = c->tokens_cached - before->cached;
		e.tokens_reasoning = c->tokens_reasoning - before->reasoning;
	}
	e.estimated = r->estimated;
	e.usd = llm_log_usd(llm, c, &e);
	llm_log_add(llm, c, &e);
}

/* Take the request off the transport. A request of which nothing was sent is taken back
   from the counters; one sent and given up on (cancelled) is counted as such. */
static void req_detach(HttpRun *run, LlmHttpReq *r, int cancelled)
{
	if (r->easy) {
		long sent = 0;
		llm_cu.easy_getinfo(r->easy, CURLINFO_REQUEST_SIZE, &sent);
		const LlmCall *c = r->job->call;
		if (sent <= 0)
			llm_count_unsent(run->llm, c, r->counted);
		else if (cancelled) {   /* a provider may bill it: what is known of it */
			llm_count_in_flight_cancelled(run->llm, c, r->body ? (long)(strlen(r->body) /
			                              TEXT_BYTES_PER_TOKEN) : 0, r->max_out);
			log_attempt(run, r, "cancelled", 0, xstrdup("sent, its reply not waited for"),
			            NULL);
		}
		llm_cu.multi_remove_handle(run->multi, r->easy);
		llm_cu.easy_cleanup(r->easy);
		r->easy = NULL;
		run->inflight--;
		run->inflight_usd -= r->worst;
		r->worst = 0;
	}
	if (r->hdrs)
		llm_cu.slist_free_all(r->hdrs);
	r->hdrs = NULL;
}

void llm_http_limits(Llm *llm, CURL *e)
{
	llm_cu.easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)llm->s.timeout_ms);
	llm_cu.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)llm->s.connect_timeout_ms);
	llm_cu.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	llm_cu.easy_setopt(e, CURLOPT_USERAGENT, "suql/" SUQL_VERSION);
	llm_cu.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	llm_cu.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
}

/* What r costs at most: its body's bytes as tokens (as the counters estimate a reply
   without usage) and the max_tokens it asks for, or the most a request of the statement
   took (llm_cap_worst). */
static double req_worst(const Llm *llm, const LlmHttpReq *r)
{
	const LlmCall *c = r->job->call;
	double in = (double)(strlen(r->body) / TEXT_BYTES_PER_TOKEN + 1);
	double out = c->kind == LLM_EMBED ? 0 : (double)llm_max_tokens(c, r->nitems);
	return llm_cap_worst(llm, in, out);
}

static void req_start(HttpRun *run, LlmHttpReq *r)
{
	Llm *llm = run->llm;
	CURL *e = llm_cu.easy_init();
	if (!e) {
		fputs("suql: out of memory\n", stderr);
		exit(SUQL_EXIT_USAGE);
	}
	int embed = r->job->call->kind == LLM_EMBED;
	char *url = xprintf("%s/%s", llm->s.url, embed ? "embeddings" : "chat/completions");
	r->hdrs = llm_cu.slist_append(NULL, "Content-Type: application/json");
	r->hdrs = llm_cu.slist_append(r->hdrs, "Accept: application/json");
	r->hdrs = llm_cu.slist_append(r->hdrs, "Expect:");
	if (llm->s.key) {
		char *auth = xprintf("Authorization: Bearer %s", llm->s.key);
		r->hdrs = llm_cu.slist_append(r->hdrs, auth);
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	sb_truncate(&r->resp, 0);
	r->oversize = 0;
	r->got = 0;
	r->sse = 0;
	llm_stream_reset(&r->st);
	r->st.on_text = r->job->call->on_text;
	r->st.ctx = r->job->call->text_ctx;
	r->st.scrub = stream_scrub;
	r->st.sctx = run->llm;
	llm_cu.easy_setopt(e, CURLOPT_URL, url);
	llm_cu.easy_setopt(e, CURLOPT_POST, 1L);
	llm_cu.easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
	llm_cu.easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body));
	llm_cu.easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs);
	llm_cu.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	llm_cu.easy_setopt(e, CURLOPT_WRITEDATA, r);
	llm_cu.easy_setopt(e, CURLOPT_PRIVATE, r);
	llm_http_limits(llm, e);
	llm_cu.multi_add_handle(run->multi, e);
	free(url);
	r->easy = e;
	r->state = R_FLIGHT;
	r->attempt++;
	r->counted = r->why;
	r->t0 = util_now_ms();
	r->sent_at = llm_log_now();
	r->unread = 0;
	r->estimated = 0;
	free(r->reply);
	r->reply = NULL;
	llm_count_request(llm, r->job->call, r->why);
	r->job->call->attempts++;
	run->inflight++;
	JobState *js = r->job->priv;
	js->started = 1;
	if (js->t0 == 0)
		js->t0 = util_now_ms();
}

/* The job is over (done, failed or cancelled): tell llm.c. */
static void job_finish(HttpRun *run, LlmJob *job, LlmCallStatus st)
{
	JobState *js = job->priv;
	if (js->finished)
		return;
	js->finished = 1;
	for (int i = 0; i < run->nr; i++)
		if (run->r[i]->job == job && run->r[i]->state != R_DONE) {
			req_detach(run, run->r[i], 1);
			run->r[i]->state = R_DONE;
		}
	job->status = st;
	if (js->t0 > 0)
		job->call->ms = util_now_ms() - js->t0;
	if (st == LLM_FAILED) {
		job->error = js->error ? xstrdup(js->error) : xstrdup("the request failed");
		job->fatal = js->fatal;
		job->capped = js->capped;
	}
	if (st != LLM_CANCELLED && run->done(run->ctx, job))
		run->stop = 1;
}

static void job_fail(HttpRun *run, LlmJob *job, char *error, int fatal)
{
	JobState *js = job->priv;
	if (!js->error)
		js->error = error;
	else
		free(error);
	js->fatal |= fatal;
	job_finish(run, job, LLM_FAILED);
}

/* An error that concerns every call: fail them all with it, without asking again. */
static void fail_all(HttpRun *run, LlmJob *first, char *error)
{
	char *copy = xstrdup(error);
	job_fail(run, first, error, 1);
	for (int i = 0; i < run->nr; i++) {
		LlmJob *j = run->r[i]->job;
		if (!((JobState *)j->priv)->finished)
			job_fail(run, j, xstrdup(copy), 1);
	}
	free(copy);
}

/* One request finished with results written: the job ends when its last one does. */
static void req_ok(HttpRun *run, LlmHttpReq *r)
{
	r->state = R_DONE;
	JobState *js = r->job->priv;
	if (--js->pending == 0 && !js->finished)
		job_finish(run, r->job, LLM_DONE);
}

static double backoff_ms(HttpRun *run, int attempt)
{
	double d = run->llm->s.backoff_ms;
	for (int i = 1; i < attempt && d < 30000; i++)
		d *= 2;
	if (d > 30000)
		d = 30000;
	/* full jitter over the upper half: spreads retries of many requests apart */
	run->llm->rng = run->llm->rng * 1103515245u + 12345u;
	double u = ((run->llm->rng >> 8) & 0xffff) / 65536.0;
	return d * (0.5 + 0.5 * u);
}

/* Retry r after a delay, or fail its job when it has used its retries. */
static void retry(HttpRun *run, LlmHttpReq *r, long retry_after_s, char *why_final)
{
	if (r->attempt > run->llm->s.retries) {
		job_fail(run, r->job, why_final, 0);
		return;
	}
	free(why_final);
	double d = retry_after_s > 0
	           ? (retry_after_s > 120 ? 120000.0 : (double)retry_after_s * 1000.0)
	           : backoff_ms(run, r->attempt);
	r->not_before = util_now_ms() + d;
	r->state = R_QUEUED;
	r->why = LLM_REQ_RETRY;
}

/* Carries out what llm_http_err.c read a failed attempt to call for. */
static void on_error(HttpRun *run, LlmHttpReq *r, LlmHttpErr v)
{
	switch (v.act) {
	case LLM_HTTP_AGAIN:   /* the field the endpoint refused is left out from now on */
		req_body(run, r);
		r->state = R_QUEUED;
		r->not_before = 0;
		r->why = LLM_REQ_RETRY;
		break;
	case LLM_HTTP_RETRY:
		retry(run, r, v.retry_after, v.msg);
		break;
	case LLM_HTTP_FAIL:
		job_fail(run, r->job, v.msg, 0);
		break;
	case LLM_HTTP_FAIL_ALL:
		fail_all(run, r->job, v.msg);
		break;
	}
}

/* A reply without usage: its tokens estimated from the request's and the reply's bytes
   (TEXT_BYTES_PER_TOKEN), with the cached tokens it did report (llama.cpp's timings). */
static void count_estimated(HttpRun *run, LlmHttpReq *r, size_t reply_bytes, long cached)
{
	LlmUsage u;
	memset(&u, 0, sizeof u);
	u.in = (long)(strlen(r->body) / TEXT_BYTES_PER_TOKEN);
	u.out = (long)(reply_bytes / TEXT_BYTES_PER_TOKEN);
	u.cached = cached;
	llm_count_usage(run->llm, r->job->call, &u, 1);
	r->estimated = 1;
}

/* The confidences of a verdict reply's candidates, from its log-probabilities lp (NULL:
   none came): all or none of them get one (llm_logprobs.c). */
static void read_confidence(LlmHttpReq *r, const char *text, const json_t *lp)
{
	LlmCall *c = r->job->call;
	if (c->kind != LLM_VERIFY || !r->items || r->nitems < 1 || !lp || json_is_null(lp))
		return;
	int *v = xmalloc((size_t)r->nitems * sizeof *v);
	double *conf = xmalloc((size_t)r->nitems * sizeof *conf);
	for (int k = 0; k < r->nitems; k++)
		v[k] = c->items[r->items[k]].verdict;
	if (llm_logprobs_verdicts(lp, text, v, r->nitems, conf) == r->nitems)
		for (int k = 0; k < r->nitems; k++) {
			c->items[r->items[k]].has_confidence = 1;
			c->items[r->items[k]].confidence = conf[k];
		}
	free(v);
	free(conf);
}

/* The text of a reply: read by llm_reply.c's rules. What could not be read is asked again
   once, then (for a batch) candidate by candidate, then marked unknown. A verdict reply
   whose candidates were all read takes their confidences from lp (NULL: none). */
static void read_content(HttpRun *run, LlmHttpReq *r, const char *raw, const json_t *lp)
{
	LlmJob *job = r->job;
	LlmCall *c = job->call;
	/* what the server wrote loses any secret of suql's before it becomes a value, a
	   warning, a cache entry or a line on screen (an endpoint that echoes the request) */
	char *text = llm_scrub_reply(run->llm, raw);
	int *bad = xmalloc(((size_t)r->nitems + 1) * sizeof *bad);
	int nbad = llm_read_reply(c, r->items, r->nitems, text, bad);
	if (llm_log_wanted(run->llm)) {   /* the raw reply, for the log (masked as written) */
		free(r->reply);
		r->reply = xstrdup(raw);
	}
	r->unread = nbad;
	if (nbad == 0)
		read_confidence(r, text, lp);
	if (nbad > 0 && !r->reasked) {
		/* ask again, once, about what could not be read */
		int *sub = xmalloc((size_t)nbad * sizeof *sub);
		for (int k = 0; k < nbad; k++)
			sub[k] = r->items ? r->items[bad[k]] : 0;
		LlmHttpReq *s = req_new(run, job, sub, r->items ? nbad : 0, LLM_REQ_REASK);
		s->reasked = 1;
		req_body(run, s);
		free(sub);
	} else if (nbad > 0 && r->nitems > 1) {
		/* asked twice in a batch: each candidate alone */
		for (int k = 0; k < nbad; k++) {
			LlmHttpReq *s = req_new(run, job, &r->items[bad[k]], 1, LLM_REQ_SPLIT);
			s->reasked = 1;
			req_body(run, s);
		}
	} else {
		for (int k = 0; k < nbad; k++)
			llm_mark_unreadable(c, r->items ? r->items[bad[k]] : -1);
	}
	free(bad);
	free(text);
	req_ok(run, r);
}

/* A 2xx reply: read it into the call's results. */
static void on_reply(HttpRun *run, LlmHttpReq *r)
{
	LlmJob *job = r->job;
	LlmCall *c = job->call;
	json_error_t je;
	json_t *j = json_loadb(r->resp.s ? r->resp.s : "", r->resp.len, 0, &je);
	if (!j || !json_is_object(j)) {
		json_decref(j);
		retry(run, r, 0, msg(run, "the endpoint at %s sent a reply that is not valid JSON (%d "
		      "attempts; %s): check that llm.url points to an OpenAI-compatible API",
		      run->shown, r->attempt, r->resp.len ? "malformed or cut short" : "empty"));
		return;
	}
	LlmUsage usage;
	if (llm_usage_read(j, &usage))
		llm_count_usage(run->llm, c, &usage, 0);
	json_t *err = json_object_get(j, "error");
	if (err && !json_is_null(err)) {
		char *says = llm_http_says(run->llm, r);
		job_fail(run, job, msg(run, "the endpoint at %s answered with an error: %s", run->shown,
		                       says), 0);
		free(says);
		json_decref(j);
		return;
	}
	if (c->kind == LLM_EMBED) {
		json_t *emb = json_object_get(json_array_get(json_object_get(j, "data"), 0),
		                              "embedding");
		size_t n = json_array_size(emb);
		if (!json_is_array(emb) || n == 0) {
			job_fail(run, job, msg(run, "the reply from %s/embeddings holds no embedding: check "
			         "llm.embed_model", run->shown), 0);
		} else {
			free(c->vec);
			c->vec = xmalloc(n * sizeof *c->vec);
			c->dim = (int)n;
			for (size_t i = 0; i < n; i++)
				c->vec[i] = (float)json_number_value(json_array_get(emb, i));
			req_ok(run, r);
		}
		json_decref(j);
		return;
	}
	json_t *choices = json_object_get(j, "choices");
	if (!json_is_array(choices) || json_array_size(choices) == 0) {
		job_fail(run, job, msg(run, "the reply from %s has no choices: check that llm.url "
		         "points to an OpenAI-compatible chat completions API", run->shown), 0);
		json_decref(j);
		return;
	}
	json_t *m = json_object_get(json_array_get(choices, 0), "message");
	json_t *content = json_object_get(m, "content");
	if (!json_is_string(content)) {
		const char *refusal = json_string_value(json_object_get(m, "refusal"));
		const char *fin = json_string_value(json_object_get(json_array_get(choices, 0),
		                                                    "finish_reason"));
		job_fail(run, job, refusal ?
		         msg(run, "the model at %s declined to answer: %.200s", run->shown, refusal) :
		         msg(run, "the reply from %s has no message content (finish_reason %s): check "
		             "llm.model", run->shown, fin ? fin : "missing"), 0);
		json_decref(j);
		return;
	}
	const char *text = json_string_value(content);
	if (!usage.has)   /* no usage: estimated (TEXT_BYTES_PER_TOKEN) */
		count_estimated(run, r, strlen(text), usage.cached);
	read_content(run, r, text, r->logprobs ? json_object_get(json_array_get(choices, 0),
	                                                         "logprobs") : NULL);
	json_decref(j);
}

/* The end of a reply that came as an event stream. */
static void on_stream_end(HttpRun *run, LlmHttpReq *r, CURLcode cc)
{
	LlmJob *job = r->job;
	LlmStream *st = &r->st;
	if (cc == CURLE_OK)
		llm_stream_end(st);
	if (cc != CURLE_OK && !st->shown) {
		on_error(run, r, llm_http_transport_error(run->llm, run->shown, r, cc));
	} else if (st->error) {
		job_fail(run, job, msg(run, "the endpoint at %s answered with an error: %s", run->shown,
		                       st->error), 0);
	} else if (st->bad) {
		job_fail(run, job, msg(run, "the streamed reply from %s held an event that is not "
		         "JSON: check that llm.url points to an OpenAI-compatible API", run->shown), 0);
	} else if (!st->done && st->shown) {
		job_fail(run, job, msg(run, "the reply from %s broke off before its end (%s): check "
		         "the server, or ask again", run->shown,
		         cc == CURLE_OK ? "no finish_reason and no [DONE]" : llm_cu.easy_strerror(cc)), 0);
	} else if (!st->done) {
		retry(run, r, 0, msg(run, "the streamed reply from %s ended before it was complete "
		      "(%d attempts): check the server", run->shown, r->attempt));
	} else {
		if (st->tokens_in || st->tokens_out) {
			LlmUsage u = {st->tokens_in, st->tokens_out, st->tokens_cached,
			              st->tokens_reasoning, 1};
			llm_count_usage(run->llm, r->job->call, &u, 0);
		} else {   /* no usage: estimated (TEXT_BYTES_PER_TOKEN) */
			count_estimated(run, r, st->text.len, st->tokens_cached);
		}
		read_content(run, r, sb_str(&st->text), NULL);
	}
}

static void on_done(HttpRun *run, LlmHttpReq *r, CURLcode cc)
{
	long code = 0;
	curl_off_t ra = 0;
	llm_cu.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
	llm_cu.easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &ra);
	req_detach(run, r, 0);
	r->state = R_DONE;
	JobState *js = r->job->priv;
	if (js->finished) {   /* its call failed meanwhile (another request's error) */
		log_attempt(run, r, "cancelled", code, xstrdup("its call had failed already"), NULL);
		return;
	}
	Tokens before = tokens_of(r->job->call);
	if (r->sse == 1)
		on_stream_end(run, r, cc);
	else if (cc != CURLE_OK)
		on_error(run, r, llm_http_transport_error(run->llm, run->shown, r, cc));
	else if (code < 200 || code > 299)
		on_error(run, r, llm_http_status_error(run->llm, run->shown, r, code, (long)ra));
	else
		on_reply(run, r);
	/* the log says how this attempt ended: read, unreadable, or an error (the call's own
	   message when it failed for good; the cause when it is asked again) */
	int broke = cc != CURLE_OK && !(r->sse == 1 && r->st.shown);
	char *error = NULL;
	const char *status = "ok";
	if (js->finished && r->job->status == LLM_FAILED) {
		status = "error";
		error = xstrdup(r->job->error ? r->job->error : "the request failed");
	} else if (broke || code < 200 || code > 299 || r->state == R_QUEUED ||
	           (!r->reply && r->job->call->kind != LLM_EMBED)) {
		status = "error";
		error = broke ? xstrdup(llm_cu.easy_strerror(cc))
		      : code < 200 || code > 299 ? xprintf("HTTP %ld", code)
		      : xstrdup("the reply held no answer");
		if (r->state == R_QUEUED) {
			char *m = xprintf("%s: asked again", error);
			free(error);
			error = m;
		}
	} else if (r->unread) {
		status = "unreadable";
		error = xprintf("%d of %d answers could not be read: %s", r->unread,
		                r->nitems > 0 ? r->nitems : 1, !r->reasked ? "asked again"
		                : r->nitems > 1 ? "each asked alone" : "the answer is unknown");
	}
	log_attempt(run, r, status, code, error, &before);
}

void llm_http_close(Llm *llm)
{
	if (llm->multi) {
		llm_cu.multi_cleanup(llm->multi);
		llm->multi = NULL;
		llm_cu.global_cleanup();
	}
}

SuqlStatus llm_http_run(Llm *llm, LlmJob **jobs, int n, LlmJobDoneFn done, void *ctx)
{
	SuqlErr lerr = {0};
	int loaded = dynlib_load(&llm_cu_lib, &lerr) == SUQL_OK;
	if (loaded && !llm->multi) {
		llm_cu.global_init(CURL_GLOBAL_DEFAULT);
		llm->multi = llm_cu.multi_init();
	}
	HttpRun run = {0};
	run.llm = llm;
	run.multi = llm->multi;
	run.done = done;
	run.ctx = ctx;
	run.shown = llm_url_shown(llm->s.url);
	if (loaded)
		llm_cu.multi_setopt(run.multi, CURLMOPT_MAXCONNECTS, (long)llm->s.concurrency + 4);
	JobState *js = xcalloc((size_t)n + 1, sizeof *js);
	for (int i = 0; i < n; i++) {
		jobs[i]->priv = &js[i];
		LlmHttpReq *r = req_new(&run, jobs[i], jobs[i]->items, jobs[i]->nitems, LLM_REQ_FIRST);
		req_body(&run, r);
	}
	if (!loaded && n > 0)   /* nothing is sent: every call fails with the reason */
		fail_all(&run, jobs[0], xstrdup(lerr.msg));
	err_clear(&lerr);
	SuqlStatus st = SUQL_OK;
	for (;;) {
		if (suql_interrupted) {
			st = SUQL_INTERRUPT;
			break;
		}
		double now = util_now_ms(), next = -1;
		int waiting = 0, started = 0;
		for (int i = 0; i < run.nr; i++) {
			LlmHttpReq *r = run.r[i];
			JobState *j = r->job->priv;
			if (r->state != R_QUEUED)
				continue;
			if (j->finished) {
				r->state = R_DONE;
				continue;
			}
			if (run.stop && !j->started)
				continue;   /* never sent, and no longer wanted: cancelled below */
			waiting++;
			if (!r->body) {   /* never sent: no request is built from a message that failed */
				job_fail(&run, r->job, xstrdup("a message of the request could not be encoded "
				                               "as JSON: nothing was sent"), 0);
			} else if (r->not_before <= now && run.inflight < llm->s.concurrency) {
				double worst = req_worst(llm, r);
				int admit = llm_cap_admit(llm, worst, run.inflight, run.inflight_usd);
				if (admit > 0) {
					req_start(&run, r);
					r->worst = worst;
					run.inflight_usd += worst;
					started++;
				} else if (admit < 0) {
					j->capped = 1;
					job_fail(&run, r->job, xstrdup(LLM_CAP_MSG), 0);
				}   /* else it waits for a reply of those in flight */
			} else if (r->not_before > now && (next < 0 || r->not_before < next)) {
				next = r->not_before;
			}
		}
		if (waiting == 0 && run.inflight == 0)
			break;
		if (llm->tick)
			llm->tick(llm->tick_ctx, run.inflight, waiting - started);
		/* let curl start what was just added, then wait for activity (at most 50 ms, so
		   that Ctrl-C and backoff deadlines are seen promptly) */
		int running, progressed = 0;
		llm_cu.multi_perform(run.multi, &running);
		CURLMsg *m;
		int left;
		while ((m = llm_cu.multi_info_read(run.multi, &left)) != NULL) {
			if (m->msg != CURLMSG_DONE)
				continue;
			LlmHttpReq *r = NULL;
			CURLcode cc = m->data.result;
			llm_cu.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			if (r)
				on_done(&run, r, cc);
			progressed = 1;
		}
		if (progressed)
			continue;   /* results may have queued work (retries, re-asks): start it now */
		int timeout = 50;
		if (next > now && next - now < timeout)
			timeout = (int)(next - now) + 1;
		llm_cu.multi_poll(run.multi, NULL, 0, timeout, NULL);
	}
	/* stopped or interrupted: whatever is unfinished is cancelled */
	for (int i = 0; i < run.nr; i++)
		req_detach(&run, run.r[i], 1);
	for (int i = 0; i < n; i++) {
		if (!js[i].finished)
			jobs[i]->status = LLM_CANCELLED;
		free(js[i].error);
		jobs[i]->priv = NULL;
	}
	for (int i = 0; i < run.nr; i++) {
		free(run.r[i]->body);
		free(run.r[i]->prompt);
		free(run.r[i]->reply);
		free(run.r[i]->items);
		sb_free(&run.r[i]->resp);
		llm_stream_free(&run.r[i]->st);
		free(run.r[i]);
	}
	free(run.r);
	free(js);
	free(run.shown);
	return st;
}

