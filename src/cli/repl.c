/*
 * repl.c: the statement runner under the REPL, scripts and -c. It gathers lines into
 * statements (engine_complete says where one ends), sends meta-command lines to meta.c, runs
 * each statement through the session (session_run shows what it reports), and reports errors
 * with the script's name and the line and column of the mistake:
 *     error: stdin:3:8: no such column: x
 * Errors decide the exit status (see repl_fail). Ctrl-C sets suql_interrupted and interrupts
 * SQLite, so a long statement stops and the session goes on.
 */
#include "cli/repl.h"

#include "base/vis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the REPL ---- */

void repl_init(Repl *r, int interactive)
{
	memset(r, 0, sizeof *r);
	session_init(&r->s, interactive);
}

void repl_free(Repl *r)
{
	session_free(&r->s);
	sb_free(&r->last);
	free(r->line_prompt);
	memset(r, 0, sizeof *r);
}

void repl_set_line_mode(Repl *r, const char *prompt, ReplLineFn fn)
{
	free(r->line_prompt);
	r->line_prompt = fn && prompt ? xstrdup(prompt) : NULL;
	r->line_fn = fn;
}

void repl_banner(Repl *r, FILE *f)
{
	const char *path = engine_path(r->s.engine);
	Store *st = engine_store(r->s.engine);
	fprintf(f, "suql %s: SQL with free-text questions, over %s %s\n", SUQL_VERSION,
	        store_backend(st), store_version(st));
	if (store_pg_target(path)) {
		char *shown = store_pg_describe(st);
		fprintf(f, "database: %s\n", shown);
		free(shown);
	} else if (strcmp(path, ":memory:") == 0 || !*path)
		fprintf(f, "database: in memory (nothing is saved; :open FILE to use a file)\n");
	else
		fprintf(f, "database: %s\n", path);
	if (r->s.llm)
		fprintf(f, "model:    %s\n", llm_label(r->s.llm));
	if (llm_unconfigured(r->s.llm)) {   /* a local server is offered, never used unasked */
		SBuf b = SBUF_INIT;
		if (llm_probe_local(&b) > 0)
			fputs(sb_str(&b), f);
		sb_free(&b);
	}
	fprintf(f, "End statements with ';'. :help lists the meta-commands (.tables, \\d and\n"
	           "quit work too). Ctrl-C stops a statement, Ctrl-D leaves.\n");
}

/* ---- errors ---- */

/* Colour is for a person at the REPL: never in batch mode, never off a terminal. */
static int stderr_color(const Repl *r)
{
	return r->s.interactive && r->s.color_ok && util_isatty(stderr);
}

void repl_fail(Repl *r, const char *where, int line, int col, SuqlStatus status,
               const SuqlErr *err)
{
	const char *msg = err && err->msg ? err->msg : "failed";
	session_status_clear(&r->s);
	fflush(r->s.out);
	if (status == SUQL_INTERRUPT)
		session_after_ctrl_c(&r->s);
	if (stderr_color(r))
		fputs("\033[1;31merror:\033[0m ", stderr);
	else
		fputs("error: ", stderr);
	char *placed = NULL;
	int at = 7;   /* the column after "error: " */
	if (col > 0 && err && err->placed) {
		/* the engine counts from the statement's start; say where it is in the input */
		placed = err_render(err, where, (SuqlPlace){line, col});
		msg = placed;
	} else if (where) {
		at += fprintf(stderr, "%s:%d: ", where, line);
	}
	/* messages quote the data and the model (their controls made visible); at a terminal
	   they break at blanks, and a long excerpt is cut around its caret */
	render_message(stderr, at, msg, render_term_width(stderr));
	if (strstr(msg, "database is locked") && !strstr(msg, "\nhint:"))
		render_message(stderr, 0, "hint: another process is writing the database; :set "
		               "busy_timeout SECONDS waits longer for it", render_term_width(stderr));
	fflush(stderr);
	free(placed);

	int code = status == SUQL_LLM ? SUQL_EXIT_LLM : SUQL_EXIT_FAILED;
	if (status == SUQL_INTERRUPT && !r->s.interactive) {
		code = SUQL_EXIT_INTERRUPTED;   /* like a shell: a script stopped by Ctrl-C */
		r->quit = 1;
	}
	if (r->s.interactive)
		return;
	r->status = suql_exit_worst(r->status, code);
	if (r->bail || r->s.on_error_stop)
		r->quit = 1;
}

