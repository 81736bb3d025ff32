/*
 * llm_bulk.c: bulk mode, a statement's model requests sent through the provider's batch
 * interface (llm_batch.c) at batch prices, and its answers read back later, by this suql
 * or another one (doc/bulk.md says why it is built this way; llm_bulk_job.c keeps the
 * jobs).
 *
 * Collecting: while llm_bulk_collect_mode is on, llm_run hands the units of each call the
 * cache cannot answer to llm_bulk_collect, which writes them as one JSONL line carrying
 * exactly the request the HTTP backend would send for them (the same batched prompt, the
 * same candidates packed the same way, up to `batch` of them): a batch costs what the
 * interactive run's requests cost, at the batch price. The line's custom_id is the
 * SHA-256 of its units' keys; where each unit sits in which line (its place among the
 * line's candidates) is kept with the job, so a reply fills each unit's own cache entry.
 * The units' calls fail with LLM_BULK_MSG: no value stands for an answer to come.
 * llm_bulk_submit uploads the lines and creates the batch, and keeps the job.
 *
 * Answering: llm_bulk_fetch (llm_bulk_job.c) keeps a completed batch's replies by line.
 * While llm_bulk_answering is on, llm_run asks llm_bulk_answer for each unit before it is
 * collected or sent: the unit's line's reply is read by llm_read_reply, as a reply over
 * HTTP is, for the line's n candidates, and the unit takes the answer at its place; an
 * answer that cannot be read is neither used nor cached (its unit is collected again, for
 * the next batch). Replies are kept, not read at once into the cache, because reading one
 * needs its call (the shape, the permitted values, the question, a candidate's text for
 * extract()'s quotes), which only the statement run again builds.
 *
 * Ownership: struct LlmBulk hangs off the Llm (llm_bulk_free).
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct LlmBulk *llm_bulk_state(Llm *llm)
{
	if (!llm->bulk)
		llm->bulk = xcalloc(1, sizeof *llm->bulk);
	return llm->bulk;
}

void llm_bulk_free(Llm *llm)
{
	struct LlmBulk *b = llm->bulk;
	if (!b)
		return;
	sb_free(&b->jsonl);
	llm_memo_free(b->keys);
	free(b->u);
	llm_memo_free(b->replies);
	llm_memo_free(b->where);
	free(b->batch);
	free(b->why);
	free(b);
	llm->bulk = NULL;
}

/* ---- collecting ---- */

void llm_bulk_collect_mode(Llm *llm, int on)
{
	struct LlmBulk *b = llm_bulk_state(llm);
	b->collecting = on;
	if (on) {
		sb_truncate(&b->jsonl, 0);
		llm_memo_free(b->keys);
		b->keys = llm_memo_new();
		b->n = 0;
		b->nu = 0;
		b->cap = 0;
		b->cap_usd = 0;
		b->worst_in = b->worst_out = b->worst_usd = 0;
		b->unpriced = 0;
	}
}

int llm_bulk_collecting(const Llm *llm)
{
	return llm && llm->bulk && llm->bulk->collecting;
}

long llm_bulk_collected(const Llm *llm)
{
	return llm->bulk ? llm->bulk->n : 0;
}

double llm_bulk_share(const Llm *llm)
{
	return llm_bulk_collecting(llm) ? llm->s.bulk_discount : 1;
}

double llm_cost_planned(const Llm *llm, double tokens_in, double tokens_out)
{
	double c = llm_cost(llm, tokens_in, tokens_out);
	return c >= 0 ? c * llm_bulk_share(llm) : c;
}

/* What the line with this body costs at most, as llm_http.c's req_worst prices a request
   before it is sent: its bytes as tokens in (TEXT_BYTES_PER_TOKEN, plus one), its
   max_tokens (a reasoning model's max_completion_tokens, hidden tokens included) out, or
   the most a request of the statement took so far, at the price of the body's model. */
static void line_worst(Llm *llm, struct LlmBulk *b, json_t *body)
{
	char *s = json_dumps(body, JSON_COMPACT);
	double in = (double)((s ? strlen(s) : 0) / TEXT_BYTES_PER_TOKEN + 1);
	free(s);
	json_int_t max = json_integer_value(json_object_get(body, "max_tokens"));
	if (!max)
		max = json_integer_value(json_object_get(body, "max_completion_tokens"));
	double out = (double)(max > 0 ? max : 0);
	if (llm->hw_in > in)
		in = llm->hw_in;
	if (llm->hw_out > out)
		out = llm->hw_out;
	b->worst_in += in;
	b->worst_out += out;
	LlmPrice p;
	if (llm_price_of(llm, json_string_value(json_object_get(body, "model")), &p))
		b->worst_usd += llm_price_tokens(&p, in, 0, out);
	else
		b->unpriced++;
}

