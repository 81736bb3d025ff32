/*
 * main.c: the suql program: `suql [options] [DATABASE [SQL...]]`. It reads the options from
 * one table, options[], which also writes --help and the manual page's OPTIONS section
 * (suql --help-man options); every long option is also accepted with one dash, as the
 * sqlite3 shell spells its options (-csv, -header, -cmd). It opens the database, runs the
 * init file, and then either runs the -c and -f scripts and the SQL arguments in order, or
 * starts the REPL when both stdin and stdout are a terminal, or runs stdin as a script.
 * The exit status is a SuqlExit (base/suql.h, which states their precedence): 0 every
 * statement succeeded, 1 a statement failed, 2 a usage or system error (bad option,
 * database or file that cannot be opened), 3 the LLM backend failed, 130 a script stopped
 * by Ctrl-C.
 * With --eval BENCH it runs a benchmark instead (eval.h).
 */
#include "cli/complete_shell.h"
#include "cli/main_int.h"
#include "cli/meta.h"
#include "eval/eval.h"
#include "llm/llm.h"

#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static SuqlStatus opt_command(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_file(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_flag(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_mode(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_set(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_timeout(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_version(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_help(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_llm(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_import(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_chat(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_help_man(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_eval(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_cmd(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_init(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_pg(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_variable(Cli *, const CliOption *, const char *, SuqlErr *);
static SuqlStatus opt_completion(Cli *, const CliOption *, const char *, SuqlErr *);

