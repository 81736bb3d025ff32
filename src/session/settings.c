/*
 * settings.c: the settings behind :set and --set: the session's own (the display), then the
 * engine's, the chat agent's and the LLM client's, each module listing its own.
 */
#include "render/render.h"
#include "session/session.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum SetKind { SET_MODE, SET_BOOL, SET_TEXT, SET_AUTO, SET_SECONDS, SET_COUNT } SetKind;

typedef struct Setting {
	const char *key;
	SetKind kind;
	size_t off;          /* the field of Session it sets */
	const char *values;
	const char *help;
} Setting;

static const Setting settings[] = {
	{"mode", SET_MODE, offsetof(Session, mode), "MODE", "output mode: " RENDER_MODE_NAMES},
	{"headers", SET_BOOL, offsetof(Session, headers), "on|off",
	 "column names above table, box and csv output (default on)"},
	{"nullvalue", SET_TEXT, offsetof(Session, nullvalue), "TEXT",
	 "how table, box and line modes show NULL (default NULL)"},
	{"explain", SET_AUTO, offsetof(Session, explain), "on|off|auto",
	 "show each statement's parsed SUQL and plan; auto (the default at a terminal): only "
	 "for statements with free text, so plain SQL looks as in sqlite3"},
	{"stats", SET_BOOL, offsetof(Session, stats), "on|off",
	 "show the counters of statements with free text (default on at a terminal)"},
	{"timer", SET_BOOL, offsetof(Session, timer), "on|off",
	 "show how long each statement took (default off)"},
	{"pager", SET_BOOL, offsetof(Session, pager), "on|off",
	 "at a terminal, show results taller than the screen through $PAGER (default on; "
	 "less -S when PAGER is not set)"},
	{"timeout", SET_SECONDS, offsetof(Session, timeout), "SECONDS",
	 "stop any statement that runs longer, with an error (default 0: no limit; --timeout)"},
	{"fetch_count", SET_COUNT, offsetof(Session, fetch_count), "N",
	 "rows held before they are shown: past N, table and box show the rows in tables of "
	 "N, each as wide as its rows need (default 10000; 0: hold them all)"},
};
#define NSETTINGS ((int)(sizeof settings / sizeof *settings))

static void show_setting(Session *ses, const Setting *s, SBuf *b)
{
	void *f = (char *)ses + s->off;
	sb_printf(b, "%s = ", s->key);
	if (s->kind == SET_MODE)
		sb_puts(b, render_mode_name(*(RenderMode *)f));
	else if (s->kind == SET_BOOL)
		sb_puts(b, *(int *)f ? "on" : "off");
	else if (s->kind == SET_AUTO)
		sb_puts(b, *(int *)f == SESSION_AUTO ? "auto" : *(int *)f ? "on" : "off");
	else if (s->kind == SET_SECONDS)
		sb_printf(b, "%g", *(double *)f);
	else if (s->kind == SET_COUNT)
		sb_printf(b, "%ld", *(long *)f);
	else
		sb_puts(b, *(char **)f ? *(char **)f : "NULL");
	sb_putc(b, '\n');
}

/* Every setting as "key = value" lines: the REPL's (settings[]), then the engine's, the
   chat agent's and the LLM client's, each registry listing its own. */
static void all_settings(Session *ses, SBuf *b)
{
	for (int i = 0; i < NSETTINGS; i++)
		show_setting(ses, &settings[i], b);
	if (ses->engine)
		engine_settings(ses->engine, b);
	agent_settings(session_agent(ses), b);
	if (ses->llm)
		llm_settings(ses->llm, b);
}

char **session_setting_names(Session *ses)
{
	SBuf b = SBUF_INIT;
	all_settings(ses, &b);
	char **v = NULL;
	int n = 0;
	for (size_t a = 0; a < b.len;) {
		size_t e = a;
		while (e < b.len && b.s[e] != '\n')
			e++;
		size_t k = a;
		while (k < e && b.s[k] != ' ' && b.s[k] != '=')
			k++;
		if (k > a) {
			v = xrealloc(v, (size_t)(n + 2) * sizeof *v);
			v[n++] = xstrndup(b.s + a, k - a);
			v[n] = NULL;
		}
		a = e + 1;
	}
	sb_free(&b);
	return v;
}

char *session_setting_choices(Session *ses, const char *key)
{
	for (int i = 0; i < NSETTINGS; i++) {
		if (!str_ieq(key, settings[i].key))
			continue;
		if (settings[i].kind == SET_MODE) {
			SBuf b = SBUF_INIT;
			for (RenderMode m = RENDER_TABLE; m <= RENDER_LINE; m++)
				sb_printf(&b, "%s%s", b.len ? " " : "", render_mode_name(m));
			return sb_steal(&b);
		}
		return settings[i].kind == SET_BOOL ? xstrdup("on off")
		       : settings[i].kind == SET_AUTO ? xstrdup("on off auto") : NULL;
	}
	if (str_ieq(key, "optimize"))
		return xstrdup("on off passage");
	/* another registry's switch: its current value says on or off */
	SBuf b = SBUF_INIT;
	all_settings(ses, &b);
	char *found = NULL;
	size_t kl = strlen(key);
	for (size_t a = 0; a < b.len && !found;) {
		size_t e = a;
		while (e < b.len && b.s[e] != '\n')
			e++;
		if (e - a > kl + 3 && strncasecmp(b.s + a, key, kl) == 0 &&
		    strncmp(b.s + a + kl, " = ", 3) == 0) {
			const char *v = b.s + a + kl + 3;
			if (str_nieq(v, e - (a + kl + 3), "on") || str_nieq(v, e - (a + kl + 3), "off"))
				found = xstrdup("on off");
		}
		a = e + 1;
	}
	sb_free(&b);
	return found;
}

