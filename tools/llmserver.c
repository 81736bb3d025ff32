/*
 * llmserver.c: build/llmserver, a loopback OpenAI-compatible server for tests and
 * benchmarks. It serves POST .../chat/completions and .../embeddings on 127.0.0.1, one
 * thread per connection (keep-alive), records every request as a JSON line, and replies
 * from canned text, from a rules file (status, headers, body, delay, a fault, or an echo of
 * the request's headers or body, as a proxy that repeats the request in its error), or in
 * `auto` mode, where it reads a suql prompt and answers in the shape it asks for, deciding
 * deterministically from a hash of each candidate's text (for a semantic join's match
 * prompts, of the pair, or from a list of the pairs that match; with --factor, of a
 * property both sides are classified into, which it also proposes). With --noise it is wrong
 * on a set share of values, the same way in every request (llmserver_noise.h). With
 * --logprobs give, a request asking for log-probabilities gets them, each yes/no word of the
 * reply at a probability that --unsure-words chooses per candidate (calibrated: lower for
 * the values --noise made wrong). A request with "stream": true gets
 * its chat completion as server-sent events, a word at a time. GET /stats reports the request
 * count and the most requests it ever had in flight at once. Run with --help for options;
 * doc/llm.md describes the rules file.
 */
#include "base/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs(
"usage: llmserver [options]\n"
"  --port N            port on 127.0.0.1 (default 0: any free port)\n"
"  --port-file FILE    write the chosen port to FILE once listening\n"
"  --log FILE          append one JSON line per request: seq, t_ms, method, path,\n"
"                      headers (Authorization included), body, inflight, max_inflight\n"
"  --delay MS          wait MS before every reply\n"
"  --reply-file FILE   reply to every request with FILE's contents (HTTP 200)\n"
"  --rules FILE        scripted replies: a JSON array of rules (see doc/llm.md); a\n"
"                      rule's echo repeats the request's headers or body in the reply\n"
"  --yes-rate P        auto mode: share of candidates judged yes (default 0.5)\n"
"  --yes-words A,B     auto mode, yes/no: yes when the candidate's text holds one of\n"
"                      the words (any case), else no (instead of by a hash);\n"
"                      --yes-word W is the same with one word\n"
"  --flip MODEL:P      auto mode: MODEL's yes/no verdicts are turned around for a\n"
"                      share P of texts (by a hash of the text and the prompt's wording)\n"
"  --pairs FILE        auto mode, match prompts: the pairs that match, one a line,\n"
"                      LEFT<tab>RIGHT (every other pair does not); without it a pair\n"
"                      matches by a hash of the two values (--yes-rate)\n"
"  --factor P:V1,V2[:different]  auto mode: a join's factor prompt is answered with the\n"
"                      property P, its values and the match (same unless :different);\n"
"                      a constrained answer is the first value whose word the text\n"
"                      holds (else none); without --pairs, a pair matches when both\n"
"                      values hold the same first value word (whatever the match said,\n"
"                      so :different proposes a wrong factorization). Without --factor,\n"
"                      the factor prompt is answered {\"factors\": false}\n"
"  --factor-initial    with --factor whose values are single letters: a value's class\n"
"                      is its first letter (any case), not the first value word it holds\n"
"  --factor-opposite   with --factor: a pair matches when the two values' classes\n"
"                      differ, and the factorization proposed says so (different;\n"
"                      :different then proposes same, a wrong one)\n"
"  --key KEY           require 'Authorization: Bearer KEY' (else HTTP 401)\n"
"  --models A,B        the models that exist (others: HTTP 404); default: any\n"
"  --reject-json-mode  answer HTTP 400 to requests that carry response_format\n"
"  --logprobs MODE     a request with \"logprobs\": true gets, with MODE give, the\n"
"                      reply's tokens with their logprobs and top_logprobs (each yes/no\n"
"                      word at 0.97, the opposite at the rest); calibrated: as give, each\n"
"                      verdict at 0.99, or at 0.6 when --noise made it wrong; reject:\n"
"                      HTTP 400 naming logprobs; malformed: a block that is not one;\n"
"                      default: none\n"
"  --noise P           auto mode: wrong on a share P of values (a candidate's text, a\n"
"                      pair's value, a classified literal), chosen by a hash of the value\n"
"                      and the seed, the same in any request: a verdict turned around, a\n"
"                      pair's verdict when either value is wrong (--factor: compared by\n"
"                      their wrong classes), another offered value, class, number or\n"
"                      date; free-text answers and summaries stay right\n"
"  --noise-values FILE auto mode: the values (one a line) the model is wrong about, as\n"
"                      --noise's are, exactly those (with --noise, those and its share)\n"
"  --noise-seed S      the seed of --noise's hash (a whole number; default 1)\n"
"  --noise-scope W     all (default), or classes: only classifications are wrong\n"
"                      (constrained answers, --factor's classes, ENUM values), verdicts\n"
"                      on texts and pairs stay right\n"
"  --unsure-words A,B  --logprobs give: the verdict of a candidate whose text holds one\n"
"                      of the words (any case) at 0.55 instead of 0.97\n"
"  --reject-schema     answer HTTP 400 to requests that carry a JSON schema (in any\n"
"                      dialect: response_format json_schema, json_schema, format)\n"
"  --sloppy D          auto mode: reply like a sloppy model (a batch's list one entry\n"
"                      short, a classification in prose) unless the request carries an\n"
"                      object schema in dialect D (openai, llamacpp, ollama or any)\n"
"  --usage-tokens N    report N prompt tokens for every chat completion (default:\n"
"                      the request's bytes / 4 + 1), as a provider whose tokenizer\n"
"                      counts far more than suql estimates\n"
"  --prompt-cache D    auto mode: report the prompt tokens a provider's prefix cache\n"
"                      would serve (the longest prefix shared with an earlier prompt, at\n"
"                      4 bytes a token), as D reports them: openai\n"
"                      (usage.prompt_tokens_details.cached_tokens), llamacpp\n"
"                      (timings.cache_n) or anthropic (usage.cache_read_input_tokens)\n"
"  --reasoning N       every completion reports N hidden reasoning tokens\n"
"                      (usage.completion_tokens_details.reasoning_tokens), counted in\n"
"                      its completion_tokens as a reasoning model's are\n"
"Without --reply-file or --rules, and when no rule matches, replies are automatic: a\n"
"suql prompt is answered in the shape it asks for (yes/no, {\"answers\": [...]} with one\n"
"entry per numbered candidate, a date, a number, a summary, {\"values\": [...]}).\n"
"GET /stats returns {\"requests\": N, \"inflight\": K, \"max_inflight\": M}; GET /models\n"
"lists the models of --models (else one, \"auto\"), neither counted nor logged.\n"
"A request with \"stream\": true gets the completion as server-sent events, one\n"
"chunk per word (a rule may pace them with stream_delay_ms, or stop sending after\n"
"stream_hold_after chunks and hold the connection open).\n"
"Batches (OpenAI's Batch API): POST /files, POST /batches, GET /batches/ID,\n"
"POST /batches/ID/cancel, GET /files/ID/content; each line is answered by the\n"
"rules (--rules: as a request to the line's url with the line's body, an echo\n"
"repeating the headers of the request that completed the batch), else with its\n"
"automatic reply. GET /batchstats returns {\"batched\": N, ...}.\n"
"  --batch-polls K     a batch is in_progress until K reads of it (default 1)\n"
"  --batch-corrupt N[:K]  line N of the first batch's output gets a reply in prose\n"
"                      (with :K, only entry K of its list of answers is unreadable)\n"
"  --batch-dup N       line N of the first batch's output comes twice, the second\n"
"                      with yes and no swapped\n"
"  --batch-foreign K   the first batch's output has K more lines, with custom_ids\n"
"                      that were never sent\n"
"  --batch-garbage     the first batch's output file is not JSONL\n"
"  --batch-delay MS    wait MS before sending an output file\n"
"  --no-batch          HTTP 404 to /files and /batches\n"
"SIGTERM or SIGINT stops the server.\n", f);
}

