/*
 * plan_cost.c: the plan's and the counters' money. Before any call, the calls the plan
 * counted (expected and worst case, per kind) become tokens: a call carries at most the
 * candidates plan_per_call allows, each with its passage allowance (passage_tokens, within
 * batch_tokens), plus the prompt's own words; its reply at most a few tokens per candidate
 * (a verdict, a short answer, a summary). With the model's price (llm_price: llm.price_in
 * and llm.price_out, or the built-in list) the tokens become dollars, which budget_usd is
 * compared with; without one the plan gives tokens and says how to set a price. After the
 * statement, the counters give what the tokens the endpoint reported cost. These are
 * estimates of an upper bound, labelled "about"; the counters' figure is the endpoint's.
 *
 * The calls themselves are counted here too: how the walks size their waves
 * (plan_cost_wave_size, which the SQLite and the PostgreSQL walks both follow, so that both
 * send the same calls) and, from it, the calls a walk takes at worst and when a given share
 * of its candidates passes (plan_cost_worst_calls, plan_cost_expect_calls), which plan.c and
 * the PostgreSQL walk add up into the statement's estimates.
 */
#include "engine/plan_int.h"

#include <math.h>
#include <stdio.h>

/* A prompt's own words (instructions, the question, the format asked for), a call. */
#define PROMPT_TOKENS 250.0

/* Reply tokens a candidate may take, by kind: verify, answer, summary, classify, embed. */
static const double reply_tokens[5] = {8, 24, 160, 60, 0};

/* The candidates the statement's occurrences may ask about at most: the rows of their
   blocks' FROM; 0 when not known. */
static double candidates_cap(Exec *ex)
{
	double cap = 0;
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->block < 0)
			return 0;
		long long r = ex->blocks[o->block].from_rows;
		if (r <= 0)
			return 0;
		cap += (double)r;
	}
	return cap;
}

void plan_cost_tokens(Exec *ex, const long long *calls, double *in, double *out)
{
	double per = (double)plan_per_call(ex);
	double allowance = ex->set.passage_tokens;
	if (ex->set.batch_tokens > 0 && per * allowance > ex->set.batch_tokens)
		allowance = ex->set.batch_tokens / per;
	double cap = candidates_cap(ex);
	*in = *out = 0;
	for (int k = 0; k < 5; k++) {
		double n = (double)calls[k];
		if (k == 3) {   /* classify: a literal and the permitted values */
			*in += n * PROMPT_TOKENS;
			*out += n * reply_tokens[k];
			continue;
		}
		double cands = n * per;   /* every call full, but no more candidates than there are */
		if (cap > 0 && cands > cap)
			cands = cap;
		*in += cands * allowance + (k == 4 ? 0 : n * PROMPT_TOKENS);
		*out += cands * reply_tokens[k];
	}
}

double plan_cost_usd(Exec *ex, const long long *calls)
{
	double in, out;
	plan_cost_tokens(ex, calls, &in, &out);
	return llm_cost(ex->llm, in, out);
}

/* "$0.0123", with the precision a small sum needs */
static void money(SBuf *out, double usd)
{
	sb_printf(out, usd >= 1 ? "$%.2f" : usd >= 0.01 ? "$%.3f" : "$%.5f", usd);
}

static void price_words(Exec *ex, SBuf *out)
{
	double pin, pout;
	const char *from;
	llm_price(ex->llm, &pin, &pout, &from);
	sb_printf(out, "at %s's price, $%g in and $%g out a million tokens (%s)",
	          llm_model(ex->llm) ? llm_model(ex->llm) : "the model", pin, pout, from);
}

