/*
 * fuzz_cite.c: a libFuzzer target over the citation filter of chat answers
 * (chat/agent_cite.c): the input is a model's reply, fed in pieces whose sizes come from its
 * first byte. Checked: what is shown is the same whatever the piece sizes, is what the
 * filter keeps as the reply, and is never longer than the reply; and the filter never
 * reads past what it was given (AddressSanitizer). Any violation aborts.
 */
#include "chat/agent_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char passage[] = "Quiet, warm lighting - a sweet \"romantic\" little spot.";

static int shown(void *ctx, const char *t, size_t n)
{
	(void)ctx;
	char *s = xstrndup(t, n);
	int in = strstr(passage, s) != NULL;
	free(s);
	return in;
}

static void reply(void *ctx, const char *p, size_t n)
{
	sb_putn(ctx, p, n);
}

static void run(const char *text, size_t n, size_t step, SBuf *shown_out, SBuf *kept)
{
	AgentHost h;
	memset(&h, 0, sizeof h);
	h.ctx = shown_out;
	h.reply = reply;
	h.shown = shown;
	AgentCite c;
	agent_cite_begin(&c, &h, NULL, 1);
	for (size_t a = 0; a < n;) {
		size_t k = step ? step : n;
		if (k > n - a)
			k = n - a;
		agent_cite_put(&c, text + a, k);
		a += k;
	}
	agent_cite_end(&c);
	sb_putn(kept, c.out.s ? c.out.s : "", c.out.len);
	sb_free(&c.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = data[0] % 8;
	const char *text = (const char *)data + 1;
	size_t n = size - 1;
	SBuf a = SBUF_INIT, ka = SBUF_INIT, b = SBUF_INIT, kb = SBUF_INIT;
	run(text, n, 0, &a, &ka);
	run(text, n, step, &b, &kb);
	if (a.len != b.len || (a.len && memcmp(a.s, b.s, a.len) != 0) || a.len > n ||
	    ka.len != a.len)
		abort();
	sb_free(&a);
	sb_free(&ka);
	sb_free(&b);
	sb_free(&kb);
	return 0;
}
