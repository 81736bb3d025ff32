/*
 * plan_show.c: the plan and the counters as plain text (EngineSink.plan and .counters).
 * Lines are stable, one fact each, so that a reader sees what the optimizer did and a
 * test can read the counts ("llm calls: 3 ...").
 */
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/plan_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(n) ((n) == 1 ? "" : "s")

static const char *kind_word(BlockKind k, int top)
{
	if (top)
		return "the statement";
	switch (k) {
	case BK_TOP: return "the statement";
	case BK_SUBQUERY: return "a subquery";
	case BK_FROM: return "a subquery in FROM";
	case BK_CTE: return "a WITH query";
	case BK_COMPOUND: return "a member of a compound SELECT";
	}
	return "a block";
}

static const char *pos_word(OccPos p)
{
	switch (p) {
	case POS_WHERE: return "WHERE";
	case POS_SELECT: return "result column";
	case POS_ORDER: return "ORDER BY";
	case POS_GROUP: return "GROUP BY";
	case POS_HAVING: return "HAVING";
	case POS_ON: return "JOIN ... ON";
	default: return "expression";
	}
}

/* Why free text is asked per row as SQLite reads the rows (a plan of its own otherwise). */
static const char *ondemand_why(const Block *b, const Occ *o)
{
	if (!b)
		return "";
	if (b->correlated)
		return " (correlated with the query around it: asked as each row is read)";
	if (o->pos == POS_SELECT && (b->kind == BK_FROM || b->kind == BK_CTE))
		return " (a LIMIT decides which of its rows are read)";
	return "";
}

static void show_occ_line(Exec *ex, SBuf *out, const Occ *o, const char *indent)
{
	char *t = exec_print_expr(ex, o->orig);
	Block *b = o->block >= 0 ? &ex->blocks[o->block] : NULL;
	sb_printf(out, "%s%s %s: ", indent, pos_word(o->pos), t);
	free(t);
	switch (o->plan) {
	case PL_PROJECT:
		sb_puts(out, "projection last, on the returned rows only");
		if (b && b->out_limit >= 0)
			sb_printf(out, " (at most %lld)", b->out_limit < b->bound ? b->out_limit
			                                                          : b->bound);
		sb_putc(out, '\n');
		break;
	case PL_AHEAD:
		sb_printf(out, "ahead, for every row that passes WHERE (at most %lld), in "
		          "batches\n", b ? b->bound : 0);
		break;
	case PL_TOPK:
		sb_printf(out, "semantic top-k over the rows that pass WHERE (at most %lld)\n",
		          b ? b->bound : 0);
		break;
	default:
		if (o->parent_occ >= 0)
			sb_puts(out, "on demand, when the expression around it reads it\n");
		else if (o->sig < 0)
			sb_puts(out, "on demand, per row (the question is not a literal)\n");
		else
			sb_printf(out, "on demand, per row, one call per value%s\n", ondemand_why(b, o));
		break;
	}
	if (b) {
		char in2[32];
		snprintf(in2, sizeof in2, "%s  ", indent);
		plan_topk_show(ex, out, b, o->id, in2);
	}
}

