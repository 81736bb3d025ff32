/* The HTTP backend against build/llmserver on the loopback: the exact request (model,
   messages, temperature 0, response_format, Authorization), requests in flight up to the
   concurrency, retries (429 with Retry-After, 500, a timeout, a refused connection), the
   error text for 401 and 404, bad bodies (truncated, garbage, no choices, no content),
   batch replies of the wrong length, an endpoint that refuses response_format, the cache,
   de-duplication, cancellation through the done callback, Ctrl-C, embeddings, the key
   kept out of every message and the cache file, and streamed replies (the event reader
   fed a byte at a time, pieces handed over as they come, an endpoint that refuses to
   stream, a stream that breaks off). */
#include "base/secret.h"
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"
#include "unit_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEY "sk-test-SECRET-7f3a9c1d2e4b"

static char dir[256], server_bin[256], url[128], logpath[300];
static int nserver;

static void stop_server(void)
{
	unit_server_stop();
}

/* Start build/llmserver with the given extra arguments (NULL-terminated). */
static int start_server(const char *rules_json, ...)
{
	nserver++;
	char rulesf[300];
	snprintf(logpath, sizeof logpath, "%s/log%d", dir, nserver);
	snprintf(rulesf, sizeof rulesf, "%s/rules%d", dir, nserver);
	const char *pre[] = {"--log", logpath, "--rules", rulesf};
	if (rules_json) {
		FILE *f = fopen(rulesf, "w");
		fputs(rules_json, f);
		fclose(f);
	}
	va_list ap;
	va_start(ap, rules_json);
	const char *first = va_arg(ap, const char *);
	int ok = unit_server_startv(server_bin, dir, url, sizeof url, pre, rules_json ? 4 : 2,
	                            first, ap);
	va_end(ap);
	return ok;
}

/* The requests the server logged. */
static json_t *server_log(void)
{
	json_t *arr = json_array();
	FILE *f = fopen(logpath, "r");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		if (j)
			json_array_append_new(arr, j);
	}
	free(line);
	if (f)
		fclose(f);
	return arr;
}

/* The most requests the server had in flight at once, over the logged requests. */
static json_int_t max_inflight(json_t *log)
{
	json_int_t maxi = 0;
	for (size_t i = 0; i < json_array_size(log); i++) {
		json_int_t m = json_integer_value(json_object_get(json_array_get(log, i), "max_inflight"));
		if (m > maxi)
			maxi = m;
	}
	return maxi;
}

static size_t nrequests(void)
{
	json_t *l = server_log();
	size_t n = json_array_size(l);
	json_decref(l);
	return n;
}

static json_t *request_body(json_t *log, size_t i)
{
	const char *b = json_string_value(json_object_get(json_array_get(log, i), "body"));
	return b ? json_loads(b, 0, NULL) : NULL;
}

static Llm *open_llm(const char *model, int concurrency)
{
	LlmConfig cfg = {0};
	cfg.url = url;
	cfg.key = KEY;
	cfg.model = model;
	cfg.embed_model = "emb-1";
	cfg.no_cache = 1;
	cfg.concurrency = concurrency;
	cfg.retries = 3;
	cfg.timeout_ms = 5000;
	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	if (llm)
		llm_set(llm, "llm.backoff", "10ms", &err);
	err_clear(&err);
	return llm;
}

/* n VERIFY calls with one candidate each (distinct texts), or k candidates in one call */
typedef struct Batch {
	LlmCall c[16];
	LlmCall *p[16];
	LlmItem it[16][4];
	const char *ps[16][4][1];
	char text[16][4][64];
	int n;
} Batch;

static const char *yes1[1] = {"Yes"};

static void batch_init(Batch *b, int ncalls, int nitems, const char *tag)
{
	memset(b, 0, sizeof *b);
	b->n = ncalls;
	for (int i = 0; i < ncalls; i++) {
		for (int k = 0; k < nitems; k++) {
			snprintf(b->text[i][k], sizeof b->text[i][k], "%s text %d.%d, cozy and calm.", tag, i, k);
			b->ps[i][k][0] = b->text[i][k];
			b->it[i][k].passages = b->ps[i][k];
			b->it[i][k].npassages = 1;
		}
		b->c[i].kind = LLM_VERIFY;
		b->c[i].shape = LLM_SHAPE_YESNO;
		b->c[i].question = "Is it quiet?";
		b->c[i].op = "=";
		b->c[i].expected = yes1;
		b->c[i].nexpected = 1;
		b->c[i].items = b->it[i];
		b->c[i].nitems = nitems;
		b->p[i] = &b->c[i];
	}
}

static void batch_clear(Batch *b)
{
	for (int i = 0; i < b->n; i++)
		llm_call_clear(&b->c[i]);
}

