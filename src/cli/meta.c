/*
 * meta.c: the meta-commands, the lines starting with ':' where a statement would start, and
 * the session settings behind :set and --set. One table, meta_commands[], feeds dispatch,
 * :help and the manual page's META-COMMANDS section (suql --help-man meta-commands); one
 * table, settings[], does the same for the keys of :set. Commands are found by their name
 * or any unambiguous prefix of it (:q is :quit).
 *
 * Modules that bring their own commands (the importer's :import and :index, the LLM client's
 * :llm and :cache, the chat agent's :chat and :sql) implement a MetaFn and add one row to
 * meta_commands[]; see doc/program.md.
 */
#include "base/vis.h"
#include "chat/agent.h"
#include "cli/meta.h"
#include "cli/repl.h"
#include "import/import.h"
#include "store/catalog.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REPL(env) ((Repl *)(env)->repl)

/* ---- settings ---- */

typedef enum SetKind { SET_MODE, SET_BOOL, SET_TEXT, SET_AUTO, SET_SECONDS, SET_COUNT } SetKind;

typedef struct Setting {
	const char *key;
	SetKind kind;
	size_t off;          /* the field of Repl it sets */
	const char *values;
	const char *help;
} Setting;

static const Setting settings[] = {
	{"mode", SET_MODE, offsetof(Repl, mode), "MODE", "output mode: " RENDER_MODE_NAMES},
	{"headers", SET_BOOL, offsetof(Repl, headers), "on|off",
	 "column names above table, box and csv output (default on)"},
	{"nullvalue", SET_TEXT, offsetof(Repl, nullvalue), "TEXT",
	 "how table, box and line modes show NULL (default NULL)"},
	{"explain", SET_AUTO, offsetof(Repl, explain), "on|off|auto",
	 "show each statement's parsed SUQL and plan; auto (the default at a terminal): only "
	 "for statements with free text, so plain SQL looks as in sqlite3"},
	{"stats", SET_BOOL, offsetof(Repl, stats), "on|off",
	 "show the counters of statements with free text (default on at a terminal)"},
	{"timer", SET_BOOL, offsetof(Repl, timer), "on|off",
	 "show how long each statement took (default off)"},
	{"pager", SET_BOOL, offsetof(Repl, pager), "on|off",
	 "at a terminal, show results taller than the screen through $PAGER (default on; "
	 "less -S when PAGER is not set)"},
	{"timeout", SET_SECONDS, offsetof(Repl, timeout), "SECONDS",
	 "stop any statement that runs longer, with an error (default 0: no limit; --timeout)"},
	{"fetch_count", SET_COUNT, offsetof(Repl, fetch_count), "N",
	 "rows held before they are shown: past N, table and box show the rows in tables of "
	 "N, each as wide as its rows need (default 10000; 0: hold them all)"},
};
#define NSETTINGS ((int)(sizeof settings / sizeof *settings))

