/*
 * llmcall.c: build/llmcall, a small command-line driver of the LLM client. It builds calls
 * from its arguments, runs them through llm_run with the same configuration rules as suql
 * (options, then SUQL_LLM_URL/OPENAI_BASE_URL, SUQL_LLM_KEY/OPENAI_API_KEY, SUQL_MODEL,
 * SUQL_EMBED_MODEL, then the config file), and prints one JSON line per call and, with
 * --stats, the counters. The tests and the benchmark drive the client through it.
 *
 *   llmcall [options] KIND        KIND: verify answer summary classify parse respond embed
 *
 * Exit status: 0 every call done or cancelled, 3 a call failed, 130 interrupted, 2 usage.
 */
#include "base/util.h"
#include "llm/llm.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs(
"usage: llmcall [options] KIND\n"
"  KIND                verify, answer, summary, classify, parse, respond or embed\n"
"configuration (else the environment, then the config file):\n"
"  --url URL           endpoint base URL (e.g. http://localhost:11434/v1)\n"
"  --model M           chat model          --embed-model M   embedding model\n"
"  --offline           use the offline lexical backend\n"
"  --no-cache          no cache file       --cache PATH      cache file\n"
"  --prompts DIR       prompt templates overriding the built-in ones\n"
"  --concurrency N     requests in flight  --timeout MS      per request\n"
"  --connect-timeout MS                    --retries N       retries per request\n"
"  --set KEY=VALUE     llm_set(KEY, VALUE) after opening (e.g. llm.backoff=10ms)\n"
"the task:\n"
"  -q, --question Q    the question        --op OP           =, <>, IN, NOT IN\n"
"  -e, --expected V    an expected value (repeatable)\n"
"  -p, --passage TEXT  a passage of the current candidate (repeatable)\n"
"  --item              start the next candidate\n"
"  -s, --subject TEXT  CLASSIFY: the literal; EMBED: the text\n"
"  -o, --option V      CLASSIFY: a permitted value (repeatable)\n"
"  -m, --message ROLE:TEXT   PARSE/RESPOND: a message (repeatable)\n"
"  --shape S           text yesno list date int real bool json\n"
"  --max-tokens N\n"
"running:\n"
"  -n COUNT            send COUNT distinct calls at once (copy i has \" #i\" appended to\n"
"                      its passages, subject and last message)\n"
"  --same              with -n: COUNT identical calls instead\n"
"  --cancel-after K    the done callback asks to stop after K calls finished\n"
"  --repeat R          run the batch R times (a new statement each time)\n"
"  --quiet             no per-call lines\n"
"  --stats             print the statement and session counters\n"
"  --describe          print the :llm report     --cache-info   print the :cache report\n"
"  --cache-clear       clear the cache first\n", f);
}

static void on_sigint(int sig)
{
	(void)sig;
	suql_interrupted = 1;
}

typedef struct Item {
	const char **p;
	int n;
} Item;

static int cancel_after = -1, finished;

static int on_done(void *ctx, LlmCall *c)
{
	(void)ctx;
	(void)c;
	finished++;
	return cancel_after >= 0 && finished >= cancel_after;
}

static const char *status_name(LlmCallStatus s)
{
	return s == LLM_DONE ? "done" : s == LLM_FAILED ? "failed" : s == LLM_CANCELLED ?
	       "cancelled" : "pending";
}

