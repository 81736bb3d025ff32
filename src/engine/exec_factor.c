/*
 * exec_factor.c: a semantic join that factors (see doc/join.md). Many pair questions are
 * settled by one property of each side compared: "both reviews positive, or both
 * negative", "the same company", "opposite opinions of the price". Judged pair by pair,
 * even batched, such a join costs a call per left value at least; factored, it costs about
 * one classification of each side.
 *
 * When exec_join.c has listed both sides' distinct values and the pairs to decide, and the
 * attempt costs less than half the pairwise calls, the join is tried as a factorization:
 * one call (LLM_FACTOR, prompts/factor.txt) shows the question and a few example values of
 * each side and asks for a property, its values and the comparison (same or different);
 * each side's distinct values are then classified into the property's values through the
 * executor's usual path (answer(value, property, ARRAY[values]): batched, cached per value
 * as any call is, an unreadable answer unknown and never cached); and a sample of pairs,
 * half predicted matches and half not, chosen by a hash of the pair, is judged directly
 * with the join's own match prompt. Only when every sample pair's verdict agrees with the
 * comparison is the rewrite trusted: each pair both of whose values were classified goes
 * into the memo as the comparison decides (suql_match finds it there), and the pairs with
 * a value left unclassified are judged as before. Otherwise (the model says the question
 * does not factor, its reply cannot be read, the sample disagrees) every pair is judged
 * as before, the sample's verdicts reused from the memo, and the plan says why.
 */
#include "engine/exec_int.h"
#include "engine/memo_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FACTOR_EXAMPLES 8      /* example values of each side shown to the model */
#define FACTOR_EXAMPLE_BYTES 300

typedef enum FactorState {
	F_PLANNED,       /* not asked yet */
	F_NOFACTOR,      /* the model says the question does not factor */
	F_UNREAD,        /* its reply could not be read */
	F_FAILED,        /* the factor call failed, or the classification */
	F_DISAGREED,     /* the sample disagrees with the comparison */
	F_TRUSTED        /* the pairs were decided by the comparison */
} FactorState;

struct JoinFactor {
	JoinSides s;          /* borrowed from the join's plan */
	long long classify;   /* classification calls expected */
	int sample;           /* sample pairs */
	long long cost;       /* 1 + classify + sample */
	FactorState state;
	char *property;
	char **values;
	int nvalues;
	int different;        /* the question holds when the values differ (else the same) */
	int *lc, *rc;         /* per distinct value: its class, -1 unknown */
	int agreed, asked;    /* sample pairs that agreed, of those asked */
	long long decided;    /* pairs decided by the comparison (not asked) */
	long long yes;        /* of them, matches */
	long long lnone, rnone;   /* values of each side left without a class */
	long calls;           /* calls made by the attempt (factor, classification, sample) */
	long hits;
};

static uint64_t vhash(const char *v, size_t n)
{
	uint64_t h = str_hash64(v, n);
	return h ? h : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Calls a classification of values takes: both sides' distinct values (a value on both
   sides is asked once), grouped as exec_llm_run groups them. */
static long long classify_calls(Exec *ex, const JoinSides *s)
{
	uint64_t *lh = xmalloc(((size_t)s->nl + 1) * sizeof *lh);
	for (long long l = 0; l < s->nl; l++)
		lh[l] = vhash(s->lv[l], s->ln[l]);
	qsort(lh, (size_t)s->nl, sizeof *lh, cmp_u64);
	ExecLlmPack p = {0};
	for (long long i = 0; i < s->nl + s->nr; i++) {
		size_t n = i < s->nl ? s->ln[i] : s->rn[i - s->nl];
		if (i >= s->nl) {
			uint64_t h = vhash(s->rv[i - s->nl], n);
			if (bsearch(&h, lh, (size_t)s->nl, sizeof *lh, cmp_u64))
				continue;
		}
		exec_llm_pack(ex, &p, n);
	}
	free(lh);
	return p.calls;
}

JoinFactor *exec_factor_plan(Exec *ex, const JoinSides *s)
{
	if (!ex->set.join_factor || llm_is_offline(ex->e->llm) || s->nl < 1 || s->nr < 1 ||
	    s->pairs < 2)
		return NULL;   /* the offline backend never factors: nothing to ask it */
	JoinFactor *f = xcalloc(1, sizeof *f);
	f->s = *s;
	f->classify = classify_calls(ex, s);
	f->sample = s->pairs < EXEC_FACTOR_SAMPLE ? (int)s->pairs : EXEC_FACTOR_SAMPLE;
	f->cost = 1 + f->classify + f->sample;
	if (f->cost * 2 > s->calls) {   /* it could not pay */
		free(f);
		return NULL;
	}
	return f;
}