static const CliOption options[] = {
	{'c', "command", "SQL", "run SQL (statements, or one meta-command) and exit; may be "
	 "repeated, and runs in order with -f", opt_command},
	{'f', "file", "FILE", "run the script FILE (- for stdin) and exit; may be repeated",
	 opt_file},
	{0, "cmd", "COMMAND", "run COMMAND (statements, or one meta-command) first, then go on "
	 "to the REPL or the script; may be repeated", opt_cmd},
	{0, "bail", NULL, "stop at the first statement that fails (as the variable "
	 "ON_ERROR_STOP does)", opt_flag},
	{0, "echo", NULL, "write each statement and meta-command before it runs, as the sqlite3 "
	 "shell's -echo does (like :set echo on)", opt_flag},
	{'m', "mode", "MODE", "output mode: " RENDER_MODE_NAMES " (default table); a model is "
	 "chosen with --model", opt_mode},
	{0, "table", NULL, "the same as --mode table", opt_mode},
	{0, "box", NULL, "the same as --mode box", opt_mode},
	{0, "csv", NULL, "the same as --mode csv", opt_mode},
	{0, "json", NULL, "the same as --mode json", opt_mode},
	{0, "line", NULL, "the same as --mode line", opt_mode},
	{0, "markdown", NULL, "the same as --mode markdown", opt_mode},
	{0, "html", NULL, "the same as --mode html", opt_mode},
	{0, "column", NULL, "the same as --mode column", opt_mode},
	{0, "list", NULL, "the same as --mode list", opt_mode},
	{0, "tabs", NULL, "the same as --mode tabs", opt_mode},
	{0, "quote", NULL, "the same as --mode quote", opt_mode},
	{0, "nullvalue", "TEXT", "show NULL as TEXT in table, box, line, markdown and html output "
	 "(like :set nullvalue)", opt_set},
	{0, "no-headers", NULL, "leave the column names out of table, box and csv output",
	 opt_flag},
	{0, "noheader", NULL, "the same as --no-headers", opt_flag},
	{0, "header", NULL, "put the column names in (the default)", opt_flag},
	{0, "init", "FILE", "run FILE at start instead of the init file (see FILES)", opt_init},
	{0, "no-init", NULL, "do not run the init file", opt_init},
	{0, "readonly", NULL, "open the database read-only (on PostgreSQL, every statement in a "
	 "read-only transaction it cannot change; see POSTGRESQL)", opt_flag},
	{0, "pg", "CONNINFO", "use the PostgreSQL database CONNINFO (a libpq connection string "
	 "such as 'host=db dbname=shop', or a postgresql:// URI; PG* variables and ~/.pgpass "
	 "fill in the rest) instead of a SQLite DATABASE; arguments after the options are SQL",
	 opt_pg},
	{'v', "explain", NULL, "show each statement's parsed SUQL, plan and counters before its "
	 "result (:explain on; a terminal shows them for free text alone), on stderr when "
	 "stdout is not a terminal. -v followed by a word NAME=VALUE (NAME of letters, digits "
	 "and underscores) sets that psql variable instead, as psql's -v does; so does "
	 "-vNAME=VALUE", opt_flag},
	{0, "variable", "NAME=VALUE", "set the psql variable NAME to VALUE before anything runs, "
	 "like \\set NAME VALUE (ON_ERROR_STOP=1 stops at the first error); may be repeated",
	 opt_variable},
	{0, "no-color", NULL, "never use colour (it is used only on a terminal, and never when "
	 "NO_COLOR is set)", opt_flag},
	{0, "ascii", NULL, "draw tables and charts with ASCII characters alone (like :set ascii "
	 "on)", opt_set},
	{'s', "set", "KEY=VALUE", "change a setting before anything runs, like :set KEY VALUE; "
	 "may be repeated. A KEY that is no setting and is written in capitals "
	 "(ON_ERROR_STOP=1) sets that psql variable, as psql's --set does", opt_set},
	{0, "timeout", "SECONDS", "stop any statement that runs longer than SECONDS, with an "
	 "error (like :set timeout; default: no limit)", opt_timeout},
	{0, "offline", NULL, "use the offline lexical backend even when an endpoint is "
	 "configured", opt_llm},
	{0, "llm-url", "URL", "base URL of an OpenAI-compatible endpoint (e.g. "
	 "http://localhost:11434/v1); a request waits at most llm.timeout (60 s) for its "
	 "reply and is asked once more, so a server that hangs stops a statement after about "
	 "2 minutes", opt_llm},
	{0, "model", "NAME", "the chat model to use", opt_llm},
	{0, "embed-model", "NAME", "the embedding model (retrieval then mixes embeddings with BM25)",
	 opt_llm},
	{0, "no-cache", NULL, "neither read nor write the cache of model results", opt_llm},
	{0, "concurrency", "N", "model requests in flight at once (default 8)", opt_llm},
	{0, "prompts", "DIR", "read prompt templates from DIR, file by file, before the built-in "
	 "ones", opt_llm},
	{0, "import", "FILE TABLE", "load a CSV, JSON or JSONL file into TABLE before anything else "
	 "runs; the words after TABLE may be :import's options (--types SPEC, --format F, "
	 "--array-sep S, --columns LIST, --delimiter C, --encoding NAME, --index)", opt_import},
	{0, "chat", NULL, "start in chat mode (:chat): each line is a question in plain words; "
	 "needs a language model", opt_chat},
	{0, "eval", "BENCH", "evaluate suql on the benchmark BENCH (JSONL: questions with gold "
	 "answers) over DATABASE: print precision, recall, F1 or exact match, with model calls "
	 "and tokens, and exit", opt_eval},
	{0, "way", "WAYS", "with --eval: how the questions run: suql (each case's gold SUQL), "
	 "chat (the chat agent), linearize (rows as text passages, BM25, the model reads them), "
	 "comma-separated, or all", opt_eval},
	{0, "report", "FILE", "with --eval: write each case's result to FILE as a JSON line; an "
	 "existing FILE is resumed", opt_eval},
	{'V', "version", NULL, "print the version and exit", opt_version},
	{'h', "help", NULL, "print this help and exit", opt_help},
	{0, "help-man", "SECTION", "print the manual page's OPTIONS, META-COMMANDS, SETTINGS or "
	 "FUNCTIONS section, in man(7) source, and exit", opt_help_man},
	{0, "completion", "SHELL", "print the command-line completion script for SHELL (bash or "
	 "zsh), made from this table of options, and exit (make install installs both)",
	 opt_completion},
	{0, NULL, NULL, NULL, NULL},
};

const CliOption *cli_options(void)
{
	return options;
}

/* ---- the options ---- */

/* "error: MSG" on stderr, with its control characters shown (vis.h): a message may quote
   a file name or a configuration value. At a terminal it breaks at blanks. */
static void print_error(const char *msg)
{
	fputs("error: ", stderr);
	render_message(stderr, 7, msg, render_term_width(stderr));
}

/* "error: WHATNAME: MSG" */
static void print_error2(const char *what, const char *name, const char *msg)
{
	char *m = xprintf("%s%s: %s", what, name, msg);
	print_error(m);
	free(m);
}

static Action *add_action(Cli *cli, ActKind kind, const char *text, int exits)
{
	cli->acts = xrealloc(cli->acts, (size_t)(cli->nacts + 1) * sizeof *cli->acts);
	Action *a = &cli->acts[cli->nacts++];
	*a = (Action){0};
	a->kind = kind;
	a->text = text;
	a->runs_and_exits = exits;
	return a;
}

