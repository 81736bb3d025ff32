/*
 * llm.h: the one interface through which the engine and the chat agent reach a language
 * model, whichever backend serves it: an OpenAI-compatible HTTP endpoint, or the offline
 * lexical backend when none is configured.
 *
 * A caller fills LlmCall records with *what* it wants (a task: verify these candidates
 * against this question, answer, summarize, classify a literal into permitted values, or a
 * chat step with verbatim messages) and hands a batch of them to llm_run, which serves them
 * from the cache or the backend, several in flight at once, and fills in the results. The
 * wording of prompts belongs to this layer (the files in prompts/), not to callers; the offline
 * backend works from the structured fields directly and never reads a prompt.
 *
 * Ownership: the inputs of an LlmCall (strings, passages, options, messages) are borrowed
 * from the caller and must stay valid until llm_run returns. Everything llm_run writes into
 * a call or its items (text, value, warning, labels, vec, error) is heap memory owned by
 * the call; llm_call_clear frees it. An Llm is created by llm_open and freed by llm_close.
 */
#ifndef SUQL_LLM_H
#define SUQL_LLM_H

#include "base/setting.h"
#include "base/suql.h"
#include "base/util.h"

typedef enum LlmKind {
	LLM_VERIFY,    /* does each candidate's text satisfy "answer(question) <op> expected"? */
	LLM_ANSWER,    /* answer the question from each candidate's text */
	LLM_SUMMARY,   /* summarize each candidate's text */
	LLM_CLASSIFY,  /* which permitted values does a literal mean? (ENUM '=') */
	LLM_PARSE,     /* chat: answer a turn directly or write its SUQL (messages verbatim) */
	LLM_RESPOND,   /* chat: answer the user from rows (messages given verbatim) */
	LLM_EMBED,     /* embedding vector of a text */
	LLM_EXTRACT,   /* fill the fields of a spec (question: the spec, llm/spec.h) from each
	                  candidate's text: one JSON object each */
	LLM_FACTOR,    /* does a pair question (a semantic join's) factor into one property of
	                  each side, compared? (question: the join's; options and expected:
	                  example values of the left and the right side); the reply, read
	                  strictly, is text: {"factors": false} or {"factors": true, "property":
	                  "...", "values": [...], "match": "same"|"different"} */
	LLM_BULK,      /* not a call: the batch interface's own requests (upload, create, status,
	                  fetch, cancel), counted apart from the model's */
	LLM_NKINDS
} LlmKind;

/* The shape of the value the caller expects; the reply is parsed into it. */
typedef enum LlmShape {
	LLM_SHAPE_TEXT,   /* free text */
	LLM_SHAPE_YESNO,  /* VERIFY: yes or no */
	LLM_SHAPE_LIST,   /* CLASSIFY: a JSON list of strings */
	LLM_SHAPE_DATE,   /* an ISO date, YYYY-MM-DD */
	LLM_SHAPE_INT,    /* an integer */
	LLM_SHAPE_REAL,   /* a number */
	LLM_SHAPE_BOOL,   /* true or false, written "1" or "0" */
	LLM_SHAPE_JSON    /* any JSON value, returned as its text */
} LlmShape;

typedef enum LlmCallStatus {
	LLM_PENDING = 0,
	LLM_DONE,        /* results are filled in */
	LLM_FAILED,      /* error says why */
	LLM_CANCELLED    /* not needed any more (the caller's done callback said stop) */
} LlmCallStatus;

typedef struct LlmMessage {
	const char *role;      /* "system", "user" or "assistant" */
	const char *content;
} LlmMessage;

/* One candidate of a VERIFY, ANSWER, SUMMARY or EXTRACT call. A call may carry several (a batch). */
typedef struct LlmItem {
	const char *const *passages;   /* the candidate's text, most relevant passage first */
	int npassages;
	/* results */
	char *text;      /* the answer as the model wrote it (ANSWER, SUMMARY; VERIFY: "yes"/"no") */
	char *value;     /* the answer converted to the call's shape, NULL when it could not be */
	char *warning;   /* why value is NULL ("'sometime in spring' is not a date") */
	int verdict;     /* VERIFY: 1 passes, 0 fails */
	int unreadable;  /* the model's reply could not be read, asked again and alone: the answer
	                    is unknown (value NULL, verdict 0, text the last reply); never cached */
	int cached;      /* answered without a request: from the cache, or an identical item */
	char *evidence;  /* the sentence of the passages that decided, when the backend names
	                    one (the offline backend does for yes/no questions); else NULL */
	int has_confidence;   /* VERIFY: the endpoint's log-probabilities gave the verdict a
	                         confidence (llm.logprobs; llm_logprobs.c); 0: none is known */
	double confidence;    /* with has_confidence: the verdict's probability, 0 to 1 */
	char *note;      /* why the answer is unknown when the backend can say more than its
	                    reply does (the offline backend: "found no word of the question in
	                    the text"); NULL otherwise. :why shows it, nothing warns of it */
	const char *left;   /* VERIFY of a semantic join whose call mixes left values (the
	                       call's subject NULL): this candidate's left value, the candidate
	                       the right one (the match prompts, match_pairs.txt for several) */
} LlmItem;

