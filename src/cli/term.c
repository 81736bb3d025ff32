/*
 * term.c: suql at a terminal: the prompt (`suql> `, then ` ...> ` while a statement goes
 * on), line editing and history through the readline-compatible API, and Ctrl-C at the
 * prompt (it clears what was typed). Lines go to the runner in repl.c like a script's.
 *
 * Reading uses readline's callback interface with select(): a blocking readline() call
 * would swallow SIGINT, while select() returns EINTR and the loop can drop the line.
 *
 * History lives in $SUQL_HISTORY (empty: none), else $XDG_STATE_HOME/suql/history, else
 * ~/.suql_history, readable only by its owner. A statement is stored as one entry once it
 * ran, with keys and a URL's password masked as *** (session_history_text).
 */
#include "cli/term_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROMPT "suql> "
#define CONTINUE " ...> "
#define HISTORY_MAX 2000

/* ---- history ---- */

static char *history_path(void)
{
	const char *p = getenv("SUQL_HISTORY");
	if (p)
		return *p ? xstrdup(p) : NULL;
	const char *state = getenv("XDG_STATE_HOME");
	if (state && *state) {
		char *path = xprintf("%s/suql/history", state);
		util_make_parent_dirs(path);
		return path;
	}
	const char *home = getenv("HOME");
	return home && *home ? xprintf("%s/.suql_history", home) : NULL;
}

/* One entry per statement: its lines joined by spaces, unless a -- comment would swallow
   what follows; then its lines one by one. */
static void remember(const Repl *r, const char *path, SBuf *typed)
{
	if (!typed->len)
		return;
	while (typed->len && typed->s[typed->len - 1] == '\n')
		typed->s[--typed->len] = '\0';
	if (typed->len) {
		char *t = session_history_text(&r->s, typed->s);   /* keys and passwords masked */
		if (strstr(t, "--")) {
			for (char *l = strtok(t, "\n"); l; l = strtok(NULL, "\n"))
				add_history(l);
		} else {
			for (char *p = t; *p; p++)
				if (*p == '\n')
					*p = ' ';
			add_history(t);
		}
		free(t);
		if (path) {
			mode_t old = umask(077);
			write_history(path);
			umask(old);
		}
	}
	sb_truncate(typed, 0);
}

/* ---- reading a line ---- */

enum { TERM_LINE, TERM_EOF, TERM_CANCEL };

static char *got_line;
static int got;

static void on_line(char *line)
{
	got_line = line;
	got = 1;
	rl_callback_handler_remove();
}

/* Read one line with the prompt: TERM_LINE (*out is the heap line), TERM_EOF (Ctrl-D), or
   TERM_CANCEL (Ctrl-C: the line was thrown away). */
static int read_line(const char *prompt, char **out)
{
	got = 0;
	got_line = NULL;
	rl_callback_handler_install(prompt, on_line);
	while (!got) {
		fd_set fds;
		FD_ZERO(&fds);
		FD_SET(0, &fds);
		if (select(1, &fds, NULL, NULL, NULL) < 0) {
			if (errno != EINTR)
				break;
			if (!suql_interrupted)
				continue;   /* another signal, e.g. a window resize */
			suql_interrupted = 0;
			rl_replace_line("", 0);
			rl_point = rl_end = 0;
			rl_callback_handler_remove();
			fputs("^C\n", stdout);
			fflush(stdout);
			return TERM_CANCEL;
		}
		rl_callback_read_char();
	}
	if (!got) {
		rl_callback_handler_remove();
		return TERM_EOF;
	}
	if (!got_line)
		return TERM_EOF;
	*out = got_line;
	return TERM_LINE;
}

void term_run(Repl *r)
{
	rl_readline_name = "suql";
	rl_catch_signals = 0;   /* SIGINT is ours (session_signals) */
	term_complete_init(r);
	char *hist = history_path();
	using_history();
	stifle_history(HISTORY_MAX);
	if (hist)
		read_history(hist);

	ReplInput in = {NULL, SBUF_INIT, 0, 0};
	SBuf typed = SBUF_INIT;   /* the lines of the current statement, for the history */
	while (!r->quit) {
		suql_interrupted = 0;
		r->s.ctrlc_shown = 0;
		const char *prompt = repl_pending(&in) ? CONTINUE
		                     : r->line_fn && r->line_prompt ? r->line_prompt : PROMPT;
		char *line = NULL;
		int st = read_line(prompt, &line);
		if (st == TERM_EOF) {
			fputc('\n', stdout);
			if (repl_pending(&in)) {   /* Ctrl-D at " ...>": say what became of it */
				fflush(stdout);
				fprintf(stderr, "note: the unfinished statement was not run (it has no "
				        "';' at its end)\n");
			}
			break;
		}
		if (st == TERM_CANCEL) {   /* drop the statement being typed, too */
			sb_truncate(&in.buf, 0);
			sb_truncate(&typed, 0);
			continue;
		}
		sb_puts(&typed, line);
		sb_putc(&typed, '\n');
		repl_feed(r, &in, line, strlen(line));
		free(line);
		if (!repl_pending(&in))
			remember(r, hist, &typed);
	}
	sb_free(&typed);
	repl_input_free(&in);
	free(hist);
}
