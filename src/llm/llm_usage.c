/*
 * llm_usage.c: what a reply says it used. Endpoints put the same figures in different
 * places: OpenAI's chat completions give usage.prompt_tokens and completion_tokens, with
 * the prompt tokens its prompt cache served in prompt_tokens_details.cached_tokens and the
 * hidden reasoning tokens in completion_tokens_details.reasoning_tokens (both part of the
 * totals); Anthropic's own shape gives input_tokens without what it read from or wrote to
 * its cache (cache_read_input_tokens, cache_creation_input_tokens), and gateways pass
 * cache_read_input_tokens on beside OpenAI's fields; the Responses API says input_tokens_
 * details and output_tokens_details; llama.cpp's server says timings.cache_n. One reader
 * takes them all, so that the HTTP backend, a streamed reply and a test read alike. A figure
 * that is not a whole number, or is negative, reads as 0: nothing an endpoint writes there
 * becomes a cost below zero.
 */
#include "llm/llm_int.h"

#include <string.h>

static long num(const json_t *v)
{
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
	return n > 0 ? (long)n : 0;
}

static const json_t *at(const json_t *o, const char *a, const char *b)
{
	return json_object_get(json_object_get(o, a), b);
}

int llm_usage_read(const json_t *reply, LlmUsage *u)
{
	memset(u, 0, sizeof *u);
	const json_t *usage = json_object_get(reply, "usage");
	if (json_is_object(usage)) {
		u->has = 1;
		if (json_object_get(usage, "prompt_tokens") || json_object_get(usage,
		                                                                "completion_tokens")) {
			u->in = num(json_object_get(usage, "prompt_tokens"));
			u->out = num(json_object_get(usage, "completion_tokens"));
		} else {   /* Anthropic's shape: input_tokens leaves its cache's reads and writes out */
			u->in = num(json_object_get(usage, "input_tokens")) +
			        num(json_object_get(usage, "cache_read_input_tokens")) +
			        num(json_object_get(usage, "cache_creation_input_tokens"));
			u->out = num(json_object_get(usage, "output_tokens"));
		}
		u->reasoning = num(at(usage, "completion_tokens_details", "reasoning_tokens"));
		if (!u->reasoning)
			u->reasoning = num(at(usage, "output_tokens_details", "reasoning_tokens"));
	}
	static const char *const cached[][2] = {
		{"prompt_tokens_details", "cached_tokens"},   /* OpenAI, vLLM */
		{NULL, "cache_read_input_tokens"},            /* Anthropic, gateways */
		{"input_tokens_details", "cached_tokens"},    /* the Responses API */
		{NULL, "cached_tokens"},
	};
	for (size_t i = 0; i < sizeof cached / sizeof *cached && !u->cached; i++)
		u->cached = num(cached[i][0] ? at(usage, cached[i][0], cached[i][1])
		                             : json_object_get(usage, cached[i][1]));
	if (!u->cached)   /* llama.cpp's server */
		u->cached = num(at(reply, "timings", "cache_n"));
	if (!u->cached)
		u->cached = num(json_object_get(reply, "tokens_cached"));
	return u->has;
}
