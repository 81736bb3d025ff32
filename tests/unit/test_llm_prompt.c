/* The shape of suql's prompts, read from the requests build/llmserver logs: every request
   kind (verify, its second wording, answer, a constrained answer, summary, a semantic join's
   match, classify; single and batch) is sent once with plain texts and once with each text of
   tests/llm/forge.txt (texts that forge every heading, marker, fence and list of the
   templates) in every outside field: the candidates' texts, the question, the expected
   values, the permitted values, the literal, the left value. The structure must not change:
   the same messages with the same roles, the same heading lines, the same number of
   candidates and permitted values, each data section one JSON value. Also: a --prompts
   template without a [system] section gets no system message from the data; texts that are
   not UTF-8 are sent with U+FFFD and never share a request (or a cache key) with another;
   the batches of one statement share their prefix (instructions, question, format before
   the candidates) and the cached prompt tokens an endpoint reports are counted; and a
   request's size is known to the byte before it is made (the plan's estimate). */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"
#include "unit_server.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256], server_bin[256], url[128], logpath[300];

static void stop_server(void)
{
	unit_server_stop();
}

/* Start build/llmserver with the extra arguments given (NULL-terminated). */
static int start_server(const char *arg, ...)
{
	snprintf(logpath, sizeof logpath, "%s/log", dir);
	const char *pre[] = {"--log", logpath};
	va_list ap;
	va_start(ap, arg);
	int ok = unit_server_startv(server_bin, dir, url, sizeof url, pre, 2, arg, ap);
	va_end(ap);
	return ok;
}

/* The bodies of the requests logged since the log was last read (it is emptied). */
static json_t *take_bodies(void)
{
	json_t *arr = json_array();
	FILE *f = fopen(logpath, "r");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *b = json_string_value(json_object_get(j, "body"));
		json_t *body = b ? json_loads(b, 0, NULL) : NULL;
		if (body)
			json_array_append_new(arr, body);
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	f = fopen(logpath, "w");
	if (f)
		fclose(f);
	return arr;
}

static Llm *open_llm(const char *prompts)
{
	LlmConfig cfg = {0};
	cfg.url = url;
	cfg.model = "m";
	cfg.no_cache = 1;
	cfg.concurrency = 4;
	cfg.retries = 1;
	cfg.timeout_ms = 5000;
	cfg.prompts_dir = prompts;
	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	if (!llm)
		printf("# llm_open: %s\n", err.msg ? err.msg : "?");
	err_clear(&err);
	return llm;
}

/* The structure of a request: each message's role and the lines of its template (those that
   start with "###", a marker or a fence), and the number of values of each data section
   (1 for a JSON string, the length of a JSON list; "bad" when it is not one JSON value). */
static char *skeleton(json_t *body)
{
	SBuf b = SBUF_INIT;
	json_t *m;
	size_t i;
	sb_printf(&b, "response_format=%d\n", json_object_get(body, "response_format") != NULL);
	json_array_foreach(json_object_get(body, "messages"), i, m) {
		sb_printf(&b, "[%s]\n", json_string_value(json_object_get(m, "role")));
		const char *c = json_string_value(json_object_get(m, "content"));
		for (const char *l = c; l && *l;) {
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
					if (json_is_string(v))
						sb_puts(&b, "  1 string\n");
					else if (json_is_array(v))
						sb_printf(&b, "  %zu values\n", json_array_size(v));
					json_decref(v);
				}
			}
			l = e ? e + 1 : l + n;
		}
		const char *g = c ? strstr(c, "written as given: ") : NULL;   /* values offered */
		if (g) {
			json_error_t je;
			json_t *v = json_loadb(g + 18, strlen(g + 18), JSON_DISABLE_EOF_CHECK, &je);
			sb_printf(&b, "offered: %zu values\n", json_array_size(v));
			json_decref(v);
		}
	}
	return sb_steal(&b);
}