void plan_cost_show(Exec *ex, SBuf *out)
{
	if (!ex->llm || llm_is_offline(ex->llm) || ex->worst_total == 0)
		return;
	PlanCost pc;
	plan_cost_figures(ex, &pc);
	double win = pc.worst_in, wout = pc.worst_out, ein = pc.expect_in, eout = pc.expect_out;
	int lazy = pc.lazy;
	sb_puts(out, "cost (at most, each candidate taking its whole passage allowance): ");
	if (lazy)
		sb_printf(out, "expected %.0f tokens in, %.0f out; ", ein, eout);
	sb_printf(out, "worst case %.0f tokens in, %.0f out", win, wout);
	if (pc.reasoning)
		sb_printf(out, " (with %d hidden reasoning tokens a call, llm.reasoning_tokens)",
		          pc.reasoning);
	double w = pc.worst_usd;
	if (w < 0) {
		sb_printf(out, "; no price for %s (:set llm.price_in and llm.price_out, dollars a "
		          "million tokens, to see dollars)\n", llm_model(ex->llm) ? llm_model(ex->llm)
		                                                                 : "the model");
		return;
	}
	sb_puts(out, ": ");
	if (lazy) {
		sb_puts(out, "expected ");
		money(out, pc.expect_usd);
		sb_puts(out, ", worst case ");
	}
	money(out, w);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (ex->set.budget_usd > 0) {
		sb_puts(out, "; budget ");
		money(out, ex->set.budget_usd);
		double e = lazy ? pc.expect_usd : w;
		if (e > ex->set.budget_usd)
			sb_puts(out, ": over it, refused");
		else if (w > ex->set.budget_usd)
			sb_puts(out, ": the statement stops there if it needs more");
	}
	sb_putc(out, '\n');
}

int plan_cost_over(Exec *ex, double *usd)
{
	*usd = 0;
	if (ex->set.budget_usd <= 0 || !ex->llm || llm_is_offline(ex->llm))
		return 0;
	PlanCost pc;
	plan_cost_figures(ex, &pc);
	*usd = pc.lazy ? pc.expect_usd : pc.worst_usd;
	return *usd > ex->set.budget_usd;
}

void plan_cost_counters(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (!ex->llm || llm_is_offline(ex->llm) || (!t->tokens_in && !t->tokens_out))
		return;
	double c = llm_counts_usd(t);   /* each reply at its model's price, cached input at
	                                   the cached rate */
	if (c < 0) {
		sb_printf(out, "cost: no price for %s (:set llm.price_in and llm.price_out, dollars "
		          "a million tokens)\n", llm_model(ex->llm) ? llm_model(ex->llm) : "the model");
		return;
	}
	sb_puts(out, "cost: ");
	money(out, c);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (t->tokens_cached > 0) {
		LlmPrice p;
		if (llm_price_of(ex->llm, NULL, &p))
			sb_printf(out, "; the %ld cached input tokens at $%g a million", t->tokens_cached,
			          p.cached_in);
	}
	if (t->est_in || t->est_out)
		sb_puts(out, "; from tokens partly estimated");
	sb_putc(out, '\n');
}

/* Wave sizing. A walk that needs every row asks WAVE_ALL candidates at a time (or a full
   wave, when that is more). Otherwise the pass rate is estimated as (passed + w * prior) /
   (decided + w), w = WAVE_PRIOR_WEIGHT: the prior counts as w candidates already decided,
   so the first waves follow it and later ones what was seen. Before anything was seen it
   is not taken below PLAN_WALK_EXPECT_RATE, the rate the budget check assumes; after that the
   rate seen rules, down to WAVE_RATE_MIN (a predicate rarer than the budget's guess gets
   full waves, not a string of small ones). The prior is PLAN_WAVE_PRIOR for candidates in
   structured order with nothing known of the question, and the share of candidates the
   retrieval index (or the ranking) finds sharing a word with the question otherwise
   (PLAN_WAVE_PRIOR_RANKED_MIN when it found none).

   The first wave of a ranked walk is the exception: when the ranking is good its top
   candidates pass, so it asks for the rows needed at WAVE_TOP_RATE plus one, and a walk
   whose ranking is right ends in that one round trip (at most 1.5n + 2 candidates for
   LIMIT n). Every later wave asks for the rows still needed plus one standard deviation
   of a count of passes (sqrt(rest)), so that a rare predicate is found in one more wave
   rather than in several small ones: a wave costs one round trip however full it is. (A
   first wave has no margin: its rate is a guess, and a margin on a guess is speculation.) */
#define WAVE_ALL 4096
#define WAVE_PRIOR_WEIGHT 10.0
#define WAVE_TOP_RATE 0.8
#define WAVE_RATE_MIN 1e-4

/* How many candidates the next wave asks about: enough to find the rest rows still
   needed (-1: all of them) at the pass rate seen so far, which starts from prior; at most
   maxwave (a call's batch times the calls in flight). top: the first wave of a ranked
   walk. */
