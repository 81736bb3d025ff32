/*
 * repl.c: the statement runner under the REPL, scripts and -c. It gathers lines into
 * statements (engine_complete says where one ends), sends meta-command lines to meta.c, runs
 * each statement through engine_exec with a sink that shows, in order, the parsed SUQL, the
 * plan, the counters and the result (buffering rows when the counters must come first), and
 * reports errors with the script's name and the line and column of the mistake:
 *     error: stdin:3:8: no such column: x
 * Errors decide the exit status (see repl_fail). Ctrl-C sets suql_interrupted and interrupts
 * SQLite, so a long statement stops and the session goes on.
 */
#include "cli/repl.h"

#include "base/vis.h"
#include "chat/agent.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- Ctrl-C ---- */

static sqlite3 *volatile running_db;   /* the database of the running statement, if any */

static void on_sigint(int sig)
{
	(void)sig;
	suql_interrupted = 1;
	sqlite3 *db = running_db;
	if (db)
		sqlite3_interrupt(db);
}

void repl_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;   /* no SA_RESTART: a blocked read returns so the loops see the flag */
	sigaction(SIGINT, &sa, NULL);
}

/* ---- the time limit ----
   A statement's time limit is a timer whose signal stops it as Ctrl-C does (every loop that
   checks suql_interrupted, SQLite through its progress handler and sqlite3_interrupt, the
   HTTP client between polls) and also sets suql_timed_out, so the runner reports a timeout
   and the script goes on. */

static void on_alarm(int sig)
{
	(void)sig;
	suql_timed_out = 1;
	suql_interrupted = 1;
	sqlite3 *db = running_db;
	if (db)
		sqlite3_interrupt(db);
}

static void alarm_set(double seconds)
{
	if (seconds > 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_alarm;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;   /* a write to a full pipe goes on; the loops see the flag */
		sigaction(SIGALRM, &sa, NULL);
	}
	struct itimerval t;
	memset(&t, 0, sizeof t);
	long us = seconds > 0 ? (long)(seconds * 1e6) : 0;
	if (seconds > 0 && us < 1)
		us = 1;
	t.it_value.tv_sec = us / 1000000;
	t.it_value.tv_usec = us % 1000000;
	setitimer(ITIMER_REAL, &t, NULL);   /* zero: disarmed */
}

/* ---- the session ---- */

void repl_init(Repl *r, int interactive)
{
	memset(r, 0, sizeof *r);
	r->out = stdout;
	r->mode = RENDER_TABLE;
	r->headers = 1;
	r->interactive = interactive;
	r->explain = interactive ? REPL_AUTO : 0;
	r->stats = interactive;
	r->pager = 1;   /* used only at a terminal */
	r->color_ok = 1;
	r->fetch_count = REPL_FETCH_COUNT;
}

void repl_free(Repl *r)
{
	agent_free(r->agent);
	engine_close(r->engine);
	if (r->out_path)
		fclose(r->out);
	free(r->out_path);
	if (r->prev_path)
		fclose(r->prev_out);
	free(r->prev_path);
	free(r->nullvalue);
	free(r->line_prompt);
	for (int i = 0; i < r->nsecrets; i++)
		free(r->secrets[i]);
	free(r->secrets);
	memset(r, 0, sizeof *r);
}

SuqlStatus repl_open(Repl *r, const char *path, SuqlErr *err)
{
	Engine *e = engine_open_mode(path, r->llm, r->readonly, err);
	if (!e)
		return err->code ? err->code : SUQL_IO;
	engine_copy_settings(e, r->engine);
	engine_close(r->engine);
	r->engine = e;
	return SUQL_OK;
}

/* :once is over after one statement: results go back where they went before. */
static void once_done(Repl *r)
{
	if (!r->once)
		return;
	if (r->out_path)
		fclose(r->out);
	free(r->out_path);
	r->out = r->prev_out;
	r->out_path = r->prev_path;
	r->prev_out = NULL;
	r->prev_path = NULL;
	r->once = 0;
}

SuqlStatus repl_set_output(Repl *r, const char *path, int once, SuqlErr *err)
{
	FILE *f = stdout;
	if (path && strcmp(path, "-") != 0) {
		f = fopen(path, "w");
		if (!f)
			return err_set(err, SUQL_IO, "cannot write %s: %s", path, strerror(errno));
	}
	char *fpath = f == stdout ? NULL : xstrdup(path);
	once_done(r);   /* a :once not used yet is replaced */
	if (once) {
		r->prev_out = r->out;
		r->prev_path = r->out_path;
		r->once = 1;
	} else if (r->out_path) {
		fclose(r->out);
		free(r->out_path);
	}
	r->out = f;
	r->out_path = fpath;
	return SUQL_OK;
}

