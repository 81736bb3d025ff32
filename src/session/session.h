/*
 * session.h: one user's session with suql, below every front end (the REPL and scripts in
 * cli/, the evaluation harness in eval/). A Session owns the open database's Engine, borrows
 * the model client, holds the settings (settings.h is their one registry) and the display
 * choices, and runs statements and shows what they report: the parsed SUQL, the plan, the
 * counters and the result rows, rendered in the chosen mode (session_run.c). It also owns
 * the chat agent and hands it the narrow interface it works through (AgentHost, made in
 * session_chat.c): run this read-only query and show it, show a note, stream a reply.
 *
 * What the session does not do is read input: the REPL (cli/repl.h) turns lines into
 * statements and meta-commands, reports errors with their place in a script, and decides the
 * exit status.
 *
 * Ownership: a Session owns its Engine, the :output and :once files (and their paths),
 * nullvalue, the status line, the secrets, the variables, the last result's copy and the
 * chat agent; it borrows
 * llm (the caller closes it after session_free).
 */
#ifndef SUQL_SESSION_H
#define SUQL_SESSION_H

#include <stdio.h>

#include "base/suql.h"
#include "chat/agent.h"
#include "engine/engine.h"
#include "llm/llm.h"
#include "render/render.h"

/* Rows a table holds before it is shown (:set fetch_count; see render_full). */
#define SESSION_FETCH_COUNT 10000

/* explain: 0 off, 1 on, or SESSION_AUTO (only for statements with free text: the default
   at a terminal), or SESSION_EXPLAIN_ROWS (on, and the per-row section after the
   counters). */
#define SESSION_AUTO 2
#define SESSION_EXPLAIN_ROWS 3
/* show: how much of a statement is shown around its rows (:set show). full: the parsed
   SUQL, the plan and the counters as the explain and stats settings say; compact: one line
   of plan and one of counters, no parsed SUQL; rows: the rows alone (and errors, warnings,
   notes). */
enum { SESSION_SHOW_FULL, SESSION_SHOW_COMPACT, SESSION_SHOW_ROWS };
/* The rows of the last result kept for :chart (session_result.c), and the bytes of a value
   kept (a label longer than that is cut anyway). */
#define SESSION_KEEP_ROWS 10000
#define SESSION_KEEP_BYTES 256
/* The width the per-row section is cut to where sections do not go to a terminal. */
#define SESSION_ROWS_WIDTH 120
/* Rows whose evidence a chat answer is shown (engine_record_evidence). */
#define SESSION_EVIDENCE_ROWS 10

typedef struct Progress Progress;

typedef struct SessionVar {   /* a psql variable (session_vars.c) */
	char *name, *value;
} SessionVar;

/* A value of the last result as :chart reads it. */
typedef struct SessionCell {
	char *text;           /* the value as text, cut to SESSION_KEEP_BYTES; NULL for NULL */
	double num;           /* its number, for an integer or a real */
	int kind;             /* ROW_INTEGER, ROW_REAL, ROW_TEXT, ROW_BLOB, ROW_NULL */
} SessionCell;

/* The last result that had columns: a bounded copy of its first rows (session_result.c). */
typedef struct SessionResult {
	int ncols;            /* 0: no result yet */
	char **names;
	SessionCell *cells;   /* nrows * ncols, row by row */
	long nrows, cap;      /* rows kept, cells allocated for */
	long total;           /* rows the statement gave */
} SessionResult;

