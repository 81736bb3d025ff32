/*
 * llm_stream.c: a chat reply streamed as server-sent events (a request with stream: true).
 * The body is lines; "data: ..." lines gather into an event, a blank line ends it, lines
 * starting with ':' are comments. Each event's data is one JSON chunk of the OpenAI form
 *     {"choices": [{"delta": {"content": "piece"}, "finish_reason": null}]}
 * read with jansson: the pieces of content are handed to the caller as they come and kept
 * in order; a finish_reason or the final "data: [DONE]" says the reply is complete; a chunk
 * with "usage" gives the tokens; a chunk with "error" is the server's failure. A chunk that
 * is not JSON makes the whole reply unreadable (it is never guessed at). The pieces reach
 * the caller a word at a time, through the stream's scrub: a secret the server put in the
 * reply is masked whole, wherever the server cut it (a secret holds no blank).
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <stdlib.h>
#include <string.h>

void llm_stream_reset(LlmStream *s)
{
	sb_truncate(&s->line, 0);
	sb_truncate(&s->data, 0);
	sb_truncate(&s->text, 0);
	sb_truncate(&s->held, 0);
	free(s->error);
	s->error = NULL;
	s->done = s->bad = s->events = 0;
	s->tokens_in = s->tokens_out = 0;
	s->tokens_cached = 0;
	s->tokens_reasoning = 0;
}

void llm_stream_free(LlmStream *s)
{
	sb_free(&s->line);
	sb_free(&s->data);
	sb_free(&s->text);
	sb_free(&s->held);
	free(s->error);
	s->error = NULL;
}

/* Hand the held text to on_text up to its last blank (all of it when final), scrubbed. */
static void give(LlmStream *s, int final)
{
	size_t k = s->held.len;
	if (!final)
		while (k > 0 && s->held.s[k - 1] != ' ' && s->held.s[k - 1] != '\n' &&
		       s->held.s[k - 1] != '\t')
			k--;
	if (k == 0 || !s->on_text)
		return;
	char *piece = xstrndup(s->held.s, k);
	char *clean = s->scrub ? s->scrub(s->sctx, piece) : NULL;
	const char *out = clean ? clean : piece;
	s->on_text(s->ctx, out, strlen(out));
	s->shown = 1;
	free(clean);
	free(piece);
	size_t rest = s->held.len - k;
	memmove(s->held.s, s->held.s + k, rest);
	sb_truncate(&s->held, rest);
}

/* The server's own words about an error chunk, cut short and printable. */
static char *error_text(json_t *e)
{
	const char *m = json_is_string(e) ? json_string_value(e)
	                : json_string_value(json_object_get(e, "message"));
	SBuf b = SBUF_INIT;
	for (const char *p = m ? m : "(no message)"; *p && b.len < 200; p++)
		sb_putc(&b, (unsigned char)*p < 0x20 ? ' ' : *p);
	return sb_steal(&b);
}

static void dispatch(LlmStream *s)
{
	if (!s->data.len)
		return;
	s->events++;
	if (strcmp(s->data.s, "[DONE]") == 0) {
		s->done = 1;
		give(s, 1);
		sb_truncate(&s->data, 0);
		return;
	}
	json_t *j = json_loadb(s->data.s, s->data.len, 0, NULL);
	sb_truncate(&s->data, 0);
	if (!json_is_object(j)) {
		s->bad = 1;
		json_decref(j);
		return;
	}
	json_t *err = json_object_get(j, "error");
	if (err && !json_is_null(err) && !s->error)
		s->error = error_text(err);
	LlmUsage u;
	llm_usage_read(j, &u);
	if (u.cached)
		s->tokens_cached = u.cached;
	if (u.has) {
		s->tokens_in = (int)u.in;
		s->tokens_out = (int)u.out;
		s->tokens_reasoning = u.reasoning;
	}
	json_t *choice = json_array_get(json_object_get(j, "choices"), 0);
	json_t *content = json_object_get(json_object_get(choice, "delta"), "content");
	if (json_is_string(content) && json_string_length(content) > 0) {
		const char *p = json_string_value(content);
		size_t n = json_string_length(content);
		sb_putn(&s->text, p, n);
		if (s->on_text) {
			sb_putn(&s->held, p, n);
			give(s, 0);
		}
	}
	if (json_is_string(json_object_get(choice, "finish_reason")))
		s->done = 1;
	if (s->done)
		give(s, 1);
	json_decref(j);
}

static void line_end(LlmStream *s)
{
	const char *l = sb_str(&s->line);
	size_t n = s->line.len;
	if (n && l[n - 1] == '\r')
		n--;
	if (n == 0) {
		dispatch(s);
	} else if (n >= 5 && strncmp(l, "data:", 5) == 0) {
		size_t a = 5 + (size_t)(n > 5 && l[5] == ' ');
		if (s->data.len)
			sb_putc(&s->data, '\n');
		sb_putn(&s->data, l + a, n - a);
	}   /* comments (":...") and other fields (event:, id:, retry:) say nothing here */
	sb_truncate(&s->line, 0);
}

void llm_stream_feed(LlmStream *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n')
			line_end(s);
		else
			sb_putc(&s->line, p[i]);
	}
}

void llm_stream_end(LlmStream *s)
{
	if (s->line.len)
		line_end(s);
	dispatch(s);
	/* the rest of the text, complete or not: what was shown is what was read */
	give(s, 1);
}
