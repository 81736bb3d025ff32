/*
 * llm_cap.c: the statement's caps, held while requests are in flight. budget (requests)
 * and budget_usd (dollars, at the model's price) are checked before each request is handed
 * to the transport, with the requests already in flight counted at their worst:
 *
 *   - a request costs at most its own bytes (TEXT_BYTES_PER_TOKEN, the counters' rule for
 *     a reply without usage) and its max_tokens, or the most tokens a request of the
 *     statement was reported to take so far (the high-water marks), whichever is more;
 *   - until a reply's tokens were counted, one request is in flight at a time under
 *     budget_usd: nothing is known yet of what the endpoint counts (a tokenizer may count
 *     far more than the bytes suggest), and a second request would be a guess;
 *   - a request whose worst case does not fit in what is left waits while others are in
 *     flight (their replies say what they cost), and when none is, it is not sent: its call
 *     fails with LLM_CAP_MSG and llm_run returns SUQL_BUDGET.
 *
 * So an endpoint that reports what it was sent never takes a statement past its cap; one
 * that reports more than any bound (200,000 tokens for a short prompt) takes it past by at
 * most the one request that taught suql so. The engine sizes its waves with llm_cap_room,
 * and says when a statement passed its cap anyway (llm_cap_passed).
 */
#include "llm/llm_int.h"

#include <limits.h>
#include <math.h>

void llm_cap_begin(Llm *llm)
{
	llm->hw_in = llm->hw_out = 0;
	llm->replied = 0;
	llm->capped_by = 0;
	llm->cap_next = 0;
}

void llm_cap_seen(Llm *llm, long in, long out)
{
	llm->replied++;
	if ((double)in > llm->hw_in)
		llm->hw_in = (double)in;
	if ((double)out > llm->hw_out)
		llm->hw_out = (double)out;
}

double llm_stmt_usd(const Llm *llm)
{
	double usd = llm_counts_usd(&llm->stmt.total);
	if (usd >= 0)
		return usd;
	return llm_cost(llm, (double)llm->stmt.total.tokens_in, (double)llm->stmt.total.tokens_out);
}

double llm_cap_worst(const Llm *llm, double in, double out)
{
	if (llm->hw_in > in)
		in = llm->hw_in;
	if (llm->hw_out > out)
		out = llm->hw_out;
	double c = llm_cost(llm, in, out);
	return c > 0 ? c : 0;
}

int llm_cap_admit(Llm *llm, double worst, int inflight, double inflight_usd)
{
	if (llm->cap > 0 && llm->stmt.total.requests >= llm->cap) {
		llm->capped_by = LLM_CAPPED_REQUESTS;
		return -1;
	}
	double s = llm->cap_usd > 0 ? llm_stmt_usd(llm) : -1;
	if (s < 0)
		return 1;   /* no dollar cap, or no price to hold it with */
	if (llm->replied == 0 && inflight > 0)
		return 0;   /* the first request alone */
	if (s + inflight_usd + worst <= llm->cap_usd)
		return 1;
	if (inflight > 0)
		return 0;
	llm->capped_by = LLM_CAPPED_USD;
	llm->cap_next = worst;
	return -1;
}

long llm_cap_room(const Llm *llm, double in, double out)
{
	long room = LONG_MAX;
	if (llm->cap > 0)
		room = llm->cap - llm->stmt.total.requests;
	/* while a batch is collected nothing is sent: its lines' dollars are held against
	   budget_usd when it is submitted (llm_bulk_submit), not a wave at a time */
	double s = llm->cap_usd > 0 && !llm_bulk_collecting(llm) ? llm_stmt_usd(llm) : -1;
	if (s >= 0) {
		double w = llm_cap_worst(llm, in, out);
		long fit = llm->replied == 0 ? 1
		           : w > 0 ? (long)floor((llm->cap_usd - s) / w) : LONG_MAX;
		if (fit < room)
			room = fit;
	}
	return room < 0 ? 0 : room;
}

int llm_capped_by(const Llm *llm, double *next)
{
	if (next)
		*next = llm->cap_next;
	return llm->capped_by;
}

int llm_cap_passed(const Llm *llm, double *over, double *hw_in, double *hw_out)
{
	*over = 0;
	*hw_in = llm->hw_in;
	*hw_out = llm->hw_out;
	if (llm->cap > 0 && llm->stmt.total.requests > llm->cap) {
		*over = (double)(llm->stmt.total.requests - llm->cap);
		return LLM_CAPPED_REQUESTS;
	}
	double s = llm->cap_usd > 0 ? llm_stmt_usd(llm) : -1;
	if (s > llm->cap_usd) {
		*over = s - llm->cap_usd;
		return LLM_CAPPED_USD;
	}
	return 0;
}