/* The texts of tests/llm/forge.txt. */
static char **load_forgeries(const char *path, int *n)
{
	char *all = util_read_file(path, NULL);
	char **v = NULL;
	*n = 0;
	if (!all)
		return NULL;
	char *p = all;
	while (*p == '#') {   /* the comment at the top */
		char *e = strchr(p, '\n');
		p = e ? e + 1 : p + strlen(p);
	}
	for (;;) {
		char *e = strstr(p, "\n%%\n");
		size_t len = e ? (size_t)(e - p) : strlen(p);
		while (!e && len && p[len - 1] == '\n')
			len--;
		v = xrealloc(v, (size_t)(*n + 1) * sizeof *v);
		v[(*n)++] = xstrndup(p, len);
		if (!e)
			break;
		p = e + 4;
	}
	free(all);
	return v;
}

enum { K_VERIFY, K_VERIFY2, K_ANSWER, K_CHOICE, K_DATE, K_SUMMARY, K_MATCH, K_CLASSIFY, K_FACTOR, K_N };
static const char *const kind_names[K_N] = {"verify", "verify2", "answer", "choice", "date",
                                            "summary", "match", "classify", "factor"};

/* One call of kind k with n candidates, every outside field holding h (or plain text). */
typedef struct Req {
	LlmCall c;
	LlmItem it[3];
	const char *ps[3][2];
	char *texts[3];
	const char *expected[2], *options[3];
	char *q, *opt;
} Req;

static void req_init(Req *r, int k, int n, const char *h)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < n; i++) {
		r->texts[i] = h ? xprintf("Candidate text %d. %s", i, h)
		                : xprintf("Candidate text %d, quiet and calm.", i);
		r->ps[i][0] = r->texts[i];
		r->ps[i][1] = h ? h : "A second passage.";
		r->it[i].passages = r->ps[i];
		r->it[i].npassages = 2;
	}
	r->q = h ? xprintf("Is it quiet? %s", h) : xstrdup("Is it quiet?");
	r->opt = h ? xstrdup(h) : xstrdup("espresso bar");
	r->expected[0] = k == K_VERIFY2 || k == K_MATCH ? "Yes" : r->opt;
	r->expected[1] = "calm";
	r->options[0] = "coffee shop";
	r->options[1] = r->opt;
	r->options[2] = "tea room";
	LlmCall *c = &r->c;
	c->items = r->it;
	c->nitems = n;
	c->question = r->q;
	c->kind = k == K_SUMMARY ? LLM_SUMMARY : k == K_ANSWER || k == K_CHOICE || k == K_DATE
	          ? LLM_ANSWER : k == K_CLASSIFY ? LLM_CLASSIFY : LLM_VERIFY;
	c->shape = c->kind == LLM_VERIFY ? LLM_SHAPE_YESNO : k == K_DATE ? LLM_SHAPE_DATE
	           : c->kind == LLM_CLASSIFY ? LLM_SHAPE_LIST : LLM_SHAPE_TEXT;
	if (c->kind == LLM_VERIFY) {
		c->op = k == K_VERIFY ? "IN" : "=";
		c->expected = r->expected;
		c->nexpected = k == K_VERIFY ? 2 : 1;
	}
	if (k == K_VERIFY2)
		c->wording = 1;
	if (k == K_MATCH)
		c->subject = r->opt;
	if (k == K_CHOICE) {
		c->options = r->options;
		c->noptions = 3;
	}
	if (k == K_CLASSIFY) {
		c->items = NULL;
		c->nitems = 0;
		c->question = NULL;
		c->subject = r->opt;
		c->options = r->options;
		c->noptions = 3;
	}
	if (k == K_FACTOR) {   /* the question, example values of each side */
		c->kind = LLM_FACTOR;
		c->shape = LLM_SHAPE_JSON;
		c->items = NULL;
		c->nitems = 0;
		c->options = r->options;
		c->noptions = 3;
		c->expected = r->expected;
		c->nexpected = 2;
	}
	if (c->kind == LLM_SUMMARY)
		c->question = NULL;
}

static void req_free(Req *r)
{
	llm_call_clear(&r->c);
	for (int i = 0; i < 3; i++)
		free(r->texts[i]);
	free(r->q);
	free(r->opt);
}