typedef struct Rule {
	char *match;        /* substring of the body */
	regex_t re;
	int has_re;
	char *path;         /* the request path ends with this */
	int times;          /* -1: unlimited */
	int status;
	json_t *headers;    /* object of name -> string */
	char *body;         /* raw body */
	char *content;      /* assistant content, wrapped in a chat completion */
	int automatic;
	int delay_ms;
	char *fault;        /* close, truncate, garbage, hang */
	int stream_delay_ms;     /* a streamed reply: pause between chunks */
	int stream_hold_after;   /* a streamed reply: after this many chunks, hold (-1: never) */
	char *echo;         /* headers, body, request: the reply repeats what the request sent */
	char *echo_as;      /* message (default), text, json, detail, content */
	long echo_skip, echo_max;   /* bytes of the echo left out at its start; most kept */
} Rule;

static Rule *rules;
static int nrules;
static char *canned;
static int delay_ms;
static double yes_rate = 0.5;
static uint64_t *pairs;      /* --pairs: hashes of the matching pairs, sorted */
static size_t npairs;
static int have_pairs;
static char *factor_prop;      /* --factor: the property, its values, the match proposed */
static char **factor_vals;
static int nfactor_vals;
static int factor_different;
static int factor_initial;     /* --factor-initial: a value's class is its first letter */
static int factor_opposite;    /* --factor-opposite: a pair matches when the classes differ */
static char **yes_words;     /* --yes-words */
static int nyes_words;
static const char *need_key;
static char **models;
static int nmodels;
static int reject_json;
static int logprobs_mode;    /* --logprobs: 0 none, 1 give, 2 reject, 3 malformed,
                                4 calibrated (llmserver_noise.h) */
static char **unsure_words;  /* --unsure-words */
static int nunsure_words;
static int reject_schema;    /* --reject-schema: HTTP 400 to a request that carries one */
static int sloppy = -1;      /* --sloppy D: the dialect whose schema makes replies valid */
static long usage_tokens;    /* --usage-tokens N: the prompt tokens every completion reports */
static FILE *log_file;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long nrequests, inflight, max_inflight;
static double t_start;
static volatile sig_atomic_t stopping;

