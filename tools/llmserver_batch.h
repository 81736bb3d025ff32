/*
 * llmserver_batch.h: the test server's batch interface (OpenAI's Batch API, in memory), part
 * of llmserver.c, which includes it after its automatic replies: POST /files takes a JSONL
 * file as multipart/form-data, POST /batches makes a batch of it, GET /batches/{id} says
 * in_progress until --batch-polls reads of it, then completed (answering every line with
 * its automatic reply), GET /files/{id}/content returns a file, POST /batches/{id}/cancel
 * cancels. The first batch's output can misbehave: --batch-corrupt N makes line N's reply
 * unreadable (prose), or with N:K only entry K of its list of answers; --batch-dup N gives
 * line N twice, the copy with yes and no swapped; --batch-foreign K adds K lines whose
 * custom_id was never sent; --batch-garbage makes the whole file bytes that are not JSONL.
 * --batch-delay MS waits before sending an output file (so a test can stop suql while it
 * fetches one); --no-batch answers 404 to all of it. GET /batchstats says how many model
 * requests came in batches.
 *
 * The rules (--rules) answer a batch's lines as they answer requests: each line is matched
 * as a request to its url with its body, and a rule that matches gives the line its status
 * and its reply (content, body, or an echo: of the headers of the request that completed
 * the batch, with its Authorization, and of the line's body), as a provider that echoes
 * the request in its output would; its delay and fault are not used.
 */

static int batch_polls = 1;       /* --batch-polls K: reads of a batch before it completes */
static int batch_corrupt;         /* --batch-corrupt N[:K]: line N of the first output (1-based) */
static int batch_corrupt_entry;   /*   K: only entry K of its answers (1-based); 0: all of it */
static int batch_dup;             /* --batch-dup N: line N of the first output twice */
static int batch_foreign;         /* --batch-foreign K: K lines with ids never sent */
static int batch_garbage;         /* --batch-garbage: the first output is not JSONL */
static int batch_delay_ms;        /* --batch-delay MS: before an output file is sent */
static int batch_off;             /* --no-batch */
static long batched_requests;     /* model requests answered in batches */

typedef struct BFile {
	char *id;
	char *data;
	size_t len;
} BFile;

typedef struct BBatch {
	char *id;
	char *input;
	char *output;      /* NULL until completed */
	int polls;
	int cancelled;
	long total, done;
} BBatch;

static BFile *bfiles;
static int nbfiles;
static BBatch *bbatches;
static int nbbatches;

static BFile *bfile_find(const char *id)
{
	for (int i = 0; i < nbfiles; i++)
		if (strcmp(bfiles[i].id, id) == 0)
			return &bfiles[i];
	return NULL;
}

static BBatch *bbatch_find(const char *id, size_t n)
{
	for (int i = 0; i < nbbatches; i++)
		if (strlen(bbatches[i].id) == n && strncmp(bbatches[i].id, id, n) == 0)
			return &bbatches[i];
	return NULL;
}

static char *bfile_add(char *data, size_t len)
{
	bfiles = xrealloc(bfiles, (size_t)(nbfiles + 1) * sizeof *bfiles);
	BFile *f = &bfiles[nbfiles++];
	f->id = xprintf("file-%d", nbfiles);
	f->data = data;
	f->len = len;
	return f->id;
}

/* The part named "file" of a multipart/form-data body. */
static char *multipart_file(const Request *rq, size_t *len)
{
	const char *ct = json_string_value(json_object_get(rq->headers, "content-type"));
	const char *b = ct ? ci_find(ct, "boundary=") : NULL;
	if (!b)
		return NULL;
	char *delim = xprintf("\r\n--%s", b + 9);
	const char *end = rq->body + rq->blen;
	const char *p = rq->body;
	char *out = NULL;
	while (p && p < end) {
		const char *name = strstr(p, "name=\"file\"");
		if (!name)
			break;
		const char *data = strstr(name, "\r\n\r\n");
		if (!data)
			break;
		data += 4;
		const char *stop = NULL;
		for (const char *q = data; q + strlen(delim) <= end; q++)
			if (memcmp(q, delim, strlen(delim)) == 0) {
				stop = q;
				break;
			}
		if (stop) {
			*len = (size_t)(stop - data);
			out = xstrndup(data, *len);
		}
		break;
	}
	free(delim);
	return out;
}

static json_t *bbatch_json(const BBatch *b)
{
	const char *st = b->cancelled ? "cancelled" : b->output ? "completed" : "in_progress";
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:s?}", "id", b->id, "object",
	                 "batch", "status", st, "input_file_id", b->input, "request_counts",
	                 "total", (json_int_t)b->total, "completed", (json_int_t)b->done,
	                 "failed", (json_int_t)0, "output_file_id", b->output);
}

/* A reply's content with entry k (1-based) of its list of answers made unreadable
   ("maybe"); the whole of it in prose when it holds no such list. Heap string. */
