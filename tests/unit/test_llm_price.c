/* Prices and usage: the built-in list matched by the longest entry a model's name starts
   with (gpt-5-mini never taken for gpt-5, dated versions, a provider's prefix, dots for
   dashes, no match inside a word), its date shown with its source, cached and reasoning
   prices; the settings (a malformed or negative price refused, nothing changed; the cached
   price; llm.reasoning_tokens auto and set); a proxy's price; a reply's usage read wherever
   the endpoint puts it (OpenAI's details, Anthropic's cache fields, llama.cpp's timings,
   figures that are not numbers); and the counters pricing cached input at the cached rate,
   with cached tokens never more than the input. */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

/* The list's entry for model, its input price, and whether it reasons. */
static void list(const char *model, const char *entry, double in, int reasoning)
{
	LlmPrice p;
	char name[200];
	snprintf(name, sizeof name, "list: %s is %s", model, entry ? entry : "not on the list");
	if (!entry) {
		CHECK(!llm_price_list(model, &p), name);
		return;
	}
	CHECK(llm_price_list(model, &p) && p.entry && strcmp(p.entry, entry) == 0 &&
	      near(p.in, in) && p.reasoning == reasoning, name);
	if (p.entry && strcmp(p.entry, entry) != 0)
		printf("# matched %s\n", p.entry);
}

static void test_list(void)
{
	/* longest prefix: the family's smaller models are never taken for the large one */
	list("gpt-5", "gpt-5", 1.25, 1);
	list("gpt-5-2025-08-07", "gpt-5", 1.25, 1);
	list("gpt-5-mini", "gpt-5-mini", 0.25, 1);
	list("gpt-5-mini-2025-08-07", "gpt-5-mini", 0.25, 1);
	list("gpt-5-nano", "gpt-5-nano", 0.05, 1);
	list("gpt-5-chat-latest", "gpt-5-chat", 1.25, 0);
	list("gpt-5.1", "gpt-5.1", 1.25, 1);
	list("gpt-4.1", "gpt-4.1", 2.00, 0);
	list("gpt-4.1-2025-04-14", "gpt-4.1", 2.00, 0);
	list("gpt-4.1-mini", "gpt-4.1-mini", 0.40, 0);
	list("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", 0.40, 0);
	list("gpt-4.1-nano", "gpt-4.1-nano", 0.10, 0);
	list("gpt-4o", "gpt-4o", 2.50, 0);
	list("gpt-4o-mini-2024-07-18", "gpt-4o-mini", 0.15, 0);
	list("gpt-4-0613", "gpt-4", 30.00, 0);
	list("o1", "o1", 15.00, 1);
	list("o1-mini", "o1-mini", 1.10, 1);
	list("o3", "o3", 2.00, 1);
	list("o3-2025-04-16", "o3", 2.00, 1);
	list("o3-mini", "o3-mini", 1.10, 1);
	list("o3-mini-2025-01-31", "o3-mini", 1.10, 1);
	list("o4-mini", "o4-mini", 1.10, 1);
	list("claude-opus-4-20250514", "claude-opus-4", 15.00, 0);
	list("claude-opus-4-1-20250805", "claude-opus-4-1", 15.00, 0);
	list("claude-opus-4-5-20251101", "claude-opus-4-5", 5.00, 0);
	list("claude-sonnet-4-20250514", "claude-sonnet-4", 3.00, 0);
	list("claude-sonnet-4-5", "claude-sonnet-4-5", 3.00, 0);
	list("claude-sonnet-4.5", "claude-sonnet-4-5", 3.00, 0);   /* a dot for the dash */
	list("claude-haiku-4-5-20251001", "claude-haiku-4-5", 1.00, 0);
	list("claude-3-5-haiku-20241022", "claude-3-5-haiku", 0.80, 0);
	list("claude-3-5-haiku@20241022", "claude-3-5-haiku", 0.80, 0);   /* Vertex's way */
	list("gemini-2.5-pro", "gemini-2.5-pro", 1.25, 1);
	list("gemini-2.5-flash", "gemini-2.5-flash", 0.30, 1);
	list("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash", 0.30, 1);
	list("gemini-2.5-flash-lite", "gemini-2.5-flash-lite", 0.10, 0);
	list("gemini-2.0-flash-001", "gemini-2.0-flash", 0.10, 0);
	/* a provider's prefix, any case */
	list("openai/gpt-5-mini", "gpt-5-mini", 0.25, 1);
	list("models/gemini-2.5-pro", "gemini-2.5-pro", 1.25, 1);
	list("GPT-4o-Mini", "gpt-4o-mini", 0.15, 0);
	/* an entry must end where a part of the name does */
	list("gpt-50", NULL, 0, 0);
	list("o3x", NULL, 0, 0);
	list("o10", NULL, 0, 0);
	list("llama3.1:8b", NULL, 0, 0);
	list("ft:gpt-4o-mini-2024-07-18:acme::x1", NULL, 0, 0);   /* fine-tuned: other prices */
	list("", NULL, 0, 0);

	LlmPrice p;
	llm_price_list("gpt-4o-mini", &p);
	CHECK(near(p.cached_in, 0.075) && near(p.out, 0.60), "list: gpt-4o-mini's cached price");
	llm_price_list("gpt-5-mini", &p);
	CHECK(near(p.cached_in, 0.025) && near(p.out, 2.00), "list: gpt-5-mini's cached price");
	llm_price_list("gpt-4", &p);
	CHECK(near(p.cached_in, p.in), "list: no cached price known: the input price");
	CHECK(p.from && strstr(p.from, "the built-in price list of " LLM_PRICE_LIST_DATE),
	      "list: its source names its date");
	const char *d = LLM_PRICE_LIST_DATE;
	CHECK(strlen(d) == 7 && d[4] == '-' && atoi(d) >= 2025 && atoi(d + 5) >= 1 &&
	      atoi(d + 5) <= 12, "list: the date is a year and a month");

	/* cached input at the cached rate */
	llm_price_list("gpt-4o-mini", &p);
	CHECK(near(llm_price_tokens(&p, 1000, 400, 100), (600 * 0.15 + 400 * 0.075 + 100 * 0.6) / 1e6),
	      "price: cached tokens at the cached rate");
	CHECK(near(llm_price_tokens(&p, 100, 400, 0), 100 * 0.075 / 1e6),
	      "price: cached tokens no more than the input");
}

