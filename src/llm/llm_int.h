/*
 * llm_int.h: what the files of the LLM client share and nobody else sees.
 *
 *   llm.c          llm_open/llm_close, llm_run (cache, de-duplication, jobs, counters)
 *   llm_config.c   settings: options, environment, config file, llm_set, llm_describe
 *   llm_endpoint.c the endpoint's origin, as the keys of kept results name it
 *   llm_cache.c    request keys (SHA-256), the SQLite cache file, the per-statement memo
 *   llm_prompt.c   tasks rendered into chat requests
 *   llm_reply.c    what a readable reply is, per task; replies read into results
 *   llm_extract.c  extract(): its requests (fields and texts as JSON, a schema) and replies
 *   spec.c         extract()'s field lists (spec.h)
 *   llm_http.c     the OpenAI-compatible backend over libcurl's multi interface
 *   llm_http_err.c what a failed attempt calls for, and its message (llm_http_int.h)
 *   llm_http_once.c one request, waited for: :llm test, :llm models, bulk mode's files
 *   llm_usage.c    a reply's usage: tokens in, out, cached and reasoning, wherever it says
 *   llm_price.c    prices: the settings, the built-in list, the dollar cap
 *   llm_spend.c    the session's spend per model and endpoint, and :cost's report
 *   llm_stream.c   a reply streamed as server-sent events
 *   llm_logprobs.c the confidence of verdicts, from a reply's log-probabilities
 *   llm_offline*.c the offline lexical backend
 *   llm_bulk.c     bulk mode: requests collected for a batch, replies read back
 *   llm_bulk_job.c bulk mode's jobs in the cache file: tables, rows, claims
 *   llm_rate.c     pass rates the engine learned, kept in the cache file
 *   llm_bulk_fetch.c a batch's output fetched and checked into its replies
 *   llm_batch.c    the provider's batch interface (files, batches) over llm_http_once
 *   llm_log.c      the request log: a row per request, cache answer and offline call
 *   llm_log_entry.c  its rows of the offline backend, the cache and one-off requests
 *
 * A batch given to llm_run is cut into units (one per candidate of VERIFY/ANSWER/SUMMARY,
 * one per call otherwise); units answered by the cache are filled at once, and the rest
 * become jobs (one per call, holding the call's unanswered candidates) that a backend
 * answers.
 *
 * Ownership: strings in LlmSettings, the templates and everything hanging off struct Llm are
 * owned by the Llm. A job's items array and error are owned by the job (llm.c frees them).
 */
#ifndef SUQL_LLM_INT_H
#define SUQL_LLM_INT_H

#include "base/text.h"
#include "llm/llm.h"

#include <jansson.h>
#include <sqlite3.h>

#define LLM_OFFLINE_VERSION LLM_OFFLINE_ID
#define LLM_OFFLINE_LABEL   "offline (lexical, no language model)"
#define LLM_DEFAULT_URL     "https://api.openai.com/v1"
#define LLM_DEFAULT_MODEL   "gpt-4o-mini"
#define LLM_MAX_REPLY       (8u << 20)   /* bytes of one HTTP reply body */

/* ---- settings (llm_config.c) ---- */

typedef struct LlmSettings {
	char *url;            /* NULL: none configured */
	char *key;
	char *model;
	char *embed_model;
	char *proxy_model;    /* llm.proxy: a cheaper chat model on the same endpoint; NULL: none */
	char *cache_path;
	char *prompts_dir;
	const char *url_from, *key_from, *model_from;   /* "option", "SUQL_LLM_URL", ... */
	int offline;          /* forced offline */
	int no_cache;
	int concurrency;
	int timeout_ms;
	int connect_timeout_ms;
	int retries;
	int backoff_ms;       /* first retry delay; doubles each time, with jitter */
	int unreadable_warn;  /* llm.unreadable = warn (0: fail) */
	int schema;           /* llm.schema: LLM_SCHEMA_AUTO ... LLM_SCHEMA_OFF */
	int offline_note;     /* llm.offline_note: a script answered offline says so (default 1) */
	double price_in, price_out;   /* llm.price_in/out, dollars per million tokens; -1: the
	                                 built-in list's (llm_price.c) */
	double price_cached_in;       /* llm.price_cached_in; -1: the list's, else price_in */
	int reasoning_tokens;         /* llm.reasoning_tokens; -1: auto (llm_reasoning_tokens) */
	int logprobs;         /* llm.logprobs: LLM_LOGPROBS_OFF, _ON or _AUTO */
	double min_confidence;   /* llm.min_confidence: a verdict whose confidence is below it is
	                            unknown (0: off) */
	int bulk;             /* llm.bulk: statements go through the batch interface */
	int prompt_cache_key; /* llm.prompt_cache_key: requests in OpenAI's dialect carry one */
	int log_off;          /* llm.log off: no request log */
	double log_max;       /* llm.log_max: megabytes the request log keeps */
	char *log_path;       /* the request log's file (llm_log_default_path, or the config
	                         file's log key) */
	double bulk_discount; /* llm.bulk_discount: a batch's price as a share of the usual */
} LlmSettings;

