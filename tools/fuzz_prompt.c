/*
 * fuzz_prompt.c: a libFuzzer target over the builders of chat requests (llm_prompt.c), built
 * by scripts/fuzz.sh, not by the Makefile's tool rule. The first byte of an input picks the
 * request kind (verify, its second wording, a join's match, an answer of some shape or one
 * constrained to values, a summary, a classification), one or three candidates and the
 * schema dialect (llm.schema); the rest, cut at 0x01 bytes, is the outside text: candidate
 * texts, the question, the permitted values, the literal, any bytes at all (invalid UTF-8
 * included). Beyond not crashing, every request must be built, be valid JSON, and keep the
 * structure of the same request built from plain texts: the same messages with the same
 * roles, the same heading and marker lines, as many candidates and permitted values, and a
 * schema of the same shape. Any violated property aborts.
 */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void need(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_prompt: property violated: %s\n", what);
		abort();
	}
}

static Llm *the_llm(void)
{
	static Llm *llm;
	if (!llm) {
		LlmConfig cfg = {0};
		cfg.url = "http://127.0.0.1:9/v1";   /* never contacted: requests are only built */
		cfg.model = "m";
		cfg.no_cache = 1;
		SuqlErr err = {0};
		llm = llm_open(&cfg, &err);
		need(llm != NULL, "the client opens");
		err_clear(&err);
	}
	return llm;
}

/* The structure of a request body: roles, template lines, the data sections' sizes, and
   the constraint sent (the schema with its enum values left out). */
static char *skeleton(json_t *body)
{
	SBuf b = SBUF_INIT;
	json_t *m;
	size_t i;
	json_array_foreach(json_object_get(body, "messages"), i, m) {
		sb_printf(&b, "[%s]\n", json_string_value(json_object_get(m, "role")));
		const char *c = json_string_value(json_object_get(m, "content"));
		need(c != NULL, "every message has content");
		for (const char *l = c; *l;) {
			const char *e = strchr(l, '\n');
			size_t n = e ? (size_t)(e - l) : strlen(l);
			if ((n >= 3 && strncmp(l, "###", 3) == 0) || (n && l[0] == '[' && l[n - 1] == ']') ||
			    (n >= 3 && strncmp(l, "```", 3) == 0)) {
				sb_putn(&b, l, n);
				sb_putc(&b, '\n');
				if (n > 4 && strncmp(l, "### ", 4) == 0 && e) {
					json_error_t je;
					json_t *v = json_loadb(e + 1, strlen(e + 1), JSON_DECODE_ANY |
					                       JSON_DISABLE_EOF_CHECK, &je);
					if (json_is_array(v))   /* candidates, permitted values */
						sb_printf(&b, "  list of %zu\n", json_array_size(v));
					else if (json_is_string(v))   /* a text, the question, a value */
						sb_puts(&b, "  a string\n");
					else   /* the template's own prose (### Task) */
						sb_puts(&b, "  prose\n");
					json_decref(v);
				}
			}
			l = e ? e + 1 : l + n;
		}
	}
	json_t *rf = json_object_get(body, "response_format");
	sb_printf(&b, "response_format %s\n", rf ? json_string_value(json_object_get(rf, "type"))
	                                         : "none");
	sb_printf(&b, "json_schema %d format %d\n", json_object_get(body, "json_schema") != NULL,
	          json_object_get(body, "format") != NULL);
	return sb_steal(&b);
}

static char *build(Llm *llm, const LlmCall *c, int n)
{
	int items[3] = {0, 1, 2}, sent = 0;
	json_t *body = llmp_chat_body(llm, c, items, n, &sent);
	need(body != NULL, "every request is built");
	char *text = json_dumps(body, JSON_COMPACT);
	need(text != NULL, "the body encodes");
	json_t *back = json_loads(text, 0, NULL);
	need(back != NULL, "the body is valid JSON");
	char *sk = skeleton(back);
	json_decref(back);
	json_decref(body);
	free(text);
	return sk;
}

static const LlmShape shapes[] = {LLM_SHAPE_TEXT, LLM_SHAPE_DATE, LLM_SHAPE_INT, LLM_SHAPE_REAL,
                                  LLM_SHAPE_LIST, LLM_SHAPE_YESNO};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	Llm *llm = the_llm();
	unsigned pick = data[0];
	/* the fields: up to 6 pieces of text cut at 0x01 */
	char *f[6] = {NULL};
	size_t at = 1;
	for (int i = 0; i < 6; i++) {
		size_t e = at;
		while (e < size && data[e] != 1)
			e++;
		f[i] = xstrndup(at <= size ? (const char *)data + at : "", e > at ? e - at : 0);
		at = e + 1;
	}
	int kind = (int)(pick % 7), n = pick & 8 ? 3 : 1;
	llm->s.schema = LLM_SCHEMA_OPENAI + (int)((pick >> 4) % 5);   /* openai ... off */
	const char *plain_ps[3][1] = {{"plain one"}, {"plain two"}, {"plain three"}};
	const char *fuzz_ps[3][1] = {{f[0]}, {f[1]}, {f[2]}};
	const char *plain_opts[3] = {"a", "b", "c"};
	const char *fuzz_opts[3] = {f[4], f[5], f[0]};
	const char *yes[1] = {"Yes"};
	char *sk[2];
	for (int pass = 0; pass < 2; pass++) {
		LlmItem it[3];
		memset(it, 0, sizeof it);
		for (int i = 0; i < 3; i++) {
			it[i].passages = pass ? fuzz_ps[i] : plain_ps[i];
			it[i].npassages = 1;
		}
		LlmCall c;
		memset(&c, 0, sizeof c);
		c.items = it;
		c.nitems = n;
		c.question = pass ? f[3] : "plain question?";
		const char *const *opts = pass ? fuzz_opts : plain_opts;
		switch (kind) {
		case 0: case 1: case 2:   /* verify, second wording, a join's match */
			c.kind = LLM_VERIFY;
			c.shape = LLM_SHAPE_YESNO;
			c.op = "IN";
			c.expected = pass ? opts : yes;
			c.nexpected = pass ? 3 : 1;
			c.wording = kind == 1;
			c.subject = kind == 2 ? (pass ? f[4] : "left") : NULL;
			break;
		case 3:   /* a typed answer */
			c.kind = LLM_ANSWER;
			c.shape = shapes[(pick >> 4) % 6];
			break;
		case 4:   /* a constrained answer */
			c.kind = LLM_ANSWER;
			c.options = opts;
			c.noptions = 3;
			break;
		case 5:
			c.kind = LLM_SUMMARY;
			c.question = NULL;
			break;
		default:
			c.kind = LLM_CLASSIFY;
			c.shape = LLM_SHAPE_LIST;
			c.items = NULL;
			c.nitems = 0;
			c.question = NULL;
			c.subject = pass ? f[3] : "literal";
			c.options = opts;
			c.noptions = 3;
			break;
		}
		if (kind == 3 && c.shape == LLM_SHAPE_LIST && n == 1)
			c.shape = LLM_SHAPE_TEXT;   /* the single list form asks for {"answer": [...]} */
		sk[pass] = build(llm, &c, c.kind == LLM_CLASSIFY ? 0 : n);
	}
	need(strcmp(sk[0], sk[1]) == 0, "outside text leaves the request's structure unchanged");
	free(sk[0]);
	free(sk[1]);
	for (int i = 0; i < 6; i++)
		free(f[i]);
	return 0;
}
