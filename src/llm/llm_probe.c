/*
 * llm_probe.c: checking a model setup. :llm test sends one tiny chat request and three
 * variants of it (with a JSON schema, asking for log-probabilities, asking for a stream)
 * and reports latency, the model that answered, what the endpoint accepted and the tokens
 * it counted; :llm models lists the endpoint's GET /models. llm_probe_local looks for a
 * server on the usual local ports (Ollama 11434, llama.cpp 8080, vLLM 8000 on 127.0.0.1,
 * or the host:port list in $SUQL_PROBE) with one TCP connect each and a short timeout: it
 * sends nothing, and what it finds is only offered, never used.
 *
 * Every request sent here is counted in the session's counters (requests, tokens), as
 * anything that goes over the wire is.
 */
#include "base/vis.h"
#include "llm/llm_int.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBE_DEFAULT "127.0.0.1:11434,127.0.0.1:8080,127.0.0.1:8000"
#define PROBE_TIMEOUT_MS 150

/* A request that left suql: counted in the session's counters and its spend, with the
   tokens its reply reports (none for a reply that is not a JSON chat completion) at the
   chat model's price. */
static void count_sent(Llm *llm, const LlmHttpOnce *r)
{
	if (!r->sent)
		return;
	json_t *j = r->code >= 200 && r->code <= 299 ? json_loads(sb_str(&r->reply), 0, NULL)
	                                              : NULL;
	LlmUsage u;
	llm_usage_read(j, &u);
	json_decref(j);
	if (u.cached > u.in)
		u.cached = u.in;
	LlmPrice p;
	int priced = llm_price_of(llm, NULL, &p);
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = LLM_PARSE;
	LlmCounts *all[2] = {&llm->sess.total, llm_spend_counts(llm, &c)};
	for (int i = 0; i < 2; i++) {
		all[i]->requests++;
		all[i]->by_reason[LLM_REQ_FIRST]++;
		all[i]->tokens_in += u.in;
		all[i]->tokens_out += u.out;
		all[i]->tokens_cached += u.cached;
		all[i]->tokens_reasoning += u.reasoning < u.out ? u.reasoning : u.out;
		if (priced)
			all[i]->usd += llm_price_tokens(&p, (double)u.in, (double)u.cached, (double)u.out);
		else
			all[i]->unpriced += u.in + u.out;
	}
}

static SuqlStatus need_endpoint(const Llm *llm, const char *what, SuqlErr *err)
{
	if (!llm_is_offline(llm) && llm->s.model)
		return SUQL_OK;
	if (!llm_is_offline(llm))
		return err_set(err, SUQL_USAGE, ":llm %s needs a model: :set llm.model NAME (:llm "
		               "models lists the endpoint's)", what);
	return err_set(err, SUQL_USAGE, ":llm %s needs an endpoint: the offline backend is "
	               "answering (set --llm-url and --model, or :set llm.url URL and :set "
	               "llm.model NAME)", what);
}

