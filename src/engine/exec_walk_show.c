/*
 * exec_walk_show.c: the filter walk's lines in the plan and in the counters (its row of
 * the operator table, op.c): each block with free text, its DNF units, their structured
 * statements and the order their free text is tried in, how the walk goes (lazy to a
 * LIMIT, or every candidate, with a cascade in front), every occurrence's plan (with a
 * top-k's line); then, once run, what each unit's walk judged. What an operator inside
 * the walk says (a cascade, a top-k) comes from its row's hooks (op_int.h).
 */
#include "engine/exec_int.h"
#include "engine/op_int.h"

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
		return " (correlated with the query around it, and its argument or FROM reads that "
		       "query's row: asked as each row is read)";
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
		if (o->own == 4 && b)   /* (plan_ahead.c) */
			sb_puts(out, "ahead, one value a call, for the rows its LIMIT stores (in its "
			        "ORDER BY order, then the rows' identity), as SQLite's functions ask "
			        "them as the rows are stored\n");
		else if (o->own == 3 && b)   /* (plan_ahead.c) */
			sb_puts(out, "ahead, one value a call, for the rows the answer() around it "
			        "reads, as SQLite's function asks it\n");
		else if (o->own == 2 && b)   /* (plan_ahead.c) */
			sb_printf(out, "ahead, once, for each distinct pair of a row of block %d and "
			          "one of this block's the statement can reach (%lld pairs pass the "
			          "conditions of both that need no model), in batches: it reads the "
			          "row around it too\n", b->parent + 1, o->pairs);
		else if (o->own && b)   /* (plan_ahead.c) */
			sb_printf(out, "ahead, once, for every row of its FROM (%lld), in batches: "
			          "it reads only the block's own rows, whatever the row around it\n",
			          b->from_rows);
		else
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
		op_show_occ(ex, out, b, o->id, in2);   /* an operator's line under it (top-k) */
	}
}

static void show_unit(Exec *ex, SBuf *out, Block *b, int i)
{
	Unit *u = &b->units[i];
	int exact = b->budget.ncount == b->nunits && b->budget.count;
	long long cnt = exact ? b->budget.count[i] : b->bound;
	if (b->dnf_over)
		sb_printf(out, "  the tree, per candidate: %s%lld rows pass its top-level structured "
		          "conjuncts\n", exact ? "" : "at most ", cnt);
	else
		sb_printf(out, "  conjunct %d: %s%lld rows pass its structured part\n", i + 1,
		          exact ? "" : "at most ", cnt);
	char *sql = exec_cand_plan_sql(ex, b, u);
	sb_printf(out, "    %s: %s\n", ex->e->dialect->name, sql);
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
			long long lp = 0, ld = 0;
			double learned = plan_cost_learned(ex, o, &lp, &ld);
			if (learned >= 0)
				sb_printf(out, " (passed %lld of %lld candidates judged before: about %.1f%%)",
				          lp, ld, 100.0 * (double)lp / (double)ld);
			else if (ld > 0)
				sb_printf(out, " (passed %lld of %lld candidates judged before: too few to go "
				          "by)", lp, ld);
			else if (cost > 0)
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
		int own = 0;
		for (int i = 0; i < ex->nocc; i++)
			own |= ex->occ[i].block == b->id ? ex->occ[i].own : 0;
		if (own == 1 && b->correlated)
			sb_printf(out, ": correlated with an enclosing query; the free text that reads "
			          "only its own rows is evaluated once, ahead, over the %lld rows of its "
			          "FROM (not once per row around it)\n", b->from_rows);
		else if (own && b->correlated)
			sb_printf(out, ": correlated with an enclosing query; its free text is "
			          "evaluated once, ahead: %sover the pairs of rows of block %d and its "
			          "own the statement can reach (not once per row around it)\n",
			          own & 1 ? "over its own rows where it reads only them, else " : "",
			          b->parent + 1);
		else
			sb_printf(out, ": %s\n", b->why ? b->why : any ? "no free text in WHERE"
			                                               : "no free text");
	} else {
		sb_printf(out, ": %lld rows in FROM%s\n", b->from_rows, b->budget.guessed ? " (estimated)" : "");
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
			          !b->ordered && ex->e->llm && llm_has_embeddings(ex->e->llm)
			          ? ", the top ones again mixed with embedding similarity" : "");
		} else {
			sb_printf(out, "  walk: every candidate, in batches%s%s%s\n",
			          b->why_not_lazy ? " (not lazy: " : "",
			          b->why_not_lazy ? b->why_not_lazy : "", b->why_not_lazy ? ")" : "");
			op_show_walk(ex, out, b);   /* an operator's lines (a cascade in front) */
		}
	}
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->block != b->id || (o->pos == POS_WHERE && b->planned && o->parent_occ < 0))
			continue;
		if (o->pos == POS_WHERE && !b->planned && b->correlated && !o->own)
			continue;
		show_occ_line(ex, out, o, "  ");
	}
}

void exec_walk_show_plan(Exec *ex, SBuf *out)
{
	if (ex->set.optimize == OPT_OFF)
		return;
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

void exec_walk_show_counters(Exec *ex, SBuf *out)
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
				op_unit_counters(u, out, sb_str(&nm));
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