static void show_setting(Repl *r, const Setting *s, SBuf *b)
{
	void *f = (char *)r + s->off;
	sb_printf(b, "%s = ", s->key);
	if (s->kind == SET_MODE)
		sb_puts(b, render_mode_name(*(RenderMode *)f));
	else if (s->kind == SET_BOOL)
		sb_puts(b, *(int *)f ? "on" : "off");
	else if (s->kind == SET_AUTO)
		sb_puts(b, *(int *)f == REPL_AUTO ? "auto" : *(int *)f ? "on" : "off");
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
static void all_settings(Repl *r, SBuf *b)
{
	for (int i = 0; i < NSETTINGS; i++)
		show_setting(r, &settings[i], b);
	if (r->engine)
		engine_settings(r->engine, b);
	agent_settings(agent_of(r), b);
	if (r->llm)
		llm_settings(r->llm, b);
}

char **meta_setting_names(Repl *r)
{
	SBuf b = SBUF_INIT;
	all_settings(r, &b);
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

char *meta_setting_choices(Repl *r, const char *key)
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
	all_settings(r, &b);
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
static SuqlStatus set_llm(Repl *r, const char *key, const char *value, SuqlErr *err)
{
	return llm_set(r->llm, key, value, err);
}

static int is_llm_key(const char *key)
{
	return strncasecmp(key, "llm.", 4) == 0 || str_ieq(key, "concurrency") ||
	       str_ieq(key, "cache");
}

SuqlStatus meta_set(Repl *r, const char *key, const char *value, SuqlErr *err)
{
	for (int i = 0; i < NSETTINGS; i++) {
		const Setting *s = &settings[i];
		if (!str_ieq(key, s->key))
			continue;
		void *f = (char *)r + s->off;
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
				*(int *)f = REPL_AUTO;
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
		return agent_set(agent_of(r), key, value, err);
	if (is_llm_key(key)) {
		if (str_ieq(key, "llm.key"))
			repl_add_secret(r, value);
		return set_llm(r, key, value, err);
	}
	return engine_set(r->engine, key, value, err);
}

/* :set with no arguments (every setting), or with a key (that one). */
static SuqlStatus show_settings(Repl *r, const char *key, FILE *out, SuqlErr *err)
{
	SBuf b = SBUF_INIT, all = SBUF_INIT;
	all_settings(r, &all);
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

/* ---- the commands ---- */

static SuqlStatus usage(SuqlErr *err, const char *name);

static SuqlStatus m_quit(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	REPL(env)->quit = 1;
	return SUQL_OK;
}

/* :mode, :headers, :explain, :stats, :timer, :pager: a setting by its own name. */
static SuqlStatus m_setting(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return usage(err, argv[0]);
	if (argc == 1)
		return show_settings(REPL(env), argv[0], env->out, err);
	return meta_set(REPL(env), argv[0], argv[1], err);
}

static SuqlStatus m_set(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 3)
		return err_set(err, SUQL_USAGE, "too many arguments to :set (quote a value with "
		               "blanks: :set nullvalue '(none)')");
	if (argc < 3)
		return show_settings(REPL(env), argc == 2 ? argv[1] : NULL, env->out, err);
	return meta_set(REPL(env), argv[1], argv[2], err);
}

static SuqlStatus m_tables(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	sqlite3 *db = engine_db(env->engine);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, REPL_VISIBLE_TABLES " ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(env->out, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return SUQL_OK;
}

static SuqlStatus m_schema(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return usage(err, argv[0]);
	sqlite3 *db = engine_db(env->engine);
	sqlite3_stmt *st;
	const char *q = argc == 2
		? REPL_VISIBLE_TABLES " AND name = ?1 COLLATE NOCASE ORDER BY name"
		: REPL_VISIBLE_TABLES " ORDER BY name";
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	if (argc == 2)
		sqlite3_bind_text(st, 1, argv[1], -1, SQLITE_STATIC);
	SuqlStatus s = SUQL_OK;
	int n = 0;
	while (s == SUQL_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		char *ddl = NULL;
		if (strcmp(type, "table") == 0)
			s = catalog_ddl(db, name, 0, &ddl, err);
		else
			ddl = xprintf("%s;", sql ? sql : "");
		if (ddl)
			fprintf(env->out, "%s%s\n", n++ ? "\n" : "", ddl);
		free(ddl);
	}
	sqlite3_finalize(st);
	if (s == SUQL_OK && argc == 2 && n == 0)
		s = err_set(err, SUQL_ERROR, "no such table: %s", argv[1]);
	return s;
}

static SuqlStatus m_open(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return usage(err, argv[0]);
	if (repl_open(REPL(env), argv[1], err) != SUQL_OK)
		return SUQL_IO;
	if (env->tty)
		fprintf(env->err, "database: %s\n", argv[1]);
	return SUQL_OK;
}

static SuqlStatus m_read(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return usage(err, argv[0]);
	return repl_run_path(REPL(env), argv[1], err);
}

/* :output [FILE] and :once FILE */
static SuqlStatus m_output(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	int once = strcmp(argv[0], "once") == 0;
	if (argc > 2 || (once && argc != 2))
		return usage(err, argv[0]);
	return repl_set_output(REPL(env), argc == 2 ? argv[1] : NULL, once, err);
}

static SuqlStatus m_llm(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	SBuf b = SBUF_INIT;
	llm_describe(env->llm, &b);
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	return SUQL_OK;
}

static SuqlStatus m_cache(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "clear") != 0))
		return usage(err, argv[0]);
	if (argc == 2) {
		if (llm_cache_clear(env->llm, err) != SUQL_OK)
			return err->code;
		fputs("cache cleared\n", env->out);
		return SUQL_OK;
	}
	SBuf b = SBUF_INIT;
	llm_cache_describe(env->llm, &b);
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	return SUQL_OK;
}

