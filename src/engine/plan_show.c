/*
 * plan_show.c: the plan and the counters as plain text (EngineSink.plan and .counters).
 * Lines are stable, one fact each, so that a reader sees what the optimizer did and a
 * test can read the counts ("llm calls: 3 ...").
 *
 * The operators' own lines (ENUM, joins, aggregates, the walk's blocks with their top-k
 * and cascade lines) come from the operator table (op.c), in its order; this file writes
 * the statement's: the settings, the final statement, the cost and the budget, and the
 * counters of calls, requests and tokens.
 */
#include "base/vis.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/plan_int.h"
#include "engine/top_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(n) ((n) == 1 ? "" : "s")

static const char *const names[FT_COST_SLOTS] = {"verify", "answer", "summary", "classify",
                                                 "embed", "extract", "aggregate"};

/* "12 LLM calls (verify 10, classify 2)" */
static void show_cost(SBuf *out, const long long *per, long long total)
{
	sb_printf(out, "%lld LLM call%s", total, total == 1 ? "" : "s");
	int first = 1;
	for (int k = 0; k < FT_COST_SLOTS; k++) {
		if (!per[k])
			continue;
		sb_printf(out, "%s%s %lld", first ? " (" : ", ", names[k], per[k]);
		first = 0;
	}
	if (!first)
		sb_putc(out, ')');
}

/* How the calls go: so many in flight at once, or (bulk mode) as lines of a batch, where
   no concurrency applies (doc/bulk.md) */
static void show_sending(Exec *ex, SBuf *out)
{
	if (llm_bulk_collecting(ex->e->llm))
		sb_puts(out, "bulk (each call a line of a batch)");
	else
		sb_printf(out, "concurrency %d", llm_concurrency(ex->e->llm));
}

static void show_floor(Exec *ex, SBuf *out);

void plan_show(Exec *ex, SBuf *out)
{
	sb_truncate(out, 0);
	switch (ex->set.optimize) {
	case OPT_OFF:
		if (ex->e->dialect->functions)
			sb_puts(out, "optimize off (naive): SQLite calls the free-text functions row "
			        "by row; each value not seen before in the statement costs one call\n");
		else
			sb_printf(out, "optimize off (naive): every row's free text evaluated ahead, "
			          "over the rows of its FROM (or, outside WHERE, the rows that pass "
			          "it), each value not seen before in the statement one call, then "
			          "bound into the statement %s runs\n", ex->e->dialect->label);
		break;
	case OPT_PASSAGE:
		sb_puts(out, "optimize passage (comparison baseline), ");
		show_sending(ex, out);
		sb_putc(out, '\n');
		break;
	default:
		sb_printf(out, "optimize on: batch %d (at most %d tokens a call), ", ex->set.batch,
		          ex->set.batch_tokens);
		show_sending(ex, out);
		sb_printf(out, ", passages up to %d tokens a candidate\n", ex->set.passage_tokens);
		break;
	}
	op_show(ex, out);   /* ENUM, joins, aggregates, the walk's blocks (op.c's order) */
	ex->e->dialect->show_final(ex, out);   /* the final statement as the backend runs it */
	int lazy = ex->est.expect_total < ex->est.worst_total;
	/* a sample within a stated error expects its sample, not a walk stopped by a LIMIT */
	int sample = op_slot_applies(ex, OP_SAMPLE);
	if (lazy) {
		sb_puts(out, sample ? "expected: about " : "expected: at most ");
		show_cost(out, ex->est.expect, ex->est.expect_total);
		sb_puts(out, sample ? " for the sample above (at the pass rate it states; more "
		        "when fewer pass)\n" : " while at least 1 candidate in 50 passes (the walk stops "
		        "at the LIMIT)\n");
	}
	sb_puts(out, "worst case: ");
	show_cost(out, ex->est.worst, ex->est.worst_total);
	if (lazy)
		sb_puts(out, sample ? ", every candidate" : ", if too few candidates pass");
	if (ex->set.optimize == OPT_PASSAGE)
		sb_puts(out, "; the budget is not applied in passage mode\n");
	else if (ex->set.budget <= 0)
		sb_puts(out, "; no budget\n");
	else if (ex->est.expect_total > ex->set.budget)
		sb_printf(out, "; budget %ld: over it, refused\n", ex->set.budget);
	else if (ex->est.worst_total > ex->set.budget)
		sb_printf(out, "; budget %ld: the statement stops there if it needs more\n",
		          ex->set.budget);
	else
		sb_printf(out, "; budget %ld\n", ex->set.budget);
	if (llm_bulk_collecting(ex->e->llm) && ex->set.optimize != OPT_OFF) {
		/* every call but an embedding is a line (a request) of a batch */
		long long lines = ex->est.worst_total - ex->est.worst[4];
		sb_printf(out, "bulk: at most %lld request%s, each a line of a batch (a condition "
		          "asked of what passed another goes in a later batch), at batch prices; "
		          "the budget counts them\n", lines, S(lines));
	}
	plan_cost_show(ex, out);
	show_floor(ex, out);
}