/* Case-insensitive strstr (strcasestr is a GNU extension). */
static const char *ci_find(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return n ? NULL : hay;
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* ---- rules ---- */

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int load_rules(const char *path)
{
	json_error_t je;
	json_t *a = json_load_file(path, 0, &je);
	if (!a || !json_is_array(a)) {
		fprintf(stderr, "llmserver: %s: line %d: %s\n", path, je.line,
		        a ? "expected a JSON array of rules" : je.text);
		json_decref(a);
		return 0;
	}
	nrules = (int)json_array_size(a);
	rules = xcalloc((size_t)nrules + 1, sizeof *rules);
	for (int i = 0; i < nrules; i++) {
		json_t *o = json_array_get(a, (size_t)i);
		Rule *r = &rules[i];
		r->match = jstr(o, "match") ? xstrdup(jstr(o, "match")) : NULL;
		r->path = jstr(o, "path") ? xstrdup(jstr(o, "path")) : NULL;
		if (jstr(o, "regex")) {
			if (regcomp(&r->re, jstr(o, "regex"), REG_EXTENDED | REG_NOSUB) != 0) {
				fprintf(stderr, "llmserver: rule %d: bad regex\n", i + 1);
				return 0;
			}
			r->has_re = 1;
		}
		json_t *t = json_object_get(o, "times");
		r->times = json_is_integer(t) ? (int)json_integer_value(t) : -1;
		json_t *s = json_object_get(o, "status");
		r->status = json_is_integer(s) ? (int)json_integer_value(s) : 200;
		r->headers = json_incref(json_object_get(o, "headers"));
		if (jstr(o, "body"))
			r->body = xstrdup(jstr(o, "body"));
		else if (json_object_get(o, "json"))
			r->body = json_dumps(json_object_get(o, "json"), JSON_COMPACT | JSON_ENCODE_ANY);
		r->content = jstr(o, "content") ? xstrdup(jstr(o, "content")) : NULL;
		json_t *rp = json_object_get(o, "repeat");
		if (r->content && json_is_integer(rp) && json_integer_value(rp) > 1) {
			/* the content said N times over: a reply as long as a test wants */
			size_t len = strlen(r->content), times = (size_t)json_integer_value(rp);
			char *big = xmalloc(len * times + 1);
			for (size_t k = 0; k < times; k++)
				memcpy(big + k * len, r->content, len);
			big[len * times] = '\0';
			free(r->content);
			r->content = big;
		}
		r->automatic = json_is_true(json_object_get(o, "auto"));
		json_t *d = json_object_get(o, "delay_ms");
		r->delay_ms = json_is_integer(d) ? (int)json_integer_value(d) : 0;
		r->fault = jstr(o, "fault") ? xstrdup(jstr(o, "fault")) : NULL;
		json_t *sd = json_object_get(o, "stream_delay_ms");
		r->stream_delay_ms = json_is_integer(sd) ? (int)json_integer_value(sd) : 0;
		json_t *sh = json_object_get(o, "stream_hold_after");
		r->stream_hold_after = json_is_integer(sh) ? (int)json_integer_value(sh) : -1;
		r->echo = jstr(o, "echo") ? xstrdup(jstr(o, "echo")) : NULL;
		r->echo_as = jstr(o, "echo_as") ? xstrdup(jstr(o, "echo_as")) : NULL;
		json_t *es = json_object_get(o, "echo_skip"), *em = json_object_get(o, "echo_max");
		r->echo_skip = json_is_integer(es) ? (long)json_integer_value(es) : 0;
		r->echo_max = json_is_integer(em) ? (long)json_integer_value(em) : -1;
	}
	json_decref(a);
	return 1;
}

/* The first rule matching this request with uses left (used up atomically). */
/* The first rule with times left that matches the request (its times counted down); the
   caller holds mu. */
static Rule *pick_rule_locked(const char *path, const char *body)
{
	Rule *hit = NULL;
	for (int i = 0; i < nrules && !hit; i++) {
		Rule *r = &rules[i];
		if (r->times == 0)
			continue;
		if (r->match && !strstr(body, r->match))
			continue;
		if (r->has_re && regexec(&r->re, body, 0, NULL, 0) != 0)
			continue;
		if (r->path) {
			size_t lp = strlen(path), lr = strlen(r->path);
			if (lp < lr || strcmp(path + lp - lr, r->path) != 0)
				continue;
		}
		if (r->times > 0)
			r->times--;
		hit = r;
	}
	return hit;
}

static Rule *pick_rule(const char *path, const char *body)
{
	pthread_mutex_lock(&mu);
	Rule *hit = pick_rule_locked(path, body);
	pthread_mutex_unlock(&mu);
	return hit;
}

/* ---- automatic answers ---- */

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static char *first_sentence(const char *t)
{
	size_t n = 0;
	while (t[n] && n < 160 && !(t[n] == '.' && (t[n + 1] == ' ' || t[n + 1] == '\n' ||
	                                            !t[n + 1])) && t[n] != '\n')
		n++;
	return xstrndup(t, n + (t[n] == '.'));
}

enum { A_YESNO, A_DATE, A_INT, A_REAL, A_SUMMARY, A_TEXT, A_CHOICE };

/* --flip MODEL:P: that model's yes/no verdicts are turned around for a share P of texts,
   chosen by a hash of the text and the prompt's wording (so two wordings err apart). */
static char *flip_model;
static double flip_rate;

static int flipped(const char *text, const char *model, const char *prompt)
{
	if (!flip_model || !model || strcmp(model, flip_model) != 0)
		return 0;
	SBuf b = SBUF_INIT;
	sb_puts(&b, strstr(prompt, "Statement to check") ? "wording 2\n" : "wording 1\n");
	sb_puts(&b, text);
	uint64_t h = fnv(sb_str(&b), b.len);
	sb_free(&b);
	return (double)((h >> 7) % 10000) < flip_rate * 10000;
}

/* --factor: the index of the first value of the property whose word the text holds, -1. */
static int factor_class(const char *text)
{
	for (int i = 0; i < nfactor_vals && factor_initial; i++)
		if (text[0] && strncasecmp(text, factor_vals[i], 1) == 0 && !factor_vals[i][1])
			return i;
	if (factor_initial)
		return -1;
	for (int i = 0; i < nfactor_vals; i++)
		if (ci_find(text, factor_vals[i]))
			return i;
	return -1;
}

#include "llmserver_noise.h"

/* n (> 1) of them: the right one for text, or with --noise a wrong one when text is one the
   model is wrong about (wrong: noisy() for a classification, noisy_answer() otherwise). */
static size_t pick(const char *text, size_t right, size_t n, int wrong)
{
	return wrong && n > 1 ? noise_other(text, right, n) : right;
}

static json_t *answer_for(int mode, const char *text, json_t *choices, int flip)
{
	uint64_t h = fnv(text, strlen(text));
	int wrong = noisy_answer(text);
	char buf[64];
	switch (mode) {
	case A_CHOICE: {   /* one of the values offered: a classification of the text */
		if (factor_prop) {
			int c = noisy_factor_class(text);
			return json_string(c < 0 ? "none" : factor_vals[c]);
		}
		size_t n = json_array_size(choices);
		return json_incref(json_array_get(choices, pick(text, (size_t)(h % n), n,
		                                                noisy(text))));
	}
	case A_YESNO:
		if (nyes_words) {
			int yes = 0;
			for (int i = 0; i < nyes_words && !yes; i++)
				yes = ci_find(text, yes_words[i]) != NULL;
			return json_string((yes != flip) != wrong ? "yes" : "no");
		}
		return json_string((((double)(h % 10000) < yes_rate * 10000) != flip) != wrong ? "yes"
		                                                                                 : "no");
	case A_DATE:
		snprintf(buf, sizeof buf, "%04d-%02d-%02d", 1900 + (int)pick(text, h % 120, 120, wrong),
		         1 + (int)((h >> 8) % 12), 1 + (int)((h >> 16) % 28));
		return json_string(buf);
	case A_INT:
		return json_integer((json_int_t)pick(text, h % 100, 100, wrong));
	case A_REAL:
		return json_real((double)pick(text, h % 1000, 1000, wrong) / 10.0);
	default: {
		char *f = first_sentence(text);
		json_t *j = json_string(f);
		free(f);
		return j;
	}
	}
}

/* The values a constrained answer offers ("exactly one of the values of this JSON list,
   written as given: [...]"), as a JSON array; NULL when the prompt offers none. */
static json_t *offered(const char *prompt)
{
	const char *mark = "exactly one of the values of this JSON list, written as given: ";
	const char *p = strstr(prompt, mark);
	if (!p)
		return NULL;
	p += strlen(mark);
	json_error_t e;
	json_t *arr = json_loadb(p, strlen(p), JSON_DISABLE_EOF_CHECK, &e);
	if (!json_is_array(arr) || json_array_size(arr) == 0) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static uint64_t pair_hash(const char *l, const char *r)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, l);
	sb_putc(&b, '\t');
	sb_puts(&b, r);
	uint64_t h = fnv(sb_str(&b), b.len);
	sb_free(&b);
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int load_pairs(const char *path)
{
	char *text = util_read_file(path, NULL);
	if (!text) {
		perror(path);
		return 0;
	}
	have_pairs = 1;
	for (char *s = NULL, *line = strtok_r(text, "\n", &s); line; line = strtok_r(NULL, "\n", &s)) {
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		pairs = xrealloc(pairs, (npairs + 1) * sizeof *pairs);
		pairs[npairs++] = pair_hash(line, tab + 1);
	}
	qsort(pairs, npairs, sizeof *pairs, cmp_u64);
	free(text);
	return 1;
}

/* A semantic join's verdict on a pair: listed in --pairs, else by the pair's hash, or with
   --factor by the two values' classes; with --noise turned around when either value is one
   the model is wrong about (--factor: compared by the wrong values' wrong classes). */
static const char *pair_verdict(const char *l, const char *r)
{
	uint64_t h = pair_hash(l, r);
	int yes;
	if (have_pairs) {
		yes = bsearch(&h, pairs, npairs, sizeof *pairs, cmp_u64) != NULL;
	} else if (factor_prop) {
		int a = pair_factor_class(l), b = pair_factor_class(r);
		return a >= 0 && b >= 0 && (a == b) != factor_opposite ? "yes" : "no";
	} else {
		yes = (double)(h % 10000) < yes_rate * 10000;
	}
	return yes != (noisy_answer(l) || noisy_answer(r)) ? "yes" : "no";
}

/* The JSON value after "marker\n" (suql's prompts give their data as JSON: a string for a
   text or value, a list for candidates and permitted values), or NULL. The last occurrence
   of the marker counts, as the data comes last. */
static json_t *json_section(const char *s, const char *marker)
{
	const char *a = NULL;
	for (const char *p = s; (p = strstr(p, marker)) != NULL; p++)
		a = p;
	if (!a)
		return NULL;
	a += strlen(marker);
	while (*a == '\n' || *a == ' ')
		a++;
	json_error_t e;
	return json_loadb(a, strlen(a), JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &e);
}

static char *json_section_str(const char *s, const char *marker)
{
	json_t *j = json_section(s, marker);
	char *r = json_is_string(j) ? xstrdup(json_string_value(j)) : NULL;
	json_decref(j);
	return r;
}

#include "llmserver_extract.h"

/* A semantic join's factor prompt: the --factor proposal, or that it does not factor. */
static char *factor_reply(void)
{
	json_t *o;
	if (!factor_prop) {
		o = json_pack("{s:b}", "factors", 0);
	} else {
		json_t *v = json_array();
		for (int i = 0; i < nfactor_vals; i++)
			json_array_append_new(v, json_string(factor_vals[i]));
		o = json_pack("{s:b, s:s, s:o, s:s}", "factors", 1, "property", factor_prop, "values",
		              v, "match", factor_different != factor_opposite ? "different" : "same");
	}
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static char *auto_content(const char *prompt, const char *model)
{
	if (strstr(prompt, "### Left values\n") && strstr(prompt, "### Right values\n"))
		return factor_reply();
	json_t *pl = json_section(prompt, "### Pairs\n");
	if (json_is_array(pl)) {   /* a join's pairs of several left values: [[left, right], ...] */
		json_t *arr = json_array(), *v;
		size_t i;
		json_array_foreach(pl, i, v) {
			const char *l = json_string_value(json_array_get(v, 0));
			const char *r = json_string_value(json_array_get(v, 1));
			json_array_append_new(arr, json_string(pair_verdict(l ? l : "", r ? r : "")));
		}
		json_decref(pl);
		json_t *obj = json_pack("{s:o}", "answers", arr);
		char *s = json_dumps(obj, JSON_COMPACT);
		json_decref(obj);
		return s;
	}
	json_decref(pl);
	char *left = json_section_str(prompt, "### Left value\n");
	if (left) {   /* a semantic join's match prompt: single, or a list of candidates */
		char *right = json_section_str(prompt, "### Right value\n");
		char *s;
		if (right) {
			s = xstrdup(pair_verdict(left, right));
		} else {
			json_t *arr = json_array(), *cands = json_section(prompt, "### Candidates\n"), *v;
			size_t i;
			json_array_foreach(cands, i, v)
				json_array_append_new(arr, json_string(pair_verdict(left,
				                      json_string_value(v) ? json_string_value(v) : "")));
			json_decref(cands);
			json_t *obj = json_pack("{s:o}", "answers", arr);
			s = json_dumps(obj, JSON_COMPACT);
			json_decref(obj);
		}
		free(left);
		free(right);
		return s;
	}
	if (strstr(prompt, EXTRACT_TEXTS))
		return extract_content(prompt);
	if (strstr(prompt, "### Permitted values\n")) {
		char *val = json_section_str(prompt, "### Value\n");
		json_t *opts = json_section(prompt, "### Permitted values\n"), *v;
		json_t *chosen = json_array();
		size_t i;
		json_t *others = json_array();   /* the permitted values not chosen */
		json_array_foreach(opts, i, v) {
			const char *o = json_string_value(v);
			if (o && val && *val && (ci_find(o, val) || ci_find(val, o)))
				json_array_append_new(chosen, json_string(o));
			else if (o)
				json_array_append_new(others, json_string(o));
		}
		if (val && noisy(val)) {   /* a wrong classification: another value, or none */
			json_array_clear(chosen);
			size_t k = json_array_size(others);
			if (k)
				json_array_append(chosen, json_array_get(others, (size_t)(noise_hash(val) % k)));
		}
		json_decref(others);
		json_t *obj = json_pack("{s:o}", "values", chosen);
		char *s = json_dumps(obj, JSON_COMPACT);
		json_decref(obj);
		free(val);
		json_decref(opts);
		return s;
	}
	json_t *choices = offered(prompt);
	int mode = choices ? A_CHOICE : strstr(prompt, "Summarize") ? A_SUMMARY : strstr(prompt, "YYYY-MM-DD") ? A_DATE :
	           strstr(prompt, "whole number") ? A_INT : strstr(prompt, "a number") ? A_REAL :
	           strstr(prompt, "yes or no") ? A_YESNO : A_TEXT;
	json_t *cands = json_section(prompt, "### Candidates\n");
	if (!json_is_array(cands)) {
		json_decref(cands);
		char *text = json_section_str(prompt, "### Text\n");
		if (!text) {
			json_decref(choices);
			return xstrdup("I can only answer suql's prompts in auto mode.");
		}
		json_t *a = answer_for(mode, text, choices, flipped(text, model, prompt));
		json_decref(choices);
		char *s = json_is_string(a) ? xstrdup(json_string_value(a))
		                            : json_dumps(a, JSON_ENCODE_ANY);
		json_decref(a);
		free(text);
		return s;
	}
	json_t *arr = json_array(), *v;
	size_t i;
	json_array_foreach(cands, i, v) {
		const char *text = json_string_value(v) ? json_string_value(v) : "";
		json_array_append_new(arr, answer_for(mode, text, choices, flipped(text, model, prompt)));
	}
	json_decref(cands);
	json_decref(choices);
	json_t *obj = json_pack("{s:o}", "answers", arr);
	char *s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	return s;
}

/* --prompt-cache openai|llamacpp: the prompts seen so far (their messages' text, the last
   PCACHE_N), and the longest prefix a new prompt shares with one of them, in tokens of 4
   bytes, as a provider's prompt cache would serve it. */
#define PCACHE_N 256
static int pcache_mode;   /* 0: off, 1: openai (usage.prompt_tokens_details), 2: llamacpp,
                             3: anthropic (usage.cache_read_input_tokens) */
static char *pcache[PCACHE_N];
static int npcache;

static long pcache_hit(const char *prompt)
{
	size_t best = 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < npcache && i < PCACHE_N; i++) {
		size_t k = 0;
		while (pcache[i][k] && pcache[i][k] == prompt[k])
			k++;
		if (k > best)
			best = k;
	}
	int slot = npcache++ % PCACHE_N;
	free(pcache[slot]);
	pcache[slot] = xstrdup(prompt);
	pthread_mutex_unlock(&mu);
	return (long)(best / 4);
}

/* Add the cached prompt tokens to a completion body, where the --prompt-cache dialect puts
   them. */
static char *with_cached(char *body, long cached)
{
	json_t *o = json_loads(body, 0, NULL);
	if (!o)
		return body;
	if (pcache_mode == 1)
		json_object_set_new(json_object_get(o, "usage"), "prompt_tokens_details",
		                    json_pack("{s:I}", "cached_tokens", (json_int_t)cached));
	else if (pcache_mode == 3)   /* as gateways pass Anthropic's on, beside prompt_tokens */
		json_object_set_new(json_object_get(o, "usage"), "cache_read_input_tokens",
		                    json_integer((json_int_t)cached));
	else
		json_object_set_new(o, "timings", json_pack("{s:I}", "cache_n", (json_int_t)cached));
	free(body);
	body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return body;
}

/* ---- schemas ---- */

enum { D_OPENAI, D_LLAMACPP, D_OLLAMA, D_ANY };
static const char *const dialects[] = {"openai", "llamacpp", "ollama", "any", NULL};

/* The dialect of the JSON schema a request carries (D_OPENAI: response_format json_schema,
   D_LLAMACPP: a json_schema member, D_OLLAMA: format holding an object), or -1. */
static int schema_sent(json_t *req)
{
	json_t *rf = json_object_get(req, "response_format");
	if (json_is_object(json_object_get(json_object_get(rf, "json_schema"), "schema")))
		return D_OPENAI;
	if (json_is_object(json_object_get(req, "json_schema")))
		return D_LLAMACPP;
	if (json_is_object(json_object_get(req, "format")))
		return D_OLLAMA;
	return -1;
}

/* The schema of a request in dialect d, when it is there. */
static json_t *schema_of(json_t *req, int d)
{
	switch (d) {
	case D_OPENAI:
		return json_object_get(json_object_get(json_object_get(req, "response_format"),
		                                       "json_schema"), "schema");
	case D_LLAMACPP:
		return json_object_get(req, "json_schema");
	default:
		return json_object_get(req, "format");
	}
}

/* --sloppy: a schema in the dialect (any: in any) constrains the reply; the schema must be
   an object one (the reply's JSON is an object). */
static int schema_fits(json_t *req, int d)
{
	int got = schema_sent(req);
	if (got < 0 || (d != D_ANY && got != d))
		return 0;
	json_t *sc = schema_of(req, got);
	return json_is_string(json_object_get(sc, "type")) &&
	       strcmp(json_string_value(json_object_get(sc, "type")), "object") == 0;
}

/* What a sloppy model replies when nothing constrains it: a batch's list one entry short,
   a classification in prose; other replies as they are. Takes content. */
static char *sloppy_content(char *content)
{
	json_t *j = json_loads(content, 0, NULL);
	json_t *a = json_object_get(j, "answers");
	char *out = content;
	if (json_is_array(a) && json_array_size(a) > 0) {
		json_array_remove(a, json_array_size(a) - 1);
		char *d = json_dumps(j, JSON_COMPACT);
		out = xprintf("Sure! Here are the answers: %s", d);
		free(d);
		free(content);
	} else if (json_is_array(json_object_get(j, "values"))) {
		out = xstrdup("I think it means one of the permitted values.");
		free(content);
	}
	json_decref(j);
	return out;
}

/* Whether s[0..n) is a verdict word (yes, no, true, false; any case), and its opposite
   written in the same case (No, NO, no). */
static int verdict_word(const char *s, size_t n, const char **opposite)
{
	static const char *const w[][4] = {{"yes", "no", "No", "NO"}, {"no", "yes", "Yes", "YES"},
	                                   {"true", "false", "False", "FALSE"},
	                                   {"false", "true", "True", "TRUE"}};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
		if (strlen(w[i][0]) != n || strncasecmp(s, w[i][0], n) != 0)
			continue;
		int upper = isupper((unsigned char)s[0]) != 0;
		int all = upper && n > 1 && isupper((unsigned char)s[1]);
		*opposite = all ? w[i][3] : upper ? w[i][2] : w[i][1];
		return 1;
	}
	return 0;
}

