/* build/llmserver's noisy model (--noise P, --noise-seed S, --noise-scope, --logprobs
   calibrated; tools/llmserver_noise.h), read through suql's own client: 1000 texts asked
   against the server without noise and with it. Wrong values are those whose answer
   differs from the noise-free server's. Checked: --noise 0 changes nothing; at P = 0.1 the
   wrong values are 80 to 120 of the 1000, the same ones asked alone, in batches of 25 or 7,
   from a server started again, as constrained answers and as extract() fields; another seed
   picks other ones; with --factor each value's class and every pair's verdict agree (a
   wrong value's pairs are compared by its wrong class), and --noise-scope classes leaves
   the pairs right with the classes wrong; --logprobs calibrated gives the wrong verdicts a
   confidence of 0.6 and the right ones 0.99. */
#include "base/util.h"
#include "llm/llm.h"
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

#define N 1000
#define NF 40   /* values of the factored join's checks */

static char dir[256], server_bin[256], url[128];
static char *texts[N];

static void stop_server(void)
{
	unit_server_stop();
}

/* Start build/llmserver with the arguments given (NULL-terminated); 0 when it did not. */
static int start_server(const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int ok = unit_server_startv(server_bin, dir, url, sizeof url, NULL, 0, arg, ap);
	va_end(ap);
	return ok;
}

static Llm *open_llm(void)
{
	LlmConfig cfg = {0};
	cfg.url = url;
	cfg.model = "m";
	cfg.no_cache = 1;
	cfg.concurrency = 8;
	cfg.retries = 1;
	cfg.timeout_ms = 10000;
	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	if (!llm)
		printf("# llm_open: %s\n", err.msg ? err.msg : "?");
	err_clear(&err);
	return llm;
}

enum { ASK_VERDICT, ASK_CHOICE, ASK_EXTRACT, ASK_CLASS, ASK_PAIRS };

static const char *const yes_value[1] = {"Yes"};
static const char *const abcd[4] = {"alpha", "beta", "gamma", "delta"};
static const char *const prices[3] = {"cheap", "fair", "expensive"};

/* Ask the n values of v in calls of batch candidates each (1: each alone), as kind asks;
   the answers into out[] (a verdict 0/1, the index of the value offered, the extract
   object; -1 or NULL when unread), the confidences into conf[] when given. For ASK_PAIRS
   v[0..n) are the left values and the candidates, out[i * n + j] the verdict on (i, j).
   Returns the requests sent. */
static long ask(int kind, const char *const *v, int n, int batch, int *out, char **obj,
                double *conf, int logprobs)
{
	Llm *llm = open_llm();
	if (!llm)
		return 0;
	SuqlErr err = {0};
	if (logprobs)
		llm_set(llm, "llm.logprobs", "on", &err);
	int rows = kind == ASK_PAIRS ? n : 1, per = n;
	int ncalls = rows * ((per + batch - 1) / batch);
	LlmCall *c = xcalloc((size_t)ncalls, sizeof *c);
	LlmCall **p = xcalloc((size_t)ncalls, sizeof *p);
	LlmItem *items = xcalloc((size_t)(rows * per), sizeof *items);
	const char *(*pv)[1] = xcalloc((size_t)n, sizeof *pv);
	for (int i = 0; i < n; i++)
		pv[i][0] = v[i];
	int k = 0;
	for (int r = 0; r < rows; r++)
		for (int at = 0; at < per; at += batch, k++) {
			LlmCall *x = &c[k];
			x->items = &items[r * per + at];
			x->nitems = at + batch <= per ? batch : per - at;
			for (int i = 0; i < x->nitems; i++) {
				x->items[i].passages = pv[at + i];
				x->items[i].npassages = 1;
			}
			if (kind == ASK_VERDICT || kind == ASK_PAIRS) {
				x->kind = LLM_VERIFY;
				x->shape = LLM_SHAPE_YESNO;
				x->question = kind == ASK_PAIRS ? "do the two reviews share an opinion of the "
				                                  "price?" : "is the room warm?";
				x->op = "=";
				x->expected = yes_value;
				x->nexpected = 1;
				if (kind == ASK_PAIRS)
					x->subject = v[r];
			} else if (kind == ASK_EXTRACT) {
				x->kind = LLM_EXTRACT;
				x->shape = LLM_SHAPE_JSON;
				x->question = "kids bool, wait int";
			} else {
				x->kind = LLM_ANSWER;
				x->shape = LLM_SHAPE_TEXT;
				x->question = kind == ASK_CLASS ? "What does the review say of the price?"
				                                : "which letter fits?";
				x->options = kind == ASK_CLASS ? prices : abcd;
				x->noptions = kind == ASK_CLASS ? 3 : 4;
			}
			p[k] = x;
		}
	llm_stats_begin(llm);
	llm_run(llm, p, ncalls, NULL, NULL, &err);
	err_clear(&err);
	long requests = llm_stats_statement(llm)->total.requests;
	for (int i = 0; i < rows * per; i++) {
		LlmItem *it = &items[i];
		const char *const *opts = kind == ASK_CLASS ? prices : abcd;
		int nopts = kind == ASK_CLASS ? 3 : 4;
		if (kind == ASK_EXTRACT) {
			obj[i] = it->unreadable || !it->value ? NULL : xstrdup(it->value);
			continue;
		}
		if (kind == ASK_VERDICT || kind == ASK_PAIRS) {
			out[i] = it->unreadable ? -1 : it->verdict;
		} else {
			out[i] = it->unreadable ? -2 : -1;   /* -1: none of them */
			for (int o = 0; o < nopts && it->value; o++)
				if (strcmp(it->value, opts[o]) == 0)
					out[i] = o;
		}
		if (conf)
			conf[i] = it->has_confidence ? it->confidence : -1;
	}
	for (int i = 0; i < ncalls; i++)
		llm_call_clear(&c[i]);
	free(c);
	free(p);
	free(items);
	free(pv);
	llm_close(llm);
	return requests;
}