typedef struct Session {
	Engine *engine;
	Llm *llm;             /* the LLM client (borrowed) */

	/* what is shown, and how (the display settings; see settings.c) */
	FILE *out;            /* results: stdout, or the :output file */
	char *out_path;       /* the :output file, NULL for stdout */
	RenderMode mode;
	char *insert_table;   /* the table insert mode names (:mode insert TABLE); NULL: "table" */
	int headers;
	char *nullvalue;      /* NULL: "NULL" (nothing in list, tabs and column) */
	int expanded;         /* RENDER_EXPANDED_*: psql's expanded display (\x) */
	int echo;             /* write each statement and meta-command before it runs, where
	                         results go (the sqlite3 shell's .echo) */
	int explain;          /* show the parsed SUQL and the plan: 0, 1, SESSION_AUTO or
	                         SESSION_EXPLAIN_ROWS */
	int stats;            /* show the counters */
	int timer;
	int show;             /* SESSION_SHOW_*: :set show */
	int ascii;            /* tables at a terminal and charts in ASCII characters alone */
	int pager;            /* results taller than the terminal go through $PAGER */
	int color_ok;         /* colour is allowed (no --no-color, no NO_COLOR) where on a tty */
	int once;             /* :once: out is for the next statement only, then prev_out */
	int once_mode;        /* :once's own output mode plus 1 (:once --csv, f.csv); 0: mode */
	FILE *prev_out;
	char *prev_path;
	double timeout;       /* seconds a statement may run (:set timeout, --timeout); 0: none */
	long fetch_count;     /* rows held before they are shown (render_full); 0: all */
	int max_width;        /* the widest a table or box cell is shown (RenderOpts.max_width) */

	int interactive;      /* a person at a terminal */
	int offline_noted;    /* a script was told its answers came from the offline backend */
	int readonly;         /* open databases read-only (-readonly) */

	int werr;             /* a write that failed where no one could be told yet (a :once or
	                         :output file closed): its errno, reported by
	                         session_check_output; 0: none */
	char *werr_name;      /* that file's name */
	int broken_pipe;      /* the reader of the standard output went away (EPIPE) */
	int out_errno;        /* the errno of a failed write to out, when it was seen at once */

	SessionResult last;   /* the last result, for :chart */

	char **secrets;       /* values never written to the history (API keys), masked there */
	int nsecrets;

	SessionVar *vars;     /* psql's variables, sorted by name (session_vars.c) */
	int nvars;
	int on_error_stop;    /* the variable ON_ERROR_STOP is on: a script stops at its first
	                         error, as with --bail */

	Agent *agent;         /* the chat agent, made on first use (session_agent); owned */
	AgentHost host;       /* what the agent works through (session_chat.c) */
	RenderFlow *reply;    /* the agent's reply while it is written */

	/* the status line while the model works (session_status.c) */
	Progress *statusline;
	int status_depth;
	double status_t0;
	long status_base;     /* calls finished in the session before it began */
	int ctrlc_shown;      /* the line after a ^C was started (see session_after_ctrl_c) */
	Render *render;       /* the renderer of the last result, kept for the next (render_reset
	                         keeps the memory it grew); owned */
	int render_busy;      /* a statement's result is using it (a statement run while one
	                         is shown gets a renderer of its own) */
	int bulk_resume;      /* :bulk resume runs the statement of this batch (its number) */
	int bulk_next;        /* the batch that statement's rest went into (0: none): it did not
	                         run to its end */
} Session;

void session_init(Session *s, int interactive);
void session_free(Session *s);

/* Open the database at path (":memory:" for none), replacing the open one on success; the
   engine settings carry over. */
SuqlStatus session_open(Session *s, const char *path, SuqlErr *err);

/* :output and :once: send results to path (NULL or "-": the standard output); with once,
   only the next statement's, then back to where they went before. */
SuqlStatus session_set_output(Session *s, const char *path, int once, SuqlErr *err);

/* :once's format: the next statement's results in mode m, whatever :mode says. */
void session_once_mode(Session *s, RenderMode m);
/* The mode a file's name asks for by its extension (.csv, .json, .md, .markdown, .html,
   .htm); 0 when it asks for none. */
int session_mode_of_path(const char *path, RenderMode *m);

/* The statement's output is over: after :once, results go back where they went before. */
void session_once_over(Session *s);

/* Every write is checked: flushes the results' stream and the standard error and says
   whether anything written since the last check was lost (a full disk, /dev/full, a short
   write, a file that failed as it was closed): SUQL_IO with the file named ("standard
   output" for stdout). A reader of the standard output that went away (EPIPE, with SIGPIPE
   ignored) is not an error: it sets broken_pipe and returns SUQL_OK, and the caller stops
   quietly, as sqlite3 does. The error flags are cleared: the next check sees new losses. */
SuqlStatus session_check_output(Session *s, SuqlErr *err);