static Llm *open_llm(const char *model)
{
	LlmConfig cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.url = "http://127.0.0.1:9/v1";
	cfg.model = model;
	cfg.no_cache = 1;
	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	if (!llm)
		printf("# %s\n", err.msg ? err.msg : "?");
	err_clear(&err);
	return llm;
}

static void test_settings(void)
{
	Llm *llm = open_llm("house-model");
	if (!llm)
		return;
	LlmPrice p;
	CHECK(!llm_price_of(llm, NULL, &p), "settings: a model off the list has no price");
	SuqlErr err = {0};
	CHECK(llm_set(llm, "llm.price_in", "2", &err) == SUQL_OK &&
	      llm_set(llm, "llm.price_out", "8", &err) == SUQL_OK, "settings: prices set");
	CHECK(llm_price_of(llm, NULL, &p) && near(p.in, 2) && near(p.out, 8) &&
	      near(p.cached_in, 2) && strcmp(p.from, "llm.price_in and llm.price_out") == 0,
	      "settings: the price set; cached input at the input price when none is set");
	const char *bad[] = {"abc", "-3", "-0.5", "nan", "inf", "1e999", "2x", ""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char name[100];
		snprintf(name, sizeof name, "settings: llm.price_in '%s' is refused, nothing changed",
		         bad[i]);
		err_clear(&err);
		SuqlStatus st = llm_set(llm, "llm.price_in", bad[i], &err);
		CHECK(st == SUQL_USAGE && err.msg && strstr(err.msg, "llm.price_in") &&
		      strstr(err.msg, "0 or more") && llm_price_of(llm, NULL, &p) && near(p.in, 2),
		      name);
	}
	err_clear(&err);
	CHECK(llm_set(llm, "llm.price_cached_in", "-2", &err) == SUQL_USAGE,
	      "settings: a negative cached price is refused");
	err_clear(&err);
	CHECK(llm_set(llm, "llm.price_cached_in", "0.5", &err) == SUQL_OK &&
	      llm_price_of(llm, NULL, &p) && near(p.cached_in, 0.5),
	      "settings: llm.price_cached_in");
	/* a proxy: the list's price for its name, else the chat model's */
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = LLM_VERIFY;
	c.proxy = 1;
	llm_set(llm, "llm.proxy", "gpt-4.1-nano", &err);
	CHECK(llm_price_of(llm, llm_spend_model(llm, &c), &p) && near(p.in, 0.10),
	      "settings: a proxy on the list at its own price");
	llm_set(llm, "llm.proxy", "house-small", &err);
	CHECK(llm_price_of(llm, llm_spend_model(llm, &c), &p) && near(p.in, 2),
	      "settings: a proxy off the list at the chat model's price");
	err_clear(&err);
	CHECK(llm_set(llm, "llm.price_in", "auto", &err) == SUQL_OK &&
	      !llm_price_of(llm, NULL, &p), "settings: auto goes back to the list's (none here)");

	/* llm.reasoning_tokens */
	CHECK(llm_reasoning_tokens(llm) == 0, "reasoning: auto is 0 for a model off the list");
	llm_set(llm, "llm.model", "gpt-5-mini", &err);
	CHECK(llm_reasoning_tokens(llm) == LLM_REASONING_DEFAULT,
	      "reasoning: auto allows LLM_REASONING_DEFAULT for gpt-5-mini");
	llm_set(llm, "llm.model", "o3-mini", &err);
	CHECK(llm_reasoning_tokens(llm) == LLM_REASONING_DEFAULT, "reasoning: and for o3-mini");
	llm_set(llm, "llm.model", "gpt-4.1-mini", &err);
	CHECK(llm_reasoning_tokens(llm) == 0, "reasoning: none for gpt-4.1-mini");
	err_clear(&err);
	CHECK(llm_set(llm, "llm.reasoning_tokens", "1000", &err) == SUQL_OK &&
	      llm_reasoning_tokens(llm) == 1000, "reasoning: set");
	err_clear(&err);
	CHECK(llm_set(llm, "llm.reasoning_tokens", "-5", &err) == SUQL_USAGE &&
	      llm_set(llm, "llm.reasoning_tokens", "many", &err) == SUQL_USAGE &&
	      llm_reasoning_tokens(llm) == 1000, "reasoning: a bad value refused, nothing changed");
	err_clear(&err);
	CHECK(llm_set(llm, "llm.reasoning_tokens", "auto", &err) == SUQL_OK &&
	      llm_reasoning_tokens(llm) == 0, "reasoning: auto again");
	err_clear(&err);
	llm_close(llm);
}