void repl_set_line_mode(Repl *r, const char *prompt, ReplLineFn fn, void *ctx)
{
	free(r->line_prompt);
	r->line_prompt = fn && prompt ? xstrdup(prompt) : NULL;
	r->line_fn = fn;
	r->line_ctx = fn ? ctx : NULL;
}

void repl_add_secret(Repl *r, const char *value)
{
	if (!value || !*value)
		return;
	r->secrets = xrealloc(r->secrets, (size_t)(r->nsecrets + 1) * sizeof *r->secrets);
	r->secrets[r->nsecrets++] = xstrdup(value);
}

int repl_is_secret(const Repl *r, const char *text)
{
	if (str_icontains(text, "llm.key"))
		return 1;
	static const char *const envs[] = {"SUQL_LLM_KEY", "OPENAI_API_KEY"};
	for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
		const char *v = getenv(envs[i]);
		if (v && strlen(v) >= 4 && strstr(text, v))
			return 1;
	}
	for (int i = 0; i < r->nsecrets; i++)
		if (strstr(text, r->secrets[i]))
			return 1;
	return 0;
}

void repl_banner(Repl *r, FILE *f)
{
	const char *path = engine_path(r->engine);
	fprintf(f, "suql %s: SQL with free-text questions, over SQLite %s\n", SUQL_VERSION,
	        sqlite3_libversion());
	if (strcmp(path, ":memory:") == 0 || !*path)
		fprintf(f, "database: in memory (nothing is saved; :open FILE to use a file)\n");
	else
		fprintf(f, "database: %s\n", path);
	if (r->llm)
		fprintf(f, "model:    %s\n", llm_label(r->llm));
	fprintf(f, "End statements with ';'. :help lists the meta-commands (.tables, \\d and\n"
	           "quit work too). Ctrl-C stops a statement, Ctrl-D leaves.\n");
}

/* ---- errors ---- */

/* Colour is for a person at the REPL: never in batch mode, never off a terminal. */
static int stderr_color(const Repl *r)
{
	return r->interactive && r->color_ok && isatty(2);
}

void repl_fail(Repl *r, const char *where, int line, int col, SuqlStatus status,
               const SuqlErr *err)
{
	const char *msg = err && err->msg ? err->msg : "failed";
	repl_status_clear(r);
	fflush(r->out);
	if (status == SUQL_INTERRUPT)
		repl_after_ctrl_c(r);
	if (stderr_color(r))
		fputs("\033[1;31merror:\033[0m ", stderr);
	else
		fputs("error: ", stderr);
	int l, c, k = 0;
	if (col > 0 && sscanf(msg, "line %d, column %d: %n", &l, &c, &k) == 2 && k > 0) {
		/* the engine counts from the statement's start; say where it is in the input */
		int al = line + l - 1, ac = l == 1 ? col + c - 1 : c;
		if (where)
			fprintf(stderr, "%s:%d:%d: ", where, al, ac);
		else
			fprintf(stderr, "line %d, column %d: ", al, ac);
		msg += k;
	} else if (where) {
		fprintf(stderr, "%s:%d: ", where, line);
	}
	vis_fputs(stderr, msg, VIS_TEXT);   /* messages quote the data and the model */
	fputc('\n', stderr);
	if (strstr(msg, "database is locked") && !strstr(msg, "\nhint:"))
		fputs("hint: another process is writing the database; :set busy_timeout SECONDS "
		      "waits longer for it\n", stderr);
	fflush(stderr);

	int code = status == SUQL_LLM ? 3 : 1;
	if (status == SUQL_INTERRUPT && !r->interactive) {
		code = 130;   /* like a shell: a script stopped by Ctrl-C */
		r->quit = 1;
	}
	if (r->interactive)
		return;
	if (code > r->status)
		r->status = code;
	if (r->bail)
		r->quit = 1;
}

void repl_notices(Repl *r)
{
	const char *why = r->llm ? llm_cache_notice(r->llm) : NULL;
	if (!why)
		return;
	fflush(r->out);
	fputs("warning: running without the LLM cache: ", stderr);
	vis_fputs(stderr, why, VIS_TEXT);
	fputs(" (results are not kept between sessions; :cache shows this again)\n", stderr);
	fflush(stderr);
}