/* llm.logprobs (in the order of the setting's choices). The default is auto: requests stay
   as they were (byte for byte, so cache keys, request logs and servers that refuse the
   field are untouched) until something uses a confidence, which llm.min_confidence does;
   on asks always, so that :why and the record show confidences. */
enum { LLM_LOGPROBS_OFF, LLM_LOGPROBS_ON, LLM_LOGPROBS_AUTO };
/* The alternatives asked for at each token (top_logprobs): the verdict's own token and its
   opposite's spellings ("Yes", "yes", " yes", "No", ...) are among the first few. */
#define LLM_TOP_LOGPROBS 5
/* Whether a call's requests ask for log-probabilities now: a VERIFY call, llm.logprobs on
   (or auto with llm.min_confidence set), and the endpoint has not refused them. */
int llm_logprobs_wanted(const Llm *llm, const LlmCall *call);

/* llm.schema: how a request constrains the reply (in the order of the setting's choices). */
enum {
	LLM_SCHEMA_AUTO,       /* ollama for Ollama's URL, else openai; falls back when refused */
	LLM_SCHEMA_OPENAI,     /* response_format: {type: json_schema, json_schema: {...}} */
	LLM_SCHEMA_LLAMACPP,   /* json_schema: the schema (llama.cpp's server) */
	LLM_SCHEMA_OLLAMA,     /* format: the schema */
	LLM_SCHEMA_JSON_OBJECT,   /* response_format: {type: json_object} */
	LLM_SCHEMA_OFF         /* nothing */
};

SuqlStatus llm_settings_resolve(LlmSettings *s, const LlmConfig *cfg, SuqlErr *err);
void llm_settings_free(LlmSettings *s);
/* The URL without any user:password@ part (safe to print). Heap string. */
char *llm_url_shown(const char *url);
/* The key as it may be shown: "sk-…f3a9". Heap string. */
char *llm_key_masked(const char *key);
/* Copy msg with the key, the URL's credentials (and their Basic-auth form) and any
   Authorization value replaced by "***" (secret_mask). Heap string. */
char *llm_scrub(const Llm *llm, const char *msg);
/* Copy a model's reply with every run of those secrets masked (secret_mask_runs), its own
   words kept: what an endpoint that echoes the request put in a reply. Heap string. */
char *llm_scrub_reply(const Llm *llm, const char *text);
/* Recompute the label after a settings change (and the origin and model identity, with
   llm_endpoint_update). */
void llm_relabel(Llm *llm);

/* ---- the endpoint (llm_endpoint.c) ---- */

/* The origin of url as keys hold it: scheme and host in lower case, the port unless the
   scheme's default, the path without trailing slashes; no credentials, query or fragment
   ("HTTP://u:p@Host:80/v1/?k=1" -> "http://host/v1"). Heap string; NULL for no URL. */
char *llm_origin_of(const char *url);
/* Recompute llm->origin and llm->model_id from the settings. */
void llm_endpoint_update(Llm *llm);

/* ---- templates (llm_prompt.c) ---- */

enum {
	LLM_T_VERIFY, LLM_T_VERIFY_BATCH, LLM_T_ANSWER, LLM_T_ANSWER_BATCH,
	LLM_T_SUMMARY, LLM_T_SUMMARY_BATCH, LLM_T_CLASSIFY, LLM_T_MATCH, LLM_T_MATCH_BATCH,
	LLM_T_VERIFY2, LLM_T_VERIFY2_BATCH, LLM_T_EXTRACT, LLM_T_FACTOR, LLM_T_MATCH_PAIRS,
	LLM_T_N
};

/* ---- memo and cache (llm_cache.c) ---- */

typedef struct LlmMemo LlmMemo;
LlmMemo *llm_memo_new(void);
void llm_memo_free(LlmMemo *m);
void llm_memo_clear(LlmMemo *m);
const char *llm_memo_get(const LlmMemo *m, const char *key);
void llm_memo_put(LlmMemo *m, const char *key, const char *value);

typedef struct LlmCache LlmCache;
/* Open (creating directories and the file) the cache at path. NULL, and why in err, when
   it cannot be used: the directory or file cannot be made, written (read-only, disk full)
   or read, or it holds an llm_cache table that is not suql's. */
