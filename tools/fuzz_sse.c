/*
 * fuzz_sse.c: a libFuzzer target over the reader of streamed replies (llm_stream.c): the
 * input is a reply body, fed in pieces whose sizes come from its first byte. Checked: the
 * pieces handed over add up to the reply text, the same whatever the piece sizes, and the
 * reader never reads past what it was given (AddressSanitizer). Any violation aborts.
 */
#include "llm/llm_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_text(void *ctx, const char *p, size_t n)
{
	sb_putn(ctx, p, n);
}

/* Read body in pieces of step bytes (0: all at once); the text and the flags. */
static void read_body(const char *body, size_t n, size_t step, SBuf *pieces, LlmStream *st)
{
	memset(st, 0, sizeof *st);
	st->on_text = on_text;
	st->ctx = pieces;
	for (size_t a = 0; a < n;) {
		size_t k = step ? step : n;
		if (k > n - a)
			k = n - a;
		llm_stream_feed(st, body + a, k);
		a += k;
	}
	llm_stream_end(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = data[0] % 17;
	const char *body = (const char *)data + 1;
	size_t n = size - 1;
	SBuf p1 = SBUF_INIT, p2 = SBUF_INIT;
	LlmStream a, b;
	read_body(body, n, step, &p1, &a);
	read_body(body, n, 0, &p2, &b);
	if (p1.len != a.text.len || (p1.len && memcmp(p1.s, a.text.s, p1.len) != 0))
		abort();   /* the pieces are the text */
	if (a.text.len != b.text.len || (a.text.len && memcmp(a.text.s, b.text.s, a.text.len)) ||
	    a.done != b.done || a.bad != b.bad || !a.error != !b.error)
		abort();   /* how the body was cut changes nothing */
	llm_stream_free(&a);
	llm_stream_free(&b);
	sb_free(&p1);
	sb_free(&p2);
	return 0;
}