void repl_echo(Repl *r, const char *text, size_t n)
{
	if (!r->s.echo)
		return;
	while (n && (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r'))
		text++, n--;   /* as the sqlite3 shell: from the first word */
	while (n && text[n - 1] == '\n')
		n--;
	if (util_isatty(r->s.out)) {   /* a terminal obeys no control character typed */
		SBuf b = SBUF_INIT;
		vis_put(&b, text, n, VIS_TEXT);
		fwrite(sb_str(&b), 1, b.len, r->s.out);
		sb_free(&b);
	} else {
		fwrite(text, 1, n, r->s.out);
	}
	fputc('\n', r->s.out);
	fflush(r->s.out);
}

void repl_check_output(Repl *r, const char *where, int line)
{
	SuqlErr err = {0};
	SuqlStatus st = session_check_output(&r->s, &err);
	if (st != SUQL_OK) {
		repl_fail(r, where, line, 0, st, &err);
		session_check_output(&r->s, &err);   /* the message itself may be lost too */
	}
	if (r->s.broken_pipe)
		r->quit = 1;   /* as sqlite3: quietly, the reader has gone */
	err_clear(&err);
}

/* Offset of the first character that is not a blank or inside a comment. An unterminated
   block comment counts as text (the statement is not over). */
static size_t skip_blank(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
			i++;
		} else if (s[i] == '-' && i + 1 < n && s[i + 1] == '-') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			size_t j = i + 2;
			while (j + 1 < n && !(s[j] == '*' && s[j + 1] == '/'))
				j++;
			if (j + 1 >= n)
				return i;
			i = j + 2;
		} else {
			break;
		}
	}
	return i;
}

/* The length of the first statement of s (through the ';' that completes it), to step over
   a statement that failed before the engine said how long it was. */
static size_t statement_end(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ';' && engine_complete(s, i + 1))
			return i + 1;
	return n;
}

/* Move the line of a position over sql[from..to), and *ls to the start of that line. */
static void advance(const char *sql, size_t from, size_t to, int *line, size_t *ls)
{
	const char *nl;
	while (from < to && (nl = memchr(sql + from, '\n', to - from)) != NULL) {
		++*line;
		from = *ls = (size_t)(nl - sql) + 1;
	}
}

/* The column (in characters, from 1) of sql[at] on the line starting at sql[ls]: counted
   only for an error's place. */
static int column(const char *sql, size_t ls, size_t at)
{
	int col = 1;
	for (size_t i = ls; i < at; i++)
		col += ((unsigned char)sql[i] & 0xC0) != 0x80;
	return col;
}

/* Run the statements in sql and show them like typed ones; where and line name the source
   in error messages (where NULL: no location). Returns the first failure's status. */
SuqlStatus repl_run_statements(Repl *r, const char *sql, size_t len, const char *where,
                               int line)
{
	SuqlStatus first = SUQL_OK;
	size_t off = 0, ls = 0;
	int ln = line;   /* where sql[off] is: line ln, which starts at sql[ls] */
	while (off < len && !r->quit) {
		size_t start = off + skip_blank(sql + off, len - off);
		advance(sql, off, start, &ln, &ls);
		if (start >= len)
			break;
		SuqlErr err = {0};
		size_t used = 0;
		SuqlStatus st = session_run(&r->s, sql + start, len - start, &used, NULL, 0, NULL,
		                            &err);
		if (st != SUQL_OK) {
			repl_fail(r, where, ln, column(sql, ls, start), st, &err);
			if (first == SUQL_OK)
				first = st;
			size_t end = statement_end(sql + start, len - start);
			if (used < end)
				used = end;
		}
		err_clear(&err);
		repl_check_output(r, where, ln);
		if (st == SUQL_INTERRUPT)
			break;   /* Ctrl-C stops what was typed or read with it, too */
		if (used == 0 || used > len - start)
			used = len - start;
		sb_truncate(&r->last, 0);   /* what \watch and \e take up again */
		sb_putn(&r->last, sql + start, used);
		advance(sql, start, start + used, &ln, &ls);
		off = start + used;
	}
	return first;
}

/* ---- lines into statements ---- */

/* A gathered statement text, echoed (the echo setting) and with psql's variables in it
   (session_interpolate), run. */
static void run_gathered(Repl *r, ReplInput *in)
{
	const char *sql = in->buf.s;
	size_t n = in->buf.len, m = 0;
	repl_echo(r, sql, n);
	char *v = session_interpolate(&r->s, sql, n, &m);
	repl_run_statements(r, v ? v : sql, v ? m : n, in->name, in->name ? in->start_line : 1);
	free(v);
}

static void run_meta(Repl *r, ReplInput *in, const char *line, size_t n)
{
	SuqlErr err = {0};
	repl_echo(r, line, n);
	char *l = xstrndup(line, n);
	SuqlStatus st = meta_run(r, l, &err);
	if (st != SUQL_OK)
		repl_fail(r, in->name, in->lineno, 0, st, &err);
	session_notices(&r->s);
	repl_check_output(r, in->name, in->lineno);
	free(l);
	err_clear(&err);
}