LlmCache *llm_cache_open(const char *path, SuqlErr *err);
void llm_cache_close(LlmCache *c);
/* The stored result for key, or NULL (also when the file is busy). Heap string. */
char *llm_cache_get(LlmCache *c, const char *key);
/* Queue a result; llm_cache_flush writes the queue in one transaction. */
void llm_cache_put(LlmCache *c, const char *key, const char *kind, const char *value);
void llm_cache_flush(LlmCache *c);
/* Why the file stopped being usable (a write or a read failed: full disk, read-only,
   damaged), or NULL. The client then goes on without it (llm.c). */
const char *llm_cache_failure(const LlmCache *c);
void llm_cache_report(LlmCache *c, SBuf *out);
SuqlStatus llm_cache_wipe(LlmCache *c, SuqlErr *err);
const char *llm_cache_path(const LlmCache *c);
/* The default cache path ($XDG_CACHE_HOME/suql/cache.db, else ~/.cache/suql/cache.db). */
char *llm_cache_default_path(void);
/* Load OpenSSL's libcrypto for llm_sha256_hex (SUQL_IO, with the reason, when it cannot). */
SuqlStatus llm_sha256_load(SuqlErr *err);
/* Lower-case hex SHA-256 of data into out[65]; libcrypto must be loaded. */
void llm_sha256_hex(const char *data, size_t n, char out[65]);

/* ---- the client ---- */

struct Llm {
	LlmSettings s;
	char *label;
	char *origin;          /* the endpoint's origin (llm_origin_of of s.url); NULL: none */
	char *model_id;        /* "MODEL at ORIGIN" (llm_model_id) */
	char *tmpl[LLM_T_N];   /* prompt templates */
	LlmCache *cache;       /* NULL when off or not opened */
	char *cache_why;       /* the cache was asked for but could not be used: why (NULL: it
	                          is on, or off by choice); the session runs without it */
	int cache_told;        /* cache_why was handed to llm_cache_notice */
	int cache_pending;     /* the cache file is wanted but not opened yet: it is opened by
	                          the first statement that asks the model (llm_cache_ensure), so
	                          plain SQL never touches it */
	LlmMemo *memo;         /* results of this statement (kept with the cache off too) */
	int no_json_mode;      /* the endpoint refused response_format (HTTP 400) */
	int no_schema;         /* the endpoint refused a JSON schema (HTTP 400): json_object */
	int no_stream;         /* the endpoint refused a streamed request (HTTP 400) */
	int no_logprobs;       /* the endpoint refused log-probabilities (HTTP 400) */
	int no_cache_key;      /* the endpoint refused prompt_cache_key (HTTP 400) */
	void *multi;           /* CURLM *, kept so connections are reused between runs */
	unsigned rng;          /* jitter */
	LlmStats stmt, sess;
	long cap;              /* llm_set_cap: most requests of the statement, 0: none */
	double cap_usd;        /* llm_set_cap_usd: most dollars of the statement, 0: none */
	double hw_in, hw_out;  /* the most tokens one request of the statement took (llm_cap.c) */
	long replied;          /* requests of the statement whose tokens were counted */
	int capped_by;         /* what stopped a request: LLM_CAPPED_REQUESTS or _USD, 0 none */
	double cap_next;       /* the worst case of the request the dollar cap stopped */
	long cache_hits_file;  /* units served from the cache file this session */
	struct LlmBulk *bulk;  /* bulk mode's state (llm_bulk.c); NULL until first used */
	LlmTickFn tick;        /* llm_set_tick */
	void *tick_ctx;
	LlmSpend *spend;       /* the session's spend, a row per model and endpoint
	                          (llm_spend.c) */
	int nspend;
	struct LlmLog *log;    /* the request log's queue and file (llm_log.c); NULL until
	                          first used */
};

/* Count a request as it is handed to the transport (llm_count_request), take it back when
   it turns out that none of it was sent (llm_count_unsent), count a sent request whose
   reply was not waited for, and the tokens of a reply. Live: the statement's counters
   always say what has gone over the wire so far. */
/* llm_count_request also numbers the call: LlmCall.request is set to the statement's
   request count with its first request. */
void llm_count_request(Llm *llm, LlmCall *c, LlmReason why);
void llm_count_unsent(Llm *llm, const LlmCall *c, LlmReason why);
/* A request sent whose reply was not waited for: est_in its input tokens (estimated from
   its size), max_out the most output it asked for; what they may be billed is counted. */
void llm_count_in_flight_cancelled(Llm *llm, const LlmCall *c, long est_in, long max_out);

