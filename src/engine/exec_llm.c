/*
 * exec_llm.c: how an evaluation reaches the model. Two things live here:
 *
 *  - the passages of a text value for a signature: a list value (FREE_TEXT[]) is one
 *    passage per element, any other text is one value cut into chunks (RET_CHUNK bytes);
 *    a value that fits the passage budget is shown whole, in its own order; a longer one,
 *    for a question, the passages that share its words first (BM25 over the value's own
 *    passages), then the rest in order, as many as fit in the passage budget. This is a
 *    function of the value alone, so the optimizer and the per-row functions show the model
 *    exactly the same text, and get the same answers.
 *
 *  - exec_llm_run: evaluations (signature, value) in the caller's order, grouped into calls of
 *    `batch` candidates with the same signature, handed to llm_run (several in flight at
 *    once, cache first). As each call finishes its results go into the memo and the caller
 *    hears about each evaluation; it may stop the rest (they end cancelled). exec_llm_run_column
 *    feeds it the values a statement reads (evaluating ahead, projection last). A verdict
 *    whose confidence (llm.logprobs) is below llm.min_confidence is stored as unknown
 *    (VERDICT_NULL, as a reply that could not be read, but with no warning), and counted.
 */
#include "base/vis.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- passages ---- */

/* A stored text that is not valid UTF-8 goes to the model with each invalid byte replaced by
   U+FFFD (llm_prompt.c; its cache key is the text sent): say so, naming the value by its
   first words. */
static void warn_not_utf8(Exec *ex, const Sig *s, const char *v, size_t n)
{
	char *cut = xstrndup(v, n < 48 ? n : 48);
	char *shown = vis_utf8_repair(cut);
	char *m = xprintf("a text that is not valid UTF-8 ('%s%s') was sent to the model with its "
	                  "invalid bytes replaced by U+FFFD%s%s%s: import such files with --encoding",
	                  shown, n > 48 ? "..." : "", s->question ? " (asked '" : "",
	                  s->question ? s->question : "", s->question ? "')" : "");
	exec_warn(ex, m);
	free(m);
	free(shown);
	free(cut);
}

static size_t one_text(const char *v, size_t n, char ***out)
{
	TextSpan *sp;
	size_t k = text_chunks(v, n, RET_CHUNK, &sp);
	char **p = xmalloc((k ? k : 1) * sizeof *p);
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		if (sp[i].len)
			p[m++] = xstrndup(v + sp[i].off, sp[i].len);
	free(sp);
	*out = p;
	return m;
}

static char *cut_at_word(const char *s, size_t budget)
{
	size_t n = strlen(s);
	if (n <= budget)
		return xstrdup(s);
	size_t k = budget;
	while (k > 0 && s[k] != ' ')
		k--;
	if (k == 0)
		k = budget;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)   /* not inside a character */
		k--;
	return xstrndup(s, k);
}

typedef struct PsgRank {
	double sc;
	size_t i;
} PsgRank;