static json_t *lp_entry(const char *t, size_t n, double lp)
{
	return json_pack("{s:s%, s:f}", "token", t, n, "logprob", lp);
}

/* The logprobs block of a reply (choices[0].logprobs): its tokens are its runs of letters
   and the runs of other characters between them. */
static json_t *logprobs_of(const char *content, const char *prompt)
{
	if (logprobs_mode == 3)
		return json_pack("{s:[{s:i}]}", "content", "token", 5);
	/* the verdicts' texts: the candidates, or the text; a join's: its right values, each
	   about a pair with the left value */
	json_t *cands = json_section(prompt, "### Candidates\n");
	char *left = json_section_str(prompt, "### Left value\n");
	char *single = json_is_array(cands) ? NULL : json_section_str(prompt, left ? "### Right value\n"
	                                                                           : "### Text\n");
	json_t *toks = json_array();
	size_t nverdict = 0;
	for (size_t i = 0, n = strlen(content); i < n;) {
		int letter = isalpha((unsigned char)content[i]) != 0;
		size_t j = i;
		while (j < n && (isalpha((unsigned char)content[j]) != 0) == letter)
			j++;
		const char *opp = NULL;
		json_t *e;
		if (letter && verdict_word(content + i, j - i, &opp)) {
			const char *text = single ? single
			                   : json_string_value(json_array_get(cands, nverdict));
			double p = verdict_prob_of(left, text, logprobs_mode == 4);
			nverdict++;
			e = lp_entry(content + i, j - i, log(p));
			json_object_set_new(e, "top_logprobs", json_pack("[o, o]",
			                    lp_entry(content + i, j - i, log(p)),
			                    lp_entry(opp, strlen(opp), log(1 - p))));
		} else {
			e = lp_entry(content + i, j - i, 0);
			json_object_set_new(e, "top_logprobs", json_pack("[o]",
			                    lp_entry(content + i, j - i, 0)));
		}
		json_array_append_new(toks, e);
		i = j;
	}
	json_decref(cands);
	free(single);
	free(left);
	return json_pack("{s:o}", "content", toks);
}