/* Secrets: values that must never be stored in the history (a setting marked SET_SECRET
   adds its value when set). session_history_text is text as the history may keep it: the
   secrets, the API keys of the environment, the value after llm.key and the password of a
   URL's credentials (http://user:***@host/v1) masked as *** (secret_mask). Heap string. */
void session_add_secret(Session *s, const char *value);
char *session_history_text(const Session *s, const char *text);

/* Where parsed SUQL, plans, counters and timings go: stdout when it is a terminal (even
   while results go to an :output file), else stderr, so that stdout holds only results. */
FILE *session_section_out(const Session *s);

/* After Ctrl-C at a terminal the ^C the terminal echoed stands where the cursor was: the
   next output starts on a new line. Call before writing after an interruption. */
void session_after_ctrl_c(Session *s);

/* Say, once, what the session must know that is not any statement's error (the LLM cache
   could not be used: llm_cache_notice; nor the request log: llm_log_notice), as a warning
   on stderr. Called after each statement, meta-command and chat line. */
void session_notices(Session *s);

/* SIGINT: stops the running statement (sets suql_interrupted, interrupts SQLite). SIGALRM
   is the time limit's (installed when a limit is armed). */
void session_signals(void);

/* ---- settings (settings.c, the one registry) ---- */

/* :set KEY VALUE and --set KEY=VALUE: any setting, the session's or a module's. */
SuqlStatus session_set(Session *s, const char *key, const char *value, SuqlErr *err);
/* :set (key NULL: every setting) or :set KEY, as "key = value" lines on out. */
SuqlStatus session_show_settings(Session *s, const char *key, FILE *out, SuqlErr *err);
/* The names of every setting, as :set lists them: a heap array ending with NULL, each name
   heap memory. */
char **session_setting_names(Session *s);
/* The values a setting takes, blank-separated ("on off auto"), for completion: heap text,
   or NULL when they are not a short list. */
char *session_setting_choices(Session *s, const char *key);
/* Whether key names a setting (any module's). */
int session_setting_exists(const char *key);
/* :help set (all: every setting, by module) or the help of a display setting's own command
   (the display settings alone), laid out for width columns (at most 80; 0: 80): a line of
   name, values, range and default, the description wrapped under it; and the manual page's
   SETTINGS section in man(7) macros (suql --help-man settings). */
void session_settings_help(FILE *out, int all, int width);
/* :help KEY for a setting: its line of :help set; 0 when key names none. */
int session_setting_help(FILE *out, const char *key, int width);
void session_settings_man(SBuf *out);

/* ---- psql's variables (session_vars.c) ---- */

/* \set NAME VALUE, -v NAME=VALUE: SUQL_USAGE for a name that is not letters, digits and
   underscores, or a value ON_ERROR_STOP cannot take (nothing changes then). */
SuqlStatus session_var_set(Session *s, const char *name, const char *value, SuqlErr *err);
void session_var_unset(Session *s, const char *name);
/* Whether name[0..n) is a variable's name. */
int session_var_name_ok(const char *name, size_t n);
/* \set alone: every variable as psql lists them, NAME = 'value', a line each. */
void session_vars_show(const Session *s, SBuf *out);
void session_vars_free(Session *s);
/* value in quotes q (' or "), each q inside doubled: an SQL string or a quoted name. */
void session_quote(SBuf *b, const char *value, char q);
/* At sql[i] == ':': a reference to a variable that is set (:NAME, :'NAME', :"NAME"),
   appended to b as its value; returns the bytes it took, 0 when there is none. */
size_t session_var_ref(const Session *s, const char *sql, size_t n, size_t i, SBuf *b);
/* sql[0..n) with psql's interpolation (see session_vars.c): a heap text and its length in
   *outn, or NULL when nothing in it is replaced. */
char *session_interpolate(const Session *s, const char *sql, size_t n, size_t *outn);

/* ---- running statements (session_run.c) ---- */

/* Run the first statement of sql[0..len) and show it as the settings say (its sections and
   rows), handing its columns and rows to tap as well (tap may be NULL). *used is set to the
   bytes the statement took. always_parsed shows the parsed SUQL even with explain off (the
   chat agent shows every query it runs). lim NULL: the session's own (timeout). Returns the
   status with the message in err; the error is not printed (the caller decides what a
   failure means). */
