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
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <errno.h>
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

/* The settings a config file may hold, and the file's values for them (the last line
   naming a setting wins). */
static const char *const file_keys[] = {"url", "key", "model", "embed_model", "concurrency",
	"timeout", "cache", "unreadable"};
enum { NFILEKEYS = sizeof file_keys / sizeof *file_keys };

typedef struct FileConf {
	char *path;
	char *v[NFILEKEYS];
} FileConf;

static const char *file_get(const FileConf *f, const char *key)
{
	for (int i = 0; i < NFILEKEYS; i++)
		if (strcmp(file_keys[i], key) == 0)
			return nonempty(f->v[i]);
	return NULL;
}

static void file_free(FileConf *f)
{
	for (int i = 0; i < NFILEKEYS; i++)
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
		while (i < NFILEKEYS && !(strlen(file_keys[i]) == kn &&
		                          strncmp(k, file_keys[i], kn) == 0))
			i++;
		if (i == NFILEKEYS) {
			st = err_set(err, SUQL_USAGE, "config file %s, line %d: unknown setting '%.*s' "
			             "(known: url, key, model, embed_model, concurrency, timeout, cache, "
			             "unreadable)",
			             f->path, lineno, (int)kn, k);
			break;
		}
		free(f->v[i]);
		f->v[i] = xstrndup(v, vn);
	}
	free(text);
	return st;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

/* "30", "30s", "1500ms", "2m" -> milliseconds; -1 when not a duration. */
static int parse_ms(const char *v)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || errno || x < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (!*end || strcmp(end, "s") == 0)
		x *= 1000;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		x *= 60000;
	else if (strcmp(end, "ms") != 0)
		return -1;
	return x > 86400000 ? -1 : (int)x;
}

static int parse_int(const char *v, int lo, int hi)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (end == v || *end || errno || x < lo || x > hi)
		return -1;
	return (int)x;
}

/* on/off, 1 or 0; -1 when v is neither */
static int parse_onoff(const char *v)
{
	int on;
	return str_parse_bool(v, &on) ? on : -1;
}

/* llm.unreadable: fail 0, warn 1, -1 neither */
static int parse_unreadable(const char *v)
{
	return str_ieq(v, "fail") ? 0 : str_ieq(v, "warn") ? 1 : -1;
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
	s->concurrency = cfg->concurrency > 0 ? cfg->concurrency : 8;
	s->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 60000;
	s->connect_timeout_ms = cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms : 10000;
	s->retries = cfg->retries > 0 ? cfg->retries : 4;
	s->backoff_ms = 500;

	SuqlStatus st = SUQL_OK;
	if (cfg->concurrency <= 0 && (v = file_get(&f, "concurrency")) != NULL) {
		int c = parse_int(v, 1, 256);
		if (c < 0)
			st = err_set(err, SUQL_USAGE, "config file %s: concurrency must be a whole "
			             "number from 1 to 256, not '%s'", f.path, v);
		else
			s->concurrency = c;
	}
	if (st == SUQL_OK && cfg->timeout_ms <= 0 && (v = file_get(&f, "timeout")) != NULL) {
		int ms = parse_ms(v);
		if (ms <= 0)
			st = err_set(err, SUQL_USAGE, "config file %s: timeout must be a duration in "
			             "seconds (30, 30s, 1500ms), not '%s'", f.path, v);
		else
			s->timeout_ms = ms;
	}
	if (nonempty(cfg->cache_path))
		s->cache_path = xstrdup(cfg->cache_path);
	if (st == SUQL_OK && (v = file_get(&f, "cache")) != NULL) {
		int on = parse_onoff(v);
		if (on == 0)
			s->no_cache = 1;
		else if (on < 0 && !s->cache_path)
			s->cache_path = xstrdup(v);
	}
	if (!s->cache_path)
		s->cache_path = llm_cache_default_path();
	if (st == SUQL_OK && (v = file_get(&f, "unreadable")) != NULL &&
	    (s->unreadable_warn = parse_unreadable(v)) < 0)
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
	free(s->cache_path);
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
	const char *key = llm ? llm->s.key : NULL;
	if (!msg)
		return NULL;
	if (!key || strlen(key) < 4)
		return xstrdup(msg);
	SBuf b = SBUF_INIT;
	size_t kn = strlen(key);
	const char *p = msg, *hit;
	while ((hit = strstr(p, key)) != NULL) {
		sb_putn(&b, p, (size_t)(hit - p));
		sb_puts(&b, "***");
		p = hit + kn;
	}
	sb_puts(&b, p);
	return sb_steal(&b);
}