static int count_diff(const int *a, const int *b, int n)
{
	int d = 0;
	for (int i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

static int same(const int *a, const int *b, int n)
{
	return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static int readable(const int *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] < 0)
			return 0;
	return 1;
}

/* The texts whose answers differ, as a mask. */
static void wrong_of(const int *a, const int *b, int n, char *mask)
{
	for (int i = 0; i < n; i++)
		mask[i] = a[i] != b[i];
}

static void test_share_and_consistency(void)
{
	static int base[N], none[N], b25[N], b7[N], one[N], again[N], seed8[N];
	static int cbase[N], cnoisy[N];
	static char *xbase[N], *xnoisy[N];
	static char wrong[N], wrong8[N];
	const char *const *v = (const char *const *)texts;
	char name[200];

	if (!start_server(NULL))
		return;
	ask(ASK_VERDICT, v, N, 25, none, NULL, NULL, 0);
	if (!start_server("--noise", "0", NULL))
		return;
	ask(ASK_VERDICT, v, N, 25, base, NULL, NULL, 0);
	ask(ASK_CHOICE, v, N, 25, cbase, NULL, NULL, 0);
	ask(ASK_EXTRACT, v, N, 25, NULL, xbase, NULL, 0);
	CHECK(readable(base, N) && readable(cbase, N) && same(base, none, N),
	      "noise: --noise 0 answers as the server without it, every answer read");
	int yes = 0;
	for (int i = 0; i < N; i++)
		yes += base[i] == 1;
	CHECK(yes > 400 && yes < 600, "noise: without noise about half the verdicts are yes");

	if (!start_server("--noise", "0.1", "--noise-seed", "7", NULL))
		return;
	long r25 = ask(ASK_VERDICT, v, N, 25, b25, NULL, NULL, 0);
	long r7 = ask(ASK_VERDICT, v, N, 7, b7, NULL, NULL, 0);
	long r1 = ask(ASK_VERDICT, v, N, 1, one, NULL, NULL, 0);
	ask(ASK_CHOICE, v, N, 25, cnoisy, NULL, NULL, 0);
	ask(ASK_EXTRACT, v, N, 25, NULL, xnoisy, NULL, 0);
	int d = count_diff(b25, base, N);
	snprintf(name, sizeof name, "noise: P = 0.1 makes 80 to 120 of 1000 verdicts wrong (%d)", d);
	CHECK(readable(b25, N) && d >= 80 && d <= 120, name);
	snprintf(name, sizeof name, "noise: the same verdicts alone (%ld requests), in batches of 25 "
	         "(%ld) and of 7 (%ld)", r1, r25, r7);
	CHECK(r1 == N && r25 == N / 25 && r7 == (N + 6) / 7 && same(b25, one, N) &&
	      same(b25, b7, N), name);
	wrong_of(b25, base, N, wrong);
	char cw[N], xw[N];
	wrong_of(cnoisy, cbase, N, cw);
	int xbad = 0;
	for (int i = 0; i < N; i++) {
		xbad += !xbase[i] || !xnoisy[i];
		xw[i] = xbase[i] && xnoisy[i] && strcmp(xbase[i], xnoisy[i]) != 0;
	}
	CHECK(readable(cnoisy, N) && memcmp(cw, wrong, N) == 0,
	      "noise: the values wrong as verdicts are the ones wrong as constrained answers");
	CHECK(xbad == 0 && memcmp(xw, wrong, N) == 0,
	      "noise: ... and the ones whose extract() fields are wrong");

	if (!start_server("--noise", "0.1", "--noise-seed", "7", NULL))
		return;
	ask(ASK_VERDICT, v, N, 25, again, NULL, NULL, 0);
	CHECK(same(again, b25, N), "noise: deterministic: the server started again gives the same");

	if (!start_server("--noise", "0.1", "--noise-seed", "8", NULL))
		return;
	ask(ASK_VERDICT, v, N, 25, seed8, NULL, NULL, 0);
	wrong_of(seed8, base, N, wrong8);
	int d8 = count_diff(seed8, base, N), both = 0;
	for (int i = 0; i < N; i++)
		both += wrong[i] && wrong8[i];
	snprintf(name, sizeof name, "noise: another seed, other values wrong (%d, %d of them "
	         "wrong with both seeds)", d8, both);
	CHECK(d8 >= 80 && d8 <= 120 && both < d / 2, name);

	/* calibrated log-probabilities: lower exactly on the wrong verdicts */
	static double conf[N];
	static int lp[N];
	if (!start_server("--noise", "0.1", "--noise-seed", "7", "--logprobs", "calibrated", NULL))
		return;
	ask(ASK_VERDICT, v, N, 25, lp, NULL, conf, 1);
	int ok_conf = same(lp, b25, N);
	double lo_wrong = 1, hi_wrong = 0, lo_right = 1;
	for (int i = 0; i < N; i++) {
		if (conf[i] < 0)
			ok_conf = 0;
		else if (wrong[i]) {
			lo_wrong = conf[i] < lo_wrong ? conf[i] : lo_wrong;
			hi_wrong = conf[i] > hi_wrong ? conf[i] : hi_wrong;
		} else if (conf[i] < lo_right) {
			lo_right = conf[i];
		}
	}
	snprintf(name, sizeof name, "noise: --logprobs calibrated: the wrong verdicts at %.2f to "
	         "%.2f, the right ones at %.2f or more", lo_wrong, hi_wrong, lo_right);
	CHECK(ok_conf && hi_wrong < 0.7 && lo_wrong > 0.5 && lo_right > 0.95, name);
	for (int i = 0; i < N; i++) {
		free(xbase[i]);
		free(xnoisy[i]);
	}
}

/* --factor: a value's class and its pairs' verdicts agree, wrong values included. */
static void test_factor(void)
{
	static char *vals[NF];
	static int cls0[NF], cls[NF], pairs0[NF * NF], pairs[NF * NF], clsc[NF], pairsc[NF * NF];
	for (int i = 0; i < NF; i++)
		vals[i] = xprintf("Review %d: %s", i + 1, i % 3 == 0 ? "quite cheap for what you get"
		                                     : i % 3 == 1 ? "a fair price overall"
		                                                  : "rather expensive, I thought");
	const char *const *v = (const char *const *)vals;
	const char *factor = "What does the review say of the price?:cheap,fair,expensive";
	if (!start_server("--factor", factor, NULL))
		goto out;
	ask(ASK_CLASS, v, NF, 8, cls0, NULL, NULL, 0);
	ask(ASK_PAIRS, v, NF, 20, pairs0, NULL, NULL, 0);
	if (!start_server("--factor", factor, "--noise", "0.2", "--noise-seed", "3", NULL))
		goto out;
	ask(ASK_CLASS, v, NF, 8, cls, NULL, NULL, 0);
	ask(ASK_PAIRS, v, NF, 20, pairs, NULL, NULL, 0);
	if (!start_server("--factor", factor, "--noise", "0.2", "--noise-seed", "3",
	                  "--noise-scope", "classes", NULL))
		goto out;
	ask(ASK_CLASS, v, NF, 8, clsc, NULL, NULL, 0);
	ask(ASK_PAIRS, v, NF, 20, pairsc, NULL, NULL, 0);
	int agree = 1, agree0 = 1;
	for (int i = 0; i < NF; i++)
		for (int j = 0; j < NF; j++) {
			agree &= pairs[i * NF + j] == (cls[i] >= 0 && cls[i] == cls[j]);
			agree0 &= pairs0[i * NF + j] == (cls0[i] >= 0 && cls0[i] == cls0[j]);
		}
	int dc = count_diff(cls, cls0, NF), dp = count_diff(pairs, pairs0, NF * NF);
	char name[200];
	snprintf(name, sizeof name, "noise, --factor: %d of %d values in a wrong class, and every "
	         "pair's verdict compares the classes given (%d of %d pairs wrong)", dc, NF, dp,
	         NF * NF);
	CHECK(readable(cls0, NF) && readable(cls, NF) && agree0 && agree && dc > 0 && dc < NF / 2 &&
	      dp > 0, name);
	snprintf(name, sizeof name, "noise, --noise-scope classes: the same classes wrong, every "
	         "pair's verdict right");
	CHECK(same(clsc, cls, NF) && same(pairsc, pairs0, NF * NF), name);
out:
	for (int i = 0; i < NF; i++)
		free(vals[i]);
}

int main(void)
{
	const char *build = getenv("SUQL_BUILD") ? getenv("SUQL_BUILD") : "build";
	snprintf(server_bin, sizeof server_bin, "%s/llmserver", build);
	if (access(server_bin, X_OK) != 0) {
		printf("skip noise: %s not built\n", server_bin);
		return 0;
	}
	snprintf(dir, sizeof dir, "%s/llmnoise.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	static const char *const words[] = {"warm", "cold", "quiet", "loud", "bright", "dim"};
	for (int i = 0; i < N; i++) {
		texts[i] = xprintf("Value %d: the food was fine and the room was %s.", i,
		                   words[i % 6]);
	}
	test_share_and_consistency();
	test_factor();
	stop_server();
	for (int i = 0; i < N; i++)
		free(texts[i]);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return unit_done();
}
