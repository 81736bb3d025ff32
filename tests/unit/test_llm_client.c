/* The LLM client apart from HTTP: configuration (options, environment, config file,
   precedence, llm_set), key masking, the offline backend's reading of its answers, SHA-256 keys, the cache
   file and the memo, de-duplication in a batch, and cancellation through the done
   callback (with the offline backend, so no server is needed). */
#include "base/util.h"
#include "llm/llm.h"
#include "llm/llm_int.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void clear_env(void)
{
	unsetenv("SUQL_LLM_URL");
	unsetenv("OPENAI_BASE_URL");
	unsetenv("SUQL_LLM_KEY");
	unsetenv("OPENAI_API_KEY");
	unsetenv("SUQL_MODEL");
	unsetenv("SUQL_EMBED_MODEL");
}

static void test_config(void)
{
	SuqlErr err = {0};
	char cfgdir[300], cfgfile[320];
	snprintf(cfgdir, sizeof cfgdir, "%s/config/suql", tmpdir);
	snprintf(cfgfile, sizeof cfgfile, "%s/config", cfgdir);
	char base[300];
	snprintf(base, sizeof base, "%s/config", tmpdir);
	mkdir(base, 0700);
	mkdir(cfgdir, 0700);
	setenv("XDG_CONFIG_HOME", base, 1);
	clear_env();

	LlmConfig cfg = {0};
	cfg.no_cache = 1;
	Llm *llm = llm_open(&cfg, &err);
	CHECK(llm && llm_is_offline(llm), "config: nothing configured is offline");
	CHECK_STR(llm_label(llm), "offline (lexical, no language model)", "config: offline label");
	llm_close(llm);

	/* a key alone means OpenAI and a default model */
	setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef-f3a9", 1);
	llm = llm_open(&cfg, &err);
	CHECK(llm && !llm_is_offline(llm), "config: a key alone selects the HTTP backend");
	CHECK_STR(llm ? llm->s.url : NULL, "https://api.openai.com/v1", "config: key alone -> OpenAI URL");
	CHECK_STR(llm ? llm->s.model : NULL, "gpt-4o-mini", "config: key alone -> default model");
	SBuf d = SBUF_INIT;
	llm_describe(llm, &d);
	CHECK(strstr(sb_str(&d), "sk-\xE2\x80\xA6" "f3a9") != NULL, "describe: key masked to its last 4");
	CHECK(strstr(sb_str(&d), "0123456789") == NULL, "describe: key never shown");
	sb_free(&d);
	llm_close(llm);

	/* precedence: option > environment > config file */
	write_file(cfgfile, "# test config\nurl = http://file.example/v1\nmodel = file-model\n"
	           "embed_model = file-embed\nconcurrency = 3\ntimeout = 12\n");
	clear_env();
	llm = llm_open(&cfg, &err);
	CHECK_STR(llm ? llm->s.url : NULL, "http://file.example/v1", "config: URL from the file");
	CHECK_STR(llm ? llm->s.model : NULL, "file-model", "config: model from the file");
	CHECK(llm && llm->s.concurrency == 3 && llm->s.timeout_ms == 12000,
	      "config: concurrency and timeout (seconds) from the file");
	CHECK(llm && llm_has_embeddings(llm), "config: embeddings when an embed model is set");
	llm_close(llm);
	setenv("SUQL_LLM_URL", "http://env.example/v1/", 1);
	setenv("SUQL_MODEL", "env-model", 1);
	llm = llm_open(&cfg, &err);
	CHECK_STR(llm ? llm->s.url : NULL, "http://env.example/v1", "config: environment beats the file");
	CHECK_STR(llm ? llm->s.model : NULL, "env-model", "config: SUQL_MODEL beats the file");
	llm_close(llm);
	cfg.url = "http://opt.example/v1";
	cfg.model = "opt-model";
	llm = llm_open(&cfg, &err);
	CHECK_STR(llm ? llm->s.url : NULL, "http://opt.example/v1", "config: option beats the environment");
	CHECK_STR(llm ? llm_label(llm) : NULL, "opt-model at http://opt.example/v1", "config: label");
	/* run-time settings */
	CHECK(llm_set(llm, "llm.model", "m2", &err) == SUQL_OK && strcmp(llm->s.model, "m2") == 0,
	      "set: llm.model");
	CHECK(llm_set(llm, "concurrency", "16", &err) == SUQL_OK && llm->s.concurrency == 16,
	      "set: concurrency");
	CHECK(llm_set(llm, "concurrency", "zero", &err) == SUQL_USAGE && llm->s.concurrency == 16 &&
	      strstr(err.msg, "concurrency is a whole number") && strstr(err.msg, "'zero'"),
	      "set: bad concurrency refused");
	CHECK(llm_set(llm, "llm.timeout", "1500ms", &err) == SUQL_OK && llm->s.timeout_ms == 1500,
	      "set: llm.timeout with a unit");
	CHECK(llm_set(llm, "llm.nonsense", "1", &err) == SUQL_USAGE && strstr(err.msg, "llm.url"),
	      "set: unknown setting lists the known ones");
	CHECK(llm_set(llm, "llm.url", "off", &err) == SUQL_OK && llm_is_offline(llm),
	      "set: llm.url off goes offline");
	CHECK(llm_set(llm, "llm.url", "http://x.example/v1", &err) == SUQL_OK && !llm_is_offline(llm),
	      "set: llm.url back online");
	CHECK(llm_set(llm, "llm.url", "not a url", &err) == SUQL_USAGE &&
	      strcmp(llm->s.url, "http://x.example/v1") == 0 && strstr(err.msg, "'not a url'"),
	      "set: llm.url must be a URL");
	llm_close(llm);
	cfg.url = cfg.model = NULL;
	clear_env();

	/* a URL without a model: a clear error at the first call */
	setenv("SUQL_LLM_URL", "http://127.0.0.1:9/v1", 1);
	write_file(cfgfile, "");
	llm = llm_open(&cfg, &err);
	const char *ps[1] = {"text"};
	LlmItem it = {ps, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL};
	LlmCall c = {0};
	c.kind = LLM_SUMMARY;
	c.items = &it;
	c.nitems = 1;
	LlmCall *p = &c;
	CHECK(llm_run(llm, &p, 1, NULL, NULL, &err) == SUQL_LLM && c.status == LLM_FAILED,
	      "config: no model fails the call");
	CHECK_STR(err.msg, "no model configured: set SUQL_MODEL, --model NAME or :set llm.model NAME",
	          "config: no model message");
	llm_call_clear(&c);
	llm_close(llm);
	clear_env();

	/* a bad config file is an error with its line */
	write_file(cfgfile, "url = http://a/v1\ncolour = blue\n");
	llm = llm_open(&cfg, &err);
	CHECK(!llm && err.msg && strstr(err.msg, "line 2") && strstr(err.msg, "colour"),
	      "config: unknown file setting names its line");
	llm_close(llm);
	/* the last line naming a setting wins, however long the file */
	SBuf many = SBUF_INIT;
	for (int i = 1; i <= 20; i++)
		sb_printf(&many, "model = m%d   # line %d\n", i, i);
	write_file(cfgfile, sb_str(&many));
	sb_free(&many);
	setenv("SUQL_LLM_URL", "http://127.0.0.1:9/v1", 1);
	llm = llm_open(&cfg, &err);
	CHECK_STR(llm ? llm->s.model : NULL, "m20", "config: the file's last line for a setting wins");
	llm_close(llm);
	clear_env();
	write_file(cfgfile, "Model = m1\n");
	llm = llm_open(&cfg, &err);
	CHECK(!llm && err.msg && strstr(err.msg, "line 1") && strstr(err.msg, "'Model'"),
	      "config: setting names are exact");
	llm_close(llm);
	write_file(cfgfile, "cache = off\n");
	cfg.no_cache = 0;
	llm = llm_open(&cfg, &err);
	CHECK(llm && llm->s.no_cache && !llm->cache, "config: cache = off in the file");
	llm_close(llm);
	unlink(cfgfile);
	err_clear(&err);
}

