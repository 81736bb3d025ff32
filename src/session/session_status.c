/*
 * repl_status.c: the status line. A statement with free text, or a chat turn, can wait for a
 * slow endpoint for a long time; at a terminal one line on stderr then says what is
 * happening, updated in place:
 *
 *     judged 12 of 40 candidates; model calls: 3 done, 8 in flight; 2.4 s (Ctrl-C stops)
 *
 * The LLM client's tick (llm_set_tick) draws it while requests are on the wire; the walk's
 * progress comes from engine_progress, the finished calls from the session's counters. It
 * appears only once the work has lasted a moment (a fast statement never flickers), is
 * erased before anything else is written (repl_status_clear) and when the statement ends.
 * Nothing is drawn when stderr is not a terminal.
 */
#include "cli/repl.h"

#include "base/progress.h"

#include <stdio.h>
#include <unistd.h>

#define STATUS_AFTER_MS 300   /* quiet for the first moments of a statement */

static void on_tick(void *ctx, int inflight, int waiting)
{
	Repl *r = ctx;
	if (!r->statusline)
		return;
	double ms = util_now_ms() - r->status_t0;
	if (ms < STATUS_AFTER_MS)
		return;
	SBuf b = SBUF_INIT;
	long long judged, of;
	if (r->engine && engine_progress(r->engine, &judged, &of))
		sb_printf(&b, "judged %lld of %lld candidates; ", judged, of);
	long done = llm_stats_session(r->llm)->total.calls - r->status_base;
	sb_printf(&b, "model calls: %ld done, %d in flight", done, inflight);
	if (waiting > 0)
		sb_printf(&b, ", %d waiting", waiting);
	sb_printf(&b, "; %.1f s (Ctrl-C stops)", ms / 1000.0);
	progress_text(r->statusline, b.s, 0);
	sb_free(&b);
}

void repl_status_begin(Repl *r)
{
	if (r->status_depth++ > 0 || !r->llm)
		return;
	r->statusline = progress_open(stderr, PROGRESS_AUTO, "", 0);
	if (!r->statusline)
		return;
	r->status_t0 = util_now_ms();
	r->status_base = llm_stats_session(r->llm)->total.calls;
	llm_set_tick(r->llm, on_tick, r);
}

void repl_status_clear(Repl *r)
{
	if (r->statusline && progress_erase(r->statusline) && suql_interrupted)
		r->ctrlc_shown = 1;   /* the ^C went with it; the cursor is at a line's start */
}

void repl_status_stop(Repl *r)
{
	if (!r->statusline)
		return;
	repl_status_clear(r);
	llm_set_tick(r->llm, NULL, NULL);
	progress_close(r->statusline);
	r->statusline = NULL;
}

void repl_status_end(Repl *r)
{
	if (r->status_depth == 0 || --r->status_depth > 0)
		return;
	repl_status_stop(r);
}
