/*
 * agent_cite.c: the citations of a chat answer. The respond step shows the model, next to
 * the rows, the passages that put each row in the result (from the statement's record,
 * AgentHost.evidence), and lets it quote a short phrase of them in double quotes. Nothing
 * quoted may be invented: as the reply streams, a quotation ("..." or curly quotes) is held
 * back until it closes, and shown only when its words are part of a passage the model was
 * shown for the query (AgentHost.shown) or of the rows it was given; any other is dropped,
 * quotes and all, and counted. A quote that never closes is no citation and is shown as it
 * is. The same filter makes the reply that is kept in the dialogue.
 */
#include "chat/agent_int.h"

#include <stdlib.h>
#include <string.h>

#define LQ "\xe2\x80\x9c"   /* the curly quotes, as UTF-8 */
#define RQ "\xe2\x80\x9d"

void agent_cite_begin(AgentCite *c, const AgentHost *host, const char *rows, int stream)
{
	memset(c, 0, sizeof *c);
	c->host = host;
	c->rows = rows;
	c->stream = stream;
}

static void emit(AgentCite *c, const char *p, size_t n)
{
	if (!n)
		return;
	if (c->squeeze && c->out.len && c->out.s[c->out.len - 1] == ' ' && *p == ' ') {
		p++;   /* a dropped quotation leaves one blank, not two */
		n--;
	}
	c->squeeze = 0;
	if (!n)
		return;
	sb_putn(&c->out, p, n);
	if (c->stream)
		c->host->reply(c->host->ctx, p, n);
}

/* The words inside a quotation are found in what the model was shown. */
static int shown(const AgentCite *c, const char *q, size_t n)
{
	while (n && (*q == ' ' || *q == '\n'))
		q++, n--;
	while (n && strchr(" \n.,;:!?", q[n - 1]))
		n--;
	if (n == 0)
		return 0;
	if (c->host->shown && c->host->shown(c->host->ctx, q, n))
		return 1;
	if (!c->rows)
		return 0;
	char *t = xstrndup(q, n);
	int in = strstr(c->rows, t) != NULL;
	free(t);
	return in;
}

static void close_quote(AgentCite *c, size_t qlen)
{
	const char *h = c->held.s;
	size_t n = c->held.len;
	if (shown(c, h + c->open, n - (size_t)c->open - qlen)) {
		emit(c, h, n);
	} else {
		c->dropped++;
		c->squeeze = 1;
	}
	sb_truncate(&c->held, 0);
	c->open = 0;
}

void agent_cite_put(AgentCite *c, const char *p, size_t n)
{
	/* a curly quote may come split across pieces: the start of one at the end of a piece
	   waits for the next */
	SBuf joined = SBUF_INIT;
	if (c->npend) {
		sb_putn(&joined, c->pend, (size_t)c->npend);
		sb_putn(&joined, p, n);
		p = joined.s;
		n = joined.len;
		c->npend = 0;
	}
	if (n > 0 && !c->ending) {
		size_t k = n >= 2 && memcmp(p + n - 2, LQ, 2) == 0 ? 2
		         : memcmp(p + n - 1, LQ, 1) == 0 ? 1 : 0;
		memcpy(c->pend, p + n - k, k);
		c->npend = (int)k;
		n -= k;
	}
	size_t run = 0;   /* bytes of p from i - run on, to emit as they are */
	for (size_t i = 0; i < n; i++) {
		if (!c->open) {
			size_t q = p[i] == '"' ? 1 : n - i >= 3 && memcmp(p + i, LQ, 3) == 0 ? 3 : 0;
			if (!q) {
				run++;
				continue;
			}
			emit(c, p + i - run, run);
			run = 0;
			sb_putn(&c->held, p + i, q);
			c->open = (int)q;
			i += q - 1;
			continue;
		}
		sb_putc(&c->held, p[i]);
		size_t hl = c->held.len;
		if (c->open == 1 && p[i] == '"' && hl > 1)
			close_quote(c, 1);
		else if (c->open == 3 && hl >= 6 && memcmp(c->held.s + hl - 3, RQ, 3) == 0)
			close_quote(c, 3);
	}
	emit(c, p + n - run, run);
	sb_free(&joined);
}

void agent_cite_end(AgentCite *c)
{
	if (c->npend) {   /* the start of a curly quote, and nothing after it */
		c->ending = 1;
		char p[2];
		size_t k = (size_t)c->npend;
		memcpy(p, c->pend, k);
		c->npend = 0;
		agent_cite_put(c, p, k);
	}
	if (c->open) {   /* never closed: not a quotation */
		emit(c, c->held.s, c->held.len);
		sb_truncate(&c->held, 0);
		c->open = 0;
	}
	sb_free(&c->held);
}

void agent_cite_on_text(void *ctx, const char *piece, size_t n)
{
	agent_cite_put(ctx, piece, n);
}