static int no_key(const char *s)
{
	return !s || strstr(s, KEY) == NULL;
}

static void test_request_shape(void)
{
	if (!start_server(NULL, NULL))
		return;
	Llm *llm = open_llm("m1", 8);
	SuqlErr err = {0};
	Batch b;
	batch_init(&b, 1, 1, "shape");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].status == LLM_DONE,
	      "http: single verify done");
	json_t *log = server_log();
	json_t *r0 = json_array_get(log, 0);
	CHECK_STR(json_string_value(json_object_get(r0, "method")), "POST", "http: POST");
	CHECK_STR(json_string_value(json_object_get(r0, "path")), "/v1/chat/completions",
	          "http: path {base}/chat/completions");
	json_t *h = json_object_get(r0, "headers");
	CHECK_STR(json_string_value(json_object_get(h, "authorization")), "Bearer " KEY,
	          "http: Authorization header");
	CHECK_STR(json_string_value(json_object_get(h, "content-type")), "application/json",
	          "http: content type");
	json_t *body = request_body(log, 0);
	CHECK_STR(json_string_value(json_object_get(body, "model")), "m1", "http: model");
	CHECK(json_is_integer(json_object_get(body, "temperature")) &&
	      json_integer_value(json_object_get(body, "temperature")) == 0, "http: temperature 0");
	json_t *msgs = json_object_get(body, "messages");
	CHECK(json_array_size(msgs) == 2 &&
	      strcmp(json_string_value(json_object_get(json_array_get(msgs, 0), "role")), "system") == 0 &&
	      strcmp(json_string_value(json_object_get(json_array_get(msgs, 1), "role")), "user") == 0,
	      "http: a system and a user message");
	const char *user = json_string_value(json_object_get(json_array_get(msgs, 1), "content"));
	CHECK(user && strstr(user, "shape text 0.0") && strstr(user, "Is it quiet?") &&
	      strstr(user, "yes or no"), "http: the prompt holds the text, question and format");
	CHECK(json_object_get(body, "response_format") == NULL, "http: no response_format for yes/no");
	CHECK(json_integer_value(json_object_get(body, "max_tokens")) > 0, "http: max_tokens set");
	CHECK(b.c[0].tokens_in > 0 && b.c[0].tokens_out > 0, "http: usage counted");
	json_decref(body);
	json_decref(log);
	batch_clear(&b);

	/* three candidates: one request asking for a JSON list */
	batch_init(&b, 1, 3, "batch");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK, "http: batch done");
	log = server_log();
	body = request_body(log, 1);
	json_t *rf = json_object_get(body, "response_format");
	CHECK_STR(json_string_value(json_object_get(rf, "type")), "json_schema",
	          "http: response_format json_schema for a batch (llm.schema auto: openai)");
	CHECK(json_is_true(json_object_get(json_object_get(rf, "json_schema"), "strict")),
	      "http: the schema is strict");
	user = json_string_value(json_object_get(json_array_get(json_object_get(body, "messages"), 1),
	                                         "content"));
	json_t *cands = user && strstr(user, "### Candidates\n") ?
	                json_loads(strstr(user, "### Candidates\n") + 15, 0, NULL) : NULL;
	CHECK(json_array_size(cands) == 3 && strstr(user, "exactly 3") &&
	      strstr(user, "### Question") < strstr(user, "### Candidates"),
	      "http: the batch prompt lists the 3 candidates in a JSON list, after the question");
	json_decref(cands);
	CHECK(json_array_size(log) == 2, "http: one request for three candidates");
	CHECK(b.c[0].items[0].text && b.c[0].items[1].text && b.c[0].items[2].text,
	      "http: every candidate answered");
	CHECK(llm_stats_session(llm)->total.items == 4, "http: items counted");
	json_decref(body);
	json_decref(log);
	batch_clear(&b);

	/* identical calls in one batch are sent once */
	Batch d;
	batch_init(&d, 4, 1, "same");
	strcpy(d.text[2][0], d.text[0][0]);
	strcpy(d.text[3][0], d.text[0][0]);
	size_t before = nrequests();
	llm_stats_begin(llm);
	llm_run(llm, d.p, 4, NULL, NULL, &err);
	CHECK(nrequests() - before == 2, "http: 4 calls, 2 distinct -> 2 requests");
	CHECK(llm_stats_statement(llm)->total.calls == 2 &&
	      llm_stats_statement(llm)->total.cache_hits == 2 && d.c[3].cached &&
	      d.it[3][0].verdict == d.it[0][0].verdict, "http: duplicates answered from the first");
	batch_clear(&d);

	/* embeddings */
	LlmCall e = {0};
	e.kind = LLM_EMBED;
	e.subject = "cozy cafe";
	LlmCall *pe = &e;
	CHECK(llm_run(llm, &pe, 1, NULL, NULL, &err) == SUQL_OK && e.dim == 8 && e.vec,
	      "http: embeddings");
	log = server_log();
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, json_array_size(log) - 1),
	          "path")), "/v1/embeddings", "http: path {base}/embeddings");
	json_decref(log);
	llm_call_clear(&e);
	llm_close(llm);
	err_clear(&err);

	/* a reasoning model (gpt-5, the o-series) refuses max_tokens and a temperature of 0:
	   it gets max_completion_tokens, room for its hidden reasoning included */
	llm = open_llm("gpt-5-mini", 8);
	batch_init(&b, 1, 1, "reasoning shape");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].status == LLM_DONE,
	      "http: a reasoning model's verify done");
	log = server_log();
	body = request_body(log, json_array_size(log) - 1);
	CHECK(json_object_get(body, "max_tokens") == NULL &&
	      json_object_get(body, "temperature") == NULL &&
	      json_integer_value(json_object_get(body, "max_completion_tokens")) >
	          LLM_REASONING_DEFAULT, "http: a reasoning model gets max_completion_tokens "
	      "(its reasoning's room included) and no temperature");
	json_decref(body);
	json_decref(log);
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

