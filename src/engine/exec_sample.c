/*
 * exec_sample.c: aggregates within a stated error, the operator of BlinkDB's clause
 * `SELECT count(*) | count(x) | sum(x) | avg(x) ... FROM ... WHERE <free text> [GROUP BY
 * ...] ERROR WITHIN e% AT CONFIDENCE c% [SEED n]` (doc/engine.md, "Aggregates within a
 * stated error"), and its row of the operator table. The row checks the statement the
 * clause ends (prepare: errors placed at the clause or at what cannot be), shows the
 * sample it expects (show) and puts its calls in place of the walk's in the expected
 * calls (cost), says what it did (counters), refuses PostgreSQL (refuse) and frees its
 * state. Its hook in the filter walk (walk_unit, exec_sample_walk.c) takes the walk of the
 * statement's one unit over: the candidates in a random order from a fixed seed (reported,
 * so a run can be made again), asked in waves until every group's intervals are within e
 * of their estimates at confidence c, or the group has no candidate left (then its values
 * are exact); the result is the operator's own statement of the estimates and bounds.
 *
 * The intervals (exec_sample_math.c says why these): a count's is Wilson's, a sum's and
 * an average's the normal approximation, all with the finite-population correction. A
 * reply that could not be read leaves its candidate out of the sample (never a Yes or a
 * No): counted and reported, the group's size keeps it, and the estimate assumes it passes
 * at the rate of the rest; a group that has one is not exact even when every candidate was
 * asked. A NULL text is what SQL makes of it: the predicate is not true.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/plan_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The seed of the random order unless the clause says SEED n: fixed, and shown in the
   plan and the counters, so that a run can be made again. */
#define SAMPLE_SEED 37
/* The pass rate the plan's expected sample assumes: the planner knows no selectivity of a
   question before it is asked (the worst, every candidate, is shown beside it). */
#define SAMPLE_PLAN_RATE 0.25
static const char *const ag_names[] = {"count(*)", "count", "sum", "avg"};

static SampleState *state(const Exec *ex)
{
	return ex->opstate[OP_SAMPLE];
}

static Select *clause_of(const Exec *ex)
{
	const Stmt *st = ex->ast ? ex->ast->stmt : NULL;
	return st && st->kind == ST_SELECT && st->select && st->select->err_within > 0
	       ? st->select : NULL;
}

static int sample_applies(const Exec *ex)
{
	return clause_of(ex) != NULL;
}

static int has_aggregate(const Expr *e)
{
	if (!e)
		return 0;
	if (bind_is_aggregate_name(e))
		return 1;
	if (has_aggregate(e->left) || has_aggregate(e->right) || has_aggregate(e->extra))
		return 1;
	for (int i = 0; e->list && i < e->list->n; i++)
		if (has_aggregate(e->list->items[i]))
			return 1;
	return 0;
}

static SuqlStatus fail_at(Exec *ex, AstSpan at, const char *hint, const char *msg,
                          SuqlErr *err)
{
	return err_at(err, SUQL_ERROR, ex->sql, ex->len, at.off, at.len, hint, "%s", msg);
}

/* The statement the clause ends: one SELECT over FROM, free text in its WHERE and nowhere
   else, result columns that are count(*), count(x), sum(x), avg(x) or plain; the rest
   is refused at the clause or at what cannot be. */