typedef struct LlmCall {
	/* the task */
	LlmKind kind;
	LlmShape shape;
	const char *question;          /* VERIFY, ANSWER: the question (SUMMARY: NULL) */
	const char *op;                /* VERIFY: "=", "<>", "IN", "NOT IN" */
	const char *const *expected;   /* VERIFY: the value(s) compared with ("Yes"; "Rio") */
	int nexpected;
	const char *subject;           /* CLASSIFY: the literal; EMBED: the text; VERIFY: when set,
	                                  a semantic join's left value, each candidate a right
	                                  value (the match prompts) */
	const char *const *options;    /* CLASSIFY: the permitted values; ANSWER: when any, the
	                                  only answers allowed (the reply must be one of them,
	                                  or say none applies: NULL); FACTOR: the left side's
	                                  example values (expected: the right side's) */
	int noptions;
	LlmItem *items;                /* VERIFY, ANSWER, SUMMARY: the candidates */
	int nitems;
	const LlmMessage *msgs;        /* PARSE, RESPOND: the conversation, verbatim */
	int nmsgs;
	int max_tokens;                /* 0: a default for the kind */
	int proxy;                     /* VERIFY: asked of the proxy model (llm.proxy) instead of
	                                  the chat model, on the same endpoint */
	int wording;                   /* VERIFY: 1 asks with the second wording (verify2
	                                  prompts), so that two askings can be compared */
	int quotes;                    /* EXTRACT: each object also holds the words of the text
	                                  that support its fields (spec.h) */
	/* PARSE, RESPOND: when set, the HTTP backend asks for the reply as a stream (stream:
	   true) and hands each piece to on_text as it arrives (a reply from the cache or the
	   offline backend comes whole, with no call); text still gets the whole reply. A
	   stream that breaks off after pieces were handed over is not asked again. */
	void (*on_text)(void *ctx, const char *piece, size_t n);
	void *text_ctx;
	/* PARSE, RESPOND: when set, the caller's own reader; a reply it returns 0 for is handed
	   back as usual but never remembered (memo or cache), so the next turn asks again */
	int (*readable)(const char *text);

	/* results */
	LlmCallStatus status;
	char *text;           /* PARSE, RESPOND: the reply; CLASSIFY: the raw reply; FACTOR: the
	                         reply as compact JSON in the shape described at LLM_FACTOR */
	char **labels;        /* CLASSIFY: the chosen values, each one of options */
	int nlabels;
	float *vec;           /* EMBED */
	int dim;
	int tokens_in, tokens_out;
	int tokens_cached;   /* of tokens_in, served from the endpoint's prompt cache */
	int tokens_reasoning;   /* of tokens_out, hidden reasoning */
	double ms;            /* wall time of the request (0 for a cache hit) */
	int cached;           /* served from the cache, or from an identical call in the batch */
	int attempts;         /* HTTP attempts made (retries + 1) */
	int request;          /* the statement's number of the call's first request (1 for the
	                         statement's first; the server's log has them in this order when
	                         one is in flight at a time); 0: none was sent */
	int unreadable;       /* CLASSIFY, FACTOR: the reply could not be read even when asked again: no
	                         labels, text the last reply; never cached */
	char *error;          /* LLM_FAILED: what went wrong and what to fix */
} LlmCall;

/* Called as each call finishes (in completion order; calls answered by the cache first).
   Return nonzero to stop: calls none of whose requests has been sent yet end as
   LLM_CANCELLED (done is not called for them, and they cost nothing); a call already sent
   is seen through (its retries, re-asks and splits included), so that what a statement
   costs does not depend on the order replies arrive in. */
typedef int (*LlmDoneFn)(void *ctx, LlmCall *call);