static void test_concurrency(void)
{
	if (!start_server(NULL, "--delay", "300", NULL))
		return;
	Llm *llm = open_llm("m1", 8);
	SuqlErr err = {0};
	Batch b;
	batch_init(&b, 8, 1, "conc");
	CHECK(llm_run(llm, b.p, 8, NULL, NULL, &err) == SUQL_OK, "concurrency: 8 calls done");
	json_t *log = server_log();
	CHECK(json_array_size(log) == 8 && max_inflight(log) == 8, "concurrency: 8 requests in flight at once");
	json_decref(log);
	batch_clear(&b);
	llm_set(llm, "concurrency", "2", &err);
	start_server(NULL, "--delay", "100", NULL);
	llm_set(llm, "llm.url", url, &err);
	batch_init(&b, 6, 1, "conc2");
	llm_run(llm, b.p, 6, NULL, NULL, &err);
	log = server_log();
	CHECK(json_array_size(log) == 6 && max_inflight(log) == 2, "concurrency: never more than configured");
	json_decref(log);
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

static void test_retries(void)
{
	SuqlErr err = {0};
	Batch b;
	/* 429 with Retry-After: 1 second */
	start_server("[{\"status\": 429, \"headers\": {\"Retry-After\": \"1\"}, \"times\": 1,"
	             " \"json\": {\"error\": {\"message\": \"slow down\"}}}]", NULL);
	Llm *llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "r429");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].attempts == 2,
	      "retry: 429 then success, 2 attempts");
	json_t *log = server_log();
	double t0 = json_number_value(json_object_get(json_array_get(log, 0), "t_ms"));
	double t1 = json_number_value(json_object_get(json_array_get(log, 1), "t_ms"));
	CHECK(json_array_size(log) == 2 && t1 - t0 >= 990, "retry: not before Retry-After");
	json_decref(log);
	batch_clear(&b);
	llm_close(llm);

	/* Retry-After as an HTTP date, two seconds ahead */
	char rules[256], date[64];
	time_t later = time(NULL) + 2;
	struct tm tmv;
	gmtime_r(&later, &tmv);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tmv);
	snprintf(rules, sizeof rules, "[{\"status\": 503, \"headers\": {\"Retry-After\": \"%s\"},"
	         " \"times\": 1}]", date);
	start_server(rules, NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "rdate");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].attempts == 2,
	      "retry: 503 with an HTTP-date Retry-After, then success");
	log = server_log();
	t0 = json_number_value(json_object_get(json_array_get(log, 0), "t_ms"));
	t1 = json_number_value(json_object_get(json_array_get(log, 1), "t_ms"));
	CHECK(json_array_size(log) == 2 && t1 - t0 >= 990, "retry: not before the Retry-After date");
	json_decref(log);
	batch_clear(&b);
	llm_close(llm);

	/* 500 twice, then success */
	start_server("[{\"status\": 500, \"times\": 2, \"body\": \"oops\"}]", NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "r500");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].attempts == 3 &&
	      nrequests() == 3, "retry: 500 twice, 3 attempts");
	CHECK(llm_stats_session(llm)->total.requests == 3 && llm_stats_session(llm)->total.calls == 1,
	      "retry: requests counted apart from calls");
	batch_clear(&b);
	llm_close(llm);

	/* 503 every time: gives up after the retries with a clear message */
	start_server("[{\"status\": 503, \"body\": \"{\\\"error\\\": {\\\"message\\\": \\\"overloaded\\\"}}\"}]", NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "r503");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_LLM && b.c[0].attempts == 4 &&
	      nrequests() == 4, "retry: capped at retries + 1 attempts");
	CHECK(err.msg && strstr(err.msg, "HTTP 503") && strstr(err.msg, "overloaded") &&
	      strstr(err.msg, "try again later"), "retry: 503 message names cause and fix");
	batch_clear(&b);
	llm_close(llm);

	/* a hang: the timeout fires, the retry succeeds */
	start_server("[{\"fault\": \"hang\", \"times\": 1}]", NULL);
	llm = open_llm("m1", 8);
	llm_set(llm, "llm.timeout", "300ms", &err);
	batch_init(&b, 1, 1, "rhang");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].attempts == 2 &&
	      nrequests() == 2, "retry: after a timeout");
	batch_clear(&b);
	llm_close(llm);

	/* nothing listening: refused, retried, then a message */
	stop_server();
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t sl = sizeof sa;
	bind(s, (struct sockaddr *)&sa, sizeof sa);
	getsockname(s, (struct sockaddr *)&sa, &sl);
	close(s);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", ntohs(sa.sin_port));
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "refused");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_LLM && b.c[0].attempts == 4,
	      "retry: refused connection, 4 attempts");
	CHECK(err.msg && strstr(err.msg, "cannot connect") && strstr(err.msg, "connection refused") &&
	      strstr(err.msg, "llm.url"), "retry: refused message");
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