long long plan_cost_wave_size(long long rest, long long seen_pass, long long seen_dec,
                              double prior, long long maxwave, int top)
{
	if (rest < 0)
		return WAVE_ALL > maxwave ? WAVE_ALL : maxwave;
	long long want;
	if (top) {
		want = (long long)ceil((double)rest / WAVE_TOP_RATE) + 1;
	} else {
		double rate = ((double)seen_pass + WAVE_PRIOR_WEIGHT * prior) /
		              ((double)seen_dec + WAVE_PRIOR_WEIGHT);
		double floor = seen_dec > 0 ? WAVE_RATE_MIN : PLAN_WALK_EXPECT_RATE;
		if (rate < floor)
			rate = floor;
		if (rate > 1)
			rate = 1;
		double margin = seen_dec > 0 ? sqrt((double)rest) : 0;
		want = (long long)ceil(((double)rest + margin) / rate);
	}
	if (want > maxwave)
		want = maxwave;
	return want < 1 ? 1 : want;
}

long long plan_cost_worst_calls(long long n, long long need, int natoms, long long maxwave,
                                long long per_call)
{
	if (natoms < 1)
		natoms = 1;
	if (per_call < 1)
		per_call = 1;
	long long calls = 0, asked = 0, d = 0;
	while (asked < n) {
		/* the smallest next wave: a prior of 1, and whatever number of rows passed so
		   far makes it smallest */
		long long want = need < 0 ? plan_cost_wave_size(-1, 0, 0, 1.0, maxwave, 0) : maxwave;
		for (long long p = 0; need >= 0 && p < need && p <= d && p < 1000; p++) {
			long long x = plan_cost_wave_size(need - p, p, d, 1.0, maxwave, 0);
			long long t = calls ? x : plan_cost_wave_size(need - p, p, d, 1.0, maxwave, 1);
			if (t < x)
				x = t;
			if (x < want)
				want = x;
		}
		long long sz = want < n - asked ? want : n - asked;
		calls += (sz + per_call - 1) / per_call;
		asked += sz;
		/* a wave asks each candidate one question; one with several questions may take
		   as many waves to be decided */
		d += sz / natoms > 0 ? sz / natoms : 1;
	}
	return calls;
}

long long plan_cost_expect_calls(long long n, long long need, int natoms, long long maxwave,
                                 long long per_call, double rate)
{
	if (natoms < 1)
		natoms = 1;
	if (per_call < 1)
		per_call = 1;
	if (need < 0)
		return plan_cost_worst_calls(n, need, natoms, maxwave, per_call);
	long long calls = 0, asked = 0, have = 0;
	while (asked < n && have < need) {
		long long want = plan_cost_wave_size(need - have, (long long)(rate * (double)asked),
		                                     asked, rate, maxwave, 0);
		long long sz = want < n - asked ? want : n - asked;
		calls += natoms * ((sz + per_call - 1) / per_call);
		asked += sz;
		have = (long long)(rate * (double)asked + 1e-9);
	}
	return calls;
}

/* ---- the figures the cost line states, and the reasoning allowance ---- */

double plan_cost_reasoning(Exec *ex, const long long *calls)
{
	double per = ex->llm ? (double)llm_reasoning_tokens(ex->llm) : 0, n = 0;
	for (int k = 0; k < FT_COST_SLOTS; k++)
		n += k == 4 ? 0 : (double)calls[k];   /* an embedding writes nothing */
	return per * n;
}

void plan_cost_figures(Exec *ex, PlanCost *c)
{
	plan_cost_tokens(ex, ex->worst, &c->worst_in, &c->worst_out);
	plan_cost_tokens(ex, ex->expect, &c->expect_in, &c->expect_out);
	c->reasoning = ex->llm ? llm_reasoning_tokens(ex->llm) : 0;
	c->worst_out += plan_cost_reasoning(ex, ex->worst);
	c->lazy = ex->expect_total < ex->worst_total;
	c->worst_usd = ex->llm ? llm_cost(ex->llm, c->worst_in, c->worst_out) : -1;
	c->expect_usd = ex->llm ? llm_cost(ex->llm, c->expect_in, c->expect_out) : -1;
}