/* What a reply says it used (llm_usage.c). */
typedef struct LlmUsage {
	long in, out;        /* prompt and completion tokens */
	long cached;         /* of in, served from the endpoint's prompt cache */
	long reasoning;      /* of out, hidden reasoning */
	int has;             /* the reply has a usage object (else the tokens are estimated) */
} LlmUsage;
/* Read a reply's (or a streamed chunk's) usage wherever the endpoint puts it: prompt_tokens
   and completion_tokens (OpenAI), else input_tokens and output_tokens with Anthropic's
   cache_read_input_tokens and cache_creation_input_tokens added to input; cached tokens
   from usage.prompt_tokens_details.cached_tokens (OpenAI, vLLM), usage.cache_read_input_
   tokens (Anthropic, and gateways that pass it on), input_tokens_details.cached_tokens,
   timings.cache_n or tokens_cached (llama.cpp's server), usage.cached_tokens; reasoning
   tokens from completion_tokens_details.reasoning_tokens or output_tokens_details.
   reasoning_tokens. Negative or non-integer figures read as 0. Returns u->has. */
int llm_usage_read(const json_t *reply, LlmUsage *u);
/* Count a reply's tokens in the call and the counters (estimated: from bytes, the reply had
   no usage), and what they cost at the price of the model the call asked: cached tokens
   count at most as many as the input, reasoning tokens at most as many as the output. */
void llm_count_usage(Llm *llm, LlmCall *c, const LlmUsage *u, int estimated);
/* Count a batch's replies, fetched (bulk mode): their tokens at the batch price. */
void llm_count_batch(Llm *llm, long in, long out);
/* The counters of the spend row of the call's model at the endpoint now (llm_spend.c). */
LlmCounts *llm_spend_counts(Llm *llm, const LlmCall *c);
void llm_spend_free(Llm *llm);
/* Whether the statement's tokens so far cost less than its dollar cap (llm_price.c). */
int llm_under_cap_usd(const Llm *llm);
/* Whether another request may be sent under the statement's cap. */
int llm_may_send(const Llm *llm);
/* The message of a call stopped by the cap. */
#define LLM_CAP_MSG "stopped at the budget"
/* llm_cap.c: the caps held while requests are in flight. llm_cap_begin forgets the last
   statement's marks; llm_cap_seen takes the tokens a reply was counted with (the
   high-water marks); llm_cap_worst: what a request of in tokens and a reply of at most
   out cost at most, the marks counted; llm_cap_admit: whether a request whose worst case
   is worst may start with inflight requests in flight (worst cases summed: inflight_usd):
   1 start it, 0 wait for a reply, -1 the cap stops it (llm_capped_by then says which). */
void llm_cap_begin(Llm *llm);
void llm_cap_seen(Llm *llm, long in, long out);
double llm_cap_worst(const Llm *llm, double in, double out);
int llm_cap_admit(Llm *llm, double worst, int inflight, double inflight_usd);


/* A request to a backend: one call, and which of its candidates still need answers. */
typedef struct LlmJob {
	LlmCall *call;
	int index;             /* the call's place in the batch given to llm_run (llm.c) */
	int *items;            /* indices into call->items; NULL for kinds without candidates */
	int nitems;
	LlmCallStatus status;  /* DONE, FAILED or CANCELLED once finished */
	char *error;           /* FAILED: the message (key scrubbed) */
	int fatal;             /* the error concerns every call (key, model, URL) */
	int capped;            /* FAILED because the statement's cap was reached */
	void *priv;            /* backend state */
} LlmJob;

/* Called as each job ends; nonzero stops the run (the rest end LLM_CANCELLED). */
typedef int (*LlmJobDoneFn)(void *ctx, LlmJob *job);

/* ---- a streamed reply (llm_stream.c) ---- */

typedef struct LlmStream {
	void (*on_text)(void *ctx, const char *piece, size_t n);   /* each piece, as it comes */
	void *ctx;
	/* what on_text is given passes through scrub (NULL: as it came), a word at a time: a
	   piece is held until a blank or the reply's end, so that a secret the text holds is
	   masked whole however the server cut it into pieces (llm_scrub) */
	char *(*scrub)(void *sctx, const char *text);
	void *sctx;
	SBuf held;            /* text not handed to on_text yet (a word not ended) */
	SBuf line;            /* the line being read */
	SBuf data;            /* the data lines of the event being read */
	SBuf text;            /* the reply so far */
	int done;             /* a finish_reason or [DONE] came: the reply is complete */
	int bad;              /* an event's data was not a JSON object */
	char *error;          /* an error chunk's message (printable, cut short) */
	int tokens_in, tokens_out;
	long tokens_cached;   /* cached prompt tokens the usage chunk reported */
	long tokens_reasoning;   /* reasoning tokens the usage chunk reported */
	int events;
	int shown;            /* pieces went to on_text (kept across llm_stream_reset) */
} LlmStream;

/* Read the next bytes of the body; llm_stream_end at its end. reset: for a new attempt. */
void llm_stream_feed(LlmStream *s, const char *p, size_t n);
void llm_stream_end(LlmStream *s);
void llm_stream_reset(LlmStream *s);
void llm_stream_free(LlmStream *s);

