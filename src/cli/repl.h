/*
 * repl.h: the REPL and the script runner: every way of typing or feeding suql lines (at the
 * terminal, from a script, with -c). It turns lines into statements and meta-commands, runs
 * statements through the session (session/session.h, which owns the engine, the model
 * client, the settings and the display), reports errors with the script's name and the line
 * and column of the mistake, and keeps the exit status. repl.c holds the runner, term.c the
 * interactive loop (line editing, history, Ctrl-C), term_complete.c tab completion, meta.c
 * the meta-commands, habit.c what sqlite3 and psql users type out of habit.
 *
 * Input is taken a line at a time. A line that starts with ':' where a statement would
 * start is a meta-command; other lines gather until engine_complete says the statement
 * ended, then every statement in the gathered text runs in order.
 *
 * Ownership: a Repl owns its Session (repl_free frees it) and line_prompt. ReplInput owns
 * its buffer (repl_input_free).
 */
#ifndef SUQL_REPL_H
#define SUQL_REPL_H

#include <stdio.h>

#include "base/suql.h"
#include "session/session.h"

typedef struct Repl Repl;

/* A different reader for the lines that are not meta-commands (chat mode): gets each line
   as typed; returns a status and err like a statement. */
typedef SuqlStatus (*ReplLineFn)(Repl *r, const char *line, SuqlErr *err);

struct Repl {
	Session s;            /* the engine, the model client, the settings, the display */

	int bail;             /* stop at the first failing statement */
	int habit_noted;      /* the note on sqlite3/psql habits was shown once */

	int status;           /* exit status so far (SuqlExit) */
	int quit;             /* stop reading: :quit, --bail after an error, Ctrl-C in a script */
	int depth;            /* :read nesting */

	ReplLineFn line_fn;   /* chat mode: see repl_set_line_mode */
	char *line_prompt;

	SBuf last;            /* the last statement run, as it ran (\watch and \e take it) */
};

/* Where lines come from, and the statement they are gathering into. */
typedef struct ReplInput {
	const char *name;     /* "stdin", a file name, "-c"; NULL at the terminal */
	SBuf buf;             /* the statement being gathered */
	int start_line;       /* line number of buf's first line */
	int lineno;           /* lines read so far */
} ReplInput;

void repl_init(Repl *r, int interactive);
void repl_free(Repl *r);

/* Feed one line (without its newline); runs whatever it completes. */
void repl_feed(Repl *r, ReplInput *in, const char *line, size_t n);
/* Nonzero when a statement is partly typed (the REPL shows the continuation prompt). */
int repl_pending(const ReplInput *in);
void repl_input_free(ReplInput *in);

/* Run a whole script: text, an open file, or a file by name (SUQL_IO when unreadable). */
void repl_run_text(Repl *r, const char *name, const char *text, size_t len);
void repl_run_file(Repl *r, const char *name, FILE *f);
SuqlStatus repl_run_path(Repl *r, const char *path, SuqlErr *err);

/* Run the statements of sql[0..len) as typed ones are run (errors reported, each kept as
   the last statement); where and line name them in messages. Returns the first failure's
   status. */
SuqlStatus repl_run_statements(Repl *r, const char *sql, size_t len, const char *where,
                               int line);

/* Print an error as "error: [where:line[:col]: ]message" on stderr, and count it toward the
   exit status (status SUQL_LLM gives 3, SUQL_INTERRUPT in a script 130, others 1); in a
   script, with --bail or the variable ON_ERROR_STOP on, nothing more is read. col 0: the
   message is not about a place in a statement. */
void repl_fail(Repl *r, const char *where, int line, int col, SuqlStatus status,
               const SuqlErr *err);

/* After each statement, meta-command and chat line: what was written was checked
   (session_check_output); a loss is an error (repl_fail, where and line as there), a reader
   of the standard output that went away ends the session quietly (r->quit). */
void repl_check_output(Repl *r, const char *where, int line);

/* Chat mode and back: with fn set, lines that are not meta-commands go to fn, and the
   prompt is prompt. fn NULL: back to SUQL statements. */
void repl_set_line_mode(Repl *r, const char *prompt, ReplLineFn fn);

void repl_banner(Repl *r, FILE *f);

/* term.c: the interactive loop on a terminal, until :quit or Ctrl-D. */
void term_run(Repl *r);
/* term_complete.c: install tab completion for r's database. */
void term_complete_init(Repl *r);

/* The echo setting (sqlite3's .echo): text[0..n), as read, and a newline where results
   go, before it runs. */
void repl_echo(Repl *r, const char *text, size_t n);

/* habit.c: a line typed out of sqlite3 or psql habit at the start of input (.tables,
   \d NAME, \q, help, exit, ...): runs the meta-command it means, or reports what to type
   instead (an error, as an unknown meta-command is). Returns 0 when the line is not one. */
int repl_habit(Repl *r, const char *name, int lineno, const char *line, size_t n);

/* meta.c: run one meta-command line (":schema t"); settings shared with --set. */
SuqlStatus meta_run(Repl *r, const char *line, SuqlErr *err);
/* The same, already split: argv[0] is the command's name (with or without ':'). */
SuqlStatus meta_run_argv(Repl *r, int argc, const char *const *argv, SuqlErr *err);
/* The META-COMMANDS section of the manual page, in man(7) macros. */
void meta_man(SBuf *out);

/* meta_chat.c: whether chat mode (the REPL's line mode that :chat sets) is on. */
int meta_chat_active(const Repl *r);

#endif
