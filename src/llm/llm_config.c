/*
 * llm_config.c: where the LLM client's settings come from, and how they are shown.
 *
 * Each setting is taken from the first place that has it: the LlmConfig given to llm_open
 * (command-line options), then the environment (SUQL_LLM_URL or OPENAI_BASE_URL,
 * SUQL_LLM_KEY or OPENAI_API_KEY, SUQL_MODEL, SUQL_EMBED_MODEL), then the config file
 * ($XDG_CONFIG_HOME/suql/config, else ~/.config/suql/config: `key = value` lines, `#`
 * comments). A key with no URL means OpenAI's API and a default model; no URL and no key
 * means the offline backend. llm_set changes settings while running (the :set meta-command).
 *
 * The API key is a secret: it is only ever shown masked (its last 4 characters at most),
 * and llm_scrub removes it from any text (such as a server's error message) before that
 * text reaches an error, a log or the cache.
 */
#include "base/secret.h"
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

static const char *env2(const char *a, const char *b, const char **from)
{
	const char *v = nonempty(getenv(a));
	if (v) {
		*from = a;
		return v;
	}
	if (b && (v = nonempty(getenv(b))) != NULL)
		*from = b;
	return v;
}

/* ---- the settings rows (llm_settings_table) ---- */

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

static SuqlStatus set_url(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	LlmSettings *s = &llm->s;
	(void)row;
	if (!*v || str_ieq(v, "off") || str_ieq(v, "none") || str_ieq(v, "offline")) {
		s->offline = 1;
		return SUQL_OK;
	}
	if (!strstr(v, "://")) {
		char *shown = llm_url_shown(v);   /* never its credentials */
		err_set(err, SUQL_USAGE, "llm.url must be a URL such as http://localhost:11434/v1, "
		        "not '%s'", shown);
		free(shown);
		return SUQL_USAGE;
	}
	set_str(&s->url, v);
	s->url_from = ":set";
	s->offline = 0;
	llm->no_json_mode = 0;
	llm->no_schema = 0;
	llm->no_logprobs = 0;
	llm->no_cache_key = 0;
	return SUQL_OK;
}

static void show_url(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	char *u = llm->s.url ? llm_url_shown(llm->s.url) : NULL;
	sb_puts(out, u ? u : "(none: the offline backend answers)");
	free(u);
}

static SuqlStatus set_key(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	(void)row, (void)err;
	set_str(&llm->s.key, *v ? v : NULL);
	llm->s.key_from = ":set";
	return SUQL_OK;
}

/* llm.price_in, llm.price_out: -1 (the built-in list's price) or a price from 0 dollars a
   million tokens; any other negative number would make every spend look free, and the
   statement's dollar cap one it never reaches. */
static void show_key(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	char *m = llm_key_masked(llm->s.key);
	sb_puts(out, m);
	free(m);
}

static SuqlStatus set_model(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	(void)row, (void)err;
	set_str(&llm->s.model, *v ? v : NULL);
	llm->s.model_from = ":set";
	return SUQL_OK;
}

static void show_model(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	sb_puts(out, llm->s.model ? llm->s.model : "");
}

static SuqlStatus set_proxy(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	(void)row, (void)err;
	set_str(&llm->s.proxy_model, *v && !str_ieq(v, "none") ? v : NULL);
	return SUQL_OK;
}

static void show_proxy(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	sb_puts(out, llm->s.proxy_model ? llm->s.proxy_model : "none");
}

const char *llm_proxy_model(const Llm *llm)
{
	return llm && !llm_is_offline(llm) ? llm->s.proxy_model : NULL;
}

static SuqlStatus set_embed_model(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	(void)row, (void)err;
	set_str(&llm->s.embed_model, *v && !str_ieq(v, "none") ? v : NULL);
	return SUQL_OK;
}

static void show_embed_model(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	sb_puts(out, llm->s.embed_model ? llm->s.embed_model : "");
}

static SuqlStatus set_cache(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	Llm *llm = obj;
	int on;
	if (!str_parse_bool(v, &on))
		return setting_bad(row, v, err);
	llm->cache_pending = 0;
	if (on && !llm->cache) {
		llm->cache = llm_cache_open(llm->s.cache_path, err);
		if (!llm->cache)
			return SUQL_IO;
		free(llm->cache_why);
		llm->cache_why = NULL;
	}
	llm->s.no_cache = !on;
	return SUQL_OK;
}

