/* What a readable reply is: the cases in tests/llm/replies.cases, each a reply read as the
   answer to a task through llm_read_reply (src/llm_reply.c) and compared with what must come
   out of it: the values, "unread" for what the model did not clearly say, NULL for an
   explicit unknown, "none" for a classification the model said nothing fits. */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LlmShape shape_of(const char *s)
{
	static const struct {
		const char *name;
		LlmShape shape;
	} t[] = {{"text", LLM_SHAPE_TEXT}, {"date", LLM_SHAPE_DATE}, {"int", LLM_SHAPE_INT},
	         {"real", LLM_SHAPE_REAL}, {"bool", LLM_SHAPE_BOOL}, {"list", LLM_SHAPE_LIST},
	         {"json", LLM_SHAPE_JSON}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (strcmp(s, t[i].name) == 0)
			return t[i].shape;
	return LLM_SHAPE_TEXT;
}

/* "\n" escapes, <empty> and <blank> */
static char *reply_text(const char *f)
{
	if (strcmp(f, "<empty>") == 0)
		return xstrdup("");
	if (strcmp(f, "<blank>") == 0)
		return xstrdup("  \n\t ");
	SBuf b = SBUF_INIT;
	for (const char *p = f; *p; p++) {
		if (p[0] == '\\' && p[1] == 'n') {
			sb_putc(&b, '\n');
			p++;
		} else {
			sb_putc(&b, *p);
		}
	}
	return sb_steal(&b);
}

/* What came out for candidate k, as the cases write it. */
static void item_result(const LlmCall *c, int k, int unread, SBuf *out)
{
	const LlmItem *it = &c->items[k];
	if (unread)
		sb_puts(out, "unread");
	else if (c->kind == LLM_VERIFY)
		sb_puts(out, it->verdict ? "yes" : "no");
	else
		sb_puts(out, it->value ? it->value : "NULL");
}

static void run_case(int lineno, const char *task, const char *reply, const char *want)
{
	char name[160];
	snprintf(name, sizeof name, "replies line %d: %.40s | %.40s", lineno, task, reply);
	char *content = reply_text(reply);
	const char *ps[1] = {"the text"};
	LlmItem items[3];
	memset(items, 0, sizeof items);
	for (int i = 0; i < 3; i++) {
		items[i].passages = ps;
		items[i].npassages = 1;
	}
	LlmCall c = {0};
	c.items = items;
	int idx[3] = {0, 1, 2}, bad[3] = {0}, n = 1;
	char *opts[16];
	int nopts = 0;
	char *optbuf = NULL;
	const char *colon = strchr(task, ':');
	char kind[32];
	snprintf(kind, sizeof kind, "%.*s", (int)(colon ? (size_t)(colon - task) : strlen(task)),
	         task);
	if (strcmp(kind, "verify") == 0 || strcmp(kind, "verify3") == 0) {
		c.kind = LLM_VERIFY;
		c.shape = LLM_SHAPE_YESNO;
		n = kind[6] == '3' ? 3 : 1;
	} else if (strcmp(kind, "answer") == 0 || strcmp(kind, "answer3") == 0) {
		c.kind = LLM_ANSWER;
		c.shape = shape_of(colon ? colon + 1 : "text");
		n = kind[6] == '3' ? 3 : 1;
	} else if (strcmp(kind, "choice") == 0 || strcmp(kind, "choice3") == 0) {
		/* a constrained answer: answer with options */
		c.kind = LLM_ANSWER;
		c.shape = LLM_SHAPE_TEXT;
		n = kind[6] == '3' ? 3 : 1;
		optbuf = xstrdup(colon ? colon + 1 : "");
		for (char *o = strtok(optbuf, ";"); o && nopts < 16; o = strtok(NULL, ";"))
			opts[nopts++] = o;
		c.options = (const char *const *)opts;
		c.noptions = nopts;
	} else if (strcmp(kind, "summary") == 0) {
		c.kind = LLM_SUMMARY;
	} else if (strcmp(kind, "classify") == 0) {
		c.kind = LLM_CLASSIFY;
		c.items = NULL;
		optbuf = xstrdup(colon ? colon + 1 : "");
		for (char *o = strtok(optbuf, ";"); o && nopts < 16; o = strtok(NULL, ";"))
			opts[nopts++] = o;
		c.options = (const char *const *)opts;
		c.noptions = nopts;
		n = 0;
	}
	c.nitems = c.items ? n : 0;
	int nbad = llm_read_reply(&c, idx, n, content, bad);
	SBuf got = SBUF_INIT;
	if (c.kind == LLM_CLASSIFY) {
		if (nbad)
			sb_puts(&got, "unread");
		else if (c.nlabels == 0)
			sb_puts(&got, "none");
		for (int i = 0; !nbad && i < c.nlabels; i++)
			sb_printf(&got, "%s%s", i ? ";" : "", c.labels[i]);
	} else if (n == 3 && nbad == 3 && strcmp(want, "unread") == 0) {
		sb_puts(&got, "unread");
	} else {
		const char *sep = c.kind == LLM_VERIFY ? "," : " ; ";
		for (int k = 0; k < n; k++) {
			int unread = 0;
			for (int j = 0; j < nbad; j++)
				unread |= bad[j] == k;
			if (k)
				sb_puts(&got, sep);
			item_result(&c, k, unread, &got);
		}
	}
	CHECK_STR(sb_str(&got), want, name);
	/* whatever was not read has said so in its text, for the warning's sample */
	for (int j = 0; j < nbad && c.items; j++)
		if (!c.items[bad[j]].text) {
			printf("not ok %s: an unread candidate has no text\n", name);
			unit_failed++;
		}
	sb_free(&got);
	c.nitems = c.items ? 3 : 0;
	llm_call_clear(&c);
	free(optbuf);
	free(content);
}

/* A join's factorization is read strictly: what does not fit is no factorization. */
static void test_factor(void)
{
	static const struct { const char *reply, *want; } c[] = {
		{"{\"factors\": false}", "{\"factors\":false}"},
		{"```json\n{\"factors\": true, \"property\": \"Which company?\", \"values\": "
		 "[\"Acme\", \"Globex\"], \"match\": \"same\", \"why\": \"x\"}\n```",
		 "{\"factors\":true,\"property\":\"Which company?\",\"values\":[\"Acme\","
		 "\"Globex\"],\"match\":\"same\"}"},
		{"{\"factors\": true, \"property\": \"p\", \"values\": [\"a\"], \"match\": \"same\"}",
		 NULL},   /* one value */
		{"{\"factors\": true, \"property\": \"p\", \"values\": [\"a\", \"A\"], "
		 "\"match\": \"same\"}", NULL},   /* the same value twice */
		{"{\"factors\": true, \"property\": \"p\", \"values\": [\"a\", \"none\"], "
		 "\"match\": \"same\"}", NULL},   /* "none" means no answer */
		{"{\"factors\": true, \"property\": \"\", \"values\": [\"a\", \"b\"], "
		 "\"match\": \"same\"}", NULL},
		{"{\"factors\": true, \"property\": \"p\", \"values\": [\"a\", \"b\"], "
		 "\"match\": \"opposite\"}", NULL},
		{"{\"factors\": \"yes\"}", NULL},
		{"Yes, by sentiment.", NULL},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *got = llm_factor_read(c[i].reply);
		char name[96];
		snprintf(name, sizeof name, "factor reply %zu: %s", i + 1, c[i].want ? "read" : "refused");
		CHECK(c[i].want ? got && strcmp(got, c[i].want) == 0 : got == NULL, name);
		if (got && (!c[i].want || strcmp(got, c[i].want) != 0))
			printf("# got %s\n", got);
		free(got);
	}
}

int main(void)
{
	test_factor();
	FILE *f = fopen("tests/llm/replies.cases", "r");
	CHECK(f != NULL, "replies: cases file found");
	if (!f)
		return unit_done();
	char line[2048];
	int lineno = 0, ncases = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *a = strstr(line, " | ");
		char *b = a ? strstr(a + 3, " | ") : NULL;
		/* the expectation is after the last " | " (replies may hold " | " themselves) */
		for (char *x = b; x; x = strstr(x + 3, " | "))
			b = x;
		if (!a || !b) {
			printf("not ok replies line %d: three fields\n", lineno);
			unit_failed++;
			continue;
		}
		*a = *b = '\0';
		run_case(lineno, line, a + 3, b + 3);
		ncases++;
	}
	fclose(f);
	CHECK(ncases > 50, "replies: the cases were read");

	/* what stays unread is marked unknown: no value, no verdict */
	const char *ps[1] = {"t"};
	LlmItem it = {ps, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL};
	LlmCall c = {0};
	c.kind = LLM_VERIFY;
	c.items = &it;
	c.nitems = 1;
	int idx = 0, bad = 0;
	CHECK(llm_read_reply(&c, &idx, 1, "Maybe", &bad) == 1 && it.text &&
	      strcmp(it.text, "Maybe") == 0, "unread: the reply is kept as the sample");
	llm_mark_unreadable(&c, 0);
	CHECK(it.unreadable && !it.value && it.verdict == 0, "unread: marked unknown");
	CHECK(llm_read_reply(&c, &idx, 1, "yes", &bad) == 0 && !it.unreadable && it.verdict == 1,
	      "unread: a later readable reply replaces it");
	llm_call_clear(&c);
	return unit_done();
}
