/*
 * term_int.h: what term.c (the interactive loop, history) and term_complete.c (tab
 * completion) share: the line-editing library, reached through its readline-compatible API
 * (libedit by default, GNU readline with make READLINE=1). Not for other modules.
 */
#ifndef SUQL_TERM_INT_H
#define SUQL_TERM_INT_H

#include <stdio.h>

#ifdef SUQL_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#else
#include <editline/readline.h>
#endif

#include "cli/repl.h"

#endif
