/*
 * repl.h: the session behind every way of using suql: the open database, the display
 * settings, and the runner that turns lines of input (typed at the terminal, read from a
 * script, given with -c) into statements and meta-commands, runs them through the engine
 * and shows what they report. repl.c holds the runner, term.c the interactive loop (line
 * editing, history, Ctrl-C), term_complete.c tab completion, meta.c the meta-commands.
 *
 * Input is taken a line at a time. A line that starts with ':' where a statement would
 * start is a meta-command; other lines gather until engine_complete says the statement
 * ended, then every statement in the gathered text runs in order.
 *
 * Ownership: a Repl owns its Engine, the :output and :once files (and prev_path), nullvalue,
 * line_prompt, the status line and the chat agent; it borrows llm (the caller closes it after repl_free). ReplInput owns its buffer
 * (repl_input_free).
 */
#ifndef SUQL_REPL_H
#define SUQL_REPL_H

#include <stdio.h>

#include "base/suql.h"
#include "engine/engine.h"
#include "llm/llm.h"
#include "render/render.h"

typedef struct Repl Repl;

/* Rows a table holds before it is shown (:set fetch_count; see render_full). */
#define REPL_FETCH_COUNT 10000

/* The tables and views a user sees (suql's own suql_* tables and SQLite's are hidden):
   columns name, type, sql of sqlite_schema; callers add AND ... and ORDER BY. */
#define REPL_VISIBLE_TABLES                                                                \
	"SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') "     \
	"AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'suql\\_%' ESCAPE '\\'"

/* A different reader for the lines that are not meta-commands (chat mode): gets each line
   as typed; returns a status and err like a statement. */
typedef SuqlStatus (*ReplLineFn)(Repl *r, void *ctx, const char *line, SuqlErr *err);

struct Repl {
	Engine *engine;
	Llm *llm;             /* the LLM client (borrowed; main opens and closes it) */

	/* what is shown, and how (the settings of :set; see meta.c) */
	FILE *out;            /* results: stdout, or the :output file */
	char *out_path;       /* the :output file, NULL for stdout */
	RenderMode mode;
	int headers;
	char *nullvalue;      /* NULL: "NULL" */
	int explain;          /* show the parsed SUQL and the plan: 0, 1, or REPL_AUTO (only
	                         for statements with free text: the default at a terminal) */
	int stats;            /* show the counters */
	int timer;
	int pager;            /* results taller than the terminal go through $PAGER */
	int color_ok;         /* colour is allowed (no --no-color, no NO_COLOR) where on a tty */
	int once;             /* :once: out is for the next statement only, then prev_out */
	FILE *prev_out;
	char *prev_path;
	double timeout;       /* seconds a statement may run (:set timeout, --timeout); 0: no limit */
	long fetch_count;     /* rows held before they are shown (render_full); 0: all */

	int interactive;      /* a person at a terminal: errors do not change the exit status */
	int bail;             /* stop at the first failing statement */
	int readonly;         /* open databases read-only (-readonly) */
	int habit_noted;      /* the note on sqlite3/psql habits was shown once */

	int status;           /* exit status so far: 0, 1 (a statement failed), 3 (LLM), 130 */
	int quit;             /* stop reading: :quit, --bail after an error, Ctrl-C in a script */
	int depth;            /* :read nesting */

	ReplLineFn line_fn;   /* chat mode: see repl_set_line_mode */
	void *line_ctx;
	char *line_prompt;

	char **secrets;       /* values never written to the history (API keys) */
	int nsecrets;

	struct Agent *agent;  /* the chat agent (agent.h), made on first use; owned */

	/* the status line while the model works (repl_status.c) */
	struct Progress *statusline;
	int status_depth;
	double status_t0;
	long status_base;     /* calls finished in the session before it began */
	int ctrlc_shown;      /* the line after a ^C was started (see repl_after_ctrl_c) */
};

#define REPL_AUTO 2

/* Where lines come from, and the statement they are gathering into. */
typedef struct ReplInput {
	const char *name;     /* "stdin", a file name, "-c"; NULL at the terminal */
	SBuf buf;             /* the statement being gathered */
	int start_line;       /* line number of buf's first line */
	int lineno;           /* lines read so far */
} ReplInput;

void repl_init(Repl *r, int interactive);
void repl_free(Repl *r);

/* Open the database at path (":memory:" for none), replacing the open one on success. */
SuqlStatus repl_open(Repl *r, const char *path, SuqlErr *err);

/* Feed one line (without its newline); runs whatever it completes. */
void repl_feed(Repl *r, ReplInput *in, const char *line, size_t n);
/* The input ended: run what is left. */
void repl_feed_end(Repl *r, ReplInput *in);
/* Nonzero when a statement is partly typed (the REPL shows the continuation prompt). */
int repl_pending(const ReplInput *in);
void repl_input_free(ReplInput *in);

/* Run a whole script: text, an open file, or a file by name (SUQL_IO when unreadable). */
void repl_run_text(Repl *r, const char *name, const char *text, size_t len);
void repl_run_file(Repl *r, const char *name, FILE *f);
SuqlStatus repl_run_path(Repl *r, const char *path, SuqlErr *err);

/* Run the statements in sql and show them like typed ones; where and line name the source
   in error messages (where NULL: no location). Returns the first failure's status. For
   callers such as the chat agent that produce SUQL themselves. */
SuqlStatus repl_run_sql(Repl *r, const char *sql, size_t len, const char *where, int line);