static void show_unit(Exec *ex, SBuf *out, Block *b, int i)
{
	Unit *u = &b->units[i];
	int exact = b->anunits == b->nunits && b->acount;
	long long cnt = exact ? b->acount[i] : b->bound;
	if (b->dnf_over)
		sb_printf(out, "  the tree, per candidate: %s%lld rows pass its top-level structured "
		          "conjuncts\n", exact ? "" : "at most ", cnt);
	else
		sb_printf(out, "  conjunct %d: %s%lld rows pass its structured part\n", i + 1,
		          exact ? "" : "at most ", cnt);
	char *sql = exec_cand_plan_sql(ex, b, u);
	sb_printf(out, "    %s: %s\n", ex->e->pg ? "postgresql" : "sqlite", sql);
	free(sql);
	for (int k = 0; k < u->nleaf_occ; k++) {
		char *t = exec_print_expr(ex, ex->occ[u->leaf_occ[k]].orig);
		sb_printf(out, "    free text inside a condition: %s, for every candidate first\n",
		          t);
		free(t);
	}
	if (u->natoms) {
		sb_printf(out, "    free text, tried in this order%s:\n",
		          b->dnf_over ? " (as the tree needs them)" : "");
		for (int k = 0; k < u->natoms; k++) {
			const Occ *o = &ex->occ[u->atoms[k]];
			char *t = exec_print_expr(ex, o->orig);
			int neg = 0;
			double sel = -1, cost = -1;
			for (int l = 0; l < u->nlits; l++)
				if (u->lits[l].kind == LK_ATOM && u->lits[l].occ == o->id) {
					neg = u->lits[l].neg;
					if (u->lits[l].cost > 0) {
						sel = u->lits[l].sel;
						cost = u->lits[l].cost;
					}
				}
			sb_printf(out, "      %d. %s%s", k + 1, neg ? "NOT " : "", t);
			if (cost > 0)
				sb_printf(out, " (lets about %.0f%% through, ~%.0f tokens a candidate)",
				          sel * 100, cost);
			sb_putc(out, '\n');
			free(t);
		}
	}
}

static void show_block(Exec *ex, SBuf *out, Block *b)
{
	sb_printf(out, "block %d (%s)", b->id + 1, kind_word(b->kind, b->top));
	if (b->parent >= 0)
		sb_printf(out, " inside block %d", b->parent + 1);
	if (!b->planned) {
		int any = 0;
		for (int i = 0; i < ex->nocc && !any; i++)
			any = ex->occ[i].block == b->id;
		sb_printf(out, ": %s\n", b->why ? b->why : any ? "no free text in WHERE"
		                                               : "no free text");
	} else {
		sb_printf(out, ": %lld rows in FROM%s\n", b->from_rows, b->guessed ? " (estimated)" : "");
		if (b->pushed)
			sb_printf(out, "  filters of block %d: %d conjunct%s of its WHERE carried into "
			          "this one\n", b->pushed_from + 1, b->pushed, b->pushed == 1 ? "" : "s");
		if (ex->set.optimize == OPT_PASSAGE)
			sb_printf(out, "  passage mode: the top %d x LIMIT passages of the candidates, "
			          "one call per passage and question (a comparison baseline)\n",
			          PASSAGE_BASELINE_K);
		if (b->dnf_over)
			sb_printf(out, "  where: more than %d conjuncts in DNF (the cap): the tree is "
			          "judged per candidate, with short-circuit\n", ex->set.dnf_cap);
		else
			sb_printf(out, "  where: %d conjunct%s in DNF%s\n", b->nunits,
			          b->nunits == 1 ? "" : "s",
			          b->nunits > 1 ? "; rows found by several are returned once" : "");
		for (int i = 0; i < b->nunits; i++)
			show_unit(ex, out, b, i);
		if (b->limit >= 0) {
			sb_printf(out, "  walk: lazy, stops once %lld %srow%s passed (%sLIMIT", b->limit,
			          b->distinct_walk ? "distinct " : "", b->limit == 1 ? "" : "s",
			          b->distinct_walk ? "DISTINCT, " : "");
			if (b->sel && b->sel->offset)
				sb_puts(out, " + OFFSET");
			sb_printf(out, "); candidates %s%s; waves sized from the pass rate\n",
			          b->ordered ? "in the query's ORDER BY order"
			                     : "by relevance (BM25 of their passages for the question)",
			          !b->ordered && ex->llm && llm_has_embeddings(ex->llm)
			          ? ", the top ones again mixed with embedding similarity" : "");
		} else {
			sb_printf(out, "  walk: every candidate, in batches%s%s%s\n",
			          b->why_not_lazy ? " (not lazy: " : "",
			          b->why_not_lazy ? b->why_not_lazy : "", b->why_not_lazy ? ")" : "");
			exec_cascade_show_plan(ex, out, b);
		}
	}
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->block != b->id || (o->pos == POS_WHERE && b->planned && o->parent_occ < 0))
			continue;
		if (o->pos == POS_WHERE && !b->planned && b->correlated)
			continue;
		show_occ_line(ex, out, o, "  ");
	}
}

