/*
 * plan_topk.c: whether an ORDER BY of free text under LIMIT k can stop early (a semantic
 * top-k), and the lines of the plan that say so or why not.
 *
 * The rule. Candidates (the rows that pass WHERE) are scored in relevance order, in waves;
 * the walk stops as soon as k of them have the best value the answer can take (the highest
 * for DESC, the lowest for ASC). Every candidate left can then at most tie with them, so
 * none can enter the top k, and the rows returned are a correct top k (among rows that tie
 * at the boundary SQL lets any be returned). The assumption: the answer lies in a known
 * domain whose best value is known. That holds for a constrained answer, whose reply rules
 * (llm_reply.c) admit only the values offered, and for a yes/no (bool) answer; a free
 * number has no best value, so such an ORDER BY scores every candidate, and the plan says
 * so. Unscored candidates are NULL in the final statement (OCC_PLANNED), which sorts after
 * every value for DESC (and for ASC NULLS LAST, which is therefore required); a single
 * ORDER BY term is required, since a second term would order ties among rows not scored.
 */
#include "engine/plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The conversion the ORDER BY key applies around the occurrence: PGT_NONE when the key is
   the occurrence itself, the cast's type when it is a cast of it, -1 when it is anything
   else. */
static int key_cast(const Occ *o, const Expr *key)
{
	if (key == *o->slot)
		return PGT_NONE;
	if ((key->kind == EX_PGCAST || key->kind == EX_CAST) && key->left == *o->slot &&
	    key->type)
		return (int)key->type->pg;
	return -1;
}

static int numeric_type(int pg)
{
	return pg == PGT_INT || pg == PGT_REAL || pg == PGT_NUMERIC || pg == PGT_BOOL;
}

/* The best value among the options, converted as the key converts them: 1, or 0 when an
   option is not a number under a numeric conversion. */
static int best_option(Exec *ex, const Sig *s, int pg, TopK *t)
{
	int first = 1;
	for (int i = 0; i < s->noptions; i++) {
		const char *v = s->options[i];
		if (!numeric_type(pg)) {
			if (first || (t->desc ? strcmp(v, t->best_text) > 0 : strcmp(v, t->best_text) < 0))
				t->best_text = v;
			first = 0;
			continue;
		}
		char *end;
		double d = strtod(v, &end);
		if (!*v || *end)
			return 0;
		if (pg == PGT_INT || pg == PGT_BOOL)
			d = d < 0 ? -(double)(long long)-d : (double)(long long)d;   /* CAST: toward 0 */
		if (first || (t->desc ? d > t->best_num : d < t->best_num))
			t->best_num = d;
		first = 0;
	}
	t->numeric = numeric_type(pg);
	t->integer = pg == PGT_INT || pg == PGT_BOOL;
	t->from = "the answers allowed";
	(void)ex;
	return 1;
}

void plan_topk(Exec *ex, Block *b, Occ *o, Expr *key)
{
	Select *s = b->sel;
	if (!b->top || !s || s->ncore != 1 || b->limit_all < 0 || !s->order || !key)
		return;   /* no LIMIT: every row is returned, every score needed */
	OrderTerm *term = s->order->items[0];
	int pg = key_cast(o, key);
	if (pg < 0)
		return;   /* the key is not this occurrence */
	const char *why = NULL;
	const Sig *sg = o->sig >= 0 ? &ex->sigs[o->sig] : NULL;
	if (s->order->n != 1)
		why = "ORDER BY has terms after the free text, which would order ties among rows "
		      "not scored";
	else if (b->aggregate)
		why = "the block groups or aggregates its rows";
	else if (b->nocc_where)
		why = "its WHERE holds free text";
	else if (!sg || sg->kind != FT_ANSWER)
		why = "the question is not a literal";
	else if (term->dir != SORT_DESC && term->nulls != NULLS_LAST)
		why = "ascending order puts NULL (unknown) answers first: write ASC NULLS LAST";
	else if (term->nulls == NULLS_FIRST)
		why = "NULLS FIRST puts unknown answers first";
	TopK *t = arena_alloc(ex->a, sizeof *t);
	memset(t, 0, sizeof *t);
	t->occ = o->id;
	b->topk = t;
	if (why) {
		t->why_not = why;
		return;
	}
	t->desc = term->dir == SORT_DESC;
	t->k = b->limit_all;
	int ok = 0;
	if (sg->noptions > 0) {
		ok = best_option(ex, sg, pg, t);
		if (!ok)
			why = "an answer allowed is not a number, but ORDER BY converts it to one";
	} else if (sg->pg == PGT_BOOL || (pg == PGT_BOOL)) {
		t->numeric = 1;
		t->integer = 1;
		t->best_num = t->desc ? 1 : 0;
		t->from = "a yes/no answer";
		ok = 1;
	} else {
		why = "the answer has no known best value (a number or text without bounds): "
		      "give the answers allowed, answer(t, 'q', ARRAY[1, 2, 3])::int, for the walk "
		      "to stop early";
	}
	if (!ok) {
		t->why_not = why;
		return;
	}
	o->plan = PL_TOPK;
	o->mode = OCC_PLANNED;
}

void plan_topk_show(Exec *ex, SBuf *out, const Block *b, int occ, const char *indent)
{
	const TopK *t = b->topk;
	if (!t || t->occ != occ)
		return;
	if (t->why_not) {
		sb_printf(out, "%ssemantic top-k: no, every candidate is scored: %s\n", indent,
		          t->why_not);
		return;
	}
	const Occ *o = &ex->occ[t->occ];
	char best[64];
	if (t->numeric)
		snprintf(best, sizeof best, "%.15g", t->best_num);
	sb_printf(out, "%ssemantic top-k: %lld (LIMIT + OFFSET), %s; candidates by relevance "
	          "(BM25 of their passages for the question)%s, scored in waves\n", indent, t->k,
	          t->desc ? "highest first" : "lowest first",
	          o->arg_item >= 0 && o->arg_indexed ? "" : ", else in the statement's order");
	sb_printf(out, "%s  rule: stop once %lld scored candidates have the best value %s%s%s "
	          "(from %s): any candidate left can at most tie with them\n", indent, t->k,
	          t->numeric ? "" : "'", t->numeric ? best : t->best_text, t->numeric ? "" : "'",
	          t->from);
	sb_printf(out, "%s  assumption: the answer is one of its values (the reply rules "
	          "admit nothing else); candidates not scored are NULL, after every value\n",
	          indent);
}