static void test_mask(void)
{
	char *m = llm_key_masked("sk-proj-abcdefghijklmnop1234");
	CHECK_STR(m, "sk-\xE2\x80\xA6" "1234", "mask: long key");
	free(m);
	m = llm_key_masked("short1");
	CHECK(strstr(m, "short") == NULL && strstr(m, "1") == NULL, "mask: short key shows nothing");
	free(m);
	m = llm_url_shown("https://user:pw@host.example/v1");
	CHECK_STR(m, "https://host.example/v1", "url shown without credentials");
	free(m);
}

/* The endpoint's origin, as the keys of kept results name it (llm_endpoint.c). */
static void test_origin(void)
{
	static const char *const cases[][2] = {
		{"http://127.0.0.1:8001/v1", "http://127.0.0.1:8001/v1"},
		{"HTTP://User:P%40ss@API.Example.COM:80/v1/", "http://api.example.com/v1"},
		{"https://api.openai.com:443/v1?api-key=sk-secret#x", "https://api.openai.com/v1"},
		{"https://api.openai.com:0443/v1//", "https://api.openai.com/v1"},
		{"https://host.example.:8443/Path/V1", "https://host.example:8443/Path/V1"},
		{"http://[::1]:80/v1", "http://[::1]/v1"},
		{"http://[::1]:8080/v1", "http://[::1]:8080/v1"},
		{"http://a:b@c@host:81", "http://host:81"},
		{"http://host?key=1", "http://host"},
		{"localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://host:443/v1", "http://host:443/v1"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[160];
		snprintf(name, sizeof name, "origin: %s", cases[i][0]);
		char *o = llm_origin_of(cases[i][0]);
		CHECK_STR(o, cases[i][1], name);
		free(o);
	}
	CHECK(llm_origin_of(NULL) == NULL, "origin: no URL, none");
}

static void test_parse(void)
{
	char *v, *w;
	llm_convert(LLM_SHAPE_DATE, "1979-01-31", &v, &w);
	CHECK_STR(v, "1979-01-31", "convert: ISO date");
	free(v), free(w);
	llm_convert(LLM_SHAPE_DATE, "January 31, 1979", &v, &w);
	CHECK_STR(v, "1979-01-31", "convert: written date");
	free(v), free(w);
	llm_convert(LLM_SHAPE_DATE, "sometime in spring", &v, &w);
	CHECK(!v && w && strstr(w, "is not a date"), "convert: not a date -> NULL + warning");
	free(v), free(w);
	llm_convert(LLM_SHAPE_DATE, "unknown", &v, &w);
	CHECK(!v && !w, "convert: unknown -> NULL without warning");
	free(v), free(w);
	llm_convert(LLM_SHAPE_INT, "42.", &v, &w);
	CHECK_STR(v, "42", "convert: integer");
	free(v), free(w);
	llm_convert(LLM_SHAPE_INT, "3.7", &v, &w);
	CHECK_STR(v, "3", "convert: integer truncates like CAST");
	free(v), free(w);
	llm_convert(LLM_SHAPE_REAL, "about 4.5", &v, &w);
	CHECK_STR(v, "4.5", "convert: real");
	free(v), free(w);
	llm_convert(LLM_SHAPE_BOOL, "Yes.", &v, &w);
	CHECK_STR(v, "1", "convert: bool");
	free(v), free(w);
	llm_convert(LLM_SHAPE_LIST, "```json\n{\"answer\": [\"a\", \"b\"]}\n```", &v, &w);
	CHECK_STR(v, "[\"a\",\"b\"]", "convert: list out of a code fence");
	free(v), free(w);

	json_t *j = llmp_lenient_json("Sure! Here it is: {\"answers\": [\"yes\", \"no\"]} Hope it helps.");
	CHECK(j && json_is_object(j), "lenient JSON: found inside prose");
	json_decref(j);

	double num;
	int is_int;
	CHECK(llm_find_number("thirty-two guests", 17, &num, &is_int) && num == 32 && is_int,
	      "number words: a tens word with a unit (thirty-two)");
}

static void test_sha(void)
{
	char hex[65];
	SuqlErr err = {0};
	CHECK(llm_sha256_load(&err) == SUQL_OK, "sha256: libcrypto loads");
	err_clear(&err);
	llm_sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	          "sha256: known vector");
}

