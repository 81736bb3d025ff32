/*
 * habit.c: what people used to the sqlite3 shell and psql type out of habit. suql's
 * meta-commands start with ':', so `.tables`, `\d restaurants` or `quit` would otherwise
 * begin a statement and leave the user at the continuation prompt. At the start of input
 * (where a statement or a meta-command would start) these lines are recognised: the ones
 * with an equivalent run it (`.schema t` runs `:schema t`), the others get one line saying
 * what to type instead. Nothing here can be the start of a statement: no SQL statement
 * begins with '.' or '\', or with the words help, exit and quit alone on a line.
 *
 * At a terminal the first habit of a session also gets a note that suql's meta-commands
 * start with ':'.
 *
 * Three take their words apart: `.import --csv FILE TABLE` (sqlite3's option becomes
 * :import's --format csv), `\timing [on|off]` (alone it turns :timer over), and psql's
 * `\copy SOURCE FROM|TO FILE [options]`: FROM runs :import, TO runs the query (a table,
 * `table (columns)` or `(SELECT ...)`) with its rows as CSV into FILE, the column names
 * first only when the options say HEADER, as psql writes them.
 */
#include "cli/habit_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct Habit {
	const char *typed;    /* ".tables", "\\d" (the word as typed) */
	const char *meta;     /* the meta-command it runs (its arguments follow), or NULL */
	const char *advice;   /* NULL, or what to type instead when there is no equivalent */
	HabitFn fn;           /* NULL, or what it does with its own arguments (habit_cmd.c) */
} Habit;

static const Habit habits[] = {
	/* the sqlite3 shell */
	{".tables", "tables", NULL, NULL},
	{".table", "tables", NULL, NULL},
	{".schema", "schema", NULL, NULL},
	{".fullschema", "schema", NULL, NULL},
	{".quit", "quit", NULL, NULL},
	{".exit", "quit", NULL, NULL},
	{".q", "quit", NULL, NULL},
	{".help", "help", NULL, NULL},
	{".mode", "mode", NULL, NULL},
	{".headers", "headers", NULL, NULL},
	{".header", "headers", NULL, NULL},
	{".nullvalue", "set nullvalue", NULL, NULL},
	{".open", "open", NULL, NULL},
	{".read", "read", NULL, NULL},
	{".output", "output", NULL, NULL},
	{".once", "once", NULL, NULL},
	{".import", "import", NULL, NULL},
	{".timer", "timer", NULL, NULL},
	{".show", "set", NULL, NULL},
	{".echo", "set echo", NULL, NULL},
	{".print", NULL, NULL, habit_print},
	{".timeout", NULL, NULL, habit_timeout},
	{".databases", NULL, NULL, habit_meta},
	{".bail", NULL, "suql --bail stops a script at its first error (or \\set ON_ERROR_STOP "
	 "on)", NULL},
	{".dump", NULL, "the sqlite3 shell writes one: sqlite3 DATABASE .dump (suql's own "
	 "tables are the suql_* ones)", NULL},
	{".indexes", NULL, "type SELECT name FROM sqlite_schema WHERE type = 'index';", NULL},
	{".indices", NULL, "type SELECT name FROM sqlite_schema WHERE type = 'index';", NULL},
	/* psql */
	{"\\q", "quit", NULL, NULL},
	{"\\d", NULL, NULL, NULL},   /* \d alone lists tables, \d NAME shows one: see below */
	{"\\d+", NULL, NULL, NULL},
	{"\\dt", "tables", NULL, NULL},
	{"\\dt+", "tables", NULL, NULL},
	{"\\dv", "tables", NULL, NULL},
	{"\\?", "help", NULL, NULL},
	{"\\h", NULL, NULL, habit_meta},      /* :syntax, SQL's help as psql's \h */
	{"\\help", NULL, NULL, habit_meta},
	{"\\i", "read", NULL, NULL},
	{"\\o", "output", NULL, NULL},
	{"\\timing", NULL, NULL, NULL},   /* :timer: \timing alone turns it over, as in psql */
	{"\\set", NULL, NULL, habit_set},
	{"\\unset", NULL, NULL, habit_unset},
	{"\\echo", NULL, NULL, habit_echo},
	{"\\qecho", NULL, NULL, habit_echo},
	{"\\x", NULL, NULL, habit_x},
	{"\\pset", NULL, NULL, habit_pset},
	{"\\t", NULL, NULL, habit_toggle},
	{"\\a", NULL, NULL, habit_toggle},
	{"\\H", NULL, NULL, habit_toggle},
	{"\\watch", NULL, NULL, habit_meta},
	{"\\e", NULL, NULL, habit_meta},
	{"\\edit", NULL, NULL, habit_meta},
	{"\\l", NULL, NULL, habit_meta},       /* :databases */
	{"\\list", NULL, NULL, habit_meta},
	{"\\conninfo", NULL, NULL, habit_meta},
	{"\\c", NULL, "suql works on one database at a time: :open FILE opens another (suql "
	 "--pg CONNINFO, another PostgreSQL database)", NULL},
	{"\\copy", NULL, NULL, NULL},     /* FROM: :import; TO: the rows as CSV (copy below) */
	/* either, or any shell */
	{"help", "help", NULL, NULL},
	{"exit", "quit", NULL, NULL},
	{"quit", "quit", NULL, NULL},
};

