/*
 * session_run.c: one statement, run through engine_exec with a sink that shows, in order,
 * the parsed SUQL, the plan, the counters and the result (buffering rows when the counters
 * must come first), in the session's output mode, through the pager at a terminal. A
 * statement runs under limits (time, rows, a value's size; RunLimits): the time limit is
 * an alarm whose signal stops it as Ctrl-C does. The runner returns the statement's status;
 * reporting an error is the caller's.
 */
#include "session/session.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- Ctrl-C ---- */

static Store *volatile running;   /* the database of the running statement, if any */

static void on_sigint(int sig)
{
	(void)sig;
	suql_interrupted = 1;
	Store *st = running;
	if (st)
		store_interrupt(st);
}

void session_signals(void)
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
	Store *st = running;
	if (st)
		store_interrupt(st);
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

/* ---- one statement ---- */

typedef struct Show {
	Session *s;
	Render *render;       /* made at the first columns or row (see show_render) */
	RenderOpts o;
	FILE *rout;           /* where the result goes: s->out, or a buffer for the pager */
	FILE *sec;            /* where parsed SUQL, the plan and the counters go */
	SBuf counters;
	char *parsed;         /* held while it is not known whether the statement has free text */
	int freetext;         /* the statement involves free text (EngineSink.freetext) */
	int color;
	int labelled;   /* a section was shown where the result goes, so it gets a label too */
	const EngineSink *tap;   /* also gets the columns and rows */
	int always_parsed;
	int result_shown;        /* the result label was written */
	long rows, max_rows;     /* rows shown; the most that may be (0: no limit) */
	int capped;              /* stopped at max_rows */
} Show;

static int explaining(const Show *sh)
{
	return sh->s->explain == 1 || sh->s->explain == SESSION_EXPLAIN_ROWS ||
	       (sh->s->explain == SESSION_AUTO && sh->freetext);
}

/* A section: where sections go, wrapped to the terminal there (the parsed statement as
   SQL, broken outside its quotes). */
static void section(Show *sh, const char *label, const char *text, int sql)
{
	session_status_clear(sh->s);
	session_after_ctrl_c(sh->s);
	int color = sh->color && util_isatty(sh->sec);
	int width = render_term_width(sh->sec);
	if (sql)
		render_section_sql(sh->sec, label, text, color, width);
	else
		render_section_wrap(sh->sec, label, text, color, width);
	fflush(sh->sec);
	if (sh->sec == sh->s->out)
		sh->labelled = 1;
}

/* :set show compact: the section as one line ("plan: ..."), with no result label after
   it (a line of figures needs none to part it from the rows). */
static void compact(Show *sh, const char *label, const char *text)
{
	SBuf b = SBUF_INIT;
	if (strcmp(label, "plan") == 0)
		session_compact_plan(text, &b);
	else
		session_compact_counters(text, &b);
	session_status_clear(sh->s);
	session_after_ctrl_c(sh->s);
	int color = sh->color && util_isatty(sh->sec);
	render_labelled_line(sh->sec, label, sb_str(&b), color, render_term_width(sh->sec));
	fflush(sh->sec);
	sb_free(&b);
}

/* The "result:" label, once, before the first row is written, when a section came before
   where the result goes. */
static void result_label(Show *sh)
{
	if (sh->result_shown || !sh->labelled || !sh->render || !render_has_columns(sh->render))
		return;
	sh->result_shown = 1;
	fprintf(sh->rout, "%sresult:%s\n", sh->o.color ? "\033[1m" : "", sh->o.color ? "\033[0m" : "");
}

static void show_parsed(void *ctx, const char *suql)
{
	Show *sh = ctx;
	if (sh->always_parsed) {   /* the chat agent's query belongs with its result */
		session_status_clear(sh->s);
		render_section_sql(sh->s->out, "parsed", suql, sh->color && util_isatty(sh->s->out),
		                   render_term_width(sh->s->out));
		sh->labelled = 1;
	} else if (sh->s->show != SESSION_SHOW_FULL) {
		return;   /* compact and rows: no parsed statement */
	} else if (sh->s->explain == 1 || sh->s->explain == SESSION_EXPLAIN_ROWS) {
		section(sh, "parsed", suql, 1);
	} else if (sh->s->explain == SESSION_AUTO) {
		free(sh->parsed);
		sh->parsed = xstrdup(suql);
	}
}

static void show_freetext(void *ctx)
{
	Show *sh = ctx;
	sh->freetext = 1;
	if (sh->parsed && explaining(sh))
		section(sh, "parsed", sh->parsed, 1);
	free(sh->parsed);
	sh->parsed = NULL;
}

static void show_plan(void *ctx, const char *text)
{
	Show *sh = ctx;
	if (!explaining(sh) || sh->s->show == SESSION_SHOW_ROWS)
		return;
	if (sh->s->show == SESSION_SHOW_COMPACT)
		compact(sh, "plan", text);
	else
		section(sh, "plan", text, 0);
}

/* The renderer, made when the first columns come: by then it is known whether counters
   will be shown before the rows (they come after the last one), so whether rows can be
   written as they come. */