static void unit_add(struct LlmBulk *b, const char *key, const char *line, int pos, int n)
{
	if (b->nu == b->capu)
		b->u = xrealloc(b->u, (size_t)(b->capu = b->capu * 2 + 64) * sizeof *b->u);
	LlmBulkUnit *u = &b->u[b->nu++];
	snprintf(u->key, sizeof u->key, "%s", key);
	snprintf(u->line, sizeof u->line, "%s", line);
	u->pos = pos;
	u->n = n;
}

int llm_bulk_fresh(const Llm *llm, const char *const *keys, int n)
{
	int f = 0;
	for (int k = 0; k < n; k++)
		f += !llm->bulk || !llm_memo_get(llm->bulk->keys, keys[k]);
	return f;
}

int llm_bulk_collect(Llm *llm, const LlmCall *c, const int *items, int nitems,
                     const char *const *keys)
{
	struct LlmBulk *b = llm->bulk;
	if (!b || !b->collecting || llm_is_offline(llm) || c->on_text || c->readable)
		return 0;
	if (c->kind != LLM_VERIFY && c->kind != LLM_ANSWER && c->kind != LLM_SUMMARY &&
	    c->kind != LLM_CLASSIFY && c->kind != LLM_EXTRACT)
		return 0;   /* embeddings and chat turns are asked as usual */
	int nk = nitems > 0 ? nitems : 1;
	int *fresh = xmalloc((size_t)nk * sizeof *fresh);   /* places in keys[] not collected */
	int nf = 0;
	for (int k = 0; k < nk; k++)
		if (!llm_memo_get(b->keys, keys[k]))
			fresh[nf++] = k;
	if (nf == 0) {   /* each waits for the line that carries it */
		free(fresh);
		return 1;
	}
	if (b->n >= LLM_BULK_MAX) {   /* past a batch's size: asked as usual */
		free(fresh);
		return 0;
	}
	int *its = NULL;
	if (nitems > 0) {
		its = xmalloc((size_t)nf * sizeof *its);
		for (int k = 0; k < nf; k++)
			its[k] = items[fresh[k]];
	}
	int sent;
	/* the body llm_http.c's req_body builds for these candidates (n <= 1: the single
	   form), without what a batch does not carry (a stream, log-probabilities) */
	json_t *body = llmp_chat_body(llm, c, its, nitems > 0 ? nf : 0, &sent);
	free(its);
	if (body)
		line_worst(llm, b, body);
	SBuf ids = SBUF_INIT;
	for (int k = 0; k < nf; k++)
		sb_puts(&ids, keys[fresh[k]]);
	char line[65];
	llm_sha256_hex(sb_str(&ids), ids.len, line);
	sb_free(&ids);
	json_t *o = body ? json_pack("{s:s, s:s, s:s, s:o}", "custom_id", line, "method", "POST",
	                             "url", "/v1/chat/completions", "body", body) : NULL;
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!s) {
		free(fresh);
		return 0;
	}
	sb_puts(&b->jsonl, s);
	sb_putc(&b->jsonl, '\n');
	if (llm_log_wanted(llm)) {   /* no request yet: the batch's id comes when it is made */
		LlmLogEntry e = {0};
		e.status = "collected";
		e.reason = -1;
		e.items = nitems > 0 ? nf : 0;
		e.usd = 0;
		e.prompt = s;
		e.prompt_body = 1;
		llm_log_add(llm, c, &e);
	} else {
		free(s);
	}
	for (int k = 0; k < nf; k++) {
		llm_memo_put(b->keys, keys[fresh[k]], "1");
		unit_add(b, keys[fresh[k]], line, k, nitems > 0 ? nf : 0);
	}
	free(fresh);
	b->n++;
	if (llm->cap > 0)   /* the statement's budget of requests, which the lines count in */
		b->cap = llm->cap;
	if (llm->cap_usd > 0)   /* and its budget_usd (the statement ends before it is sent) */
		b->cap_usd = llm->cap_usd;
	return 1;
}

