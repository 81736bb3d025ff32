/*
 * fuzz_spec.c: a libFuzzer target over the field lists of extract() (llm/spec.c). The input
 * is a spec, and after its first NUL a model's object to check against it. Checked: a spec
 * that parses has 1 to SPEC_MAX_FIELDS fields with unique names, its canonical text parses
 * to the same fields (so the memo and cache keys are stable), and an object that fits gives
 * back compact JSON with exactly the spec's keys; an error always has a message. Any
 * violation aborts; AddressSanitizer watches the reads.
 */
#include "base/util.h"
#include "llm/spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const Spec *a, const Spec *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->f[i].name, b->f[i].name) || a->f[i].type != b->f[i].type ||
		    !a->f[i].desc != !b->f[i].desc ||
		    (a->f[i].desc && strcmp(a->f[i].desc, b->f[i].desc)))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = xstrndup((const char *)data, size);   /* up to the first NUL */
	size_t sl = strlen(in);
	char *obj = sl < size ? xstrndup((const char *)data + sl + 1, size - sl - 1) : NULL;
	Spec sp;
	SuqlErr err = {0};
	if (spec_parse(in, &sp, &err) != SUQL_OK) {
		if (!err.msg || sp.n != 0)
			abort();
		err_clear(&err);
		free(in);
		free(obj);
		return 0;
	}
	if (sp.n < 1 || sp.n > SPEC_MAX_FIELDS)
		abort();
	for (int i = 0; i < sp.n; i++)
		for (int k = 0; k < i; k++)
			if (str_ieq(sp.f[i].name, sp.f[k].name))
				abort();
	char *canon = spec_canonical(&sp);
	Spec again;
	if (spec_parse(canon, &again, &err) != SUQL_OK || !same(&sp, &again))
		abort();   /* the canonical text reads back as the same fields */
	spec_free(&again);
	if (obj) {
		json_t *o = json_loads(obj, JSON_DECODE_ANY, NULL);
		const char *text[1] = {obj};
		for (int quotes = 0; quotes < 2 && o; quotes++) {
			char *out, *why;
			if (spec_check(&sp, o, quotes, text, 1, &out, &why)) {
				json_t *r = json_loads(out, 0, NULL);
				if (!json_is_object(r) ||
				    json_object_size(r) != (size_t)sp.n + (size_t)quotes)
					abort();   /* exactly the spec's keys */
				for (int i = 0; i < sp.n; i++)
					if (!json_object_get(r, sp.f[i].name))
						abort();
				json_decref(r);
				free(out);
			} else if (!why) {
				abort();
			}
			free(why);
		}
		json_decref(o);
	}
	free(canon);
	spec_free(&sp);
	free(in);
	free(obj);
	return 0;
}
