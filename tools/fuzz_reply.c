/*
 * fuzz_reply.c: a libFuzzer target over the readers of a model's replies (llm_reply.c),
 * built by scripts/fuzz.sh, not by the Makefile's tool rule. The first byte of an input
 * picks the task (a single or batch verification, a typed answer of some shape or one
 * constrained to three values, a summary, a classification, a join's factorization); the
 * rest is the reply. Beyond not crashing, what is read must keep the rules: a verdict is 0
 * or 1 and comes with the text "yes" or "no"; a whole number reads back as one, a number is
 * finite, a date exists; a constrained answer and classification labels are values
 * offered; a factorization read is JSON with a boolean "factors", and when true a
 * non-empty property, 2 to LLM_FACTOR_VALUES distinct values none of them "none", and a
 * match of "same" or "different"; a candidate not read has no value. Any violated property
 * aborts.
 */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"

#include <jansson.h>
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
		fprintf(stderr, "fuzz_reply: property violated: %s\n", what);
		abort();
	}
}

static const LlmShape shapes[] = {LLM_SHAPE_TEXT, LLM_SHAPE_DATE, LLM_SHAPE_INT, LLM_SHAPE_REAL,
                                  LLM_SHAPE_BOOL, LLM_SHAPE_LIST, LLM_SHAPE_JSON};

static void check_value(LlmShape shape, const char *v)
{
	char *end;
	switch (shape) {
	case LLM_SHAPE_INT:
		strtoll(v, &end, 10);
		need(*v && !*end, "a whole number reads back as one");
		break;
	case LLM_SHAPE_REAL:
		need(isfinite(strtod(v, &end)) && !*end, "a number is finite");
		break;
	case LLM_SHAPE_BOOL:
		need(strcmp(v, "1") == 0 || strcmp(v, "0") == 0, "true/false is 1 or 0");
		break;
	case LLM_SHAPE_DATE: {
		int y, m, d;
		need(strlen(v) == 10 && sscanf(v, "%4d-%2d-%2d", &y, &m, &d) == 3 &&
		     llm_day_exists(y, m, d), "a date exists");
		break;
	}
	case LLM_SHAPE_LIST:
	case LLM_SHAPE_JSON: {
		json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
		need(j && (shape == LLM_SHAPE_JSON || json_is_array(j)), "JSON values parse");
		json_decref(j);
		break;
	}
	default:
		need(*v != '\0', "text is not empty");
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned task = data[0];
	char *reply = xstrndup((const char *)data + 1, size - 1);
	const char *ps[1] = {"the text"};
	LlmItem items[3];
	memset(items, 0, sizeof items);
	for (int i = 0; i < 3; i++) {
		items[i].passages = ps;
		items[i].npassages = 1;
	}
	static const char *const opts[] = {"cheap", "moderate", "coffee & tea"};
	LlmCall c = {0};
	int idx[3] = {0, 1, 2}, bad[3] = {-1, -1, -1}, n = 1;
	switch (task % 6) {
	case 0:
		c.kind = LLM_VERIFY;
		c.shape = LLM_SHAPE_YESNO;
		n = task & 8 ? 3 : 1;
		break;
	case 1:
	case 2:
		c.kind = LLM_ANSWER;
		c.shape = shapes[(task / 5) % (sizeof shapes / sizeof *shapes)];
		n = task & 128 ? 3 : 1;
		if (task % 5 == 2 && (task & 64)) {   /* a constrained answer */
			c.shape = LLM_SHAPE_TEXT;
			c.options = opts;
			c.noptions = 3;
		}
		break;
	case 3:
		c.kind = LLM_SUMMARY;
		n = task & 8 ? 3 : 1;
		break;
	case 5:
		c.kind = LLM_FACTOR;
		n = 0;
		break;
	default:
		c.kind = LLM_CLASSIFY;
		c.options = opts;
		c.noptions = 3;
		n = 0;
		break;
	}
	c.items = n ? items : NULL;
	c.nitems = n;
	int nbad = llm_read_reply(&c, idx, n, reply, bad);
	need(nbad >= 0 && nbad <= (n ? n : 1), "the unread count fits");
	for (int k = 0; k < n; k++) {
		int unread = 0;
		for (int j = 0; j < nbad; j++)
			unread |= bad[j] == k;
		LlmItem *it = &items[k];
		need(it->text != NULL, "every candidate has a text (the reply, read or not)");
		if (unread) {
			need(!it->value, "a candidate not read has no value");
			llm_mark_unreadable(&c, k);
			need(it->unreadable && !it->value && it->verdict == 0, "marked unknown");
			continue;
		}
		if (c.kind == LLM_VERIFY) {
			need(it->verdict == 0 || it->verdict == 1, "a verdict is 0 or 1");
			need(strcmp(it->text, it->verdict ? "yes" : "no") == 0, "the verdict's text");
		} else if (it->value && c.kind == LLM_ANSWER && c.noptions) {
			int ok = 0;
			for (int o = 0; o < 3; o++)
				ok |= strcmp(it->value, opts[o]) == 0;
			need(ok, "a constrained answer is one of the values offered, as offered");
		} else if (it->value) {
			check_value(c.kind == LLM_SUMMARY ? LLM_SHAPE_TEXT : c.shape, it->value);
		}
	}
	if (c.kind == LLM_FACTOR && nbad == 0) {
		json_t *j = json_loads(c.text ? c.text : "", 0, NULL);
		json_t *f = json_object_get(j, "factors");
		need(json_is_boolean(f), "a factorization read says whether it factors");
		if (json_is_true(f)) {
			json_t *v = json_object_get(j, "values");
			const char *m = json_string_value(json_object_get(j, "match"));
			const char *p = json_string_value(json_object_get(j, "property"));
			size_t nv = json_array_size(v);
			need(p && *p && nv >= 2 && nv <= LLM_FACTOR_VALUES, "a property with 2 or more values");
			need(m && (strcmp(m, "same") == 0 || strcmp(m, "different") == 0), "a known match");
			for (size_t i = 0; i < nv; i++) {
				const char *a = json_string_value(json_array_get(v, i));
				need(a && *a && strcasecmp(a, "none") != 0, "a value is named, and not none");
				for (size_t k = 0; k < i; k++)
					need(strcasecmp(a, json_string_value(json_array_get(v, k))) != 0,
					     "values are distinct");
			}
		}
		json_decref(j);
	}
	if (c.kind == LLM_CLASSIFY && nbad == 0)
		for (int i = 0; i < c.nlabels; i++) {
			int ok = 0;
			for (int o = 0; o < 3; o++)
				ok |= strcmp(c.labels[i], opts[o]) == 0;
			need(ok, "a label is a permitted value");
		}
	llm_call_clear(&c);
	free(reply);
	return 0;
}