static Render *show_render(Show *sh)
{
	if (!sh->render) {
		int counters_first = sh->s->stats && sh->s->show != SESSION_SHOW_ROWS &&
		                     sh->freetext && sh->sec == sh->s->out;
		sh->o.stream = !counters_first;
		Session *s = sh->s;
		if (s->render && !s->render_busy) {   /* the session's, grown by earlier results */
			render_reset(s->render, &sh->o, sh->rout);
			sh->render = s->render;
			s->render_busy = 1;
		} else {
			sh->render = render_new(&sh->o, sh->rout);
			if (!s->render) {
				s->render = sh->render;
				s->render_busy = 1;
			}
		}
	}
	return sh->render;
}

static void show_columns(void *ctx, const Row *st)
{
	Show *sh = ctx;
	Render *rd = show_render(sh);
	render_columns(rd, st);
	session_result_begin(sh->s, st);
	if (sh->o.mode == RENDER_JSON)
		for (int i = 0; i < row_count(st); i++)
			if (engine_column_is_list(sh->s->engine, i))
				render_json_column(rd, i);
	if (sh->tap && sh->tap->columns)
		sh->tap->columns(sh->tap->ctx, st);
}

static int show_row(void *ctx, const Row *st)
{
	Show *sh = ctx;
	if (sh->max_rows > 0 && sh->rows >= sh->max_rows) {   /* a row past the limit: stop */
		sh->capped = 1;
		return 1;
	}
	sh->rows++;
	session_result_row(sh->s, st);
	if (sh->o.stream)
		session_status_clear(sh->s);
	Render *rd = show_render(sh);
	render_row(rd, st);
	if (render_full(rd)) {   /* rows shown in parts: memory stays bounded */
		session_status_clear(sh->s);
		result_label(sh);
		render_flush(rd);
	}
	if (sh->tap && sh->tap->row && sh->tap->row(sh->tap->ctx, st))
		return 1;
	if (ferror(sh->rout)) {   /* the output is lost (a full disk): stop; the caller says so */
		if (!sh->s->out_errno)
			sh->s->out_errno = errno;   /* the write's own, before anything else runs */
		return 1;
	}
	return suql_interrupted != 0;
}

static void show_counters(void *ctx, const char *text)
{
	Show *sh = ctx;
	if (sh->s->stats)
		sb_puts(&sh->counters, text);
}

/* EXPLAIN of a statement with free text: its sections are the answer, so they go where
   the result goes, whatever :explain says. */
static void show_explained(void *ctx, const char *label, const char *text)
{
	Show *sh = ctx;
	session_status_clear(sh->s);
	FILE *out = sh->rout;
	if (strcmp(label, "json") == 0) {   /* --json: one object, a line of its own */
		fprintf(out, "%s\n", text);
		fflush(out);
		return;
	}
	if (strcmp(label, "parsed") == 0)
		render_section_sql(out, label, text, sh->o.color, render_term_width(out));
	else
		render_section_wrap(out, label, text, sh->o.color, render_term_width(out));
	fflush(out);
}

/* :set explain rows: the per-row section, after the counters, cut to the width where
   sections go. */
static void show_record_rows(Show *sh)
{
	SBuf b = SBUF_INIT;
	int width = render_term_width(sh->sec);
	engine_record_rows(sh->s->engine, (width > 0 ? width : SESSION_ROWS_WIDTH) - 2, &b);
	if (b.len)
		section(sh, "candidates", sb_str(&b), 0);
	sb_free(&b);
}

static void show_warning(void *ctx, const char *msg)
{
	Show *sh = ctx;
	session_status_clear(sh->s);
	fflush(sh->s->out);
	fputs("warning: ", stderr);
	render_message(stderr, 9, msg, render_term_width(stderr));   /* wrapped at a terminal */
	fflush(stderr);
}

/* The statement ended under limits: a timeout becomes its error (and the interrupt it
   raised is over), a value past the length limit says which setting raises it. */
static SuqlStatus limits_after(const RunLimits *lim, SuqlStatus st, SuqlErr *err)
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

void session_limit_begin(Session *s)
{
	running = engine_store(s->engine);
	if (s->timeout > 0)
		alarm_set(s->timeout);
}

SuqlStatus session_limit_end(Session *s, SuqlStatus st, SuqlErr *err)
{
	if (s->timeout > 0)
		alarm_set(0);
	running = NULL;
	RunLimits lim = {s->timeout, 0, 0, "timeout", NULL, NULL};
	if (suql_timed_out)
		err_clear(err);   /* "interrupted" becomes the time limit's message */
	return limits_after(&lim, st, err);
}