/* The contents of a chat request's messages, each followed by a newline, appended to b:
   the text automatic mode reads. */
static void prompt_of(json_t *req, SBuf *b)
{
	json_t *m;
	size_t i;
	json_array_foreach(json_object_get(req, "messages"), i, m) {
		const char *c = json_string_value(json_object_get(m, "content"));
		if (c) {
			sb_puts(b, c);
			sb_putc(b, '\n');
		}
	}
}

/* --reasoning N: each completion reports N hidden reasoning tokens, part of its
   completion_tokens (as OpenAI's reasoning models do). */
static long reasoning;

/* The prompt tokens a completion reports for a request of len bytes: len / 4 + 1, or
   --usage-tokens N. */
static json_int_t prompt_tokens(size_t len)
{
	return usage_tokens > 0 ? (json_int_t)usage_tokens : (json_int_t)(len / 4 + 1);
}

/* The usage of a completion: prompt tokens as above, the content's at 4 bytes a token plus
   the reasoning tokens of --reasoning, reported in completion_tokens_details. */
static json_t *usage_of(size_t prompt_len, const char *content)
{
	json_int_t in = prompt_tokens(prompt_len);
	json_int_t out = (json_int_t)(strlen(content) / 4 + 1) + (json_int_t)reasoning;
	json_t *u = json_pack("{s:I, s:I, s:I}", "prompt_tokens", in, "completion_tokens", out,
	                      "total_tokens", in + out);
	if (reasoning > 0)
		json_object_set_new(u, "completion_tokens_details",
		                    json_pack("{s:I}", "reasoning_tokens", (json_int_t)reasoning));
	return u;
}

static char *completion(const char *model, const char *content, size_t prompt_len, json_t *lp)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:[{s:i, s:{s:s, s:s}, s:s}], s:o}",
		"id", "chatcmpl-test", "object", "chat.completion", "created", (json_int_t)time(NULL),
		"model", model ? model : "test",
		"choices", "index", 0, "message", "role", "assistant", "content", content,
		"finish_reason", "stop", "usage", usage_of(prompt_len, content));
	if (lp)
		json_object_set_new(json_array_get(json_object_get(o, "choices"), 0), "logprobs", lp);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static char *embedding(const char *model, const char *input)
{
	json_t *v = json_array();
	uint64_t h = fnv(input, strlen(input));
	for (int i = 0; i < 8; i++) {
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		json_array_append_new(v, json_real((double)((h >> 33) % 2000) / 1000.0 - 1.0));
	}
	json_t *o = json_pack("{s:s, s:[{s:s, s:i, s:o}], s:s, s:{s:I, s:I}}", "object", "list",
		"data", "object", "embedding", "index", 0, "embedding", v, "model",
		model ? model : "test", "usage", "prompt_tokens", (json_int_t)(strlen(input) / 4 + 1),
		"total_tokens", (json_int_t)(strlen(input) / 4 + 1));
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* ---- HTTP ---- */

typedef struct Request {
	char method[16];
	char path[512];
	json_t *headers;
	char *body;
	size_t blen;
	int close;
} Request;

/* A rule's echo: what the request sent (its headers as "name: value" lines, its body, or
   both), cut as the rule says, in the reply's body as the rule says: a server that
   repeats the request in its error, as some proxies do (suql must not show the
   credentials it finds there). */
static void echo_reply(const Rule *r, const Request *rq, char **body, char **content)
{
	SBuf e = SBUF_INIT;
	if (strcmp(r->echo, "body") != 0) {
		const char *k;
		json_t *v;
		json_object_foreach(rq->headers, k, v)
			sb_printf(&e, "%s: %s\n", k, json_string_value(v) ? json_string_value(v) : "");
	}
	if (strcmp(r->echo, "headers") != 0)
		sb_putn(&e, rq->body ? rq->body : "", rq->blen);
	size_t skip = r->echo_skip > 0 ? (size_t)r->echo_skip : 0;
	if (skip > e.len)
		skip = e.len;
	size_t keep = e.len - skip;
	if (r->echo_max >= 0 && (size_t)r->echo_max < keep)
		keep = (size_t)r->echo_max;
	char *cut = xstrndup(sb_str(&e) + skip, keep);
	sb_free(&e);
	const char *as = r->echo_as ? r->echo_as : "message";
	json_t *o = NULL;
	if (strcmp(as, "text") == 0) {
		*body = cut;
		return;
	} else if (strcmp(as, "content") == 0) {
		*content = cut;
		return;
	} else if (strcmp(as, "json") == 0) {   /* the echo as a JSON string, inside the message */
		json_t *str = json_string_nocheck(cut);
		char *once = json_dumps(str, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH);
		json_decref(str);
		o = json_pack("{s:{s:s}}", "error", "message", once ? once : "");
		free(once);
	} else if (strcmp(as, "detail") == 0) {
		o = json_pack("{s:s}", "detail", cut);
	} else {
		o = json_pack("{s:{s:s, s:s}}", "error", "message", cut, "type", "invalid_request_error");
	}
	free(cut);
	*body = o ? json_dumps(o, JSON_COMPACT | JSON_ESCAPE_SLASH) : xstrdup("{}");
	json_decref(o);
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return 0;
		p += w;
		n -= (size_t)w;
	}
	return 1;
}