static SuqlStatus opt_command(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)err;
	add_action(cli, ACT_SQL, arg, 1);
	return SUQL_OK;
}

static SuqlStatus opt_file(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)err;
	add_action(cli, ACT_FILE, arg, 1);
	return SUQL_OK;
}

/* -cmd COMMAND: like -c, but the program goes on to the REPL or stdin afterwards. */
static SuqlStatus opt_pg(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)err;
	free(cli->pg);
	cli->pg = xprintf("pg:%s", arg);   /* store_pg_target: a conninfo follows "pg:" */
	cli->db = cli->pg;
	return SUQL_OK;
}

static SuqlStatus opt_cmd(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)err;
	add_action(cli, ACT_SQL, arg, 0);
	return SUQL_OK;
}

static SuqlStatus opt_init(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)err;
	if (strcmp(o->name, "no-init") == 0) {
		cli->no_init = 1;
	} else {
		cli->init = arg;
		cli->no_init = 0;
	}
	return SUQL_OK;
}

static SuqlStatus opt_flag(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)arg, (void)err;
	if (strcmp(o->name, "bail") == 0)
		cli->bail = 1;
	else if (strcmp(o->name, "no-headers") == 0 || strcmp(o->name, "noheader") == 0)
		cli->no_headers = 1;
	else if (strcmp(o->name, "header") == 0)
		cli->no_headers = 0;
	else if (strcmp(o->name, "readonly") == 0)
		cli->readonly = 1;
	else if (strcmp(o->name, "explain") == 0)
		cli->verbose = 1;
	else if (strcmp(o->name, "no-color") == 0)
		cli->no_color = 1;
	else if (strcmp(o->name, "echo") == 0)
		cli->echo = 1;
	return SUQL_OK;
}

/* -v NAME=VALUE and --variable NAME=VALUE: applied before the init file, as psql does. */
static SuqlStatus opt_variable(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o;
	if (!cli_assignment(arg))
		return err_set(err, SUQL_USAGE, "--variable takes NAME=VALUE (NAME of letters, digits "
		               "and underscores), not '%s'", arg);
	cli->vars = xrealloc(cli->vars, (size_t)(cli->nvars + 1) * sizeof *cli->vars);
	cli->vars[cli->nvars++] = arg;
	return SUQL_OK;
}

static SuqlStatus opt_mode(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	const char *name = arg ? arg : o->name;   /* --mode csv, or --csv */
	if (render_mode_parse(name, &cli->mode)) {
		cli->mode_set = 1;
		return SUQL_OK;
	}
	/* -m gpt-4o-mini, as llm's -m names a model: a model's name has a digit or a
	   separator (gpt-4o-mini, llama3, qwen2.5:7b), a mode's none */
	if (strpbrk(name, "0123456789-.:/"))
		return err_set(err, SUQL_USAGE, "--mode: unknown mode '%s' (%s)\nhint: -m and --mode "
		               "choose the output mode; a model is chosen with --model %s", name,
		               RENDER_MODE_NAMES, name);
	return err_set(err, SUQL_USAGE, "--mode: unknown mode '%s' (%s)", name, RENDER_MODE_NAMES);
}


static SuqlStatus opt_set(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	if (strcmp(o->name, "nullvalue") == 0)   /* --nullvalue TEXT: --set nullvalue=TEXT */
		arg = cli_keep(cli, xprintf("nullvalue=%s", arg));
	else if (strcmp(o->name, "ascii") == 0)   /* --ascii: --set ascii=on */
		arg = "ascii=on";
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return err_set(err, SUQL_USAGE, "--set takes KEY=VALUE, not '%s'", arg);
	cli->sets = xrealloc(cli->sets, (size_t)(cli->nsets + 1) * sizeof *cli->sets);
	cli->sets[cli->nsets++] = arg;
	return SUQL_OK;
}

static SuqlStatus opt_timeout(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)err;
	cli->timeout = arg;   /* checked with the setting, before anything runs */
	return SUQL_OK;
}

/* The LLM options fill the LlmConfig that llm_open resolves (options first, then the
   environment, then the config file). */