static void test_errors(void)
{
	SuqlErr err = {0};
	Batch b;
	char want[400];
	/* 401: every call fails at once, one request */
	start_server(NULL, "--key", "sk-other-key-000000000000", NULL);
	Llm *llm = open_llm("m1", 1);
	batch_init(&b, 3, 1, "e401");
	CHECK(llm_run(llm, b.p, 3, NULL, NULL, &err) == SUQL_LLM, "401: fails");
	snprintf(want, sizeof want, "the endpoint rejected the API key (HTTP 401 from %s): set "
	         "SUQL_LLM_KEY or OPENAI_API_KEY, or :set llm.key (3 calls failed)", url);
	CHECK_STR(err.msg, want, "401: message");
	CHECK(nrequests() == 1 && b.c[2].status == LLM_FAILED && b.c[0].attempts == 1,
	      "401: not retried, the other calls not sent");
	CHECK(no_key(err.msg) && no_key(b.c[1].error), "401: the key is not in the message");
	batch_clear(&b);
	llm_close(llm);

	/* 404 for an unknown model */
	start_server(NULL, "--models", "real-model", NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "e404");
	llm_run(llm, b.p, 1, NULL, NULL, &err);
	snprintf(want, sizeof want, "model 'm1' not found at %s (HTTP 404): check llm.model and the "
	         "URL", url);
	CHECK_STR(err.msg, want, "404: message");
	batch_clear(&b);
	llm_close(llm);

	/* bad bodies */
	static const struct {
		const char *rules, *needle, *name;
	} bad[] = {
		{"[{\"fault\": \"truncate\"}]", "broke off", "bad body: truncated"},
		{"[{\"fault\": \"garbage\"}]", "not valid JSON", "bad body: garbage"},
		{"[{\"fault\": \"close\"}]", "broke off", "bad body: closed without a reply"},
		{"[{\"json\": {\"choices\": []}}]", "no choices", "bad body: empty choices"},
		{"[{\"json\": {\"choices\": [{\"message\": {\"role\": \"assistant\"}}]}}]",
		 "no message content", "bad body: missing content"},
		{"[{\"json\": {\"error\": {\"message\": \"context too long\"}}}]", "context too long",
		 "bad body: an error object"},
		{"[{\"status\": 400, \"json\": {\"error\": {\"message\": \"bad max_tokens\"}}}]",
		 "HTTP 400", "400: the server's message"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		start_server(bad[i].rules, NULL);
		llm = open_llm("m1", 8);
		batch_init(&b, 1, 1, "bad");
		SuqlStatus st = llm_run(llm, b.p, 1, NULL, NULL, &err);
		CHECK(st == SUQL_LLM && b.c[0].status == LLM_FAILED && err.msg &&
		      strstr(err.msg, bad[i].needle) && !b.it[0][0].text, bad[i].name);
		if (st != SUQL_LLM || !strstr(err.msg ? err.msg : "", bad[i].needle))
			printf("# %s\n", err.msg ? err.msg : "(no message)");
		batch_clear(&b);
		llm_close(llm);
	}

	/* a reply over the 8 MiB cap: an error, not a crash or a huge allocation */
	char big[300];
	snprintf(big, sizeof big, "%s/big.json", dir);
	FILE *f = fopen(big, "w");
	fputs("{\"pad\": \"", f);
	for (int i = 0; i < 9 * 1024; i++)
		fprintf(f, "%01024d", 0);
	fputs("\"}", f);
	fclose(f);
	start_server(NULL, "--reply-file", big, NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 1, "big");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_LLM && err.msg &&
	      strstr(err.msg, "larger than 8 MiB") && nrequests() == 1, "bad body: oversized, not retried");
	batch_clear(&b);
	llm_close(llm);
	unlink(big);
	err_clear(&err);
}

