/*
 * meta.h: meta-commands (":help", ":schema", ":import", ...), the lines starting with ':'
 * at the start of a statement. One table, meta_commands[], feeds dispatch, :help,
 * --help and the man page. A command is a MetaFn and one row of the table in meta.c; the
 * importer's are in import_meta.c, the chat agent's in meta_chat.c, psql's and the sqlite3
 * shell's (:watch, :edit, :conninfo, ...) in meta_psql.c and syntax.c; the help of SUQL's
 * functions (:help answer) in help_fn.c.
 *
 * Ownership: argv strings belong to the caller for the duration of the call; a MetaFn
 * writes results to env->out and notes to env->err and frees nothing it did not allocate.
 */
#ifndef SUQL_META_H
#define SUQL_META_H

#include <stdio.h>

#include "base/suql.h"
#include "cli/repl.h"

typedef struct MetaEnv {
	Engine *engine;   /* the open database (":open" replaces it) */
	Llm *llm;
	FILE *out;        /* results */
	FILE *err;        /* notes and progress */
	int tty;          /* interactive: progress bars and colour may be used */
	Repl *r;          /* the REPL, for commands that change it (:quit, :read, :chat) */
	Session *s;       /* its session (:open, :output, :set, the chat agent) */
} MetaEnv;

/* argv[0] is the command name without ':'; arguments are split on blanks, with '...' and
   "..." quoting. Returns SUQL_OK, or an error status with err set. */
typedef SuqlStatus (*MetaFn)(MetaEnv *env, int argc, char **argv, SuqlErr *err);

typedef struct MetaCommand {
	const char *name;   /* "import" */
	const char *args;   /* "FILE TABLE [--types SPEC] [--format csv|json|jsonl]" */
	const char *help;   /* one line: "load a CSV, JSON or JSONL file into a table" */
	MetaFn fn;
} MetaCommand;

extern const MetaCommand meta_commands[];   /* ends with a row whose name is NULL */

/* import_meta.c: :import FILE TABLE [options] and :index [TABLE]. */
SuqlStatus meta_import(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_index(MetaEnv *env, int argc, char **argv, SuqlErr *err);

/* meta_psql.c: :echo, :watch, :edit, :conninfo, :databases; syntax.c: :syntax. */
SuqlStatus meta_echo(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_watch(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_edit(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_conninfo(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_databases(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_syntax(MetaEnv *env, int argc, char **argv, SuqlErr *err);
/* meta_log.c: :log [-n N] [--json], :log clear (the request log). */
SuqlStatus meta_log(MetaEnv *env, int argc, char **argv, SuqlErr *err);

/* help_fn.c: SUQL's functions. meta_help_function writes the help of the function called
   name (answer, summary, extract, answer_agg, summary_agg, matches, bm25, or = for an ENUM
   column's), or with "functions" the list of them, laid out for width columns (at most 80),
   and returns 1; 0 when name is none of them. meta_functions_man: the manual page's list
   of them (suql --help-man functions). */
int meta_help_function(FILE *out, const char *name, int width);
void meta_functions_man(SBuf *b);

/* meta_chat.c: :chat, :sql, :history, :reset, :save FILE. */
SuqlStatus meta_chat(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_sql(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_history(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_reset(MetaEnv *env, int argc, char **argv, SuqlErr *err);
SuqlStatus meta_save(MetaEnv *env, int argc, char **argv, SuqlErr *err);

#endif