/* The first word of s[0..n) ends where. */
static size_t word_end(const char *s, size_t n);

/* Where the top-level word w (any case) starts in s[0..n), outside quotes and parentheses;
   n when it is not there. */
static size_t find_word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	int depth = 0;
	char q = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (q) {
			q = c == q ? 0 : q;
			continue;
		}
		if (c == '\'' || c == '"')
			q = c;
		else if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		else if (depth == 0 && (i == 0 || isspace((unsigned char)s[i - 1])) &&
		         i + wl <= n && strncasecmp(s + i, w, wl) == 0 &&
		         (i + wl == n || isspace((unsigned char)s[i + wl])))
			return i;
	}
	return n;
}

/* \copy SOURCE TO FILE [options] and \copy TABLE FROM FILE [options]. */
static SuqlStatus copy(Repl *r, const char *name, const char *s, size_t n, SuqlErr *err)
{
	size_t to = find_word(s, n, "to"), from = find_word(s, n, "from");
	int out = to < from;
	size_t k = out ? to : from;
	if (k == n || k == 0)
		return err_set(err, SUQL_USAGE, "usage: \\copy TABLE FROM FILE, or \\copy TABLE|(SELECT "
		               "...) TO FILE [CSV] [HEADER]");
	size_t se = k;
	while (se && isspace((unsigned char)s[se - 1]))
		se--;
	size_t a = k + (out ? 2 : 4);
	while (a < n && isspace((unsigned char)s[a]))
		a++;
	size_t fe = a;
	char *path;
	if (a < n && (s[a] == '\'' || s[a] == '"')) {
		fe = a + 1;
		while (fe < n && s[fe] != s[a])
			fe++;
		path = xstrndup(s + a + 1, fe - a - 1);
		fe += fe < n;
	} else {
		fe = a + word_end(s + a, n - a);
		path = xstrndup(s + a, fe - a);
	}
	const char *opts = s + fe;
	size_t on = n - fe;
	SuqlStatus st;
	if (!*path || str_ieq(path, "stdin") || str_ieq(path, "stdout") ||
	    find_word(opts, on, "binary") < on) {
		st = err_set(err, SUQL_USAGE, "\\copy here takes a FILE name (not STDIN, STDOUT or "
		             "PROGRAM) and writes or reads CSV (not BINARY)");
	} else if (!out) {
		char *table = xstrndup(s, se);
		const char *argv[] = {"import", path, table, "--format", "csv"};
		st = meta_run_argv(r, find_word(opts, on, "csv") < on ? 5 : 3, argv, err);
		free(table);
	} else {
		const char *argv[] = {"once", "--csv", path};
		st = meta_run_argv(r, 3, argv, err);
		if (st == SUQL_OK) {
			char *sql;
			const char *paren = memchr(s, '(', se);
			if (s[0] == '(' && se > 1 && s[se - 1] == ')')
				sql = xprintf("%.*s;", (int)(se - 2), s + 1);
			else if (paren && se && s[se - 1] == ')')
				sql = xprintf("SELECT %.*s FROM %.*s;", (int)(s + se - paren - 2), paren + 1,
				              (int)(paren - s), s);
			else
				sql = xprintf("SELECT * FROM %.*s;", (int)se, s);
			int headers = r->s.headers;
			r->s.headers = find_word(opts, on, "header") < on ||
			               find_word(opts, on, "header)") < on;
			repl_run_text(r, name, sql, strlen(sql));
			r->s.headers = headers;
			session_once_over(&r->s);   /* a statement that failed before its rows */
			free(sql);
		}
	}
	free(path);
	return st;
}

/* .import's words with sqlite3's --csv as :import's --format csv. Heap string. */
static char *import_words(const char *s, size_t n)
{
	SBuf b = SBUF_INIT;
	for (size_t i = 0; i < n;) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		size_t e = i + word_end(s + i, n - i);
		if (e == i)
			break;
		if (b.len)
			sb_putc(&b, ' ');
		if (e - i == 5 && strncmp(s + i, "--csv", 5) == 0)
			sb_puts(&b, "--format csv");
		else
			sb_putn(&b, s + i, e - i);
		i = e;
	}
	return sb_steal(&b);
}

