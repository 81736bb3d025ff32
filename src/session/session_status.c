/*
 * session_status.c: the status line. A statement with free text, or a chat turn, can wait for a
 * slow endpoint for a long time; at a terminal one line on stderr then says what is
 * happening, updated in place:
 *
 *     judged 12 of 40 candidates; model calls: 3 done, 8 in flight; 2.4 s (Ctrl-C stops)
 *
 * The LLM client's tick (llm_set_tick) draws it while requests are on the wire; the walk's
 * progress comes from engine_progress, the finished calls from the session's counters. It
 * appears only once the work has lasted a moment (a fast statement never flickers), is
 * erased before anything else is written (session_status_clear) and when the statement ends.
 * Nothing is drawn when stderr is not a terminal.
 */
#include "session/session.h"

#include "base/progress.h"

#include <stdio.h>
#include <unistd.h>

#define STATUS_AFTER_MS 300   /* quiet for the first moments of a statement */

static void on_tick(void *ctx, int inflight, int waiting)
{
	Session *s = ctx;
	if (!s->statusline)
		return;
	double ms = util_now_ms() - s->status_t0;
	if (ms < STATUS_AFTER_MS)
		return;
	SBuf b = SBUF_INIT;
	long long judged, of;
	if (s->engine && engine_progress(s->engine, &judged, &of))
		sb_printf(&b, "judged %lld of %lld candidates; ", judged, of);
	long done = llm_stats_session(s->llm)->total.calls - s->status_base;
	sb_printf(&b, "model calls: %ld done, %d in flight", done, inflight);
	if (waiting > 0)
		sb_printf(&b, ", %d waiting", waiting);
	sb_printf(&b, "; %.1f s (Ctrl-C stops)", ms / 1000.0);
	progress_text(s->statusline, b.s, 0);
	sb_free(&b);
}

void session_status_begin(Session *s)
{
	if (s->status_depth++ > 0 || !s->llm)
		return;
	s->statusline = progress_open(stderr, PROGRESS_AUTO, "", 0);
	if (!s->statusline)
		return;
	s->status_t0 = util_now_ms();
	s->status_base = llm_stats_session(s->llm)->total.calls;
	llm_set_tick(s->llm, on_tick, s);
}

void session_status_clear(Session *s)
{
	if (s->statusline && progress_erase(s->statusline) && suql_interrupted)
		s->ctrlc_shown = 1;   /* the ^C went with it; the cursor is at a line's start */
}

void session_status_stop(Session *s)
{
	if (!s->statusline)
		return;
	session_status_clear(s);
	llm_set_tick(s->llm, NULL, NULL);
	progress_close(s->statusline);
	s->statusline = NULL;
}

void session_status_end(Session *s)
{
	if (s->status_depth == 0 || --s->status_depth > 0)
		return;
	session_status_stop(s);
}