/* The client's defaults, where LlmConfig leaves a value 0. */
#define LLM_CONCURRENCY 8          /* requests in flight */
#define LLM_TIMEOUT_S 60           /* seconds a request may take */
#define LLM_CONNECT_TIMEOUT_S 10   /* seconds to connect */
#define LLM_RETRIES 4
/* Attempts of a request that got no reply within the timeout (the first and one retry,
   fewer when llm.retries says so): a hanging server holds a statement about 2 minutes by
   default, not 5 times the timeout. */
#define LLM_TIMEOUT_ATTEMPTS 2
#define LLM_BACKOFF_MS 500         /* the first retry delay */

typedef struct LlmConfig {
	const char *url;           /* base URL, e.g. https://api.openai.com/v1; NULL: offline */
	const char *key;           /* API key, may be NULL */
	const char *model;         /* chat model */
	const char *embed_model;   /* embedding model; NULL: no embeddings */
	const char *cache_path;    /* NULL: $XDG_CACHE_HOME/suql/cache.db (or ~/.cache/...) */
	const char *prompts_dir;   /* NULL: the prompts built into the binary */
	int offline;               /* force the offline backend even when a URL is set */
	int no_cache;
	int concurrency;           /* requests in flight; 0: LLM_CONCURRENCY */
	int timeout_ms;            /* per request, total; 0: LLM_TIMEOUT_S */
	int connect_timeout_ms;    /* 0: LLM_CONNECT_TIMEOUT_S */
	int retries;               /* 0: LLM_RETRIES */
} LlmConfig;

/* Why an HTTP request was sent. */
typedef enum LlmReason {
	LLM_REQ_FIRST,    /* the first request of a call */
	LLM_REQ_RETRY,    /* the same again after HTTP 429, 5xx or 408, a timeout, a broken
	                     connection or a body that is not JSON */
	LLM_REQ_REASK,    /* asked again because the reply could not be read */
	LLM_REQ_SPLIT,    /* a candidate of a batch asked alone (its batch reply was unreadable
	                     twice) */
	LLM_NREASONS
} LlmReason;

typedef struct LlmCounts {
	long calls;        /* calls answered by the backend */
	long cache_hits;   /* calls answered by the cache (or an identical call) */
	long cached_items; /* candidates answered by the cache (or an identical one), in any call:
	                      a call that asked the backend about the rest counts its own */
	long cancelled;    /* calls stopped before they were answered */
	long failed;
	long items;        /* candidates carried by the calls */
	long requests;     /* HTTP requests that left suql, whatever their reason (the offline
	                      backend counts one per call it answers); a request stopped before
	                      any byte of it was sent is not counted */
	long by_reason[LLM_NREASONS];
	long in_flight_cancelled;   /* requests sent whose replies were not waited for (Ctrl-C,
	                               an error that concerns every call) */
	long unreadable;   /* candidates, and classifications, whose replies could not be read */
	long tokens_in, tokens_out;   /* from the endpoint's usage, else estimated */
	long tokens_cached;           /* the part of tokens_in the endpoint said it served from its
	                                 prompt cache (usage.prompt_tokens_details.cached_tokens,
	                                 cache_read_input_tokens; llama.cpp: timings.cache_n or
	                                 tokens_cached); 0 when it reports none */
	long tokens_reasoning;        /* the part of tokens_out the endpoint said was hidden
	                                 reasoning (completion_tokens_details.reasoning_tokens) */
	double usd;                   /* what the tokens cost: each reply priced as it was counted,
	                                 at the price of the model it came from, cached input at
	                                 the cached rate (llm_counts_usd) */
	long unpriced;                /* tokens counted while their model had no price */
	long cancelled_in;            /* the requests cancelled in flight: their input tokens,
	                                 estimated from their size (TEXT_BYTES_PER_TOKEN) */
	long cancelled_out;           /* and the most output they asked for (max_tokens) */
	double cancelled_usd;         /* what those would cost at most, where priced */
	long cancelled_unpriced;      /* of those requests, the ones whose model had no price */
	long est_in, est_out;         /* the part of tokens_in and tokens_out that was estimated
	                                 (replies without usage: TEXT_BYTES_PER_TOKEN bytes a
	                                 token, base/text.h) */
	double ms;         /* summed request time */
} LlmCounts;

typedef struct LlmStats {
	LlmCounts kind[LLM_NKINDS];
	LlmCounts total;
	double wall_ms;    /* wall time spent inside llm_run */
} LlmStats;

typedef struct Llm Llm;

/* Resolve the configuration (cfg, then the environment, then the config file) and open the
   backend and the cache. Fails only on an unusable configuration or cache file. */
Llm *llm_open(const LlmConfig *cfg, SuqlErr *err);
void llm_close(Llm *llm);