/* :enum, :enum forget [TABLE.COLUMN [VALUE]] */
static SuqlStatus m_enum(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	SuqlStatus st;
	if (argc == 1) {
		st = engine_enum_list(env->engine, &b, err);
	} else if (strcmp(argv[1], "forget") == 0 && argc <= 4) {
		char *table = NULL, *column = NULL;
		if (argc >= 3) {
			char *dot = strrchr(argv[2], '.');
			if (!dot || dot == argv[2] || !dot[1])
				return err_set(err, SUQL_USAGE, ":enum forget takes TABLE.COLUMN, not '%s'",
				               argv[2]);
			table = xstrndup(argv[2], (size_t)(dot - argv[2]));
			column = xstrdup(dot + 1);
		}
		long n = 0;
		st = engine_enum_forget(env->engine, table, column, argc == 4 ? argv[3] : NULL, &n,
		                        err);
		if (st == SUQL_OK)
			sb_printf(&b, "forgot %ld mapping%s\n", n, n == 1 ? "" : "s");
		free(table);
		free(column);
	} else {
		return err_set(err, SUQL_USAGE, "usage: :enum, or :enum forget [TABLE.COLUMN [VALUE]]");
	}
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	return st;
}

/* :labels, :labels TABLE on|off */
static SuqlStatus m_labels(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	sqlite3 *db = engine_db(env->engine);
	if (argc == 1) {
		char **v;
		int n = catalog_prop_tables(db, CATALOG_LABELS, "on", &v);
		if (n == 0)
			fputs("no table is marked as holding evaluation labels\n", env->out);
		for (int i = 0; i < n; i++) {
			fprintf(env->out, "%s\n", v[i]);
			free(v[i]);
		}
		free(v);
		return SUQL_OK;
	}
	int on;
	if (argc != 3 || !str_parse_bool(argv[2], &on))
		return err_set(err, SUQL_USAGE, "usage: :labels, or :labels TABLE on|off");
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, REPL_VISIBLE_TABLES " AND type = 'table' AND name = ?1 COLLATE "
	                       "NOCASE", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, argv[1], -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (!found)
		return err_set(err, SUQL_ERROR, "no such table: %s", argv[1]);
	return catalog_prop_set(db, argv[1], CATALOG_LABELS, on ? "on" : NULL, err);
}

static SuqlStatus m_help(MetaEnv *env, int argc, char **argv, SuqlErr *err);

const MetaCommand meta_commands[] = {
	{"help", "[COMMAND]", "list the meta-commands, or describe one", m_help},
	{"quit", "", "leave suql (Ctrl-D does too)", m_quit},
	{"exit", "", "leave suql, like :quit", m_quit},
	{"tables", "", "list the tables and views", m_tables},
	{"schema", "[TABLE]", "show tables in SUQL DDL, with their FREE_TEXT and ENUM types",
	 m_schema},
	{"mode", "[MODE]", "show or set the output mode: " RENDER_MODE_NAMES, m_setting},
	{"headers", "[on|off]", "show or set whether column names head the output", m_setting},
	{"explain", "[on|off|auto]", "show or set whether each statement's parsed SUQL and plan "
	 "are shown (auto: for statements with free text)", m_setting},
	{"stats", "[on|off]", "show or set whether each statement's counters are shown", m_setting},
	{"pager", "[on|off]", "show or set whether long results at a terminal go through a pager",
	 m_setting},
	{"timer", "[on|off]", "show or set whether each statement's run time is shown", m_setting},
	{"set", "[KEY [VALUE]]", "show every setting, show one, or change one", m_set},
	{"open", "FILE", "close the database and open FILE (created when missing)", m_open},
	{"read", "FILE", "run the statements and meta-commands in FILE", m_read},
	{"output", "[FILE]", "send results (only the results) to FILE, or back to the standard "
	 "output", m_output},
	{"once", "FILE", "send the next statement's results to FILE", m_output},
	{"import", "FILE TABLE [--format csv|json|jsonl] [--types SPEC] [--array-sep SEP] "
	 "[--columns LIST] [--delimiter C] [--index]", "load a CSV, JSON or JSONL file into a table",
	 meta_import},
	{"index", "[TABLE]", "rebuild the retrieval index of free-text columns", meta_index},
	{"llm", "", "show the language model backend: URL, model, masked key, concurrency, cache",
	 m_llm},
	{"cache", "[clear]", "show the cache of model results (hits, entries, size), or clear it",
	 m_cache},
	{"labels", "[TABLE on|off]", "list the tables marked as holding evaluation labels (answer "
	 "keys), or mark one: chat mode neither shows them to the model nor reads them", m_labels},
	{"enum", "[forget [TABLE.COLUMN [VALUE]]]", "list the stored ENUM mappings (literal -> "
	 "values, and the model that made each), or forget them so they are classified again",
	 m_enum},
	{"chat", "", "chat mode: ask questions in plain words; each becomes a SUQL query, run "
	 "read-only, and an answer from its rows", agent_meta_chat},
	{"sql", "", "leave chat mode: lines are SUQL statements again", agent_meta_sql},
	{"history", "", "list the chat so far: each question, its SUQL, row count and reply",
	 agent_meta_history},
	{"reset", "", "forget the chat so far (the next question starts afresh)", agent_meta_reset},
	{"save", "FILE", "write the chat so far to FILE as JSON lines, one object per turn",
	 agent_meta_save},
	{NULL, NULL, NULL, NULL},
};