static void show_cache(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	sb_puts(out, llm->s.no_cache ? "off" : llm->cache || llm->cache_pending ? "on"
	                                     : "off (not usable; :cache says why)");
}

/* llm.log: on or off (the field says off, so that a zeroed LlmSettings logs) */
static SuqlStatus set_log(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	int on;
	if (!str_parse_bool(v, &on))
		return setting_bad(row, v, err);
	((Llm *)obj)->s.log_off = !on;
	return SUQL_OK;
}

static void show_log(const void *obj, const SetRow *row, SBuf *out)
{
	(void)row;
	sb_puts(out, ((const Llm *)obj)->s.log_off ? "off" : "on");
}

static void derive(LlmSettings *s);

/* A price: a number of dollars from 0 up, or -1 or auto for the built-in list's. A value that
   is not one (abc, -3, nan) is refused and changes nothing. */
#define PRICE_ERR "is a number of dollars per million tokens, 0 or more (-1 or auto: the " \
                  "built-in list's)"
static SuqlStatus set_price(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	double d;
	if (str_ieq(v, "auto") || strcmp(v, "-1") == 0)
		d = -1;
	else if (!setting_parse_real(v, 0, row->max, 0, &d))
		return setting_bad(row, v, err);
	*(double *)((char *)obj + row->off) = d;
	return SUQL_OK;
}

static void show_price(const void *obj, const SetRow *row, SBuf *out)
{
	double d = *(const double *)((const char *)obj + row->off);
	if (d < 0)
		sb_puts(out, "-1");
	else
		sb_printf(out, "%g", d);
}

static SuqlStatus set_reasoning(void *obj, const SetRow *row, const char *v, SuqlErr *err)
{
	long n;
	if (str_ieq(v, "auto"))
		n = -1;
	else if (!setting_parse_long(v, 0, row->max, &n))
		return setting_bad(row, v, err);
	((Llm *)obj)->s.reasoning_tokens = (int)n;
	return SUQL_OK;
}

static void show_reasoning(const void *obj, const SetRow *row, SBuf *out)
{
	const Llm *llm = obj;
	(void)row;
	if (llm->s.reasoning_tokens >= 0)
		sb_printf(out, "%d", llm->s.reasoning_tokens);
	else
		sb_printf(out, "auto (%d for %s)", llm_reasoning_tokens(llm),
		          llm->s.model ? llm->s.model : "no model");
}

/* Any setting may change the endpoint, the model or the key: derive the defaults again and
   the label the banner and the counters show. */
static void settings_changed(void *obj)
{
	Llm *llm = obj;
	derive(&llm->s);
	llm_relabel(llm);
	llm_log_changed(llm);
}

#define LS(field) offsetof(Llm, s.field)
#define DURATION_ERR "is a duration in seconds (30, 30s, 1500ms)"