/* The backends. Both fill the call's and items' results and return SUQL_OK, or
   SUQL_INTERRUPT when suql_interrupted was seen (unfinished jobs are then CANCELLED). */
SuqlStatus llm_http_run(Llm *llm, LlmJob **jobs, int n, LlmJobDoneFn done, void *ctx);

/* One request to {url}/path, waited for (Ctrl-C stops it): GET when body is NULL, else a
   POST of the JSON body. SUQL_OK when an HTTP reply came (whatever its status); else err
   says why (the URL shown without credentials, the key scrubbed). res->reply is the
   caller's to free (sb_free), in every case. */
typedef struct LlmHttpOnce {
	long code;          /* the HTTP status */
	SBuf reply;         /* its body */
	int event_stream;   /* it came as text/event-stream */
	int sent;           /* the request left suql (to count it) */
	double ms;
} LlmHttpOnce;
SuqlStatus llm_http_once(Llm *llm, const char *path, const char *body, LlmHttpOnce *res,
                         SuqlErr *err);
void llm_http_close(Llm *llm);
SuqlStatus llm_offline_run(Llm *llm, LlmJob **jobs, int n, LlmJobDoneFn done, void *ctx);

/* ---- prompts and replies (llm_prompt.c) ---- */

SuqlStatus llmp_load(Llm *llm, SuqlErr *err);
void llmp_free(Llm *llm);
/* The JSON body of a chat request answering items[0..n) of call (n <= 1: the single-item
   form; kinds without candidates ignore items). *json_mode says whether response_format
   was included (when allowed and a JSON reply is wanted). */
/* The model a call is asked of: the proxy model for a proxy call (when set), else the
   chat model ("" when none). */
const char *llmp_model(const Llm *llm, const LlmCall *call);
/* The reply's limit and temperature in a request body for model: max_tokens max and
   temperature 0; for OpenAI's reasoning models of the price list (gpt-5, o1, o3, o4-mini: they
   refuse max_tokens and any temperature but their own) max_completion_tokens, which the
   hidden reasoning counts against, so max plus llm_reasoning_tokens, and no temperature. */
void llmp_limits(const Llm *llm, const char *model, json_t *body, int max);
/* What a request carries to constrain the reply (*sent of llmp_chat_body). */
enum { LLMP_SENT_NONE, LLMP_SENT_JSON_OBJECT, LLMP_SENT_SCHEMA };
/* The body of a chat request; NULL when a message could not be encoded. *sent says what
   constrains the reply: a JSON schema of the readable replies in the endpoint's dialect
   (llm.schema, unless the endpoint refused one: no_schema), json_object (unless refused:
   no_json_mode), or nothing; only requests whose reply is JSON carry either. */
json_t *llmp_chat_body(Llm *llm, const LlmCall *call, const int *items, int n, int *sent);
json_t *llmp_embed_body(Llm *llm, const LlmCall *call);
/* The messages of the single-unit form, for the cache key. */
json_t *llmp_messages(Llm *llm, const LlmCall *call, int item);
/* The word budget of a SUMMARY call (from max_tokens; 60 by default, 10 at least), asked of
   the model in the prompt and kept by the offline backend. */
int llm_summary_words(const LlmCall *call);

/* ---- extract() (llm_extract.c) ---- */

/* The messages of an EXTRACT request about items[0..n) (n < 1: item 0), the JSON schema
   of its readable replies (NULL: the spec does not read; sent in the endpoint's dialect by
   llmp_chat_body), and the reply read (as llm_read_reply). */
json_t *llmx_messages(Llm *llm, const LlmCall *c, const int *items, int n);
json_t *llmx_reply_schema(const LlmCall *c, int n);
int llmx_read_reply(LlmCall *call, const int *items, int n, const char *content, int *bad);

/* ---- reading replies (llm_reply.c) ---- */

/* A typed answer read from the whole of text: 1 with *value set (heap), 0 for an explicit
   "unknown" (*value NULL), -1 when text is not a value of the shape. */
int llm_read_value(LlmShape shape, const char *text, char **value);

/* Read the reply to a request that asked about items[0..n) of call (n <= 1: the single
   form; n = 0 for kinds without candidates). What is readable is written into the call and
   its items; the positions in items[] of the candidates whose answers could not be read are
   written to bad[] (room for n, or 1 for a CLASSIFY call, whose position is 0), their
   text set to what the reply said about them, and their number is returned. */
int llm_read_reply(LlmCall *call, const int *items, int n, const char *content, int *bad);
/* The reply could not be read even after asking again (and alone): the answer is unknown. */
void llm_mark_unreadable(LlmCall *call, int item);
/* The JSON value inside a model's reply: code fences stripped, the first {...} or [...]
   that parses. NULL when none. */