static char *corrupt_entry(const char *content, int k)
{
	json_t *j = json_loads(content, 0, NULL);
	json_t *a = json_object_get(j, "answers");
	char *out = NULL;
	if (k > 0 && json_is_array(a) && (size_t)k <= json_array_size(a)) {
		json_array_set_new(a, (size_t)k - 1, json_string("maybe"));
		out = json_dumps(j, JSON_COMPACT);
	}
	json_decref(j);
	return out ? out : xstrdup("I would rather not say.");
}

/* yes for no and no for yes, in a reply's content (a bare verdict, or each entry of a list
   of answers). Heap string. */
static const char *swapped(const char *v)
{
	return strcasecmp(v, "yes") == 0 ? "No" : strcasecmp(v, "no") == 0 ? "Yes" : v;
}

static char *invert(const char *content)
{
	json_t *j = json_loads(content, 0, NULL);
	json_t *a = json_object_get(j, "answers");
	char *out = NULL;
	if (json_is_array(a)) {
		for (size_t i = 0; i < json_array_size(a); i++) {
			const char *v = json_string_value(json_array_get(a, i));
			if (v)
				json_array_set_new(a, i, json_string(swapped(v)));
		}
		out = json_dumps(j, JSON_COMPACT);
	}
	json_decref(j);
	return out ? out : xstrdup(swapped(content));
}

/* One line of an output file with the reply body (a JSON object; else the text as a JSON
   string) and status to the request with custom_id id. */
static void bline_raw(SBuf *out, json_t *id, int status, const char *reply)
{
	json_t *rj = json_loads(reply, 0, NULL);
	if (!rj)
		rj = json_string(reply);
	json_t *o = json_pack("{s:s, s:O, s:{s:i, s:o}, s:n}", "id", "req", "custom_id", id,
	                      "response", "status_code", status, "body", rj ? rj : json_object(),
	                      "error");
	char *s = json_dumps(o, JSON_COMPACT);
	sb_puts(out, s);
	sb_putc(out, '\n');
	free(s);
	json_decref(o);
}

/* One line of an output file: the reply (content) to the request with custom_id id. */
static void bline(SBuf *out, json_t *id, const char *model, const char *content,
                  size_t body_len)
{
	char *reply = completion(model, content, body_len, NULL);
	bline_raw(out, id, 200, reply);
	free(reply);
}

/* A rule's answer to a line (the line's request body: sent, its url: path), as serve()
   answers a request: 1 when a rule (not auto) gave it, the line written. rq: the request
   that completed the batch, whose headers an echo repeats. The caller holds mu. */
static int bline_rule(SBuf *out, json_t *id, const Request *rq, const char *path,
                      const char *model, const char *sent)
{
	Rule *rule = canned ? NULL : pick_rule_locked(path, sent);
	if (!rule || rule->automatic)
		return 0;
	char *body = NULL, *content = NULL;
	if (rule->echo) {
		Request lr = *rq;   /* the headers of the request at hand, the line's body */
		lr.body = (char *)sent;
		lr.blen = strlen(sent);
		echo_reply(rule, &lr, &body, &content);
	} else if (rule->content) {
		content = xstrdup(rule->content);
	} else if (rule->body) {
		body = xstrdup(rule->body);
	}
	if (!body && !content)
		return 0;   /* a status, a delay or a fault alone: the automatic reply */
	if (content) {
		char *reply = completion(model, content, strlen(sent), NULL);
		bline_raw(out, id, rule->status, reply);
		free(reply);
	} else {
		bline_raw(out, id, rule->status, body);
	}
	free(body);
	free(content);
	return 1;
}

/* Answer each line of the input by the rules, else with its automatic reply; rq: the
   request that completed it. */
static void bbatch_complete(BBatch *b, const Request *rq_at)
{
	BFile *in = bfile_find(b->input);
	SBuf out = SBUF_INIT;
	long line = 0;
	const char *p = in ? in->data : "";
	const char *end = in ? in->data + in->len : p;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *rq = json_loadb(p, n, 0, NULL);
		p += n + (nl ? 1 : 0);
		if (!rq)
			continue;
		line++;
		json_t *body = json_object_get(rq, "body");
		const char *model = json_string_value(json_object_get(body, "model"));
		SBuf prompt = SBUF_INIT;
		prompt_of(body, &prompt);
		char *content = auto_content(sb_str(&prompt), model);
		/* tokens counted as for a request over HTTP: the body's bytes over four */
		char *sent = json_dumps(body, JSON_COMPACT);
		size_t blen = sent ? strlen(sent) : prompt.len;
		free(sent);
		int first = nbbatches == 1;
		if (batch_corrupt == line && first) {
			char *c = corrupt_entry(content, batch_corrupt_entry);
			free(content);
			content = c;
		}
		json_t *id = json_object_get(rq, "custom_id");
		const char *url = json_string_value(json_object_get(rq, "url"));
		char *sbody = json_dumps(body, JSON_COMPACT);
		int ruled = sbody && bline_rule(&out, id, rq_at, url ? url : "", model, sbody);
		free(sbody);
		if (!ruled)
			bline(&out, id, model, content, blen);
		if (batch_dup == line && first) {   /* the same id again, the verdicts turned */
			char *c = invert(content);
			bline(&out, id, model, c, blen);
			free(c);
		}
		if (line == 1 && first)   /* lines for requests nobody sent */
			for (int k = 1; k <= batch_foreign; k++) {
				json_t *fid = json_sprintf("foreign-%d", k);
				bline(&out, fid, model, content, blen);
				json_decref(fid);
			}
		free(content);
		sb_free(&prompt);
		json_decref(rq);
		batched_requests++;
	}
	if (batch_garbage && nbbatches == 1) {
		sb_truncate(&out, 0);
		sb_puts(&out, "\x01\x02 this is not JSONL {{{\n<html>502 Bad Gateway</html>\n");
	}
	b->done = b->total;
	b->output = xstrdup(bfile_add(xstrndup(out.s ? out.s : "", out.len), out.len));
	sb_free(&out);
}