/* Serve n calls: cache first, then the backend with up to `concurrency` in flight. Identical
   calls in the batch are sent once. Only calls in LLM_PENDING are served (llm_call_clear
   makes a call pending again); others are left as they are. Returns SUQL_OK when every
   call ended DONE or CANCELLED;
   SUQL_LLM with err set (naming the cause and the fix) when a call failed for good;
   SUQL_INTERRUPT on Ctrl-C. done may be NULL. */
SuqlStatus llm_run(Llm *llm, LlmCall *const *calls, int n, LlmDoneFn done, void *ctx,
                   SuqlErr *err);

/* Free a call's results and set it back to LLM_PENDING (inputs are untouched). */
void llm_call_clear(LlmCall *call);

/* The client's settings (llm.url, llm.key, llm.model, llm.embed_model, llm.timeout, ...,
   concurrency, cache): rows over an Llm (base/setting.h), whose file keys are also those of
   the config file. llm_set sets one while running (:set). */
extern const SetTable llm_settings_table;
SuqlStatus llm_set(Llm *llm, const char *key, const char *value, SuqlErr *err);

int llm_is_offline(const Llm *llm);
int llm_has_embeddings(const Llm *llm);
/* Requests kept in flight at once (the concurrency setting). */
int llm_concurrency(const Llm *llm);
/* The chat model's name, NULL when none is configured. */
const char *llm_model(const Llm *llm);
/* Why chat calls (verify, answer, classify, ...) cannot run with this configuration, said
   with how to fix it ("no model configured: ..."), or NULL when they can. A statement is
   refused with it before it is planned. */
const char *llm_chat_problem(const Llm *llm);
/* The proxy model (llm.proxy), NULL when none is set or the backend is offline. */
const char *llm_proxy_model(const Llm *llm);
/* The embedding model's name ("" when none). */
const char *llm_embed_model(const Llm *llm);
/* One line for the banner and the counters: "offline (lexical, no language model)" or
   "gpt-4o-mini at https://api.openai.com/v1". */
const char *llm_label(const Llm *llm);
/* The directory of --prompts (LlmConfig.prompts_dir), or NULL: where callers that write
   their own messages (the chat agent) look for overriding prompt files. */
const char *llm_prompts_dir(const Llm *llm);
/* :llm test: one tiny request and three variants of it (JSON schema, log-probabilities,
   streaming), reported in out; :llm models: the endpoint's GET /models, one a line. Both
   need an endpoint (SUQL_USAGE saying how to set one); what they send is counted in the
   session's counters. (llm_probe.c) */
SuqlStatus llm_test(Llm *llm, SBuf *out, SuqlErr *err);
SuqlStatus llm_models(Llm *llm, SBuf *out, SuqlErr *err);
/* Servers on the usual local ports (127.0.0.1: 11434, 8080, 8000; or the host:port list of
   $SUQL_PROBE, "off" for none): one TCP connect each, nothing sent; a line in out for each
   found, offering it. Returns how many were found. */
int llm_probe_local(SBuf *out);
/* The :llm report: backend, URL, model, embedding model, masked key, concurrency, cache. */
void llm_describe(const Llm *llm, SBuf *out);
/* The :cache report, and clearing it. */
void llm_cache_describe(Llm *llm, SBuf *out);
/* A cache that could not be used (at open, or a later read or write failed) leaves the
   client running without it: this returns why, once, for the session to show as a warning
   (NULL otherwise); :cache and :llm keep saying it. */
const char *llm_cache_notice(Llm *llm);
SuqlStatus llm_cache_clear(Llm *llm, SuqlErr *err);

/* Learned pass rates, kept in the cache file (llm_rate.c): what names a question asked of
   a column (the caller's text, hashed), the candidates that passed and those decided so
   far. llm_rate_get: 0 when none is known (or the cache is off); llm_rate_add adds an
   observation (verdicts the model gave, never an unreadable reply's). */
int llm_rate_get(Llm *llm, const char *what, long long *passed, long long *decided);
void llm_rate_add(Llm *llm, const char *what, long long passed, long long decided);

/* A status line's view of the model's work (the REPL draws one at a terminal): while the
   HTTP backend waits for replies it calls fn with the requests on the wire and those
   waiting for a free slot or a retry, as they change and about every 50 ms. fn NULL: none.
   Calls finished so far are in llm_stats_session. */
typedef void (*LlmTickFn)(void *ctx, int inflight, int waiting);
void llm_set_tick(Llm *llm, LlmTickFn fn, void *ctx);