/* The command called name, or the only one name is a prefix of. */
static const MetaCommand *find_command(const char *name, SuqlErr *err)
{
	const MetaCommand *hit = NULL;
	int nhit = 0;
	size_t n = strlen(name);
	for (const MetaCommand *c = meta_commands; c->name; c++) {
		if (strcmp(c->name, name) == 0)
			return c;
		if (n && strncmp(c->name, name, n) == 0)
			hit = c, nhit++;
	}
	if (nhit == 1)
		return hit;
	if (nhit > 1) {
		SBuf b = SBUF_INIT;
		for (const MetaCommand *c = meta_commands; c->name; c++)
			if (strncmp(c->name, name, n) == 0)
				sb_printf(&b, "%s:%s", b.len ? ", " : "", c->name);
		err_set(err, SUQL_USAGE, "':%s' could be %s", name, b.s);
		sb_free(&b);
	} else {
		err_set(err, SUQL_USAGE, "unknown meta-command ':%s' (:help lists them)", name);
	}
	return NULL;
}

static SuqlStatus usage(SuqlErr *err, const char *name)
{
	const MetaCommand *c = find_command(name, NULL);
	return err_set(err, SUQL_USAGE, "usage: :%s%s%s", name, c && *c->args ? " " : "",
	               c ? c->args : "");
}

static SuqlStatus m_help(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	FILE *out = env->out;
	if (argc > 2)
		return usage(err, argv[0]);
	if (argc == 2) {
		const MetaCommand *c = find_command(argv[1][0] == ':' ? argv[1] + 1 : argv[1], err);
		if (!c)
			return SUQL_USAGE;
		fprintf(out, ":%s%s%s\n  %s\n", c->name, *c->args ? " " : "", c->args, c->help);
		if (c->fn == m_set || c->fn == m_setting) {
			fprintf(out, "Settings (:set KEY VALUE, or suql --set KEY=VALUE):\n");
			for (int i = 0; i < NSETTINGS; i++) {
				fprintf(out, "  %-11s %-11s ", settings[i].key, settings[i].values);
				render_wrap(out, settings[i].help, 26, 26, 80);
			}
			fprintf(out, "Other keys are the engine's (:set alone lists them) and the LLM "
			             "client's (llm.*).\n");
		}
		return SUQL_OK;
	}
	int w = 0;
	/* the column of descriptions fits the usual heads; a longer head (:import's) puts
	   its description on the next line, so no line grows past the terminal */
	enum { HEAD_MAX = 22, HELP_WIDTH = 80 };
	for (const MetaCommand *c = meta_commands; c->name; c++) {
		int cw = 1 + (int)strlen(c->name) + (*c->args ? 1 + (int)strlen(c->args) : 0);
		if (cw > w && cw <= HEAD_MAX)
			w = cw;
	}
	fprintf(out, "Meta-commands (one line, where a statement would start):\n");
	for (const MetaCommand *c = meta_commands; c->name; c++) {
		char *head = xprintf(":%s%s%s", c->name, *c->args ? " " : "", c->args);
		if ((int)strlen(head) > w) {
			fputs("  ", out);
			render_wrap(out, head, 2, 6, HELP_WIDTH);
			fprintf(out, "%*s", w + 4, "");
			render_wrap(out, c->help, w + 4, w + 4, HELP_WIDTH);
		} else {
			fprintf(out, "  %-*s  ", w, head);
			render_wrap(out, c->help, w + 4, w + 4, HELP_WIDTH);
		}
		free(head);
	}
	fprintf(out, "A command may be shortened while it stays unambiguous (:q for :quit).\n"
	             "Statements are SQL (SQLite's dialect) plus SUQL's answer(), summary() and\n"
	             "ENUM-aware '='; each ends with ';'. Ctrl-C stops a running statement.\n");
	return SUQL_OK;
}