static SuqlStatus opt_llm(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	LlmConfig *c = &cli->llm;
	if (strcmp(o->name, "offline") == 0) {
		c->offline = 1;
	} else if (strcmp(o->name, "llm-url") == 0) {
		c->url = arg;
	} else if (strcmp(o->name, "model") == 0) {
		c->model = arg;
	} else if (strcmp(o->name, "embed-model") == 0) {
		c->embed_model = arg;
	} else if (strcmp(o->name, "no-cache") == 0) {
		c->no_cache = 1;
	} else if (strcmp(o->name, "prompts") == 0) {
		c->prompts_dir = arg;
	} else if (strcmp(o->name, "concurrency") == 0) {
		const SetRow *row = setting_find(&llm_settings_table, "concurrency");
		long n;
		if (!setting_parse_long(arg, row->min, row->max, &n))
			return err_set(err, SUQL_USAGE, "--concurrency takes a number from %.0f to %.0f, "
			               "not '%s'", row->min, row->max, arg);
		c->concurrency = (int)n;
	}
	return SUQL_OK;
}

/* --import FILE TABLE [its options]: getopt hands over FILE; TABLE and the :import options
   that follow are taken here, so they reach the importer rather than suql's own parser. */
static SuqlStatus opt_import(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o;
	static const char *const with_value[] = {"--format", "--types", "--array-sep", "--columns",
	                                         "--delimiter", "--encoding", NULL};
	if (optind >= cli->argc || cli->argv[optind][0] == '-')
		return err_set(err, SUQL_USAGE, "--import takes FILE TABLE");
	Action *a = add_action(cli, ACT_META, NULL, 0);
	a->argv[a->argc++] = "import";
	a->argv[a->argc++] = arg;
	a->argv[a->argc++] = cli->argv[optind++];
	while (optind < cli->argc && a->argc + 2 < 16) {
		const char *w = cli->argv[optind];
		int takes = -1;
		for (int i = 0; with_value[i]; i++)
			if (strcmp(w, with_value[i]) == 0)
				takes = 1;
		if (strcmp(w, "--index") == 0)
			takes = 0;
		if (takes < 0)
			break;
		if (takes && optind + 1 >= cli->argc)
			return err_set(err, SUQL_USAGE, "--import: %s needs a value", w);
		a->argv[a->argc++] = cli->argv[optind++];
		if (takes)
			a->argv[a->argc++] = cli->argv[optind++];
	}
	return SUQL_OK;
}

/* --chat: :chat before the REPL or the stdin script (see main for a failure). */
static SuqlStatus opt_chat(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)arg, (void)err;
	Action *a = add_action(cli, ACT_META, NULL, 0);
	a->argv[a->argc++] = "chat";
	cli->chat = 1;
	return SUQL_OK;
}

static SuqlStatus opt_eval(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)err;
	if (strcmp(o->name, "eval") == 0)
		cli->eval = arg;
	else if (strcmp(o->name, "way") == 0)
		cli->way = arg;
	else
		cli->report = arg;
	return SUQL_OK;
}

static SuqlStatus opt_version(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)arg, (void)err;
	SuqlErr pqerr = {0};
	int pq = store_pg_libversion(&pqerr);   /* 150018: 15.18 */
	if (pq)
		printf("suql %s (SQLite %s, libpq %d.%d)\n", SUQL_VERSION, sqlite3_libversion(),
		       pq / 10000, pq % 10000);
	else
		printf("suql %s (SQLite %s; %s)\n", SUQL_VERSION, sqlite3_libversion(), pqerr.msg);
	err_clear(&pqerr);
	cli->done = 1;
	return SUQL_OK;
}

static char *option_head(const CliOption *o)
{
	SBuf b = SBUF_INIT;
	if (o->shortname)
		sb_printf(&b, "-%c, ", o->shortname);
	else
		sb_puts(&b, "    ");
	sb_printf(&b, "--%s", o->name);
	if (o->arg)
		sb_printf(&b, " %s", o->arg);
	return sb_steal(&b);
}

/* Whether `man suql` finds the page: in a directory of $MANPATH, beside the program
   (PREFIX/bin/suql and PREFIX/share/man), or in the usual places. */
static int man_installed(void)
{
	SBuf dirs = SBUF_INIT;
	const char *mp = getenv("MANPATH");
	if (mp && *mp)
		sb_printf(&dirs, "%s:", mp);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			sb_printf(&dirs, "%s/../share/man:", exe);
		}
	}
	sb_puts(&dirs, "/usr/local/share/man:/usr/share/man:/usr/local/man");
	int found = 0;
	for (char *d = dirs.s; d && *d && !found;) {
		char *e = strchr(d, ':');
		size_t dl = e ? (size_t)(e - d) : strlen(d);
		char *path = xprintf("%.*s/man1/suql.1", (int)dl, d);
		found = dl > 0 && access(path, R_OK) == 0;
		free(path);
		d = e ? e + 1 : NULL;
	}
	sb_free(&dirs);
	return found;
}