/* Append what the connection has to buf; 0 at its end or on an error. */
static int recv_more(int fd, SBuf *buf)
{
	char tmp[8192];
	for (;;) {
		ssize_t r = recv(fd, tmp, sizeof tmp, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		sb_putn(buf, tmp, (size_t)r);
		return 1;
	}
}

/* Read one request from the connection; 0 at end of connection (rq then holds nothing to
   free). buf keeps extra bytes. */
static int read_request(int fd, SBuf *buf, Request *rq)
{
	memset(rq, 0, sizeof *rq);
	char *eoh;
	while (!(buf->s && (eoh = strstr(buf->s, "\r\n\r\n")) != NULL))
		if (!recv_more(fd, buf) || buf->len > (1u << 20))
			return 0;
	size_t hlen = (size_t)(eoh - buf->s) + 4;
	char *head = xstrndup(buf->s, hlen);
	rq->headers = json_object();
	size_t clen = 0;
	int expect = 0;
	char *save = NULL;
	char *line = strtok_r(head, "\r\n", &save);
	if (!line || sscanf(line, "%15s %511s", rq->method, rq->path) != 2) {
		free(head);
		json_decref(rq->headers);
		return 0;
	}
	while ((line = strtok_r(NULL, "\r\n", &save)) != NULL) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ')
			v++;
		for (char *p = line; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		json_object_set_new(rq->headers, line, json_string(v));
		if (strcmp(line, "content-length") == 0)
			clen = strtoul(v, NULL, 10);
		if (strcmp(line, "expect") == 0 && ci_find(v, "100-continue"))
			expect = 1;
		if (strcmp(line, "connection") == 0 && ci_find(v, "close"))
			rq->close = 1;
	}
	free(head);
	if (expect)
		send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	while (buf->len < hlen + clen)
		if (!recv_more(fd, buf)) {
			json_decref(rq->headers);
			return 0;
		}
	rq->body = xstrndup(buf->s + hlen, clen);
	rq->blen = clen;
	size_t rest = buf->len - hlen - clen;
	memmove(buf->s, buf->s + hlen + clen, rest);
	sb_truncate(buf, rest);
	return 1;
}

static void log_request(const Request *rq, long seq, long now_inflight, long maxi)
{
	if (!log_file)
		return;
	json_t *o = json_pack("{s:I, s:f, s:s, s:s, s:O, s:s%, s:I, s:I}", "seq", (json_int_t)seq,
		"t_ms", util_now_ms() - t_start, "method", rq->method, "path", rq->path,
		"headers", rq->headers, "body", rq->body, rq->blen, "inflight",
		(json_int_t)now_inflight, "max_inflight", (json_int_t)maxi);
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (s) {
		fputs(s, log_file);
		fputc('\n', log_file);
		fflush(log_file);
	}
	free(s);
	json_decref(o);
}

static void put_head(SBuf *h, int status, const char *ctype, json_t *headers, size_t blen)
{
	const char *reason = status == 200 ? "OK" : status == 400 ? "Bad Request" :
	                     status == 401 ? "Unauthorized" : status == 404 ? "Not Found" :
	                     status == 429 ? "Too Many Requests" : status >= 500 ? "Server Error" :
	                     "Status";
	sb_printf(h, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	          "Connection: keep-alive\r\n", status, reason, ctype, blen);
	const char *k;
	json_t *v;
	json_object_foreach(headers, k, v)
		if (json_is_string(v))
			sb_printf(h, "%s: %s\r\n", k, json_string_value(v));
	sb_puts(h, "\r\n");
}

static int send_reply(int fd, int status, json_t *headers, const char *body, size_t blen,
                      size_t send_len)
{
	SBuf h = SBUF_INIT;
	put_head(&h, status, "application/json", headers, blen);
	sb_putn(&h, body, send_len);   /* one write: no Nagle wait between head and body */
	int ok = send_all(fd, h.s, h.len);
	sb_free(&h);
	return ok;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Keep the connection open without answering until the client gives up (or 10 minutes). */
static void hold(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	for (int waited = 0; waited < 600000 && !stopping; waited += 200)
		if (poll(&p, 1, 200) > 0)
			break;   /* the client gave up */
}

static void sse_event(SBuf *b, json_t *chunk)
{
	char *s = json_dumps(chunk, JSON_COMPACT);
	sb_printf(b, "data: %s\n\n", s);
	free(s);
	json_decref(chunk);
}

static json_t *sse_chunk(const char *model, json_t *delta, const char *finish)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:[{s:i, s:o, s:o}]}", "id", "chatcmpl-test",
		"object", "chat.completion.chunk", "created", (json_int_t)time(NULL),
		"model", model ? model : "test", "choices", "index", 0, "delta", delta,
		"finish_reason", finish ? json_string(finish) : json_null());
}

/* A chat completion as server-sent events: a chunk per word of content (a word and the
   blanks after it), then the finish, the usage when asked for, and [DONE]. The events go
   out one by one, paced and held as the rule says; "truncate" stops halfway. Returns 0
   when the connection must be closed. */
static int send_stream(int fd, const Rule *rule, json_t *headers, const char *model,
                       const char *content, size_t prompt_len, int usage)
{
	SBuf b = SBUF_INIT;
	size_t *ends = NULL;
	int n = 0;
	sse_event(&b, sse_chunk(model, json_pack("{s:s, s:s}", "role", "assistant", "content", ""),
	                        NULL));
	ends = xrealloc(ends, (size_t)(n + 1) * sizeof *ends);
	ends[n++] = b.len;
	for (const char *p = content; *p;) {
		size_t w = strcspn(p, " \n");
		w += strspn(p + w, " \n");
		char *piece = xstrndup(p, w);
		sse_event(&b, sse_chunk(model, json_pack("{s:s}", "content", piece), NULL));
		free(piece);
		ends = xrealloc(ends, (size_t)(n + 1) * sizeof *ends);
		ends[n++] = b.len;
		p += w;
	}
	sse_event(&b, sse_chunk(model, json_object(), "stop"));
	if (usage)
		sse_event(&b, json_pack("{s:s, s:s, s:[], s:o}", "id", "chatcmpl-test",
			"object", "chat.completion.chunk", "choices", "usage",
			usage_of(prompt_len, content)));
	sb_puts(&b, "data: [DONE]\n\n");
	ends = xrealloc(ends, (size_t)(n + 1) * sizeof *ends);
	ends[n++] = b.len;

	SBuf h = SBUF_INIT;
	put_head(&h, 200, "text/event-stream", headers, b.len);
	int ok = send_all(fd, h.s, h.len), keep = 1;
	sb_free(&h);
	int hold_after = rule ? rule->stream_hold_after : -1;
	int pace = rule ? rule->stream_delay_ms : 0;
	int truncate = rule && rule->fault && strcmp(rule->fault, "truncate") == 0;
	size_t sent = 0;
	for (int i = 0; i < n && ok; i++) {
		if (i > 0 && pace > 0)
			sleep_ms(pace);
		if (truncate && i == n / 2) {
			keep = 0;
			break;
		}
		ok = send_all(fd, b.s + sent, ends[i] - sent);
		sent = ends[i];
		if (hold_after >= 0 && i == hold_after) {   /* the role chunk, then that many words */
			hold(fd);
			keep = 0;
			break;
		}
	}
	free(ends);
	sb_free(&b);
	return ok && keep;
}

/* Serve one request; returns 0 when the connection must be closed. */
#include "llmserver_batch.h"

