/*
 * main_int.h: what main.c (the option table, parsing, start-up) and main_argv.c (the
 * command line's words as the sqlite3 shell and psql spell them, rewritten before getopt)
 * share. Not for other modules.
 *
 * Ownership: a Cli owns acts, sets, vars and the strings in dashed (cli_free in main.c frees
 * them); everything else it points to is argv's or static.
 */
#ifndef SUQL_MAIN_INT_H
#define SUQL_MAIN_INT_H

#include "cli/repl.h"

typedef enum ActKind { ACT_SQL, ACT_FILE, ACT_META } ActKind;

typedef struct Action {   /* -c, -f and the like, run in command-line order */
	ActKind kind;
	const char *text;     /* ACT_SQL: the SQL; ACT_FILE: the file name */
	const char *argv[16]; /* ACT_META: the command's name and arguments (from argv) */
	int argc;
	int runs_and_exits;   /* the program exits after the actions instead of reading stdin */
} Action;

typedef struct Cli {
	const char *db;
	char *pg;             /* --pg: "pg:" and the conninfo (db points at it) */
	Action *acts;
	int nacts;
	int mode_set;
	RenderMode mode;
	int no_headers, verbose, no_color, bail, readonly;
	const char *init;     /* -init FILE */
	int no_init;          /* --no-init */
	const char **sets;    /* "KEY=VALUE" */
	const char **vars;    /* "NAME=VALUE": -v and --variable */
	int nvars;
	int echo;             /* --echo */
	const char *timeout;  /* --timeout SECONDS */
	int nsets;
	int done;             /* --help, --version: exit 0 at once */
	int chat;             /* --chat */
	const char *eval, *way, *report;   /* --eval BENCH, --way WAYS, --report FILE */
	int argc;             /* the command line, for an option that takes a second word */
	char **argv;
	char **dashed;        /* "--csv" made for "-csv" (cli_dash_options), and the like; freed at
	                         exit */
	const char *foreign;  /* a sqlite3 shell option suql does not have (cli_dash_options) */
	int ndashed;
	LlmConfig llm;        /* LLM: filled in by the LLM options (see doc/program.md) */
} Cli;

typedef struct CliOption CliOption;
typedef SuqlStatus (*OptFn)(Cli *cli, const CliOption *o, const char *arg, SuqlErr *err);

struct CliOption {
	char shortname;       /* 'c', or 0 */
	const char *name;     /* "command": --command */
	const char *arg;      /* "SQL", or NULL for a flag */
	const char *help;     /* one line; the manual page uses it as written */
	OptFn fn;
};

/* The option table (main.c), ending with a row whose name is NULL. */
const CliOption *cli_options(void);

/* main_argv.c */
/* A string made for the command line (a rewritten word, a KEY=VALUE), kept in cli->dashed
   and freed at exit; returns s. */
char *cli_keep(Cli *cli, char *s);
/* Whether a word is a psql variable's assignment: NAME=VALUE, NAME letters, digits and
   underscores (so "SELECT a=1", "./x=1.db" and "-x" are not). */
int cli_assignment(const char *w);
/* What to use instead of the sqlite3 shell's option name[0..len) that suql does not have,
   or NULL. */
const char *cli_foreign_advice(const char *name, size_t len);
/* The sqlite3 shell's and psql's spellings made getopt's, in argv itself (see
   main_argv.c); cli->foreign is set to a word naming an option suql does not have. */
void cli_dash_options(Cli *cli, int argc, char **argv);

#endif