static SuqlStatus opt_help(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o, (void)arg, (void)err;
	printf("Usage: suql [options] [DATABASE [SQL...]]\n\n"
	       "SUQL (SQL with free-text questions: answer(), summary(), ENUM-aware '=') over a\n"
	       "SQLite DATABASE, in memory when none is given. SQL after the DATABASE runs like\n"
	       "-c. With a terminal on stdin and stdout, an interactive REPL; otherwise stdin is\n"
	       "read as a script.\n\nOptions:\n");
	size_t w = 0;
	for (const CliOption *p = options; p->name; p++) {
		char *h = option_head(p);
		if (strlen(h) > w)
			w = strlen(h);
		free(h);
	}
	for (const CliOption *p = options; p->name; p++) {
		char *h = option_head(p);
		printf("  %-*s  ", (int)w, h);
		render_wrap(stdout, p->help, (int)w + 4, (int)w + 4, 79);
		free(h);
	}
	printf("\nEvery long option may also be written with one dash, as in sqlite3 (-csv,\n"
	       "-header, -cmd).\n");
	printf("\nExit status: 0 success, 1 a statement failed, 2 usage or system error,\n"
	       "3 the LLM backend failed, 130 stopped by Ctrl-C. Meta-commands: :help.\n");
	if (man_installed())
		printf("Everything else: man suql.\n");
	else
		printf("Everything else: the manual page, not installed here: man ./man/suql.1 in\n"
		       "the source tree (make install puts it where man suql finds it).\n");
	cli->done = 1;
	return SUQL_OK;
}

static void options_man(SBuf *b)
{
	for (const CliOption *p = options; p->name; p++) {
		SBuf head = SBUF_INIT;
		if (p->shortname)
			sb_printf(&head, "-%c, ", p->shortname);
		sb_printf(&head, "--%s", p->name);
		sb_puts(b, ".TP\n");
		sb_puts(b, p->arg ? ".BI \"" : ".B \"");
		render_roff(b, head.s);
		if (p->arg) {   /* quoted: an argument of two words stays one (FILE TABLE) */
			sb_puts(b, " \" \"");
			render_roff(b, p->arg);
			sb_putc(b, '"');
		} else {
			sb_putc(b, '"');
		}
		sb_putc(b, '\n');
		render_roff_sentence(b, p->help);
		sb_free(&head);
	}
}

static SuqlStatus opt_help_man(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o;
	SBuf b = SBUF_INIT;
	if (str_ieq(arg, "options"))
		options_man(&b);
	else if (str_ieq(arg, "meta-commands"))
		meta_man(&b);
	else if (str_ieq(arg, "settings"))
		session_settings_man(&b);
	else if (str_ieq(arg, "functions"))
		meta_functions_man(&b);
	else
		return err_set(err, SUQL_USAGE, "--help-man: no section '%s' (options, "
		               "meta-commands, settings, functions)", arg);
	fputs(b.s, stdout);
	sb_free(&b);
	cli->done = 1;
	return SUQL_OK;
}

/* --completion SHELL: the script, from options[] (complete_shell.c). */
static SuqlStatus opt_completion(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err)
{
	(void)o;
	int n = 0;
	while (options[n].name)
		n++;
	ShellOption *so = xcalloc((size_t)n, sizeof *so);
	for (int i = 0; i < n; i++)
		so[i] = (ShellOption){options[i].shortname, options[i].name, options[i].arg,
		                      options[i].help};
	SuqlStatus st = complete_shell(stdout, arg, so, n, err);
	free(so);
	cli->done = st == SUQL_OK;
	return st;
}

/* Parse argv with getopt_long, its tables built from options[]. Returns SUQL_EXIT_OK, or
   SUQL_EXIT_USAGE after printing a usage error. */
