/*
 * session_bulk.c: bulk mode as the user sees it (llm.bulk, :bulk; doc/bulk.md). A statement
 * run with llm.bulk on is collected (llm_bulk_collect_mode) instead of answered: it shows
 * no rows, and its requests go to the endpoint's batch interface, the job kept in the cache
 * file. :bulk status reads the batch's progress; :bulk resume, in this suql or a later one,
 * reads its replies and runs the statement again, which is then answered from them (and
 * from the cache they fill); what it still needs goes into the next batch. :bulk cancel
 * stops a batch, :bulk list shows them.
 *
 * A resume runs once: it claims the job first (llm_bulk_claim; a second resume, here or in
 * another process, is told who has it), and a statement that writes commits together with
 * its job's mark in the user's database (engine_once_begin), so that a resume stopped at
 * any point leaves the write done entirely or not at all, and the next resume completes
 * it exactly once (doc/bulk.md says how).
 *
 * A statement with LIMIT is not collected: a lazy walk stops once it has its rows, and a
 * batch would have asked every candidate. Nor does the offline backend collect anything.
 */
#include "base/util.h"
#include "base/vis.h"
#include "session/session.h"
#include "sql/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether the statement says LIMIT (or FETCH FIRST) anywhere. */
static int has_limit(const char *sql, size_t len)
{
	Lexer lx;
	lex_init(&lx, sql, len, 0);
	for (;;) {
		Token t = lex_next(&lx);
		if (t.type == TK_EOF || t.type == TK_SEMI || t.type == TK_ILLEGAL ||
		    t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID)
			return 0;
		if (t.type == TK_ID && t.kw == KW_LIMIT)
			return 1;
	}
}

