/*
 * plan_cost.c: the plan's and the counters' money. Before any call, the calls the plan
 * counted become tokens, and with the model's price (llm_price: llm.price_in and
 * llm.price_out, or the built-in list) dollars, which budget_usd is compared with; without
 * a price the plan gives tokens and says how to set one. After the statement, the counters
 * give what the tokens the endpoint reported cost.
 *
 * Tokens come from the texts the calls will send, read before anything is asked
 * (plan_text.c): a request is its prompt's own bytes (the real template, filled with the
 * question, the format and the reply's schema, every candidate's text empty:
 * llm_request_bytes) and each candidate's text as the request writes it, cut to the
 * passage allowance; bytes become tokens by the counters' rule for an endpoint that
 * reports no usage (TEXT_BYTES_PER_TOKEN). Expected: the asks the walk itself expects
 * (plan_cost_waves: a ranked walk's first wave, sized for its top candidates, ends it),
 * the texts at their average, the calls as full as the texts' lengths let batch_tokens
 * fill them, replies of a usual length. At most: the worst calls (each as full as the
 * passage allowance lets it be) and every text the calls may ask, each once, at its
 * length (none above the largest), with the most bytes a sampled text needs per byte, and
 * replies as long as max_tokens lets them be. Calls whose texts could not be read (a join's
 * pairs, an aggregate's groups, ENUM's classifications, embeddings, a FROM too large to
 * count) are counted as before: each candidate at its whole passage allowance, the prompt
 * at PROMPT_TOKENS. A reasoning model's hidden tokens (llm.reasoning_tokens a call) are
 * added to the worst case's output (plan_cost_figures, the one source of the cost line,
 * the budget's refusal and EXPLAIN's JSON).
 *
 * The calls themselves are counted here too: how the walks size their waves
 * (plan_cost_wave_size, which the SQLite and the PostgreSQL walks both follow, so that both
 * send the same calls) and, from it, the calls a walk takes at worst and when a given share
 * of its candidates passes (plan_cost_worst_calls, plan_cost_expect_calls), which plan.c and
 * the PostgreSQL walk add up into the statement's estimates.
 */
#include "engine/plan_int.h"
#include "engine/memo_int.h"
#include "engine/sql_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A prompt's own words (instructions, the question, the format asked for), a call, where
   the texts were not read. */
#define PROMPT_TOKENS 250.0

long long plan_cost_per_call(Exec *ex)
{
	long long b = ex->set.batch > 0 ? ex->set.batch : 1;
	if (ex->set.batch_tokens > 0 && ex->set.passage_tokens > 0) {
		long long fit = ex->set.batch_tokens / ex->set.passage_tokens;
		if (fit < 1)
			fit = 1;
		if (fit < b)
			b = fit;
	}
	return b;
}

/* Reply tokens a candidate may take, by kind (verify, answer, summary, classify, embed),
   where the texts were not read. */
static const double reply_tokens[5] = {8, 24, 160, 60, 0};

/* The reply tokens expected of a candidate, by the kind of its call (a verdict in a list,
   a short answer, a summary of the words it is asked for), and of a call (the list's
   brackets and its key). */
static double reply_expected(const LlmCall *c)
{
	switch (c->kind) {
	case LLM_VERIFY:
		return 2;
	case LLM_ANSWER:
		return c->noptions > 0 || c->shape != LLM_SHAPE_TEXT ? 4 : 16;
	case LLM_SUMMARY:
		return (double)llm_max_tokens(c, 1) / 2;   /* about the words a summary is asked for */
	case LLM_EXTRACT:
		return 60;
	default:
		return 0;
	}
}
#define REPLY_CALL_TOKENS 4.0

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