static int parse_args(Cli *cli, int argc, char **argv)
{
	int n = 0;
	while (options[n].name)
		n++;
	struct option *lo = xcalloc((size_t)n + 1, sizeof *lo);
	SBuf shorts = SBUF_INIT;
	sb_putc(&shorts, ':');   /* report a missing argument as ':' */
	for (int i = 0; i < n; i++) {
		const CliOption *p = &options[i];
		lo[i] = (struct option){p->name, p->arg ? required_argument : no_argument, NULL,
		                        p->shortname ? p->shortname : 256 + i};
		if (p->shortname) {
			sb_putc(&shorts, p->shortname);
			if (p->arg)
				sb_putc(&shorts, ':');
		}
	}
	SuqlErr err = {0};
	int c, status = SUQL_EXIT_OK;
	cli_dash_options(cli, argc, argv);
	if (cli->foreign) {
		const char *f = cli->foreign + 1 + (cli->foreign[1] == '-');
		size_t fl = strcspn(f, "=");
		char *m = xprintf("option '%.*s' is the sqlite3 shell's, not suql's: %s (suql --help "
		                  "lists suql's)", (int)((size_t)(f - cli->foreign) + fl), cli->foreign,
		                  cli_foreign_advice(f, fl));
		print_error(m);
		free(m);
		free(lo);
		sb_free(&shorts);
		return SUQL_EXIT_USAGE;
	}
	cli->argc = argc;
	cli->argv = argv;
	opterr = 0;
	while (!cli->done && (c = getopt_long(argc, argv, shorts.s, lo, NULL)) != -1) {
		const CliOption *p = NULL;
		for (int i = 0; i < n && c != '?' && c != ':'; i++)
			if (lo[i].val == c)
				p = &options[i];
		if (p) {
			if (p->fn(cli, p, optarg, &err) != SUQL_OK) {
				status = SUQL_EXIT_USAGE;
				break;
			}
			continue;
		}
		const char *bad = argv[optind - 1];
		const CliOption *q = NULL;   /* the option the error is about */
		for (int i = 0; i < n; i++)
			if (optopt && lo[i].val == optopt)
				q = &options[i];
		if (c == ':')
			err_set(&err, SUQL_USAGE, "option '%s' needs an argument (%s)", bad,
			        q && q->arg ? q->arg : "a value");
		else if (q && !q->arg && strchr(bad, '='))
			err_set(&err, SUQL_USAGE, "option '--%s' takes no value", q->name);
		else if (optopt && optopt < 256)
			err_set(&err, SUQL_USAGE, "unknown option '-%c' (suql --help lists them)",
			        optopt);
		else
			err_set(&err, SUQL_USAGE, "unknown or ambiguous option '%s' (suql --help "
			        "lists them)", bad);
		status = SUQL_EXIT_USAGE;
		break;
	}
	if (!status && !cli->done && optind < argc && !cli->pg && cli_assignment(argv[optind]) &&
	    access(argv[optind], F_OK) != 0) {
		/* psql's "-v NAME=VALUE" or "--set NAME=VALUE" gone astray: never a new file */
		const char *a = argv[optind];
		err_set(&err, SUQL_USAGE, "'%s' looks like a psql variable, not a database: -v %s "
		        "(or --variable %s) sets it; a database file of that name must exist, or be "
		        "written ./%s", a, a, a, a);
		status = SUQL_EXIT_USAGE;
	}
	if (!status && !cli->done && optind < argc) {
		if (!cli->pg)
			cli->db = argv[optind];
		for (int i = optind + (cli->pg ? 0 : 1); i < argc; i++)   /* suql DB "SQL" ..., as sqlite3 DB "SQL" */
			add_action(cli, ACT_SQL, argv[i], 1);
	}
	if (status)
		print_error(err.msg);
	err_clear(&err);
	free(lo);
	sb_free(&shorts);
	return status;
}

/* ---- running ---- */

static int no_color_env(void)
{
	const char *v = getenv("NO_COLOR");   /* no-color.org: set and not empty */
	return v && *v;
}

/* Whether a name is written in capitals (ON_ERROR_STOP), as psql's own variables are and
   no setting is. */
static int capitals(const char *name)
{
	int upper = 0;
	for (const char *p = name; *p; p++) {
		if (*p >= 'a' && *p <= 'z')
			return 0;
		upper |= *p >= 'A' && *p <= 'Z';
	}
	return upper && session_var_name_ok(name, strlen(name));
}

/* Apply -v and --variable NAME=VALUE in order; SUQL_EXIT_USAGE on a bad one. */
static int apply_vars(Cli *cli, Repl *r)
{
	for (int i = 0; i < cli->nvars; i++) {
		const char *eq = strchr(cli->vars[i], '=');
		char *name = xstrndup(cli->vars[i], (size_t)(eq - cli->vars[i]));
		SuqlErr err = {0};
		SuqlStatus st = session_var_set(&r->s, name, eq + 1, &err);
		if (st != SUQL_OK)
			print_error2("-v ", name, err.msg);
		free(name);
		err_clear(&err);
		if (st != SUQL_OK)
			return SUQL_EXIT_USAGE;
	}
	return 0;
}