static const SetRow llm_rows[] = {
	{"llm.url", SET_TEXT, 0, 0, 0, NULL, "URL", "from the configuration", "the base URL of "
	 "an OpenAI-compatible endpoint; off, none or empty switches to the offline backend", NULL,
	 NULL, "url", 0, set_url, show_url},
	{"llm.model", SET_TEXT, 0, 0, 0, NULL, "NAME", "from the configuration", "the chat model",
	 NULL, NULL, "model", 0, set_model, show_model},
	{"llm.proxy", SET_TEXT, 0, 0, 0, NULL, "NAME", "none", "a cheaper chat model on the same "
	 "endpoint, the first judge of a cascade (llm.cascade_target): it is asked each candidate "
	 "with two wordings, and only where they disagree the chat model decides; none: the "
	 "learned proxy",
	 NULL, NULL, NULL, 0, set_proxy, show_proxy},
	{"llm.embed_model", SET_TEXT, 0, 0, 0, NULL, "NAME", "from the configuration",
	 "the embedding model (none clears it); retrieval then mixes embeddings with BM25", NULL,
	 NULL, "embed_model", 0, set_embed_model, show_embed_model},
	{"llm.key", SET_TEXT, 0, 0, 0, NULL, "KEY", "from the configuration", "the API key, sent "
	 "as Authorization: Bearer",
	 "It is never shown (only masked, by :set and :llm), written to the history only as ***, "
	 "and removed from any message that quotes a server (as are a URL's password and any "
	 "Authorization value). Since a server that echoes the request may cut its words "
	 "anywhere, every run of 8 characters or more of a secret is masked wherever it stands: "
	 "of the key, of the URL's password (as written and with its %XX escapes undone), of "
	 "user:password, and of their Base64 at each of its three alignments, as written or "
	 "behind JSON or %XX escapes; in errors, warnings, -v output, :llm test, :llm models and "
	 "the model's replies (values, the cache, a streamed chat reply, handed over a word at a "
	 "time).", NULL, "key", SET_SECRET, set_key,
	 show_key},
	{"llm.offline", SET_BOOL, LS(offline), 0, 0, NULL, "on|off", "off", "use the offline "
	 "backend even when an endpoint is configured", NULL, "is on or off", NULL, 0, NULL, NULL},
	{"llm.offline_note", SET_BOOL, LS(offline_note), 0, 0, NULL, "on|off", "on", "in a "
	 "script, one line on standard error (once a run) when a statement was answered by the "
	 "offline backend while no one chose it (--offline or llm.offline on say nothing)", NULL,
	 "is on or off", NULL, 0, NULL, NULL},
	{"llm.price_in", SET_REAL, LS(price_in), -1, 1000000, NULL, "DOLLARS", "-1",
	 "what a million input tokens of the chat model cost, in dollars; -1 (or auto): the "
	 "built-in list's price for well-known models (none for others: costs are then shown in "
	 "tokens only)",
	 "The built-in list (dated " LLM_PRICE_LIST_DATE ") holds the public list prices of "
	 "OpenAI's gpt-5, gpt-4.1, gpt-4o and o-series models, Anthropic's Claude and Google's "
	 "Gemini models, matched by the longest entry the model's name starts with. A model "
	 "asked besides the chat model (llm.proxy, llm.embed_model) takes the list's price for "
	 "its name, else the chat model's.", PRICE_ERR, NULL, 0, set_price, show_price},
	{"llm.price_out", SET_REAL, LS(price_out), -1, 1000000, NULL, "DOLLARS", "-1",
	 "what a million output tokens of the chat model cost (hidden reasoning tokens "
	 "included), in dollars; -1 (or auto): the built-in list's", NULL, PRICE_ERR, NULL, 0,
	 set_price, show_price},
	{"llm.price_cached_in", SET_REAL, LS(price_cached_in), -1, 1000000, NULL, "DOLLARS",
	 "-1", "what a million input tokens of the chat model cost when the endpoint serves them "
	 "from its prompt cache (the reply's cached tokens); -1 (or auto): the built-in list's "
	 "cached price, else the input price", NULL, PRICE_ERR, NULL, 0, set_price, show_price},
	{"llm.reasoning_tokens", SET_INT, LS(reasoning_tokens), -1, 1000000, NULL, "N|auto",
	 "auto", "hidden reasoning tokens a request of a reasoning model may write (billed as "
	 "output), allowed for in the worst case of the plan's cost; auto: "
	 SETTING_STR(LLM_REASONING_DEFAULT) " for the reasoning models of the built-in list "
	 "(gpt-5, o1, o3, o4-mini, gemini-2.5-pro, ...), 0 for others",
	 "The counters show the reasoning tokens a reply reports "
	 "(completion_tokens_details.reasoning_tokens). Requests to OpenAI's reasoning models "
	 "(gpt-5, the o-series) carry max_completion_tokens, the reply's room plus this "
	 "allowance (" SETTING_STR(LLM_REASONING_DEFAULT) " when it is 0), instead of "
	 "max_tokens, and no temperature: those models refuse both.", "is a whole number of tokens from 0 "
	 "to 1000000, or auto", NULL, 0, set_reasoning, show_reasoning},
	{"llm.bulk", SET_BOOL, LS(bulk), 0, 0, NULL, "on|off", "off", "send a statement's "
	 "model requests through the endpoint's batch interface (OpenAI's Batch API) instead of "
	 "one by one (the requests of the interactive run, each a line of the batch): the "
	 "statement shows no rows, suql submits the batch and keeps its id in the "
	 "cache file; :bulk status shows its progress, :bulk resume (also after a restart) reads "
	 "the replies into the cache and runs the statement again",
	 "Statements with LIMIT run as usual (a lazy walk stops early; a batch would ask every "
	 "candidate), and so does the offline backend. See Bulk mode under LLM BACKENDS.", "is on or off", NULL, 0,
	 NULL, NULL},
	{"llm.bulk_discount", SET_REAL, LS(bulk_discount), 0, 1, NULL, "SHARE", "0.5",
	 "what a batch costs as a share of the usual price (llm.price_in and llm.price_out)",
	 NULL, "is a share from {range}", NULL, 0, NULL, NULL},
	{"llm.timeout", SET_MS, LS(timeout_ms), 0, 86400000, NULL, "DURATION",
	 SETTING_STR(LLM_TIMEOUT_S) "s", "how long one request may take (30, 30s, 1500ms, 2m); "
	 "one with no reply by then is asked once more, then fails",
	 "So a server that hangs holds a statement about twice this long (2 minutes by "
	 "default); the status line at a terminal shows the time so far.", DURATION_ERR, "timeout", SET_ABOVE_MIN, NULL, NULL},
	{"llm.connect_timeout", SET_MS, LS(connect_timeout_ms), 0, 86400000, NULL, "DURATION",
	 SETTING_STR(LLM_CONNECT_TIMEOUT_S) "s", "how long connecting to the endpoint may take",
	 NULL, DURATION_ERR, NULL, SET_ABOVE_MIN, NULL, NULL},
	{"llm.retries", SET_INT, LS(retries), 0, 20, NULL, "N", SETTING_STR(LLM_RETRIES),
	 "retries of a request that failed in a way worth retrying", NULL,
	 "is a whole number from {range}", NULL, 0, NULL, NULL},
	{"llm.backoff", SET_MS, LS(backoff_ms), 0, 86400000, NULL, "DURATION", "0.5s",
	 "the first retry delay; it doubles with each retry, at most 30 s, times a random factor "
	 "from 0.5 to 1, unless the server says when to retry", NULL,
	 "is a duration (0.5, 500ms)", NULL, 0, NULL, NULL},
	{"llm.unreadable", SET_CHOICE, LS(unreadable_warn), 0, 0, "fail warn", "fail|warn", "fail",
	 "what a statement does when a reply of the model could not be read, even when asked "
	 "again: both warn and leave the answer unknown; fail then fails the statement (exit "
	 "status 3 in a script) after its rows", NULL, "is fail or warn", "unreadable", 0, NULL,
	 NULL},
	{"llm.schema", SET_CHOICE, LS(schema), 0, 0, "auto openai llamacpp ollama json_object off",
	 "auto|openai|llamacpp|ollama|json_object|off", "auto",
	 "how a request that wants a JSON reply constrains it: a JSON schema admitting exactly "
	 "the readable replies (the number of answers, yes or no, the permitted values, the type) "
	 "in the endpoint's dialect (openai: response_format json_schema, strict, which vLLM "
	 "takes too; llamacpp: json_schema; ollama: format), json_object (any JSON object) or off; "
	 "auto is ollama for an Ollama URL (port 11434) and openai otherwise. An endpoint that "
	 "refuses a schema (HTTP 400) is asked again with json_object, then with nothing, and "
	 "suql remembers it until llm.url changes. Replies are checked all the same", NULL,
	 "is auto, openai, llamacpp, ollama, json_object or off", NULL, 0, NULL, NULL},
	{"llm.logprobs", SET_CHOICE, LS(logprobs), 0, 0, "off on auto", "off|on|auto", "auto",
	 "whether yes/no verdict requests ask for log-probabilities (logprobs, top_logprobs "
	 SETTING_STR(LLM_TOP_LOGPROBS) "), from which each verdict gets a confidence, shown by "
	 ":why and the per-row record: on asks always, auto only while llm.min_confidence is "
	 "set, off never. An endpoint that refuses them (HTTP 400) is asked again without, and "
	 "suql remembers it until llm.url changes; a reply without them gives no confidence", NULL,
	 "is off, on or auto", NULL, 0, NULL, NULL},
	{"llm.prompt_cache_key", SET_BOOL, LS(prompt_cache_key), 0, 0, NULL, "on|off", "on",
	 "whether requests to an endpoint in OpenAI's dialect (llm.schema openai or json_object, "
	 "or auto for any URL but Ollama's) carry a prompt_cache_key, so that a provider that "
	 "caches prompt prefixes by key routes the requests of a statement, and of the same "
	 "statement run again, to the cache that holds their instructions and question (cached "
	 "input is billed at llm.price_cached_in). The key is \"suql-\" and a hash of the prompt's "
	 "template and the question, never of a table's values. An endpoint that refuses the "
	 "field (HTTP 400) is asked again without it, and suql remembers it until llm.url "
	 "changes", NULL, "is on or off", NULL, 0, NULL, NULL},
	{"llm.min_confidence", SET_REAL, LS(min_confidence), 0, 1, NULL, "P", "0",
	 "a verdict whose confidence (llm.logprobs) is below P is taken as unknown (NULL), as an "
	 "unreadable reply is, without a warning; 0: off. Verdicts without a confidence are kept "
	 "as they are", NULL, "is a number from 0 to 1", NULL, 0, NULL, NULL},
	{"llm.log", SET_BOOL, 0, 0, 0, NULL, "on|off", "on", "keep the request log: every "
	 "request to the model (the prompt as sent, the raw reply, tokens, cost, latency, "
	 "status), every answer of the cache and every call of the offline backend, one row "
	 "each in $XDG_STATE_HOME/suql/log.db (else ~/.local/state/suql/log.db), secrets "
	 "masked; :log shows the newest",
	 "In the config file also the path of the log file (log = /path/to/log.db). Rows are "
	 "written when the statement ends, in one transaction; the file is plain SQLite (see "
	 "THE REQUEST LOG under LLM BACKENDS for its columns).", "is on or off", "log", 0,
	 set_log, show_log},
	{"llm.log_max", SET_REAL, LS(log_max), 0, 1000000, NULL, "MB",
	 SETTING_STR(LLM_LOG_MAX_MB), "the megabytes of rows the request log keeps (their "
	 "texts and a row's overhead); past it the oldest rows are deleted as new ones are "
	 "written", NULL, "is a number of megabytes above 0", NULL, SET_ABOVE_MIN, NULL, NULL},
	{"concurrency", SET_INT, LS(concurrency), 1, 256, NULL, "N",
	 SETTING_STR(LLM_CONCURRENCY), "model requests in flight at once", NULL,
	 "is a whole number from {range}", "concurrency", 0, NULL, NULL},
	{"cache", SET_BOOL, 0, 0, 0, NULL, "on|off", "on", "read and write the cache of model "
	 "results (see LLM BACKENDS); in the config file also the path of the cache file", NULL,
	 "is on or off", "cache", 0, set_cache, show_cache},
};
enum { NROWS = sizeof llm_rows / sizeof *llm_rows };