/* The first word of s[0..n) ends where. */
static size_t word_end(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && !isspace((unsigned char)s[i]) && s[i] != ';')
		i++;
	return i;
}

static void note(Repl *r, const char *typed, const char *meta)
{
	if (!r->s.interactive || r->habit_noted)
		return;
	r->habit_noted = 1;
	fflush(r->s.out);
	if (meta)
		fprintf(stderr, "note: suql's meta-commands start with ':' (%s is :%s; :help "
		        "lists them)\n", typed, meta);
	fflush(stderr);
}

int repl_habit(Repl *r, const char *name, int lineno, const char *line, size_t n)
{
	if (n && isalpha((unsigned char)line[0])) {   /* SQL, at a glance: a word, then more */
		size_t i = 1;
		while (i < n && isalnum((unsigned char)line[i]))
			i++;
		if (i < n && line[i] == ' ' && i + 1 < n && isalpha((unsigned char)line[i + 1]))
			return 0;
	}
	size_t whole = n;   /* the line but its trailing blanks: .print and \echo take a ';' */
	while (whole && isspace((unsigned char)line[whole - 1]))
		whole--;
	while (n && (isspace((unsigned char)line[n - 1]) || line[n - 1] == ';'))
		n--;   /* ".tables;" out of SQL habit */
	if (!n || !(line[0] == '.' || line[0] == '\\' || isalpha((unsigned char)line[0])))
		return 0;
	size_t w = word_end(line, n);
	const char *rest = line + w;
	size_t rn = n - w;
	while (rn && isspace((unsigned char)*rest))
		rest++, rn--;
	if (isalpha((unsigned char)line[0]) && rn)
		return 0;   /* SQL: a word is a habit only alone on its line (not looked up per line) */
	const Habit *h = NULL;
	for (size_t i = 0; i < sizeof habits / sizeof *habits && !h; i++)
		if (strlen(habits[i].typed) == w && strncmp(habits[i].typed, line, w) == 0)
			h = &habits[i];
	if (isalpha((unsigned char)line[0]) && (!h || rn))
		return 0;   /* a word alone on its line, or SQL */
	char *typed = xstrndup(line, w);
	SuqlErr err = {0};
	SuqlStatus st = SUQL_OK;
	repl_echo(r, line, whole);   /* .echo on: as the sqlite3 shell echoes its commands */
	const char *meta = h ? h->meta : NULL;
	char *words = NULL;   /* the arguments, when they are not rest as typed */
	if (h && strcmp(typed, "\\timing") == 0) {
		meta = "timer";
		if (!rn)
			words = xstrdup(r->s.timer ? "off" : "on");
	} else if (h && strcmp(typed, ".import") == 0) {
		words = import_words(rest, rn);
	} else if (h && !meta && !h->advice && !h->fn && strcmp(typed, "\\copy") != 0) {
		meta = rn ? "schema" : "tables";   /* \d: the tables, or one table */
	}
	if (h && h->fn) {   /* its own arguments, split as its program splits them */
		const char *a = line + w;
		size_t an = whole - w;
		char **argv;
		int argc = typed[0] == '\\' ? habit_psql_args(r, typed, a, an, &argv, &err)
		                             : habit_shell_args(typed, a, an, &argv, &err);
		st = argc < 0 ? SUQL_USAGE : h->fn(r, argc, argv, &err);
		if (argc >= 0)
			habit_args_free(argc, argv);
	} else if (h && strcmp(typed, "\\copy") == 0) {
		note(r, typed, "import (FROM), or :once FILE and a SELECT (TO)");
		st = copy(r, name, rest, rn, &err);
	} else if (meta) {
		note(r, typed, meta);
		const char *args = words ? words : rest;
		size_t an = words ? strlen(words) : rn;
		char *cmd = xprintf(":%s%s%.*s", meta, an ? " " : "", (int)an, args);
		st = meta_run(r, cmd, &err);
		free(cmd);
	} else if (h) {
		st = err_set(&err, SUQL_USAGE, "%s is not a suql command; %s", typed, h->advice);
	} else {
		st = err_set(&err, SUQL_USAGE, "%s is not a suql command; suql's meta-commands "
		             "start with ':' (:help lists them)", typed);
	}
	if (st != SUQL_OK)
		repl_fail(r, name, lineno, 0, st, &err);
	err_clear(&err);
	free(words);
	free(typed);
	return 1;
}