/* Counters since the last llm_stats_begin (the statement) and since llm_open (the session). */
void llm_stats_begin(Llm *llm);
/* The most HTTP requests (offline: calls) the statement begun last may send; 0: no limit. A
   request past it is not sent: its call fails, and llm_run returns SUQL_BUDGET. */
void llm_set_cap(Llm *llm, long max_requests);
/* ---- prices (llm_price.c) ---- */

/* The date of the built-in price list (the providers' public list prices then). */
#define LLM_PRICE_LIST_DATE "2025-11"
/* The hidden reasoning tokens a request of a reasoning model (gpt-5, o1, o3, o4-mini, ...;
   the list says which) is allowed in the plan's worst case while llm.reasoning_tokens is
   auto. */
#define LLM_REASONING_DEFAULT 4096

/* A model's price, in dollars per million tokens. */
typedef struct LlmPrice {
	double in, out;
	double cached_in;     /* input the endpoint served from its prompt cache */
	const char *from;     /* where it came from: "llm.price_in and llm.price_out", "the
	                         built-in price list of 2025-11", "the offline backend" */
	const char *entry;    /* the list's entry the model's name matched, or NULL */
	int reasoning;        /* the list says the model writes hidden reasoning tokens */
} LlmPrice;
/* The price of model (NULL: the chat model): 1 with *p filled, 0 when there is none. The
   chat model's comes from llm.price_in and llm.price_out (and llm.price_cached_in) when
   set, else from the built-in list; another model's from the list, else it is the chat
   model's; the offline backend's is 0. llm_price_list: the built-in list's alone. */
int llm_price_of(const Llm *llm, const char *model, LlmPrice *p);
int llm_price_list(const char *model, LlmPrice *p);
/* What in tokens of input (cached of them served from the prompt cache), and out tokens of
   output, cost at price p, in dollars. */
double llm_price_tokens(const LlmPrice *p, double in, double cached, double out);
/* The chat model's price in and out (llm_price_of): 1 and *from says where it came from, or
   0 when there is none. llm_cost: what the tokens cost (none of them cached), -1 when there
   is no price. llm_set_cap_usd: the statement's budget in dollars (0: none): a request is
   not sent once the statement's replies cost that much (its call fails, and llm_run
   returns SUQL_BUDGET, as with llm_set_cap). */
int llm_price(const Llm *llm, double *in, double *out, const char **from);
/* The size of a request before it is made (llm_prompt.c), for the plan's estimate and the
   caps: llm_request_bytes, the bytes of the request body a call like proto (its task; its
   candidates are not read) sends for n candidates, each with an empty text: the template,
   the question, the format asked for and the reply's schema. llm_text_bytes: the bytes a
   candidate whose text is passages[0..n) adds to that body (its text written as the
   prompt writes it, a JSON string in a JSON string). llm_max_tokens: the max_tokens a
   request for n candidates of call asks for. Bytes become tokens by the rule the counters
   use when an endpoint reports no usage (TEXT_BYTES_PER_TOKEN). */
long llm_request_bytes(Llm *llm, const LlmCall *proto, int n);
long llm_text_bytes(const char *const *passages, int n);
int llm_max_tokens(const LlmCall *call, int n);
double llm_cost(const Llm *llm, double tokens_in, double tokens_out);
void llm_set_cap_usd(Llm *llm, double usd);
/* What counted tokens cost (LlmCounts.usd), or -1 when some of them had no price. */
double llm_counts_usd(const LlmCounts *c);
/* What a finished call's tokens cost at its model's price now, -1 when there is none. */
double llm_call_usd(const Llm *llm, const LlmCall *c);
/* llm.reasoning_tokens: hidden tokens a request is allowed in the worst case (auto:
   LLM_REASONING_DEFAULT for a reasoning model of the list, else 0). */
int llm_reasoning_tokens(const Llm *llm);
/* The model a call asks (the proxy, the embedding model, the chat model; the offline
   backend's LLM_OFFLINE_ID); "" when none is configured. */
const char *llm_spend_model(const Llm *llm, const LlmCall *c);

/* ---- the session's spend (llm_spend.c) ----
   Every request, and what its reply reported and cost, is also counted on a row of the
   session's spend: one row per model asked and endpoint (its origin: scheme, host, port and
   path, without credentials or query). llm_spend_report writes it for :cost: per model (and
   per endpoint when one model was asked at two), requests, tokens in (cached) and out
   (reasoning), dollars, and the requests cancelled in flight as "may be billed"; or one
   JSON object. */