void llm_relabel(Llm *llm)
{
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

int llm_unreadable_fails(const Llm *llm)
{
	return !llm || !llm->s.unreadable_warn;
}

const char *llm_model_id(const Llm *llm)
{
	if (llm_is_offline(llm))
		return LLM_OFFLINE_VERSION;
	return llm->s.model ? llm->s.model : "";
}

const char *llm_prompts_dir(const Llm *llm)
{
	return llm ? llm->s.prompts_dir : NULL;
}

SuqlStatus llm_set(Llm *llm, const char *key, const char *value, SuqlErr *err)
{
	if (!key || !value)
		return err_set(err, SUQL_USAGE, "llm_set needs a setting and a value");
	const char *k = str_has_prefix(key, "llm.") ? key + 4 : key;
	const char *v = value;
	LlmSettings *s = &llm->s;
	if (strcmp(k, "url") == 0) {
		if (!*v || str_ieq(v, "off") || str_ieq(v, "none") || str_ieq(v, "offline")) {
			s->offline = 1;
		} else {
			if (!strstr(v, "://"))
				return err_set(err, SUQL_USAGE, "llm.url must be a URL such as "
				               "http://localhost:11434/v1, not '%s'", v);
			set_str(&s->url, v);
			s->url_from = ":set";
			s->offline = 0;
			llm->no_json_mode = 0;
		}
	} else if (strcmp(k, "key") == 0) {
		set_str(&s->key, *v ? v : NULL);
		s->key_from = ":set";
	} else if (strcmp(k, "model") == 0) {
		set_str(&s->model, *v ? v : NULL);
		s->model_from = ":set";
	} else if (strcmp(k, "embed_model") == 0 || strcmp(k, "embed-model") == 0) {
		set_str(&s->embed_model, *v && !str_ieq(v, "none") ? v : NULL);
	} else if (strcmp(k, "offline") == 0) {
		int on = parse_onoff(v);
		if (on < 0)
			return err_set(err, SUQL_USAGE, "llm.offline is on or off, not '%s'", v);
		s->offline = on;
	} else if (strcmp(k, "timeout") == 0 || strcmp(k, "connect_timeout") == 0) {
		int ms = parse_ms(v);
		if (ms <= 0)
			return err_set(err, SUQL_USAGE, "llm.%s is a duration in seconds (30, 30s, "
			               "1500ms), not '%s'", k, v);
		*(strcmp(k, "timeout") == 0 ? &s->timeout_ms : &s->connect_timeout_ms) = ms;
	} else if (strcmp(k, "retries") == 0) {
		int r = parse_int(v, 0, 20);
		if (r < 0)
			return err_set(err, SUQL_USAGE, "llm.retries is a whole number from 0 to 20, "
			               "not '%s'", v);
		s->retries = r;
	} else if (strcmp(k, "backoff") == 0) {
		int ms = parse_ms(v);
		if (ms < 0)
			return err_set(err, SUQL_USAGE, "llm.backoff is a duration (0.5, 500ms), not "
			               "'%s'", v);
		s->backoff_ms = ms;
	} else if (strcmp(k, "concurrency") == 0) {
		int c = parse_int(v, 1, 256);
		if (c < 0)
			return err_set(err, SUQL_USAGE, "concurrency is a whole number from 1 to 256, "
			               "not '%s'", v);
		s->concurrency = c;
	} else if (strcmp(k, "cache") == 0) {
		int on = parse_onoff(v);
		if (on < 0)
			return err_set(err, SUQL_USAGE, "cache is on or off, not '%s'", v);
		if (on && !llm->cache) {
			llm->cache = llm_cache_open(s->cache_path, err);
			if (!llm->cache)
				return SUQL_IO;
			free(llm->cache_why);
			llm->cache_why = NULL;
		}
		s->no_cache = !on;
	} else if (strcmp(k, "unreadable") == 0) {
		int w = parse_unreadable(v);
		if (w < 0)
			return err_set(err, SUQL_USAGE, "llm.unreadable is fail or warn, not '%s'", v);
		s->unreadable_warn = w;
	} else {
		return err_set(err, SUQL_USAGE, "unknown setting '%s' (llm.url, llm.key, llm.model, "
		               "llm.embed_model, llm.timeout, llm.connect_timeout, llm.retries, "
		               "llm.backoff, llm.offline, llm.unreadable, concurrency, cache)", key);
	}
	derive(s);
	llm_relabel(llm);
	return SUQL_OK;
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
	sb_printf(out, "cache        %s (%s)\n", s->cache_path ? s->cache_path : "(none)",
	          s->no_cache ? "off" : llm->cache ? "on" : "off: not usable");
}

void llm_settings(const Llm *llm, SBuf *out)
{
	const LlmSettings *s = &llm->s;
	char *u = s->url ? llm_url_shown(s->url) : NULL;
	char *m = llm_key_masked(s->key);
	sb_printf(out, "llm.url = %s\n", u ? u : "(none: the offline backend answers)");
	sb_printf(out, "llm.model = %s\n", s->model ? s->model : "");
	sb_printf(out, "llm.embed_model = %s\n", s->embed_model ? s->embed_model : "");
	sb_printf(out, "llm.key = %s\n", m);
	sb_printf(out, "llm.offline = %s\n", s->offline ? "on" : "off");   /* forced, or not */
	sb_printf(out, "llm.timeout = %gs\n", s->timeout_ms / 1000.0);
	sb_printf(out, "llm.connect_timeout = %gs\n", s->connect_timeout_ms / 1000.0);
	sb_printf(out, "llm.retries = %d\n", s->retries);
	sb_printf(out, "llm.backoff = %gs\n", s->backoff_ms / 1000.0);
	sb_printf(out, "llm.unreadable = %s\n", s->unreadable_warn ? "warn" : "fail");
	sb_printf(out, "concurrency = %d\n", s->concurrency);
	sb_printf(out, "cache = %s\n", s->no_cache ? "off" : llm->cache ? "on"
	                                                  : "off (not usable; :cache says why)");
	free(m);
	free(u);
}