/* ---- one statement ---- */

FILE *repl_section_out(const Repl *r)
{
	(void)r;
	return isatty(fileno(stdout)) ? stdout : stderr;
}

void repl_after_ctrl_c(Repl *r)
{
	if (!suql_interrupted || r->ctrlc_shown || !r->interactive)
		return;
	repl_status_clear(r);   /* erasing the status line takes the ^C with it */
	if (r->ctrlc_shown)
		return;
	r->ctrlc_shown = 1;
	fflush(stderr);
	fputc('\n', stdout);
	fflush(stdout);
}

typedef struct Show {
	Repl *r;
	Render *render;       /* made at the first columns or row (see show_render) */
	RenderOpts o;
	FILE *rout;           /* where the result goes: r->out, or a buffer for the pager */
	FILE *sec;            /* where parsed SUQL, the plan and the counters go */
	SBuf counters;
	char *parsed;         /* held while it is not known whether the statement has free text */
	int freetext;         /* the statement involves free text (EngineSink.freetext) */
	int color;
	int labelled;   /* a section was shown where the result goes, so it gets a label too */
	const EngineSink *tap;   /* also gets the columns and rows (repl_run_statement) */
	int always_parsed;
	int result_shown;        /* the result label was written */
	long rows, max_rows;     /* rows shown; the most that may be (0: no limit) */
	int capped;              /* stopped at max_rows */
} Show;

static int explaining(const Show *s)
{
	return s->r->explain == 1 || (s->r->explain == REPL_AUTO && s->freetext);
}

/* A section: where sections go, wrapped to the terminal there. */
static void section(Show *s, const char *label, const char *text, int wrap)
{
	repl_status_clear(s->r);
	repl_after_ctrl_c(s->r);
	int color = s->color && isatty(fileno(s->sec));
	render_section_wrap(s->sec, label, text, color, wrap ? render_term_width(s->sec) : 0);
	fflush(s->sec);
	if (s->sec == s->r->out)
		s->labelled = 1;
}

/* The "result:" label, once, before the first row is written, when a section came before
   where the result goes. */
static void result_label(Show *s)
{
	if (s->result_shown || !s->labelled || !s->render || !render_has_columns(s->render))
		return;
	s->result_shown = 1;
	fprintf(s->rout, "%sresult:%s\n", s->o.color ? "\033[1m" : "", s->o.color ? "\033[0m" : "");
}

static void show_parsed(void *ctx, const char *suql)
{
	Show *s = ctx;
	if (s->always_parsed) {   /* the chat agent's query belongs with its result */
		repl_status_clear(s->r);
		render_section(s->r->out, "parsed", suql, s->color);
		s->labelled = 1;
	} else if (s->r->explain == 1) {
		section(s, "parsed", suql, 0);
	} else if (s->r->explain == REPL_AUTO) {
		free(s->parsed);
		s->parsed = xstrdup(suql);
	}
}

static void show_freetext(void *ctx)
{
	Show *s = ctx;
	s->freetext = 1;
	if (s->parsed && explaining(s))
		section(s, "parsed", s->parsed, 0);
	free(s->parsed);
	s->parsed = NULL;
}

static void show_plan(void *ctx, const char *text)
{
	Show *s = ctx;
	if (explaining(s))
		section(s, "plan", text, 1);
}

/* The renderer, made when the first columns come: by then it is known whether counters
   will be shown before the rows (they come after the last one), so whether rows can be
   written as they come. */
static Render *show_render(Show *s)
{
	if (!s->render) {
		int counters_first = s->r->stats && s->freetext && s->sec == s->r->out;
		s->o.stream = !counters_first;
		s->render = render_new(&s->o, s->rout);
	}
	return s->render;
}

static void show_columns(void *ctx, sqlite3_stmt *st)
{
	Show *s = ctx;
	Render *rd = show_render(s);
	render_columns(rd, st);
	if (s->o.mode == RENDER_JSON)
		for (int i = 0; i < sqlite3_column_count(st); i++)
			if (engine_column_is_list(s->r->engine, i))
				render_json_column(rd, i);
	if (s->tap && s->tap->columns)
		s->tap->columns(s->tap->ctx, st);
}

