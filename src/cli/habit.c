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
 */
#include "cli/repl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Habit {
	const char *typed;    /* ".tables", "\\d" (the word as typed) */
	const char *meta;     /* the meta-command it runs (its arguments follow), or NULL */
	const char *advice;   /* NULL, or what to type instead when there is no equivalent */
} Habit;

static const Habit habits[] = {
	/* the sqlite3 shell */
	{".tables", "tables", NULL},
	{".table", "tables", NULL},
	{".schema", "schema", NULL},
	{".fullschema", "schema", NULL},
	{".quit", "quit", NULL},
	{".exit", "quit", NULL},
	{".q", "quit", NULL},
	{".help", "help", NULL},
	{".mode", "mode", NULL},
	{".headers", "headers", NULL},
	{".header", "headers", NULL},
	{".nullvalue", "set nullvalue", NULL},
	{".open", "open", NULL},
	{".read", "read", NULL},
	{".output", "output", NULL},
	{".once", "once", NULL},
	{".import", "import", NULL},
	{".timer", "timer", NULL},
	{".show", "set", NULL},
	{".bail", NULL, "suql --bail stops a script at its first error"},
	{".dump", NULL, "the sqlite3 shell writes one: sqlite3 DATABASE .dump (suql's own "
	 "tables are the suql_* ones)"},
	{".indexes", NULL, "type SELECT name FROM sqlite_schema WHERE type = 'index';"},
	{".indices", NULL, "type SELECT name FROM sqlite_schema WHERE type = 'index';"},
	/* psql */
	{"\\q", "quit", NULL},
	{"\\d", NULL, NULL},   /* \d alone lists tables, \d NAME shows one: see below */
	{"\\d+", NULL, NULL},
	{"\\dt", "tables", NULL},
	{"\\dt+", "tables", NULL},
	{"\\dv", "tables", NULL},
	{"\\?", "help", NULL},
	{"\\h", "help", NULL},
	{"\\help", "help", NULL},
	{"\\i", "read", NULL},
	{"\\o", "output", NULL},
	{"\\timing", NULL, "type :timer on (or :timer off)"},
	{"\\x", NULL, "type :mode line for one value per line (:mode table goes back)"},
	{"\\l", NULL, "suql works on one database file: :open FILE opens another"},
	{"\\c", NULL, "suql works on one database file: :open FILE opens another"},
	{"\\copy", NULL, "type :import FILE TABLE to load a CSV or JSON file"},
	/* either, or any shell */
	{"help", "help", NULL},
	{"exit", "quit", NULL},
	{"quit", "quit", NULL},
};

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
	const char *meta = h ? h->meta : NULL;
	if (h && !meta && !h->advice)   /* \d: the tables, or one table */
		meta = rn ? "schema" : "tables";
	if (meta) {
		note(r, typed, meta);
		char *cmd = xprintf(":%s%s%.*s", meta, rn ? " " : "", (int)rn, rest);
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
	free(typed);
	return 1;
}
