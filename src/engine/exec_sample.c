/*
 * exec_sample.c: aggregates within a stated error, the operator of BlinkDB's clause
 * `SELECT count(*) | count(x) | sum(x) | avg(x) ... FROM ... WHERE <free text> [GROUP BY
 * ...] ERROR WITHIN e% AT CONFIDENCE c%` (doc/engine.md, "Aggregates within a stated
 * error"). Its row of the operator table checks the statement the clause ends (prepare),
 * shows the sample it expects (show) and lowers the expected calls to it (cost); its hook
 * in the filter walk (walk_unit) takes over the walk of the statement's one unit: the
 * unit's candidates in a random order from a fixed seed (reported, so a run is
 * reproducible), asked in waves of batch x concurrency, until every group's interval of
 * every aggregate is within e of its estimate at confidence c, or the group has no
 * candidate left (then its values are exact). The walk then asks nothing more (its need is
 * met), and the statement's result is the operator's own: a statement of the estimates and
 * their bounds, bound as parameters (Exec.ready, which the final step runs).
 *
 * The intervals (exec_sample_math.c says why these): a count's is Wilson's, a sum's and
 * an average's the normal approximation, all with the finite-population correction,
 * after a floor of SAMPLE_MIN candidates and SAMPLE_MIN_VALUES values, below which a
 * variance says nothing.
 * A reply that could not be read leaves its candidate out of the sample (never a Yes or a
 * No): counted and reported, the group's size keeps it, and the estimate assumes it passes
 * at the rate of the rest; a group that has one is not exact even when every candidate was
 * asked. A NULL text is what SQL makes of it: the predicate is not true, the row is not
 * counted.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The seed of the random order unless the clause says SEED n: fixed, and shown in the
   plan and the counters, so that a run can be made again. */
#define SAMPLE_SEED 37
/* Below these a group's interval is not trusted: candidates decided, and values of a sum
   or an average among those that pass. */
#define SAMPLE_MIN 30
#define SAMPLE_MIN_VALUES 10
/* The pass rate the plan's expected sample assumes: the planner knows no selectivity of a
   question before it is asked (the worst, every candidate, is shown beside it). */
#define SAMPLE_PLAN_RATE 0.25

enum { AG_COUNT_STAR, AG_COUNT, AG_SUM, AG_AVG };
static const char *const ag_names[] = {"count(*)", "count", "sum", "avg"};

typedef struct SampleAgg {
	int item;             /* its result column */
	int kind;             /* AG_* */
	int arg;              /* its argument's column in the lookup, -1: none */
} SampleAgg;

typedef struct Group {
	uint64_t key;
	long long first;      /* the candidate whose values its plain columns show */
	long long N, n;       /* candidates; decided and in the sample */
	long long left_out;   /* unreadable replies */
	double *s1, *s2;      /* per aggregate: sums of the values, and of their squares */
	unsigned char *real;  /* ... a value of a sum was not an integer (else an exact sum is
	                         one, as SQLite's sum() of integers is) */
	long long *m;         /* ... and how many values */
	int done;
} Group;

/* The operator's state (Exec.opstate[OP_SAMPLE], freed by its row). */
typedef struct SampleState {
	double e, conf, z;
	long long seed;
	int naggs;
	SampleAgg *aggs;
	int nplain, ngroup;   /* the lookup's columns: arguments, plain items, GROUP BY */
	int nargs;
	int *plain_item;      /* per plain column: its result column */
	int ran;
	long long population, asked, waves, left_out, expect_n;
	Group *groups;
	int ngroups, capgroups;
	int exact;
} SampleState;

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
	return exec_sample_math_need(p, e, z, N, SAMPLE_MIN);
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

/* The expected calls: the sample the plan expects, in calls of batch candidates, in place
   of the walk's every candidate. The worst stays every candidate. */
static void sample_cost(Exec *ex)
{
	SampleState *ss = state(ex);
	Block *b = top_block(ex);
	if (!ss || !b || b->nunits != 1)
		return;
	long long N = candidates(b);
	ss->expect_n = need_of(SAMPLE_PLAN_RATE, ss->e, ss->z, N);
	long long batch = ex->set.batch > 0 ? ex->set.batch : 1;
	long long calls = (ss->expect_n * b->units[0].natoms + batch - 1) / batch;
	int k = FT_COST_SLOT(FT_VERIFY);
	if (calls < ex->est.expect[k])
		ex->est.expect[k] = calls;
}