SuqlStatus session_run(Session *s, const char *sql, size_t len, size_t *used,
                       const EngineSink *tap, int always_parsed, const RunLimits *lim,
                       SuqlErr *err);

/* Work that is not a statement (:import) under the session's time limit (:set timeout):
   begin arms it, so that it stops the work as Ctrl-C does; end disarms it and returns st,
   or the time limit's error when that is what stopped it. */
void session_limit_begin(Session *s);
SuqlStatus session_limit_end(Session *s, SuqlStatus st, SuqlErr *err);

/* ---- the last result and :chart (session_result.c) ---- */

/* The last result is replaced when a statement's columns come, and each of its rows is
   kept while fewer than SESSION_KEEP_ROWS are. */
void session_result_begin(Session *s, const Row *r);
void session_result_row(Session *s, const Row *r);
void session_result_free(SessionResult *res);

/* :chart [LABEL [VALUE...]] and :chart hist COLUMN [BINS] (argv without the command's own
   name): the last result drawn on out as a bar chart (text at a terminal's width, or an
   SVG image in the html mode); notes (values left out, rows not kept) on notes. */
SuqlStatus session_chart(Session *s, int argc, char **argv, FILE *out, FILE *notes,
                         SuqlErr *err);

/* ---- the compact display (session_show.c) ---- */

/* The plan's essential figures on one line: the calls expected and at worst, the dollars
   ("7 LLM calls expected, at most 16; about $0.00120, at most $0.00310"), read from the
   plan's lines; the counters' the same way ("2 LLM calls, 1520 tokens in, 40 out,
   $0.00040, 10.6 s"); any other section's lines joined with "; ". Appended to out. */
void session_compact_plan(const char *plan, SBuf *out);
void session_compact_counters(const char *counters, SBuf *out);
void session_compact_join(const char *text, SBuf *out);

/* ---- bulk mode (session_bulk.c) ---- */

/* Before a statement runs: 1 when it is collected for a batch (llm.bulk on, or :bulk resume
   running it), else 0, with a note when bulk mode was asked for but is not used (LIMIT, the
   offline backend). After it ran (stmt[0..n) its text, st its status): the collected
   requests are submitted as a batch and said so, and the status is what the submission
   returned; with none collected, st is returned as it is. */
int session_bulk_begin(Session *s, const char *sql, size_t len);
SuqlStatus session_bulk_end(Session *s, const char *stmt, size_t n, SuqlStatus st,
                            SuqlErr *err);
/* :bulk VERB [N]: status, resume, cancel (of batch N, else the latest) or list; what it
   shows goes to out. */
SuqlStatus session_bulk(Session *s, const char *verb, const char *arg, FILE *out,
                        SuqlErr *err);

/* ---- the status line (session_status.c) ---- */

/* While the model works for a statement or a chat turn, a status line on stderr (a terminal
   only) says how far it got: candidates judged, calls done and in flight, the time so far.
   begin and end nest; end erases it. clear erases it before other output (the next tick
   draws it again); stop erases it and draws no more until the outermost end (a streamed
   reply). */
void session_status_begin(Session *s);
void session_status_clear(Session *s);
void session_status_end(Session *s);
void session_status_stop(Session *s);

/* ---- the pager (session_pager.c) ---- */

/* A statement's result at a terminal, with the pager on, is written to a buffer first
   (session_pager_buffer returns it, or NULL when the result goes straight to s->out);
   session_pager_show closes the buffer and writes it through $PAGER (default "less -S")
   when it is taller than the terminal, to s->out otherwise, and frees it. */
FILE *session_pager_buffer(Session *s, char **buf, size_t *len);
void session_pager_show(Session *s, FILE *f, char **buf, size_t *len);

/* ---- the chat agent (session_chat.c) ---- */

/* The agent of the session, made (with default settings) when there is none yet. */
Agent *session_agent(Session *s);
/* Whether chat mode can start: SUQL_USAGE, saying how to configure a model, when the client
   is offline (the wording differs at a terminal and in a script). */
SuqlStatus session_chat_ready(Session *s, SuqlErr *err);
/* One chat turn; SUQL_USAGE as session_chat_ready when the model was switched off since
   chat mode began. */
SuqlStatus session_chat_turn(Session *s, const char *line, SuqlErr *err);

#endif