/* Apply --set KEY=VALUE in order; SUQL_EXIT_USAGE on a bad one. */
static int apply_sets(Cli *cli, Repl *r)
{
	if (cli->timeout) {
		SuqlErr err = {0};
		if (session_set(&r->s, "timeout", cli->timeout, &err) != SUQL_OK) {
			print_error2("--timeout", "", err.msg);
			err_clear(&err);
			return SUQL_EXIT_USAGE;
		}
	}
	for (int i = 0; i < cli->nsets; i++) {
		const char *eq = strchr(cli->sets[i], '=');
		char *key = xstrndup(cli->sets[i], (size_t)(eq - cli->sets[i]));
		SuqlErr err = {0};
		SuqlStatus st = capitals(key) && !session_setting_exists(key)
		                ? session_var_set(&r->s, key, eq + 1, &err)   /* psql's --set */
		                : session_set(&r->s, key, eq + 1, &err);
		if (st != SUQL_OK && !session_setting_exists(key) &&
		    session_var_name_ok(key, strlen(key))) {
			char *m = xprintf("%s (a psql variable is set with -v %s=VALUE)", err.msg, key);
			err_set(&err, st, "%s", m);
			free(m);
		}
		if (st != SUQL_OK)
			print_error2("--set ", key, err.msg);
		free(key);
		err_clear(&err);
		if (st != SUQL_OK)
			return SUQL_EXIT_USAGE;
	}
	return 0;
}

/* The init file: $XDG_CONFIG_HOME/suql/init.suql (~/.config when XDG_CONFIG_HOME is not
   set), else ~/.suqlrc; NULL when there is none. */