static void test_batch_fallback(void)
{
	SuqlErr err = {0};
	Batch b;
	/* a batch reply of the wrong length twice: then each candidate alone */
	start_server("[{\"match\": \"### Candidate\", \"content\": \"{\\\"answers\\\": [\\\"yes\\\"]}\","
	             " \"times\": 2}]", NULL);
	Llm *llm = open_llm("m1", 8);
	batch_init(&b, 1, 3, "fb");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].status == LLM_DONE,
	      "batch fallback: done");
	CHECK(nrequests() == 5, "batch fallback: asked twice, then 3 singles");
	const LlmCounts *t = &llm_stats_session(llm)->total;
	CHECK(t->requests == 5 && t->by_reason[LLM_REQ_FIRST] == 1 &&
	      t->by_reason[LLM_REQ_REASK] == 1 && t->by_reason[LLM_REQ_SPLIT] == 3 &&
	      t->calls == 1 && t->unreadable == 0, "batch fallback: requests counted by reason");
	CHECK(b.it[0][2].text && b.it[0][1].text && b.it[0][0].text, "batch fallback: all answered");
	batch_clear(&b);
	llm_close(llm);

	/* an endpoint that rejects response_format: retried without, remembered */
	start_server(NULL, "--reject-json-mode", NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 1, 3, "nojson");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK, "json mode refused: done");
	batch_clear(&b);
	batch_init(&b, 1, 2, "nojson2");
	llm_run(llm, b.p, 1, NULL, NULL, &err);
	json_t *log = server_log();
	json_t *b0 = request_body(log, 0), *b1 = request_body(log, 1), *b2 = request_body(log, 2);
	json_t *b3 = request_body(log, 3);
	/* the schema refused, then json_object, then nothing; remembered for the next call */
	CHECK(json_array_size(log) == 4 &&
	      strcmp(json_string_value(json_object_get(json_object_get(b0, "response_format"),
	                                               "type")), "json_schema") == 0 &&
	      strcmp(json_string_value(json_object_get(json_object_get(b1, "response_format"),
	                                               "type")), "json_object") == 0 &&
	      !json_object_get(b2, "response_format") && !json_object_get(b3, "response_format"),
	      "json mode refused: retried without it and remembered");
	json_decref(b3);
	json_decref(b0);
	json_decref(b1);
	json_decref(b2);
	json_decref(log);
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

/* Replies that cannot be read: asked again (alone), then unknown, never cached; and the
   statement's cap on requests. */
static void test_unreadable_and_cap(void)
{
	SuqlErr err = {0};
	Batch b;
	char cache[300];
	snprintf(cache, sizeof cache, "%s/unread-cache.db", dir);
	start_server("[{\"content\": \"Maybe\"}]", NULL);
	LlmConfig cfg = {0};
	cfg.url = url;
	cfg.key = KEY;
	cfg.model = "m1";
	cfg.cache_path = cache;
	for (int round = 0; round < 2; round++) {
		Llm *llm = llm_open(&cfg, &err);
		batch_init(&b, 1, 1, "unread");
		CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.c[0].status == LLM_DONE &&
		      b.it[0][0].unreadable && !b.it[0][0].value && b.it[0][0].text &&
		      strcmp(b.it[0][0].text, "Maybe") == 0, "unreadable: asked again, then unknown");
		const LlmCounts *t = &llm_stats_session(llm)->total;
		CHECK(t->requests == 2 && t->by_reason[LLM_REQ_REASK] == 1 && t->unreadable == 1 &&
		      t->cache_hits == 0, round ? "unreadable: not cached, asked again next time"
		                                : "unreadable: two requests, counted");
		batch_clear(&b);
		llm_close(llm);
	}
	CHECK(nrequests() == 4, "unreadable: the server saw every request");

	/* a batch with one unreadable entry: that candidate alone is asked again */
	start_server("[{\"match\": \"### Candidate\", \"content\": \"{\\\"answers\\\": "
	             "[\\\"yes\\\", \\\"Yes and no\\\", \\\"no\\\"]}\"}, "
	             "{\"content\": \"no\"}]", NULL);
	Llm *llm = open_llm("m1", 8);
	batch_init(&b, 1, 3, "mixed");
	CHECK(llm_run(llm, b.p, 1, NULL, NULL, &err) == SUQL_OK && b.it[0][0].verdict == 1 &&
	      b.it[0][1].verdict == 0 && !b.it[0][1].unreadable && b.it[0][2].verdict == 0,
	      "mixed batch: the good entries kept, the bad one asked again alone");
	CHECK(nrequests() == 2 && llm_stats_session(llm)->total.by_reason[LLM_REQ_REASK] == 1,
	      "mixed batch: two requests");
	batch_clear(&b);
	llm_close(llm);

	/* the cap: no request past it */
	start_server(NULL, NULL);
	llm = open_llm("m1", 1);
	llm_stats_begin(llm);
	llm_set_cap(llm, 2);
	batch_init(&b, 4, 1, "cap");
	SuqlStatus st = llm_run(llm, b.p, 4, NULL, NULL, &err);
	CHECK(st == SUQL_BUDGET && b.c[0].status == LLM_DONE && b.c[1].status == LLM_DONE &&
	      b.c[3].status == LLM_FAILED && err.msg && strstr(err.msg, "budget"),
	      "cap: two calls made, the rest stopped");
	CHECK(nrequests() == 2 && llm_stats_statement(llm)->total.requests == 2,
	      "cap: never more requests than the cap");
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