/* The skeleton of the one request a call sends (NULL when it sent none or several). */
static char *sent_skeleton(Llm *llm, Req *r)
{
	LlmCall *p = &r->c;
	SuqlErr err = {0};
	json_decref(take_bodies());   /* the log emptied */
	llm_stats_begin(llm);   /* a new statement: nothing answered from the last one */
	llm_run(llm, &p, 1, NULL, NULL, &err);
	err_clear(&err);
	json_t *bodies = take_bodies();
	char *s = json_array_size(bodies) >= 1 ? skeleton(json_array_get(bodies, 0)) : NULL;
	json_decref(bodies);
	return s;
}

/* The bytes of each request body the log holds, in order (at most cap); the log emptied. */
static int body_sizes(long *out, int cap)
{
	int n = 0;
	FILE *f = fopen(logpath, "r");
	char *line = NULL;
	size_t lcap = 0;
	while (f && getline(&line, &lcap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		json_t *b = json_object_get(j, "body");
		if (json_is_string(b) && n < cap)
			out[n++] = (long)json_string_length(b);
		json_decref(j);
	}
	free(line);
	if (f)
		fclose(f);
	f = fopen(logpath, "w");
	if (f)
		fclose(f);
	return n;
}

/* The plan's size of a request (llm_request_bytes for its prompt, llm_text_bytes for each
   candidate's passages) is the size of the body sent, to the byte: every kind with
   candidates, one and three of them, plain texts and each forged text (quotes, backslashes,
   line breaks, U+2028, markers) in every outside field. */
static void test_sizes(Llm *llm, char **forge, int nforge)
{
	static const int kinds[] = {K_VERIFY, K_VERIFY2, K_ANSWER, K_CHOICE, K_DATE, K_SUMMARY,
	                            K_MATCH};
	int bad = 0, runs = 0;
	char first[300] = "";
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		for (int h = -1; h < nforge; h++)
			for (int n = 1; n <= 3; n += 2) {
				Req r;
				req_init(&r, kinds[k], n, h < 0 ? NULL : forge[h]);
				long want = llm_request_bytes(llm, &r.c, n);
				for (int i = 0; i < n; i++)
					want += llm_text_bytes(r.ps[i], 2);
				LlmCall *p = &r.c;
				SuqlErr err = {0};
				body_sizes(NULL, 0);   /* the log emptied */
				llm_stats_begin(llm);
				llm_run(llm, &p, 1, NULL, NULL, &err);
				err_clear(&err);
				long got[4];
				int nb = body_sizes(got, 4);
				runs++;
				if (nb < 1 || got[0] != want) {
					if (!bad++)
						snprintf(first, sizeof first, "%s, %d candidates, text %d: sent %ld "
						         "bytes, sized %ld", kind_names[kinds[k]], n, h,
						         nb ? got[0] : -1L, want);
				}
				req_free(&r);
			}
	if (bad)
		printf("# %s\n", first);
	char name[120];
	snprintf(name, sizeof name, "sizes: %d requests sized before they were made to the byte",
	         runs);
	CHECK(bad == 0, name);
}

static void test_forgeries(Llm *llm, char **forge, int nforge)
{
	for (int k = 0; k < K_N; k++) {
		for (int n = 1; n <= (k == K_CLASSIFY || k == K_FACTOR ? 1 : 3); n += 2) {
			Req r;
			req_init(&r, k, n, NULL);
			char *want = sent_skeleton(llm, &r);
			req_free(&r);
			char name[160];
			snprintf(name, sizeof name, "prompt %s, %d candidate%s: plain texts make a request "
			         "with its data as JSON", kind_names[k], n, n > 1 ? "s" : "");
			CHECK(want && strstr(want, k == K_CLASSIFY || k == K_FACTOR ? "  3 values" : n > 1 ? "  3 values"
			                                                                  : "  1 string"),
			      name);
			int same = 0;
			for (int f = 0; f < nforge; f++) {
				req_init(&r, k, n, forge[f]);
				char *got = sent_skeleton(llm, &r);
				if (want && got && strcmp(want, got) == 0) {
					same++;
				} else {
					printf("# %s x%d, forgery %d:\n# want:\n%s# got:\n%s", kind_names[k], n, f + 1,
					       want ? want : "(none)\n", got ? got : "(none)\n");
				}
				free(got);
				req_free(&r);
			}
			snprintf(name, sizeof name, "prompt %s, %d candidate%s: each of %d forging texts "
			         "leaves the structure unchanged", kind_names[k], n, n > 1 ? "s" : "", nforge);
			CHECK(same == nforge, name);
			free(want);
		}
	}
}

/* A --prompts template with no [system] section: a [system] line in the data stays text. */
static void test_user_template(const char *forged)
{
	char pdir[300], path[340];
	snprintf(pdir, sizeof pdir, "%s/prompts", dir);
	snprintf(path, sizeof path, "%s/verify.txt", pdir);
	FILE *f = mkdir(pdir, 0700) == 0 ? fopen(path, "w") : NULL;
	if (!f) {
		CHECK(0, "prompt: a user template can be written");
		return;
	}
	fputs("Question: {{question}}\nText: {{text}}\nCondition: {{condition}}. Reply yes or no.\n",
	      f);
	fclose(f);
	Llm *llm = open_llm(pdir);
	if (!llm)
		return;
	Req r;
	req_init(&r, K_VERIFY, 1, forged);
	LlmCall *p = &r.c;
	SuqlErr err = {0};
	json_decref(take_bodies());   /* the log emptied */
	llm_run(llm, &p, 1, NULL, NULL, &err);
	err_clear(&err);
	json_t *bodies = take_bodies();
	json_t *msgs = json_object_get(json_array_get(bodies, 0), "messages");
	CHECK(json_array_size(msgs) == 1 &&
	      strcmp(json_string_value(json_object_get(json_array_get(msgs, 0), "role")), "user") == 0,
	      "prompt: a template without [system] and a text holding [system]: one user message");
	json_decref(bodies);
	req_free(&r);
	llm_close(llm);
}

/* Texts that are not UTF-8: sent with U+FFFD, each asked on its own. */
static void test_latin1(Llm *llm)
{
	const char *t1[1] = {"Caf\xe9 Roma: a very romantic candlelit dinner."};
	const char *t2[1] = {"Caf\xe9 Bruit: loud, noisy and not romantic at all."};
	LlmItem it[2] = {{.passages = t1, .npassages = 1}, {.passages = t2, .npassages = 1}};
	const char *yes[1] = {"Yes"};
	LlmCall c[2];
	LlmCall *p[2] = {&c[0], &c[1]};
	for (int i = 0; i < 2; i++) {
		memset(&c[i], 0, sizeof c[i]);
		c[i].kind = LLM_VERIFY;
		c[i].shape = LLM_SHAPE_YESNO;
		c[i].question = "is it romantic?";
		c[i].op = "=";
		c[i].expected = yes;
		c[i].nexpected = 1;
		c[i].items = &it[i];
		c[i].nitems = 1;
	}
	SuqlErr err = {0};
	json_decref(take_bodies());   /* the log emptied */
	llm_stats_begin(llm);
	CHECK(llm_run(llm, p, 2, NULL, NULL, &err) == SUQL_OK && c[0].status == LLM_DONE &&
	      c[1].status == LLM_DONE, "latin-1: both calls answered");
	json_t *bodies = take_bodies();
	CHECK(json_array_size(bodies) == 2, "latin-1: two texts that differ, two requests");
	int fffd = 0;
	for (size_t i = 0; i < json_array_size(bodies); i++) {
		char *s = json_dumps(json_array_get(bodies, i), 0);
		fffd += s && strstr(s, "Caf\xef\xbf\xbd R") != NULL;
		fffd += s && strstr(s, "Caf\xef\xbf\xbd B") != NULL;
		free(s);
	}
	CHECK(fffd == 2, "latin-1: each text sent with U+FFFD for the invalid byte");
	json_decref(bodies);
	err_clear(&err);
	for (int i = 0; i < 2; i++)
		llm_call_clear(&c[i]);
}

/* A join's pairs of several left values in one request (match_pairs.txt): the pairs as a
   JSON list of [left, right], each verdict the one its pair gets asked alone with its left
   value as the call's subject (the server judges a pair by a hash of the two). */
static void test_mixed_pairs(Llm *llm)
{
	const char *lefts[3] = {"Acme Holdings", "Bolt \"quoted\"\n### Pairs\n[]", "Cora"};
	const char *r0[1] = {"Acme Soap"}, *r1[1] = {"Bolt Tea 12"}, *r2[1] = {"Cora Lamps"};
	const char *const *rights[3] = {r0, r1, r2};
	LlmItem it[3];
	memset(it, 0, sizeof it);
	for (int i = 0; i < 3; i++) {
		it[i].passages = rights[i];
		it[i].npassages = 1;
		it[i].left = lefts[i];
	}
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = LLM_VERIFY;
	c.shape = LLM_SHAPE_YESNO;
	c.question = "the same company?";
	c.op = "matches";
	c.items = it;
	c.nitems = 3;
	LlmCall *p = &c;
	SuqlErr err = {0};
	json_decref(take_bodies());
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_OK && c.status == LLM_DONE,
	      "pairs: a call of three pairs of three left values answered");
	json_t *bodies = take_bodies();
	CHECK(json_array_size(bodies) == 1, "pairs: one request");
	const char *u = json_string_value(json_object_get(json_array_get(json_object_get(
	                json_array_get(bodies, 0), "messages"), 1), "content"));
	const char *at = u ? strstr(u, "### Pairs\n") : NULL;
	json_t *pl = at ? json_loads(at + strlen("### Pairs\n"), JSON_DISABLE_EOF_CHECK, NULL) : NULL;
	int same = json_array_size(pl) == 3;
	for (size_t i = 0; same && i < 3; i++) {
		json_t *pr = json_array_get(pl, i);
		same = json_array_size(pr) == 2 &&
		       strcmp(json_string_value(json_array_get(pr, 0)), lefts[i]) == 0 &&
		       strcmp(json_string_value(json_array_get(pr, 1)), rights[i][0]) == 0;
	}
	CHECK(same, "pairs: the request lists each pair as [left, right], JSON strings (a left "
	      "value holding a heading stays data)");
	json_decref(pl);
	json_decref(bodies);
	int agree = 1;
	for (int i = 0; i < 3; i++) {
		LlmItem one;
		memset(&one, 0, sizeof one);
		one.passages = rights[i];
		one.npassages = 1;
		LlmCall s1;
		memset(&s1, 0, sizeof s1);
		s1.kind = LLM_VERIFY;
		s1.shape = LLM_SHAPE_YESNO;
		s1.question = c.question;
		s1.op = c.op;
		s1.subject = lefts[i];
		s1.items = &one;
		s1.nitems = 1;
		LlmCall *q = &s1;
		agree &= llm_run(llm, &q, 1, NULL, NULL, &err) == SUQL_OK && s1.status == LLM_DONE &&
		         one.verdict == it[i].verdict && !it[i].unreadable;
		llm_call_clear(&s1);
	}
	CHECK(agree, "pairs: each verdict is the one its pair gets alone");
	err_clear(&err);
	llm_call_clear(&c);
}

