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
 */
#include "engine/plan_int.h"

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
	double win, wout, ein, eout;
	plan_cost_tokens(ex, ex->worst, &win, &wout);
	plan_cost_tokens(ex, ex->expect, &ein, &eout);
	int lazy = ex->expect_total < ex->worst_total;
	sb_puts(out, "cost (at most, each candidate taking its whole passage allowance): ");
	if (lazy)
		sb_printf(out, "expected %.0f tokens in, %.0f out; ", ein, eout);
	sb_printf(out, "worst case %.0f tokens in, %.0f out", win, wout);
	double w = llm_cost(ex->llm, win, wout);
	if (w < 0) {
		sb_printf(out, "; no price for %s (:set llm.price_in and llm.price_out, dollars a "
		          "million tokens, to see dollars)\n", llm_model(ex->llm) ? llm_model(ex->llm)
		                                                                 : "the model");
		return;
	}
	sb_puts(out, ": ");
	if (lazy) {
		sb_puts(out, "expected ");
		money(out, llm_cost(ex->llm, ein, eout));
		sb_puts(out, ", worst case ");
	}
	money(out, w);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (ex->set.budget_usd > 0) {
		sb_puts(out, "; budget ");
		money(out, ex->set.budget_usd);
		double e = lazy ? llm_cost(ex->llm, ein, eout) : w;
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
	*usd = plan_cost_usd(ex, ex->expect_total < ex->worst_total ? ex->expect : ex->worst);
	return *usd > ex->set.budget_usd;
}

void plan_cost_counters(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (!ex->llm || llm_is_offline(ex->llm) || (!t->tokens_in && !t->tokens_out))
		return;
	double c = llm_cost(ex->llm, (double)t->tokens_in, (double)t->tokens_out);
	if (c < 0) {
		sb_printf(out, "cost: no price for %s (:set llm.price_in and llm.price_out, dollars "
		          "a million tokens)\n", llm_model(ex->llm) ? llm_model(ex->llm) : "the model");
		return;
	}
	sb_puts(out, "cost: ");
	money(out, c);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (t->est_in || t->est_out)
		sb_puts(out, "; from tokens partly estimated");
	sb_putc(out, '\n');
}