static SuqlStatus sample_prepare(Exec *ex, SuqlErr *err)
{
	Select *s = clause_of(ex);
	AstSpan at = s->err_span;
	if (s->ncore != 1 || s->cores[0]->kind != CORE_SELECT)
		return fail_at(ex, at, "write one SELECT before the clause",
		               "ERROR WITHIN estimates the aggregates of one SELECT, not of a compound "
		               "or VALUES", err);
	SelectCore *c = s->cores[0];
	if (s->order || s->limit || c->having || c->distinct || c->windows)
		return fail_at(ex, at, "remove ORDER BY, LIMIT, HAVING, DISTINCT or WINDOW",
		               "ERROR WITHIN does not sample under ORDER BY, LIMIT, HAVING, "
		               "DISTINCT or WINDOW yet", err);
	if (ex->set.optimize != OPT_ON)
		return fail_at(ex, at, "set optimize on", "ERROR WITHIN samples through the planner's "
		               "walk, which the optimize setting turns off", err);
	Block *b = NULL;
	for (int i = 0; i < ex->nblocks; i++)
		if (ex->blocks[i].top)
			b = &ex->blocks[i];
	if (!b || !c->where || b->nocc_where == 0)
		return fail_at(ex, at, "ask a free-text question in WHERE, such as answer(text, "
		               "'...') = 'Yes', or remove the clause",
		               "ERROR WITHIN samples the rows a free-text WHERE keeps, and this "
		               "statement has none: count it exactly", err);
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].block != b->id || ex->occ[i].pos != POS_WHERE)
			return fail_at(ex, at, "keep free text in the WHERE of the statement's SELECT",
			               "ERROR WITHIN samples a WHERE: free text elsewhere (a result "
			               "column, a subquery) would be asked of every row", err);
	SampleState *ss = xcalloc(1, sizeof *ss);
	ex->opstate[OP_SAMPLE] = ss;
	ss->e = s->err_within;
	ss->conf = s->confidence;
	ss->z = exec_sample_math_z(s->confidence);
	ss->seed = s->seed >= 0 ? s->seed : SAMPLE_SEED;
	int nitems = c->cols->n;
	ss->aggs = xcalloc((size_t)nitems, sizeof *ss->aggs);
	ss->plain_item = xcalloc((size_t)nitems, sizeof *ss->plain_item);
	for (int i = 0; i < nitems; i++) {
		ResultCol *rc = c->cols->items[i];
		Expr *e = rc->expr;
		int kind = -1;
		if (e->kind == EX_FUNC && !e->over && !e->extra && !e->distinct && !e->order) {
			int n = e->list ? e->list->n : 0;
			if (ast_name_is(e->name, "count") && (e->star || n == 0))
				kind = AG_COUNT_STAR;
			else if (ast_name_is(e->name, "count") && n == 1)
				kind = AG_COUNT;
			else if (ast_name_is(e->name, "sum") && n == 1)
				kind = AG_SUM;
			else if (ast_name_is(e->name, "avg") && n == 1)
				kind = AG_AVG;
		}
		if (kind < 0 && e->kind == EX_STAR)
			return fail_at(ex, rc->span, "name the columns and the aggregates",
			               "ERROR WITHIN estimates aggregates: * is not one", err);
		if (kind < 0 && has_aggregate(e))
			return fail_at(ex, rc->span, "estimate count(*), count(x), sum(x) or avg(x) as "
			               "a whole result column (no DISTINCT, FILTER or OVER)",
			               "ERROR WITHIN cannot estimate this aggregate", err);
		if (kind < 0) {
			ss->plain_item[ss->nplain++] = i;
			continue;
		}
		SampleAgg *a = &ss->aggs[ss->naggs++];
		a->item = i;
		a->kind = kind;
		a->arg = kind == AG_COUNT_STAR ? -1 : ss->nargs++;
	}
	if (ss->naggs == 0)
		return fail_at(ex, at, "select count(*), count(x), sum(x) or avg(x), or remove the "
		               "clause", "ERROR WITHIN needs an aggregate to estimate", err);
	ss->ngroup = c->group ? c->group->n : 0;
	return SUQL_OK;
}

/* The candidates a group of N needs for a count within e at pass rate p (exec_int.h). */
static long long need_of(double p, double e, double z, long long N)
{
	return exec_sample_math_need(p, e, z, N, EXEC_SAMPLE_MIN);
}

static Block *top_block(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++)
		if (ex->blocks[i].top)
			return &ex->blocks[i];
	return NULL;
}

/* The candidates of the block's one unit as the planner counted them (at most the rows
   that may pass), or -1. */
static long long candidates(const Block *b)
{
	if (b->nunits != 1)
		return -1;
	if (b->budget.ncount == 1 && b->budget.count)
		return b->budget.count[0];
	return b->bound;
}

/* The pass rate the plan expects of the unit's first question: the share earlier walks
   saw pass (plan_cost_learned, *learned set), else SAMPLE_PLAN_RATE; at least 1 in 100,
   whose sample is already most of a table of a few thousand rows. */
static double plan_rate(Exec *ex, const Block *b, int *learned)
{
	if (learned)
		*learned = 0;
	if (b->nunits == 1 && b->units[0].natoms > 0) {
		double r = plan_cost_learned(ex, &ex->occ[b->units[0].atoms[0]], NULL, NULL);
		if (r >= 0) {
			if (learned)
				*learned = 1;
			return r < 0.01 ? 0.01 : r;
		}
	}
	return SAMPLE_PLAN_RATE;
}

/* The expected calls: the sample the plan expects, in calls of batch candidates, in place
   of the walk's every candidate. The worst stays every candidate. */
static void sample_cost(Exec *ex)
{
	SampleState *ss = state(ex);
	Block *b = top_block(ex);
	if (!ss || !b || b->nunits != 1)
		return;
	long long N = candidates(b);
	ss->expect_n = need_of(plan_rate(ex, b, NULL), ss->e, ss->z, N);
	long long batch = ex->set.batch > 0 ? ex->set.batch : 1;
	long long calls = (ss->expect_n * b->units[0].natoms + batch - 1) / batch;
	int k = FT_COST_SLOT(FT_VERIFY);
	if (calls < ex->est.expect[k])
		ex->est.expect[k] = calls;
}

/* The floor of the walk it takes over: the sample the plan expects, each candidate asked
   every question of the unit once, in full calls (a group's sample each). */
static long long sample_walk_floor(Exec *ex, const Block *b)
{
	SampleState *ss = state(ex);
	if (!ss || !b->top || b->nunits != 1)
		return -1;
	long long N = candidates(b);
	if (N < 0)
		return -1;
	long long n = need_of(plan_rate(ex, b, NULL), ss->e, ss->z, N);
	return plan_cost_floor_items(n * (b->units[0].natoms > 0 ? b->units[0].natoms : 1),
	                             plan_cost_floor_batch(ex));
}