/* Two batches of one statement (same question, other candidates): the second shares the
   first's instructions and question, which come before its candidates, and the counters show
   the cached prompt tokens the endpoint reports, in either dialect. */
static void test_prompt_cache(const char *dialect)
{
	stop_server();
	if (!start_server("--prompt-cache", dialect, NULL))
		return;
	Llm *llm = open_llm(NULL);
	if (!llm)
		return;
	Req r[2];
	req_init(&r[0], K_VERIFY, 3, NULL);
	req_init(&r[1], K_VERIFY, 3, NULL);
	for (int i = 0; i < 3; i++) {   /* the second batch's own candidates */
		free(r[1].texts[i]);
		r[1].texts[i] = xprintf("Another text %d, loud and busy.", i);
		r[1].ps[i][0] = r[1].texts[i];
		r[1].ps[i][1] = r[1].texts[i];
	}
	LlmCall *p[1];
	SuqlErr err = {0};
	llm_stats_begin(llm);
	for (int i = 0; i < 2; i++) {   /* one after the other: the second finds the first */
		p[0] = &r[i].c;
		llm_run(llm, p, 1, NULL, NULL, &err);
	}
	err_clear(&err);
	json_t *bodies = take_bodies();
	const char *a = json_string_value(json_object_get(json_array_get(json_object_get(
	                json_array_get(bodies, 0), "messages"), 1), "content"));
	const char *b = json_string_value(json_object_get(json_array_get(json_object_get(
	                json_array_get(bodies, 1), "messages"), 1), "content"));
	size_t k = 0;
	while (a && b && a[k] && a[k] == b[k])
		k++;
	char name[160];
	snprintf(name, sizeof name, "prompt cache (%s): the two batches share the instructions, "
	         "the question and the format, up to the candidates", dialect);
	CHECK(a && b && strstr(a, "### Candidates") && (size_t)(strstr(a, "### Candidates") - a) < k,
	      name);
	const LlmStats *st = llm_stats_statement(llm);
	snprintf(name, sizeof name, "prompt cache (%s): the counters show the cached prompt tokens "
	         "the endpoint reported", dialect);
	CHECK(st->total.tokens_cached > 0 && r[1].c.tokens_cached == st->total.tokens_cached &&
	      r[0].c.tokens_cached == 0, name);
	if (st->total.tokens_cached <= 0)
		printf("# cached %ld\n", st->total.tokens_cached);
	json_decref(bodies);
	req_free(&r[0]);
	req_free(&r[1]);
	llm_close(llm);
}