static int bsend_json(int fd, int status, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	int ok = send_reply(fd, status, NULL, s, strlen(s), strlen(s));
	free(s);
	return ok;
}

/* Whether rq is for the batch interface; if so it is answered, *keep set. */
static int batch_serve(int fd, const Request *rq, int *keep)
{
	const char *path = rq->path;
	const char *files = strstr(path, "/files");
	const char *batches = strstr(path, "/batches");
	if (strstr(path, "/batchstats") && strcmp(rq->method, "GET") == 0) {
		pthread_mutex_lock(&mu);
		json_t *o = json_pack("{s:I, s:i, s:i}", "batched", (json_int_t)batched_requests,
		                      "files", nbfiles, "batches", nbbatches);
		pthread_mutex_unlock(&mu);
		*keep = bsend_json(fd, 200, o);
		return 1;
	}
	if (!files && !batches)
		return 0;
	if (batch_off) {
		*keep = bsend_json(fd, 404, json_pack("{s:{s:s}}", "error", "message",
		                                      "Not Found"));
		return 1;
	}
	pthread_mutex_lock(&mu);
	json_t *o = NULL;
	int status = 200;
	if (files && strcmp(rq->method, "POST") == 0) {
		size_t n = 0;
		char *data = multipart_file(rq, &n);
		if (!data) {
			status = 400;
			o = json_pack("{s:{s:s}}", "error", "message", "no file part");
		} else {
			o = json_pack("{s:s, s:s, s:s, s:I}", "id", bfile_add(data, n), "object", "file",
			              "purpose", "batch", "bytes", (json_int_t)n);
		}
	} else if (files && strcmp(rq->method, "GET") == 0) {
		char id[128] = "";
		sscanf(files, "/files/%127[^/]", id);
		BFile *f = bfile_find(id);
		pthread_mutex_unlock(&mu);
		if (f && batch_delay_ms > 0)
			sleep_ms(batch_delay_ms);
		if (!f || !strstr(files, "/content")) {
			*keep = bsend_json(fd, 404, json_pack("{s:{s:s}}", "error", "message",
			                                      "no such file"));
			return 1;
		}
		*keep = send_reply(fd, 200, NULL, f->data, f->len, f->len);
		return 1;
	} else if (strcmp(rq->method, "POST") == 0 && strcmp(batches, "/batches") == 0) {
		json_t *req = json_loadb(rq->body, rq->blen, 0, NULL);
		const char *in = json_string_value(json_object_get(req, "input_file_id"));
		BFile *f = in ? bfile_find(in) : NULL;
		if (!f) {
			status = 400;
			o = json_pack("{s:{s:s}}", "error", "message", "no such input file");
		} else {
			bbatches = xrealloc(bbatches, (size_t)(nbbatches + 1) * sizeof *bbatches);
			BBatch *b = &bbatches[nbbatches++];
			memset(b, 0, sizeof *b);
			b->id = xprintf("batch_%d", nbbatches);
			b->input = xstrdup(in);
			for (size_t i = 0; i < f->len; i++)
				b->total += f->data[i] == '\n';
			if (batch_polls <= 0)
				bbatch_complete(b, rq);
			o = bbatch_json(b);
		}
		json_decref(req);
	} else {
		const char *id = batches + strlen("/batches/");
		size_t n = strcspn(id, "/");
		BBatch *b = batches[8] == '/' ? bbatch_find(id, n) : NULL;
		if (!b) {
			status = 404;
			o = json_pack("{s:{s:s}}", "error", "message", "no such batch");
		} else if (strcmp(rq->method, "POST") == 0 && strstr(id + n, "/cancel")) {
			if (!b->output)
				b->cancelled = 1;
			o = bbatch_json(b);
		} else {
			if (!b->output && !b->cancelled && ++b->polls >= batch_polls)
				bbatch_complete(b, rq);
			else if (!b->output && !b->cancelled)
				b->done = b->total * b->polls / (batch_polls + 1);
			o = bbatch_json(b);
		}
	}
	pthread_mutex_unlock(&mu);
	*keep = bsend_json(fd, status, o);
	return 1;
}