json_t *llmp_lenient_json(const char *content);

/* ---- confidence from log-probabilities (llm_logprobs.c) ---- */

/* The confidences of the n yes/no verdicts (verdicts[k]: 1 yes, 0 no) that content, a
   reply, spells in order, from the reply's log-probabilities block lp (choices[0].logprobs):
   conf[k] in [0, 1]. Returns n, or 0 (every conf[k] -1) when lp is missing or malformed or
   does not line up with content: then there is no confidence, never a made-up one. */
int llm_logprobs_verdicts(const json_t *lp, const char *content, const int *verdicts, int n,
                          double *conf);

/* Set it->value/warning from an answer text according to shape: the offline backend's
   reading of its own answers (a number or date found in the sentence it chose; a model's
   replies go through llm_read_reply instead). "unknown" gives a NULL value and no
   warning. */
void llm_convert(LlmShape shape, const char *text, char **value, char **warning);
/* Set a CLASSIFY call's labels from chosen strings, keeping only permitted values (matched
   without regard to case, written as the option is). */
void llm_set_labels(LlmCall *call, const char *const *chosen, int n);

/* ---- the offline backend's reading of text (llm_offline_lex.c) ---- */

typedef struct OffWord {
	char *stem;        /* lower-case Snowball stem */
	size_t off, len;   /* in the sentence */
	int stop;          /* a stop word (kept for negation scope, skipped in matching) */
	int isneg;         /* a negation word itself */
	int neg;           /* inside a negation's scope */
	int senti;         /* +1 / -1 from the sentiment list, 0 otherwise */
} OffWord;

typedef struct OffSent {
	const char *s;     /* borrowed from the candidate's passages */
	size_t len;
	OffWord *w;
	int nw;
	TextTerms terms;   /* content stems, for BM25 and centrality */
} OffSent;

typedef struct OffDoc {
	OffSent *v;
	int n;
} OffDoc;

/* The sentences of a text (all passages, in order) with their words analysed. */
void off_doc(const char *const *passages, int np, OffDoc *d);
void off_doc_free(OffDoc *d);
/* Analyse one piece of text into words (used for questions and values too). */
void off_words(const char *s, size_t n, OffWord **w, int *nw);
void off_words_free(OffWord *w, int nw);
/* Append a copy of stem to t. */
void off_terms_add(TextTerms *t, const char *stem);
/* 1: same word or paraphrases (the related-words table); -1: opposites; 0: unrelated. */
int off_related(const char *a, const char *b);
int off_generic(const char *stem);
/* -1 for a word saying there is little of something (short, brief, little), +1 for much
   (long, lengthy, forever), 0 otherwise. */
int off_degree(const char *stem);
/* A word after which the clause carries the sentence's opinion: but, however, yet. */
int off_contrast(const char *w, size_t n);

/* ---- text extraction shared by the offline backend and reply parsing (llm_offline_extract.c) ---- */

/* The first date written in s[from..n): "1979-01-31", "1979/01/31", "31 January 1979",
   "31st of Jan. 1979", "January 31, 1979", "July 2nd 1978", "January 1979" (-> the 1st of
   the month), a year alone from 1000 to 2999 (-> January 1). Writes YYYY-MM-DD into iso and
   returns 1 when found, with *prec 3 (day), 2 (month) or 1 (year) and the span [*at, *at +
   *len). */
int llm_next_date(const char *s, size_t n, size_t from, char iso[11], int *prec, size_t *at,
                  size_t *len);
int llm_find_date(const char *s, size_t n, char iso[11], int *prec);
/* The first number in s[from..n): digits with an optional sign, thousands commas and a
   decimal part, or a number word ("one".."twenty", "thirty".."ninety", "twenty-five",
   "a dozen"). Returns 1 when found, with its span. */
int llm_next_number(const char *s, size_t n, size_t from, double *v, int *is_int, size_t *at,
                    size_t *len);
int llm_find_number(const char *s, size_t n, double *v, int *is_int);
/* 1 when month m has a day d in year y (no 31 April; 29 February in leap years only). */
int llm_day_exists(long y, long m, long d);

/* ---- bulk mode (llm_bulk.c, llm_bulk_job.c) ---- */

/* The most requests one batch holds (OpenAI's limit); also what llm_concurrency says while
   a statement is collected, so that one wave of a walk holds every candidate. */
#define LLM_BULK_MAX 50000
/* The message of a call whose requests were collected for a batch (it has no answer yet). */
#define LLM_BULK_MSG "waiting for the batch: the answers come with :bulk resume"

/* A unit collected: the line (custom_id) whose request carries it, and its place there
   (pos of n candidates; n 0 for a call without candidates). */
typedef struct LlmBulkUnit {
	char key[65];
	char line[65];
	int pos, n;
} LlmBulkUnit;