/* LLM settings (llm.url, llm.key, llm.model, llm.embed_model, llm.timeout, concurrency,
   cache) belong to the LLM client. */
static int is_llm_key(const char *key)
{
	return strncasecmp(key, "llm.", 4) == 0 || str_ieq(key, "concurrency") ||
	       str_ieq(key, "cache");
}

SuqlStatus session_set(Session *ses, const char *key, const char *value, SuqlErr *err)
{
	for (int i = 0; i < NSETTINGS; i++) {
		const Setting *s = &settings[i];
		if (!str_ieq(key, s->key))
			continue;
		void *f = (char *)ses + s->off;
		if (s->kind == SET_MODE) {
			if (!render_mode_parse(value, (RenderMode *)f))
				return err_set(err, SUQL_USAGE, "unknown mode '%s' (%s)", value,
				               RENDER_MODE_NAMES);
		} else if (s->kind == SET_BOOL) {
			if (!str_parse_bool(value, (int *)f))
				return err_set(err, SUQL_USAGE, "%s takes on or off, not '%s'", s->key,
				               value);
		} else if (s->kind == SET_AUTO) {
			if (str_ieq(value, "auto"))
				*(int *)f = SESSION_AUTO;
			else if (!str_parse_bool(value, (int *)f))
				return err_set(err, SUQL_USAGE, "%s takes on, off or auto, not '%s'",
				               s->key, value);
		} else if (s->kind == SET_SECONDS) {
			char *end;
			errno = 0;
			double d = strtod(value, &end);
			if (!*value || *end || errno || !(d >= 0 && d <= 1e6))
				return err_set(err, SUQL_USAGE, "%s takes a number of seconds from 0 (no "
				               "limit) to 1000000, not '%s'", s->key, value);
			*(double *)f = d;
		} else if (s->kind == SET_COUNT) {
			char *end;
			errno = 0;
			long n = strtol(value, &end, 10);
			if (!*value || *end || errno || n < 0 || n > 1000000000L)
				return err_set(err, SUQL_USAGE, "%s takes a whole number from 0 to "
				               "1000000000, not '%s'", s->key, value);
			*(long *)f = n;
		} else {
			free(*(char **)f);
			*(char **)f = xstrdup(value);
		}
		return SUQL_OK;
	}
	if (agent_is_setting(key))
		return agent_set(session_agent(ses), key, value, err);
	if (is_llm_key(key)) {
		if (str_ieq(key, "llm.key"))
			session_add_secret(ses, value);
		return llm_set(ses->llm, key, value, err);
	}
	return engine_set(ses->engine, key, value, err);
}

/* :set with no arguments (every setting), or with a key (that one). */
SuqlStatus session_show_settings(Session *ses, const char *key, FILE *out, SuqlErr *err)
{
	SBuf b = SBUF_INIT, all = SBUF_INIT;
	all_settings(ses, &all);
	size_t kl = key ? strlen(key) : 0;
	for (size_t a = 0; a < all.len;) {   /* keep the lines that start with key */
		size_t e = a, w = a;
		while (e < all.len && all.s[e] != '\n')
			e++;
		while (w < e && (all.s[w] == ' ' || all.s[w] == '\t'))
			w++;
		if (!key || (e - w > kl && strncasecmp(all.s + w, key, kl) == 0 &&
		             strchr(" =:\t", all.s[w + kl]))) {
			sb_putn(&b, all.s + a, e - a);
			sb_putc(&b, '\n');
		}
		a = e + 1;
	}
	sb_free(&all);
	SuqlStatus st = SUQL_OK;
	if (key && !b.len)
		st = err_set(err, SUQL_USAGE, "unknown setting '%s' (:set alone lists them)", key);
	else
		fputs(sb_str(&b), out);
	sb_free(&b);
	return st;
}

void session_settings_help(FILE *out)
{
	fprintf(out, "Settings (:set KEY VALUE, or suql --set KEY=VALUE):\n");
	for (int i = 0; i < NSETTINGS; i++) {
		fprintf(out, "  %-11s %-11s ", settings[i].key, settings[i].values);
		render_wrap(out, settings[i].help, 26, 26, 80);
	}
	fprintf(out, "Other keys are the engine's (:set alone lists them) and the LLM "
	             "client's (llm.*).\n");
}

void session_settings_man(SBuf *b)
{
	sb_puts(b, ".PP\nSettings, for\n.B :set\nand\n.BR \\-\\-set :\n");
	for (int i = 0; i < NSETTINGS; i++) {
		sb_puts(b, ".TP\n.BI \"");
		render_roff(b, settings[i].key);
		sb_puts(b, " \" \"");
		render_roff(b, settings[i].values);
		sb_puts(b, "\"\n");
		render_roff_sentence(b, settings[i].help);
	}
}
