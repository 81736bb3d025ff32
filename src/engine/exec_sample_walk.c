/*
 * exec_sample_walk.c: the sample operator (exec_sample.c) inside the filter walk: its
 * walk_unit hook takes the statement's one unit over. Every candidate's group and
 * aggregate arguments read again by its ids (SQL only); the candidates in a random order
 * from the seed; waves of asks through the engine's requests (exec_llm_run: batches,
 * concurrency, memo, caps), the first the sample the plan expects, each next what the
 * groups not done still need; a group done once every aggregate's half-width is within e
 * of its estimate (EXEC_SAMPLE_MIN candidates and EXEC_SAMPLE_MIN_VALUES values at least),
 * or once all its candidates were asked, and skipped from then on. Then the walk's need is
 * met (it asks nothing more) and the result is a statement of the estimates and their
 * bounds, bound as parameters (Exec.ready, which the final step runs).
 *
 * A reply that cannot be read (VERDICT_NULL for a text that was asked) leaves its
 * candidate out of its group's sample, counted; a NULL text is not true, as in SQL.
 */
#include "engine/exec_int.h"
#include "engine/op_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Run {
	Exec *ex;
	Walk *w;
	SampleState *ss;
	int *gi;              /* per candidate: its group */
	double *x;            /* per candidate and argument: its value */
	unsigned char *isnull, *isint, *taken, *unread;
} Run;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The hash of columns first..first+n of st's row as GROUP BY tells values apart (numbers
   by value, texts and blobs by their bytes, NULL one value); never 0. */
static uint64_t group_hash(sqlite3_stmt *st, int first, int n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = first; i < first + n; i++) {
		int t = sqlite3_column_type(st, i);
		unsigned char tag = t == SQLITE_NULL ? 0 : t == SQLITE_TEXT ? 2 : t == SQLITE_BLOB ? 3
		                    : 1;
		h = mix(h, &tag, 1);
		if (tag == 1) {
			double d = sqlite3_column_double(st, i);
			h = mix(h, &d, sizeof d);
		} else if (tag > 1) {
			const void *v = sqlite3_column_blob(st, i);
			int len = sqlite3_column_bytes(st, i);
			h = mix(h, v, (size_t)len);
		}
	}
	return h ? h : 1;
}

static int group_of(SampleState *ss, uint64_t key, long long c)
{
	for (int g = 0; g < ss->ngroups; g++)
		if (ss->groups[g].key == key)
			return g;
	if (ss->ngroups == ss->capgroups) {
		ss->capgroups = ss->capgroups ? ss->capgroups * 2 : 8;
		ss->groups = xrealloc(ss->groups, (size_t)ss->capgroups * sizeof *ss->groups);
	}
	SampleGroup *g = &ss->groups[ss->ngroups];
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
			key = group_hash(q, first, ss->ngroup);
		}
		r->gi[c] = group_of(ss, key, c);
		ss->groups[r->gi[c]].N++;
	}
	if (ss->ngroups == 0 && ss->ngroup == 0)
		group_of(ss, 1, -1);   /* no GROUP BY: one row, even over no candidate */
	return SUQL_OK;
}

/* A group's estimate of aggregate a, its bounds, and whether it is NULL. */
void exec_sample_walk_estimate(const SampleState *ss, const SampleGroup *g, int a, double *est,
                               double *lo, double *hi, int *null)
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
static int holds(const SampleState *ss, const SampleGroup *g)
{
	if (g->n + g->left_out >= g->N)
		return 1;
	if (g->n < EXEC_SAMPLE_MIN)
		return 0;
	for (int a = 0; a < ss->naggs; a++) {
		double est, lo, hi;
		int null;
		if ((ss->aggs[a].kind == AG_SUM || ss->aggs[a].kind == AG_AVG) &&
		    g->m[a] < EXEC_SAMPLE_MIN_VALUES)
			return 0;
		exec_sample_walk_estimate(ss, g, a, &est, &lo, &hi, &null);
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
	SampleGroup *g = &ss->groups[r->gi[c]];
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
static long long need_now(const SampleState *ss, const SampleGroup *g, int a)
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
		const SampleGroup *gr = &ss->groups[g];
		if (gr->done)
			continue;
		if (gr->n < EXEC_SAMPLE_MIN)
			return maxwave;
		long long most = 0;
		for (int a = 0; a < ss->naggs; a++) {
			long long k = need_now(ss, gr, a);
			if (k < 0)
				return maxwave;
			if (k > most)
				most = k;
		}
		if (most < EXEC_SAMPLE_MIN)
			most = EXEC_SAMPLE_MIN;
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
	for (int g = 0; g < ss->ngroups || g == 0; g++) {   /* no group: the columns, no row */
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
		sb_puts(&sql, " WHERE 0");
	sqlite3_stmt *out = NULL;
	SuqlStatus st = exec_prepare(ex, sql.s, &out, err);
	sb_free(&sql);
	if (st != SUQL_OK)
		return st;
	int par = 1;
	for (int g = 0; g < ss->ngroups; g++) {
		SampleGroup *gr = &ss->groups[g];
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
			exec_sample_walk_estimate(ss, gr, a, &est, &lo, &hi, &null);
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
SuqlStatus exec_sample_walk_unit(Walk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	SampleState *ss = ex->opstate[OP_SAMPLE];
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
