/*
 * fuzz_logprobs.c: a libFuzzer target over the reader of log-probabilities (llm_logprobs.c),
 * built by scripts/fuzz.sh, not by the Makefile's tool rule. The first byte of an input
 * says how many verdicts were read (1 to 4, its low two bits) and which (the next four);
 * the rest is a reply, then, after a 0 byte, its logprobs block as JSON. An input with no
 * 0 byte has its block made from the reply instead: tokens of 1 to 4 of its bytes (each
 * given as bytes, so any byte goes), logprobs and alternatives from the bytes themselves;
 * with the first byte's top bit set the tokens are one byte each and the verdicts are
 * those the reply spells, and then a confidence must come out.
 *
 * Beyond not crashing: the reader gives all or none; a confidence is a finite number from
 * 0 to 1; when it gives none, every slot says -1. Any violated property aborts.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void need(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_logprobs: property violated: %s\n", what);
		abort();
	}
}

/* The verdict words of s (yes, no, true, false as whole words): their meanings, at most
   max; returns how many. */
static int words(const char *s, size_t n, int *v, int max)
{
	int k = 0;
	for (size_t i = 0; i < n;) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		size_t w = j - i;
		int m = (w == 3 && !strncasecmp(s + i, "yes", 3)) || (w == 4 && !strncasecmp(s + i, "true", 4))
		        ? 1 : (w == 2 && !strncasecmp(s + i, "no", 2)) ||
		              (w == 5 && !strncasecmp(s + i, "false", 5)) ? 0 : -1;
		if (m >= 0) {
			if (k < max)
				v[k] = m;
			k++;
		}
		i = j;
	}
	return k;
}

static json_t *bytes_of(const char *s, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((unsigned char)s[i]));
	return a;
}

/* A block whose tokens spell s: pieces of 1 to 4 bytes (one byte each when single). */
static json_t *made_block(const char *s, size_t n, int single)
{
	json_t *toks = json_array();
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = single ? 1 : 1 + c % 4;
		if (len > n - i)
			len = n - i;
		double lp = -(double)c / 64.0;
		json_t *e = json_pack("{s:s, s:o, s:f}", "token", "?", "bytes", bytes_of(s + i, len),
		                      "logprob", lp);
		if (c % 3) {   /* alternatives: itself and a word of the other side */
			json_t *top = json_array();
			json_array_append_new(top, json_pack("{s:s, s:o, s:f}", "token", "?", "bytes",
			                                     bytes_of(s + i, len), "logprob", lp));
			json_array_append_new(top, json_pack("{s:s, s:f}", "token", c % 2 ? "No" : " yes",
			                                     "logprob", -(double)(c % 7)));
			json_object_set_new(e, "top_logprobs", top);
		}
		json_array_append_new(toks, e);
		i += len;
	}
	return json_pack("{s:o}", "content", toks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	const char *rest = (const char *)data + 1;
	size_t nrest = size - 1;
	const char *nul = memchr(rest, 0, nrest);
	char *content = xstrndup(rest, nul ? (size_t)(nul - rest) : nrest);
	size_t cn = strlen(content);
	int v[8];
	int n = 1 + (int)(flags & 3);
	for (int k = 0; k < n; k++)
		v[k] = (int)(flags >> (2 + k)) & 1;
	int must = 0;
	json_t *lp = NULL;
	if (nul) {
		lp = json_loadb(nul + 1, nrest - (size_t)(nul + 1 - rest), JSON_DECODE_ANY, NULL);
	} else {
		int single = (flags & 128) != 0;
		lp = made_block(content, cn, single);
		if (single) {
			int k = words(content, cn, v, 8);
			if (k >= 1 && k <= 8) {
				n = k;
				must = 1;
			}
		}
	}
	double conf[8];
	int got = llm_logprobs_verdicts(lp, content, v, n, conf);
	need(got == 0 || got == n, "all verdicts get a confidence, or none");
	for (int k = 0; k < n; k++) {
		if (got)
			need(isfinite(conf[k]) && conf[k] >= 0 && conf[k] <= 1,
			     "a confidence is a number from 0 to 1");
		else
			need(conf[k] == -1, "no confidence is written when none is given");
	}
	if (must)
		need(got == n, "one-byte tokens spelling the reply give each verdict a confidence");
	json_decref(lp);
	free(content);
	return 0;
}