static int stop_first(void *ctx, LlmCall *c)
{
	(void)c;
	return ++*(int *)ctx >= 1;
}

static void *interrupt_later(void *arg)
{
	(void)arg;
	usleep(300000);
	suql_interrupted = 1;
	return NULL;
}

static void test_cancel_and_cache(void)
{
	SuqlErr err = {0};
	Batch b;
	start_server(NULL, "--delay", "200", NULL);
	Llm *llm = open_llm("m1", 2);
	batch_init(&b, 6, 1, "cancel");
	int seen = 0;
	CHECK(llm_run(llm, b.p, 6, stop_first, &seen, &err) == SUQL_OK, "cancel: run returns OK");
	int done = 0, cancelled = 0;
	for (int i = 0; i < 6; i++) {
		done += b.c[i].status == LLM_DONE;
		cancelled += b.c[i].status == LLM_CANCELLED;
	}
	/* the call sent with the first is seen through (and told); the waiting ones are not sent */
	CHECK(seen == 2 && done == 2 && cancelled == 4, "cancel: 2 done, 4 cancelled");
	CHECK(llm_stats_session(llm)->total.cancelled == 4, "cancel: counted");
	CHECK(nrequests() == 2 && llm_stats_session(llm)->total.requests == 2,
	      "cancel: the waiting calls were never sent");
	batch_clear(&b);
	llm_close(llm);

	/* Ctrl-C while the server hangs */
	start_server("[{\"fault\": \"hang\"}]", NULL);
	llm = open_llm("m1", 8);
	batch_init(&b, 2, 1, "intr");
	pthread_t th;
	pthread_create(&th, NULL, interrupt_later, NULL);
	SuqlStatus st = llm_run(llm, b.p, 2, NULL, NULL, &err);
	pthread_join(th, NULL);
	suql_interrupted = 0;
	CHECK(st == SUQL_INTERRUPT && b.c[0].status == LLM_CANCELLED, "interrupt: stops the run");
	/* both are normally at the server by then; whichever are, and only those, count */
	long sent = llm_stats_session(llm)->total.requests;
	CHECK(sent >= 1 && (size_t)sent == nrequests() &&
	      llm_stats_session(llm)->total.in_flight_cancelled == sent,
	      "interrupt: requests sent and dropped are counted as cancelled in flight");
	batch_clear(&b);
	llm_close(llm);

	/* the cache file: a second session sends nothing; the key is not in the file */
	start_server(NULL, NULL);
	char cache[300];
	snprintf(cache, sizeof cache, "%s/cache.db", dir);
	LlmConfig cfg = {0};
	cfg.url = url;
	cfg.key = KEY;
	cfg.model = "m1";
	cfg.cache_path = cache;
	for (int round = 0; round < 2; round++) {
		llm = llm_open(&cfg, &err);
		batch_init(&b, 3, 2, "cached");
		llm_run(llm, b.p, 3, NULL, NULL, &err);
		if (round == 1)
			CHECK(llm_stats_session(llm)->total.cache_hits == 3 &&
			      llm_stats_session(llm)->total.calls == 0 && b.c[0].cached &&
			      b.it[2][1].text != NULL, "cache: the second session is answered from the file");
		batch_clear(&b);
		llm_close(llm);
	}
	CHECK(nrequests() == 3, "cache: no request the second time");
	size_t len = 0;
	char *bytes = util_read_file(cache, &len);
	int found = 0;
	for (size_t i = 0; bytes && i + strlen(KEY) <= len && !found; i++)
		found = memcmp(bytes + i, KEY, strlen(KEY)) == 0;
	CHECK(bytes && !found, "cache: the key is not in the cache file");
	free(bytes);
	/* a different model is a different key */
	cfg.model = "m2";
	llm = llm_open(&cfg, &err);
	batch_init(&b, 1, 2, "cached");
	llm_run(llm, b.p, 1, NULL, NULL, &err);
	CHECK(llm_stats_session(llm)->total.calls == 1, "cache: keyed by the model");
	batch_clear(&b);
	llm_close(llm);
	err_clear(&err);
}