static void note(Session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(Session *s, const char *fmt, ...)
{
	FILE *f = session_section_out(s);
	va_list ap;
	va_start(ap, fmt);
	SBuf b = SBUF_INIT;
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	fflush(s->out);
	vis_fputs(f, sb_str(&b), VIS_TEXT);   /* ids and statements come from outside */
	fputc('\n', f);
	fflush(f);
	sb_free(&b);
}

int session_bulk_begin(Session *s, const char *sql, size_t len)
{
	if (!s->llm || (!llm_bulk_setting(s->llm) && !s->bulk_resume))
		return 0;
	const char *why = llm_bulk_problem(s->llm);
	if (why) {
		note(s, "bulk not used: %s", why);
		return 0;
	}
	if (!s->bulk_resume && has_limit(sql, len)) {
		note(s, "bulk not used: the statement has LIMIT, and its walk stops once it has its "
		     "rows (a batch would ask every candidate): it runs as usual");
		return 0;
	}
	llm_bulk_collect_mode(s->llm, 1);
	return 1;
}

SuqlStatus session_bulk_end(Session *s, const char *stmt, size_t n, SuqlStatus st,
                            SuqlErr *err)
{
	long got = llm_bulk_collected(s->llm);
	if (got == 0 || st != SUQL_LLM) {   /* nothing to ask, or another error */
		llm_bulk_collect_mode(s->llm, 0);
		return st;
	}
	err_clear(err);
	while (n > 0 && (stmt[n - 1] == ' ' || stmt[n - 1] == '\n' || stmt[n - 1] == '\t'))
		n--;
	char *text = xstrndup(stmt, n);
	LlmBulkJob job;
	st = llm_bulk_submit(s->llm, text, engine_path(s->engine), s->bulk_resume, &job, err);
	free(text);
	if (st == SUQL_OK && s->bulk_resume)
		s->bulk_next = job.seq;
	if (st == SUQL_OK)
		note(s, "submitted batch %d (%s): %ld request%s%s; :bulk status shows its progress, "
		     ":bulk resume runs the statement from its replies", job.seq, job.batch,
		     job.requests, job.requests == 1 ? "" : "s",
		     s->bulk_resume ? ", the rest the statement needs" : "");
	llm_bulk_job_free(&job);
	return st;
}

/* "12 s", "3 min", "2 h" */
static void span(SBuf *b, double sec)
{
	if (sec < 120)
		sb_printf(b, "%.0f s", sec);
	else if (sec < 7200)
		sb_printf(b, "%.0f min", sec / 60);
	else
		sb_printf(b, "%.1f h", sec / 3600);
}

/* suql's own statuses after the provider's: the replies are kept */
static int fetched(const char *status)
{
	return strcmp(status, "fetched") == 0 || strcmp(status, "running") == 0;
}

static void show_status(Session *s, const LlmBulkJob *j, FILE *out)
{
	SBuf b = SBUF_INIT;
	sb_printf(&b, "batch %d (%s): %s, %ld of %ld request%s done", j->seq, j->batch, j->status,
	          j->completed, j->requests, j->requests == 1 ? "" : "s");
	if (j->units > 0)
		sb_printf(&b, " (%ld answer%s asked)", j->units, j->units == 1 ? "" : "s");
	if (j->failed)
		sb_printf(&b, ", %ld failed", j->failed);
	double age = difftime((time_t)j->polled, (time_t)j->created);
	sb_puts(&b, "; submitted ");
	span(&b, age);
	sb_puts(&b, " ago");
	int active = strcmp(j->status, "validating") == 0 || strcmp(j->status, "in_progress") == 0 ||
	             strcmp(j->status, "finalizing") == 0;
	if (active && j->completed > 0 && j->completed < j->requests && age > 0) {
		double left = age / (double)j->completed * (double)(j->requests - j->completed);
		time_t at = (time_t)j->polled + (time_t)left;
		struct tm tm;
		char when[16];
		localtime_r(&at, &tm);
		strftime(when, sizeof when, "%H:%M", &tm);
		sb_puts(&b, "; expected done in about ");
		span(&b, left);
		sb_printf(&b, " (%s), at the rate so far", when);
	} else if (active) {
		sb_puts(&b, "; no rate yet to expect its end from (the provider promises 24 h)");
	}
	sb_putc(&b, '\n');
	if (strcmp(j->status, "completed") == 0)
		sb_puts(&b, "completed: :bulk resume runs the statement from its replies\n");
	else if (strcmp(j->status, "resumed") == 0)
		sb_puts(&b, "its replies were read and its statement ran again\n");
	else if (fetched(j->status))
		sb_puts(&b, "its replies are kept in the cache file: :bulk resume runs the statement "
		        "from them\n");
	if (llm_bulk_taken(j))
		sb_printf(&b, "taken: process %ld is resuming it\n", llm_bulk_taken(j));
	if (j->error)
		sb_printf(&b, "the provider says: %s\n", j->error);
	sb_printf(&b, "statement: %s\n", j->statement);
	llm_bulk_cost(s->llm, j, &b);
	vis_fputs(out, sb_str(&b), VIS_TEXT);
	sb_free(&b);
}

/* Poll the job's batch and keep its replies (the job claimed, not fetched yet). */
static SuqlStatus fetch(Session *s, LlmBulkJob *j, FILE *out, SuqlErr *err)
{
	SuqlStatus st = llm_bulk_poll(s->llm, j, err);
	if (st != SUQL_OK)
		return st;
	int over = strcmp(j->status, "completed") == 0 || strcmp(j->status, "expired") == 0 ||
	           strcmp(j->status, "cancelled") == 0;
	if (!over || !j->output_file) {
		show_status(s, j, out);
		if (!over)
			return err_set(err, SUQL_USAGE, "batch %d is not finished yet (%s): :bulk resume "
			               "once it is", j->seq, j->status);
		return err_set(err, SUQL_LLM, "batch %d ended %s without replies: run the statement "
		               "again", j->seq, j->status);
	}
	LlmBulkFetched got;
	if ((st = llm_bulk_fetch(s->llm, j, &got, err)) != SUQL_OK)
		return st;
	note(s, "batch %d: %ld repl%s fetched%s", j->seq, got.replies, got.replies == 1 ? "y" : "ies",
	     got.unusable > 0 ? " (some lines held no reply: those are asked again)" : "");
	if (got.foreign > 0)
		note(s, "warning: batch %d: %ld line%s of its output answer%s a request that was never "
		     "sent (an unknown custom_id): dropped, neither read nor counted nor priced",
		     j->seq, got.foreign, got.foreign == 1 ? "" : "s", got.foreign == 1 ? "s" : "");
	if (got.twice > 0)
		note(s, "warning: batch %d: %ld request%s came back more than once (the same "
		     "custom_id on several lines): none of %s replies is used, and %s answers are "
		     "asked again in the next batch", j->seq, got.twice, got.twice == 1 ? "" : "s",
		     got.twice == 1 ? "its" : "their", got.twice == 1 ? "its" : "their");
	return SUQL_OK;
}

/* The statement did not run to its end: the job is kept as fetched (its replies too), for
   another :bulk resume. */
static void keep(Session *s, LlmBulkJob *j)
{
	SuqlErr err = {0};
	llm_bulk_set_status(s->llm, j, "fetched", &err);
	err_clear(&err);
}

/* The claimed job's statement, run again from its replies. */
static SuqlStatus run_again(Session *s, LlmBulkJob *j, FILE *out, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	if (!fetched(j->status) && (st = fetch(s, j, out, err)) != SUQL_OK)
		return st;
	if (strcmp(j->database, engine_path(s->engine)) != 0)
		return err_set(err, SUQL_USAGE, "batch %d ran on %s, and %s is open: :open it, then "
		               ":bulk resume", j->seq, j->database, engine_path(s->engine));
	if ((st = llm_bulk_set_status(s->llm, j, "running", err)) != SUQL_OK)
		return st;
	size_t len = strlen(j->statement);
	int once;
	st = engine_once_begin(s->engine, j->statement, len, j->token, j->batch, &once, err);
	if (st != SUQL_OK) {
		keep(s, j);
		return st;
	}
	if (once == ENGINE_ONCE_DONE) {
		note(s, "batch %d: its statement's write was committed before (the database holds its "
		     "mark, suql_bulk_done): it does not run again", j->seq);
		return llm_bulk_done(s->llm, j, err);
	}
	llm_bulk_answering(s->llm, j, 1);
	s->bulk_resume = j->seq;
	s->bulk_next = 0;
	size_t used;
	st = session_run(s, j->statement, len, &used, NULL, 0, NULL, err);
	s->bulk_resume = 0;
	/* ran to its end: not when its rest went into a next batch (the statement then failed
	   inside, waiting for it, and says OK for the batch submitted) */
	int ran = st == SUQL_OK && !s->bulk_next;
	if (once == ENGINE_ONCE_BEGUN) {
		SuqlErr cerr = {0};
		if (engine_once_end(s->engine, ran, &cerr) != SUQL_OK && ran) {
			err_clear(err);
			*err = cerr;
			st = err->code;
		} else {
			err_clear(&cerr);
		}
	}
	long answered, unreadable;
	llm_bulk_answered(s->llm, &answered, &unreadable);
	llm_bulk_answering(s->llm, j, 0);
	SBuf b = SBUF_INIT;
	sb_printf(&b, "batch %d: %ld answer%s read from its replies", j->seq, answered,
	          answered == 1 ? "" : "s");
	if (unreadable)
		sb_printf(&b, ", %ld could not be read (not kept: asked again)", unreadable);
	sb_putc(&b, '\n');
	llm_bulk_cost(s->llm, j, &b);
	FILE *f = session_section_out(s);
	fflush(s->out);
	vis_fputs(f, sb_str(&b), VIS_TEXT);
	fflush(f);
	sb_free(&b);
	if (ran) {
		SuqlErr derr = {0};
		if (llm_bulk_done(s->llm, j, &derr) != SUQL_OK) {
			note(s, "warning: batch %d ran, but could not be marked resumed (%s)%s", j->seq,
			     derr.msg, once == ENGINE_ONCE_BEGUN ? ": its write is marked in the "
			     "database, so :bulk resume marks it without running it again" : "");
			err_clear(&derr);
		}
		return st;
	}
	/* a next batch took the job over (llm_bulk_submit marked this one resumed), or the
	   statement failed: then the job stays, its replies kept, to be resumed again */
	if (!s->bulk_next)
		keep(s, j);
	return st;
}

static SuqlStatus resume(Session *s, LlmBulkJob *j, FILE *out, SuqlErr *err)
{
	SuqlStatus st = llm_bulk_claim(s->llm, j, err);
	if (st != SUQL_OK)
		return st;
	st = run_again(s, j, out, err);
	llm_bulk_release(s->llm, j);   /* (nothing when the job was marked resumed) */
	return st;
}

SuqlStatus session_bulk(Session *s, const char *verb, const char *arg, FILE *out,
                        SuqlErr *err)
{
	int seq = 0;
	if (arg) {
		char *end;
		long v = strtol(arg, &end, 10);
		if (*end || v <= 0 || v > 1000000000)
			return err_set(err, SUQL_USAGE, "a batch is named by its number (:bulk list), "
			               "not '%s'", arg);
		seq = (int)v;
	}
	if (strcmp(verb, "list") == 0) {
		const char *why = llm_bulk_problem(s->llm);
		if (why)
			return err_set(err, SUQL_USAGE, "%s", why);
		SBuf b = SBUF_INIT;
		llm_bulk_list(s->llm, &b);
		vis_fputs(out, sb_str(&b), VIS_TEXT);
		sb_free(&b);
		return SUQL_OK;
	}
	LlmBulkJob j;
	SuqlStatus st = llm_bulk_job(s->llm, seq, &j, err);
	if (st != SUQL_OK)
		return st;
	int settled = fetched(j.status) || strcmp(j.status, "resumed") == 0;
	/* the batch's id means something only to the endpoint that issued it: a job is asked of
	   no other (its stored state is shown without asking anyone) */
	int asks = strcmp(verb, "resume") == 0 ||
	           (!settled && (strcmp(verb, "status") == 0 || strcmp(verb, "cancel") == 0));
	char *here_note = NULL;
	if (asks && (st = llm_bulk_here(s->llm, &j, verb, &here_note, err)) != SUQL_OK) {
		llm_bulk_job_free(&j);
		return st;
	}
	if (here_note) {
		note(s, "%s", here_note);
		free(here_note);
	}
	if (strcmp(verb, "status") == 0) {
		if (!settled)
			st = llm_bulk_poll(s->llm, &j, err);
		if (st == SUQL_OK)
			show_status(s, &j, out);
	} else if (strcmp(verb, "resume") == 0) {
		st = resume(s, &j, out, err);
	} else if (strcmp(verb, "cancel") == 0) {
		if (settled)
			st = err_set(err, SUQL_USAGE, "batch %d is finished (%s): nothing to cancel",
			             j.seq, j.status);
		else if ((st = llm_bulk_cancel(s->llm, &j, err)) == SUQL_OK)
			show_status(s, &j, out);
	} else {
		st = err_set(err, SUQL_USAGE, "usage: :bulk [status|resume|cancel|list] [N]");
	}
	llm_bulk_job_free(&j);
	return st;
}