long long exec_factor_cost(const JoinFactor *f)
{
	return f ? f->cost : 0;
}

long long exec_factor_decided(const JoinFactor *f)
{
	return f && f->state == F_TRUSTED ? f->decided : 0;
}

/* ---- the factor call ---- */

/* Up to FACTOR_EXAMPLES values spread over the list, each cut to FACTOR_EXAMPLE_BYTES. */
static char **examples(char **v, size_t *n, long long nv, int *out)
{
	int k = nv < FACTOR_EXAMPLES ? (int)nv : FACTOR_EXAMPLES;
	char **e = xcalloc((size_t)k + 1, sizeof *e);
	for (int i = 0; i < k; i++) {
		long long at = (long long)i * nv / k;
		size_t len = n[at];
		if (len > FACTOR_EXAMPLE_BYTES) {
			len = FACTOR_EXAMPLE_BYTES;
			while (len > 0 && ((unsigned char)v[at][len] & 0xC0) == 0x80)
				len--;   /* not inside a character */
		}
		e[i] = xstrndup(v[at], len);
	}
	*out = k;
	return e;
}

/* Read the factor call's text (llm_factor_read's form) into f; 1 when it factors. */
static int take_reply(JoinFactor *f, const char *text)
{
	json_t *j = json_loads(text ? text : "", 0, NULL);
	int ok = json_is_true(json_object_get(j, "factors"));
	if (ok) {
		json_t *v = json_object_get(j, "values");
		f->property = xstrdup(json_string_value(json_object_get(j, "property")));
		f->nvalues = (int)json_array_size(v);
		f->values = xcalloc((size_t)f->nvalues + 1, sizeof *f->values);
		for (int i = 0; i < f->nvalues; i++)
			f->values[i] = xstrdup(json_string_value(json_array_get(v, (size_t)i)));
		f->different = strcmp(json_string_value(json_object_get(j, "match")), "different") == 0;
	}
	json_decref(j);
	return ok;
}

static SuqlStatus ask_factor(Exec *ex, Join *j, JoinFactor *f, SuqlErr *err)
{
	int nl, nr;
	char **le = examples(f->s.lv, f->s.ln, f->s.nl, &nl);
	char **re = examples(f->s.rv, f->s.rn, f->s.nr, &nr);
	LlmCall c = {0};
	c.kind = LLM_FACTOR;
	c.shape = LLM_SHAPE_JSON;
	c.question = ex->sigs[j->sig].question;
	c.options = (const char *const *)le;
	c.noptions = nl;
	c.expected = (const char *const *)re;
	c.nexpected = nr;
	LlmCall *cp = &c;
	SuqlStatus st = llm_run(ex->e->llm, &cp, 1, NULL, NULL, err);
	if (st == SUQL_OK) {
		if (c.status != LLM_DONE)
			f->state = F_FAILED;
		else if (c.unreadable)
			f->state = F_UNREAD;
		else if (!take_reply(f, c.text))
			f->state = F_NOFACTOR;
	}
	llm_call_clear(&c);
	text_strv_free(le, (size_t)nl);
	text_strv_free(re, (size_t)nr);
	return st;
}

/* ---- the classification ---- */

static int class_of(const JoinFactor *f, const MemoVal *mv)
{
	if (!mv || !mv->value)
		return -1;
	for (int i = 0; i < f->nvalues; i++)
		if (strcasecmp(mv->value, f->values[i]) == 0)
			return i;
	return -1;
}

static SuqlStatus classify(Exec *ex, JoinFactor *f, SuqlErr *err)
{
	Sig s = {0};
	s.kind = FT_ANSWER;
	s.question = xstrdup(f->property);
	s.options = xcalloc((size_t)f->nvalues + 1, sizeof *s.options);
	for (int i = 0; i < f->nvalues; i++)
		s.options[i] = xstrdup(f->values[i]);
	s.noptions = f->nvalues;
	int sig = memo_sig_intern(ex, &s);
	long long n = f->s.nl + f->s.nr;
	Req *reqs = xcalloc((size_t)n + 1, sizeof *reqs);
	for (long long i = 0; i < n; i++) {
		reqs[i].sig = sig;
		reqs[i].v = i < f->s.nl ? f->s.lv[i] : f->s.rv[i - f->s.nl];
		reqs[i].n = i < f->s.nl ? f->s.ln[i] : f->s.rn[i - f->s.nl];
	}
	SuqlStatus st = exec_llm_run(ex, reqs, (int)n, NULL, NULL, err);
	f->lc = xmalloc(((size_t)f->s.nl + 1) * sizeof *f->lc);
	f->rc = xmalloc(((size_t)f->s.nr + 1) * sizeof *f->rc);
	for (long long i = 0; i < n; i++) {
		const MemoVal *mv = st == SUQL_OK && reqs[i].state == REQ_DONE
		                    ? memo_get(ex->memo, sig, reqs[i].v, reqs[i].n) : NULL;
		int c = class_of(f, mv);
		if (i < f->s.nl)
			f->lnone += (f->lc[i] = c) < 0;
		else
			f->rnone += (f->rc[i - f->s.nl] = c) < 0;
	}
	free(reqs);
	return st;
}