static json_t *js(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void print_call(int i, const LlmCall *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "call", json_integer(i));
	json_object_set_new(o, "status", json_string(status_name(c->status)));
	json_object_set_new(o, "cached", json_integer(c->cached));
	json_object_set_new(o, "attempts", json_integer(c->attempts));
	json_object_set_new(o, "tokens_in", json_integer(c->tokens_in));
	json_object_set_new(o, "tokens_out", json_integer(c->tokens_out));
	if (c->text)
		json_object_set_new(o, "text", json_string(c->text));
	if (c->kind == LLM_CLASSIFY && c->status == LLM_DONE) {
		json_t *l = json_array();
		for (int k = 0; k < c->nlabels; k++)
			json_array_append_new(l, json_string(c->labels[k]));
		json_object_set_new(o, "labels", l);
		json_object_set_new(o, "unreadable", json_boolean(c->unreadable));
	}
	if (c->vec)
		json_object_set_new(o, "dim", json_integer(c->dim));
	if (c->error)
		json_object_set_new(o, "error", json_string(c->error));
	if (c->nitems && c->status == LLM_DONE) {
		json_t *a = json_array();
		for (int k = 0; k < c->nitems; k++) {
			const LlmItem *it = &c->items[k];
			json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:i, s:b}", "text",
			                      js(it->text), "value", js(it->value), "warning",
			                      js(it->warning), "verdict", it->verdict, "unreadable",
			                      it->unreadable));
		}
		json_object_set_new(o, "items", a);
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	puts(s);
	free(s);
	json_decref(o);
}

static void print_counts(const char *what, const LlmStats *st)
{
	const LlmCounts *t = &st->total;
	printf("%s: calls=%ld cache_hits=%ld cancelled=%ld failed=%ld items=%ld requests=%ld "
	       "tokens_in=%ld tokens_out=%ld unreadable=%ld reasks=%ld splits=%ld retries=%ld\n",
	       what, t->calls, t->cache_hits, t->cancelled, t->failed, t->items, t->requests,
	       t->tokens_in, t->tokens_out, t->unreadable, t->by_reason[LLM_REQ_REASK],
	       t->by_reason[LLM_REQ_SPLIT], t->by_reason[LLM_REQ_RETRY]);
}

static int parse_kind(const char *s, LlmKind *k)
{
	for (int i = 0; i < LLM_NKINDS; i++)
		if (strcmp(s, llm_kind_name((LlmKind)i)) == 0) {
			*k = (LlmKind)i;
			return 1;
		}
	return 0;
}