/* Its floor, which the walk's leaves out: that of the walk it takes over. */
static long long sample_floor(Exec *ex)
{
	Block *b = top_block(ex);
	long long f = b ? sample_walk_floor(ex, b) : -1;
	return f > 0 ? f : 0;
}

static void sample_show(Exec *ex, SBuf *out)
{
	SampleState *ss = state(ex);
	Block *b = top_block(ex);
	if (!ss || !b)
		return;
	long long N = candidates(b);
	long long batch = ex->set.batch > 0 ? ex->set.batch : 1;
	int learned;
	double rate = plan_rate(ex, b, &learned);
	if (N >= 0)
		ss->expect_n = need_of(rate, ss->e, ss->z, N);
	sb_printf(out, "sample: ERROR WITHIN %g%% AT CONFIDENCE %g%%, candidates in a random "
	          "order (seed %lld), asked in waves until every group's interval holds\n",
	          ss->e * 100, ss->conf * 100, ss->seed);
	if (N >= 0)
		sb_printf(out, "  expects %lld of %lld candidates (%lld call%s of %lld: the floor) at a "
		          "pass rate of %g (%s); at worst all %lld (then exact)\n", ss->expect_n, N,
		          (ss->expect_n + batch - 1) / batch,
		          (ss->expect_n + batch - 1) / batch == 1 ? "" : "s", batch, rate,
		          learned ? "the share earlier walks saw pass" : "assumed", N);
}
static void sample_counters(Exec *ex, SBuf *out)
{
	SampleState *ss = state(ex);
	if (!ss)
		return;
	if (!ss->ran) {   /* the planner did not walk the WHERE: SQLite asked every row */
		sb_puts(out, "sample: not taken (the WHERE was not walked): every candidate was "
		        "asked as SQLite read it, the result is exact, without bounds\n");
		return;
	}
	sb_printf(out, "sample: %lld candidates asked of %lld, in %lld wave%s (seed %lld)%s\n",
	          ss->asked, ss->population, ss->waves, ss->waves == 1 ? "" : "s", ss->seed,
	          ss->exact ? ": every candidate, the result is exact" : "");
	if (ss->left_out)
		sb_printf(out, "  %lld candidates left out of the sample: their replies could not be "
		          "read (not counted as Yes or No; the estimates assume they pass at the "
		          "sample's rate)\n", ss->left_out);
	for (int g = 0; g < ss->ngroups && g < 20; g++) {
		const SampleGroup *gr = &ss->groups[g];
		for (int a = 0; a < ss->naggs; a++) {
			double est, lo, hi;
			int null;
			exec_sample_walk_estimate(ss, gr, a, &est, &lo, &hi, &null);
			const char *nm = ss->aggs[a].item < ex->cols.n ? ex->cols.names[ss->aggs[a].item]
			                 : ag_names[ss->aggs[a].kind];
			if (ss->ngroup > 0)
				sb_printf(out, "  group %d, %s: ", g + 1, nm);
			else
				sb_printf(out, "  %s: ", nm);
			if (null)
				sb_puts(out, "NULL");
			else if (gr->n == gr->N && gr->left_out == 0)
				sb_printf(out, "%g exact", est);
			else
				sb_printf(out, "%g +/- %g [%g, %g] at %g%%", est, (hi - lo) / 2, lo, hi,
				          ss->conf * 100);
			sb_printf(out, " (%lld of %lld candidates)\n", gr->n, gr->N);
		}
	}
	if (ss->ngroups > 20)
		sb_printf(out, "  ... and %d more groups\n", ss->ngroups - 20);
}

/* PostgreSQL: the sample reads its candidates again by SQLite's ids and hands its result
   to SQLite's final step; not yet there. Neither of the two kinds of op_int.h: a third,
   named as it is. */
static const char *sample_refuse(Exec *ex, const Dialect *d)
{
	(void)ex;
	if (d->functions && d->refetch)
		return NULL;
	return "a sample within a stated error (ERROR WITHIN), which reads its candidates again "
	       "by SQLite's row ids: on PostgreSQL, count without the clause";
}

static void sample_free(Exec *ex)
{
	SampleState *ss = state(ex);
	if (!ss)
		return;
	for (int g = 0; g < ss->ngroups; g++) {
		free(ss->groups[g].s1);
		free(ss->groups[g].s2);
		free(ss->groups[g].m);
		free(ss->groups[g].real);
	}
	free(ss->groups);
	free(ss->aggs);
	free(ss->plain_item);
	free(ss);
	ex->opstate[OP_SAMPLE] = NULL;
}

const EngineOp exec_sample_row = {
	.name = "sample",
	.slot = OP_SAMPLE,
	.applies = sample_applies,
	.prepare = sample_prepare,
	.cost = sample_cost,
	.show = sample_show,
	.counters = sample_counters,
	.refuse = sample_refuse,
	.free = sample_free,
	.walk_unit = exec_sample_walk_unit,
	.walk_floor = sample_walk_floor,
	.floor = sample_floor,
};
