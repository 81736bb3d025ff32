/*
 * meta.c: the meta-commands, the lines starting with ':' where a statement would start, and
 * the session settings behind :set and --set. One table, meta_commands[], feeds dispatch,
 * :help and the manual page's META-COMMANDS section (suql --help-man meta-commands); one
 * table, settings[], does the same for the keys of :set. Commands are found by their name
 * or any unambiguous prefix of it (:q is :quit).
 *
 * Commands that belong with a module (the importer's :import and :index in import_meta.c,
 * chat mode's :chat and :sql in meta_chat.c) are MetaFns with one row each in
 * meta_commands[]; see doc/program.md.
 */
#include "base/vis.h"
#include "cli/meta.h"
#include "store/catalog.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the commands ---- */

static SuqlStatus usage(SuqlErr *err, const char *name);

static SuqlStatus m_quit(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	env->r->quit = 1;
	return SUQL_OK;
}

/* :mode, :headers, :explain, :stats, :timer, :pager: a setting by its own name. */
static SuqlStatus m_setting(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	int insert = argc == 3 && strcmp(argv[0], "mode") == 0 && str_ieq(argv[1], "insert");
	if (argc > 2 && !insert)
		return usage(err, argv[0]);
	if (argc == 1)
		return session_show_settings(env->s, argv[0], env->out, err);
	if (insert) {   /* :mode insert TABLE */
		char *v = xprintf("insert %s", argv[2]);
		SuqlStatus st = session_set(env->s, argv[0], v, err);
		free(v);
		return st;
	}
	return session_set(env->s, argv[0], argv[1], err);
}

static SuqlStatus m_set(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 3)
		return err_set(err, SUQL_USAGE, "too many arguments to :set (quote a value with "
		               "blanks: :set nullvalue '(none)')");
	if (argc < 3)
		return session_show_settings(env->s, argc == 2 ? argv[1] : NULL, env->out, err);
	return session_set(env->s, argv[1], argv[2], err);
}