/* ---- streamed replies ---- */

typedef struct Pieces {
	SBuf text;
	int n;
} Pieces;

static void on_piece(void *ctx, const char *p, size_t n)
{
	Pieces *pc = ctx;
	sb_putn(&pc->text, p, n);
	pc->n++;
}

static char *scrub_key(void *ctx, const char *text)
{
	const char *secrets[] = {"sk-stream-abcdef0123456789"};
	(void)ctx;
	return secret_mask_runs(text, secrets, 1);
}

/* The event reader alone, fed one byte at a time. */
static void test_stream_reader(void)
{
	const char *body =
		": a comment\r\n"
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n"
		"event: message\n"
		"data: {\"choices\":[{\"delta\":{\"content\":\"caf\u00e9 \"}}]}\n\n"
		"data: {\"choices\":\n"
		"data: [{\"delta\":{\"content\":\"au lait\"},\"finish_reason\":null}]}\n\n"
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n\n"
		"data: [DONE]\n\n";
	Pieces pc = {SBUF_INIT, 0};
	LlmStream st = {0};
	st.on_text = on_piece;
	st.ctx = &pc;
	for (const char *p = body; *p; p++)
		llm_stream_feed(&st, p, 1);
	llm_stream_end(&st);
	CHECK_STR(sb_str(&st.text), "caf\xc3\xa9 au lait", "stream: pieces joined in order");
	/* handed over a word at a time (a secret is masked whole, llm_stream.c): "café ",
	   "au ", "lait" at the end; the empty role chunk not at all */
	CHECK(pc.n == 3 && strcmp(sb_str(&pc.text), "caf\xc3\xa9 au lait") == 0,
	      "stream: each word handed over once, in order, empty pieces not at all");
	CHECK(st.done && !st.bad && !st.error, "stream: complete, nothing unreadable");
	CHECK(st.tokens_in == 12 && st.tokens_out == 3, "stream: usage read");
	llm_stream_free(&st);
	sb_free(&pc.text);

	/* a secret cut across pieces is handed over masked whole: pieces wait for a blank */
	Pieces sp = {SBUF_INIT, 0};
	LlmStream ss = {0};
	ss.on_text = on_piece;
	ss.ctx = &sp;
	ss.scrub = scrub_key;
	const char *b4 =
		"data: {\"choices\":[{\"delta\":{\"content\":\"the key is sk-stream-ab\"}}]}\n\n"
		"data: {\"choices\":[{\"delta\":{\"content\":\"cdef0123\"}}]}\n\n"
		"data: {\"choices\":[{\"delta\":{\"content\":\"456789, sent\"}}]}\n\n"
		"data: [DONE]\n\n";
	llm_stream_feed(&ss, b4, strlen(b4));
	llm_stream_end(&ss);
	CHECK_STR(sb_str(&sp.text), "the key is ***, sent",
	          "stream: a secret cut across pieces reaches the reader masked");
	llm_stream_free(&ss);
	sb_free(&sp.text);

	LlmStream bad = {0};
	const char *b2 = "data: {\"choices\":[{\"delta\":{\"content\":\"yes\"}}]}\n\n"
	                 "data: {not json\n\n";
	llm_stream_feed(&bad, b2, strlen(b2));
	llm_stream_end(&bad);
	CHECK(bad.bad && !bad.done, "stream: an event that is not JSON spoils the reply");
	llm_stream_free(&bad);

	LlmStream er = {0};
	const char *b3 = "data: {\"error\":{\"message\":\"model\\nis overloaded\"}}";   /* no end */
	llm_stream_feed(&er, b3, strlen(b3));
	llm_stream_end(&er);
	CHECK_STR(er.error, "model is overloaded", "stream: an error chunk, even unterminated");
	llm_stream_free(&er);
}

static LlmCall respond_call(LlmMessage *m, Pieces *pc)
{
	LlmCall c = {0};
	c.kind = LLM_RESPOND;
	c.shape = LLM_SHAPE_TEXT;
	c.msgs = m;
	c.nmsgs = 1;
	if (pc) {
		c.on_text = on_piece;
		c.text_ctx = pc;
	}
	return c;
}