static json_t *js(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	if (!j)
		printf("# bad JSON in the test: %s\n", text);
	return j;
}

static void usage(const char *name, const char *reply, long in, long out, long cached,
                  long reasoning, int has)
{
	json_t *j = js(reply);
	LlmUsage u;
	int r = llm_usage_read(j, &u);
	CHECK(r == has && u.has == has && u.in == in && u.out == out && u.cached == cached &&
	      u.reasoning == reasoning, name);
	if (!(u.in == in && u.out == out && u.cached == cached && u.reasoning == reasoning))
		printf("# read %ld in, %ld out, %ld cached, %ld reasoning\n", u.in, u.out, u.cached,
		       u.reasoning);
	json_decref(j);
}

static void test_usage(void)
{
	usage("usage: OpenAI's, with its details",
	      "{\"usage\": {\"prompt_tokens\": 1200, \"completion_tokens\": 300, \"total_tokens\": "
	      "1500, \"prompt_tokens_details\": {\"cached_tokens\": 1024}, "
	      "\"completion_tokens_details\": {\"reasoning_tokens\": 256}}}",
	      1200, 300, 1024, 256, 1);
	usage("usage: without details", "{\"usage\": {\"prompt_tokens\": 10, \"completion_tokens\": 2}}",
	      10, 2, 0, 0, 1);
	usage("usage: a gateway's cache_read_input_tokens beside prompt_tokens",
	      "{\"usage\": {\"prompt_tokens\": 900, \"completion_tokens\": 20, "
	      "\"cache_read_input_tokens\": 800}}", 900, 20, 800, 0, 1);
	usage("usage: Anthropic's shape (input leaves the cache's reads and writes out)",
	      "{\"usage\": {\"input_tokens\": 50, \"cache_read_input_tokens\": 800, "
	      "\"cache_creation_input_tokens\": 100, \"output_tokens\": 40}}", 950, 40, 800, 0, 1);
	usage("usage: the Responses API's details",
	      "{\"usage\": {\"input_tokens\": 500, \"output_tokens\": 90, \"input_tokens_details\": "
	      "{\"cached_tokens\": 128}, \"output_tokens_details\": {\"reasoning_tokens\": 64}}}",
	      500, 90, 128, 64, 1);
	usage("usage: llama.cpp's timings",
	      "{\"usage\": {\"prompt_tokens\": 300, \"completion_tokens\": 5}, \"timings\": "
	      "{\"cache_n\": 256}}", 300, 5, 256, 0, 1);
	usage("usage: none", "{\"choices\": []}", 0, 0, 0, 0, 0);
	usage("usage: figures that are not numbers or are negative read as 0",
	      "{\"usage\": {\"prompt_tokens\": \"12\", \"completion_tokens\": -4, "
	      "\"prompt_tokens_details\": {\"cached_tokens\": -100}, "
	      "\"completion_tokens_details\": {\"reasoning_tokens\": 1.5}}}", 0, 0, 0, 0, 1);
}