/* "12 LLM calls (verify 10, classify 2)" */
static void show_cost(SBuf *out, const long long *per, long long total)
{
	static const char *const names[FT_COST_SLOTS] = {"verify", "answer", "summary", "classify",
	                                                 "embed", "extract", "aggregate"};
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

void plan_show(Exec *ex, SBuf *out)
{
	sb_truncate(out, 0);
	int conc = llm_concurrency(ex->llm);
	switch (ex->set.optimize) {
	case OPT_OFF:
		sb_puts(out, "optimize off (naive): SQLite calls the free-text functions row by "
		        "row; each value not seen before in the statement costs one call\n");
		break;
	case OPT_PASSAGE:
		sb_printf(out, "optimize passage (comparison baseline), concurrency %d\n", conc);
		break;
	default:
		sb_printf(out, "optimize on: batch %d (at most %d tokens a call), concurrency %d, "
		          "passages up to %d tokens a candidate\n", ex->set.batch,
		          ex->set.batch_tokens, conc, ex->set.passage_tokens);
		break;
	}
	enum_show(ex, out);
	exec_join_show(ex, out);
	exec_agg_show(ex, out);
	if (ex->set.optimize != OPT_OFF) {
		for (int i = 0; i < ex->nblocks; i++) {
			Block *b = &ex->blocks[i];
			int any = b->planned;
			for (int k = 0; k < ex->nocc && !any; k++)
				any = ex->occ[k].block == i;
			if (any)
				show_block(ex, out, b);
		}
		for (int i = 0; i < ex->nocc; i++)
			if (ex->occ[i].block < 0)
				show_occ_line(ex, out, &ex->occ[i], "");
	}
	if (ex->e->pg) {
		exec_pg_plan_show_identity(ex, out);
		/* the final statement, its free text read from the values bound as $1... */
		PrintHooks hk = {ex, exec_pg_plan_hook, exec_pg_plan_from};
		Printer *pr = print_new(PRINT_PG, &hk, ex->ast->src, ex->ast->src_off);
		print_stmt(pr, ex->ast->stmt);
		sb_printf(out, "postgresql, the values suql evaluates bound as arrays: %s\n",
		          print_text(pr));
		print_free(pr);
	} else {
		Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
		print_stmt(pr, ex->ast->stmt);
		sb_printf(out, "sqlite: %s\n", print_text(pr));
		print_free(pr);
	}
	int lazy = ex->expect_total < ex->worst_total;
	if (lazy) {
		sb_puts(out, "expected: at most ");
		show_cost(out, ex->expect, ex->expect_total);
		sb_puts(out, " while at least 1 candidate in 50 passes (the walk stops at the "
		        "LIMIT)\n");
	}
	sb_puts(out, "worst case: ");
	show_cost(out, ex->worst, ex->worst_total);
	if (lazy)
		sb_puts(out, ", if too few candidates pass");
	if (ex->set.optimize == OPT_PASSAGE)
		sb_puts(out, "; the budget is not applied in passage mode\n");
	else if (ex->set.budget <= 0)
		sb_puts(out, "; no budget\n");
	else if (ex->expect_total > ex->set.budget)
		sb_printf(out, "; budget %ld: over it, refused\n", ex->set.budget);
	else if (ex->worst_total > ex->set.budget)
		sb_printf(out, "; budget %ld: the statement stops there if it needs more\n",
		          ex->set.budget);
	else
		sb_printf(out, "; budget %ld\n", ex->set.budget);
	plan_cost_show(ex, out);
}

/* "conjunct 2", or "block 3, conjunct 2" when several blocks were walked, or "the tree" */
static void unit_name(SBuf *out, const Block *b, int k, int several)
{
	if (several)
		sb_printf(out, "block %d, ", b->id + 1);
	if (b->dnf_over)
		sb_puts(out, "the tree");
	else
		sb_printf(out, "conjunct %d", k + 1);
}

static void show_walks(Exec *ex, SBuf *out)
{
	int walked = 0;
	for (int i = 0; i < ex->nblocks; i++)
		walked += ex->blocks[i].planned && ex->blocks[i].executed;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->planned || !b->executed)
			continue;
		for (int k = 0; k < b->nunits; k++) {
			Unit *u = &b->units[k];
			unit_name(out, b, k, walked > 1);
			if (u->skipped) {
				sb_puts(out, ": not walked (the conjuncts before it found enough rows)\n");
				continue;
			}
			sb_printf(out, ": %lld candidate%s after the structured filter; %lld judged: %lld "
			          "passed, %lld failed", u->rows, S(u->rows), u->examined, u->accepted,
			          u->rejected);
			if (u->unknown)
				sb_printf(out, ", %lld unknown (no text, %sa reply that could not be read%s)",
				          u->unknown, ex->cnt.low_confidence ? "" : "or ",
				          ex->cnt.low_confidence ? ", or a verdict of low confidence" : "");
			if (b->limit >= 0 && u->accepted > b->limit)
				sb_printf(out, " (more than the %lld the LIMIT needs: the candidates of a call "
				          "are judged together)", b->limit);
			sb_putc(out, '\n');
			if (u->cascade) {
				SBuf nm = SBUF_INIT;
				unit_name(&nm, b, k, walked > 1);
				exec_cascade_counters(u, out, sb_str(&nm));
				sb_free(&nm);
			}
			if (u->rank_note && *u->rank_note) {
				unit_name(out, b, k, walked > 1);
				sb_printf(out, ": candidates ranked by %s\n", u->rank_note);
			}
			if (u->windows > 0 && u->held < u->rows) {
				unit_name(out, b, k, walked > 1);
				sb_printf(out, ": %lld of the candidates read, in the walk's order, in %d window%s (the "
				          "rest never held)\n", u->held, u->windows, S(u->windows));
			}
		}
	}
}