static SuqlStatus m_tables(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	StoreTable *t;
	int n;
	if (store_tables(engine_store(env->engine), &t, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	for (int i = 0; i < n; i++)
		fprintf(env->out, "%s\n", t[i].name);
	store_tables_free(t, n);
	return SUQL_OK;
}

static SuqlStatus m_schema(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return usage(err, argv[0]);
	Store *st = engine_store(env->engine);
	StoreTable *t;
	int n, shown = 0;
	if (store_tables(st, &t, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++) {
		if (argc == 2 && !str_ieq(t[i].name, argv[1]))
			continue;
		char *ddl = NULL;
		if (!t[i].view)
			s = catalog_ddl(st, t[i].name, 0, &ddl, err);
		else
			ddl = xprintf("%s;", t[i].sql ? t[i].sql : "");
		if (ddl)
			fprintf(env->out, "%s%s\n", shown++ ? "\n" : "", ddl);
		free(ddl);
	}
	store_tables_free(t, n);
	if (s == SUQL_OK && argc == 2 && shown == 0)
		s = err_set(err, SUQL_ERROR, "no such table: %s", argv[1]);
	return s;
}

static SuqlStatus m_open(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return usage(err, argv[0]);
	if (session_open(env->s, argv[1], err) != SUQL_OK)
		return SUQL_IO;
	if (env->tty)
		fprintf(env->err, "database: %s\n", argv[1]);
	return SUQL_OK;
}

static SuqlStatus m_read(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return usage(err, argv[0]);
	return repl_run_path(env->r, argv[1], err);
}

/* :output [FILE] and :once [--csv|--json|--markdown|--html|...] FILE: :once's results in
   the mode named, else the one its extension asks for (f.csv), else :mode's. */
static SuqlStatus m_output(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	int once = strcmp(argv[0], "once") == 0;
	const char *path = NULL;
	RenderMode m = RENDER_TABLE;
	int named = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (once && a[0] == '-' && a[1] == '-' && a[2]) {
			const char *name = str_ieq(a + 2, "md") ? "markdown" : a + 2;
			if (named || !render_mode_parse(name, &m))
				return err_set(err, SUQL_USAGE, "%s: :once takes one of --csv, --json, "
				               "--markdown, --html, --table, --box, --line, then FILE",
				               a);
			named = 1;
		} else if (!path) {
			path = a;
		} else {
			return usage(err, argv[0]);
		}
	}
	if (once && !path)
		return usage(err, argv[0]);
	if (once && !named)
		named = session_mode_of_path(path, &m);
	SuqlStatus s = session_set_output(env->s, path, once, err);
	if (s == SUQL_OK && named)
		session_once_mode(env->s, m);
	return s;
}

static SuqlStatus m_llm(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2 || (argc == 2 && !str_ieq(argv[1], "test") && !str_ieq(argv[1], "models") &&
	                 !str_ieq(argv[1], "probe")))
		return usage(err, argv[0]);
	SBuf b = SBUF_INIT;
	SuqlStatus s = SUQL_OK;
	if (argc == 1)
		llm_describe(env->llm, &b);
	else if (str_ieq(argv[1], "test"))
		s = llm_test(env->llm, &b, err);
	else if (str_ieq(argv[1], "models"))
		s = llm_models(env->llm, &b, err);
	else if (llm_probe_local(&b) == 0)
		sb_puts(&b, "no server listens on the probed ports (those of SUQL_PROBE, else "
		        "127.0.0.1: 11434, 8080 and 8000)\n");
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	return s;
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

/* :cost: this session's spend (llm_spend_report), one JSON object in the json mode */
static SuqlStatus m_cost(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return usage(err, argv[0]);
	SBuf b = SBUF_INIT;
	llm_spend_report(env->llm, env->s->mode == RENDER_JSON, &b);
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	return SUQL_OK;
}

/* :bulk [status|resume|cancel|list] [N] */
static SuqlStatus m_bulk(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 3)
		return usage(err, argv[0]);
	return session_bulk(env->s, argc > 1 ? argv[1] : "status", argc > 2 ? argv[2] : NULL,
	                    env->out, err);
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
	Store *st = engine_store(env->engine);
	if (argc == 1) {
		char **v;
		int n = catalog_prop_tables(st, CATALOG_LABELS, "on", &v);
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
	StoreTable *t;
	int n, found = 0;
	if (store_tables(st, &t, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	for (int i = 0; i < n; i++)
		found |= !t[i].view && str_ieq(t[i].name, argv[1]);
	store_tables_free(t, n);
	if (!found)
		return err_set(err, SUQL_ERROR, "no such table: %s", argv[1]);
	return catalog_prop_set(st, argv[1], CATALOG_LABELS, on ? "on" : NULL, err);
}

/* :why N | key=K | LABEL: the evidence behind a row of the last result, from the record
   the statement kept (no call to the model). */
static SuqlStatus m_why(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	SBuf arg = SBUF_INIT, out = SBUF_INIT;
	for (int i = 1; i < argc; i++)
		sb_printf(&arg, "%s%s", i > 1 ? " " : "", argv[i]);
	SuqlStatus st = engine_record_why(env->engine, sb_str(&arg), &out, err);
	if (st == SUQL_OK)
		fputs(sb_str(&out), env->out);
	sb_free(&arg);
	sb_free(&out);
	return st;
}

/* :chart [LABEL [VALUE...]], :chart hist COLUMN [BINS]: drawn on the results' own stream
   (a chart's colours must reach the terminal; the labels are made safe where they are
   drawn). */
static SuqlStatus m_chart(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	fflush(env->out);
	return session_chart(env->s, argc - 1, argv + 1, env->s->out, env->err, err);
}

static SuqlStatus m_help(MetaEnv *env, int argc, char **argv, SuqlErr *err);

const MetaCommand meta_commands[] = {
	{"help", "[COMMAND|FUNCTION|SETTING]", "list the meta-commands, or describe one, a SUQL "
	 "function with an example (:help answer; :help functions lists them) or a setting "
	 "(:help show; :help set describes them all)", m_help},
	{"quit", "", "leave suql (Ctrl-D does too)", m_quit},
	{"exit", "", "leave suql, like :quit", m_quit},
	{"tables", "", "list the tables and views", m_tables},
	{"schema", "[TABLE]", "show tables in SUQL DDL, with their FREE_TEXT and ENUM types",
	 m_schema},
	{"mode", "[MODE [TABLE]]", "show or set the output mode: " RENDER_MODE_NAMES " (insert "
	 "TABLE: the table its INSERT statements name, \"table\" when none is given)", m_setting},
	{"headers", "[on|off]", "show or set whether column names head the output", m_setting},
	{"explain", "[on|off|auto|rows]", "show or set whether each statement's parsed SUQL and "
	 "plan are shown (auto: for statements with free text; rows: and one line per candidate "
	 "examined)", m_setting},
	{"why", "N|key=K|LABEL", "the evidence behind row N of the last result (or the row or "
	 "examined candidate with key K, or whose label starts with LABEL): each free-text value, "
	 "the question, the reply, the passages shown, the request and the cache", m_why},
	{"stats", "[on|off]", "show or set whether each statement's counters are shown", m_setting},
	{"chart", "[LABEL [VALUE...]] | hist COLUMN [BINS]", "draw the last result as a bar "
	 "chart: a bar for each row, labelled by the first text column and as long as the first "
	 "numeric one, or by the columns named (several VALUEs: a group of bars a row); hist: a "
	 "histogram of one numeric column; in the html mode an SVG image", m_chart},
	{"pager", "[on|off]", "show or set whether long results at a terminal go through a pager",
	 m_setting},
	{"timer", "[on|off]", "show or set whether each statement's run time is shown", m_setting},
	{"set", "[KEY [VALUE]]", "show every setting, show one, or change one", m_set},
	{"open", "FILE", "close the database and open FILE (created when missing)", m_open},
	{"conninfo", "", "say which database is open: SQLite's file (or memory), or PostgreSQL's "
	 "database, user and server (psql's \\conninfo)", meta_conninfo},
	{"databases", "", "list the databases: on PostgreSQL the server's (psql's \\l), on "
	 "SQLite the files attached (the sqlite3 shell's .databases)", meta_databases},
	{"read", "FILE", "run the statements and meta-commands in FILE", m_read},
	{"watch", "[SECONDS] [c=COUNT]", "run the last statement again every SECONDS (default 2) "
	 "until Ctrl-C, or COUNT times (psql's \\watch; i=SECONDS too)", meta_watch},
	{"edit", "[FILE]", "open $EDITOR (else $VISUAL, else vi) on the last statement, or on "
	 "FILE, and run what is saved (psql's \\e)", meta_edit},
	{"echo", "[TEXT]", "write TEXT where results go (the sqlite3 shell's .print)", meta_echo},
	{"syntax", "[STATEMENT]", "the syntax of a statement (SELECT, INSERT, UPDATE, DELETE, "
	 "CREATE TABLE with SUQL's types, WITH, EXPLAIN, ...), or the list of them (psql's \\h)",
	 meta_syntax},
	{"output", "[FILE]", "send results (only the results) to FILE, or back to the standard "
	 "output", m_output},
	{"once", "[--csv|--json|--markdown|--html] FILE", "send the next statement's results to "
	 "FILE, in the mode named, else the one its extension says (.csv, .json, .md, .html), "
	 "else :mode's", m_output},
	{"import", "FILE TABLE [--format csv|json|jsonl] [--types SPEC] [--array-sep SEP] "
	 "[--columns LIST] [--delimiter C] [--encoding NAME] [--index]", "load a CSV, JSON or JSONL file into a table",
	 meta_import},
	{"index", "[TABLE]", "rebuild the retrieval index of free-text columns", meta_index},
	{"llm", "[test|models|probe]", "show the language model backend: URL, model, masked key, "
	 "concurrency, cache; test: one tiny request (latency, the model that answers, whether "
	 "JSON schema, log-probabilities and streaming are accepted, tokens); models: the "
	 "endpoint's models; probe: servers listening on the usual local ports (nothing is sent)",
	 m_llm},
	{"cache", "[clear]", "show the cache of model results (hits, entries, size), or clear it",
	 m_cache},
	{"log", "[-n N] [--json] | clear", "the request log, newest first (10 entries, or N): "
	 "each request to the model with its statement, model and endpoint, the prompt as sent "
	 "and the raw reply (cut to a few lines), tokens, cost, latency and status; cache "
	 "answers and offline calls marked as such; --json: one JSON object a line with every "
	 "column and the full texts; clear: delete every entry", meta_log},
	{"cost", "", "what this session has spent so far, per model (and endpoint): requests, "
	 "tokens in (cached) and out (reasoning), dollars at the model's price, and requests "
	 "cancelled in flight that may be billed; one JSON object in the json mode", m_cost},
	{"bulk", "[status|resume|cancel|list] [N]", "bulk mode's batches (llm.bulk): the "
	 "progress of the latest (or of batch N) and when it is expected done; resume: read its "
	 "replies into the cache and run its statement again (also after a restart; one process "
	 "at a time, and a write commits once); cancel it; list them, each with its endpoint. A "
	 "batch is asked of the endpoint and model it was submitted to only: at another, status, "
	 "resume and cancel refuse and say how to switch back", m_bulk},
	{"labels", "[TABLE on|off]", "list the tables marked as holding evaluation labels (answer "
	 "keys), or mark one: chat mode neither shows them to the model nor reads them", m_labels},
	{"enum", "[forget [TABLE.COLUMN [VALUE]]]", "list the stored ENUM mappings (literal -> "
	 "values, and the model that made each), or forget them so they are classified again",
	 m_enum},
	{"chat", "", "chat mode: ask questions in plain words; each becomes a SUQL query, run "
	 "read-only, and an answer from its rows", meta_chat},
	{"sql", "", "leave chat mode: lines are SUQL statements again", meta_sql},
	{"history", "", "list the chat so far: each question, its SUQL, row count and reply",
	 meta_history},
	{"reset", "", "forget the chat so far (the next question starts afresh)", meta_reset},
	{"save", "FILE", "write the chat so far to FILE as JSON lines, one object per turn",
	 meta_save},
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
		const char *name = argv[1][0] == ':' ? argv[1] + 1 : argv[1];
		int width = render_term_width(env->s->out);
		const MetaCommand *c = NULL;
		for (const MetaCommand *k = meta_commands; k->name && !c; k++)
			if (strcmp(k->name, name) == 0)
				c = k;
		/* a meta-command by its name, then a SUQL function (:help answer) or a setting
		   (:help show), then a meta-command by a prefix of its name */
		if (!c && argv[1][0] != ':' && (meta_help_function(out, name, width) ||
		                                session_setting_help(out, name, width)))
			return SUQL_OK;
		if (!c && !(c = find_command(name, err))) {
			if (err->msg && strncmp(err->msg, "unknown", 7) == 0)
				err_set(err, SUQL_USAGE, "no meta-command, SUQL function or setting '%s' (:help "
				        "lists the meta-commands, :help functions the functions, :help set "
				        "the settings)", name);
			return SUQL_USAGE;
		}
		fprintf(out, ":%s%s%s\n  ", c->name, *c->args ? " " : "", c->args);
		render_wrap(out, c->help, 2, 2, width > 0 && width < 80 ? width : 80);
		if (c->fn == m_set || c->fn == m_setting)
			session_settings_help(out, c->fn == m_set, width);
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
	             "ENUM-aware '='; each ends with ';'. Ctrl-C stops a running statement.\n"
	             ":help functions lists SUQL's functions; :help answer describes one.\n");
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
	FILE *out = vis_stream(r->s.out), *errf = vis_stream(stderr);
	MetaEnv env = {r->s.engine, r->s.llm, out ? out : r->s.out, errf ? errf : stderr,
	               r->s.interactive, r, &r->s};
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
}