struct LlmBulk {
	/* collecting */
	int collecting;
	SBuf jsonl;          /* the collected requests, one a line */
	LlmMemo *keys;       /* unit keys collected (each once) */
	long n;              /* lines */
	LlmBulkUnit *u;      /* the units the lines carry, in order */
	long nu, capu;
	long cap;            /* the statement's budget of requests while it was collected */
	double cap_usd;      /* its budget_usd (0: none) */
	double worst_in, worst_out;   /* the lines' worst case: their bodies' bytes over
	                                 TEXT_BYTES_PER_TOKEN, and their max_tokens */
	double worst_usd;    /* that at the full price of each line's model (llm_cap_worst) */
	int unpriced;        /* lines whose model has no price */
	/* answering */
	LlmMemo *replies;    /* line id -> chat completion (JSON text) while answering, else NULL */
	LlmMemo *where;      /* unit key -> "pos n line" */
	int legacy;          /* the job's lines are its units (kept before lines carried several):
	                        a reply's id is its unit's key */
	char *batch;         /* the batch answering, for the request log */
	long answered, unreadable;
	/* the tables */
	int tables;          /* the tables exist and are suql's: 1; not usable: -1; 0: unknown */
	char *why;           /* why not usable */
};

/* Bulk mode's state of llm, made when first needed. */
struct LlmBulk *llm_bulk_state(Llm *llm);
/* The cache file's handle with bulk mode's tables made (older ones brought up to date) and
   checked; NULL with err set. (llm_bulk_job.c) */
sqlite3 *llm_bulk_db(Llm *llm, SuqlErr *err);
/* For llm_bulk_fetch.c, from llm_bulk_job.c: a write transaction of the cache file that
   waits for another suql longer than the cache does (begin; end commits when rc is
   SQLITE_OK, else rolls back; both return SQLite's code), the job's row saved (status,
   output file, error, counts, tokens) inside one, and the error of a failed write. */
int llm_bulk_write_begin(sqlite3 *db);
int llm_bulk_write_end(sqlite3 *db, int rc);
int llm_bulk_job_save(sqlite3 *db, const LlmBulkJob *j);
SuqlStatus llm_bulk_db_fail(sqlite3 *db, SuqlErr *err);
/* The job's row as it is in the file (seq 0: the latest): SQLITE_ROW, with job read
   (what it held freed), SQLITE_DONE (none), or an error. */
int llm_bulk_job_load(sqlite3 *db, int seq, LlmBulkJob *job);
/* A token of 32 hex digits nobody else has: the statement's job in the user's database.
   Heap string. */
char *llm_bulk_new_token(void);
/* Store a job submitted (job: its batch, statement, database, status, counts, previous),
   with the units its lines carry, in one transaction that also marks the job it follows
   (previous) resumed; job->seq and job->token are set. */
SuqlStatus llm_bulk_store_job(Llm *llm, LlmBulkJob *job, const LlmBulkUnit *u, long nu,
                              SuqlErr *err);
/* A unit that a fetched batch answered: 1 when its line's reply was read into the call
   (item -1: the call itself) exactly as a reply over HTTP is, by the same reader, the unit
   at its place among the line's candidates; -1 when the batch had a reply that could not
   be read for it (nothing of it is kept); 0 when the batch has none. */
int llm_bulk_answer(Llm *llm, LlmCall *c, int item, const char *key);
/* While a statement is collected: the units of call c that would go in one request
   (items[0..nitems), or the call itself when nitems is 0; keys: theirs, one each) are
   written as one line of the batch, carrying the request llm_http.c would send for them;
   units collected before are left out (they wait for their line). 1 when they are
   collected, 0 when they are asked as usual (kinds the batch does not carry, a full
   batch). */
int llm_bulk_collect(Llm *llm, const LlmCall *c, const int *items, int nitems,
                     const char *const *keys);
/* How many of keys[0..n) no line of the batch carries yet (a line for them would be new). */
int llm_bulk_fresh(const Llm *llm, const char *const *keys, int n);
/* The output file of a batch (JSONL, data[0..n)), line by line: fn gets each line's
   custom_id and the body of its reply (a chat completion, compact JSON text) when the line
   holds a reply with status 200; else body NULL, why saying what the line lacks (id NULL
   when it has none either). Returns the lines read. Nothing of it is trusted: any bytes
   may come (tools/fuzz_batch.c). (llm_batch.c) */
typedef void (*LlmBatchLineFn)(void *ctx, const char *id, const char *body, const char *why);
long llm_bulk_read_output(const char *data, size_t n, LlmBatchLineFn fn, void *ctx);
/* sqlite3 handle of the cache file (its own tables live there too). */
sqlite3 *llm_cache_db(LlmCache *c);