/* ---- the floor (doc/engine.md, "The floor") ---- */

typedef struct Floor {
	long long calls;      /* the sum of the rows' floors */
	long long per_row[32];
	int unknown;          /* a row's is not known before the statement runs */
	double tokens;        /* at the plan's tokens a call (floor_of); -1: not known */
} Floor;

static void floor_of(Exec *ex, Floor *f)
{
	memset(f, 0, sizeof *f);
	int n = 0;
	while (op_table[n])
		n++;
	long long *per = n <= 32 ? f->per_row : NULL;
	f->calls = op_floor(ex, per, &f->unknown);
	f->tokens = -1;
	/* its tokens: its calls each as long as the plan's calls at most are on average, but
	   no more than the plan expects to send in all (a walk's first wave may be shorter
	   than a full call) */
	if (ex->e->llm && !llm_is_offline(ex->e->llm) && ex->est.worst_total > 0) {
		PlanCost pc;
		plan_cost_figures(ex, &pc);
		double t = (pc.worst_in + pc.worst_out) / (double)ex->est.worst_total *
		           (double)f->calls;
		double e = pc.lazy ? pc.expect_in + pc.expect_out : pc.worst_in + pc.worst_out;
		f->tokens = t < e ? t : e;
	}
}

/* Whether the statement asks the model anything (then its plan states a floor). */
static int has_floor(Exec *ex, const Floor *f)
{
	return ex->e->llm && (f->calls > 0 || f->unknown || ex->est.worst_total > 0);
}

/* "floor: 9 LLM calls, the fewest any plan needs at these estimates (filter walk 7,
   ENUM 2)" */
static void show_floor(Exec *ex, SBuf *out)
{
	Floor f;
	floor_of(ex, &f);
	/* the counters compare with it: what the walks learn as they run moves no figure */
	ex->est.floor_stated = !f.unknown;
	ex->est.floor_calls = f.calls;
	ex->est.floor_tokens = f.tokens;
	if (!has_floor(ex, &f))
		return;
	sb_printf(out, "floor: %lld LLM call%s, the fewest any plan needs at these estimates",
	          f.calls, S(f.calls));
	int first = 1;
	for (int i = 0; op_table[i] && i < 32; i++) {
		if (!f.per_row[i])
			continue;
		sb_printf(out, "%s%s %lld", first ? " (" : ", ", op_table[i]->name, f.per_row[i]);
		first = 0;
	}
	if (!first)
		sb_putc(out, ')');
	if (f.tokens >= 0)
		sb_printf(out, ", about %.0f tokens", f.tokens);
	if (f.unknown)
		sb_puts(out, "; the aggregates' calls not counted (known once their groups are "
		        "read)");
	sb_putc(out, '\n');
}

/* "floor: 12 calls, 1.3x the floor of 9; 4100 tokens, 1.2x the floor's about 3400" */
static void counters_floor(Exec *ex, const LlmCounts *t, SBuf *out)
{
	Floor f;
	floor_of(ex, &f);   /* (an aggregate's is known once its groups were read) */
	if (ex->est.floor_stated) {
		f.calls = ex->est.floor_calls;
		f.tokens = ex->est.floor_tokens;
	}
	if (!has_floor(ex, &f) && !t->calls)
		return;
	sb_printf(out, "floor: %ld call%s, ", t->calls, S(t->calls));
	if (f.calls > 0)
		sb_printf(out, "%.1fx the floor of %lld", (double)t->calls / (double)f.calls, f.calls);
	else
		sb_puts(out, "above a floor of 0");
	long tok = t->tokens_in + t->tokens_out;
	if (f.tokens > 0 && tok > 0)
		sb_printf(out, "; %ld tokens, %.1fx the floor's about %.0f", tok,
		          (double)tok / f.tokens, f.tokens);
	sb_putc(out, '\n');
}

