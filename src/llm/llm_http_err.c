/*
 * llm_http_err.c: what a failed attempt of the OpenAI-compatible backend calls for, and
 * the message that says what to fix. An HTTP error status or a transfer that broke off is
 * read here into an action (llm_http_int.h: ask again at once without a field the endpoint
 * refused, retry after a backoff, fail the call, fail every call of the run) that
 * llm_http.c carries out; nothing here touches a request's state.
 *
 * 400 to a request carrying a field suql adds (prompt_cache_key, logprobs,
 * response_format, stream) is asked again without it, and the endpoint remembered (the
 * flag on the Llm); 401, 403, 404 and an unusable URL concern every call; 408, 429, 5xx,
 * a refused connection, a timeout or a reset are retried. The server's own words are
 * quoted, shortened, printable and without secrets (llm_scrub).
 */
#include "base/util.h"
#include "llm/llm_http_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *llm_http_vmsg(Llm *llm, const char *fmt, va_list ap)
{
	char *m = xvprintf(fmt, ap);
	char *s = llm_scrub(llm, m);
	free(m);
	return s;
}

static char *msg(Llm *llm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *msg(Llm *llm, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = llm_http_vmsg(llm, fmt, ap);
	va_end(ap);
	return m;
}

char *llm_http_says(Llm *llm, const LlmHttpReq *r)
{
	const char *body = sb_str(&r->resp);
	json_t *j = json_loads(body, 0, NULL);
	const char *m = NULL;
	if (j) {
		json_t *e = json_object_get(j, "error");
		if (json_is_object(e))
			m = json_string_value(json_object_get(e, "message"));
		else if (json_is_string(e))
			m = json_string_value(e);
		if (!m)
			m = json_string_value(json_object_get(j, "message"));
		if (!m)
			m = json_string_value(json_object_get(j, "detail"));
	}
	SBuf b = SBUF_INIT;
	/* secrets out before the text is shortened: a cut never leaves the start of one */
	char *src = llm_scrub(llm, m ? m : body);
	for (size_t i = 0; src[i] && b.len < 200; i++)
		sb_putc(&b, isprint((unsigned char)src[i]) ? src[i] : ' ');
	if (src[0] && strlen(src) > 200)
		sb_puts(&b, "...");
	free(src);
	json_decref(j);
	return b.len ? sb_steal(&b) : xstrdup("(no message)");
}

static int mentions(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = s; *p; p++)
		if (strncasecmp(p, word, n) == 0)
			return 1;
	return 0;
}

static const char *endpoint(const LlmHttpReq *r)
{
	return r->job->call->kind == LLM_EMBED ? "embeddings" : "chat/completions";
}

static LlmHttpErr act(LlmHttpAct a, char *msg, long retry_after)
{
	return (LlmHttpErr){a, msg, retry_after};
}

/* A 400 explained by a field suql added, which the endpoint does not take: *flag set,
   the request asked again without it. Whether it was. */
static int without(int *flag, int cond)
{
	if (cond)
		*flag = 1;
	return cond;
}

