/*
 * habit_int.h: what habit.c (the table of habits and the dispatch) and habit_cmd.c (the
 * habits that take their own arguments: psql's \set, \echo, \x, \pset, ..., the sqlite3
 * shell's .print and .timeout) share. Not for other modules.
 *
 * Ownership: an argument vector belongs to whoever split it (habit_args_free frees it);
 * a HabitFn borrows it.
 */
#ifndef SUQL_HABIT_INT_H
#define SUQL_HABIT_INT_H

#include "cli/repl.h"

/* A habit with a meaning of its own: argv[0] is the word as typed (\set), the rest its
   arguments, split as the program it comes from splits them. */
typedef SuqlStatus (*HabitFn)(Repl *r, int argc, char **argv, SuqlErr *err);

/* psql's splitting of a backslash command's arguments: blanks separate; '...' is literal
   but for '' (a quote) and C-like escapes (\n, \t, \\, \'); "..." is kept with its
   quotes; :NAME, :'NAME' and :"NAME" outside quotes are the variable's value (plain, as a
   string literal, as a quoted name), left as typed when it is not set; a backquote (a
   shell command in psql) is refused. Returns argc (argv[0] is word), or -1 with err set. */
int habit_psql_args(Repl *r, const char *word, const char *s, size_t n, char ***argv,
                    SuqlErr *err);
/* The sqlite3 shell's: blanks separate; "..." takes C escapes, '...' is literal, a bare
   word takes C escapes too. */
int habit_shell_args(const char *word, const char *s, size_t n, char ***argv, SuqlErr *err);
void habit_args_free(int argc, char **argv);

/* psql */
SuqlStatus habit_set(Repl *r, int argc, char **argv, SuqlErr *err);      /* \set */
SuqlStatus habit_unset(Repl *r, int argc, char **argv, SuqlErr *err);    /* \unset */
SuqlStatus habit_echo(Repl *r, int argc, char **argv, SuqlErr *err);     /* \echo, \qecho */
SuqlStatus habit_x(Repl *r, int argc, char **argv, SuqlErr *err);        /* \x */
SuqlStatus habit_pset(Repl *r, int argc, char **argv, SuqlErr *err);     /* \pset */
SuqlStatus habit_toggle(Repl *r, int argc, char **argv, SuqlErr *err);   /* \t, \a, \H */
SuqlStatus habit_meta(Repl *r, int argc, char **argv, SuqlErr *err);     /* \watch, \e, \h,
                                                                             \l, \conninfo */
/* the sqlite3 shell */
SuqlStatus habit_print(Repl *r, int argc, char **argv, SuqlErr *err);    /* .print */
SuqlStatus habit_timeout(Repl *r, int argc, char **argv, SuqlErr *err);  /* .timeout */

#endif