/* ---- dispatch ---- */

/* Split a command line on blanks; '...' and "..." quote (the quotes are dropped). */
static int split_args(const char *s, char ***argv, SuqlErr *err)
{
	int argc = 0;
	*argv = NULL;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		SBuf a = SBUF_INIT;
		sb_puts(&a, "");
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				const char *e = strchr(s, q);
				if (!e) {
					sb_free(&a);
					err_set(err, SUQL_USAGE, "unterminated %c quote", q);
					return -1;
				}
				sb_putn(&a, s, (size_t)(e - s));
				s = e + 1;
			} else {
				sb_putc(&a, *s++);
			}
		}
		*argv = xrealloc(*argv, (size_t)(argc + 2) * sizeof **argv);
		(*argv)[argc++] = sb_steal(&a);
		(*argv)[argc] = NULL;
	}
	return argc;
}

SuqlStatus meta_run(Repl *r, const char *line, SuqlErr *err)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == ':')
		line++;
	char *l = xstrdup(line);
	size_t n = strlen(l);
	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
		n--;
	if (n && l[n - 1] == ';')   /* ":tables;" out of SQL habit */
		n--;
	l[n] = '\0';
	char **argv;
	int argc = split_args(l, &argv, err);
	free(l);
	if (argc < 0)
		return SUQL_USAGE;
	SuqlStatus st = argc == 0
		? err_set(err, SUQL_USAGE, "a meta-command name goes after ':' (:help lists them)")
		: meta_run_argv(r, argc, (const char *const *)argv, err);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return st;
}

SuqlStatus meta_run_argv(Repl *r, int argc, const char *const *argv, SuqlErr *err)
{
	const MetaCommand *c = find_command(argv[0][0] == ':' ? argv[0] + 1 : argv[0], err);
	if (!c)
		return SUQL_USAGE;
	/* the command sees its full name in argv[0], even when it was shortened */
	char **v = xcalloc((size_t)argc + 1, sizeof *v);
	v[0] = (char *)c->name;
	for (int i = 1; i < argc; i++)
		v[i] = (char *)argv[i];
	/* what a command writes (names, DDL, chat turns, settings) may quote the data or a
	   model: shown with its control characters made visible (vis.h) */
	FILE *out = vis_stream(r->out), *errf = vis_stream(stderr);
	MetaEnv env = {r->engine, r->llm, out ? out : r->out, errf ? errf : stderr, r->interactive,
	               r};
	SuqlStatus st = c->fn(&env, argc, v, err);
	if (out)
		fclose(out);
	if (errf)
		fclose(errf);
	free(v);
	return st;
}

/* ---- the manual page ---- */

void meta_man(SBuf *b)
{
	for (const MetaCommand *c = meta_commands; c->name; c++) {
		sb_puts(b, ".TP\n");
		if (*c->args) {
			sb_puts(b, ".BI \":");
			render_roff(b, c->name);
			sb_puts(b, " \" \"");
			render_roff(b, c->args);
			sb_puts(b, "\"\n");
		} else {
			sb_puts(b, ".B :");
			render_roff(b, c->name);
			sb_putc(b, '\n');
		}
		render_roff_sentence(b, c->help);
	}
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