/* ---- the sample ---- */

static int predicted(const JoinFactor *f, long long l, long long r)
{
	return (f->lc[l] == f->rc[r]) != f->different;
}

static int allowed(const JoinFactor *f, long long l, long long r)
{
	return (!f->s.allow || f->s.allow[l][r]) && f->lc[l] >= 0 && f->rc[r] >= 0;
}

typedef struct Pick {
	uint64_t h;
	long long l, r;
} Pick;

/* Keep the k pairs of smallest hash in p (sorted, *n of them). */
static void keep(Pick *p, int *n, int k, Pick x)
{
	if (k < 1 || (*n == k && x.h >= p[k - 1].h))
		return;
	int i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && p[i - 1].h > x.h) {
		p[i] = p[i - 1];
		i--;
	}
	p[i] = x;
}

/* Up to f->sample pairs the comparison decides, half predicted matches and half not
   (more of one when the other is short), each group the pairs of smallest hash. */
static int choose_sample(const JoinFactor *f, Pick *out)
{
	int k = f->sample, half = (k + 1) / 2, ny = 0, nn = 0;
	Pick *y = xcalloc((size_t)k + 1, sizeof *y), *no = xcalloc((size_t)k + 1, sizeof *no);
	uint64_t *rh = xmalloc(((size_t)f->s.nr + 1) * sizeof *rh);
	for (long long r = 0; r < f->s.nr; r++)
		rh[r] = vhash(f->s.rv[r], f->s.rn[r]);
	for (long long l = 0; l < f->s.nl; l++) {
		uint64_t hl = vhash(f->s.lv[l], f->s.ln[l]) * 0x9E3779B97F4A7C15ull;
		for (long long r = 0; r < f->s.nr; r++) {
			if (!allowed(f, l, r))
				continue;
			uint64_t h = (hl ^ rh[r]) * 0xBF58476D1CE4E5B9ull;
			h ^= h >> 31;
			Pick x = {h, l, r};
			if (predicted(f, l, r))
				keep(y, &ny, k, x);
			else
				keep(no, &nn, k, x);
		}
	}
	int take_y = ny < half ? ny : half, take_n = nn < k - take_y ? nn : k - take_y;
	if (take_y + take_n < k)
		take_y = ny < k - take_n ? ny : k - take_n;
	int n = 0;
	for (int i = 0; i < take_y; i++)
		out[n++] = y[i];
	for (int i = 0; i < take_n; i++)
		out[n++] = no[i];
	free(y);
	free(no);
	free(rh);
	return n;
}

static SuqlStatus judge_sample(Exec *ex, JoinFactor *f, SuqlErr *err)
{
	Pick *p = xcalloc((size_t)f->sample + 1, sizeof *p);
	int n = choose_sample(f, p);
	Req *reqs = xcalloc((size_t)n + 1, sizeof *reqs);
	for (int i = 0; i < n; i++) {
		reqs[i].sig = f->s.sig(ex, f->s.ctx, f->s.lv[p[i].l], f->s.ln[p[i].l]);
		reqs[i].v = f->s.rv[p[i].r];
		reqs[i].n = f->s.rn[p[i].r];
	}
	SuqlStatus st = exec_llm_run(ex, reqs, n, NULL, NULL, err);
	for (int i = 0; i < n && st == SUQL_OK; i++) {
		const MemoVal *mv = reqs[i].state == REQ_DONE
		                    ? memo_get(ex->memo, reqs[i].sig, reqs[i].v, reqs[i].n) : NULL;
		f->asked++;
		if (mv && (mv->verdict == VERDICT_YES || mv->verdict == VERDICT_NO) &&
		    (mv->verdict == VERDICT_YES) == predicted(f, p[i].l, p[i].r))
			f->agreed++;
	}
	if (st == SUQL_OK && (n == 0 || f->agreed < n))
		f->state = F_DISAGREED;   /* an unknown verdict confirms nothing either */
	free(reqs);
	free(p);
	return st;
}