/* "first 3, retry 1": the requests by reason, and those cancelled in flight */
static void show_requests(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (llm_is_offline(ex->llm)) {
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
	if (t->in_flight_cancelled)
		sb_printf(out, "; %ld cancelled in flight (sent, reply not awaited)",
		          t->in_flight_cancelled);
	sb_putc(out, '\n');
}

static void show_tokens(Exec *ex, const LlmCounts *t, SBuf *out)
{
	if (llm_is_offline(ex->llm)) {
		sb_puts(out, "tokens: 0 in, 0 out (the offline backend uses none)\n");
		return;
	}
	sb_printf(out, "tokens: %ld in", t->tokens_in);
	if (t->tokens_cached > 0)   /* only when the endpoint reports its prompt cache */
		sb_printf(out, " (%ld of them from the endpoint's prompt cache)", t->tokens_cached);
	sb_printf(out, ", %ld out", t->tokens_out);
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
	const LlmStats *ls = ex->llm ? llm_stats_statement(ex->llm) : NULL;
	exec_join_counters(ex, out);
	exec_agg_counters(ex, out);
	show_walks(ex, out);
	if (ex->cnt.topk_cands)
		sb_printf(out, "semantic top-k: %lld of %lld candidates scored in %ld wave%s%s\n",
		          ex->cnt.topk_scored, ex->cnt.topk_cands, ex->cnt.topk_waves,
		          S(ex->cnt.topk_waves), ex->cnt.topk_stopped
		          ? " (stopped: the top k had the best value)" : "");
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
		          llm_min_confidence(ex->llm));
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
	if (ex->set.times)
		sb_printf(out, "time: %.1f ms waiting for the model, %.1f ms in all\n", ls->wall_ms,
		          util_now_ms() - ex->cnt.t0);
	sb_printf(out, "backend: %s\n", llm_label(ex->llm));
}