static int serve(int fd, Request *rq)
{
	if (strcmp(rq->method, "GET") == 0 && strstr(rq->path, "/stats")) {
		pthread_mutex_lock(&mu);
		char *s = xprintf("{\"requests\": %ld, \"inflight\": %ld, \"max_inflight\": %ld}",
		                  nrequests, inflight, max_inflight);
		pthread_mutex_unlock(&mu);
		int ok = send_reply(fd, 200, NULL, s, strlen(s), strlen(s));
		free(s);
		return ok;
	}
	if (strcmp(rq->method, "GET") == 0 && strstr(rq->path, "/models")) {
		/* the models of --models, else one called "auto" */
		json_t *data = json_array();
		for (int i = 0; i < (nmodels ? nmodels : 1); i++)
			json_array_append_new(data, json_pack("{s:s, s:s}", "id",
			                                      nmodels ? models[i] : "auto", "object",
			                                      "model"));
		json_t *o = json_pack("{s:s, s:o}", "object", "list", "data", data);
		char *s = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		int ok = send_reply(fd, 200, NULL, s, strlen(s), strlen(s));
		free(s);
		return ok;
	}
	pthread_mutex_lock(&mu);
	long seq = ++nrequests;
	long now = ++inflight;
	if (inflight > max_inflight)
		max_inflight = inflight;
	long maxi = max_inflight;
	log_request(rq, seq, now, maxi);
	pthread_mutex_unlock(&mu);
	int bkeep;
	if (batch_serve(fd, rq, &bkeep)) {
		pthread_mutex_lock(&mu);
		inflight--;
		pthread_mutex_unlock(&mu);
		return bkeep && !rq->close;
	}

	json_t *req = json_loadb(rq->body, rq->blen, 0, NULL);
	const char *model = json_string_value(json_object_get(req, "model"));
	int status = 200, keep = 1, d = delay_ms;
	json_t *hdrs = NULL;
	char *body = NULL, *content = NULL;   /* content: the reply of a chat completion */
	long cached = 0;                      /* --prompt-cache: prompt tokens it would serve */
	const char *fault = NULL;
	const char *auth = json_string_value(json_object_get(rq->headers, "authorization"));
	int is_embed = strstr(rq->path, "/embeddings") != NULL;
	Rule *rule = canned ? NULL : pick_rule(rq->path, rq->body);

	if (need_key && (!auth || strncmp(auth, "Bearer ", 7) != 0 || strcmp(auth + 7, need_key))) {
		status = 401;
		body = xstrdup("{\"error\": {\"message\": \"Incorrect API key provided\", "
		               "\"type\": \"invalid_request_error\", \"code\": \"invalid_api_key\"}}");
	} else if (!req || !json_is_object(req)) {
		status = 400;
		body = xstrdup("{\"error\": {\"message\": \"the body is not a JSON object\"}}");
	}
	if (!body && nmodels > 0) {
		int known = 0;
		for (int i = 0; i < nmodels && model; i++)
			known |= strcmp(models[i], model) == 0;
		if (!known) {
			status = 404;
			json_t *e = json_pack("{s:{s:s+, s:s, s:s}}", "error", "message", "The model `",
			                      model ? model : "", "type", "invalid_request_error", "code",
			                      "model_not_found");
			body = json_dumps(e, JSON_COMPACT);
			json_decref(e);
		}
	}
	if (!body && reject_schema && schema_sent(req) >= 0) {
		status = 400;
		body = xstrdup("{\"error\": {\"message\": \"unsupported parameter: json schema\"}}");
	}
	if (!body && reject_json && json_object_get(req, "response_format")) {
		status = 400;
		body = xstrdup("{\"error\": {\"message\": \"unsupported parameter: response_format\"}}");
	}
	int asks_lp = json_is_true(json_object_get(req, "logprobs"));
	if (!body && logprobs_mode == 2 && asks_lp) {
		status = 400;
		body = xstrdup("{\"error\": {\"message\": \"logprobs is not supported for this model\"}}");
	}
	if (!body && canned) {
		body = xstrdup(canned);
	} else if (!body && rule && !rule->automatic) {
		status = rule->status;
		hdrs = rule->headers;
		d = rule->delay_ms ? rule->delay_ms : d;
		fault = rule->fault;
		if (rule->echo)
			echo_reply(rule, rq, &body, &content);
		else if (rule->content)
			content = xstrdup(rule->content);
		else if (rule->body)
			body = xstrdup(rule->body);
		/* a rule with neither (a status, a delay or a fault alone) gets the auto body */
	}
	if (!body && !content) {   /* auto */
		if (is_embed) {
			body = embedding(model, json_string_value(json_object_get(req, "input")) ?
			                 json_string_value(json_object_get(req, "input")) : "");
		} else {
			SBuf prompt = SBUF_INIT;
			prompt_of(req, &prompt);
			content = auto_content(sb_str(&prompt), model);
			if (sloppy >= 0 && !schema_fits(req, sloppy))
				content = sloppy_content(content);
			if (pcache_mode)
				cached = pcache_hit(sb_str(&prompt));
			sb_free(&prompt);
		}
	}
	int stream = content && status == 200 && json_is_true(json_object_get(req, "stream"));
	if (content && !stream) {
		json_t *lp = NULL;
		if (asks_lp && (logprobs_mode == 1 || logprobs_mode >= 3)) {
			SBuf prompt = SBUF_INIT;
			prompt_of(req, &prompt);
			lp = logprobs_of(content, sb_str(&prompt));
			sb_free(&prompt);
		}
		body = completion(model, content, rq->blen, lp);
	}
	if (content && !stream && pcache_mode)
		body = with_cached(body, cached);
	if (d > 0)
		sleep_ms(d);
	size_t blen = body ? strlen(body) : 0;
	if (stream && !(fault && (strcmp(fault, "close") == 0 || strcmp(fault, "hang") == 0 ||
	                          strcmp(fault, "garbage") == 0))) {
		json_t *so = json_object_get(req, "stream_options");
		keep = send_stream(fd, rule && !rule->automatic ? rule : NULL, hdrs, model, content,
		                   rq->blen, json_is_true(json_object_get(so, "include_usage")));
	} else if (fault && strcmp(fault, "close") == 0) {
		keep = 0;
	} else if (fault && strcmp(fault, "hang") == 0) {
		hold(fd);
		keep = 0;
	} else if (fault && strcmp(fault, "truncate") == 0) {
		send_reply(fd, status, hdrs, body, blen, blen / 2);
		keep = 0;
	} else if (fault && strcmp(fault, "garbage") == 0) {
		const char *g = "<html>\x01\x02 not json {{{";
		send_reply(fd, status, hdrs, g, strlen(g), strlen(g));
	} else {
		keep = send_reply(fd, status, hdrs, body, blen, blen);
	}
	free(body);
	free(content);
	json_decref(req);
	pthread_mutex_lock(&mu);
	inflight--;
	pthread_mutex_unlock(&mu);
	return keep && !rq->close;
}