static char *init_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p = NULL;
	if (xdg && *xdg)
		p = xprintf("%s/suql/init.suql", xdg);
	else if (home && *home)
		p = xprintf("%s/.config/suql/init.suql", home);
	if (p && access(p, F_OK) == 0)
		return p;
	free(p);
	p = home && *home ? xprintf("%s/.suqlrc", home) : NULL;
	if (p && access(p, F_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* Run the init file (meta-commands and SQL) like :read; SUQL_EXIT_USAGE when it cannot be
   read. */
static int run_init(Cli *cli, Repl *r)
{
	if (cli->no_init)
		return 0;
	char *path = cli->init ? xstrdup(cli->init) : init_path();
	if (!path)
		return 0;
	SuqlErr err = {0};
	int status = SUQL_EXIT_OK;
	if (repl_run_path(r, path, &err) != SUQL_OK) {
		fprintf(stderr, "error: init file: %s\n", err.msg);
		status = SUQL_EXIT_USAGE;
	}
	err_clear(&err);
	free(path);
	return status;
}

static void run_actions(Cli *cli, Repl *r)
{
	for (int i = 0; i < cli->nacts && !r->quit; i++) {
		const Action *a = &cli->acts[i];
		if (a->kind == ACT_SQL) {
			repl_run_text(r, "-c", a->text, strlen(a->text));
		} else if (a->kind == ACT_META) {
			SuqlErr err = {0};
			SuqlStatus st = meta_run_argv(r, a->argc, a->argv, &err);
			if (st != SUQL_OK)
				repl_fail(r, NULL, 0, 0, st, &err);
			err_clear(&err);
			repl_check_output(r, NULL, 0);
		} else if (strcmp(a->text, "-") == 0) {
			repl_run_file(r, "stdin", stdin);
		} else {
			FILE *f = fopen(a->text, "r");
			if (!f) {
				print_error2("cannot read ", a->text, strerror(errno));
				r->status = SUQL_EXIT_USAGE;
				return;
			}
			repl_run_file(r, a->text, f);
			fclose(f);
		}
	}
}

static void cli_free(Cli *cli)
{
	free(cli->acts);
	free(cli->sets);
	free(cli->vars);
	for (int i = 0; i < cli->ndashed; i++)
		free(cli->dashed[i]);
	free(cli->dashed);
	free(cli->pg);
}

/* glibc gives the top of the heap back to the system whenever more than 128 kB of it is
   free, and takes it again with the next allocation: SQLite's temporary b-trees (UNION,
   EXCEPT, DISTINCT, sorting) are made and freed once per statement, which made a script of
   such queries spend a pair of brk calls and fresh zeroed pages on nearly every statement
   (doc/speed.md, plain SQL). Kept up to 16 MB, the freed top is used again. */
static void heap_keep(void)
{
#ifdef __GLIBC__
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
	mallopt(M_TOP_PAD, 1 << 20);
#endif
}

int main(int argc, char **argv)
{
	heap_keep();
	render_init_locale();
	Cli cli = {0};
	int status = parse_args(&cli, argc, argv);
	if (status || cli.done) {
		cli_free(&cli);
		return status;
	}
	if (!cli.eval && (cli.way || cli.report)) {
		fprintf(stderr, "error: --%s goes with --eval BENCH\n", cli.way ? "way" : "report");
		status = SUQL_EXIT_USAGE;
	} else if (cli.eval && cli.nacts) {
		fprintf(stderr, "error: --eval runs alone: leave out -c, -f, --import and --chat\n");
		status = SUQL_EXIT_USAGE;
	} else if (cli.eval) {   /* suql --eval BENCH DATABASE: nothing else runs */
		EvalConfig ec = {cli.eval, cli.db, cli.way, cli.report, &cli.llm,
		                 (const char *const *)cli.sets, cli.nsets,
		                 cli.mode_set ? cli.mode : RENDER_TABLE, !cli.no_headers};
		status = eval_main(&ec);
	}
	if (status || cli.eval) {
		cli_free(&cli);
		return status;
	}
	int exits = 0;
	for (int i = 0; i < cli.nacts; i++)
		exits |= cli.acts[i].runs_and_exits;
	int interactive = !exits && isatty(0) && isatty(1);

	Repl r;
	repl_init(&r, interactive);
	r.bail = cli.bail;
	r.s.readonly = cli.readonly;
	r.s.color_ok = !cli.no_color && !no_color_env();

	SuqlErr err = {0};
	Llm *llm = llm_open(&cli.llm, &err);
	if (!llm) {
		print_error(err.msg);
		status = SUQL_EXIT_USAGE;
	} else if (cli.llm.url && !cli.llm.offline && !llm_model(llm)) {
		fprintf(stderr, "error: --llm-url needs a model too: add --model NAME (or set "
		        "SUQL_MODEL, or model = NAME in the config file)\n");
		status = SUQL_EXIT_USAGE;
	} else if (r.s.llm = llm, session_open(&r.s, cli.db ? cli.db : ":memory:", &err) != SUQL_OK) {
		print_error(err.msg);
		status = SUQL_EXIT_USAGE;
	}
	err_clear(&err);
	if (status == SUQL_EXIT_OK) {
		session_signals();
		if (interactive)
			repl_banner(&r, stdout);
		status = apply_vars(&cli, &r);   /* before the init file, as psql's -v */
	}
	if (status == SUQL_EXIT_OK) {
		status = run_init(&cli, &r);
	}
	if (status == SUQL_EXIT_OK)
		status = apply_sets(&cli, &r);
	if (status == SUQL_EXIT_OK)
		session_notices(&r.s);   /* the cache could not be opened, say */
	if (status == SUQL_EXIT_OK) {
		/* the command line's display choices win over the init file's */
		if (cli.mode_set)
			r.s.mode = cli.mode;
		if (cli.no_headers)
			r.s.headers = 0;
		if (cli.echo)
			r.s.echo = 1;
		if (cli.verbose) {
			if (r.s.explain != SESSION_EXPLAIN_ROWS)   /* --set explain=rows stays */
				r.s.explain = 1;
			r.s.stats = 1;
		}
		if (cli.nacts && !r.quit)
			run_actions(&cli, &r);
		if (r.quit || r.status == SUQL_EXIT_USAGE) {
			/* :quit in the init file, or an action that could not run */
		} else if (cli.chat && !exits && !interactive && !meta_chat_active(&r)) {
			r.status = SUQL_EXIT_USAGE;   /* a chat script without a model: nothing to run it with */
		} else if (interactive) {
			term_run(&r);
		} else if (!exits) {
			repl_run_file(&r, "stdin", stdin);
		}
		if (r.s.out_path && !r.s.broken_pipe) {   /* the :output file, closed and checked */
			SuqlErr e2 = {0};
			session_set_output(&r.s, NULL, 0, &e2);
			err_clear(&e2);
		}
		repl_check_output(&r, NULL, 0);
		status = r.status;
	}
	repl_free(&r);
	llm_close(llm);
	cli_free(&cli);
	return status;
}