/* Calls of calls[k] (per kind) at the passage allowance. */
static void allowance_tokens(Exec *ex, const long long *calls, double *in, double *out)
{
	double per = (double)plan_cost_per_call(ex);
	double allowance = ex->set.passage_tokens;
	if (ex->set.batch_tokens > 0 && per * allowance > ex->set.batch_tokens)
		allowance = ex->set.batch_tokens / per;
	double cap = candidates_cap(ex);
	*in = *out = 0;
	for (int k = 0; k < 5; k++) {
		double n = (double)calls[k];
		if (n <= 0)
			continue;
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

void plan_cost_reset(Exec *ex)
{
	memset(ex->est.tok_in, 0, sizeof ex->est.tok_in);
	memset(ex->est.tok_out, 0, sizeof ex->est.tok_out);
	memset(ex->est.tok_calls, 0, sizeof ex->est.tok_calls);
	ex->est.call_in = ex->est.call_out = 0;
}

/* A call of o's signature, as exec_llm.c makes one (its candidates are not read). */
static LlmCall proto_of(Exec *ex, const Occ *o)
{
	const Sig *s = &ex->sigs[o->sig];
	LlmCall c;
	memset(&c, 0, sizeof c);
	c.kind = s->kind == FT_VERIFY ? LLM_VERIFY : s->kind == FT_ANSWER ? LLM_ANSWER
	         : s->kind == FT_EXTRACT ? LLM_EXTRACT : LLM_SUMMARY;
	c.quotes = s->quotes;
	c.shape = memo_sig_shape(s);
	c.question = s->question;
	c.subject = s->subject;
	c.proxy = s->judge != 0;
	c.wording = s->judge == 2;
	c.op = s->op;
	c.expected = (const char *const *)s->expected;
	c.nexpected = s->nexpected;
	c.options = (const char *const *)s->options;
	c.noptions = s->noptions;
	return c;
}

void plan_cost_texts(Exec *ex, const Occ *o, const PlanText *t, const PlanAsks *a)
{
	if (!ex->e->llm || llm_is_offline(ex->e->llm))
		return;
	LlmCall c = proto_of(ex, o);
	int slot = FT_COST_SLOT(o->kind);
	double avg = t->avg;
	/* expected: calls as full as batch and batch_tokens let texts of the average length
	   fill them (exec_llm_run counts a candidate's passages in tokens) */
	long long pe = ex->set.batch > 0 ? ex->set.batch : 1;
	double tok = ceil(avg / TEXT_BYTES_PER_TOKEN) + 1;
	if (ex->set.batch_tokens > 0 && (double)ex->set.batch_tokens / tok < (double)pe)
		pe = (long long)((double)ex->set.batch_tokens / tok);
	if (pe < 1)
		pe = 1;
	double full_bytes = (double)llm_request_bytes(ex->e->llm, &c, (int)pe);
	double in = 0, out = 0, asks = 0;
	for (int w = 0; w < a->nwave; w++) {
		double sz = a->ewave[w];
		if (sz <= 0)
			continue;
		double full = floor(sz / (double)pe);
		long long rem = (long long)llround(sz - full * (double)pe);
		double calls = full + (rem > 0);
		in += full * full_bytes + (rem > 0 ? (double)llm_request_bytes(ex->e->llm, &c, (int)rem)
		                                   : 0);
		asks += sz;
		out += sz * reply_expected(&c) + calls * REPLY_CALL_TOKENS;
	}
	in += a->etext >= 0 ? a->etext : asks * avg * t->ratio;
	ex->est.tok_in[0] += in / TEXT_BYTES_PER_TOKEN;
	ex->est.tok_out[0] += out;
	ex->est.tok_calls[0][slot] += a->ecalls;
	/* at most: every call the worst case counts, each as long as its prompt for per
	   candidates (or one, whose form differs) and every text it may ask, each once */
	long long per = a->per, wcalls = a->wcalls;
	double wasks = a->wasks;
	if (per > (long long)ceil(wasks))   /* no call carries more than it may ask */
		per = (long long)ceil(wasks);
	if (per < 1)
		per = 1;
	double one = (double)llm_request_bytes(ex->e->llm, &c, 1);
	double most = (double)llm_request_bytes(ex->e->llm, &c, (int)per);
	if (one > most)
		most = one;
	double texts = wasks * t->max;
	if (t->total >= 0 && t->total < texts)
		texts = t->total;
	double win = (double)wcalls * most + texts * t->ratio_max;
	int mt1 = llm_max_tokens(&c, 1), mtn = llm_max_tokens(&c, (int)per);
	double mt = mt1 > mtn ? mt1 : mtn;
	/* a request's bytes become tokens rounded up */
	ex->est.tok_in[1] += win / TEXT_BYTES_PER_TOKEN + (double)wcalls;
	ex->est.tok_out[1] += (double)wcalls * mt;
	ex->est.tok_calls[1][slot] += wcalls;
	/* one request at most, for the caps' first guess */
	double call = (most + (double)per * t->max * t->ratio_max) / TEXT_BYTES_PER_TOKEN + 1;
	if (call > ex->est.call_in)
		ex->est.call_in = call;
	if (mt > ex->est.call_out)
		ex->est.call_out = mt;
}

/* The statement's tokens (worst: at most, else expected). */
static void plan_cost_tokens(Exec *ex, int worst, double *in, double *out)
{
	const long long *calls = worst ? ex->est.worst : ex->est.expect;
	long long rest[FT_COST_SLOTS];
	for (int k = 0; k < FT_COST_SLOTS; k++) {
		rest[k] = calls[k] - ex->est.tok_calls[worst][k];
		if (rest[k] < 0)
			rest[k] = 0;
	}
	allowance_tokens(ex, rest, in, out);
	*in += ex->est.tok_in[worst];
	*out += ex->est.tok_out[worst];
}

/* What the statement's tokens cost (-1: no price). */
static double plan_cost_usd(Exec *ex, int worst)
{
	double in, out;
	plan_cost_tokens(ex, worst, &in, &out);
	return llm_cost_planned(ex->e->llm, in, out);
}

static void price_words(Exec *ex, SBuf *out)
{
	double pin, pout;
	const char *from;
	llm_price(ex->e->llm, &pin, &pout, &from);
	sb_printf(out, "at %s's price, $%g in and $%g out a million tokens (%s)",
	          llm_model(ex->e->llm) ? llm_model(ex->e->llm) : "the model", pin, pout, from);
}

/* Where the figures come from: the texts, the passage allowance, or both. */
static const char *cost_source(Exec *ex)
{
	long long read = 0, all = 0;
	for (int k = 0; k < FT_COST_SLOTS; k++) {
		read += ex->est.tok_calls[1][k] < ex->est.worst[k] ? ex->est.tok_calls[1][k] : ex->est.worst[k];
		all += ex->est.worst[k];
	}
	if (read == 0)
		return "each candidate at its whole passage allowance";
	if (read < all)
		return "from the texts' lengths, and at the passage allowance where they were not "
		       "read";
	return "from the texts' lengths";
}

/* Whether the expected figures read as the worst case's (then only "at most" is said). */
static int same_figures(double ein, double eout, double win, double wout)
{
	return llround(ein) == llround(win) && llround(eout) == llround(wout);
}

/* The hidden reasoning tokens of the calls of calls[FT_COST_SLOTS]. */
static double plan_cost_reasoning(Exec *ex, const long long *calls)
{
	double per = ex->e->llm ? (double)llm_reasoning_tokens(ex->e->llm) : 0, n = 0;
	for (int k = 0; k < FT_COST_SLOTS; k++)
		n += k == 4 ? 0 : (double)calls[k];   /* an embedding writes nothing */
	return per * n;
}

void plan_cost_figures(Exec *ex, PlanCost *c)
{
	plan_cost_tokens(ex, 1, &c->worst_in, &c->worst_out);
	plan_cost_tokens(ex, 0, &c->expect_in, &c->expect_out);
	c->reasoning = ex->e->llm ? llm_reasoning_tokens(ex->e->llm) : 0;
	c->worst_out += plan_cost_reasoning(ex, ex->est.worst);
	c->lazy = !same_figures(c->expect_in, c->expect_out, c->worst_in, c->worst_out);
	/* bulk mode: at batch prices (doc/bulk.md) */
	c->worst_usd = ex->e->llm ? llm_cost_planned(ex->e->llm, c->worst_in, c->worst_out) : -1;
	c->expect_usd = ex->e->llm ? llm_cost_planned(ex->e->llm, c->expect_in, c->expect_out) : -1;
}

void plan_cost_words(Exec *ex, SBuf *out)
{
	PlanCost pc;
	plan_cost_figures(ex, &pc);
	if (pc.lazy) {
		sb_puts(out, "about ");
		llm_money(out, pc.expect_usd);
		sb_puts(out, " (at most ");
		llm_money(out, pc.worst_usd);
		sb_puts(out, ")");
	} else {
		sb_puts(out, "at most ");
		llm_money(out, pc.worst_usd);
	}
}

void plan_cost_show(Exec *ex, SBuf *out)
{
	if (!ex->e->llm || llm_is_offline(ex->e->llm) || ex->est.worst_total == 0)
		return;
	PlanCost pc;
	plan_cost_figures(ex, &pc);
	sb_printf(out, "cost (%s): ", cost_source(ex));
	if (pc.lazy)
		sb_printf(out, "expected about %.0f tokens in, %.0f out; ", pc.expect_in,
		          pc.expect_out);
	sb_printf(out, "at most %.0f %s, %.0f out", pc.worst_in, pc.lazy ? "in" : "tokens in",
	          pc.worst_out);
	if (pc.reasoning)
		sb_printf(out, " (with %d hidden reasoning tokens a call, llm.reasoning_tokens)",
		          pc.reasoning);
	double w = pc.worst_usd, e = pc.expect_usd;
	if (w < 0) {
		sb_printf(out, "; no price for %s (:set llm.price_in and llm.price_out, dollars a "
		          "million tokens, to see dollars)\n", llm_model(ex->e->llm) ? llm_model(ex->e->llm)
		                                                                 : "the model");
		return;
	}
	sb_puts(out, ": ");
	if (pc.lazy) {
		sb_puts(out, "expected about ");
		llm_money(out, e);
		sb_puts(out, ", ");
	}
	sb_puts(out, "at most ");
	llm_money(out, w);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (llm_bulk_collecting(ex->e->llm))   /* bulk mode (doc/bulk.md) */
		sb_printf(out, ", at batch prices (%g of those: llm.bulk_discount)",
		          llm_bulk_share(ex->e->llm));
	if (ex->set.budget_usd > 0) {
		sb_puts(out, "; budget ");
		llm_money(out, ex->set.budget_usd);
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
	if (ex->set.budget_usd <= 0 || !ex->e->llm || llm_is_offline(ex->e->llm))
		return 0;
	*usd = plan_cost_usd(ex, 0);
	return *usd > ex->set.budget_usd;
}

void plan_cost_counters(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (!ex->e->llm || llm_is_offline(ex->e->llm) || (!t->tokens_in && !t->tokens_out))
		return;
	double c = llm_counts_usd(t);   /* each reply at its model's price, cached input at
	                                   the cached rate */
	if (c < 0) {
		sb_printf(out, "cost: no price for %s (:set llm.price_in and llm.price_out, dollars "
		          "a million tokens)\n", llm_model(ex->e->llm) ? llm_model(ex->e->llm) : "the model");
		return;
	}
	sb_puts(out, "cost: ");
	llm_money(out, c);
	sb_putc(out, ' ');
	price_words(ex, out);
	if (t->tokens_cached > 0) {
		LlmPrice p;
		if (llm_price_of(ex->e->llm, NULL, &p))
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

long long plan_cost_first_wave(long long rest, double rate, long long maxwave)
{
	if (rate < WAVE_RATE_MIN)
		rate = WAVE_RATE_MIN;
	if (rate > 1)
		rate = 1;
	long long want = (long long)ceil((double)rest / rate);
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

int plan_cost_waves(long long n, long long need, long long maxwave, double rate, int top,
                    double *w, int cap)
{
	int nw = 0;
	if (n <= 0 || cap < 1)
		return 0;
	long long asked = 0;
	if (need < 0) {
		long long step = plan_cost_wave_size(-1, 0, 0, 1.0, maxwave, 0);
		while (asked < n && nw < cap) {
			long long sz = n - asked < step ? n - asked : step;
			w[nw++] = (double)sz;
			asked += sz;
		}
	} else {
		double have = 0;
		while (asked < n && have < (double)need && nw < cap) {
			int first = top && nw == 0;
			long long want = plan_cost_wave_size(need - (long long)have, (long long)have,
			                                     asked, rate, maxwave, first);
			long long sz = want < n - asked ? want : n - asked;
			w[nw++] = (double)sz;
			asked += sz;
			/* the walk expects a ranked first wave's top to pass at WAVE_TOP_RATE */
			have += (first ? WAVE_TOP_RATE : rate) * (double)sz;
		}
		if (have >= (double)need)
			return nw;
	}
	if (asked < n && nw == cap)   /* waves past cap: in the last one */
		w[nw - 1] += (double)(n - asked);
	return nw;
}

/* The floor of a walk (doc/engine.md, "The floor"): the fewest calls that find need rows
   (-1: decide every candidate) among n candidates, each asked natoms questions passing at
   the shares s[], when a call carries per_call candidates and a perfect planner asks no
   candidate it need not. It asks the rarest question first (that order asks the fewest):
   question i (in that order) of need / (s_i x ... x s_last) candidates under a LIMIT, of
   n x s_1 x ... x s_(i-1) (those the questions before it passed) otherwise, never more
   than there are; each question's asks in full calls. */
long long plan_cost_floor_walk(long long n, long long need, const double *s, int natoms,
                               long long per_call)
{
	if (n <= 0 || natoms < 1)
		return 0;
	if (per_call < 1)
		per_call = 1;
	double r[64];
	int m = natoms < 64 ? natoms : 64;
	for (int i = 0; i < m; i++) {
		double v = s[i] > 0 ? s[i] : PLAN_WALK_EXPECT_RATE;
		r[i] = v > 1 ? 1 : v;
	}
	for (int i = 1; i < m; i++)   /* ascending: the rarest first */
		for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
			double t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	long long calls = 0;
	double before = 1;   /* the share of candidates that passed the questions before */
	for (int i = 0; i < m; i++) {
		double asks = (double)n * before;
		if (need >= 0) {
			double after = 1;
			for (int j = i; j < m; j++)
				after *= r[j];
			double want = (double)need / after;
			if (want < asks)
				asks = want;
		}
		long long a = (long long)ceil(asks - 1e-9);
		if (a < 1)
			a = 1;
		calls += (a + per_call - 1) / per_call;
		before *= r[i];
	}
	return calls;
}

long long plan_cost_floor_batch(Exec *ex)
{
	return ex->set.batch > 0 ? ex->set.batch : 1;
}

long long plan_cost_floor_items(long long n, long long per_call)
{
	if (n <= 0)
		return 0;
	if (per_call < 1)
		per_call = 1;
	return (n + per_call - 1) / per_call;
}

double plan_cost_top_rate(void)
{
	return WAVE_TOP_RATE;
}

/* ---- learned pass rates (kept with the cache: llm/llm_rate.c) ----
   What names a question asked of a column: the database (its real path), the table and
   column its argument reads, and the question's signature (its wording and what it is
   compared with: another wording is another question). Only a yes/no question of one
   column's texts, asked by the chat model, has a rate. */
static char *rate_name(Exec *ex, const Occ *o)
{
	if (!ex->e->llm || o->sig < 0 || !o->arg_table || !o->arg_col)
		return NULL;
	const Sig *s = &ex->sigs[o->sig];
	if (s->kind != FT_VERIFY || s->join || s->judge || !s->key)
		return NULL;
	const char *db = ex->e->path ? ex->e->path : "";
	char *real = realpath(db, NULL);
	char *name = xprintf("suql pass rate 1\n%s\n%s\n%s\n%s", real ? real : db, o->arg_table,
	                     o->arg_col, s->key);
	free(real);
	return name;
}

double plan_cost_learned(Exec *ex, const Occ *o, long long *passed, long long *decided)
{
	long long p = 0, d = 0;
	char *name = rate_name(ex, o);
	int known = name && llm_rate_get(ex->e->llm, name, &p, &d) && d >= PLAN_LEARNED_MIN;
	free(name);
	if (passed)
		*passed = p;
	if (decided)
		*decided = d;
	if (!known)
		return -1;
	/* half a pass on either side: a question never seen to pass is rare, not impossible */
	return ((double)p + 0.5) / ((double)d + 1);
}

void plan_cost_learn(Exec *ex, const Occ *o, long long passed, long long decided)
{
	char *name = rate_name(ex, o);
	if (name)
		llm_rate_add(ex->e->llm, name, passed, decided);
	free(name);
}