static void test_stream_http(void)
{
	const char *words = "Three places matched: Hoshi Sushi, Kaiten Go and Saffron.";
	char rules[512];
	snprintf(rules, sizeof rules,
	         "[{\"match\": \"refuse\", \"regex\": \"\\\"stream\\\": ?true\", \"status\": 400,"
	         "  \"body\": \"{\\\"error\\\": {\\\"message\\\": \\\"unknown field stream_options\\\"}}\"},"
	         " {\"match\": \"break\", \"fault\": \"truncate\", \"content\": \"%s\"},"
	         " {\"content\": \"%s\"}]", words, words);
	if (!start_server(rules, NULL))
		return;
	Llm *llm = open_llm("m1", 4);
	SuqlErr err = {0};
	LlmMessage m = {"user", "which places?"};
	Pieces pc = {SBUF_INIT, 0};
	LlmCall c = respond_call(&m, &pc);
	LlmCall *p = &c;
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_OK && c.status == LLM_DONE,
	      "stream: a streamed reply is done");
	CHECK_STR(c.text, words, "stream: the call holds the whole reply");
	CHECK(pc.n > 5 && strcmp(sb_str(&pc.text), words) == 0,
	      "stream: it came in pieces, word by word, and they add up to it");
	CHECK(c.tokens_in > 0 && c.tokens_out > 0, "stream: usage from the last chunk");
	json_t *log = server_log();
	json_t *body = request_body(log, 0);
	CHECK(json_is_true(json_object_get(body, "stream")) &&
	      json_is_true(json_object_get(json_object_get(body, "stream_options"), "include_usage")),
	      "stream: asked with stream: true and include_usage");
	json_decref(body);
	json_decref(log);
	llm_call_clear(&c);

	/* a call nobody reads piece by piece is not streamed */
	LlmMessage m2 = {"user", "which places, whole?"};
	LlmCall w = respond_call(&m2, NULL);
	p = &w;
	llm_run(llm, &p, 1, NULL, NULL, &err);
	log = server_log();
	body = request_body(log, json_array_size(log) - 1);
	CHECK(w.status == LLM_DONE && json_object_get(body, "stream") == NULL,
	      "stream: no on_text, no stream");
	json_decref(body);
	json_decref(log);
	llm_call_clear(&w);

	/* a stream that breaks off after pieces were shown: an error, not asked again */
	LlmMessage m3 = {"user", "break it"};
	sb_truncate(&pc.text, 0);
	pc.n = 0;
	size_t before = nrequests();
	LlmCall bk = respond_call(&m3, &pc);
	p = &bk;
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_LLM && bk.status == LLM_FAILED &&
	      pc.n > 0 && err.msg && strstr(err.msg, "broke off"),
	      "stream: broken off after pieces: failed with a message");
	CHECK(nrequests() - before == 1, "stream: a broken stream is not asked again");
	CHECK(bk.text == NULL, "stream: a broken reply is not taken for a reply");
	llm_call_clear(&bk);
	err_clear(&err);

	/* an endpoint that refuses to stream: asked again whole, and remembered */
	LlmMessage m4 = {"user", "refuse streaming"};
	sb_truncate(&pc.text, 0);
	pc.n = 0;
	before = nrequests();
	LlmCall rf = respond_call(&m4, &pc);
	p = &rf;
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_OK && rf.status == LLM_DONE &&
	      pc.n == 0 && rf.text && strcmp(rf.text, words) == 0,
	      "stream: HTTP 400 to a stream: the reply comes whole");
	CHECK(nrequests() - before == 2, "stream: one request refused, one answered");
	llm_call_clear(&rf);
	LlmMessage m5 = {"user", "refuse again"};
	LlmCall r2 = respond_call(&m5, &pc);
	p = &r2;
	before = nrequests();
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_OK && nrequests() - before == 1,
	      "stream: the refusal is remembered");
	llm_call_clear(&r2);
	sb_free(&pc.text);
	llm_close(llm);
	err_clear(&err);
}

int main(void)
{
	const char *build = getenv("SUQL_BUILD") ? getenv("SUQL_BUILD") : "build";
	snprintf(server_bin, sizeof server_bin, "%s/llmserver", build);
	if (access(server_bin, X_OK) != 0) {
		printf("skip http: %s not built\n", server_bin);
		return 0;
	}
	snprintf(dir, sizeof dir, "%s/llmhttp.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	test_request_shape();
	test_concurrency();
	test_retries();
	test_errors();
	test_batch_fallback();
	test_unreadable_and_cap();
	test_cancel_and_cache();
	test_stream_reader();
	test_stream_http();
	stop_server();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return unit_done();
}
