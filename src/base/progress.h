/*
 * progress.h: a one-line progress bar for long jobs (imports, index builds), drawn on a
 * terminal only. Callers report how far they are; the bar redraws at most ten times a
 * second, so reporting on every row costs almost nothing. When the stream is not a terminal
 * (a script, a pipe, the test suite) progress_open returns NULL and every other function
 * accepts NULL and does nothing, so callers never test for it.
 *
 *     Progress *p = progress_open(stderr, PROGRESS_AUTO, "indexing restaurants.reviews", n);
 *     for (...) progress_set(p, done);
 *     progress_close(p);      // erases the bar
 *
 * Ownership: a Progress is heap memory released by progress_close; the label is copied.
 */
#ifndef SUQL_PROGRESS_H
#define SUQL_PROGRESS_H

#include <stdio.h>

typedef struct Progress Progress;

enum {
	PROGRESS_OFF = 0,    /* never draw */
	PROGRESS_ON = 1,     /* always draw (tests, or a caller that knows better) */
	PROGRESS_AUTO = -1   /* draw when the stream is a terminal and TERM is not "dumb" */
};

/* total is the amount of work (bytes, rows); 0 when unknown (the bar then shows a count). */
Progress *progress_open(FILE *f, int mode, const char *label, double total);
void progress_set(Progress *p, double done);
/* Change the label and total midway (a second pass, the next phase). */
void progress_phase(Progress *p, const char *label, double total);
/* Erase the bar and free it. */
void progress_close(Progress *p);

/* A status line instead of a bar: draw text (cut to the terminal's width), at most ten
   times a second unless now is set. progress_erase wipes the line (a ^C the terminal
   echoed after the text too) and leaves the cursor at its start; the next progress_text
   draws again. Returns nonzero when something was erased. */
void progress_text(Progress *p, const char *text, int now);
int progress_erase(Progress *p);

#endif