const SetTable llm_settings_table = {
	"The language model client",
	":set lists these after the others, the key masked; :llm shows their values and where "
	"each came from.",
	"llm.", llm_rows, NROWS, settings_changed,
};

/* ---- the config file ---- */

/* The file's values for the rows that have a file key (the last line naming one wins). */
typedef struct FileConf {
	char *path;
	char *v[NROWS];
} FileConf;

static const char *file_get(const FileConf *f, const char *key)
{
	for (int i = 0; i < NROWS; i++)
		if (llm_rows[i].file && strcmp(llm_rows[i].file, key) == 0)
			return nonempty(f->v[i]);
	return NULL;
}

static void file_free(FileConf *f)
{
	for (int i = 0; i < NROWS; i++)
		free(f->v[i]);
	free(f->path);
}

static SuqlStatus file_load(FileConf *f, SuqlErr *err)
{
	const char *xdg = nonempty(getenv("XDG_CONFIG_HOME"));
	const char *home = nonempty(getenv("HOME"));
	memset(f, 0, sizeof *f);
	if (xdg)
		f->path = xprintf("%s/suql/config", xdg);
	else if (home)
		f->path = xprintf("%s/.config/suql/config", home);
	else
		return SUQL_OK;
	char *text = util_read_file(f->path, NULL);
	if (!text) {
		if (errno == ENOENT)
			return SUQL_OK;
		return err_set(err, SUQL_IO, "cannot read the config file %s: %s", f->path,
		               strerror(errno));
	}
	int lineno = 0;
	SuqlStatus st = SUQL_OK;
	for (const char *p = text; *p && st == SUQL_OK;) {
		const char *eol = strchr(p, '\n');
		const char *next = eol ? eol + 1 : p + strlen(p);
		const char *hash = memchr(p, '#', (size_t)((eol ? eol : next) - p));
		const char *line = p;
		size_t len = (size_t)((hash ? hash : eol ? eol : next) - p);
		p = next;
		lineno++;
		str_trim(&line, &len);
		if (!len)
			continue;
		const char *eq = memchr(line, '=', len);
		if (!eq) {
			st = err_set(err, SUQL_USAGE, "config file %s, line %d: expected 'key = value'",
			             f->path, lineno);
			break;
		}
		const char *k = line, *v = eq + 1;
		size_t kn = (size_t)(eq - line), vn = len - kn - 1;
		str_trim(&k, &kn);
		str_trim(&v, &vn);
		int i = 0;
		while (i < NROWS && !(llm_rows[i].file && strlen(llm_rows[i].file) == kn &&
		                      strncmp(k, llm_rows[i].file, kn) == 0))
			i++;
		if (i == NROWS) {
			SBuf known = SBUF_INIT;
			for (int j = 0; j < NROWS; j++)
				if (llm_rows[j].file)
					sb_printf(&known, "%s%s", known.len ? ", " : "", llm_rows[j].file);
			st = err_set(err, SUQL_USAGE, "config file %s, line %d: unknown setting '%.*s' "
			             "(known: %s)", f->path, lineno, (int)kn, k, sb_str(&known));
			sb_free(&known);
			break;
		}
		free(f->v[i]);
		f->v[i] = xstrndup(v, vn);
	}
	free(text);
	return st;
}