static void sample_show(Exec *ex, SBuf *out)
{
	SampleState *ss = state(ex);
	Block *b = top_block(ex);
	if (!ss || !b)
		return;
	long long N = candidates(b);
	long long batch = ex->set.batch > 0 ? ex->set.batch : 1;
	if (N >= 0)
		ss->expect_n = need_of(SAMPLE_PLAN_RATE, ss->e, ss->z, N);
	sb_printf(out, "sample: ERROR WITHIN %g%% AT CONFIDENCE %g%%, candidates in a random "
	          "order (seed %lld), asked in waves until every group's interval holds\n",
	          ss->e * 100, ss->conf * 100, ss->seed);
	if (N >= 0)
		sb_printf(out, "  expects %lld of %lld candidates (%lld call%s of %lld: the floor) at a "
		          "pass rate of %g; at worst all %lld (then exact)\n", ss->expect_n, N,
		          (ss->expect_n + batch - 1) / batch,
		          (ss->expect_n + batch - 1) / batch == 1 ? "" : "s", batch, SAMPLE_PLAN_RATE, N);
}

/* ---- the sample, inside the walk ---- */

typedef struct Run {
	Exec *ex;
	Walk *w;
	SampleState *ss;
	int *gi;              /* per candidate: its group */
	double *x;            /* per candidate and argument: its value */
	unsigned char *isnull, *isint, *taken, *unread;
} Run;

static int group_of(SampleState *ss, uint64_t key, long long c)
{
	for (int g = 0; g < ss->ngroups; g++)
		if (ss->groups[g].key == key)
			return g;
	if (ss->ngroups == ss->capgroups) {
		ss->capgroups = ss->capgroups ? ss->capgroups * 2 : 8;
		ss->groups = xrealloc(ss->groups, (size_t)ss->capgroups * sizeof *ss->groups);
	}
	Group *g = &ss->groups[ss->ngroups];
	memset(g, 0, sizeof *g);
	g->key = key;
	g->first = c;
	g->s1 = xcalloc((size_t)ss->naggs, sizeof *g->s1);
	g->s2 = xcalloc((size_t)ss->naggs, sizeof *g->s2);
	g->m = xcalloc((size_t)ss->naggs, sizeof *g->m);
	g->real = xcalloc((size_t)ss->naggs, 1);
	return ss->ngroups++;
}

/* The lookup of a candidate by its ids: its aggregates' arguments, its plain result
   columns, its GROUP BY values. */
static SuqlStatus lookup(Run *r, sqlite3_stmt **out, SuqlErr *err)
{
	Exec *ex = r->ex;
	SelectCore *c = r->w->b->core;
	SampleState *ss = r->ss;
	ResultList *cols = NULL;
	for (int i = 0; i < ss->naggs; i++)
		if (ss->aggs[i].arg >= 0)
			exec_col(ex->a, &cols, c->cols->items[ss->aggs[i].item]->expr->list->items[0],
			         NULL);
	for (int i = 0; i < ss->nplain; i++)
		exec_col(ex->a, &cols, c->cols->items[ss->plain_item[i]]->expr, NULL);
	for (int i = 0; i < ss->ngroup; i++)
		exec_col(ex->a, &cols, c->group->items[i], NULL);
	if (!cols)
		return SUQL_OK;
	Select *s = exec_select(ex, r->w->b, cols, exec_cand_by_ids(r->w), NULL);
	char *sql = exec_print_select(ex, s);
	SuqlStatus st = exec_prepare(ex, sql, out, err);
	free(sql);
	return st;
}

