/*
 * llm_http_once.c: one request to the OpenAI-compatible endpoint, waited for: :llm test,
 * :llm models and bulk mode's files and batches (llm_batch.c). A GET, a POST of a JSON
 * body, or a POST of a multipart form (a batch's input file), with the settings every
 * request of the backend sets (llm_http_limits) and the key in its header, never in a
 * message. Ctrl-C stops it; an error names the URL as it may be printed and what libcurl
 * said, without secrets. A request that went out is written to the request log.
 */
#include "base/util.h"
#include "llm/llm_http_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct OnceBuf {
	SBuf *out;
	size_t got;
} OnceBuf;

static size_t once_write(char *p, size_t size, size_t nmemb, void *ud)
{
	OnceBuf *b = ud;
	size_t n = size * nmemb;
	if (b->got + n > LLM_MAX_REPLY)
		return 0;
	b->got += n;
	sb_putn(b->out, p, n);
	return n;
}

static int once_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)ud, (void)a, (void)b, (void)c, (void)d;
	return suql_interrupted != 0;   /* Ctrl-C stops the request */
}

/* The one request of llm_http_once and llm_http_upload: a GET, a POST of body (JSON), or a
   POST of the multipart form mime. */
static SuqlStatus once(Llm *llm, const char *path, const char *body, curl_mime *mime,
                       size_t upload, CURL *e, LlmHttpOnce *res, SuqlErr *err);

/* libcurl loaded and initialized, and a handle for one request (NULL: err says why). */
static CURL *once_handle(Llm *llm, LlmHttpOnce *res, SuqlErr *err)
{
	memset(res, 0, sizeof *res);   /* the reply an empty SBuf */
	if (dynlib_load(&llm_cu_lib, err) != SUQL_OK)
		return NULL;
	if (!llm->multi) {
		llm_cu.global_init(CURL_GLOBAL_DEFAULT);
		llm->multi = llm_cu.multi_init();
	}
	CURL *e = llm_cu.easy_init();
	if (!e)
		err_set(err, SUQL_LLM, "out of memory");
	return e;
}

SuqlStatus llm_http_once(Llm *llm, const char *path, const char *body, LlmHttpOnce *res,
                         SuqlErr *err)
{
	CURL *e = once_handle(llm, res, err);
	if (!e)
		return SUQL_LLM;
	return once(llm, path, body, NULL, 0, e, res, err);
}

SuqlStatus llm_http_upload(Llm *llm, const char *path, const char *purpose,
                           const char *filename, const char *data, size_t n,
                           LlmHttpOnce *res, SuqlErr *err)
{
	CURL *e = once_handle(llm, res, err);
	if (!e)
		return SUQL_LLM;
	curl_mime *mime = llm_cu.mime_init(e);
	curl_mimepart *part = llm_cu.mime_addpart(mime);
	llm_cu.mime_name(part, "purpose");
	llm_cu.mime_data(part, purpose, CURL_ZERO_TERMINATED);
	part = llm_cu.mime_addpart(mime);
	llm_cu.mime_name(part, "file");
	llm_cu.mime_filename(part, filename);
	llm_cu.mime_type(part, "application/jsonl");
	llm_cu.mime_data(part, data, n);
	SuqlStatus st = once(llm, path, NULL, mime, n, e, res, err);
	llm_cu.mime_free(mime);
	return st;
}

static SuqlStatus once(Llm *llm, const char *path, const char *body, curl_mime *mime,
                       size_t upload, CURL *e, LlmHttpOnce *res, SuqlErr *err)
{
	char *url = xprintf("%s/%s", llm->s.url, path);
	struct curl_slist *h = llm_cu.slist_append(NULL, "Accept: application/json");
	if (body)
		h = llm_cu.slist_append(h, "Content-Type: application/json");
	h = llm_cu.slist_append(h, "Expect:");
	if (llm->s.key) {
		char *auth = xprintf("Authorization: Bearer %s", llm->s.key);
		h = llm_cu.slist_append(h, auth);
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	OnceBuf ob = {&res->reply, 0};
	llm_cu.easy_setopt(e, CURLOPT_URL, url);
	if (mime)
		llm_cu.easy_setopt(e, CURLOPT_MIMEPOST, mime);
	if (body) {
		llm_cu.easy_setopt(e, CURLOPT_POST, 1L);
		llm_cu.easy_setopt(e, CURLOPT_POSTFIELDS, body);
		llm_cu.easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	llm_cu.easy_setopt(e, CURLOPT_HTTPHEADER, h);
	llm_cu.easy_setopt(e, CURLOPT_WRITEFUNCTION, once_write);
	llm_cu.easy_setopt(e, CURLOPT_WRITEDATA, &ob);
	llm_cu.easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	llm_cu.easy_setopt(e, CURLOPT_XFERINFOFUNCTION, once_progress);
	llm_http_limits(llm, e);
	double t0 = util_now_ms(), sent_at = llm_log_now();
	CURLcode cc = llm_cu.easy_perform(e);
	res->ms = util_now_ms() - t0;
	SuqlStatus s = SUQL_OK;
	if (cc == CURLE_OK) {
		char *ct = NULL;
		llm_cu.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &res->code);
		llm_cu.easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ct);
		res->event_stream = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
		res->sent = 1;
	} else if (cc == CURLE_ABORTED_BY_CALLBACK) {
		res->sent = 1;
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	} else {
		char *shown = llm_url_shown(url);
		res->sent = cc != CURLE_COULDNT_CONNECT && cc != CURLE_COULDNT_RESOLVE_HOST &&
		            cc != CURLE_URL_MALFORMAT && cc != CURLE_UNSUPPORTED_PROTOCOL;
		char *m = xprintf("%s: %s", shown, llm_cu.easy_strerror(cc));
		char *clean = llm_scrub(llm, m);
		s = err_set(err, SUQL_LLM, "%s", clean);
		free(clean);
		free(m);
		free(shown);
	}
	if (res->sent)
		llm_log_once(llm, path, body, upload, res, sent_at,
		         s == SUQL_OK || !err ? NULL : err->msg);
	llm_cu.slist_free_all(h);
	llm_cu.easy_cleanup(e);
	free(url);
	return s;
}