/* A key without a URL means OpenAI; OpenAI without a model means the default model. */
static void derive(LlmSettings *s)
{
	if (!s->url && s->key) {
		s->url = xstrdup(LLM_DEFAULT_URL);
		s->url_from = "default, since a key is set";
	}
	if (s->url && !s->model && strstr(s->url, "api.openai.com")) {
		s->model = xstrdup(LLM_DEFAULT_MODEL);
		s->model_from = "default for OpenAI";
	}
	/* "http://host/v1/" and "http://host/v1" are the same endpoint */
	if (s->url) {
		size_t n = strlen(s->url);
		while (n > 0 && s->url[n - 1] == '/')
			s->url[--n] = '\0';
	}
}

SuqlStatus llm_settings_resolve(LlmSettings *s, const LlmConfig *cfg, SuqlErr *err)
{
	static const LlmConfig none = {0};
	if (!cfg)
		cfg = &none;
	memset(s, 0, sizeof *s);
	FileConf f;
	if (file_load(&f, err) != SUQL_OK) {
		file_free(&f);
		return SUQL_USAGE;
	}
	const char *from = NULL, *v;

#define PICK(field, cfgval, e1, e2, fkey)                                     \
	do {                                                                  \
		from = NULL;                                                  \
		if ((v = nonempty(cfgval)) != NULL)                           \
			from = "option";                                      \
		else if ((v = env2(e1, e2, &from)) == NULL && (v = file_get(&f, fkey)) != NULL) \
			from = "config file";                                 \
		s->field = v ? xstrdup(v) : NULL;                             \
	} while (0)

	PICK(url, cfg->url, "SUQL_LLM_URL", "OPENAI_BASE_URL", "url");
	s->url_from = from;
	PICK(key, cfg->key, "SUQL_LLM_KEY", "OPENAI_API_KEY", "key");
	s->key_from = from;
	PICK(model, cfg->model, "SUQL_MODEL", NULL, "model");
	s->model_from = from;
	PICK(embed_model, cfg->embed_model, "SUQL_EMBED_MODEL", NULL, "embed_model");
#undef PICK
	s->prompts_dir = nonempty(cfg->prompts_dir) ? xstrdup(cfg->prompts_dir) : NULL;
	s->offline = cfg->offline;
	s->no_cache = cfg->no_cache;
	s->concurrency = cfg->concurrency > 0 ? cfg->concurrency : LLM_CONCURRENCY;
	s->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : LLM_TIMEOUT_S * 1000;
	s->connect_timeout_ms = cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms
	                                                   : LLM_CONNECT_TIMEOUT_S * 1000;
	s->retries = cfg->retries > 0 ? cfg->retries : LLM_RETRIES;
	s->backoff_ms = LLM_BACKOFF_MS;
	s->offline_note = 1;
	s->price_in = s->price_out = s->price_cached_in = -1;
	s->reasoning_tokens = -1;
	s->logprobs = LLM_LOGPROBS_AUTO;
	s->prompt_cache_key = 1;
	s->bulk_discount = 0.5;

	SuqlStatus st = SUQL_OK;
	const SetRow *conc = setting_find(&llm_settings_table, "concurrency");
	long n;
	if (cfg->concurrency <= 0 && (v = file_get(&f, "concurrency")) != NULL) {
		if (!setting_parse_long(v, conc->min, conc->max, &n))
			st = err_set(err, SUQL_USAGE, "config file %s: concurrency must be a whole "
			             "number from %.0f to %.0f, not '%s'", f.path, conc->min, conc->max, v);
		else
			s->concurrency = (int)n;
	}
	if (st == SUQL_OK && cfg->timeout_ms <= 0 && (v = file_get(&f, "timeout")) != NULL) {
		long ms = setting_parse_ms(v);
		if (ms <= 0)
			st = err_set(err, SUQL_USAGE, "config file %s: timeout must be a duration in "
			             "seconds (30, 30s, 1500ms), not '%s'", f.path, v);
		else
			s->timeout_ms = (int)ms;
	}
	if (nonempty(cfg->cache_path))
		s->cache_path = xstrdup(cfg->cache_path);
	if (st == SUQL_OK && (v = file_get(&f, "cache")) != NULL) {
		int on;
		if (!str_parse_bool(v, &on)) {
			if (!s->cache_path)
				s->cache_path = xstrdup(v);
		} else if (!on) {
			s->no_cache = 1;
		}
	}
	if (!s->cache_path)
		s->cache_path = llm_cache_default_path();
	s->log_max = LLM_LOG_MAX_MB;
	if (st == SUQL_OK && (v = file_get(&f, "log")) != NULL) {
		int on;
		if (!str_parse_bool(v, &on))
			s->log_path = xstrdup(v);
		else
			s->log_off = !on;
	}
	if (!s->log_path)
		s->log_path = llm_log_default_path();
	if (st == SUQL_OK && (v = file_get(&f, "unreadable")) != NULL &&
	    (s->unreadable_warn = setting_choice(setting_find(&llm_settings_table,
	                                                      "llm.unreadable"), v)) < 0)
		st = err_set(err, SUQL_USAGE, "config file %s: unreadable is fail or warn, not '%s'",
		             f.path, v);
	file_free(&f);
	if (st != SUQL_OK) {
		llm_settings_free(s);
		return st;
	}
	derive(s);
	return SUQL_OK;
}