/* Every candidate's group and values: SQL only, no call. */
static SuqlStatus read_groups(Run *r, sqlite3_stmt *q, SuqlErr *err)
{
	Walk *w = r->w;
	SampleState *ss = r->ss;
	int first = ss->nargs + ss->nplain;
	for (long long c = 0; c < w->n; c++) {
		uint64_t key = 1;
		if (q) {
			exec_cand_bind_ids(w, q, c);
			int rc = sqlite3_step(q);
			if (rc != SQLITE_ROW)
				return rc == SQLITE_DONE ? err_set(err, SUQL_ERROR, "a candidate of the "
				                                   "sample could not be read again")
				                         : exec_sqlerr(r->ex, err, "reading the sample");
			for (int a = 0; a < ss->nargs; a++) {
				r->isnull[c * ss->nargs + a] = sqlite3_column_type(q, a) == SQLITE_NULL;
				r->isint[c * ss->nargs + a] = sqlite3_column_type(q, a) == SQLITE_INTEGER;
				r->x[c * ss->nargs + a] = sqlite3_column_double(q, a);
			}
			key = exec_sample_math_hash(q, first, ss->ngroup);
		}
		r->gi[c] = group_of(ss, key, c);
		ss->groups[r->gi[c]].N++;
	}
	if (ss->ngroups == 0 && ss->ngroup == 0)
		group_of(ss, 1, -1);   /* no GROUP BY: one row, even over no candidate */
	return SUQL_OK;
}

/* A group's estimate of aggregate a, its bounds, and whether it is NULL. */
static void estimate(const SampleState *ss, const Group *g, int a, double *est, double *lo,
                     double *hi, int *null)
{
	int kind = ss->aggs[a].kind;
	long long n = g->n, N = g->N, m = g->m[a];
	double s1 = g->s1[a], s2 = g->s2[a], z = ss->z;
	*null = 0;
	int exact = n == N && g->left_out == 0;
	if (exact) {
		*null = (kind == AG_SUM || kind == AG_AVG) && m == 0;
		*est = *lo = *hi = kind == AG_AVG ? (m ? s1 / (double)m : 0) : s1;
		return;
	}
	if (kind == AG_COUNT_STAR || kind == AG_COUNT) {
		if (n == 0) {
			*null = 1;
			*est = *lo = *hi = 0;
			return;
		}
		double p = s1 / (double)n;
		exec_sample_math_wilson(p, n, N, z, lo, hi);
		*est = p * (double)N;
		*lo *= (double)N;
		*hi *= (double)N;
		return;
	}
	long long k = kind == AG_SUM ? n : m;
	if (k < 2 || m == 0) {
		*null = 1;
		*est = *lo = *hi = 0;
		return;
	}
	double mean, half = exec_sample_math_half(s1, s2, k, n, N, z, &mean);
	double scale = kind == AG_SUM ? (double)N : 1;
	*est = mean * scale;
	*lo = (mean - half) * scale;
	*hi = (mean + half) * scale;
}

/* The group's every interval is within e of its estimate (or nothing is left to ask). */
static int holds(const SampleState *ss, const Group *g)
{
	if (g->n + g->left_out >= g->N)
		return 1;
	if (g->n < SAMPLE_MIN)
		return 0;
	for (int a = 0; a < ss->naggs; a++) {
		double est, lo, hi;
		int null;
		if ((ss->aggs[a].kind == AG_SUM || ss->aggs[a].kind == AG_AVG) &&
		    g->m[a] < SAMPLE_MIN_VALUES)
			return 0;
		estimate(ss, g, a, &est, &lo, &hi, &null);
		if (null || (hi - lo) / 2 > ss->e * fabs(est) || (hi - lo) / 2 != (hi - lo) / 2)
			return 0;
	}
	return 1;
}

/* Candidate c is decided: its place in the walk, and in its group's sample. */
static void judge(Run *r, long long c)
{
	Walk *w = r->w;
	Unit *u = w->u;
	SampleState *ss = r->ss;
	if (w->state[c] != CAND_UNDECIDED)
		return;
	int next;
	Tri v = plan_unit_eval(u, w->sqlv + c * u->nsqlcols, w->atomv + c * u->natoms, &next);
	if (v == TRI_UNDECIDED)
		return;
	w->state[c] = v == TRI_TRUE ? CAND_PASSED : v == TRI_NULL ? CAND_NULL : CAND_FAILED;
	w->ndecided++;
	Group *g = &ss->groups[r->gi[c]];
	if (v == TRI_NULL && r->unread[c]) {   /* left out: never a Yes or a No */
		g->left_out++;
		ss->left_out++;
		return;
	}
	g->n++;
	int yes = v == TRI_TRUE;
	w->passes += yes;
	for (int a = 0; a < ss->naggs; a++) {
		const SampleAgg *ag = &ss->aggs[a];
		int null = ag->arg >= 0 && r->isnull[c * ss->nargs + ag->arg];
		double x = ag->arg >= 0 ? r->x[c * ss->nargs + ag->arg] : 1;
		int value = yes && !null;   /* a value the aggregate takes */
		double t = ag->kind == AG_SUM ? (value ? x : 0) : value;
		if (ag->kind == AG_AVG) {
			if (!value)
				continue;
			t = x;
		}
		g->s1[a] += t;
		g->s2[a] += t * t;
		g->m[a] += value;
		g->real[a] |= value && ag->arg >= 0 && !r->isint[c * ss->nargs + ag->arg];
	}
}