/* Run the first statement of sql[0..len) like a typed one (its sections and rows shown as the
   settings say), handing its columns and rows to tap as well (tap may be NULL), and return
   its status with the message in err, without printing the error or counting it toward the
   exit status: the caller decides what a failure means. always_parsed shows the parsed SUQL
   even with :explain off (the chat agent shows every query it runs). */
SuqlStatus repl_run_statement(Repl *r, const char *sql, size_t len, const EngineSink *tap,
                              int always_parsed, SuqlErr *err);

/* The limits of one statement; a zero means none. A statement past its time stops with an
   error (SUQL_ERROR, status 1), one that reaches its rows stops with a warning and keeps
   them, and a value longer than value_bytes is an error (SQLite's length limit). setting
   names the setting that changes them in those messages ("timeout", "chat.timeout"...);
   rows_setting and value_setting likewise. */
typedef struct ReplLimits {
	double seconds;
	long rows;
	int value_bytes;
	const char *setting, *rows_setting, *value_setting;
} ReplLimits;

/* repl_run_statement under limits (NULL: the session's, :set timeout). */
SuqlStatus repl_run_limited(Repl *r, const char *sql, size_t len, const EngineSink *tap,
                            int always_parsed, const ReplLimits *lim, SuqlErr *err);

/* Print an error as "error: [where:line[:col]: ]message" on stderr, and count it toward the
   exit status (status SUQL_LLM gives 3, SUQL_INTERRUPT in a script 130, others 1). col 0:
   the message is not about a place in a statement. */
void repl_fail(Repl *r, const char *where, int line, int col, SuqlStatus status,
               const SuqlErr *err);

/* Chat mode and back: with fn set, lines that are not meta-commands go to fn, and the
   prompt is prompt. fn NULL: back to SUQL statements. */
void repl_set_line_mode(Repl *r, const char *prompt, ReplLineFn fn, void *ctx);

/* Secrets: text that must never be stored in the history. */
void repl_add_secret(Repl *r, const char *value);
int repl_is_secret(const Repl *r, const char *text);

void repl_banner(Repl *r, FILE *f);

/* Where parsed SUQL, plans, counters and timings go: stdout when it is a terminal (even
   while results go to an :output file), else stderr, so that stdout holds only results. */
FILE *repl_section_out(const Repl *r);

/* :output and :once: send results to path (NULL or "-": the standard output); with once,
   only the next statement's, then back to where they went before. */
SuqlStatus repl_set_output(Repl *r, const char *path, int once, SuqlErr *err);

/* After Ctrl-C at a terminal the ^C the terminal echoed stands where the cursor was: the
   next output starts on a new line. Call before writing after an interruption. */
void repl_after_ctrl_c(Repl *r);

/* repl_status.c: while the model works for a statement or a chat turn, a status line on
   stderr (a terminal only) says how far it got: candidates judged, calls done and in
   flight, the time so far. begin and end nest; end erases it. repl_status_clear erases
   it before other output (the next tick draws it again). */
void repl_status_begin(Repl *r);
void repl_status_clear(Repl *r);
void repl_status_end(Repl *r);
/* Erase it and draw no more until the outermost repl_status_end (a streamed reply). */
void repl_status_stop(Repl *r);

/* repl_pager.c: a statement's result at a terminal, with the pager on, is written to a
   buffer first (repl_pager_buffer returns it, or NULL when the result goes straight to
   r->out); repl_pager_show closes the buffer and writes it through $PAGER (default
   "less -S") when it is taller than the terminal, to r->out otherwise, and frees it. */
FILE *repl_pager_buffer(Repl *r, char **buf, size_t *len);
void repl_pager_show(Repl *r, FILE *f, char **buf, size_t *len);

/* Say, once, what the session must know that is not any statement's error (the LLM cache
   could not be used: llm_cache_notice), as a warning on stderr. The runner calls it after
   each statement, meta-command and chat line. */
void repl_notices(Repl *r);

/* SIGINT: stops the running statement (sets suql_interrupted, interrupts SQLite). SIGALRM
   is the time limit's (installed when a limit is armed). */
void repl_signals(void);

/* term.c: the interactive loop on a terminal, until :quit or Ctrl-D. */
void term_run(Repl *r);
/* term_complete.c: install tab completion for r's database. */
void term_complete_init(Repl *r);

/* habit.c: a line typed out of sqlite3 or psql habit at the start of input (.tables,
   \d NAME, \q, help, exit, ...): runs the meta-command it means, or reports what to type
   instead (an error, as an unknown meta-command is). Returns 0 when the line is not one. */
int repl_habit(Repl *r, const char *name, int lineno, const char *line, size_t n);

/* meta.c: run one meta-command line (":schema t"); settings shared with --set. */
SuqlStatus meta_run(Repl *r, const char *line, SuqlErr *err);
/* The same, already split: argv[0] is the command's name (with or without ':'). */
SuqlStatus meta_run_argv(Repl *r, int argc, const char *const *argv, SuqlErr *err);
SuqlStatus meta_set(Repl *r, const char *key, const char *value, SuqlErr *err);
/* The META-COMMANDS section of the manual page, in man(7) macros. */
void meta_man(SBuf *out);
/* The names of every setting of :set (the REPL's, the engine's, the chat agent's, the LLM
   client's), as :set lists them: a heap array ending with NULL, each name heap memory. */
char **meta_setting_names(Repl *r);
/* The values a setting takes, blank-separated ("on off auto"), for completion: heap text,
   or NULL when they are not a short list. */
char *meta_setting_choices(Repl *r, const char *key);

#endif
