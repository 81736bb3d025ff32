/*
 * complete_shell.h: command-line completion for bash and zsh, written from the program's
 * own tables (suql --completion bash|zsh): the options of main.c's table, the output modes,
 * the settings (names, and the values of those that take a short list) and psql's special
 * variables. `make install` writes both files; the shells then complete `suql --mo<TAB>`,
 * `--mode c<TAB>`, `--set explain=<TAB>`, file names where a file goes and the database.
 *
 * Ownership: the options are borrowed for the call.
 */
#ifndef SUQL_COMPLETE_SHELL_H
#define SUQL_COMPLETE_SHELL_H

#include <stdio.h>

#include "base/suql.h"

typedef struct ShellOption {
	char shortname;       /* 'c', or 0 */
	const char *name;     /* "command" */
	const char *arg;      /* "SQL", or NULL for a flag: its word says what completes it
	                         (FILE, DIR, MODE, KEY=VALUE, NAME=VALUE, SHELL, SECTION, WAYS) */
	const char *help;     /* one line */
} ShellOption;

/* The completion script for shell ("bash" or "zsh") on out; SUQL_USAGE for another
   shell. */
SuqlStatus complete_shell(FILE *out, const char *shell, const ShellOption *opts, int n,
                          SuqlErr *err);

#endif