/* "first 3, retry 1": the requests by reason, and those cancelled in flight */
static void show_requests(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (llm_is_offline(ex->e->llm)) {
		sb_printf(out, "requests: %ld, answered here by the offline backend (nothing is "
		          "sent)\n", t->requests);
		return;
	}
	static const char *const one[LLM_NREASONS] = {
		"first ask", "retry after an error", "re-ask after an unreadable reply",
		"candidate asked alone",
	};
	static const char *const many[LLM_NREASONS] = {
		"first asks", "retries after errors", "re-asks after unreadable replies",
		"candidates asked alone",
	};
	sb_printf(out, "requests: %ld sent", t->requests);
	int first = 1;
	for (int r = 0; r < LLM_NREASONS; r++) {
		if (!t->by_reason[r])
			continue;
		sb_printf(out, "%s%ld %s", first ? " (" : ", ", t->by_reason[r],
		          t->by_reason[r] == 1 ? one[r] : many[r]);
		first = 0;
	}
	if (!first)
		sb_putc(out, ')');
	if (t->in_flight_cancelled) {
		sb_printf(out, "; %ld cancelled in flight (sent, reply not awaited)",
		          t->in_flight_cancelled);
		if (t->cancelled_unpriced < t->in_flight_cancelled) {   /* a provider may bill them */
			sb_puts(out, ", which may be billed up to about ");
			llm_money(out, t->cancelled_usd);
		}
	}
	sb_putc(out, '\n');
}

static void show_tokens(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (llm_is_offline(ex->e->llm)) {
		sb_puts(out, "tokens: 0 in, 0 out (the offline backend uses none)\n");
		return;
	}
	sb_printf(out, "tokens: %ld in", t->tokens_in);
	if (t->tokens_cached > 0)   /* only when the endpoint reports its prompt cache */
		sb_printf(out, " (%ld of them from the endpoint's prompt cache)", t->tokens_cached);
	sb_printf(out, ", %ld out", t->tokens_out);
	if (t->tokens_reasoning > 0)   /* only when the endpoint reports them */
		sb_printf(out, " (%ld of them hidden reasoning)", t->tokens_reasoning);
	if (!t->est_in && !t->est_out)
		sb_puts(out, t->tokens_in || t->tokens_out ? " (as the endpoint reported them)\n" : "\n");
	else if (t->est_in == t->tokens_in && t->est_out == t->tokens_out)
		sb_printf(out, " (estimated at %d bytes a token: the endpoint reported no usage)\n",
		          TEXT_BYTES_PER_TOKEN);
	else
		sb_printf(out, " (%ld in, %ld out of them estimated at %d bytes a token: some "
		          "replies reported no usage)\n", t->est_in, t->est_out, TEXT_BYTES_PER_TOKEN);
}