typedef struct LlmSpend {
	char *model;
	char *origin;     /* "" for the offline backend */
	int offline;
	LlmCounts n;
} LlmSpend;
int llm_spend_rows(const Llm *llm, const LlmSpend **rows);
void llm_spend_report(const Llm *llm, int json, SBuf *out);
/* "$0.0123": dollars with the precision a small sum needs ($1.23, $0.123, $0.00123). */
void llm_money(SBuf *out, double usd);

/* The caps held while requests are in flight (llm_cap.c): a request is sent only when
   its worst case (its bytes and max_tokens, or the most tokens a request of the statement
   took, whichever is more) fits in what is left with those in flight; under budget_usd
   the first request goes alone, until a reply says what the endpoint counts.
   llm_cap_room: how many more requests of in tokens, answered with at most out, fit in
   what is left of both caps (LONG_MAX: no cap). llm_capped_by: what stopped the
   statement's last stopped request (LLM_CAPPED_REQUESTS, LLM_CAPPED_USD; 0: none) and,
   for dollars, that request's worst case (*next). llm_cap_passed: whether the statement
   went past a cap anyway (an endpoint reporting more than any bound): which, by how much
   (*over: requests or dollars), and the most tokens a request took. */
enum { LLM_CAPPED_REQUESTS = 1, LLM_CAPPED_USD = 2 };
/* The statement's spend so far, as its counters price it (each reply at its model's
   price, cached input at the cached rate); -1 when there is no price. */
double llm_stmt_usd(const Llm *llm);
long llm_cap_room(const Llm *llm, double in, double out);
int llm_capped_by(const Llm *llm, double *next);
int llm_cap_passed(const Llm *llm, double *over, double *hw_in, double *hw_out);
/* Whether no endpoint is configured and the offline backend was not chosen either. */
int llm_unconfigured(const Llm *llm);
/* Whether the offline backend answers though no one chose it (no endpoint configured, neither
   --offline nor llm.offline on) and llm.offline_note is on: a script then says so. */
int llm_offline_unasked(const Llm *llm);
/* llm.min_confidence: a verdict whose confidence (LlmItem.confidence) is below it is to be
   taken as unknown; 0: off. */
double llm_min_confidence(const Llm *llm);
/* Whether llm.unreadable is "fail" (the default): a statement that met a reply it could not
   read fails (exit status 3) after showing its rows; "warn" only warns. */
int llm_unreadable_fails(const Llm *llm);
/* The identity of what answers: the model at the endpoint's origin ("gpt-4o-mini at
   https://api.openai.com/v1"; llm_endpoint.c says how the origin is written), or for the
   offline backend its version LLM_OFFLINE_ID: what an ENUM mapping is recorded against, so
   that a mapping one endpoint made is not taken as another's. */
#define LLM_OFFLINE_ID "offline-lexical-2"
const char *llm_model_id(const Llm *llm);
/* The endpoint's origin (scheme, host, port, path; never credentials or the query), as the
   keys of kept results name it; NULL for the offline backend. */
const char *llm_origin(const Llm *llm);
/* This user's mark on text suql keeps in a database (llm_sign.c): lower-case hex into
   out[65]. 0 when it cannot be made (no SHA-256): what is kept then carries no mark. */
int llm_sign(const char *text, char out[65]);
const LlmStats *llm_stats_statement(const Llm *llm);
const LlmStats *llm_stats_session(const Llm *llm);
const char *llm_kind_name(LlmKind k);
/* FACTOR: the most values a property may have. */
#define LLM_FACTOR_VALUES 12
/* FACTOR: a reply read strictly: {"factors": false}, or {"factors": true, "property": a
   question (not empty), "values": 2 to LLM_FACTOR_VALUES strings, not empty, distinct
   ignoring case, none of them "none", "match": "same" or "different"}; other keys are
   dropped. The compact JSON of what was read (heap), or NULL when the reply does not fit. */
char *llm_factor_read(const char *content);

/* ---- the request log (llm_log.c; doc/llm.md) ----
   Every request to the model and what came back (the prompt as sent, the raw reply,
   tokens, cost, latency, status), every answer the cache file gave and every call the
   offline backend answered, one row each in a SQLite file of its own ($XDG_STATE_HOME/
   suql/log.db, else ~/.local/state/suql/log.db; llm.log, llm.log_max), secrets masked.
   Rows are queued as replies come and written when what they belong to ends:
   llm_log_begin starts a statement (or a meta-command that asks the model; text borrowed
   until llm_log_end, which writes the queue), llm_log_chat a chat turn (NULL ends it; the
   statements the turn runs are numbered apart, with the turn's line). */