void llm_settings_free(LlmSettings *s)
{
	free(s->url);
	free(s->key);
	free(s->model);
	free(s->embed_model);
	free(s->proxy_model);
	free(s->cache_path);
	free(s->log_path);
	free(s->prompts_dir);
	memset(s, 0, sizeof *s);
}

char *llm_url_shown(const char *url)
{
	if (!url)
		return xstrdup("(none)");
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *slash = strchr(host, '/');
	const char *at = strchr(host, '@');
	if (at && (!slash || at < slash))
		return xprintf("%.*s%s", (int)(host - url), url, at + 1);
	return xstrdup(url);
}

char *llm_key_masked(const char *key)
{
	if (!key || !*key)
		return xstrdup("(none)");
	size_t n = strlen(key);
	/* Short keys show less, so that the visible part is never a large share of the key. */
	size_t show = n >= 16 ? 4 : n >= 10 ? 2 : 0;
	const char *prefix = strncmp(key, "sk-", 3) == 0 && n >= 16 ? "sk-" : "";
	return xprintf("%s\xE2\x80\xA6%s", prefix, key + n - show);
}

char *llm_scrub(const Llm *llm, const char *msg)
{
	if (!msg)
		return NULL;
	const char *secrets[] = {llm ? llm->s.key : NULL, llm ? llm->s.url : NULL,
	                         getenv("SUQL_LLM_KEY"), getenv("OPENAI_API_KEY")};
	return secret_mask(msg, secrets, (int)(sizeof secrets / sizeof *secrets));
}