void plan_show_counters(Exec *ex, SBuf *out)
{
	const LlmStats *ls = ex->e->llm ? llm_stats_statement(ex->e->llm) : NULL;
	op_counters(ex, out);   /* joins, aggregates, the walks, top-k (op.c's order) */
	if (ex->cnt.ahead_values)
		sb_printf(out, "ahead: %lld value%s\n", ex->cnt.ahead_values, S(ex->cnt.ahead_values));
	if (ex->cnt.project_rows || ex->cnt.project_values)
		sb_printf(out, "projection last: %lld row%s kept, %lld value%s\n", ex->cnt.project_rows,
		          S(ex->cnt.project_rows), ex->cnt.project_values, S(ex->cnt.project_values));
	sb_printf(out, "rows returned: %lld\n", ex->cnt.rows_out);
	if (!ls)
		return;
	const LlmCounts *t = &ls->total;
	sb_printf(out, "llm calls: %ld", t->calls);
	int first = 1;
	for (int k = 0; k < LLM_NKINDS; k++) {
		if (!ls->kind[k].calls)
			continue;
		sb_printf(out, "%s%s %ld", first ? " (" : ", ", llm_kind_name((LlmKind)k),
		          ls->kind[k].calls);
		first = 0;
	}
	if (!first)
		sb_putc(out, ')');
	/* calls that judged candidates (not an ENUM classification alone) */
	if (t->items > 0) {
		sb_printf(out, ", carrying %ld candidate%s", t->items, S(t->items));
		if (ex->cnt.waves)
			sb_printf(out, " in %ld wave%s", ex->cnt.waves, S(ex->cnt.waves));
	}
	sb_putc(out, '\n');
	/* whole calls, and the candidates answered from the cache inside calls that asked the
	   backend about the others */
	sb_printf(out, "cache hits: %ld", t->cache_hits);
	if (t->cached_items)
		sb_printf(out, " call%s, %ld candidate%s", S(t->cache_hits), t->cached_items,
		          S(t->cached_items));
	sb_putc(out, '\n');
	show_requests(ex, t, out);
	if (t->unreadable)
		sb_printf(out, "unreadable: %ld repl%s could not be read, even when asked again "
		          "(the answers are unknown; see the warning)\n", t->unreadable,
		          t->unreadable == 1 ? "y" : "ies");
	if (ex->cnt.low_confidence)
		sb_printf(out, "low confidence: %lld verdict%s below llm.min_confidence %g, taken as "
		          "unknown\n", ex->cnt.low_confidence, S(ex->cnt.low_confidence),
		          llm_min_confidence(ex->e->llm));
	if (ex->cnt.spec_items)
		sb_printf(out, "speculative: %lld candidate%s judged after the result was complete%s\n",
		          ex->cnt.spec_items, S(ex->cnt.spec_items),
		          ex->cnt.spec_calls ? "" : ", in calls that were needed anyway");
	if (ex->cnt.spec_calls)
		sb_printf(out, "speculative calls: %ld held only such candidates\n",
		          ex->cnt.spec_calls);
	if (t->cancelled)
		sb_printf(out, "cancelled: %ld call%s not answered (%s)\n", t->cancelled,
		          S(t->cancelled), suql_interrupted ? "stopped by Ctrl-C"
		                                             : "not sent: the result was complete");
	if (ex->cnt.ondemand_calls)
		sb_printf(out, "on demand: %ld calls made by the functions row by row\n",
		          ex->cnt.ondemand_calls);
	show_tokens(ex, t, out);
	plan_cost_counters(ex, t, out);
	counters_floor(ex, t, out);
	if (ex->set.times) {
		sb_puts(out, "time: ");
		util_duration(out, ls->wall_ms, 1);
		sb_puts(out, " waiting for the model, ");
		util_duration(out, util_now_ms() - ex->cnt.t0, 1);
		sb_puts(out, " in all\n");
	}
	sb_printf(out, "backend: %s\n", llm_label(ex->e->llm));
}

/* ---- EXPLAIN as one JSON object (--json, :mode json) ----
   {"explain": {"statement", "model", "endpoint", "calls": {"expected", "worst", "expected_by_kind",
   "worst_by_kind"}, "tokens": {"expected": {"in", "out"}, "worst": {...}},
   "reasoning_tokens_per_call", "usd": {"expected", "worst"} (null without a price), "price",
   "budget": {"calls", "usd"}, "over_budget", "floor": {"calls", "tokens" (as the floor's line
   says them, null when not known), "by_operator", "partial" (an operator's not known yet)}, "bulk": {"requests", "price_share"} (null
   outside bulk mode), "plan": [the plan's lines]}}: the figures are
   the ones the plan's lines state (plan_cost_figures), unrounded; the expected case is the
   worst case when the plan states none of its own. */

static json_t *by_kind(const long long *per)
{
	json_t *o = json_object();
	for (int k = 0; k < FT_COST_SLOTS; k++)
		if (per[k])
			json_object_set_new(o, names[k], json_integer(per[k]));
	return o;
}

static json_t *text_json(const char *text)
{
	char *fixed = vis_utf8_repair(text ? text : "");
	json_t *v = json_string(fixed);
	free(fixed);
	return v ? v : json_string("");
}