/* The body of the tiny request, with one extra member (NULL: none). Heap string. */
static char *tiny_body(const Llm *llm, const char *extra)
{
	json_t *o = json_pack("{s:s, s:[{s:s, s:s}]}", "model", llm->s.model,
	                      "messages", "role", "user", "content",
	                      "Answer with the single word yes.");
	llmp_limits(llm, llm->s.model, o, 8);
	if (extra) {
		json_t *x = json_loads(extra, 0, NULL);
		if (x)
			json_object_update(o, x);
		json_decref(x);
	}
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* A variant: whether the endpoint accepted it (a 2xx reply), as a word for the report. */
static const char *variant(Llm *llm, const char *extra, int want_stream, int want_logprobs,
                          SuqlErr *err, SuqlStatus *st)
{
	char *body = tiny_body(llm, extra);
	LlmHttpOnce r;
	*st = llm_http_once(llm, "chat/completions", body, &r, err);
	free(body);
	count_sent(llm, &r);
	const char *word = "no";
	if (*st != SUQL_OK) {
		word = "not known (the request failed)";
	} else if (r.code >= 200 && r.code <= 299) {
		word = "yes";
		if (want_stream && !r.event_stream)
			word = "accepted, but the reply came whole";
		if (want_logprobs) {
			json_t *j = json_loads(sb_str(&r.reply), 0, NULL);
			json_t *lp = j ? json_object_get(json_array_get(json_object_get(j, "choices"), 0),
			                                 "logprobs") : NULL;
			if (!lp || json_is_null(lp))
				word = "accepted, but none came back";
			json_decref(j);
		}
	} else {
		word = "no (refused)";
	}
	sb_free(&r.reply);
	if (*st == SUQL_LLM)
		err_clear(err), *st = SUQL_OK;
	return word;
}

static SuqlStatus test_run(Llm *llm, SBuf *out, SuqlErr *err)
{
	SuqlStatus s = need_endpoint(llm, "test", err);
	if (s != SUQL_OK)
		return s;
	char *shown = llm_url_shown(llm->s.url);
	char *body = tiny_body(llm, NULL);
	LlmHttpOnce r;
	s = llm_http_once(llm, "chat/completions", body, &r, err);
	free(body);
	if (s != SUQL_OK) {
		count_sent(llm, &r);
		sb_free(&r.reply);
		free(shown);
		return s;
	}
	json_t *j = json_loads(sb_str(&r.reply), 0, NULL);
	json_t *usage = json_object_get(j, "usage");
	long in = (long)json_integer_value(json_object_get(usage, "prompt_tokens"));
	long outt = (long)json_integer_value(json_object_get(usage, "completion_tokens"));
	count_sent(llm, &r);
	sb_printf(out, "endpoint: %s\n", shown);
	free(shown);
	if (r.code < 200 || r.code > 299 || !j) {
		char *text = llm_scrub(llm, sb_str(&r.reply));
		s = err_set(err, SUQL_LLM, "the test request got HTTP %ld: %.300s", r.code, text);
		free(text);
		json_decref(j);
		sb_free(&r.reply);
		return s;
	}
	/* the server's words, without suql's secrets (an endpoint may echo the request) */
	char *model = llm_scrub(llm, json_string_value(json_object_get(j, "model")));
	char *content = llm_scrub(llm, json_string_value(json_object_get(json_object_get(
	                json_array_get(json_object_get(j, "choices"), 0), "message"), "content")));
	sb_printf(out, "model: %s asked, %s answered\n", llm->s.model, model ? model : "(not said)");
	sb_printf(out, "reply: %.40s%s (HTTP %ld in ", content ? content : "(none)",
	          content && strlen(content) > 40 ? "..." : "", r.code);
	util_duration(out, r.ms, r.ms < 1000 ? 0 : 1);
	sb_puts(out, ")\n");
	free(model);
	free(content);
	if (usage)
		sb_printf(out, "tokens: %ld in, %ld out (as the endpoint counted them)\n", in, outt);
	else
		sb_puts(out, "tokens: the endpoint gave no usage (suql estimates tokens from bytes)\n");
	json_decref(j);
	sb_free(&r.reply);
	const char *schema = variant(llm, "{\"response_format\": {\"type\": \"json_schema\", "
	                             "\"json_schema\": {\"name\": \"answer\", \"schema\": {\"type\": "
	                             "\"object\", \"properties\": {\"answer\": {\"type\": "
	                             "\"string\"}}, \"required\": [\"answer\"]}}}}", 0, 0, err, &s);
	if (s != SUQL_OK)
		return s;
	sb_printf(out, "JSON schema (response_format): %s\n", schema);
	const char *lp = variant(llm, "{\"logprobs\": true, \"top_logprobs\": 2}", 0, 1, err, &s);
	if (s != SUQL_OK)
		return s;
	sb_printf(out, "log-probabilities: %s\n", lp);
	const char *st = variant(llm, "{\"stream\": true}", 1, 0, err, &s);
	if (s != SUQL_OK)
		return s;
	sb_printf(out, "streaming: %s\n", st);
	sb_puts(out, "requests: 4 sent (counted in the session's counters)\n");
	return SUQL_OK;
}

SuqlStatus llm_test(Llm *llm, SBuf *out, SuqlErr *err)
{
	llm_log_begin(llm, ":llm test");   /* its requests are logged as its own */
	SuqlStatus s = test_run(llm, out, err);
	llm_log_end(llm);
	return s;
}

static SuqlStatus models_run(Llm *llm, SBuf *out, SuqlErr *err)
{
	if (llm_is_offline(llm))
		return need_endpoint(llm, "models", err);
	LlmHttpOnce r;
	SuqlStatus s = llm_http_once(llm, "models", NULL, &r, err);
	count_sent(llm, &r);
	if (s != SUQL_OK) {
		sb_free(&r.reply);
		return s;
	}
	json_t *j = json_loads(sb_str(&r.reply), 0, NULL);
	json_t *data = json_object_get(j, "data");
	if (!json_is_array(data))
		data = json_object_get(j, "models");   /* Ollama's /api/tags shape */
	if (r.code < 200 || r.code > 299 || !json_is_array(data)) {
		char *text = llm_scrub(llm, sb_str(&r.reply));
		s = err_set(err, SUQL_LLM, "GET /models got HTTP %ld%s%.300s", r.code,
		            json_is_array(data) ? ": " : ", not a list of models: ", text);
		free(text);
	} else {
		size_t i;
		json_t *m;
		json_array_foreach(data, i, m) {
			const char *id = json_string_value(json_object_get(m, "id"));
			if (!id)
				id = json_string_value(json_object_get(m, "name"));
			if (!id)
				continue;
			SBuf v = SBUF_INIT;
			char *clean = llm_scrub(llm, id);   /* a server's text, shown safely */
			vis_put(&v, clean, strlen(clean), VIS_TEXT);
			free(clean);
			sb_printf(out, "%s%s\n", sb_str(&v),
			          llm->s.model && strcmp(id, llm->s.model) == 0 ? "  (in use)" : "");
			sb_free(&v);
		}
		if (json_array_size(data) == 0)
			sb_puts(out, "(the endpoint lists no models)\n");
	}
	json_decref(j);
	sb_free(&r.reply);
	return s;
}

SuqlStatus llm_models(Llm *llm, SBuf *out, SuqlErr *err)
{
	llm_log_begin(llm, ":llm models");   /* its requests are logged as its own */
	SuqlStatus s = models_run(llm, out, err);
	llm_log_end(llm);
	return s;
}

/* One TCP connect to host:port, waited for at most PROBE_TIMEOUT_MS; nothing is sent. */
static int listens(const char *host, const char *port)
{
	struct addrinfo hints = {0}, *ai = NULL;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &ai) != 0 || !ai)
		return 0;
	int ok = 0;
	int fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd >= 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
		if (rc == 0) {
			ok = 1;
		} else if (errno == EINPROGRESS) {
			struct pollfd p = {fd, POLLOUT, 0};
			if (poll(&p, 1, PROBE_TIMEOUT_MS) == 1) {
				int e = 0;
				socklen_t el = sizeof e;
				ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0;
			}
		}
		close(fd);
	}
	freeaddrinfo(ai);
	return ok;
}

static const char *port_name(const char *port)
{
	if (strcmp(port, "11434") == 0)
		return " (Ollama's port)";
	if (strcmp(port, "8080") == 0)
		return " (llama.cpp's port)";
	if (strcmp(port, "8000") == 0)
		return " (vLLM's port)";
	return "";
}

int llm_probe_local(SBuf *out)
{
	const char *list = getenv("SUQL_PROBE");
	if (!list)
		list = PROBE_DEFAULT;
	if (!*list || strcmp(list, "off") == 0)
		return 0;
	int found = 0;
	char *copy = xstrdup(list);
	for (char *save = NULL, *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		char *colon = strrchr(w, ':');
		if (!colon || colon == w || !colon[1])
			continue;
		*colon = '\0';
		if (!listens(w, colon + 1))
			continue;
		found++;
		sb_printf(out, "a server listens on %s:%s%s; it is not used unless you choose it: "
		          ":set llm.url http://%s:%s/v1, then :llm models and :set llm.model NAME\n",
		          w, colon + 1, port_name(colon + 1), w, colon + 1);
	}
	free(copy);
	return found;
}
