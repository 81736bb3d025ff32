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
 * as any call is, an unreadable answer unknown and never cached); and every classified
 * value is checked, judged directly against an anchor of its class, the anchors of every
 * two classes against each other (exec_factor_check.c, which says why that is enough).
 * The pairs between values the check trusts go into the memo as the comparison decides
 * (suql_match finds them there); the pairs of a value it does not trust, or that has no
 * class, are judged directly. When the model says the question does not factor, its reply
 * cannot be read, or the check does not trust the factorization at all, the pairs are
 * judged as before, the check's verdicts reused from the memo, and the counters say why.
 *
 * Under a lazy LIMIT (a join whose LIMIT's rows may be any that pass), the values are
 * classified in waves, each side's values in their listed order, the first wave about
 * sqrt(2 x classes x LIMIT) values a side (enough for the LIMIT's matches when the classes
 * are even), each next one twice as many; after each wave its values are checked, the
 * matches between trusted values decided, and the final statement counted: the walk stops
 * once it has the LIMIT's rows, and the rest is never asked.
 */
#include "engine/exec_int.h"
#include "engine/memo_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FACTOR_EXAMPLES 8      /* example values of each side shown to the model */
#define FACTOR_EXAMPLES_LAZY 3 /* ... under a lazy LIMIT, whose whole cost is a few calls */
#define FACTOR_EXAMPLE_BYTES 300
#define FACTOR_EXAMPLE_BYTES_LAZY 160

typedef enum FactorState {
	F_PLANNED,       /* not asked yet */
	F_NOFACTOR,      /* the model says the question does not factor */
	F_UNREAD,        /* its reply could not be read */
	F_FAILED,        /* the factor call failed, or the classification */
	F_DISAGREED,     /* the check does not trust the factorization at all */
	F_TRUSTED        /* the pairs were decided by the comparison, or judged */
} FactorState;

struct JoinFactor {
	JoinSides s;          /* borrowed from the join's plan */
	long long lazy;       /* the LIMIT a lazy join stops at, else -1 */
	long long classify;   /* classification calls expected (every value) */
	long long check;      /* check calls expected */
	long long cost;       /* 1 + classify + check */
	FactorState state;
	char *property;
	char **values;
	int nvalues;
	int different;        /* the question holds when the values differ (else the same) */
	FactorCheck *fc;      /* the classes, the check and the pairs decided */
	long long lw, rw;     /* values of each side classified (a prefix of each order) */
	long long *lord, *rord;   /* the order each side's values are classified in: as
	                             listed, or under a lazy LIMIT the shortest first */
	int waves;
	int stopped;          /* a lazy walk stopped at its LIMIT before the last value */
	long calls;           /* calls made by the attempt */
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

JoinFactor *exec_factor_plan(Exec *ex, const JoinSides *s, long long lazy)
{
	if (!ex->set.join_factor || llm_is_offline(ex->e->llm) || s->nl < 1 || s->nr < 1 ||
	    s->pairs < 2)
		return NULL;   /* the offline backend never factors: nothing to ask it */
	JoinFactor *f = xcalloc(1, sizeof *f);
	f->s = *s;
	f->lazy = lazy;
	f->classify = classify_calls(ex, s);
	/* the check: a pair for each value, a few between the classes' anchors, two values
	   a pair */
	ExecLlmPack p = {0};
	for (long long i = 0; i < s->nl + s->nr; i++)
		exec_llm_pack(ex, &p, 2 * (i < s->nl ? s->ln[i] : s->rn[i - s->nl]));
	f->check = p.calls + 1;
	f->cost = 1 + f->classify + f->check;
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
	return f && f->state == F_TRUSTED ? exec_factor_check_stats(f->fc)->decided : 0;
}

int exec_factor_done(const JoinFactor *f)
{
	return f && f->state == F_TRUSTED;
}

/* ---- the factor call ---- */

/* Up to `most` values spread over the list, each cut to `bytes`. */
static char **examples(char **v, size_t *n, long long nv, int most, size_t bytes, int *out)
{
	int k = nv < most ? (int)nv : most;
	char **e = xcalloc((size_t)k + 1, sizeof *e);
	for (int i = 0; i < k; i++) {
		long long at = (long long)i * nv / k;
		size_t len = n[at];
		if (len > bytes) {
			len = bytes;
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
	int most = f->lazy > 0 ? FACTOR_EXAMPLES_LAZY : FACTOR_EXAMPLES;
	size_t bytes = f->lazy > 0 ? FACTOR_EXAMPLE_BYTES_LAZY : FACTOR_EXAMPLE_BYTES;
	char **le = examples(f->s.lv, f->s.ln, f->s.nl, most, bytes, &nl);
	char **re = examples(f->s.rv, f->s.rn, f->s.nr, most, bytes, &nr);
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

/* Classify the left values [f->lw, lw) and the right values [f->rw, rw) not classified
   yet (a value on both sides is one), and hand their classes to the check. */
static SuqlStatus classify(Exec *ex, JoinFactor *f, long long lw, long long rw, SuqlErr *err)
{
	Sig s = {0};
	s.kind = FT_ANSWER;
	s.question = xstrdup(f->property);
	s.options = xcalloc((size_t)f->nvalues + 1, sizeof *s.options);
	for (int i = 0; i < f->nvalues; i++)
		s.options[i] = xstrdup(f->values[i]);
	s.noptions = f->nvalues;
	int sig = memo_sig_intern(ex, &s);
	long long n = 0;
	Req *reqs = xcalloc((size_t)(lw - f->lw + rw - f->rw) + 1, sizeof *reqs);
	for (long long i = f->lw; i < lw; i++) {
		long long l = f->lord[i];
		if (exec_factor_check_class(f->fc, 0, l) == -2) {
			reqs[n].tag = (int)l;
			reqs[n].v = f->s.lv[l];
			reqs[n++].n = f->s.ln[l];
		}
	}
	for (long long i = f->rw; i < rw; i++) {
		long long r = f->rord[i];
		if (exec_factor_check_class(f->fc, 1, r) == -2) {
			reqs[n].tag = (int)r;
			reqs[n].tag2 = 1;
			reqs[n].v = f->s.rv[r];
			reqs[n++].n = f->s.rn[r];
		}
	}
	for (long long i = 0; i < n; i++)
		reqs[i].sig = sig;
	SuqlStatus st = exec_llm_run(ex, reqs, (int)n, NULL, NULL, err);
	for (long long i = 0; i < n && st == SUQL_OK; i++) {
		const MemoVal *mv = reqs[i].state == REQ_DONE
		                    ? memo_get(ex->memo, sig, reqs[i].v, reqs[i].n) : NULL;
		exec_factor_check_set(f->fc, reqs[i].tag2, reqs[i].tag, class_of(f, mv));
	}
	free(reqs);
	f->lw = lw;
	f->rw = rw;
	f->waves++;
	return st;
}

/* The first wave of a lazy walk: about sqrt(2 x classes x LIMIT) values a side, enough
   for the LIMIT's matches among them when the classes are even. */
static long long first_wave(const JoinFactor *f)
{
	long long w = 4;
	while (w * w < 2 * (long long)f->nvalues * f->lazy)
		w++;
	return w;
}

static const size_t *sort_len;

static int by_len(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	if (sort_len[x] != sort_len[y])
		return sort_len[x] < sort_len[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* The order values are classified in: as listed, or under a lazy LIMIT the shortest first
   (any rows that pass answer it, and short values cost the fewest tokens). */
static long long *order(const size_t *len, long long n, int shortest)
{
	long long *o = xmalloc(((size_t)n + 1) * sizeof *o);
	for (long long i = 0; i < n; i++)
		o[i] = i;
	if (shortest) {
		sort_len = len;
		qsort(o, (size_t)n, sizeof *o, by_len);
		sort_len = NULL;
	}
	return o;
}

SuqlStatus exec_factor_run(Exec *ex, Join *j, JoinFactor *f, SuqlErr *err)
{
	const LlmStats *ls = llm_stats_statement(ex->e->llm);
	long c0 = ls->total.calls, h0 = ls->total.cache_hits;
	SuqlStatus st = ask_factor(ex, j, f, err);
	if (st == SUQL_OK && f->state == F_PLANNED) {
		f->fc = exec_factor_check_new(&f->s, f->nvalues, f->different);
		f->lord = order(f->s.ln, f->s.nl, f->lazy > 0);
		f->rord = order(f->s.rn, f->s.nr, f->lazy > 0);
		long long w = f->lazy > 0 ? first_wave(f) : (f->s.nl > f->s.nr ? f->s.nl : f->s.nr);
		long long need = f->lazy;
		int grow = 1;
		for (;;) {
			long long lw = w < f->s.nl ? w : f->s.nl, rw = w < f->s.nr ? w : f->s.nr;
			int last = lw == f->s.nl && rw == f->s.nr;
			if (grow)
				st = classify(ex, f, lw, rw, err);
			if (st == SUQL_OK)
				st = exec_factor_check_run(ex, f->fc, !last, need, err);
			if (st != SUQL_OK)
				break;
			if (exec_factor_check_distrusted(f->fc)) {
				f->state = F_DISAGREED;
				break;
			}
			if (last) {
				f->state = F_TRUSTED;
				break;
			}
			long long got = 0;
			j->ran = 1;   /* a pair not decided yet counts as no match */
			int counted = exec_final_count(ex, &got) == 0;
			j->ran = 0;
			if (counted && got >= f->lazy) {
				f->state = F_TRUSTED;
				f->stopped = 1;
				break;
			}
			/* short: check more of the values classified, else classify more */
			need += counted && got < f->lazy ? f->lazy - got : f->lazy;
			grow = !exec_factor_check_unchosen(f->fc);
			if (grow)
				w *= 2;
		}
	}
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
	          "question: 1 call, about %lld classifying the %lld + %lld values, about %lld "
	          "checking each value once against its class (and the classes against each "
	          "other), pairs of several left values a call: %lld calls when every check "
	          "agrees, else the pairs of the values found wrong judged, or "
	          "past a quarter of them %lld more pairwise (%lld in all at worst)\n",
	          f->classify, f->s.nl, f->s.nr, f->check, f->cost, pairwise,
	          f->cost + pairwise);
	if (f->lazy > 0)
		sb_printf(out, "  factor walk: lazy, stops once %lld row%s passed (LIMIT): values "
		          "classified and checked in waves, the first about sqrt(2 x classes x "
		          "LIMIT) a side, each next one twice as many\n", f->lazy,
		          f->lazy == 1 ? "" : "s");
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
	const FactorCheckStats *c = exec_factor_check_stats(f->fc);
	put_property(f, out);
	sb_printf(out, "; %lld value%s classified", c->classified, c->classified == 1 ? "" : "s");
	if (f->waves > 1 || f->stopped)
		sb_printf(out, " in %d wave%s", f->waves, f->waves == 1 ? "" : "s");
	if (c->unclassified)
		sb_printf(out, " (%lld in no class, their pairs judged)", c->unclassified);
	sb_printf(out, "; check: %lld pair%s judged directly (%lld between classes), every "
	          "classified value once against its class", c->checked, c->checked == 1 ? "" : "s",
	          c->crossed);
	if (c->values_bad)
		sb_printf(out, ", %lld value%s disagreed", c->values_bad,
		          c->values_bad == 1 ? "" : "s");
	if (c->reanchored)
		sb_printf(out, " (%lld anchor%s chosen again)", c->reanchored,
		          c->reanchored == 1 ? "" : "s");
	if (f->state == F_DISAGREED) {
		sb_puts(out, c->values_bad * 4 > c->values_checked
		        ? ", more than a quarter of those checked, so it was not trusted: the "
		          "pairs were judged\n"
		        : "; a pair between two classes' anchors disagreed (the classes are not "
		          "what the question compares), so it was not trusted: the pairs were "
		          "judged\n");
		return;
	}
	sb_printf(out, "; %lld pairs decided by comparing (%lld matched), not asked; %lld "
	          "judged directly (values found wrong or without a class)", c->decided, c->yes,
	          c->direct);
	if (f->stopped)
		sb_printf(out, "; stopped after %lld of %lld left and %lld of %lld right values, "
		          "the LIMIT's rows found", f->lw, f->s.nl, f->rw, f->s.nr);
	sb_puts(out, f->stopped ? "; every value of a pair decided was checked once: a wrong "
	        "class for any value that changes a row returned is caught\n"
	        : "; every value was checked once: a wrong class for any value that changes a "
	          "match is caught\n");
}

void exec_factor_free(JoinFactor *f)
{
	if (!f)
		return;
	free(f->property);
	text_strv_free(f->values, (size_t)f->nvalues);
	exec_factor_check_free(f->fc);
	free(f->lord);
	free(f->rord);
	free(f);
}
