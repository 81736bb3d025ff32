/* The offline backend, driven by the cases in tests/llm/offline.cases (negations,
   paraphrases, typed extraction, classification, dates and numbers), plus summaries, which
   are checked by property: only sentences of the input, no repeats, bounded length. */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 8

/* Split line at " | " into at most MAXF trimmed fields (in place). */
static int fields(char *line, char **f)
{
	int n = 0;
	char *p = line;
	while (n < MAXF) {
		f[n++] = p;
		char *sep = strstr(p, " | ");
		if (!sep) {
			/* a trailing " |" leaves an empty last field */
			size_t l = strlen(p);
			if (l >= 2 && strcmp(p + l - 2, " |") == 0) {
				p[l - 2] = '\0';
				if (n < MAXF)
					f[n++] = p + l;
			}
			break;
		}
		*sep = '\0';
		p = sep + 3;
	}
	return n;
}

/* Passages separated by " || " (pointers into text, which is modified). */
static int passages(char *text, const char **out, int max)
{
	int n = 0;
	char *p = text;
	while (n < max) {
		out[n++] = p;
		char *sep = strstr(p, " || ");
		if (!sep)
			break;
		*sep = '\0';
		p = sep + 4;
	}
	return n;
}

static int split(char *s, const char *sep, const char **out, int max)
{
	int n = 0;
	for (char *save = NULL, *t = strtok_r(s, sep, &save); t && n < max;
	     t = strtok_r(NULL, sep, &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = '\0';
		if (*t)
			out[n++] = t;
	}
	return n;
}

static LlmShape shape_of(const char *s)
{
	static const char *const names[] = {"text", "yesno", "list", "date", "int", "real", "bool",
		"json", NULL};
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return (LlmShape)i;
	return LLM_SHAPE_TEXT;
}

static void run_case(Llm *llm, int lineno, char **f, int nf)
{
	char name[160];
	SuqlErr err = {0};
	if (strcmp(f[0], "verify") == 0 && nf == 6) {
		const char *exp[8], *ps[8];
		int ne = split(f[3], ",", exp, 8);
		LlmItem it = {0};
		it.npassages = passages(f[4], ps, 8);
		it.passages = ps;
		LlmCall c = {0};
		c.kind = LLM_VERIFY;
		c.shape = LLM_SHAPE_YESNO;
		c.question = f[1];
		c.op = f[2];
		c.expected = exp;
		c.nexpected = ne;
		c.items = &it;
		c.nitems = 1;
		LlmCall *p = &c;
		snprintf(name, sizeof name, "offline verify, line %d: %.40s %s %s", lineno, f[1], f[2],
		         exp[0]);
		SuqlStatus st = llm_run(llm, &p, 1, NULL, NULL, &err);
		CHECK_STR(st == SUQL_OK ? (it.verdict ? "yes" : "no") : "error", f[5], name);
		llm_call_clear(&c);
	} else if (strcmp(f[0], "answer") == 0 && nf == 5) {
		const char *ps[8];
		LlmItem it = {0};
		it.npassages = passages(f[3], ps, 8);
		it.passages = ps;
		LlmCall c = {0};
		c.kind = LLM_ANSWER;
		c.shape = shape_of(f[1]);
		c.question = f[2];
		c.items = &it;
		c.nitems = 1;
		LlmCall *p = &c;
		snprintf(name, sizeof name, "offline answer, line %d: %s %.40s", lineno, f[1], f[2]);
		SuqlStatus st = llm_run(llm, &p, 1, NULL, NULL, &err);
		CHECK_STR(st != SUQL_OK ? "error" : it.value ? it.value : "NULL", f[4], name);
		llm_call_clear(&c);
	} else if (strcmp(f[0], "choice") == 0 && nf == 5) {
		const char *ps[8], *opts[32];
		LlmItem it = {0};
		it.npassages = passages(f[3], ps, 8);
		it.passages = ps;
		LlmCall c = {0};
		c.kind = LLM_ANSWER;
		c.shape = LLM_SHAPE_TEXT;
		c.question = f[2];
		c.options = opts;
		c.noptions = split(f[1], ";", opts, 32);
		c.items = &it;
		c.nitems = 1;
		LlmCall *p = &c;
		snprintf(name, sizeof name, "offline choice, line %d: %.40s", lineno, f[2]);
		SuqlStatus st = llm_run(llm, &p, 1, NULL, NULL, &err);
		CHECK_STR(st != SUQL_OK ? "error" : it.value ? it.value : "NULL", f[4], name);
		llm_call_clear(&c);
	} else if (strcmp(f[0], "classify") == 0 && nf >= 3) {
		const char *opts[32], *want[32];
		int no = split(f[2], ";", opts, 32);
		int nw = nf > 3 ? split(f[3], ";", want, 32) : 0;
		LlmCall c = {0};
		c.kind = LLM_CLASSIFY;
		c.shape = LLM_SHAPE_LIST;
		c.subject = f[1];
		c.options = opts;
		c.noptions = no;
		LlmCall *p = &c;
		snprintf(name, sizeof name, "offline classify, line %d: '%s'", lineno, f[1]);
		SuqlStatus st = llm_run(llm, &p, 1, NULL, NULL, &err);
		SBuf got = SBUF_INIT, exp = SBUF_INIT;
		for (int i = 0; st == SUQL_OK && i < c.nlabels; i++)
			sb_printf(&got, "%s%s", i ? "; " : "", c.labels[i]);
		for (int i = 0; i < nw; i++)
			sb_printf(&exp, "%s%s", i ? "; " : "", want[i]);
		CHECK_STR(sb_str(&got), sb_str(&exp), name);
		sb_free(&got);
		sb_free(&exp);
		llm_call_clear(&c);
	} else if (strcmp(f[0], "date") == 0 && nf == 3) {
		char iso[11];
		int prec;
		snprintf(name, sizeof name, "date, line %d: %s", lineno, f[1]);
		int ok = llm_find_date(f[1], strlen(f[1]), iso, &prec);
		CHECK_STR(ok ? iso : "NONE", f[2], name);
	} else if (strcmp(f[0], "number") == 0 && nf == 3) {
		double v;
		int is_int;
		char buf[64];
		snprintf(name, sizeof name, "number, line %d: %s", lineno, f[1]);
		int ok = llm_find_number(f[1], strlen(f[1]), &v, &is_int);
		snprintf(buf, sizeof buf, "%.15g", v);
		CHECK_STR(ok ? buf : "NONE", f[2], name);
	} else {
		snprintf(name, sizeof name, "offline cases, line %d: well-formed", lineno);
		CHECK(0, name);
	}
	err_clear(&err);
}

/* Is every sentence of the summary a sentence of the input, each once? */
static void check_summary(Llm *llm)
{
	const char *text =
		"The ramen here is rich and the broth is deep. The ramen is worth the trip. "
		"Parking is hard on weekends. The broth and the ramen noodles are made daily. "
		"The ramen is worth the trip. Staff were friendly. The dessert menu is short. "
		"Prices for ramen are fair for the portion size and the broth quality.";
	const char *ps[1] = {text};
	LlmItem it = {0};
	it.passages = ps;
	it.npassages = 1;
	LlmCall c = {0};
	c.kind = LLM_SUMMARY;
	c.items = &it;
	c.nitems = 1;
	c.max_tokens = 45;   /* a budget of 30 words */
	LlmCall *p = &c;
	SuqlErr err = {0};
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_OK && it.value, "summary: produced");
	const char *s = it.value ? it.value : "";
	TextSpan *sp;
	size_t ns = text_sentences(s, strlen(s), &sp);
	int only_input = ns > 0, no_repeat = 1, words = 0, in_order = ns > 1;
	const char *last = NULL;
	for (size_t i = 0; i < ns; i++) {
		char *one = xstrndup(s + sp[i].off, sp[i].len);
		const char *at = strstr(text, one);
		only_input &= at != NULL;
		in_order &= at != NULL && (!last || at > last);
		last = at;
		for (size_t j = 0; j < i; j++)
			no_repeat &= !(sp[j].len == sp[i].len && strncmp(s + sp[j].off, one, sp[i].len) == 0);
		free(one);
	}
	TextTok *tok;
	words = (int)text_tokens(s, strlen(s), &tok);
	free(tok);
	free(sp);
	CHECK(only_input, "summary: only sentences of the input");
	CHECK(no_repeat, "summary: no sentence twice");
	CHECK(words <= 30, "summary: within the word budget");
	CHECK(strstr(s, "ramen") != NULL, "summary: keeps the central topic");
	CHECK(strstr(s, "dessert") == NULL, "summary: leaves out a marginal sentence");
	/* in the original order: every sentence of the summary (there are several) comes later
	   in the input than the one before it */
	const char *a = strstr(text, "The ramen here is rich"), *b = strstr(text, "Prices for ramen");
	const char *sa = strstr(s, "The ramen here is rich"), *sb = strstr(s, "Prices for ramen");
	CHECK(in_order && (!(sa && sb) || ((a < b) == (sa < sb))), "summary: original order");
	llm_call_clear(&c);

	/* a short text is its own summary, minus repeats */
	const char *ps2[2] = {"Good tacos. Good tacos.", "Cash only."};
	LlmItem it2 = {0};
	it2.passages = ps2;
	it2.npassages = 2;
	LlmCall c2 = {0};
	c2.kind = LLM_SUMMARY;
	c2.items = &it2;
	c2.nitems = 1;
	p = &c2;
	llm_run(llm, &p, 1, NULL, NULL, &err);
	CHECK_STR(it2.value, "Good tacos. Cash only.", "summary: short text, repeats dropped");
	llm_call_clear(&c2);
	err_clear(&err);
}

int main(void)
{
	LlmConfig cfg = {0};
	cfg.offline = 1;
	cfg.no_cache = 1;
	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	CHECK(llm != NULL, "offline: opens");
	if (!llm) {
		printf("# %s\n", err.msg);
		return 1;
	}
	CHECK_STR(llm_label(llm), "offline (lexical, no language model)", "offline: label");
	FILE *f = fopen("tests/llm/offline.cases", "r");
	CHECK(f != NULL, "offline: cases file found");
	char line[4096];
	int lineno = 0;
	while (f && fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *fl[MAXF];
		int nf = fields(line, fl);
		run_case(llm, lineno, fl, nf);
	}
	if (f)
		fclose(f);
	check_summary(llm);

	/* counted like any backend's calls */
	const LlmStats *ss = llm_stats_session(llm);
	CHECK(ss->total.calls > 40 && ss->total.failed == 0, "offline: calls are counted");
	CHECK(ss->kind[LLM_VERIFY].calls > 20, "offline: counted per kind");
	llm_close(llm);
	err_clear(&err);
	return unit_done();
}
