/*
 * session_chat.c: the chat agent as the session keeps it. The agent (chat/agent.h) is a
 * library that knows the model and the SUQL it writes; the session makes it on first use and
 * hands it an AgentHost whose functions are here: the open database, "run this checked
 * query read-only and show it" (session_run with the parsed query always shown), notes where
 * the results go, the turn's counters with the others (a line of them with :set show
 * compact, none with rows), and the reply written as it streams, wrapped to the terminal
 * (render_flow).
 */
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Llm *host_llm(void *ctx)
{
	Session *s = ctx;
	return s->llm;
}

static Store *host_store(void *ctx)
{
	Session *s = ctx;
	return engine_store(s->engine);
}

static SuqlStatus host_run(void *ctx, const char *sql, const RunLimits *lim,
                           const EngineSink *tap, SuqlErr *err)
{
	Session *s = ctx;
	engine_set_readonly(s->engine, 1);
	SuqlStatus st = session_run(s, sql, strlen(sql), NULL, tap, 1, lim, err);
	engine_set_readonly(s->engine, 0);
	return st;
}

static void section_to(Session *s, FILE *out, const char *label, const char *text)
{
	session_status_clear(s);
	int color = s->interactive && s->color_ok && util_isatty(out);
	render_section_wrap(out, label, text, color, render_term_width(out));
	fflush(out);
}

static void host_note(void *ctx, const char *label, const char *text)
{
	Session *s = ctx;
	section_to(s, s->out, label, text);
}

static void host_counters(void *ctx, const char *text)
{
	Session *s = ctx;
	if (!s->stats || s->show == SESSION_SHOW_ROWS)
		return;
	FILE *out = session_section_out(s);   /* with the other counters */
	if (s->show == SESSION_SHOW_FULL) {
		section_to(s, out, "chat", text);
		return;
	}
	SBuf b = SBUF_INIT;   /* compact: the turn's counters on a line */
	session_compact_join(text, &b);
	session_status_clear(s);
	render_labelled_line(out, "chat", sb_str(&b),
	                     s->interactive && s->color_ok && util_isatty(out),
	                     render_term_width(out));
	fflush(out);
	sb_free(&b);
}

/* The agent's reply as it is written: a labelled section, its text wrapped to the
   terminal's width and made safe for it (RenderFlow). A streamed reply is written piece by
   piece through the same flow, so both look alike. */
static void host_reply(void *ctx, const char *piece, size_t n)
{
	Session *s = ctx;
	if (!s->reply) {
		size_t i = 0;
		while (i < n && (piece[i] == ' ' || piece[i] == '\n' || piece[i] == '\r' ||
		                 piece[i] == '\t'))
			i++;
		if (i == n)
			return;   /* nothing to show yet: no label for blanks */
		session_status_stop(s);   /* the reply takes the line the status was on */
		int color = s->interactive && s->color_ok && util_isatty(s->out);
		fprintf(s->out, "%sreply:%s\n", color ? "\033[1m" : "", color ? "\033[0m" : "");
		int cols = render_term_width(s->out);
		s->reply = render_flow_new(s->out, cols > 20 ? cols - 3 : 0);
	}
	render_flow_put(s->reply, piece, n);
}

static int host_reply_end(void *ctx)
{
	Session *s = ctx;
	if (!s->reply)
		return 0;
	render_flow_end(s->reply);
	s->reply = NULL;
	if (suql_interrupted)
		s->ctrlc_shown = 1;   /* the line with the ^C was ended */
	return 1;
}

/* The record of the query that just ran (engine_record_*): the passages behind its rows
   for the answer's prompt, and the check of the answer's quotations. */
static char *host_evidence(void *ctx)
{
	Session *s = ctx;
	SBuf b = SBUF_INIT;
	engine_record_evidence(s->engine, SESSION_EVIDENCE_ROWS, &b);
	if (!b.len) {
		sb_free(&b);
		return NULL;
	}
	char *t = xstrdup(sb_str(&b));
	sb_free(&b);
	return t;
}

static int host_shown(void *ctx, const char *text, size_t n)
{
	Session *s = ctx;
	return engine_record_shown(s->engine, text, n);
}

Agent *session_agent(Session *s)
{
	if (!s->agent) {
		s->host = (AgentHost){s, host_llm, host_store, host_run, host_note, host_counters,
		                      host_reply, host_reply_end, host_evidence, host_shown};
		s->agent = agent_new(&s->host);
	}
	return s->agent;
}

SuqlStatus session_chat_ready(Session *s, SuqlErr *err)
{
	if (s->llm && !llm_is_offline(s->llm))
		return SUQL_OK;
	if (!s->interactive)   /* a script or -c */
		return err_set(err, SUQL_USAGE, "chat mode needs a language model, and none is "
		               "configured (the offline backend cannot turn questions into SUQL). "
		               "Configure an OpenAI-compatible endpoint with SUQL_LLM_URL and "
		               "SUQL_MODEL, or OpenAI with OPENAI_API_KEY (and SUQL_MODEL), or give "
		               "--llm-url URL --model NAME; or :set llm.url and :set llm.model "
		               "before :chat in the script");
	return err_set(err, SUQL_USAGE, "chat mode needs a language model, and none is "
	               "configured (the offline backend cannot turn questions into SUQL). "
	               "Configure an OpenAI-compatible endpoint with SUQL_LLM_URL and "
	               "SUQL_MODEL, or OpenAI with OPENAI_API_KEY (and SUQL_MODEL), before "
	               "starting suql; or here with :set llm.url URL and :set llm.model "
	               "NAME, then :chat again. Until then, type SUQL at suql>");
}

SuqlStatus session_chat_turn(Session *s, const char *line, SuqlErr *err)
{
	SuqlStatus st = session_chat_ready(s, err);   /* the model may have been switched off */
	if (st != SUQL_OK)
		return st;
	return agent_turn(session_agent(s), line, err);
}