static int parse_shape(const char *s, LlmShape *sh)
{
	static const char *const names[] = {"text", "yesno", "list", "date", "int", "real", "bool",
		"json", NULL};
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0) {
			*sh = (LlmShape)i;
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	LlmConfig cfg = {0};
	LlmCall proto = {0};
	int kind_set = 0, count = 1, same = 0, repeat = 1, quiet = 0, stats = 0, describe = 0;
	int cache_info = 0, cache_clear = 0;
	const char **expected = xcalloc((size_t)argc + 1, sizeof *expected);
	const char **options = xcalloc((size_t)argc + 1, sizeof *options);
	const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
	LlmMessage *msgs = xcalloc((size_t)argc + 1, sizeof *msgs);
	Item *items = xcalloc((size_t)argc + 2, sizeof *items);
	int nexp = 0, nopt = 0, nsets = 0, nmsgs = 0, nitems = 0;
	proto.shape = LLM_SHAPE_TEXT;
	int shape_set = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG() do { if (!v) { fprintf(stderr, "llmcall: %s needs a value\n", a); return 2; } i++; } while (0)
		if (strcmp(a, "--url") == 0) { ARG(); cfg.url = v; }
		else if (strcmp(a, "--model") == 0) { ARG(); cfg.model = v; }
		else if (strcmp(a, "--embed-model") == 0) { ARG(); cfg.embed_model = v; }
		else if (strcmp(a, "--offline") == 0) cfg.offline = 1;
		else if (strcmp(a, "--no-cache") == 0) cfg.no_cache = 1;
		else if (strcmp(a, "--cache") == 0) { ARG(); cfg.cache_path = v; }
		else if (strcmp(a, "--prompts") == 0) { ARG(); cfg.prompts_dir = v; }
		else if (strcmp(a, "--concurrency") == 0) { ARG(); cfg.concurrency = atoi(v); }
		else if (strcmp(a, "--timeout") == 0) { ARG(); cfg.timeout_ms = atoi(v); }
		else if (strcmp(a, "--connect-timeout") == 0) { ARG(); cfg.connect_timeout_ms = atoi(v); }
		else if (strcmp(a, "--retries") == 0) { ARG(); cfg.retries = atoi(v); }
		else if (strcmp(a, "--set") == 0) { ARG(); sets[nsets++] = v; }
		else if (strcmp(a, "-q") == 0 || strcmp(a, "--question") == 0) { ARG(); proto.question = v; }
		else if (strcmp(a, "--op") == 0) { ARG(); proto.op = v; }
		else if (strcmp(a, "-e") == 0 || strcmp(a, "--expected") == 0) { ARG(); expected[nexp++] = v; }
		else if (strcmp(a, "-p") == 0 || strcmp(a, "--passage") == 0) {
			ARG();
			if (nitems == 0)
				nitems = 1;
			Item *it = &items[nitems - 1];
			it->p = xrealloc(it->p, (size_t)(it->n + 1) * sizeof *it->p);
			it->p[it->n++] = v;
		}
		else if (strcmp(a, "--item") == 0) { if (nitems == 0 || items[nitems - 1].n) nitems++; }
		else if (strcmp(a, "-s") == 0 || strcmp(a, "--subject") == 0) { ARG(); proto.subject = v; }
		else if (strcmp(a, "-o") == 0 || strcmp(a, "--option") == 0) { ARG(); options[nopt++] = v; }
		else if (strcmp(a, "-m") == 0 || strcmp(a, "--message") == 0) {
			ARG();
			const char *colon = strchr(v, ':');
			if (!colon) {
				fprintf(stderr, "llmcall: a message is ROLE:TEXT\n");
				return 2;
			}
			msgs[nmsgs].role = xstrndup(v, (size_t)(colon - v));
			msgs[nmsgs++].content = colon + 1;
		}
		else if (strcmp(a, "--shape") == 0) {
			ARG();
			if (!parse_shape(v, &proto.shape)) {
				fprintf(stderr, "llmcall: unknown shape '%s'\n", v);
				return 2;
			}
			shape_set = 1;
		}
		else if (strcmp(a, "--max-tokens") == 0) { ARG(); proto.max_tokens = atoi(v); }
		else if (strcmp(a, "-n") == 0) { ARG(); count = atoi(v); }
		else if (strcmp(a, "--same") == 0) same = 1;
		else if (strcmp(a, "--cancel-after") == 0) { ARG(); cancel_after = atoi(v); }
		else if (strcmp(a, "--repeat") == 0) { ARG(); repeat = atoi(v); }
		else if (strcmp(a, "--quiet") == 0) quiet = 1;
		else if (strcmp(a, "--stats") == 0) stats = 1;
		else if (strcmp(a, "--describe") == 0) describe = 1;
		else if (strcmp(a, "--cache-info") == 0) cache_info = 1;
		else if (strcmp(a, "--cache-clear") == 0) cache_clear = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
		else if (a[0] != '-' && !kind_set) {
			if (!parse_kind(a, &proto.kind)) {
				fprintf(stderr, "llmcall: unknown kind '%s'\n", a);
				return 2;
			}
			kind_set = 1;
		} else {
			fprintf(stderr, "llmcall: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
#undef ARG
	}
	if (!shape_set && proto.kind == LLM_VERIFY)
		proto.shape = LLM_SHAPE_YESNO;
	if (!shape_set && proto.kind == LLM_CLASSIFY)
		proto.shape = LLM_SHAPE_LIST;
	if (nitems > 0 && items[nitems - 1].n == 0)
		nitems--;
	if (count < 1)
		count = 1;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);

	SuqlErr err = {0};
	Llm *llm = llm_open(&cfg, &err);
	if (!llm) {
		fprintf(stderr, "llmcall: error: %s\n", err.msg);
		err_clear(&err);
		return 2;
	}
	int rc = 0;
	for (int i = 0; i < nsets && rc == 0; i++) {
		char *k = xstrdup(sets[i]);
		char *eq = strchr(k, '=');
		if (!eq || llm_set(llm, (*eq = '\0', k), eq + 1, &err) != SUQL_OK) {
			fprintf(stderr, "llmcall: error: %s\n", eq ? err.msg : "--set takes KEY=VALUE");
			rc = 2;
		}
		free(k);
	}
	if (rc == 0 && cache_clear && llm_cache_clear(llm, &err) != SUQL_OK) {
		fprintf(stderr, "llmcall: error: %s\n", err.msg);
		rc = 2;
	}
	if (rc == 0 && describe) {
		SBuf b = SBUF_INIT;
		llm_describe(llm, &b);
		printf("label: %s\n%s", llm_label(llm), sb_str(&b));
		sb_free(&b);
	}

	/* the calls: copy i of the prototype, its strings made distinct unless --same */
	LlmCall *calls = xcalloc((size_t)count, sizeof *calls);
	LlmCall **ptrs = xcalloc((size_t)count, sizeof *ptrs);
	char **owned = xcalloc((size_t)count * (size_t)(argc + 4), sizeof *owned);
	int nowned = 0;
	for (int c = 0; c < count; c++) {
		LlmCall *k = &calls[c];
		*k = proto;
		k->expected = expected;
		k->nexpected = nexp;
		k->options = options;
		k->noptions = nopt;
		k->items = nitems ? xcalloc((size_t)nitems, sizeof *k->items) : NULL;
		k->nitems = nitems;
		LlmMessage *m = nmsgs ? xcalloc((size_t)nmsgs, sizeof *m) : NULL;
		if (nmsgs)
			memcpy(m, msgs, (size_t)nmsgs * sizeof *m);
		k->msgs = m;
		k->nmsgs = nmsgs;
		int distinct = count > 1 && !same;
		for (int t = 0; t < nitems; t++) {
			const char **p = xcalloc((size_t)items[t].n + 1, sizeof *p);
			for (int q = 0; q < items[t].n; q++)
				p[q] = distinct ? (owned[nowned++] = xprintf("%s #%d", items[t].p[q], c))
				                : items[t].p[q];
			k->items[t].passages = p;
			k->items[t].npassages = items[t].n;
		}
		if (distinct && proto.subject)
			k->subject = owned[nowned++] = xprintf("%s #%d", proto.subject, c);
		if (distinct && nmsgs)
			m[nmsgs - 1].content = owned[nowned++] = xprintf("%s #%d", msgs[nmsgs - 1].content, c);
		ptrs[c] = k;
	}
	if (rc == 0 && kind_set) {
		for (int r = 0; r < repeat; r++) {
			llm_stats_begin(llm);
			finished = 0;
			for (int c = 0; c < count; c++)
				llm_call_clear(&calls[c]);
			SuqlStatus st = llm_run(llm, ptrs, count, on_done, NULL, &err);
			if (!quiet)
				for (int c = 0; c < count; c++)
					print_call(c, &calls[c]);
			if (stats)
				print_counts("statement", llm_stats_statement(llm));
			if (st != SUQL_OK) {
				fprintf(stderr, "llmcall: error: %s\n", err.msg);
				rc = st == SUQL_INTERRUPT ? 130 : 3;
				break;
			}
		}
		if (stats)
			print_counts("session", llm_stats_session(llm));
	}
	if (cache_info) {
		SBuf b = SBUF_INIT;
		llm_cache_describe(llm, &b);
		fputs(sb_str(&b), stdout);
		sb_free(&b);
	}
	for (int c = 0; c < count; c++) {
		llm_call_clear(&calls[c]);
		for (int t = 0; t < calls[c].nitems; t++)
			free((void *)calls[c].items[t].passages);
		free(calls[c].items);
		free((void *)calls[c].msgs);
	}
	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	for (int i = 0; i < nmsgs; i++)
		free((void *)msgs[i].role);
	for (int t = 0; t < nitems + 1; t++)
		free(items[t].p);
	free(owned);
	free(calls);
	free(ptrs);
	free(items);
	free(msgs);
	free(sets);
	free(options);
	free(expected);
	llm_close(llm);
	err_clear(&err);
	fflush(stdout);
	return rc;
}