static void run_line_fn(Repl *r, ReplInput *in, const char *line, size_t n)
{
	SuqlErr err = {0};
	char *l = xstrndup(line, n);
	session_status_begin(&r->s);
	SuqlStatus st = r->line_fn(r, l, &err);
	session_status_end(&r->s);
	if (st != SUQL_OK)
		repl_fail(r, in->name, in->lineno, 0, st, &err);
	session_notices(&r->s);
	repl_check_output(r, in->name, in->lineno);
	free(l);
	err_clear(&err);
}

int repl_pending(const ReplInput *in)
{
	return in->buf.len > 0 && skip_blank(in->buf.s, in->buf.len) < in->buf.len;
}

void repl_feed(Repl *r, ReplInput *in, const char *line, size_t n)
{
	in->lineno++;
	if (r->quit)
		return;
	if (n && line[n - 1] == '\r')
		n--;
	if (!repl_pending(in)) {
		size_t i = skip_blank(line, n);
		if (i < n && line[i] == ':') {
			sb_truncate(&in->buf, 0);
			run_meta(r, in, line + i, n - i);
			return;
		}
		if (i < n && repl_habit(r, in->name, in->lineno, line + i, n - i)) {
			sb_truncate(&in->buf, 0);
			return;
		}
		if (r->line_fn) {
			sb_truncate(&in->buf, 0);
			if (i < n)
				run_line_fn(r, in, line, n);
			return;
		}
		if (in->buf.len == 0 || skip_blank(in->buf.s, in->buf.len) == in->buf.len) {
			sb_truncate(&in->buf, 0);
			in->start_line = in->lineno;
		}
	}
	sb_putn(&in->buf, line, n);
	sb_putc(&in->buf, '\n');
	/* a statement goes on until a line brings a ';' (only a first line of blanks or
	   comments is complete without one): not lexing the whole buffer again for every line
	   keeps a long statement's reading linear */
	int may_end = in->buf.len == n + 1 || memchr(line, ';', n) != NULL;
	if (may_end && engine_complete(in->buf.s, in->buf.len)) {
		/* at the terminal, lines count from the start of what was just typed */
		run_gathered(r, in);
		sb_truncate(&in->buf, 0);
	}
}

/* The input ended: run what is left. */
static void repl_feed_end(Repl *r, ReplInput *in)
{
	if (repl_pending(in) && !r->quit && !suql_interrupted)
		run_gathered(r, in);
	sb_truncate(&in->buf, 0);
}

void repl_input_free(ReplInput *in)
{
	sb_free(&in->buf);
}

/* ---- scripts ---- */

/* Ctrl-C while a script runs: the script stops; a script not typed at a terminal ends the
   session with status SUQL_EXIT_INTERRUPTED, like a shell's. */
static void interrupted_script(Repl *r)
{
	if (r->s.interactive)
		return;
	r->status = suql_exit_worst(r->status, SUQL_EXIT_INTERRUPTED);
	r->quit = 1;
}

void repl_run_text(Repl *r, const char *name, const char *text, size_t len)
{
	ReplInput in = {name, SBUF_INIT, 0, 0};
	for (size_t a = 0; a < len && !r->quit;) {
		size_t e = a;
		while (e < len && text[e] != '\n')
			e++;
		repl_feed(r, &in, text + a, e - a);
		a = e + 1;
		if (suql_interrupted) {
			interrupted_script(r);
			break;
		}
	}
	repl_feed_end(r, &in);
	repl_input_free(&in);
}

void repl_run_file(Repl *r, const char *name, FILE *f)
{
	ReplInput in = {name, SBUF_INIT, 0, 0};
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (!r->quit) {
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (errno == EINTR && !suql_interrupted) {
				clearerr(f);
				continue;
			}
			break;
		}
		if (n && line[n - 1] == '\n')
			n--;
		repl_feed(r, &in, line, (size_t)n);
		if (suql_interrupted)
			break;
	}
	if (suql_interrupted)
		interrupted_script(r);
	repl_feed_end(r, &in);
	free(line);
	repl_input_free(&in);
}

SuqlStatus repl_run_path(Repl *r, const char *path, SuqlErr *err)
{
	if (r->depth >= 16)
		return err_set(err, SUQL_USAGE, "%s: scripts read each other too deeply (16 levels)",
		               path);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
	r->depth++;
	repl_run_file(r, path, f);
	r->depth--;
	fclose(f);
	return SUQL_OK;
}