static int on_done(void *ctx, Req *q, const MemoVal *mv)
{
	Run *r = ctx;
	long long c = q->tag;
	r->w->atomv[c * r->w->u->natoms + q->tag2] = (signed char)mv->verdict;
	r->w->busy[c] = 0;
	if (mv->verdict == VERDICT_NULL)
		r->unread[c] = 1;   /* a text was asked: the reply could not be read */
	return 0;
}

/* Candidate c's next ask into reqs (its text into vals), or it is decided here. 1: an ask. */
static int next_ask(Run *r, long long c, Req *q, char **val, SuqlErr *err, int *failed)
{
	Walk *w = r->w;
	Unit *u = w->u;
	Exec *ex = r->ex;
	for (;;) {
		int k;
		Tri v = plan_unit_eval(u, w->sqlv + c * u->nsqlcols, w->atomv + c * u->natoms, &k);
		if (v != TRI_UNDECIDED) {
			judge(r, c);
			return 0;
		}
		const Occ *o = &ex->occ[u->atoms[k]];
		size_t len;
		char *t = exec_cand_value(w, c, w->atom_arg[k], &len, err, failed);
		if (*failed)
			return 0;
		if (!t) {
			w->atomv[c * u->natoms + k] = VERDICT_NULL;   /* NULL text: not true */
			continue;
		}
		MemoVal *mv = o->sig >= 0 ? memo_get(ex->memo, o->sig, t, len) : NULL;
		if (mv) {
			w->atomv[c * u->natoms + k] = (signed char)mv->verdict;
			if (mv->verdict == VERDICT_NULL)
				r->unread[c] = 1;
			free(t);
			continue;
		}
		*val = t;
		q->sig = o->sig;
		q->v = t;
		q->n = len;
		q->tag = (int)c;
		q->tag2 = k;
		w->busy[c] = 1;
		return 1;
	}
}

/* The sample a group needs for aggregate a by what its sample shows so far: the normal
   approximation's n = z^2 var / (e mean)^2 of the per-candidate values (of the values that
   pass, for an average, scaled by the share that gives one), corrected for the group's
   size; -1 when the sample says nothing yet (no value, or a mean of 0). */
static long long need_now(const SampleState *ss, const Group *g, int a)
{
	int avg = ss->aggs[a].kind == AG_AVG;
	return exec_sample_math_need_mean(g->s1[a], g->s2[a], avg ? g->m[a] : g->n, g->n, g->N,
	                                  ss->e, ss->z, avg);
}

/* The next wave: what the groups not done still need (need_now, the largest of their
   aggregates), in whole calls, between one call and batch x concurrency; a group whose
   sample says nothing yet asks for the largest wave. The first wave is the sample the
   plan expects, for each group. */
static long long wave_size(const SampleState *ss, long long maxwave, int batch)
{
	long long want = 0;
	if (ss->asked == 0 && ss->expect_n > 0) {   /* the first: the sample the plan expects */
		want = (ss->expect_n * ss->ngroups + batch - 1) / batch * batch;
		return want < batch ? batch : want > maxwave ? maxwave : want;
	}
	for (int g = 0; g < ss->ngroups; g++) {
		const Group *gr = &ss->groups[g];
		if (gr->done)
			continue;
		if (gr->n < SAMPLE_MIN)
			return maxwave;
		long long most = 0;
		for (int a = 0; a < ss->naggs; a++) {
			long long k = need_now(ss, gr, a);
			if (k < 0)
				return maxwave;
			if (k > most)
				most = k;
		}
		if (most < SAMPLE_MIN)
			most = SAMPLE_MIN;
		want += most > gr->n ? most - gr->n : 1;
	}
	want = (want + batch - 1) / batch * batch;
	return want < batch ? batch : want > maxwave ? maxwave : want;
}