void plan_show_json(Exec *ex, const char *parsed, SBuf *out)
{
	PlanCost pc;
	memset(&pc, 0, sizeof pc);
	int model = !ex->standalone && ex->e->llm;
	int offline = model && llm_is_offline(ex->e->llm);
	if (model && !offline)
		plan_cost_figures(ex, &pc);
	if (!pc.lazy) {   /* the plan states one case, the worst */
		pc.expect_in = pc.worst_in;
		pc.expect_out = pc.worst_out;
		pc.expect_usd = pc.worst_usd;
	}
	if (offline)
		pc.expect_usd = pc.worst_usd = 0;   /* the offline backend costs nothing */
	long long no[FT_COST_SLOTS] = {0};
	const long long *exp = model ? (pc.lazy ? ex->est.expect : ex->est.worst) : no;
	const long long *worst = model ? ex->est.worst : no;
	long long etotal = model ? (pc.lazy ? ex->est.expect_total : ex->est.worst_total) : 0;
	json_t *o = json_object();
	json_object_set_new(o, "statement", text_json(parsed));
	/* the model's name (the offline backend's version), and where it is reached */
	json_object_set_new(o, "model", !model ? json_null()
	                                       : text_json(offline ? llm_model_id(ex->e->llm)
	                                                           : llm_model(ex->e->llm)));
	json_object_set_new(o, "endpoint", model && llm_origin(ex->e->llm) ? text_json(llm_origin(ex->e->llm))
	                                                                 : json_null());
	json_object_set_new(o, "calls", json_pack("{s:I, s:I, s:o, s:o}",
	                    "expected", (json_int_t)etotal,
	                    "worst", (json_int_t)(model ? ex->est.worst_total : 0),
	                    "expected_by_kind", by_kind(exp), "worst_by_kind", by_kind(worst)));
	json_object_set_new(o, "tokens", json_pack("{s:{s:I, s:I}, s:{s:I, s:I}}",
	                    "expected", "in", (json_int_t)rint(pc.expect_in),
	                    "out", (json_int_t)rint(pc.expect_out),
	                    "worst", "in", (json_int_t)rint(pc.worst_in),
	                    "out", (json_int_t)rint(pc.worst_out)));
	json_object_set_new(o, "reasoning_tokens_per_call", json_integer(pc.reasoning));
	int priced = offline || (model && pc.worst_usd >= 0);
	json_object_set_new(o, "usd", json_pack("{s:o, s:o}",
	                    "expected", priced ? json_real(pc.expect_usd) : json_null(),
	                    "worst", priced ? json_real(pc.worst_usd) : json_null()));
	LlmPrice p;
	if (model && llm_price_of(ex->e->llm, NULL, &p))
		json_object_set_new(o, "price", json_pack("{s:f, s:f, s:f, s:s}", "in", p.in,
		                    "cached_in", p.cached_in, "out", p.out, "from", p.from));
	else
		json_object_set_new(o, "price", json_null());
	json_object_set_new(o, "budget", json_pack("{s:o, s:o}",
	                    "calls", ex->set.budget > 0 ? json_integer(ex->set.budget) : json_null(),
	                    "usd", ex->set.budget_usd > 0 ? json_real(ex->set.budget_usd)
	                                                  : json_null()));
	double usd = 0;
	int over = model && ex->set.optimize != OPT_PASSAGE &&
	           ((ex->set.budget > 0 && etotal > ex->set.budget) || plan_cost_over(ex, &usd));
	json_object_set_new(o, "over_budget", json_boolean(over));
	/* the floor: its calls, its tokens at the plan's expected tokens a call (null: not
	   known), each row's, and whether a row's is not known yet */
	Floor fl;
	floor_of(ex, &fl);
	json_t *byop = json_object();
	for (int i = 0; op_table[i] && i < 32; i++)
		if (fl.per_row[i])
			json_object_set_new(byop, op_table[i]->name, json_integer(fl.per_row[i]));
	json_object_set_new(o, "floor", json_pack("{s:I, s:o, s:o, s:b}",
	                    "calls", (json_int_t)(model ? fl.calls : 0),
	                    "tokens", model && fl.tokens >= 0 ? json_integer((json_int_t)rint(fl.tokens))
	                                                      : json_null(),
	                    "by_operator", byop, "partial", fl.unknown));
	/* bulk mode: the batch's requests (every call but an embedding), at batch prices */
	json_object_set_new(o, "bulk", model && llm_bulk_collecting(ex->e->llm)
	                    ? json_pack("{s:I, s:f}", "requests",
	                                (json_int_t)(ex->est.worst_total - ex->est.worst[4]), "price_share",
	                                llm_bulk_share(ex->e->llm))
	                    : json_null());
	json_t *lines = json_array();
	const char *t = sb_str(&ex->plan);
	while (*t) {
		size_t n = strcspn(t, "\n");
		char *line = xstrndup(t, n);
		json_array_append_new(lines, text_json(line));
		free(line);
		t += n + (t[n] == '\n');
	}
	json_object_set_new(o, "plan", lines);
	json_t *top = json_pack("{s:o}", "explain", o);
	char *s = json_dumps(top, JSON_COMPACT | JSON_REAL_PRECISION(12));
	json_decref(top);
	sb_puts(out, s);
	free(s);
}