LlmHttpErr llm_http_status_error(Llm *llm, const char *shown, const LlmHttpReq *r, long code,
                                 long retry_after)
{
	char *says = llm_http_says(llm, r);
	const char *model = r->job->call->kind == LLM_EMBED ? llm->s.embed_model
	                                                    : llmp_model(llm, r->job->call);
	LlmHttpErr v;
	/* in this order: a server that names the key refuses fields it does not know (before
	   the weaker reply formats: it named the key); an endpoint without log-probabilities
	   (a reasoning model, an older server: the verdicts then carry no confidence); the
	   schema or response_format (the next weaker form: a schema, json_object, nothing);
	   streaming (or stream_options); and last the key, which nothing else explains */
	if (code == 400 &&
	    (without(&llm->no_cache_key, r->cache_key && mentions(says, "cache_key")) ||
	     without(&llm->no_logprobs, r->logprobs && (mentions(says, "logprob") || !r->json_mode)) ||
	     without(&llm->no_schema, r->json_mode == LLMP_SENT_SCHEMA) ||
	     without(&llm->no_json_mode, r->json_mode != 0) ||
	     without(&llm->no_stream, r->stream) ||
	     without(&llm->no_cache_key, r->cache_key)))
		v = act(LLM_HTTP_AGAIN, NULL, 0);
	else if (code == 401)
		v = act(LLM_HTTP_FAIL_ALL, llm->s.key ?
		        msg(llm, "the endpoint rejected the API key (HTTP 401 from %s): set "
		                     "SUQL_LLM_KEY or OPENAI_API_KEY, or :set llm.key", shown) :
		        msg(llm, "the endpoint wants an API key (HTTP 401 from %s): set "
		                     "SUQL_LLM_KEY or OPENAI_API_KEY, or :set llm.key", shown), 0);
	else if (code == 403)
		v = act(LLM_HTTP_FAIL_ALL, msg(llm, "the endpoint refused access (HTTP 403 "
		        "from %s: %s): check that the key in llm.key may use model '%s'", shown, says,
		        model ? model : ""), 0);
	else if (code == 404 && mentions(says, "model"))
		v = act(LLM_HTTP_FAIL_ALL, msg(llm, "model '%s' not found at %s (HTTP 404): "
		        "check llm.model and the URL", model ? model : "", shown), 0);
	else if (code == 404)
		v = act(LLM_HTTP_FAIL_ALL, msg(llm, "no %s API at %s/%s (HTTP 404): check "
		        "llm.url (most servers want it to end in /v1, e.g. http://localhost:11434/v1)",
		        endpoint(r), shown, endpoint(r)), 0);
	else if (code == 429)
		v = act(LLM_HTTP_RETRY, msg(llm, "the endpoint is still limiting the request "
		        "rate after %d attempts (HTTP 429 from %s: %s): lower concurrency (:set "
		        "concurrency 2) or try again later", r->attempt, shown, says), retry_after);
	else if (code >= 500 || code == 408)
		v = act(LLM_HTTP_RETRY, msg(llm, "the endpoint failed %d times (HTTP %ld from "
		        "%s: %s): the server may be overloaded or down; try again later", r->attempt,
		        code, shown, says), retry_after);
	else if (code == 413)
		v = act(LLM_HTTP_FAIL, msg(llm, "the request was too large for the endpoint "
		        "(HTTP 413 from %s): ask about fewer rows at a time (:set batch 1)", shown), 0);
	else
		v = act(LLM_HTTP_FAIL, msg(llm, "the endpoint rejected the request (HTTP %ld "
		        "from %s: %s): check llm.model and llm.url", code, shown, says), 0);
	free(says);
	return v;
}

LlmHttpErr llm_http_transport_error(Llm *llm, const char *shown, const LlmHttpReq *r,
                                    CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
		return act(LLM_HTTP_RETRY, msg(llm, "cannot connect to %s (connection "
		           "refused, %d attempts): is the server running? check llm.url", shown,
		           r->attempt), 0);
	case CURLE_OPERATION_TIMEDOUT:
		/* a server that hangs twice: no more waiting */
		return act(r->attempt >= LLM_TIMEOUT_ATTEMPTS ? LLM_HTTP_FAIL : LLM_HTTP_RETRY,
		           msg(llm, "no reply from %s within %g s (%d attempts): raise "
		           "llm.timeout or check the server", shown, llm->s.timeout_ms / 1000.0,
		           r->attempt), 0);
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return act(LLM_HTTP_RETRY, msg(llm, "the connection to %s broke off (%s; %d "
		           "attempts): check the server", shown, llm_cu.easy_strerror(cc),
		           r->attempt), 0);
	case CURLE_WRITE_ERROR:
		if (r->oversize)
			return act(LLM_HTTP_FAIL, msg(llm, "the reply from %s is larger than %u "
			           "MiB: check that llm.url points to an OpenAI-compatible API", shown,
			           LLM_MAX_REPLY >> 20), 0);
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
		return act(LLM_HTTP_FAIL_ALL, msg(llm, "cannot resolve the host of %s: check "
		           "llm.url", shown), 0);
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return act(LLM_HTTP_FAIL_ALL, msg(llm, "llm.url %s is not a usable http(s) "
		           "URL: check llm.url", shown), 0);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
		return act(LLM_HTTP_FAIL_ALL, msg(llm, "TLS with %s failed (%s): check the URL "
		           "and the system's certificates", shown, llm_cu.easy_strerror(cc)), 0);
	default:
		break;
	}
	return act(LLM_HTTP_FAIL, msg(llm, "the request to %s failed: %s", shown,
	           llm_cu.easy_strerror(cc)), 0);
}
