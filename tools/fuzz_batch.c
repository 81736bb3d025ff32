/*
 * fuzz_batch.c: a libFuzzer target over the reader of a batch's output file
 * (llm_bulk_read_output, llm_batch.c): the input is the file's bytes. Checked: every line
 * that is not blank is reported once, a reply's body handed over is a JSON object that
 * parses again, an id is never empty nor longer than 128 bytes, and the reader never reads
 * past what it was given (AddressSanitizer). Any violation aborts.
 */
#include "llm/llm_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_line(void *ctx, const char *id, const char *body, const char *why)
{
	long *n = ctx;
	(*n)++;
	if (id && (!*id || strlen(id) > 128))
		abort();
	if (!body == !why)
		abort();   /* a body, or a reason why not */
	if (body) {
		if (!id)
			abort();
		json_t *o = json_loads(body, 0, NULL);
		if (!json_is_object(o))
			abort();
		json_decref(o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);   /* exactly size bytes, no terminator */
	if (size)
		memcpy(copy, data, size);
	long n = 0;
	long lines = llm_bulk_read_output(copy, size, on_line, &n);
	if (lines != n)
		abort();
	free(copy);
	return 0;
}