static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	SBuf buf = SBUF_INIT;
	Request rq;
	while (!stopping && read_request(fd, &buf, &rq)) {
		int keep = serve(fd, &rq);
		free(rq.body);
		json_decref(rq.headers);
		if (!keep)
			break;
	}
	sb_free(&buf);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	int port = 0;
	const char *port_file = NULL, *log_path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = strcmp(a, "--port") == 0 || strcmp(a, "--port-file") == 0 ||
		            strcmp(a, "--log") == 0 || strcmp(a, "--delay") == 0 ||
		            strcmp(a, "--reply-file") == 0 || strcmp(a, "--rules") == 0 ||
		            strcmp(a, "--yes-rate") == 0 || strcmp(a, "--key") == 0 ||
		            strcmp(a, "--models") == 0 || strcmp(a, "--pairs") == 0 ||
		            strcmp(a, "--yes-words") == 0 || strcmp(a, "--yes-word") == 0 ||
		            strcmp(a, "--flip") == 0 || strcmp(a, "--logprobs") == 0 ||
		            strcmp(a, "--unsure-words") == 0 || strcmp(a, "--batch-polls") == 0 ||
		            strcmp(a, "--batch-corrupt") == 0 || strcmp(a, "--factor") == 0 ||
		            strcmp(a, "--batch-dup") == 0 || strcmp(a, "--batch-foreign") == 0 ||
		            strcmp(a, "--batch-delay") == 0 || strcmp(a, "--usage-tokens") == 0 ||
		            strcmp(a, "--noise") == 0 || strcmp(a, "--noise-seed") == 0 ||
		            strcmp(a, "--noise-scope") == 0 || strcmp(a, "--noise-values") == 0;
		if (takes && !v) {
			fprintf(stderr, "llmserver: %s needs a value\n", a);
			return 2;
		}
		int bad = 0;
		if (noise_option(a, v, &bad)) {
			if (bad)
				return 2;
		} else if (strcmp(a, "--port") == 0)
			port = atoi(v);
		else if (strcmp(a, "--port-file") == 0)
			port_file = v;
		else if (strcmp(a, "--log") == 0)
			log_path = v;
		else if (strcmp(a, "--delay") == 0)
			delay_ms = atoi(v);
		else if (strcmp(a, "--reply-file") == 0) {
			if (!(canned = util_read_file(v, NULL))) {
				perror(v);
				return 2;
			}
		} else if (strcmp(a, "--rules") == 0) {
			if (!load_rules(v))
				return 2;
		} else if (strcmp(a, "--flip") == 0) {
			const char *colon = strrchr(v, ':');
			if (!colon) {
				fprintf(stderr, "llmserver: --flip takes MODEL:SHARE\n");
				return 2;
			}
			flip_model = xstrndup(v, (size_t)(colon - v));
			flip_rate = atof(colon + 1);
		} else if (strcmp(a, "--yes-words") == 0 || strcmp(a, "--yes-word") == 0) {
			char *list = xstrdup(v);
			yes_words = xcalloc(strlen(v) + 1, sizeof *yes_words);
			for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s))
				yes_words[nyes_words++] = xstrdup(t);
			free(list);
		} else if (strcmp(a, "--logprobs") == 0) {
			logprobs_mode = strcmp(v, "give") == 0 ? 1 : strcmp(v, "reject") == 0 ? 2
			                : strcmp(v, "malformed") == 0 ? 3 : strcmp(v, "calibrated") == 0
			                ? 4 : -1;
			if (logprobs_mode < 0) {
				fprintf(stderr, "llmserver: --logprobs give, calibrated, reject or "
				        "malformed\n");
				return 2;
			}
		} else if (strcmp(a, "--unsure-words") == 0) {
			char *list = xstrdup(v);
			unsure_words = xcalloc(strlen(v) + 1, sizeof *unsure_words);
			for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s))
				unsure_words[nunsure_words++] = xstrdup(t);
			free(list);
		} else if (strcmp(a, "--pairs") == 0) {
			if (!load_pairs(v))
				return 2;
		} else if (strcmp(a, "--factor") == 0) {
			char *spec = xstrdup(v), *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c1 || (c2 && strcmp(c2 + 1, "different") != 0)) {
				fprintf(stderr, "llmserver: --factor takes PROPERTY:V1,V2[:different]\n");
				return 2;
			}
			*c1 = 0;
			if (c2)
				*c2 = 0;
			factor_different = c2 != NULL;
			factor_prop = xstrdup(spec);
			factor_vals = xcalloc(strlen(c1 + 1) + 1, sizeof *factor_vals);
			for (char *sv = NULL, *t = strtok_r(c1 + 1, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
				factor_vals[nfactor_vals++] = xstrdup(t);
			free(spec);
		} else if (strcmp(a, "--yes-rate") == 0)
			yes_rate = atof(v);
		else if (strcmp(a, "--key") == 0)
			need_key = v;
		else if (strcmp(a, "--usage-tokens") == 0) {
			char *end;
			usage_tokens = strtol(v, &end, 10);
			if (*end || usage_tokens < 1) {
				fprintf(stderr, "llmserver: --usage-tokens takes a whole number above 0\n");
				return 2;
			}
		} else if (strcmp(a, "--batch-polls") == 0)
			batch_polls = atoi(v);
		else if (strcmp(a, "--batch-corrupt") == 0) {
			batch_corrupt = atoi(v);
			batch_corrupt_entry = strchr(v, ':') ? atoi(strchr(v, ':') + 1) : 0;
		} else if (strcmp(a, "--batch-dup") == 0)
			batch_dup = atoi(v);
		else if (strcmp(a, "--batch-foreign") == 0)
			batch_foreign = atoi(v);
		else if (strcmp(a, "--batch-delay") == 0)
			batch_delay_ms = atoi(v);
		else if (strcmp(a, "--batch-garbage") == 0)
			batch_garbage = 1;
		else if (strcmp(a, "--no-batch") == 0)
			batch_off = 1;
		else if (strcmp(a, "--models") == 0) {
			char *list = xstrdup(v);
			models = xcalloc(strlen(v) + 1, sizeof *models);
			for (char *s = NULL, *t = strtok_r(list, ",", &s); t; t = strtok_r(NULL, ",", &s))
				models[nmodels++] = xstrdup(t);
			free(list);
		} else if (strcmp(a, "--factor-initial") == 0)
			factor_initial = 1;
		else if (strcmp(a, "--factor-opposite") == 0)
			factor_opposite = 1;
		else if (strcmp(a, "--reject-json-mode") == 0)
			reject_json = 1;
		else if (strcmp(a, "--reject-schema") == 0)
			reject_schema = 1;
		else if (strcmp(a, "--sloppy") == 0 && i + 1 < argc) {
			const char *m = argv[++i];
			for (int k = 0; dialects[k]; k++)
				if (strcmp(dialects[k], m) == 0)
					sloppy = k;
			if (sloppy < 0) {
				fprintf(stderr, "llmserver: --sloppy openai, llamacpp, ollama or any\n");
				return 2;
			}
		} else if (strcmp(a, "--prompt-cache") == 0 && i + 1 < argc) {
			const char *m = argv[++i];
			pcache_mode = strcmp(m, "openai") == 0 ? 1 : strcmp(m, "llamacpp") == 0 ? 2 :
			              strcmp(m, "anthropic") == 0 ? 3 : -1;
			if (pcache_mode < 0) {
				fprintf(stderr, "llmserver: --prompt-cache openai, llamacpp or anthropic\n");
				return 2;
			}
		} else if (strcmp(a, "--reasoning") == 0 && i + 1 < argc) {
			reasoning = atol(argv[++i]);
			if (reasoning < 0) {
				fprintf(stderr, "llmserver: --reasoning takes a number of tokens, 0 or more\n");
				return 2;
			}
		}
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "llmserver: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (takes)
			i++;
	}
	if (log_path && !(log_file = fopen(log_path, "a"))) {
		perror(log_path);
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 512) != 0) {
		perror("llmserver: bind");
		return 1;
	}
	socklen_t sl = sizeof sa;
	getsockname(ls, (struct sockaddr *)&sa, &sl);
	if (port_file) {
		char *tmp = xprintf("%s.tmp", port_file);
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d\n", ntohs(sa.sin_port)) < 0 || fclose(f) != 0 ||
		    rename(tmp, port_file) != 0) {
			perror(port_file);
			return 2;
		}
		free(tmp);
	}
	struct sigaction sg;
	memset(&sg, 0, sizeof sg);
	sg.sa_handler = on_signal;
	sigaction(SIGTERM, &sg, NULL);
	sigaction(SIGINT, &sg, NULL);
	signal(SIGPIPE, SIG_IGN);
	t_start = util_now_ms();
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	while (!stopping) {
		struct pollfd p = {ls, POLLIN, 0};
		if (poll(&p, 1, 200) <= 0)
			continue;
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		pthread_t th;
		if (pthread_create(&th, &at, conn_main, (void *)(intptr_t)fd) != 0)
			close(fd);
	}
	close(ls);
	if (log_file)
		fclose(log_file);
	return 0;
}