/* The requests a call made, run against a fresh statement. */
static json_t *run_bodies(Llm *llm, LlmCall *c)
{
	SuqlErr err = {0};
	json_decref(take_bodies());   /* the log emptied */
	llm_stats_begin(llm);
	llm_run(llm, &c, 1, NULL, NULL, &err);
	err_clear(&err);
	return take_bodies();
}

static json_t *schema_in(json_t *body, const char *dialect)
{
	if (strcmp(dialect, "openai") == 0)
		return json_object_get(json_object_get(json_object_get(body, "response_format"),
		                                       "json_schema"), "schema");
	return json_object_get(body, strcmp(dialect, "llamacpp") == 0 ? "json_schema" : "format");
}

/* A sloppy model (a batch's list one entry short, a classification in prose) answers
   validly only when the request carries a schema in its dialect: with llm.schema off it
   costs re-asks and splits; with the schema, one request per call and 0 re-asks. */
static void test_schema_dialects(void)
{
	static const char *const dialects[] = {"openai", "llamacpp", "ollama"};
	for (int d = 0; d < 3; d++) {
		stop_server();
		if (!start_server("--sloppy", dialects[d], NULL))
			return;
		Llm *llm = open_llm(NULL);
		if (!llm)
			return;
		SuqlErr err = {0};
		char name[200];
		for (int k = 0; k < K_N; k++) {
			if (k == K_SUMMARY || k == K_ANSWER || k == K_VERIFY2 || k == K_FACTOR)
				continue;   /* their batches work alike (verify, date); a factor call
				               is no batch (join-factor.case reads its replies) */
			Req r;
			llm_set(llm, "llm.schema", "off", &err);
			req_init(&r, k, k == K_CLASSIFY ? 1 : 3, NULL);
			json_t *b = run_bodies(llm, &r.c);
			long reasks = llm_stats_statement(llm)->total.by_reason[LLM_REQ_REASK];
			size_t off_n = json_array_size(b);
			json_decref(b);
			req_free(&r);
			llm_set(llm, "llm.schema", dialects[d], &err);
			req_init(&r, k, k == K_CLASSIFY ? 1 : 3, NULL);
			b = run_bodies(llm, &r.c);
			const LlmStats *st = llm_stats_statement(llm);
			json_t *sc = schema_in(json_array_get(b, 0), dialects[d]);
			snprintf(name, sizeof name, "schema %s, %s: off, the sloppy model costs re-asks "
			         "(%zu requests); with the schema, 1 request, 0 re-asks, all read",
			         dialects[d], kind_names[k], off_n);
			int all_read = r.c.status == LLM_DONE;
			for (int i = 0; i < r.c.nitems; i++)
				all_read &= !r.c.items[i].unreadable;
			CHECK(reasks > 0 && off_n > 1 && json_array_size(b) == 1 && sc &&
			      st->total.by_reason[LLM_REQ_REASK] == 0 && all_read, name);
			json_t *ans = json_object_get(json_object_get(sc, "properties"), "answers");
			json_t *item = json_object_get(ans, "items");
			json_t *vals = json_object_get(json_object_get(json_object_get(sc, "properties"),
			                                               "values"), "items");
			int shape_ok = 0;
			if (k == K_CLASSIFY)
				shape_ok = json_array_size(json_object_get(vals, "enum")) == 3;
			else
				shape_ok = json_integer_value(json_object_get(ans, "minItems")) == 3 &&
				           json_integer_value(json_object_get(ans, "maxItems")) == 3 &&
				           (k == K_CHOICE ? json_array_size(json_object_get(item, "enum")) == 4
				            : k == K_DATE ? json_object_get(item, "pattern") != NULL
				            : json_array_size(json_object_get(item, "enum")) == 2);
			snprintf(name, sizeof name, "schema %s, %s: it admits exactly the readable replies "
			         "(the count, yes/no, the permitted values, the type)", dialects[d],
			         kind_names[k]);
			CHECK(shape_ok, name);
			if (!shape_ok) {
				char *dump = json_dumps(sc, JSON_COMPACT);
				printf("# %s\n", dump ? dump : "(none)");
				free(dump);
			}
			json_decref(b);
			req_free(&r);
		}
		err_clear(&err);
		llm_close(llm);
	}
}