static int by_rank(const void *a, const void *b)
{
	const PsgRank *x = a, *y = b;
	if (x->sc != y->sc)
		return x->sc < y->sc ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t exec_llm_passages(Exec *ex, const Sig *s, const char *v, size_t n, char ***out)
{
	char **p;
	size_t np = s->list == 0 ? one_text(v, n, &p) : text_passages(v, n, RET_CHUNK, &p);
	*out = NULL;
	if (np == 0) {
		free(p);
		return 0;
	}
	size_t budget = (size_t)ex->set.passage_tokens * TEXT_BYTES_PER_TOKEN;
	size_t *order = xmalloc(np * sizeof *order);
	size_t total = 0;
	for (size_t i = 0; i < np; i++) {
		order[i] = i;
		total += strlen(p[i]);
	}
	/* a text that fits is shown as written: ranked, a review would reach the model with
	   its sentences shuffled */
	if (s->question && budget && total > budget) {
		TextTerms q = TEXT_TERMS_INIT;
		text_terms(s->question, strlen(s->question), &q);
		TextTerms *pt = xcalloc(np, sizeof *pt);
		double *sc = xmalloc(np * sizeof *sc);
		for (size_t i = 0; i < np; i++)
			text_terms(p[i], strlen(p[i]), &pt[i]);
		text_bm25(&q, pt, np, sc);
		/* matching passages by score (stable), then the others in order: a sort, since a
		   long value has many passages */
		PsgRank *rk = xmalloc(np * sizeof *rk);
		for (size_t i = 0; i < np; i++)
			rk[i] = (PsgRank){sc[i], i};
		qsort(rk, np, sizeof *rk, by_rank);
		for (size_t i = 0; i < np; i++)
			order[i] = rk[i].i;
		free(rk);
		for (size_t i = 0; i < np; i++)
			text_terms_free(&pt[i]);
		free(pt);
		free(sc);
		text_terms_free(&q);
	}
	char **res = xmalloc(np * sizeof *res);
	size_t nr = 0, used = 0;
	for (size_t i = 0; i < np; i++) {
		size_t l = strlen(p[order[i]]);
		if (budget && used + l > budget)
			continue;   /* skipped for shorter ones after it */
		res[nr++] = p[order[i]];
		p[order[i]] = NULL;
		used += l;
	}
	if (nr == 0)   /* not even the best one fits: cut it */
		res[nr++] = cut_at_word(p[order[0]], budget);
	text_strv_free(p, np);
	free(order);
	*out = res;
	return nr;
}

/* ---- runs ---- */

typedef struct WCall {
	LlmCall c;            /* first: the done callback gets &c */
	int *req;             /* the requests it answers, one per item */
	int nreq;
	char ***psg;          /* per item */
	size_t *npsg;
	size_t ntok;          /* passage tokens the items carry */
} WCall;

typedef struct ReqRun {
	Exec *ex;
	Req *reqs;
	int *dup_of;          /* an identical earlier request, or -1 */
	int n;
	ReqDoneFn done;
	void *ctx;
	int stop;
} ReqRun;

/* Whether a verdict is taken as unknown for its confidence: one was given (llm.logprobs)
   and it is below llm.min_confidence. A verdict without one is kept as it is. */
int exec_llm_low_confidence(const Exec *ex, const LlmItem *it)
{
	double min = llm_min_confidence(ex->e->llm);
	return min > 0 && it->has_confidence && !it->unreadable && it->confidence < min;
}

static void store(Exec *ex, const Sig *s, const LlmItem *it, MemoVal *mv)
{
	if (s->kind == FT_VERIFY) {
		int low = exec_llm_low_confidence(ex, it);
		mv->verdict = it->unreadable || low ? VERDICT_NULL
		              : it->verdict ? VERDICT_YES : VERDICT_NO;
		ex->cnt.low_confidence += low;
	} else {
		free(mv->value);
		free(mv->warning);
		mv->value = it->value ? xstrdup(it->value) : NULL;
		mv->warning = it->warning ? xstrdup(it->warning) : NULL;
	}
}

/* An identical request is looked for among the DUP_WINDOW before it (find_dup). */
#define DUP_WINDOW 64

/* Tell the caller about request i and the identical ones after it (within DUP_WINDOW: no
   other can be a copy of i). */
static int tell(ReqRun *r, int i, const MemoVal *mv)
{
	for (int k = i; k < r->n && k <= i + DUP_WINDOW; k++) {
		if (k != i && r->dup_of[k] != i)
			continue;
		if (r->reqs[k].state == REQ_DONE && k != i)
			continue;
		r->reqs[k].state = REQ_DONE;
		/* results that arrive with the call that satisfied the caller are still told */
		if (r->done && r->done(r->ctx, &r->reqs[k], mv))
			r->stop = 1;
	}
	return r->stop;
}

static int call_done(void *ctx, LlmCall *call)
{
	ReqRun *r = ctx;
	WCall *w = (WCall *)call;
	Exec *ex = r->ex;
	if (call->status != LLM_DONE)
		return r->stop;
	if (!call->cached && ex->in_fn)
		ex->cnt.ondemand_calls++;
	for (int k = 0; k < w->nreq; k++) {
		Req *q = &r->reqs[w->req[k]];
		MemoVal *mv = memo_put(ex->memo, q->sig, q->v, q->n);
		store(ex, &ex->sigs[q->sig], &call->items[k], mv);
		if (call->items[k].unreadable)
			exec_unread(ex, q->sig, call->items[k].text);
		mv->rec = ex->on_ask ? ex->on_ask(ex, q->sig, call, k, w->psg[k], w->npsg[k]) : 0;
		q->sent = !call->cached;
		q->call = w->req[0];
	}
	for (int k = 0; k < w->nreq; k++) {
		Req *q = &r->reqs[w->req[k]];
		tell(r, w->req[k], memo_get(ex->memo, q->sig, q->v, q->n));
	}
	return r->stop;
}

static int find_dup(ReqRun *r, int i)
{
	/* identical (signature, value) earlier in this run: asked once */
	const Req *q = &r->reqs[i];
	for (int k = i - 1; k >= 0 && k >= i - DUP_WINDOW; k--) {
		const Req *o = &r->reqs[k];
		if (o->sig == q->sig && o->n == q->n && r->dup_of[k] < 0 &&
		    (o->v == q->v || memcmp(o->v, q->v, q->n) == 0))
			return k;
	}
	return -1;
}

SuqlStatus exec_llm_run(Exec *ex, Req *reqs, int n, ReqDoneFn done, void *ctx, SuqlErr *err)
{
	ReqRun r = {ex, reqs, xmalloc(((size_t)n + 1) * sizeof(int)), n, done, ctx, 0};
	for (int i = 0; i < n; i++) {
		r.dup_of[i] = -1;
		reqs[i].call = -1;
		reqs[i].sent = 0;
	}
	/* answered already, or nothing to ask */
	for (int i = 0; i < n && !r.stop; i++) {
		Req *q = &reqs[i];
		if (q->state != REQ_TODO)
			continue;
		MemoVal *mv = memo_get(ex->memo, q->sig, q->v, q->n);
		if (mv)
			tell(&r, i, mv);
	}
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	WCall *calls = xcalloc((size_t)n + 1, sizeof *calls);
	int ncalls = 0;
	int *open = xmalloc(((size_t)ex->nsigs + 1) * sizeof *open);   /* per signature */
	for (int i = 0; i <= ex->nsigs; i++)
		open[i] = -1;
	for (int i = 0; i < n && !r.stop && !suql_interrupted; i++) {
		Req *q = &reqs[i];
		if (q->state != REQ_TODO)
			continue;
		if ((r.dup_of[i] = find_dup(&r, i)) >= 0)
			continue;
		const Sig *s = &ex->sigs[q->sig];
		char **psg;
		size_t np = exec_llm_passages(ex, s, q->v, q->n, &psg);
		if (np == 0) {   /* no text: the answer is unknown, without asking */
			MemoVal *mv = memo_put(ex->memo, q->sig, q->v, q->n);
			mv->verdict = VERDICT_NULL;
			tell(&r, i, mv);
			continue;
		}
		if (vis_utf8_bad(q->v, q->n) < q->n)
			warn_not_utf8(ex, s, q->v, q->n);
		size_t ntok = 0;   /* the candidate's passages, in estimated tokens */
		for (size_t k = 0; k < np; k++)
			ntok += TEXT_TOKENS(strlen(psg[k]));
		if (ex->mix_pairs && s->subject)   /* the join's pairs share calls */
			ntok += TEXT_TOKENS(strlen(s->subject));
		int slot = ex->mix_pairs && s->subject && s->unread_to > 0 ? s->unread_to - 1 : q->sig;
		int c = open[slot];
		if (c < 0 || calls[c].nreq >= batch ||
		    (ex->set.batch_tokens > 0 &&
		     calls[c].ntok + ntok > (size_t)ex->set.batch_tokens)) {
			c = ncalls++;
			open[slot] = c;
			WCall *w = &calls[c];
			w->c.kind = s->kind == FT_VERIFY ? LLM_VERIFY : s->kind == FT_ANSWER ? LLM_ANSWER
			            : s->kind == FT_EXTRACT ? LLM_EXTRACT : LLM_SUMMARY;
			w->c.quotes = s->quotes;
			w->c.shape = memo_sig_shape(s);
			w->c.question = s->question;
			w->c.subject = slot == q->sig ? s->subject : NULL;
			w->c.proxy = s->judge != 0;
			w->c.wording = s->judge == 2;
			w->c.op = s->op;
			w->c.expected = (const char *const *)s->expected;
			w->c.nexpected = s->nexpected;
			w->c.options = (const char *const *)s->options;
			w->c.noptions = s->noptions;
			w->req = xmalloc((size_t)batch * sizeof *w->req);
			w->psg = xmalloc((size_t)batch * sizeof *w->psg);
			w->npsg = xmalloc((size_t)batch * sizeof *w->npsg);
			w->c.items = xcalloc((size_t)batch, sizeof *w->c.items);
		}
		WCall *w = &calls[c];
		w->req[w->nreq] = i;
		w->psg[w->nreq] = psg;
		w->npsg[w->nreq] = np;
		w->c.items[w->nreq].passages = (const char *const *)psg;
		w->c.items[w->nreq].npassages = (int)np;
		if (!w->c.subject && slot != q->sig)
			w->c.items[w->nreq].left = s->subject;
		w->nreq++;
		w->ntok += ntok;
		w->c.nitems = w->nreq;
	}
	free(open);
	SuqlStatus st = SUQL_OK;
	if (suql_interrupted)   /* while the passages were picked */
		st = err_set(err, SUQL_INTERRUPT, "interrupted");
	else if (ncalls > 0 && !r.stop) {
		LlmCall **cp = xmalloc((size_t)ncalls * sizeof *cp);
		for (int i = 0; i < ncalls; i++)
			cp[i] = &calls[i].c;
		if (!ex->in_fn)
			ex->cnt.waves++;   /* the optimizer's, not the functions' own calls */
		/* A caller that may stop the run gets its calls in groups that are all in flight
		   at once, and decides between groups: every call sent is answered, so what is
		   sent does not depend on the order replies arrive in (see llm_run). */
		int group = ncalls;
		if (done) {
			group = llm_concurrency(ex->e->llm);
			if (group < 1)
				group = 1;
		}
		for (int i = 0; i < ncalls && st == SUQL_OK && !r.stop; i += group)
			st = llm_run(ex->e->llm, cp + i, ncalls - i < group ? ncalls - i : group, call_done,
			             &r, err);
		free(cp);
	}
	for (int i = 0; i < n; i++) {
		if (reqs[i].state == REQ_TODO)
			reqs[i].state = REQ_CANCELLED;   /* stopped before it was answered */
		else if (r.dup_of[i] >= 0 && reqs[r.dup_of[i]].state == REQ_DONE)
			reqs[i].state = REQ_DONE;
	}
	for (int i = 0; i < ncalls; i++) {
		WCall *w = &calls[i];
		llm_call_clear(&w->c);
		for (int k = 0; k < w->nreq; k++)
			text_strv_free(w->psg[k], w->npsg[k]);
		free(w->c.items);
		free(w->req);
		free(w->psg);
		free(w->npsg);
	}
	free(calls);
	free(r.dup_of);
	return st;
}

static int one_done(void *ctx, Req *r, const MemoVal *mv)
{
	(void)r;
	*(const MemoVal **)ctx = mv;
	return 0;
}

SuqlStatus exec_llm_one(Exec *ex, int sig, const char *v, size_t n, MemoVal **out, SuqlErr *err)
{
	Req q = {0};
	q.sig = sig;
	q.v = v;
	q.n = n;
	const MemoVal *got = NULL;
	int saved = ex->in_fn;
	ex->in_fn = 1;   /* calls made on demand are counted as such (call_done) */
	SuqlStatus st = exec_llm_run(ex, &q, 1, one_done, &got, err);
	ex->in_fn = saved;
	*out = (MemoVal *)got;
	return st;
}

SuqlStatus exec_llm_run_column(Exec *ex, int sig, sqlite3_stmt *st, const char *what, long long *nvals,
                         SuqlErr *err)
{
	char **v = NULL;
	size_t *len = NULL;
	long n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof *v);
			len = xrealloc(len, (size_t)cap * sizeof *len);
		}
		v[n] = exec_value_text(sqlite3_column_value(st, 0), &len[n]);
		n++;
	}
	SuqlStatus r = rc == SQLITE_DONE ? SUQL_OK : exec_sqlerr(ex, err, what);
	sqlite3_finalize(st);
	if (r != SUQL_OK) {
		for (long i = 0; i < n; i++)
			free(v[i]);
		free(v);
		free(len);
		return r;
	}
	return exec_llm_run_values(ex, sig, v, len, n, nvals, err);
}

SuqlStatus exec_llm_run_values(Exec *ex, int sig, char **v, size_t *len, long n,
                               long long *nvals, SuqlErr *err)
{
	SuqlStatus r = SUQL_OK;
	if (n) {
		Req *reqs = xcalloc((size_t)n, sizeof *reqs);
		for (long i = 0; i < n; i++) {
			reqs[i].sig = sig;
			reqs[i].v = v[i];
			reqs[i].n = len[i];
		}
		r = exec_llm_run(ex, reqs, (int)n, NULL, NULL, err);
		free(reqs);
	}
	*nvals += n;
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(len);
	return r;
}

void exec_llm_pack(const Exec *ex, ExecLlmPack *p, size_t text_len)
{
	size_t t = TEXT_TOKENS(text_len), cap = (size_t)ex->set.passage_tokens;
	if (t > cap)
		t = cap;
	if (!p->in || p->in >= ex->set.batch ||
	    (ex->set.batch_tokens > 0 && p->tok + t > (size_t)ex->set.batch_tokens)) {
		p->calls++;
		p->in = 0;
		p->tok = 0;
	}
	p->in++;
	p->tok += t;
}