/* usd rounded up to the precision llm_money shows it at: a budget that holds it */
static void money_up(SBuf *out, double usd)
{
	double unit = usd >= 1 ? 0.01 : usd >= 0.01 ? 0.001 : 0.00001;
	llm_money(out, ceil(usd / unit - 1e-9) * unit);
}

/* The batch's worst case in dollars (at batch prices, with what the statement spent
   already) against its budget_usd: SUQL_BUDGET when over it, or when there is no price to
   hold it with. */
static SuqlStatus over_budget_usd(Llm *llm, const struct LlmBulk *b, long n, SuqlErr *err)
{
	if (b->cap_usd <= 0)
		return SUQL_OK;
	const char *model = llm_model(llm) ? llm_model(llm) : "the model";
	if (b->unpriced > 0)
		return err_set(err, SUQL_BUDGET, "budget_usd is set, but there is no price for %s: "
		               "the batch is not submitted; :set llm.price_in and llm.price_out "
		               "(dollars a million tokens), or :set budget_usd 0", model);
	double d = llm->s.bulk_discount;
	double worst = b->worst_usd * d;
	double spent = llm_stmt_usd(llm);
	if (spent < 0)
		spent = 0;
	if (spent + worst <= b->cap_usd)
		return SUQL_OK;
	SBuf w = SBUF_INIT, cap = SBUF_INIT, sp = SBUF_INIT, up = SBUF_INIT;
	llm_money(&w, worst);
	llm_money(&cap, b->cap_usd);
	if (strcmp(sb_str(&w), sb_str(&cap)) == 0) {   /* the same at that precision */
		sb_truncate(&w, 0);
		sb_truncate(&cap, 0);
		sb_printf(&w, "$%.8f", worst);
		sb_printf(&cap, "$%.8f", b->cap_usd);
	}
	if (spent > 0) {
		sb_puts(&sp, ", with ");
		llm_money(&sp, spent);
		sb_puts(&sp, " spent already");
	}
	money_up(&up, spent + worst);
	SuqlStatus st = err_set(err, SUQL_BUDGET, "the batch would cost at most %s at batch "
	                        "prices (%ld request%s: %.0f tokens in, their bytes / %d, and "
	                        "%.0f out, their max_tokens, at %g of %s's price)%s, more than "
	                        "the budget of %s: nothing was submitted; raise it with :set "
	                        "budget_usd %s (0 for no limit), or narrow the query", sb_str(&w),
	                        n, n == 1 ? "" : "s", b->worst_in, TEXT_BYTES_PER_TOKEN,
	                        b->worst_out, d, model, sb_str(&sp), sb_str(&cap),
	                        sb_str(&up) + 1);
	sb_free(&w);
	sb_free(&cap);
	sb_free(&sp);
	sb_free(&up);
	return st;
}

static SuqlStatus submit_run(Llm *llm, const char *statement, const char *database,
                             int previous, LlmBulkJob *job, SuqlErr *err)
{
	memset(job, 0, sizeof *job);
	struct LlmBulk *b = llm_bulk_state(llm);
	SBuf lines = b->jsonl;
	long n = b->n, cap = b->cap;
	b->jsonl = (SBuf)SBUF_INIT;
	llm_bulk_collect_mode(llm, 0);   /* (the lines' worst case stays, for the check) */
	SuqlStatus st = llm_bulk_db(llm, err) ? SUQL_OK : err->code;
	char *file = NULL;
	json_t *batch = NULL;
	if (st == SUQL_OK && n == 0)
		st = err_set(err, SUQL_USAGE, "no requests were collected for a batch");
	if (st == SUQL_OK && cap > 0 && n > cap)
		st = err_set(err, SUQL_BUDGET, "the batch would hold %ld requests to the model, more "
		             "than the budget of %ld: nothing was submitted; raise it with :set budget "
		             "%ld (or :set budget 0 for no limit), or narrow the query", n, cap, n);
	if (st == SUQL_OK)
		st = over_budget_usd(llm, b, n, err);
	if (st == SUQL_OK)
		st = llm_batch_upload(llm, sb_str(&lines), lines.len, &file, err);
	if (st == SUQL_OK)
		st = llm_batch_create(llm, file, &batch, err);
	if (st == SUQL_OK) {
		job->batch = xstrdup(json_string_value(json_object_get(batch, "id")));
		llm_log_batch(llm, job->batch);
		job->statement = xstrdup(statement);
		job->database = xstrdup(database ? database : "");
		job->status = xstrdup(json_string_value(json_object_get(batch, "status")));
		job->created = (long long)time(NULL);
		job->requests = n;
		job->units = b->nu;
		job->endpoint = xstrdup(llm_origin(llm) ? llm_origin(llm) : "");
		job->model = xstrdup(llm_model(llm) ? llm_model(llm) : "");
		job->previous = previous;
		st = llm_bulk_store_job(llm, job, b->u, b->nu, err);
	}
	b->nu = 0;
	json_decref(batch);
	free(file);
	sb_free(&lines);
	return st;
}

