/*
 * suql.h: what every part of suql shares: the version, status codes, the error record and
 * the interrupt flag.
 *
 * Functions return a SuqlStatus (SUQL_OK is 0) and leave the message in a SuqlErr that the
 * caller owns. A message may span several lines (the source line and a caret under the
 * offending token); it never starts with "error:", which the runner adds. An error about a
 * place in a text keeps the place as offsets, lines and columns (err_at), and one renderer
 * (err_render, base/err.c) writes it wherever that text stands.
 *
 * Ownership: the strings of a SuqlErr are heap memory owned by it; err_clear frees them.
 */
#ifndef SUQL_H
#define SUQL_H

#include <stddef.h>
#include <signal.h>

#define SUQL_VERSION "0.1.0"

typedef enum SuqlStatus {
	SUQL_OK = 0,
	SUQL_ERROR,       /* the statement is wrong: syntax, binding, SQLite said no */
	SUQL_INCOMPLETE,  /* the input ends before the statement does (the REPL reads on) */
	SUQL_LLM,         /* the language model backend failed (exit status 3) */
	SUQL_BUDGET,      /* the statement would cost more LLM calls than the budget allows */
	SUQL_INTERRUPT,   /* Ctrl-C */
	SUQL_USAGE,       /* bad command line or meta-command use */
	SUQL_IO           /* a file could not be read or written */
} SuqlStatus;

/* The program's exit status (suql, and suql --eval). When several things went wrong the
   status is the highest of them (suql_exit_worst): a script stopped by Ctrl-C (130)
   outranks the model failing (3), which outranks a usage or system error (2), which
   outranks a failed statement (1). A usage or system error also stops the program. */
typedef enum SuqlExit {
	SUQL_EXIT_OK = 0,            /* everything succeeded */
	SUQL_EXIT_FAILED = 1,        /* a statement or meta-command failed (others still ran) */
	SUQL_EXIT_USAGE = 2,         /* a bad option or value, a database or file that cannot be
	                                opened, a bad config file: nothing after it runs */
	SUQL_EXIT_LLM = 3,           /* the language model failed, a reply could not be read, or a
	                                statement stopped at its budget */
	SUQL_EXIT_INTERRUPTED = 130  /* a script stopped by Ctrl-C, as a shell reports SIGINT */
} SuqlExit;

/* The status that stands when a and b both happened (see SuqlExit). */
int suql_exit_worst(int a, int b);

/* A place in a text: line and column, both from 1, the column in characters. */
typedef struct SuqlPlace {
	int line, col;
} SuqlPlace;

typedef struct SuqlErr {
	SuqlStatus code;
	char *msg;            /* the error as text (for an error at a place: err_render's,
	                         counted from the start of the text it is about) */
	/* An error at a place of a text (err_at) keeps its parts too, so that whoever knows
	   where that text stands (a statement on line 40 of a script) can place it there with
	   err_render; err_set clears them. */
	int placed;
	size_t off, len;      /* the place: its byte offset and length in the text */
	SuqlPlace at;         /* its line and column, counted from the text's start */
	size_t rel_off;       /* a related place the hint names, "{place}" in hint */
	SuqlPlace rel;        /* its line and column; line 0: there is none */
	char *what;           /* the message alone */
	char *excerpt;        /* the text's line at the place, and a caret line under it */
	char *hint;           /* NULL: none */
} SuqlErr;

/* Set the error (replacing any earlier one, and any place); returns code so callers can
   `return err_set(...)`. */
SuqlStatus err_set(SuqlErr *e, SuqlStatus code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Set an error that points into source text: off is a byte offset into src, len the length
 * of the offending token (0 or more). msg is then
 *     line L, column C: <message>
 *       <the source line>
 *       <spaces>^~~~
 *     hint: <hint>            (only when hint is not NULL)
 * err_at_rel does the same with a related place, rel_off, which the hint names where it
 * says "{place}" ("the '(' at {place} is never closed").
 */
SuqlStatus err_at(SuqlErr *e, SuqlStatus code, const char *src, size_t srclen, size_t off,
                  size_t len, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
SuqlStatus err_at_rel(SuqlErr *e, SuqlStatus code, const char *src, size_t srclen, size_t off,
                      size_t len, size_t rel_off, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

/* Make to a copy of from (its place included), replacing what to held. */
void err_copy(SuqlErr *to, const SuqlErr *from);

/* The one renderer of errors. An error at a place is written "NAME:L:C: message" with the
   source line, the caret and the hint (whose related place is written "line L, column
   C"), where the text it is about starts at base in the file NAME: its lines and columns
   are moved by base. name NULL: "line L, column C: message". An error at no place: its
   message. Heap string. */
char *err_render(const SuqlErr *e, const char *name, SuqlPlace base);

/* Line and column (both from 1, column in characters) of byte offset off in src. */
void err_linecol(const char *src, size_t srclen, size_t off, int *line, int *col);

void err_clear(SuqlErr *e);

/* Set by the SIGINT handler while a statement runs; long loops check it and stop. */
extern volatile sig_atomic_t suql_interrupted;
/* Set, with suql_interrupted, when the running statement reached its time limit (repl.c):
   the loops stop as for Ctrl-C, and the runner reports a timeout instead. */
extern volatile sig_atomic_t suql_timed_out;

#endif