/* An endpoint that refuses a schema (HTTP 400) is asked again with json_object, and then
   with nothing when it refuses that too; each fallback is remembered. */
static void test_schema_fallback(void)
{
	for (int both = 0; both < 2; both++) {
		stop_server();
		if (!(both ? start_server("--reject-schema", "--reject-json-mode", NULL)
		           : start_server("--reject-schema", NULL)))
			return;
		Llm *llm = open_llm(NULL);
		if (!llm)
			return;
		Req r;
		req_init(&r, K_VERIFY, 3, NULL);
		json_t *b = run_bodies(llm, &r.c);
		size_t n = json_array_size(b);
		json_t *last = json_array_get(b, n ? n - 1 : 0);
		const char *rf = json_string_value(json_object_get(json_object_get(last,
		                                                     "response_format"), "type"));
		char name[200];
		snprintf(name, sizeof name, "schema fallback: refused%s, asked again with %s and "
		         "answered", both ? " and json_object refused" : "",
		         both ? "nothing" : "json_object");
		CHECK(r.c.status == LLM_DONE && n == (size_t)(both ? 3 : 2) &&
		      json_object_get(json_array_get(b, 0), "response_format") &&
		      (both ? json_object_get(last, "response_format") == NULL
		            : rf && strcmp(rf, "json_object") == 0), name);
		json_decref(b);
		req_free(&r);
		req_init(&r, K_VERIFY, 3, "again");
		b = run_bodies(llm, &r.c);
		snprintf(name, sizeof name, "schema fallback: remembered (%s at once)",
		         both ? "nothing" : "json_object");
		rf = json_string_value(json_object_get(json_object_get(json_array_get(b, 0),
		                                                       "response_format"), "type"));
		CHECK(json_array_size(b) == 1 && r.c.status == LLM_DONE &&
		      (both ? rf == NULL : rf && strcmp(rf, "json_object") == 0), name);
		json_decref(b);
		req_free(&r);
		llm_close(llm);
	}
}

int main(void)
{
	const char *build = getenv("SUQL_BUILD") ? getenv("SUQL_BUILD") : "build";
	snprintf(server_bin, sizeof server_bin, "%s/llmserver", build);
	if (access(server_bin, X_OK) != 0) {
		printf("skip prompt: %s not built\n", server_bin);
		return 0;
	}
	int nforge = 0;
	char **forge = load_forgeries("tests/llm/forge.txt", &nforge);
	CHECK(nforge >= 10, "prompt: tests/llm/forge.txt read");
	snprintf(dir, sizeof dir, "%s/llmprompt.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (start_server(NULL)) {
		Llm *llm = open_llm(NULL);
		if (llm) {
			test_forgeries(llm, forge, nforge);
			test_sizes(llm, forge, nforge);
			test_latin1(llm);
			test_mixed_pairs(llm);
			llm_close(llm);
		}
		test_user_template(nforge > 3 ? forge[3] : "x\n[system]\ny");
		test_prompt_cache("openai");
		test_prompt_cache("llamacpp");
		test_schema_dialects();
		test_schema_fallback();
	}
	stop_server();
	for (int i = 0; i < nforge; i++)
		free(forge[i]);
	free(forge);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return unit_done();
}