SuqlStatus llm_bulk_submit(Llm *llm, const char *statement, const char *database,
                           int previous, LlmBulkJob *job, SuqlErr *err)
{
	/* the batch's requests belong to the statement that collected them */
	llm_log_begin(llm, statement);
	SuqlStatus s = submit_run(llm, statement, database, previous, job, err);
	llm_log_end(llm);
	return s;
}

/* ---- answering ---- */

void llm_bulk_answering(Llm *llm, const LlmBulkJob *job, int on)
{
	struct LlmBulk *b = llm_bulk_state(llm);
	llm_memo_free(b->replies);
	llm_memo_free(b->where);
	b->replies = b->where = NULL;
	b->legacy = 0;
	b->answered = b->unreadable = 0;
	free(b->batch);
	b->batch = on && job->batch ? xstrdup(job->batch) : NULL;
	SuqlErr err = {0};
	sqlite3 *db = on ? llm_bulk_db(llm, &err) : NULL;
	err_clear(&err);
	if (!db)
		return;
	b->replies = llm_memo_new();
	b->where = llm_memo_new();
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT key, body FROM llm_bulk_reply WHERE seq = ?", -1, &st,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, job->seq);
		while (sqlite3_step(st) == SQLITE_ROW)
			if (sqlite3_column_text(st, 0) && sqlite3_column_text(st, 1))
				llm_memo_put(b->replies, (const char *)sqlite3_column_text(st, 0),
				             (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	st = NULL;
	int units = 0;
	if (sqlite3_prepare_v2(db, "SELECT key, line, pos, n FROM llm_bulk_unit WHERE seq = ?", -1,
	                       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, job->seq);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *key = (const char *)sqlite3_column_text(st, 0);
			const char *line = (const char *)sqlite3_column_text(st, 1);
			if (!key || !line)
				continue;
			char *w = xprintf("%d %d %s", sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
			                  line);
			llm_memo_put(b->where, key, w);
			free(w);
			units++;
		}
	}
	sqlite3_finalize(st);
	b->legacy = units == 0;
}

void llm_bulk_answered(const Llm *llm, long *answered, long *unreadable)
{
	*answered = llm->bulk ? llm->bulk->answered : 0;
	*unreadable = llm->bulk ? llm->bulk->unreadable : 0;
}

static void item_results_free(LlmItem *it)
{
	free(it->text);
	free(it->value);
	free(it->warning);
	free(it->evidence);
	free(it->note);
	it->text = it->value = it->warning = it->evidence = it->note = NULL;
}

/* What llm_read_reply wrote into a unit whose answer could not be read. */
static void unit_forget(LlmCall *c, int item)
{
	if (item >= 0) {
		LlmItem *it = &c->items[item];
		item_results_free(it);
		it->verdict = it->unreadable = 0;
		return;
	}
	free(c->text);
	c->text = NULL;
	for (int i = 0; i < c->nlabels; i++)
		free(c->labels[i]);
	free(c->labels);
	c->labels = NULL;
	c->nlabels = 0;
	c->unreadable = 0;
}

/* Read the reply content to a request about n candidates for the one at place pos, into
   item of c: 0 when it was read, -1 when not. The reply is read whole, by the reader of a
   reply over HTTP (a list of the wrong length leaves every candidate unread), into a
   copy of the call whose candidate at pos is this one (its text, for extract()'s quotes);
   the other places are the line's other candidates, whose answers their own units read. */
static int read_at(LlmCall *c, int item, int pos, int n, const char *content)
{
	int bad[1];
	if (item < 0)
		return llm_read_reply(c, NULL, 0, content, bad) == 0 && !c->unreadable ? 0 : -1;
	if (n <= 1)
		return llm_read_reply(c, &item, 1, content, bad) == 0 ? 0 : -1;
	if (pos < 0 || pos >= n)
		return -1;
	LlmCall t = *c;
	t.items = xcalloc((size_t)n, sizeof *t.items);
	t.nitems = n;
	t.items[pos].passages = c->items[item].passages;
	t.items[pos].npassages = c->items[item].npassages;
	int *idx = xmalloc((size_t)n * sizeof *idx);
	int *nbad = xmalloc((size_t)n * sizeof *nbad);
	for (int k = 0; k < n; k++)
		idx[k] = k;
	int m = llm_read_reply(&t, idx, n, content, nbad);
	int ok = 1;
	for (int k = 0; k < m; k++)
		ok &= nbad[k] != pos;
	if (ok) {
		LlmItem *it = &c->items[item], *from = &t.items[pos];
		item_results_free(it);
		it->text = from->text;
		it->value = from->value;
		it->warning = from->warning;
		it->evidence = from->evidence;
		it->note = from->note;
		it->verdict = from->verdict;
		it->unreadable = 0;
		it->has_confidence = 0;   /* a batch asks for no log-probabilities */
		it->confidence = 0;
		from->text = from->value = from->warning = from->evidence = from->note = NULL;
	}
	for (int k = 0; k < n; k++)
		item_results_free(&t.items[k]);
	free(t.items);
	free(idx);
	free(nbad);
	return ok ? 0 : -1;
}

/* A unit answered (ok) or not by a fetched batch's reply o (content: its text): a row of
   the request log, with the batch's id, the request the unit was asked with, and the
   reply's tokens at batch prices. */
static void log_answer(Llm *llm, const LlmCall *c, int item, json_t *o, const char *content,
                       int ok)
{
	if (!llm_log_wanted(llm))
		return;
	LlmLogEntry e = {0};
	e.status = ok ? "batch" : "unreadable";
	if (!ok)
		e.error = xstrdup(content ? "the batch's reply could not be read: asked again in "
		                  "the next batch" : "the batch's reply holds no content");
	e.reason = -1;
	e.items = item >= 0 ? 1 : 0;
	e.bulk = llm->bulk->batch ? xstrdup(llm->bulk->batch) : NULL;
	json_t *m = llmp_messages(llm, c, item);
	e.prompt = m ? json_dumps(m, JSON_COMPACT) : NULL;
	json_decref(m);
	e.reply = content ? xstrdup(content) : NULL;
	e.usd = -1;
	if (llm_log_usage(o, &e)) {   /* at batch prices */
		e.usd = llm_log_usd(llm, NULL, &e);
		if (e.usd > 0)
			e.usd *= llm->s.bulk_discount;
	}
	llm_log_add(llm, c, &e);
}

int llm_bulk_answer(Llm *llm, LlmCall *c, int item, const char *key)
{
	struct LlmBulk *b = llm->bulk;
	if (!b || !b->replies)
		return 0;
	const char *w = llm_memo_get(b->where, key);
	const char *line = key;   /* a job kept before lines carried several units */
	int pos = 0, n = item >= 0 ? 1 : 0, at = 0;
	if (w) {
		if (sscanf(w, "%d %d %n", &pos, &n, &at) < 2 || !w[at])
			return 0;
		line = w + at;
	} else if (!b->legacy) {
		return 0;   /* not in this batch */
	}
	const char *body = llm_memo_get(b->replies, line);
	if (!body)
		return 0;   /* the line came back without a reply, or twice: asked again */
	json_t *o = json_loads(body, 0, NULL);
	json_t *msg = json_object_get(json_array_get(json_object_get(o, "choices"), 0), "message");
	/* scrubbed again as it is read, as a reply over HTTP is (llm_http.c): a reply kept by
	   a suql that kept them as they came */
	char *content = llm_scrub_reply(llm, json_string_value(json_object_get(msg, "content")));
	int ok = content && read_at(c, item, pos, n, content) == 0;
	log_answer(llm, c, item, o, content, ok);
	free(content);
	json_decref(o);
	if (!ok) {
		unit_forget(c, item);
		b->unreadable++;
		return -1;
	}
	b->answered++;
	return 1;
}