static SuqlStatus run_one(Session *s, const char *sql, size_t len, size_t *used,
                          const EngineSink *tap, int always_parsed, const RunLimits *lim,
                          SuqlErr *err)
{
	int tty = util_isatty(s->out);
	RunLimits dflt = {s->timeout, 0, 0, "timeout", NULL, NULL};
	if (!lim)
		lim = &dflt;
	Show sh = {0};
	sh.s = s;
	sh.o.mode = s->once && s->once_mode ? (RenderMode)(s->once_mode - 1) : s->mode;
	sh.o.headers = s->headers;
	sh.o.nullvalue = s->nullvalue;
	sh.o.expanded = s->expanded;
	sh.o.table = s->insert_table;
	sh.o.unicode = tty && !s->ascii;
	sh.o.color = tty && s->color_ok && s->interactive;
	sh.o.width = render_term_width(s->out);
	sh.o.fetch = s->fetch_count;
	sh.o.max_width = s->max_width;
	sh.o.visible = tty;
	sh.color = s->color_ok && s->interactive;
	sh.sec = session_section_out(s);
	sh.tap = tap;
	sh.always_parsed = always_parsed;
	sh.max_rows = lim->rows;
	char *pbuf = NULL;
	size_t plen = 0;
	sh.rout = session_pager_buffer(s, &pbuf, &plen);
	if (!sh.rout)
		sh.rout = s->out;
	EngineSink sink = {&sh, show_parsed, show_plan, show_columns, show_row, show_counters,
	                   show_warning, show_freetext,
	                   !always_parsed && (s->explain == 0 || s->explain == SESSION_AUTO),
	                   show_explained, sh.o.mode == RENDER_JSON};
	SuqlStatus st;
	double t0 = s->timer ? util_now_ms() : 0;
	*used = 0;
	session_status_begin(s);
	if (suql_interrupted) {
		st = err_set(err, SUQL_INTERRUPT, "interrupted");
	} else {
		Store *store = engine_store(s->engine);
		int old_len = lim->value_bytes > 0 ? store_value_limit(store, lim->value_bytes) : -1;
		running = store;
		if (lim->seconds > 0)   /* no timer, no system call */
			alarm_set(lim->seconds);
		int bulk = session_bulk_begin(s, sql, len);
		st = engine_exec(s->engine, sql, len, used, &sink, err);
		if (bulk)
			st = session_bulk_end(s, sql, *used, st, err);
		if (lim->seconds > 0)
			alarm_set(0);
		running = NULL;
		if (old_len >= 0)
			store_value_limit(store, old_len);
		st = limits_after(lim, st, err);
		if (st == SUQL_OK && suql_interrupted)
			st = err_set(err, SUQL_INTERRUPT, "interrupted");
	}
	double ms = s->timer ? util_now_ms() - t0 : 0;
	session_status_end(s);
	if (sh.counters.len && s->show == SESSION_SHOW_COMPACT)
		compact(&sh, "counters", sh.counters.s);
	else if (sh.counters.len && s->show == SESSION_SHOW_FULL)
		section(&sh, "counters", sh.counters.s, 0);
	if (sh.freetext && s->explain == SESSION_EXPLAIN_ROWS && s->show != SESSION_SHOW_ROWS)
		show_record_rows(&sh);
	/* a failed statement shows the rows it produced before failing, but no empty table */
	if (sh.render && (st == SUQL_OK || render_rows(sh.render) > 0)) {
		result_label(&sh);
		errno = 0;
		render_finish(sh.render);
		if (ferror(sh.rout) && !s->out_errno)
			s->out_errno = errno;   /* the failed write's own, as in show_row */
	}
	if (sh.freetext && s->mode == RENDER_JSON && s->explain == SESSION_EXPLAIN_ROWS &&
	    !s->interactive) {
		/* --json with explain rows (-v --set explain=rows): the record, an object after
		   the statement's rows (stdout stays JSON values alone: the sections go to stderr) */
		SBuf j = SBUF_INIT;
		engine_record_json(s->engine, &j);
		if (j.len)
			fprintf(sh.rout, "%s\n", sb_str(&j));
		sb_free(&j);
	}
	if (sh.rout != s->out)
		session_pager_show(s, sh.rout, &pbuf, &plen);
	if (sh.capped) {
		char *m = xprintf("stopped after %ld row%s, the most shown here (:set %s N changes "
		                  "it)", sh.rows, sh.rows == 1 ? "" : "s", lim->rows_setting);
		show_warning(&sh, m);
		free(m);
	}
	if (s->timer) {
		fflush(s->out);
		SBuf t = SBUF_INIT;
		util_duration(&t, ms, 3);
		fprintf(sh.sec, "time: %s\n", sb_str(&t));
		sb_free(&t);
		fflush(sh.sec);
	}
	errno = 0;
	if (fflush(s->out) != 0 && !s->out_errno)
		s->out_errno = errno;   /* reported by session_check_output, which names the file */
	session_notices(s);
	if (sh.render && sh.render == s->render)
		s->render_busy = 0;   /* kept for the next statement's result */
	else
		render_free(sh.render);
	sb_free(&sh.counters);
	free(sh.parsed);
	session_once_over(s);
	return st;
}

SuqlStatus session_run(Session *s, const char *sql, size_t len, size_t *used,
                       const EngineSink *tap, int always_parsed, const RunLimits *lim,
                       SuqlErr *err)
{
	size_t u = 0;
	return run_one(s, sql, len, used ? used : &u, tap, always_parsed, lim, err);
}