/* The counters: cached input at the cached rate, cached never more than the input,
   reasoning never more than the output; the session's spend row agrees. */
static void test_counting(void)
{
	Llm *llm = open_llm("gpt-4o-mini");
	if (!llm)
		return;
	llm_stats_begin(llm);
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = LLM_VERIFY;
	LlmUsage u = {1000, 100, 400, 30, 1};
	llm_count_usage(llm, &c, &u, 0);
	LlmUsage lie = {100, 10, 5000, 900, 1};   /* an endpoint that misreports */
	llm_count_usage(llm, &c, &lie, 0);
	const LlmCounts *t = &llm_stats_statement(llm)->total;
	double want = (600 * 0.15 + 400 * 0.075 + 100 * 0.6) / 1e6 +
	              (0 * 0.15 + 100 * 0.075 + 10 * 0.6) / 1e6;
	CHECK(t->tokens_in == 1100 && t->tokens_cached == 500 && t->tokens_out == 110 &&
	      t->tokens_reasoning == 40, "counting: cached and reasoning no more than in and out");
	CHECK(near(llm_counts_usd(t), want), "counting: cached input at the cached rate");
	CHECK(c.tokens_in == 1100 && c.tokens_cached == 500 && c.tokens_reasoning == 40 &&
	      near(llm_call_usd(llm, &c), want), "counting: the call's own figures and dollars");
	const LlmSpend *rows;
	int n = llm_spend_rows(llm, &rows);
	CHECK(n == 1 && strcmp(rows[0].model, "gpt-4o-mini") == 0 &&
	      strcmp(rows[0].origin, "http://127.0.0.1:9/v1") == 0 && near(rows[0].n.usd, want) &&
	      rows[0].n.tokens_in == 1100, "spend: one row, the model at its endpoint");
	/* another model: a row of its own; a price set later does not rewrite the past */
	SuqlErr err = {0};
	llm_set(llm, "llm.model", "house-model", &err);
	LlmUsage v = {10, 10, 0, 0, 1};
	llm_count_usage(llm, &c, &v, 1);
	n = llm_spend_rows(llm, &rows);
	CHECK(n == 2 && strcmp(rows[1].model, "house-model") == 0 && rows[1].n.unpriced == 20 &&
	      llm_counts_usd(&rows[1].n) < 0 && rows[1].n.est_in == 10,
	      "spend: a model without a price: its tokens unpriced");
	llm_set(llm, "llm.price_in", "1", &err);
	llm_set(llm, "llm.price_out", "1", &err);
	CHECK(llm_counts_usd(&rows[1].n) < 0 && near(rows[0].n.usd, want),
	      "spend: each reply priced as it was counted");
	SBuf b = SBUF_INIT;
	llm_spend_report(llm, 1, &b);
	json_t *j = json_loads(sb_str(&b), 0, NULL);
	json_t *total = json_object_get(json_object_get(j, "cost"), "total");
	CHECK(j && json_array_size(json_object_get(json_object_get(j, "cost"), "models")) == 2 &&
	      json_is_null(json_object_get(total, "usd")) &&
	      near(json_real_value(json_object_get(total, "usd_priced")), want) &&
	      json_integer_value(json_object_get(total, "unpriced_tokens")) == 20,
	      "spend: as JSON, no total in dollars while some tokens had no price");
	json_decref(j);
	sb_free(&b);
	err_clear(&err);
	llm_close(llm);

	llm = open_llm("gpt-4o-mini");
	if (!llm)
		return;
	llm_spend_report(llm, 0, &b);
	CHECK(strstr(sb_str(&b), "nothing spent") != NULL, "spend: nothing spent, said so");
	sb_free(&b);
	llm_close(llm);
}

int main(void)
{
	test_list();
	test_settings();
	test_usage();
	test_counting();
	return unit_done();
}