static SuqlStatus waves(Run *r, SuqlErr *err)
{
	Walk *w = r->w;
	Exec *ex = r->ex;
	SampleState *ss = r->ss;
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	int conc = llm_concurrency(ex->e->llm);
	long long maxwave = (long long)batch * (conc > 0 ? conc : 1);
	long long next = 0;   /* the next position of the random order */
	SuqlStatus st = SUQL_OK;
	for (;;) {
		if (suql_interrupted)
			return err_set(err, SUQL_INTERRUPT, "interrupted");
		for (int g = 0; g < ss->ngroups; g++)
			ss->groups[g].done = holds(ss, &ss->groups[g]);
		long long want = wave_size(ss, maxwave, batch);
		long room = llm_cap_room(ex->e->llm, ex->est.call_in, ex->est.call_out);
		if (room < want / batch)
			want = (room > 0 ? room : 1) * (long long)batch;
		Req *reqs = xcalloc((size_t)want + 1, sizeof *reqs);
		char **vals = xcalloc((size_t)want + 1, sizeof *vals);
		int nreq = 0, failed = 0;
		/* those taken and not decided first (their next atom), then new ones */
		for (long long p = 0; p < next && nreq < want && !failed; p++) {
			long long c = w->order[p];
			if (r->taken[c] && w->state[c] == CAND_UNDECIDED && !w->busy[c])
				nreq += next_ask(r, c, &reqs[nreq], &vals[nreq], err, &failed);
		}
		int open = 0;
		for (long long p = 0; p < next; p++)
			open |= r->taken[w->order[p]] && w->state[w->order[p]] == CAND_UNDECIDED;
		for (; next < w->n && nreq < want && !failed; next++) {
			long long c = w->order[next];
			if (ss->groups[r->gi[c]].done)
				continue;
			r->taken[c] = 1;
			ss->asked++;
			nreq += next_ask(r, c, &reqs[nreq], &vals[nreq], err, &failed);
			/* a group may hold with what this wave decided without a call */
			if (nreq == 0 && holds(ss, &ss->groups[r->gi[c]]))
				ss->groups[r->gi[c]].done = 1;
		}
		if (!failed && nreq > 0) {
			ss->waves++;
			w->wave++;
			st = exec_llm_run(ex, reqs, nreq, on_done, r, err);
			for (int i = 0; i < nreq; i++)
				if (reqs[i].state == REQ_CANCELLED)
					w->busy[reqs[i].tag] = 0;
			for (int i = 0; i < nreq && st == SUQL_OK; i++)
				judge(r, reqs[i].tag);
		}
		for (int i = 0; i < nreq; i++)
			free(vals[i]);
		free(vals);
		free(reqs);
		if (failed)
			return SUQL_ERROR;
		if (st != SUQL_OK)
			return st;
		if (nreq == 0 && !open && next >= w->n)
			break;
		if (nreq == 0 && !open) {
			int any = 0;
			for (int g = 0; g < ss->ngroups && !any; g++)
				any = !holds(ss, &ss->groups[g]);
			if (!any)
				break;
		}
	}
	return SUQL_OK;
}

/* The result: a statement of the estimates and their bounds, bound as parameters (a
   group's plain columns from its first candidate, as SQLite shows a bare column). */