void llm_log_begin(Llm *llm, const char *text);
void llm_log_end(Llm *llm);
void llm_log_chat(Llm *llm, const char *turn);
/* The log's columns, in the file's order: name, SQL type, and whether its value is a
   number (written bare in JSON). */
typedef struct LlmLogColumn {
	const char *name;
	const char *type;
	int number;
} LlmLogColumn;
extern const LlmLogColumn llm_log_columns[];
extern const int llm_log_ncolumns;
/* The newest rows, newest first: v[row * llm_log_ncolumns + column] is the value as text
   (heap; NULL for NULL); total, the rows the file holds. No file yet: no rows. */
typedef struct LlmLogRows {
	int n;
	char **v;
	long long total;
} LlmLogRows;
SuqlStatus llm_log_read(Llm *llm, int newest, LlmLogRows *out, SuqlErr *err);
void llm_log_rows_free(LlmLogRows *r);
/* Delete every row (and give their room back); *removed: how many there were. */
SuqlStatus llm_log_clear(Llm *llm, long long *removed, SuqlErr *err);
/* The file the log is written to (whether or not it exists yet). */
const char *llm_log_path(const Llm *llm);
/* A log that could not be used (the file cannot be made or written): why, once, for the
   session to show as a warning; NULL otherwise. */
const char *llm_log_notice(Llm *llm);

/* ---- bulk mode (llm_bulk.c, llm_bulk_job.c; doc/bulk.md) ----
   A statement run with llm.bulk on is collected instead of answered: the model requests the
   cache cannot answer are written for a batch, one line for each request the statement
   would send (the same batched prompt, up to `batch` candidates), their calls fail with
   LLM_BULK_MSG (so nothing unanswered becomes a value), and the statement shows no rows.
   llm_bulk_submit uploads the lines and creates the batch; the job (batch id, statement,
   database, counts, where each candidate's answer is in which line) is kept in the cache
   file, so that a later suql finds it. A resume claims the job (llm_bulk_claim: one
   process at a time), llm_bulk_fetch reads a completed batch's replies into that file
   (checked: ids never sent dropped, an id seen twice used for nothing); while
   llm_bulk_answering is on, llm_run answers each candidate they cover from its line's
   reply (read as a reply over HTTP is: an unreadable one is not kept), and llm_bulk_done
   marks the job resumed once the statement ran again.
   Ownership: an LlmBulkJob's strings are heap memory, freed by llm_bulk_job_free. */
typedef struct LlmBulkJob {
	char *batch;        /* the provider's batch id */
	char *statement;    /* the statement, as typed */
	char *database;     /* the database it ran on (its path) */
	char *status;       /* validating, in_progress, finalizing, completed, failed, expired,
	                       cancelling, cancelled; then suql's own: "fetched" once its
	                       replies were kept, "running" while its statement runs again,
	                       "resumed" once it did */
	char *output_file;  /* the output file's id once completed, else NULL */
	char *error;        /* why the batch failed, when it did */
	char *owner;        /* the process resuming it ("pid start host"), NULL when none */
	char *endpoint;     /* the origin of the endpoint it was submitted to (llm_origin), NULL
	                       for a job kept before jobs recorded it */
	char *model;        /* the model it was submitted for (NULL likewise) */
	char *token;        /* the statement's job, shared by the batches that follow one
	                       another (previous): what a write marks as done in the user's
	                       database (engine_once_begin) */
	long long created;  /* seconds since the epoch */
	long long polled;   /* when its status was last read */
	long long claimed;  /* when owner claimed it */
	long requests, completed, failed;
	long units;         /* the answers its requests ask for (candidates, classifications) */
	long tokens_in, tokens_out;   /* of the replies read (llm_bulk_fetch) */
	int previous;       /* the batch this one follows (the same statement's earlier one): its
	                       sequence number, 0 for the first */
	int seq;            /* the job's number in the cache file (1, 2, ...) */
} LlmBulkJob;

/* What llm_bulk_fetch found in an output file. */
typedef struct LlmBulkFetched {
	long lines;         /* lines read (blank ones not counted) */
	long replies;       /* replies kept: lines with an id that was sent, once, status 200 */
	long unusable;      /* lines without a reply (an error, a status other than 200, not a
	                       JSON object): their answers are asked again */
	long foreign;       /* lines whose custom_id was never sent: dropped, not priced */
	long twice;         /* ids that came more than once: none of their replies is used */
} LlmBulkFetched;