char *llm_scrub_reply(const Llm *llm, const char *text)
{
	if (!text)
		return NULL;
	const char *secrets[] = {llm ? llm->s.key : NULL, llm ? llm->s.url : NULL,
	                         getenv("SUQL_LLM_KEY"), getenv("OPENAI_API_KEY")};
	return secret_mask_runs(text, secrets, (int)(sizeof secrets / sizeof *secrets));
}

void llm_relabel(Llm *llm)
{
	llm_endpoint_update(llm);
	free(llm->label);
	if (llm_is_offline(llm))
		llm->label = xstrdup(LLM_OFFLINE_LABEL);
	else {
		char *u = llm_url_shown(llm->s.url);
		llm->label = xprintf("%s at %s", llm->s.model ? llm->s.model : "(no model)", u);
		free(u);
	}
}

int llm_is_offline(const Llm *llm)
{
	return !llm || llm->s.offline || !llm->s.url;
}

const char *llm_model(const Llm *llm)
{
	return llm ? llm->s.model : NULL;
}

const char *llm_embed_model(const Llm *llm)
{
	return llm && llm->s.embed_model ? llm->s.embed_model : "";
}

int llm_concurrency(const Llm *llm)
{
	if (llm && llm_bulk_collecting(llm))   /* a batch holds them all at once */
		return LLM_BULK_MAX;
	return llm ? llm->s.concurrency : 1;
}