static SuqlStatus result(Run *r, sqlite3_stmt *q, SuqlErr *err)
{
	Exec *ex = r->ex;
	SampleState *ss = r->ss;
	SelectCore *c = r->w->b->core;
	int nitems = c->cols->n;
	SBuf sql = SBUF_INIT;
	int per = 0;
	ss->exact = 1;
	for (int g = 0; g < ss->ngroups; g++) {
		sb_puts(&sql, g ? " UNION ALL SELECT " : "SELECT ");
		per = 0;
		for (int i = 0; i < nitems; i++) {
			int agg = 0;
			for (int a = 0; a < ss->naggs; a++)
				agg |= ss->aggs[a].item == i;
			const char *nm = i < ex->cols.n ? ex->cols.names[i] : "?";
			for (int k = 0; k < (agg ? 3 : 1); k++) {
				sb_printf(&sql, "%s?", per ? ", " : "");
				per++;
				if (g)
					continue;
				SBuf n = SBUF_INIT;
				sb_printf(&n, "%s%s", nm, k == 1 ? " low" : k == 2 ? " high" : "");
				sb_puts(&sql, " AS ");
				sb_put_ident(&sql, n.s, n.len);
				sb_free(&n);
			}
		}
	}
	if (ss->ngroups == 0)
		sb_puts(&sql, "SELECT NULL WHERE 0");
	sqlite3_stmt *out = NULL;
	SuqlStatus st = exec_prepare(ex, sql.s, &out, err);
	sb_free(&sql);
	if (st != SUQL_OK)
		return st;
	int par = 1;
	for (int g = 0; g < ss->ngroups; g++) {
		Group *gr = &ss->groups[g];
		int row = 0;
		if (q && gr->first >= 0 && ss->nplain > 0) {
			exec_cand_bind_ids(r->w, q, gr->first);
			row = sqlite3_step(q) == SQLITE_ROW;
		}
		int plain = 0;
		for (int i = 0; i < nitems; i++) {
			int a = -1;
			for (int k = 0; k < ss->naggs; k++)
				if (ss->aggs[k].item == i)
					a = k;
			if (a < 0) {
				if (row)
					sqlite3_bind_value(out, par, sqlite3_column_value(q, ss->nargs + plain));
				else
					sqlite3_bind_null(out, par);
				plain++;
				par++;
				continue;
			}
			double est, lo, hi;
			int null;
			estimate(ss, gr, a, &est, &lo, &hi, &null);
			ss->exact &= gr->n == gr->N && gr->left_out == 0;
			int integral = ss->aggs[a].kind == AG_COUNT_STAR || ss->aggs[a].kind == AG_COUNT ||
			               (ss->aggs[a].kind == AG_SUM && !gr->real[a] && gr->n == gr->N &&
			                gr->left_out == 0);
			double v[3] = {est, lo, hi};
			for (int k = 0; k < 3; k++, par++) {
				if (null)
					sqlite3_bind_null(out, par);
				else if (integral)   /* the bounds outward to whole rows */
					sqlite3_bind_int64(out, par, (sqlite3_int64)(k == 1 ? floor(v[k])
					                                             : k == 2 ? ceil(v[k])
					                                             : round(v[k])));
				else
					sqlite3_bind_double(out, par, v[k]);
			}
		}
	}
	if (ex->ready)
		sqlite3_finalize(ex->ready);
	ex->ready = out;
	return SUQL_OK;
}

/* The walk's hook: the statement's one unit is sampled here, and the walk has nothing
   left to ask. */
static SuqlStatus sample_walk_unit(Walk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	SampleState *ss = state(ex);
	if (!ss || !w->b->top || ss->ran)
		return SUQL_OK;
	if (w->b->nunits != 1 || w->win)
		return err_set(err, SUQL_ERROR, "ERROR WITHIN samples a WHERE of one conjunction; "
		               "this one is walked in %d parts (an OR of free text): write it as one "
		               "AND of conditions", w->b->nunits);
	ss->ran = 1;
	ss->population = w->n;
	Run r = {ex, w, ss, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t n1 = (size_t)w->n + 1;
	r.isint = xcalloc(n1 * (size_t)(ss->nargs + 1), 1);
	r.gi = xcalloc(n1, sizeof *r.gi);
	r.x = xcalloc(n1 * (size_t)(ss->nargs + 1), sizeof *r.x);
	r.isnull = xcalloc(n1 * (size_t)(ss->nargs + 1), 1);
	r.taken = xcalloc(n1, 1);
	r.unread = xcalloc(n1, 1);
	sqlite3_stmt *q = NULL;
	SuqlStatus st = lookup(&r, &q, err);
	if (st == SUQL_OK)
		st = read_groups(&r, q, err);
	if (st == SUQL_OK)   /* the random order, from the seed */
		exec_sample_math_shuffle(w->order, w->n, (uint64_t)ss->seed);
	for (long long i = 0; i < w->n; i++)
		w->pos[w->order[i]] = i;
	if (st == SUQL_OK)
		st = waves(&r, err);
	if (st == SUQL_OK)
		st = result(&r, q, err);
	sqlite3_finalize(q);
	/* the walk's stop rule is met: it asks nothing more */
	w->need = 0;
	free(r.gi);
	free(r.x);
	free(r.isnull);
	free(r.isint);
	free(r.taken);
	free(r.unread);
	return st;
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
		const Group *gr = &ss->groups[g];
		for (int a = 0; a < ss->naggs; a++) {
			double est, lo, hi;
			int null;
			estimate(ss, gr, a, &est, &lo, &hi, &null);
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
	.walk_unit = sample_walk_unit,
};