typedef struct Stop {
	int seen, after;
} Stop;

static int stop_after(void *ctx, LlmCall *c)
{
	Stop *s = ctx;
	(void)c;
	return ++s->seen >= s->after;
}

static void test_runs(void)
{
	SuqlErr err = {0};
	char path[300];
	snprintf(path, sizeof path, "%s/cache/nested/dir/cache.db", tmpdir);
	LlmConfig cfg = {0};
	cfg.offline = 1;
	cfg.cache_path = path;
	Llm *llm = llm_open(&cfg, &err);
	CHECK(llm != NULL, "cache: opens, creating directories");
	if (!llm) {
		printf("# %s\n", err.msg);
		return;
	}
	const char *pa[1] = {"Cozy and romantic."}, *pb[1] = {"Loud sports bar."};
	LlmItem ia[4] = {{pa, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL}, {pb, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL},
	                 {pa, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL}, {pb, 1, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL}};
	const char *yes[1] = {"Yes"};
	LlmCall c[4];
	LlmCall *p[4];
	for (int i = 0; i < 4; i++) {
		memset(&c[i], 0, sizeof c[i]);
		c[i].kind = LLM_VERIFY;
		c[i].shape = LLM_SHAPE_YESNO;
		c[i].question = "Is it romantic?";
		c[i].op = "=";
		c[i].expected = yes;
		c[i].nexpected = 1;
		c[i].items = &ia[i];
		c[i].nitems = 1;
		p[i] = &c[i];
	}
	/* identical calls in one batch: answered once */
	llm_stats_begin(llm);
	CHECK(llm_run(llm, p, 4, NULL, NULL, &err) == SUQL_OK, "dedupe: run");
	const LlmStats *st = llm_stats_statement(llm);
	CHECK(st->total.calls == 2 && st->total.cache_hits == 2,
	      "dedupe: 4 calls, 2 distinct -> 2 calls + 2 hits");
	CHECK(c[2].cached && c[2].status == LLM_DONE && ia[2].verdict == ia[0].verdict &&
	      ia[0].verdict == 1 && ia[1].verdict == 0, "dedupe: copies carry the answer");
	/* the same statement again: from memory */
	for (int i = 0; i < 4; i++)
		llm_call_clear(&c[i]);
	llm_run(llm, p, 4, NULL, NULL, &err);
	CHECK(st->total.calls == 2 && st->total.cache_hits == 6, "memo: same statement, no new calls");
	llm_close(llm);

	/* a new session: from the cache file */
	llm = llm_open(&cfg, &err);
	for (int i = 0; i < 4; i++)
		llm_call_clear(&c[i]);
	llm_stats_begin(llm);
	llm_run(llm, p, 4, NULL, NULL, &err);
	st = llm_stats_statement(llm);
	CHECK(st->total.calls == 0 && st->total.cache_hits == 4 && ia[0].verdict == 1 &&
	      ia[1].verdict == 0, "cache file: a new session asks nothing");
	SBuf b = SBUF_INIT;
	llm_cache_describe(llm, &b);
	CHECK(strstr(sb_str(&b), "entries      2") != NULL, "cache: describe counts entries");
	CHECK(strstr(sb_str(&b), path) != NULL, "cache: describe shows the path");
	sb_free(&b);
	CHECK(llm_cache_clear(llm, &err) == SUQL_OK, "cache: clear");
	for (int i = 0; i < 4; i++)
		llm_call_clear(&c[i]);
	llm_stats_begin(llm);
	llm_run(llm, p, 2, NULL, NULL, &err);
	CHECK(llm_stats_statement(llm)->total.calls == 2, "cache: cleared, asked again");

	/* cancellation: the callback stops after the first; the rest are CANCELLED */
	const char *px[6][1] = {{"a one"}, {"b two"}, {"c three"}, {"d four"}, {"e five"}, {"f six"}};
	LlmItem ix[6];
	LlmCall cx[6];
	LlmCall *pxp[6];
	for (int i = 0; i < 6; i++) {
		memset(&ix[i], 0, sizeof ix[i]);
		ix[i].passages = px[i];
		ix[i].npassages = 1;
		memset(&cx[i], 0, sizeof cx[i]);
		cx[i].kind = LLM_SUMMARY;
		cx[i].items = &ix[i];
		cx[i].nitems = 1;
		pxp[i] = &cx[i];
	}
	llm_stats_begin(llm);
	Stop s = {0, 2};
	CHECK(llm_run(llm, pxp, 6, stop_after, &s, &err) == SUQL_OK, "cancel: run returns OK");
	int done = 0, cancelled = 0;
	for (int i = 0; i < 6; i++) {
		done += cx[i].status == LLM_DONE;
		cancelled += cx[i].status == LLM_CANCELLED;
	}
	CHECK(done == 2 && cancelled == 4 && s.seen == 2, "cancel: 2 done, 4 cancelled");
	CHECK(llm_stats_statement(llm)->total.cancelled == 4 &&
	      llm_stats_statement(llm)->kind[LLM_SUMMARY].cancelled == 4, "cancel: counted");
	for (int i = 0; i < 6; i++)
		llm_call_clear(&cx[i]);
	for (int i = 0; i < 4; i++)
		llm_call_clear(&c[i]);

	/* a call without candidates is refused with a reason */
	LlmCall bad = {0};
	bad.kind = LLM_VERIFY;
	bad.question = "q";
	LlmCall *pb2 = &bad;
	CHECK(llm_run(llm, &pb2, 1, NULL, NULL, &err) == SUQL_LLM && bad.status == LLM_FAILED &&
	      strstr(bad.error, "candidate"), "invalid call: failed with a reason");
	llm_call_clear(&bad);
	/* the offline backend cannot chat, and says so */
	LlmMessage m = {"user", "hello"};
	LlmCall chat = {0};
	chat.kind = LLM_PARSE;
	chat.msgs = &m;
	chat.nmsgs = 1;
	LlmCall *pc = &chat;
	CHECK(llm_run(llm, &pc, 1, NULL, NULL, &err) == SUQL_LLM && strstr(err.msg, "offline"),
	      "offline parse: an honest error");
	llm_call_clear(&chat);
	llm_close(llm);
	err_clear(&err);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/llmclient.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_config();
	test_mask();
	test_origin();
	test_parse();
	test_sha();
	test_runs();
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return unit_done();
}