static int show_row(void *ctx, sqlite3_stmt *st)
{
	Show *s = ctx;
	if (s->max_rows > 0 && s->rows >= s->max_rows) {   /* a row past the limit: stop */
		s->capped = 1;
		return 1;
	}
	s->rows++;
	if (s->o.stream)
		repl_status_clear(s->r);
	Render *rd = show_render(s);
	render_row(rd, st);
	if (render_full(rd)) {   /* rows shown in parts: memory stays bounded */
		repl_status_clear(s->r);
		result_label(s);
		render_flush(rd);
	}
	if (s->tap && s->tap->row && s->tap->row(s->tap->ctx, st))
		return 1;
	return suql_interrupted != 0;
}

static void show_counters(void *ctx, const char *text)
{
	Show *s = ctx;
	if (s->r->stats)
		sb_puts(&s->counters, text);
}

static void show_warning(void *ctx, const char *msg)
{
	Show *s = ctx;
	repl_status_clear(s->r);
	fflush(s->r->out);
	fputs("warning: ", stderr);
	vis_fputs(stderr, msg, VIS_TEXT);
	fputc('\n', stderr);
	fflush(stderr);
}

/* The statement ended under limits: a timeout becomes its error (and the interrupt it
   raised is over), a value past the length limit says which setting raises it. */
static SuqlStatus limits_after(const ReplLimits *lim, SuqlStatus st, SuqlErr *err)
{
	if (suql_timed_out) {
		suql_timed_out = 0;
		suql_interrupted = 0;
		return err_set(err, SUQL_ERROR, "stopped at the time limit of %g s (:set %s SECONDS "
		               "changes it)", lim->seconds, lim->setting);
	}
	if (st != SUQL_OK && lim->value_bytes > 0 && err->msg &&
	    strstr(err->msg, "string or blob too big"))
		return err_set(err, SUQL_ERROR, "a value is longer than %d bytes, the most allowed "
		               "here (:set %s BYTES changes it)", lim->value_bytes, lim->value_setting);
	return st;
}

static SuqlStatus run_one(Repl *r, const char *sql, size_t len, size_t *used,
                          const EngineSink *tap, int always_parsed, const ReplLimits *lim,
                          SuqlErr *err)
{
	int tty = isatty(fileno(r->out));
	ReplLimits dflt = {r->timeout, 0, 0, "timeout", NULL, NULL};
	if (!lim)
		lim = &dflt;
	Show s = {0};
	s.r = r;
	s.o.mode = r->mode;
	s.o.headers = r->headers;
	s.o.nullvalue = r->nullvalue;
	s.o.unicode = tty;
	s.o.color = tty && r->color_ok && r->interactive;
	s.o.width = render_term_width(r->out);
	s.o.fetch = r->fetch_count;
	s.o.visible = tty;
	s.color = r->color_ok && r->interactive;
	s.sec = repl_section_out(r);
	s.tap = tap;
	s.always_parsed = always_parsed;
	s.max_rows = lim->rows;
	char *pbuf = NULL;
	size_t plen = 0;
	s.rout = repl_pager_buffer(r, &pbuf, &plen);
	if (!s.rout)
		s.rout = r->out;
	EngineSink sink = {&s, show_parsed, show_plan, show_columns, show_row, show_counters,
	                   show_warning, show_freetext};
	SuqlStatus st;
	double t0 = util_now_ms();
	*used = 0;
	repl_status_begin(r);
	if (suql_interrupted) {
		st = err_set(err, SUQL_INTERRUPT, "interrupted");
	} else {
		sqlite3 *db = engine_db(r->engine);
		int old_len = lim->value_bytes > 0
		              ? sqlite3_limit(db, SQLITE_LIMIT_LENGTH, lim->value_bytes) : -1;
		running_db = db;
		alarm_set(lim->seconds);
		st = engine_exec(r->engine, sql, len, used, &sink, err);
		alarm_set(0);
		running_db = NULL;
		if (old_len >= 0)
			sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old_len);
		st = limits_after(lim, st, err);
		if (st == SUQL_OK && suql_interrupted)
			st = err_set(err, SUQL_INTERRUPT, "interrupted");
	}
	double ms = util_now_ms() - t0;
	repl_status_end(r);
	if (s.counters.len)
		section(&s, "counters", s.counters.s, 1);
	/* a failed statement shows the rows it produced before failing, but no empty table */
	if (s.render && (st == SUQL_OK || render_rows(s.render) > 0)) {
		result_label(&s);
		render_finish(s.render);
	}
	if (s.rout != r->out)
		repl_pager_show(r, s.rout, &pbuf, &plen);
	if (s.capped) {
		char *m = xprintf("stopped after %ld row%s, the most shown here (:set %s N changes "
		                  "it)", s.rows, s.rows == 1 ? "" : "s", lim->rows_setting);
		show_warning(&s, m);
		free(m);
	}
	if (r->timer) {
		fflush(r->out);
		fprintf(s.sec, "time: %.3f ms\n", ms);
		fflush(s.sec);
	}
	fflush(r->out);
	repl_notices(r);
	render_free(s.render);
	sb_free(&s.counters);
	free(s.parsed);
	once_done(r);
	return st;
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