/* Every pair both of whose values have a class, not in the memo yet, as the comparison
   decides. */
static void decide(Exec *ex, JoinFactor *f)
{
	for (long long l = 0; l < f->s.nl; l++) {
		int sig = -1;
		for (long long r = 0; r < f->s.nr; r++) {
			if (!allowed(f, l, r))
				continue;
			if (sig < 0)
				sig = f->s.sig(ex, f->s.ctx, f->s.lv[l], f->s.ln[l]);
			if (memo_get(ex->memo, sig, f->s.rv[r], f->s.rn[r]))
				continue;   /* the sample's own verdict */
			MemoVal *mv = memo_put(ex->memo, sig, f->s.rv[r], f->s.rn[r]);
			int yes = predicted(f, l, r);
			mv->verdict = yes ? VERDICT_YES : VERDICT_NO;
			f->decided++;
			f->yes += yes;
		}
	}
	f->state = F_TRUSTED;
}

SuqlStatus exec_factor_run(Exec *ex, Join *j, JoinFactor *f, SuqlErr *err)
{
	const LlmStats *ls = llm_stats_statement(ex->e->llm);
	long c0 = ls->total.calls, h0 = ls->total.cache_hits;
	SuqlStatus st = ask_factor(ex, j, f, err);
	if (st == SUQL_OK && f->state == F_PLANNED)
		st = classify(ex, f, err);
	if (st == SUQL_OK && f->state == F_PLANNED)
		st = judge_sample(ex, f, err);
	if (st == SUQL_OK && f->state == F_PLANNED)
		decide(ex, f);
	f->calls = ls->total.calls - c0;
	f->hits = ls->total.cache_hits - h0;
	return st;
}

/* ---- the plan and the counters ---- */

static void put_property(const JoinFactor *f, SBuf *out)
{
	sb_printf(out, "property '%s' (", f->property);
	for (int i = 0; i < f->nvalues; i++)
		sb_printf(out, "%s%s", i ? "|" : "", f->values[i]);
	sb_printf(out, "), a match when %s", f->different ? "they differ" : "the same");
}

void exec_factor_show(const JoinFactor *f, long long pairwise, SBuf *out)
{
	if (!f)
		return;
	sb_printf(out, "  factor: first ask whether one property of each side settles the "
	          "question: 1 call, about %lld classifying the %lld + %lld values, %d sample "
	          "pair%s judged directly: %lld calls if the sample agrees, else %lld more "
	          "pairwise (%lld in all at worst)\n", f->classify, f->s.nl, f->s.nr, f->sample,
	          f->sample == 1 ? "" : "s", f->cost, pairwise, f->cost + pairwise);
}

void exec_factor_counters(const JoinFactor *f, SBuf *out)
{
	if (!f || f->state == F_PLANNED)
		return;
	sb_printf(out, "  factor: %ld call%s (%ld cache hit%s): ", f->calls, f->calls == 1 ? "" : "s",
	          f->hits, f->hits == 1 ? "" : "s");
	switch (f->state) {
	case F_NOFACTOR:
		sb_puts(out, "the model says the question is not settled by one property of each "
		        "side; the pairs were judged\n");
		return;
	case F_UNREAD:
		sb_puts(out, "the model's factorization could not be read (not kept); the pairs "
		        "were judged\n");
		return;
	case F_FAILED:
		sb_puts(out, "the factorization could not be asked; the pairs were judged\n");
		return;
	default:
		break;
	}
	put_property(f, out);
	sb_printf(out, "; %d of %d sample pairs agreed", f->agreed, f->asked);
	if (f->state == F_DISAGREED) {
		sb_puts(out, ", so it was not trusted: the pairs were judged\n");
		return;
	}
	sb_printf(out, "; %lld pairs decided by comparing (%lld matched), not asked",
	          f->decided, f->yes);
	if (f->lnone || f->rnone)
		sb_printf(out, "; %lld left and %lld right value%s without a class, their pairs "
		          "judged", f->lnone, f->rnone, f->rnone == 1 ? "" : "s");
	sb_putc(out, '\n');
}

void exec_factor_free(JoinFactor *f)
{
	if (!f)
		return;
	free(f->property);
	text_strv_free(f->values, (size_t)f->nvalues);
	free(f->lc);
	free(f->rc);
	free(f);
}
