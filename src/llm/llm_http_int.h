/*
 * llm_http_int.h: what the OpenAI-compatible backend's files share (llm_http.c sends the
 * requests of a run; llm_http_err.c says what an error reply or a failed transfer calls
 * for; llm_http_once.c makes the one-off requests of :llm test, :llm models and bulk
 * mode): libcurl's table of functions, loaded when the first request is about to go out,
 * and one request as llm_http.c keeps it.
 *
 * Ownership: the table is filled once by dynlib_load and lives as long as the process.
 * A request (LlmHttpReq) and all it points to belong to llm_http.c's run; the other files
 * read it. A message returned by llm_http_vmsg or llm_http_says, or in an LlmHttpErr, is a
 * heap string the caller frees (or hands on).
 */
#ifndef SUQL_LLM_HTTP_INT_H
#define SUQL_LLM_HTTP_INT_H

#include "base/dynlib.h"
#include "llm/llm_int.h"

#include <curl/curl.h>
#include <stdarg.h>

#define CU_FUNCS(X) X(easy_cleanup) X(easy_getinfo) X(easy_init) X(easy_perform) X(easy_setopt) \
	X(easy_strerror) X(global_cleanup) X(global_init) X(multi_add_handle) X(multi_cleanup) \
	X(multi_info_read) X(multi_init) X(multi_perform) X(multi_poll) X(multi_remove_handle) \
	X(multi_setopt) X(slist_append) X(slist_free_all) X(mime_init) X(mime_addpart) \
	X(mime_name) X(mime_data) X(mime_filename) X(mime_type) X(mime_free)
#define CU_FIELD(f) __typeof__(curl_##f) *f;

/* libcurl's functions, by their names without curl_ (llm_cu.easy_init is curl_easy_init) */
typedef struct CuTable {
	CU_FUNCS(CU_FIELD)
} CuTable;

extern CuTable llm_cu;
extern DynLib llm_cu_lib;   /* libcurl.so.4 from libcurl4, or $SUQL_LIBCURL */

/* One request of a run: the candidates it asks about and its attempt in flight. */
typedef struct LlmHttpReq {
	LlmJob *job;
	int *items;         /* the candidates asked about: indices into the call's items (owned);
	                       NULL for kinds without candidates */
	int nitems;
	LlmReason why;      /* why the next attempt is sent */
	LlmReason counted;  /* the reason the attempt in flight was counted under */
	int state;
	int attempt;        /* attempts made */
	int reasked;        /* these candidates were asked again once already */
	int json_mode;          /* what constrained the reply: LLMP_SENT_NONE, _JSON_OBJECT, _SCHEMA */
	double not_before;  /* backoff: do not start before this time */
	char *body;
	long max_out;       /* the body's max_tokens (what a cancelled request may be billed) */
	CURL *easy;
	struct curl_slist *hdrs;
	SBuf resp;
	int oversize;
	int stream;         /* asked for a streamed reply */
	int logprobs;       /* asked for log-probabilities (llm.logprobs) */
	int cache_key;      /* carries a prompt_cache_key (llm.prompt_cache_key) */
	int sse;            /* the reply is an event stream: 0 not known yet, 1 yes, -1 no */
	size_t got;         /* bytes of the body so far */
	double worst;       /* in flight: what it costs at most (llm_cap.c) */
	LlmStream st;
	/* for the request log (llm_log.c) */
	double t0;          /* the attempt's start (util_now_ms) */
	double sent_at;     /* ... and the time it was sent (llm_log_now) */
	char *prompt;       /* the body's messages (an embedding's input), while the log is on */
	char *reply;        /* the reply's text as it came (read_content), while the log is on */
	int unread;         /* candidates of the reply that could not be read */
	int estimated;      /* its tokens were estimated */
} LlmHttpReq;

/* What every request of this backend sets alike: time limits, no signals, who asks, the
   encodings and the protocols it may follow. (llm_http.c) */
void llm_http_limits(Llm *llm, CURL *e);

/* vprintf into a heap string with every secret of llm taken out (llm_scrub) */
char *llm_http_vmsg(Llm *llm, const char *fmt, va_list ap);

/* The server's own words about an error (the reply's error.message, message or detail,
   or its body), shortened to 200 characters, printable, without secrets. Heap string. */
char *llm_http_says(Llm *llm, const LlmHttpReq *r);

/* What a failed attempt calls for (llm_http_err.c): the same request again at once with
   the body built anew (a field the endpoint refused is left out from now on: the flag on
   the Llm is set), again after a backoff or after retry_after seconds (msg is the error
   when no retry is left), the call failed with msg, or every call of the run failed with
   msg (an error that concerns them all: a key, a URL, a model). */
typedef enum { LLM_HTTP_AGAIN, LLM_HTTP_RETRY, LLM_HTTP_FAIL, LLM_HTTP_FAIL_ALL } LlmHttpAct;

typedef struct LlmHttpErr {
	LlmHttpAct act;
	char *msg;          /* NULL with LLM_HTTP_AGAIN */
	long retry_after;   /* seconds the server asked to wait (0: the backoff's own) */
} LlmHttpErr;

/* An HTTP status outside 2xx (code), with the Retry-After the server gave; shown is the
   endpoint's URL as it may be printed. */
LlmHttpErr llm_http_status_error(Llm *llm, const char *shown, const LlmHttpReq *r, long code,
                                 long retry_after);

/* A transfer libcurl could not complete (cc). */
LlmHttpErr llm_http_transport_error(Llm *llm, const char *shown, const LlmHttpReq *r,
                                    CURLcode cc);

#endif