/* The llm.bulk setting. */
int llm_bulk_setting(const Llm *llm);
/* Whether bulk mode can run: NULL, or why not (the offline backend, no cache file). */
const char *llm_bulk_problem(Llm *llm);
/* Collect the statement that follows (on) or stop collecting; llm_bulk_collected: the
   requests (lines) collected since on. */
void llm_bulk_collect_mode(Llm *llm, int on);
int llm_bulk_collecting(const Llm *llm);
long llm_bulk_collected(const Llm *llm);
/* What tokens a statement planned now would cost: at batch prices (llm.bulk_discount of
   llm_cost) while it is collected, else llm_cost; -1 without a price. llm_bulk_share: the
   share of the usual price that is (llm.bulk_discount while collecting, else 1). */
double llm_cost_planned(const Llm *llm, double tokens_in, double tokens_out);
double llm_bulk_share(const Llm *llm);
/* Upload the collected requests and create a batch; the job is stored and returned in job.
   previous: the job this one follows (0 for none), which is marked resumed in the same
   transaction of the cache file as this one is stored. Refused (SUQL_BUDGET) before
   anything is sent when the lines are more than the statement's budget of requests. The
   collected requests are dropped either way. */
SuqlStatus llm_bulk_submit(Llm *llm, const char *statement, const char *database,
                           int previous, LlmBulkJob *job, SuqlErr *err);
/* The stored job seq (0: the latest); SUQL_USAGE when there is none. */
SuqlStatus llm_bulk_job(Llm *llm, int seq, LlmBulkJob *job, SuqlErr *err);
/* Claim the job for this process, atomically in the cache file (job is read again from
   it): SUQL_USAGE saying who holds it, and its status, when another live process does, or
   when it was resumed already. A claim of a process that is gone is taken over.
   llm_bulk_release gives it back (the job stays as it is). */
SuqlStatus llm_bulk_claim(Llm *llm, LlmBulkJob *job, SuqlErr *err);
void llm_bulk_release(Llm *llm, LlmBulkJob *job);
/* Whether the job may be asked of the current endpoint: SUQL_OK when it was submitted to
   it (the same origin and model); SUQL_USAGE, err naming both and how to switch back, when
   it was submitted to another one (verb: what was asked, "resume", for the message), which
   never issued its id. A job kept before jobs recorded their endpoint is taken as the
   current endpoint's: SUQL_OK, with a note in *note (heap, else NULL) saying so. */
SuqlStatus llm_bulk_here(const Llm *llm, const LlmBulkJob *job, const char *verb, char **note,
                         SuqlErr *err);
/* The process that holds the job's claim and is still running (0: none, or one that is
   gone, whose claim the next resume takes over). */
long llm_bulk_taken(const LlmBulkJob *job);
/* Store a status of suql's own ("running") for the job. */
SuqlStatus llm_bulk_set_status(Llm *llm, LlmBulkJob *job, const char *status, SuqlErr *err);
/* Read the job's batch from the provider (one request) and store what it says. */
SuqlStatus llm_bulk_poll(Llm *llm, LlmBulkJob *job, SuqlErr *err);
/* Fetch a completed job's output file and keep its replies in the cache file, checked
   (LlmBulkFetched). An output that holds no usable reply at all (not JSONL) is an error,
   and nothing is kept: the job stays as it was. */
SuqlStatus llm_bulk_fetch(Llm *llm, LlmBulkJob *job, LlmBulkFetched *got, SuqlErr *err);
/* Ask the provider to cancel the job's batch. */
SuqlStatus llm_bulk_cancel(Llm *llm, LlmBulkJob *job, SuqlErr *err);
/* Answer from job's fetched replies (on) or not (off); the counts of units answered and of
   units whose answer could not be read since on. */
void llm_bulk_answering(Llm *llm, const LlmBulkJob *job, int on);
void llm_bulk_answered(const Llm *llm, long *answered, long *unreadable);
/* The job's statement ran again: its replies are forgotten, the job marked resumed and
   its claim given back, in one transaction of the cache file. */
SuqlStatus llm_bulk_done(Llm *llm, LlmBulkJob *job, SuqlErr *err);
/* Every stored job, one a line, newest first (:bulk list). */
void llm_bulk_list(Llm *llm, SBuf *out);
/* "cost: $0.00123 at batch prices (half of $0.00246; ...)" for the job's tokens, or a line
   saying there is no price; nothing when it has no tokens yet. */
void llm_bulk_cost(const Llm *llm, const LlmBulkJob *job, SBuf *out);
void llm_bulk_job_free(LlmBulkJob *job);
/* Free bulk mode's state (llm_close). */
void llm_bulk_free(Llm *llm);

#endif