/* Move the line and column (in characters) of a position over s[0..n). */
static void advance(const char *s, size_t n, int *line, int *col)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			++*line, *col = 1;
		else if (((unsigned char)s[i] & 0xC0) != 0x80)
			++*col;
	}
}

SuqlStatus repl_run_sql(Repl *r, const char *sql, size_t len, const char *where, int line)
{
	SuqlStatus first = SUQL_OK;
	size_t off = 0;
	int ln = line, col = 1;   /* where sql[off] is */
	while (off < len && !r->quit) {
		size_t start = off + skip_blank(sql + off, len - off);
		advance(sql + off, start - off, &ln, &col);
		if (start >= len)
			break;
		SuqlErr err = {0};
		size_t used = 0;
		SuqlStatus st = run_one(r, sql + start, len - start, &used, NULL, 0, NULL, &err);
		if (st != SUQL_OK) {
			repl_fail(r, where, ln, col, st, &err);
			if (first == SUQL_OK)
				first = st;
			size_t end = statement_end(sql + start, len - start);
			if (used < end)
				used = end;
		}
		err_clear(&err);
		if (st == SUQL_INTERRUPT)
			break;   /* Ctrl-C stops what was typed or read with it, too */
		if (used == 0 || used > len - start)
			used = len - start;
		advance(sql + start, used, &ln, &col);
		off = start + used;
	}
	return first;
}

SuqlStatus repl_run_statement(Repl *r, const char *sql, size_t len, const EngineSink *tap,
                              int always_parsed, SuqlErr *err)
{
	size_t used = 0;
	return run_one(r, sql, len, &used, tap, always_parsed, NULL, err);
}

SuqlStatus repl_run_limited(Repl *r, const char *sql, size_t len, const EngineSink *tap,
                            int always_parsed, const ReplLimits *lim, SuqlErr *err)
{
	size_t used = 0;
	return run_one(r, sql, len, &used, tap, always_parsed, lim, err);
}

/* ---- lines into statements ---- */

static void run_meta(Repl *r, ReplInput *in, const char *line, size_t n)
{
	SuqlErr err = {0};
	char *l = xstrndup(line, n);
	SuqlStatus st = meta_run(r, l, &err);
	if (st != SUQL_OK)
		repl_fail(r, in->name, in->lineno, 0, st, &err);
	repl_notices(r);
	free(l);
	err_clear(&err);
}

static void run_line_fn(Repl *r, ReplInput *in, const char *line, size_t n)
{
	SuqlErr err = {0};
	char *l = xstrndup(line, n);
	repl_status_begin(r);
	SuqlStatus st = r->line_fn(r, r->line_ctx, l, &err);
	repl_status_end(r);
	if (st != SUQL_OK)
		repl_fail(r, in->name, in->lineno, 0, st, &err);
	repl_notices(r);
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
		repl_run_sql(r, in->buf.s, in->buf.len, in->name, in->name ? in->start_line : 1);
		sb_truncate(&in->buf, 0);
	}
}

void repl_feed_end(Repl *r, ReplInput *in)
{
	if (repl_pending(in) && !r->quit && !suql_interrupted)
		repl_run_sql(r, in->buf.s, in->buf.len, in->name, in->name ? in->start_line : 1);
	sb_truncate(&in->buf, 0);
}

void repl_input_free(ReplInput *in)
{
	sb_free(&in->buf);
}

/* ---- scripts ---- */

/* Ctrl-C while a script runs: the script stops; a script not typed at a terminal ends the
   session with status 130, like a shell's. */
static void interrupted_script(Repl *r)
{
	if (r->interactive)
		return;
	if (r->status < 130)
		r->status = 130;
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