/* The provider's batch interface (llm_batch.c): upload the JSONL file, create the batch,
   read it, fetch a file's content, cancel. Each is one HTTP request, counted as kind
   LLM_BULK. *reply (heap JSON) is the batch object; the content is the file's bytes. */
SuqlStatus llm_batch_upload(Llm *llm, const char *jsonl, size_t n, char **file_id,
                            SuqlErr *err);
SuqlStatus llm_batch_create(Llm *llm, const char *file_id, json_t **batch, SuqlErr *err);
SuqlStatus llm_batch_get(Llm *llm, const char *id, json_t **batch, SuqlErr *err);
SuqlStatus llm_batch_cancel(Llm *llm, const char *id, json_t **batch, SuqlErr *err);
SuqlStatus llm_batch_content(Llm *llm, const char *file_id, SBuf *out, SuqlErr *err);
/* One multipart/form-data POST to {url}/path: the fields purpose and file (filename, the
   bytes data[0..n)); as llm_http_once otherwise. (llm_http.c) */
SuqlStatus llm_http_upload(Llm *llm, const char *path, const char *purpose,
                           const char *filename, const char *data, size_t n,
                           LlmHttpOnce *res, SuqlErr *err);

/* ---- the request log (llm_log.c) ---- */

/* The default megabytes of llm.log_max. */
#define LLM_LOG_MAX_MB 100
/* One row of the log, as a backend fills it: the kind, model and endpoint come from the
   call when left NULL. Strings are heap (llm_log_add takes them); kind and status are
   static. */
typedef struct LlmLogEntry {
	const char *kind;     /* llm_kind_name, or "test", "models", "batch" */
	const char *status;   /* "ok", "unreadable" (a reply that could not be read, in part),
	                         "error", "cancelled" (sent, its reply not waited for),
	                         "cached", "batch" (answered by a fetched batch), "collected"
	                         (written for a batch); NULL: "ok" */
	int offline;          /* set by llm_log_add */
	int cache_hit;
	int reason;           /* LlmReason of a request; -1: none was sent */
	int items;            /* candidates it carried */
	long http;            /* the HTTP status; 0: none came */
	long tokens_in, tokens_out, tokens_cached, tokens_reasoning;
	int estimated;        /* the tokens were estimated (the reply reported no usage) */
	double usd;           /* what its tokens cost; < 0: no price */
	double ms;            /* its latency */
	double t;             /* when it was sent (llm_log_now); 0: now */
	char *model, *endpoint;
	char *prompt;         /* JSON text: the messages as sent (the offline task), or text */
	int prompt_body;      /* prompt is a request body: its messages are kept */
	char *reply;          /* the raw reply (a message's content, an error's body) */
	char *bulk;           /* the batch id */
	char *error;
} LlmLogEntry;
/* Whether the log is on (llm.log): a backend builds entries only then. */
int llm_log_wanted(const Llm *llm);
double llm_log_now(void);
/* Queue e (c, when given, names its kind and model). */
void llm_log_add(Llm *llm, const LlmCall *c, LlmLogEntry *e);
/* What e's tokens cost at the price of c's model (NULL: the chat model), as the counters
   price them; -1 when it has none. (llm_log_entry.c) */
double llm_log_usd(const Llm *llm, const LlmCall *c, const LlmLogEntry *e);
/* The tokens the usage of a reply (a chat completion) reports, into e; 0 when none. */
int llm_log_usage(const json_t *reply, LlmLogEntry *e);
/* The offline backend answered items[0..n) of c (n = 0: a call without candidates). */
void llm_log_offline(Llm *llm, const LlmCall *c, const int *items, int n);
/* The cache file answered item of c (-1: the call) with value; prompt (heap JSON, taken;
   NULL: the offline task) is the request it was kept under. */
void llm_log_cached(Llm *llm, const LlmCall *c, int item, char *prompt, const char *value);
/* A request of llm_http_once or llm_http_upload (path as given to it; upload: the bytes of
   an uploaded file) sent at sent_at, its reply in res; error: why it failed, or NULL. */
void llm_log_once(Llm *llm, const char *path, const char *body, size_t upload,
                  const struct LlmHttpOnce *res, double sent_at, const char *error);
/* A batch was made of the requests collected (status collected): they name it. */
void llm_log_batch(Llm *llm, const char *batch);
void llm_log_free(Llm *llm);
/* llm.log or its path changed. */
void llm_log_changed(Llm *llm);
/* $XDG_STATE_HOME/suql/log.db, else ~/.local/state/suql/log.db. */
char *llm_log_default_path(void);
/* The log's line of :llm. */
void llm_log_describe(const Llm *llm, SBuf *out);

/* Open the cache file if it is wanted and not open yet (a failure leaves cache_why). */
void llm_cache_ensure(Llm *llm);

#endif