int llm_has_embeddings(const Llm *llm)
{
	return !llm_is_offline(llm) && llm->s.embed_model != NULL;
}

const char *llm_label(const Llm *llm)
{
	return llm && llm->label ? llm->label : LLM_OFFLINE_LABEL;
}

int llm_unconfigured(const Llm *llm)
{
	return llm && !llm->s.offline && !llm->s.url;
}

int llm_offline_unasked(const Llm *llm)
{
	return llm_unconfigured(llm) && llm->s.offline_note;
}

int llm_unreadable_fails(const Llm *llm)
{
	return !llm || !llm->s.unreadable_warn;
}

const char *llm_prompts_dir(const Llm *llm)
{
	return llm ? llm->s.prompts_dir : NULL;
}

SuqlStatus llm_set(Llm *llm, const char *key, const char *value, SuqlErr *err)
{
	if (!key || !value)
		return err_set(err, SUQL_USAGE, "llm_set needs a setting and a value");
	return setting_set(&llm_settings_table, llm, key, value, err);
}

void llm_describe(const Llm *llm, SBuf *out)
{
	const LlmSettings *s = &llm->s;
	if (llm_is_offline(llm)) {
		sb_printf(out, "backend      %s\n", LLM_OFFLINE_LABEL);
		if (s->offline && s->url)
			sb_puts(out, "             (forced with --offline or llm.offline; "
			             ":set llm.offline off to use the endpoint)\n");
		else
			sb_puts(out, "             no endpoint configured: set SUQL_LLM_URL (or "
			             "OPENAI_API_KEY), or :set llm.url URL\n");
	} else {
		sb_puts(out, "backend      http (OpenAI-compatible chat completions)\n");
	}
	if (s->url) {
		char *u = llm_url_shown(s->url);
		sb_printf(out, "url          %s%s%s%s\n", u, s->url_from ? " (from " : "",
		          s->url_from ? s->url_from : "", s->url_from ? ")" : "");
		free(u);
	}
	if (!llm_is_offline(llm) || s->model) {
		if (s->model)
			sb_printf(out, "model        %s%s%s%s\n", s->model, s->model_from ? " (from " : "",
			          s->model_from ? s->model_from : "", s->model_from ? ")" : "");
		else
			sb_puts(out, "model        (none: set SUQL_MODEL or :set llm.model)\n");
		sb_printf(out, "embeddings   %s\n", s->embed_model ? s->embed_model :
		          "(none: retrieval uses BM25 only; set SUQL_EMBED_MODEL to add them)");
		char *m = llm_key_masked(s->key);
		sb_printf(out, "key          %s%s%s%s\n", m, s->key && s->key_from ? " (from " : "",
		          s->key && s->key_from ? s->key_from : "", s->key && s->key_from ? ")" : "");
		free(m);
		sb_printf(out, "concurrency  %d requests in flight\n", s->concurrency);
		sb_printf(out, "timeout      %g s per request, %g s to connect, %d retries\n",
		          s->timeout_ms / 1000.0, s->connect_timeout_ms / 1000.0, s->retries);
	}
	if (!llm_is_offline(llm) && llm->no_logprobs && s->logprobs != LLM_LOGPROBS_OFF)
		sb_puts(out, "logprobs     refused by the endpoint (HTTP 400): verdicts carry no "
		        "confidence\n");
	if (!llm_is_offline(llm) && llm->no_cache_key && s->prompt_cache_key)
		sb_puts(out, "cache key    refused by the endpoint (HTTP 400): requests carry no "
		        "prompt_cache_key\n");
	sb_printf(out, "cache        %s (%s)\n", s->cache_path ? s->cache_path : "(none)",
	          s->no_cache ? "off" : llm->cache || llm->cache_pending ? "on" : "off: not usable");
	llm_log_describe(llm, out);
}

double llm_min_confidence(const Llm *llm)
{
	return llm ? llm->s.min_confidence : 0;
}
