/*
 * exec_join.c: semantic joins, matches(left, right, 'question') (see doc/join.md).
 *
 * Judged pair by pair, a join of N left rows with M right rows costs N x M calls. When the
 * two sides of matches() each read one FROM item of the block (and nothing else), the
 * optimizer rewrites it instead: it lists the distinct values of each side, and for each
 * distinct left value asks the model once which of the right values match (one batched
 * request of the match prompt, the left value above numbered right values). When the right
 * side has more values than join_candidates, BM25 keeps for each left value the right
 * values that share words with it, the best join_candidates of them; the pairs it drops
 * are not asked and count as no match. The answers go into the memo, keyed by a signature
 * per left value and the right value, where suql_match(left, right, id) finds them as
 * SQLite evaluates the join (a pair the rewrite did not ask about is 0). Naive mode, and a
 * join that cannot be rewritten, ask each pair when SQLite first meets it (the single match
 * prompt), which is also how a batch's unreadable answers are asked alone: so both ways
 * share cache entries, and an unreadable reply follows the client's rules (asked again,
 * split, unknown: NULL, never cached).
 *
 * Under a LIMIT (a SELECT of one join, inner joins only, no other free text, no ORDER BY,
 * grouping, DISTINCT or aggregate), the left values are asked in waves, the first as many
 * calls as the client sends at once, each next one twice as many left values; after each
 * wave the final statement is counted with the answers so far (a pair not asked is no
 * match), and the walk stops once it returns the LIMIT's rows: any rows that pass are the
 * answer to a LIMIT without ORDER BY.
 *
 * On PostgreSQL the same listings run on the store, printed PRINT_PG (each side as its
 * text, a list as JSON, in the order SQLite lists it), the model is asked as above, and
 * the final statement looks each pair's verdict up in bound arrays (exec_pg_plan.c); a
 * join that is not rewritten is refused there (exec_join_op_refuse): Postgres has no
 * suql_match to call pair by pair.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/memo_int.h"
#include "engine/op_int.h"
#include "engine/plan_int.h"
#include "engine/udf_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct JoinPlan {
	/* left value -> its signature (open addressing on a 64-bit hash) */
	uint64_t *mh;
	int *msig;
	size_t mcap, mn;
	/* the rewrite */
	int rewritten;        /* values listed and candidates chosen: the pairs are asked ahead */
	char *lsql, *rsql;    /* the statements listing each side's distinct values */
	char **lv, **rv;
	size_t *ln, *rn;
	long long nl, nr;
	int **cand;           /* per left value: the right values it is compared with */
	int *ncand;
	int pruned;           /* BM25 kept at most join_candidates of the right values */
	unsigned char **allow; /* per left value, per right value: the pair occurs in a row the
	                          structured conditions let through (NULL: every pair may) */
	long long excluded;   /* pairs the structured conditions exclude, never asked */
	long long pairs;      /* pairs to ask */
	long long expect;     /* calls expected */
	long long lazy;       /* the LIMIT (rows returned) when it may stop early, else -1 */
	long long lasked;     /* left values asked when it stopped */
	JoinFactor *jf;       /* the attempt to factor it (exec_factor.c), or NULL */
	/* counters */
	long long asked, yes, no, unknown;
	long calls, hits, requests;
};

/* The statement's joins (Exec.opstate[OP_JOIN]), or none (read, never written). */
static JoinState *js(const Exec *ex)
{
	static JoinState none;
	JoinState *s = ex->opstate[OP_JOIN];
	return s ? s : &none;
}

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = str_hash64(s, n);
	return h ? h : 1;
}

static JoinPlan *plan_of(Join *j)
{
	if (!j->jp)
		j->jp = xcalloc(1, sizeof *j->jp);
	return j->jp;
}

/* The signature of join j for one left value (made when first asked for). */
static int exec_join_sig(Exec *ex, Join *j, const char *v, size_t n)
{
	JoinPlan *jp = plan_of(j);
	if (jp->mn * 2 >= jp->mcap) {
		size_t cap = jp->mcap ? jp->mcap * 2 : 64;
		uint64_t *h = xcalloc(cap, sizeof *h);
		int *sg = xmalloc(cap * sizeof *sg);
		for (size_t i = 0; i < jp->mcap; i++) {
			if (!jp->mh[i])
				continue;
			size_t k = jp->mh[i] & (cap - 1);
			while (h[k])
				k = (k + 1) & (cap - 1);
			h[k] = jp->mh[i];
			sg[k] = jp->msig[i];
		}
		free(jp->mh);
		free(jp->msig);
		jp->mh = h;
		jp->msig = sg;
		jp->mcap = cap;
	}
	uint64_t h = fnv64(v, n);
	size_t k = h & (jp->mcap - 1);
	for (; jp->mh[k]; k = (k + 1) & (jp->mcap - 1)) {
		const char *s = ex->sigs[jp->msig[k]].subject;
		if (jp->mh[k] == h && strlen(s) == n && memcmp(s, v, n) == 0)
			return jp->msig[k];
	}
	const Sig *base = &ex->sigs[j->sig];
	Sig s = {0};
	s.kind = FT_VERIFY;
	s.question = xstrdup(base->question);
	s.op = xstrdup(base->op);
	s.list = base->list;
	s.join = j->id + 1;
	s.unread_to = j->sig + 1;
	s.subject = xstrndup(v, n);
	int id = memo_sig_intern(ex, &s);
	jp->mh[k] = h;
	jp->msig[k] = id;
	jp->mn++;
	return id;
}

/* exec_join_sig as JoinSides.sig, for the factorization (exec_factor.c) */
static int left_sig(Exec *ex, void *ctx, const char *v, size_t n)
{
	return exec_join_sig(ex, ctx, v, n);
}


/* ---- running a listing ----
   A listing is one of the planner's statements (exec_probe_open): free text inside a side
   is not asked, its work is bounded, and a failure leaves the statement's transaction
   usable. */

/* Column k of the row as text (heap), NULL for NULL. */
static char *probe_text(ExecProbe *p, int k, size_t *n)
{
	const char *t = store_text(p->c, k);
	*n = t ? store_bytes(p->c, k) : 0;
	return t ? xstrndup(t, *n) : NULL;
}

/* The distinct values a statement lists: 0, -1 on an SQL error, -2 when the planning
   bound stopped it. */
static int list_values(Exec *ex, const char *sql, char ***v, size_t **n, long long *nv)
{
	*v = NULL;
	*n = NULL;
	*nv = 0;
	long long cap = 0;
	ExecProbe ls;
	int r = exec_probe_open(&ls, ex, sql);
	while (r == 0 && (r = exec_probe_next(&ls)) == 1) {
		if (*nv == cap) {
			cap = cap ? cap * 2 : 64;
			*v = xrealloc(*v, (size_t)cap * sizeof **v);
			*n = xrealloc(*n, (size_t)cap * sizeof **n);
		}
		(*v)[*nv] = probe_text(&ls, 0, &(*n)[*nv]);
		(*nv)++;
		r = 0;
	}
	exec_probe_close(&ls);
	return r;
}

typedef struct Scored {
	double sc;
	int i;
} Scored;

static int by_score(const void *a, const void *b)
{
	const Scored *x = a, *y = b;
	if (x->sc != y->sc)
		return x->sc < y->sc ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The right values' words as an inverted index: for each stem, the right values holding
   it and how often (BM25 of a left value then costs the postings of its words, not a pass
   over every right value). */
typedef struct Posting {
	int r, tf;
} Posting;

typedef struct Index {
	char **stem;          /* open addressing on the stem's hash */
	Posting **post;
	int *npost, *cappost;
	size_t cap;
	int *len;             /* terms of each right value */
	double avg;
	long long n;
} Index;

static size_t slot(const Index *ix, const char *s)
{
	size_t k = (size_t)fnv64(s, strlen(s)) & (ix->cap - 1);
	while (ix->stem[k] && strcmp(ix->stem[k], s) != 0)
		k = (k + 1) & (ix->cap - 1);
	return k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void index_build(Index *ix, JoinPlan *jp)
{
	memset(ix, 0, sizeof *ix);
	ix->n = jp->nr;
	ix->len = xcalloc((size_t)jp->nr + 1, sizeof *ix->len);
	TextTerms *rt = xcalloc((size_t)jp->nr + 1, sizeof *rt);
	size_t total = 0;
	for (long long r = 0; r < jp->nr; r++) {
		text_terms(jp->rv[r], jp->rn[r], &rt[r]);
		ix->len[r] = rt[r].n;
		ix->avg += rt[r].n;
		total += (size_t)rt[r].n;
	}
	ix->avg = jp->nr && ix->avg > 0 ? ix->avg / (double)jp->nr : 1;
	for (ix->cap = 64; ix->cap < 2 * total + 2; ix->cap *= 2)
		;
	ix->stem = xcalloc(ix->cap, sizeof *ix->stem);
	ix->post = xcalloc(ix->cap, sizeof *ix->post);
	ix->npost = xcalloc(ix->cap, sizeof *ix->npost);
	ix->cappost = xcalloc(ix->cap, sizeof *ix->cappost);
	for (long long r = 0; r < jp->nr; r++) {
		qsort(rt[r].v, (size_t)rt[r].n, sizeof *rt[r].v, cmp_str);
		for (int i = 0; i < rt[r].n;) {
			int j = i;
			while (j < rt[r].n && strcmp(rt[r].v[j], rt[r].v[i]) == 0)
				j++;
			size_t k = slot(ix, rt[r].v[i]);
			if (!ix->stem[k])
				ix->stem[k] = xstrdup(rt[r].v[i]);
			if (ix->npost[k] == ix->cappost[k]) {
				ix->cappost[k] = ix->cappost[k] ? ix->cappost[k] * 2 : 4;
				ix->post[k] = xrealloc(ix->post[k], (size_t)ix->cappost[k] * sizeof **ix->post);
			}
			ix->post[k][ix->npost[k]++] = (Posting){(int)r, j - i};
			i = j;
		}
		text_terms_free(&rt[r]);
	}
	free(rt);
}

static void index_free(Index *ix)
{
	for (size_t k = 0; k < ix->cap; k++) {
		free(ix->stem[k]);
		free(ix->post[k]);
	}
	free(ix->stem);
	free(ix->post);
	free(ix->npost);
	free(ix->cappost);
	free(ix->len);
}

/* For each left value, the right values it is compared with: all of them, or past
   join_candidates the best of those sharing words with it by BM25 (k1 1.2, b 0.75, as
   text_bm25; statistics over the right values). */
static void choose(Exec *ex, JoinPlan *jp)
{
	int k = ex->set.join_candidates;
	jp->cand = xcalloc((size_t)jp->nl + 1, sizeof *jp->cand);
	jp->ncand = xcalloc((size_t)jp->nl + 1, sizeof *jp->ncand);
	jp->pruned = k > 0 && jp->nr > k;
	Index ix;
	double *sc = NULL;
	int *touched = NULL;
	Scored *rk = NULL;
	if (jp->pruned) {
		index_build(&ix, jp);
		sc = xcalloc((size_t)jp->nr + 1, sizeof *sc);
		touched = xmalloc(((size_t)jp->nr + 1) * sizeof *touched);
		rk = xmalloc(((size_t)jp->nr + 1) * sizeof *rk);
	}
	for (long long l = 0; l < jp->nl; l++) {
		if (!jp->pruned) {
			jp->cand[l] = xmalloc((size_t)jp->nr * sizeof **jp->cand + 1);
			int m = 0;
			for (long long r = 0; r < jp->nr; r++)
				if (!jp->allow || jp->allow[l][r])
					jp->cand[l][m++] = (int)r;
			jp->ncand[l] = m;
			jp->pairs += jp->ncand[l];
			continue;
		}
		TextTerms q = TEXT_TERMS_INIT;
		text_terms(jp->lv[l], jp->ln[l], &q);
		qsort(q.v, (size_t)q.n, sizeof *q.v, cmp_str);
		int nt = 0;
		for (int i = 0; i < q.n; i++) {
			if (i > 0 && strcmp(q.v[i], q.v[i - 1]) == 0)
				continue;   /* a repeated query word counts once */
			size_t s = slot(&ix, q.v[i]);
			if (!ix.stem[s])
				continue;
			double d = ix.npost[s];
			double idf = log(((double)ix.n - d + 0.5) / (d + 0.5) + 1.0);
			for (int p = 0; p < ix.npost[s]; p++) {
				const Posting *po = &ix.post[s][p];
				if (sc[po->r] == 0)
					touched[nt++] = po->r;
				double norm = 1.2 * (0.25 + 0.75 * ix.len[po->r] / ix.avg);
				sc[po->r] += idf * po->tf * 2.2 / (po->tf + norm);
			}
		}
		text_terms_free(&q);
		int m = 0;
		for (int i = 0; i < nt; i++) {
			if (!jp->allow || jp->allow[l][touched[i]])
				rk[m++] = (Scored){sc[touched[i]], touched[i]};
			sc[touched[i]] = 0;
		}
		qsort(rk, (size_t)m, sizeof *rk, by_score);
		if (m > k)
			m = k;
		jp->cand[l] = xmalloc((size_t)m * sizeof **jp->cand + 1);
		for (int i = 0; i < m; i++)
			jp->cand[l][i] = rk[i].i;
		jp->ncand[l] = m;
		jp->pairs += m;
	}
	if (jp->pruned)
		index_free(&ix);
	free(sc);
	free(touched);
	free(rk);
}

/* Calls the candidates of one left value take, grouped as exec_llm_run groups them. */
static long long calls_for(Exec *ex, JoinPlan *jp, long long l)
{
	ExecLlmPack p = {0};
	for (int i = 0; i < jp->ncand[l]; i++)
		exec_llm_pack(ex, &p, jp->rn[jp->cand[l][i]]);
	return p.calls;
}

/* ---- the pairs the structured conditions let through ----
   The block's FROM and the WHERE's conjuncts without free text say which pairs of values
   occur together in a row that can pass: SELECT DISTINCT left, right over them. A pair
   outside that list (a.id < b.id false, another column unequal) is never asked. When every
   join of the FROM is inner, an ON that holds free text (matches() itself, or another
   question) is listed with its plain conjuncts only, as free text reads as NULL while
   planning: there ON and WHERE mean the same, and a pair the plain part excludes cannot
   join. With an outer join, such an ON means no listing (a WHERE may then keep the rows a
   failed match null-extends: `LEFT JOIN b ON matches(...) WHERE b.x IS NULL`). Not done
   either when the listing is stopped at the planning bound: then every pair of the two
   lists may occur. */

typedef struct VMap {
	uint64_t *h;
	long long *ix;
	size_t cap;
} VMap;

static void vmap_build(VMap *m, char **v, size_t *n, long long nv)
{
	for (m->cap = 64; m->cap < (size_t)nv * 2 + 2; m->cap *= 2)
		;
	m->h = xcalloc(m->cap, sizeof *m->h);
	m->ix = xmalloc(m->cap * sizeof *m->ix);
	for (long long i = 0; i < nv; i++) {
		uint64_t h = fnv64(v[i], n[i]);
		size_t k = h & (m->cap - 1);
		while (m->h[k])
			k = (k + 1) & (m->cap - 1);
		m->h[k] = h;
		m->ix[k] = i;
	}
}

static long long vmap_find(const VMap *m, char **v, size_t *n, const char *s, size_t len)
{
	uint64_t h = fnv64(s, len);
	for (size_t k = h & (m->cap - 1); m->h[k]; k = (k + 1) & (m->cap - 1))
		if (m->h[k] == h && n[m->ix[k]] == len && memcmp(v[m->ix[k]], s, len) == 0)
			return m->ix[k];
	return -1;
}

static void vmap_free(VMap *m)
{
	free(m->h);
	free(m->ix);
}

typedef struct OnSaved {
	FromItem *f;
	Expr *on;
} OnSaved;

/* Whether an ON of the FROM holds free text, and whether a join of it is outer. */
static void ons_scan(Exec *ex, const FromList *fl, int *freetext, int *outer)
{
	for (int i = 0; fl && i < fl->n; i++) {
		const FromItem *f = fl->items[i];
		*outer |= !exec_join_side_inner(f);
		*freetext |= f->on && !plan_push_plain_expr(ex, f->on);
		if (f->kind == FROM_JOIN)
			ons_scan(ex, f->nested, freetext, outer);
	}
}

/* Each ON with free text replaced by its plain conjuncts (1 when none), the ON as written
   kept in *sv for ons_restore. For a FROM of inner joins only. */
static void ons_plain(Exec *ex, FromList *fl, OnSaved **sv, int *n)
{
	for (int i = 0; fl && i < fl->n; i++) {
		FromItem *f = fl->items[i];
		if (f->on && !plan_push_plain_expr(ex, f->on)) {
			*sv = xrealloc(*sv, (size_t)(*n + 1) * sizeof **sv);
			(*sv)[(*n)++] = (OnSaved){f, f->on};
			Expr *keep = exec_join_side_plain(ex, f->on);
			f->on = keep ? keep : ast_integer(ex->a, 1);
		}
		if (f->kind == FROM_JOIN)
			ons_plain(ex, f->nested, sv, n);
	}
}

static void ons_restore(OnSaved *sv, int n)
{
	for (int i = 0; i < n; i++)
		sv[i].f->on = sv[i].on;
	free(sv);
}

static void list_pairs(Exec *ex, Join *j, Block *b, JoinPlan *jp)
{
	int freetext = 0, outer = 0;
	ons_scan(ex, b->core->from, &freetext, &outer);
	if ((freetext && outer) || !jp->nl || !jp->nr)
		return;
	Expr *w = exec_join_side_plain(ex, b->core->where);
	Expr *ln = ast_expr_new(ex->a, EX_ISNULL), *rn = ast_expr_new(ex->a, EX_ISNULL);
	ln->left = j->left;
	ln->not_ = 1;
	rn->left = j->right;
	rn->not_ = 1;
	w = exec_and(ex->a, exec_and(ex->a, w, ln), rn);
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, exec_join_side_value(ex, j->left), "l");
	exec_col(ex->a, &cols, exec_join_side_value(ex, j->right), "r");
	OnSaved *sv = NULL;
	int nsv = 0;
	ons_plain(ex, b->core->from, &sv, &nsv);
	Select *s = exec_select(ex, b, cols, w, NULL);
	s->cores[0]->distinct = DISTINCT_DISTINCT;
	char *sql = exec_print_select(ex, s);
	ons_restore(sv, nsv);
	VMap lm, rm;
	vmap_build(&lm, jp->lv, jp->ln, jp->nl);
	vmap_build(&rm, jp->rv, jp->rn, jp->nr);
	unsigned char **allow = xcalloc((size_t)jp->nl, sizeof *allow);
	for (long long l = 0; l < jp->nl; l++)
		allow[l] = xcalloc((size_t)jp->nr + 1, 1);
	ExecProbe ls;
	int rc = exec_probe_open(&ls, ex, sql);
	while (rc == 0 && (rc = exec_probe_next(&ls)) == 1) {
		size_t a, bn;
		char *x = probe_text(&ls, 0, &a);
		char *y = probe_text(&ls, 1, &bn);
		long long li = x ? vmap_find(&lm, jp->lv, jp->ln, x, a) : -1;
		long long ri = y ? vmap_find(&rm, jp->rv, jp->rn, y, bn) : -1;
		free(x);
		free(y);
		rc = li < 0 || ri < 0 ? -1 : 0;   /* a value the side lists missed: trust neither */
		if (rc == 0)
			allow[li][ri] = 1;
	}
	exec_probe_close(&ls);
	free(sql);
	vmap_free(&lm);
	vmap_free(&rm);
	if (rc != 0) {
		for (long long l = 0; l < jp->nl; l++)
			free(allow[l]);
		free(allow);
		return;
	}
	jp->allow = allow;
	for (long long l = 0; l < jp->nl; l++)
		for (long long r = 0; r < jp->nr; r++)
			jp->excluded += !allow[l][r];
}

static long long lazy_limit(Exec *ex, Join *j, Block *b);

static const char *why_not(Exec *ex, Join *j, int *li, int *ri)
{
	if (j->block < 0)
		return "not inside a SELECT";
	Block *b = &ex->blocks[j->block];
	if (!b->exec || !b->core)
		return "its block does not run with the statement";
	if (b->correlated)
		return "its block is correlated with an enclosing query";
	if (j->pos != POS_ON && j->pos != POS_WHERE)
		return "not in ON or WHERE";
	*li = exec_join_side_item(ex, j->block, j->left);
	*ri = exec_join_side_item(ex, j->block, j->right);
	if (*li < 0 || *ri < 0)
		return "a side does not read exactly one table, CTE or subquery of the FROM clause";
	if (*li == *ri)
		return "both sides read the same FROM item";
	return NULL;
}

static SuqlStatus exec_join_plan(Exec *ex, SuqlErr *err)
{
	(void)err;
	for (int i = 0; i < js(ex)->n; i++) {
		Join *j = &js(ex)->j[i];
		JoinPlan *jp = plan_of(j);
		int li = -1, ri = -1;
		j->why = why_not(ex, j, &li, &ri);
		if (j->why)
			continue;
		Block *b = &ex->blocks[j->block];
		/* each listing runs as soon as it is printed (on PostgreSQL its parameters are
		   those of the statement printed last) */
		jp->lsql = exec_join_side_sql(ex, b, li, j->left);
		int r1 = list_values(ex, jp->lsql, &jp->lv, &jp->ln, &jp->nl);
		jp->rsql = exec_join_side_sql(ex, b, ri, j->right);
		int r2 = r1 == 0 ? list_values(ex, jp->rsql, &jp->rv, &jp->rn, &jp->nr) : r1;
		if (r1 || r2) {
			j->why = r1 == -2 || r2 == -2 ? "listing a side's values was stopped at the "
			                                "planning bound"
			                              : "a side's values could not be listed";
			continue;
		}
		if (ex->set.optimize == OPT_OFF) {
			/* naive mode: SQLite meets each pair */
			long long p = jp->nl * jp->nr;
			ex->est.worst[0] += p;
			ex->est.worst_total += p;
			ex->est.expect[0] += p;
			ex->est.expect_total += p;
			continue;
		}
		jp->rewritten = 1;
		jp->lazy = lazy_limit(ex, j, b);
		list_pairs(ex, j, b, jp);
		choose(ex, jp);
		for (long long l = 0; l < jp->nl; l++)
			jp->expect += calls_for(ex, jp, l);
		long long cost = jp->expect;
		if (!jp->pruned) {   /* a factorization, tried first: the worst case is it and
		                        then every pair */
			JoinSides s = {jp->lv, jp->rv, jp->ln, jp->rn, jp->nl, jp->nr, jp->allow,
			               jp->pairs, jp->expect, left_sig, j};
			jp->jf = exec_factor_plan(ex, &s, jp->lazy);
			cost += exec_factor_cost(jp->jf);
		}
		ex->est.worst[0] += cost;
		ex->est.worst_total += cost;
		ex->est.expect[0] += cost;
		ex->est.expect_total += cost;
	}
	return SUQL_OK;
}

/* The join's floor: the pairs judged directly in full calls (under a LIMIT k, the k / s
   pairs that find k matches at the rate the budget assumes), or, when the plan tries to
   factor it, the factorization at its fewest if that is less: the factor question, the
   classification of the values that make the pairs (every distinct value of both sides;
   under a LIMIT k, the values of its first waves) and the check of every value, each in
   full calls. A join judged pair by pair as SQLite meets the pairs, or
   whose sides could not be listed, counts its pairs at the batch. */
static long long exec_join_op_floor(Exec *ex)
{
	long long per = plan_cost_floor_batch(ex), total = 0;
	for (int i = 0; i < js(ex)->n; i++) {
		const JoinPlan *jp = js(ex)->j[i].jp;
		if (!jp)
			continue;
		long long pairs = jp->rewritten ? jp->pairs : jp->nl * jp->nr;
		if (pairs <= 0)
			continue;
		long long direct = pairs;
		if (jp->lazy > 0) {
			double want = ceil((double)jp->lazy / PLAN_WALK_EXPECT_RATE);
			if (want < (double)pairs)
				direct = (long long)want;
		}
		long long f = plan_cost_floor_items(direct, per);
		if (jp->jf || (jp->rewritten && jp->lazy > 0 && ex->set.join_factor &&
		               !llm_is_offline(ex->e->llm))) {
			/* the check: each value once against its class (n + m pairs) and the two
			   classes' anchors against each other; under a lazy LIMIT k, about
			   sqrt(2 x 2 x k) values a side classified (two classes) and the values of
			   k matches, about sqrt(2k), checked (doc/join.md, "The floor") */
			long long v = jp->nl + jp->nr, check = v + 1;
			if (jp->lazy > 0) {
				long long side = (long long)ceil(sqrt(4.0 * (double)jp->lazy));
				if (2 * side < v) {
					v = 2 * side;
					check = (long long)ceil(sqrt(2.0 * (double)jp->lazy));
				}
			}
			if (check > pairs)
				check = pairs;
			long long fac = 1 + plan_cost_floor_items(v, per) +
			                plan_cost_floor_items(check, per);
			if (fac < f)
				f = fac;
		}
		total += f;
	}
	return total;
}

static int exec_join_op_applies(const Exec *ex)
{
	return js(ex)->n > 0;
}

/* PostgreSQL has no suql_match to call as it meets each pair: a join not rewritten is
   refused, which is known once exec_join_plan has looked at every join (each then has its
   plan); the refusal names the first such join and is placed at it. */
static const char *exec_join_op_refuse(Exec *ex, const Dialect *d)
{
	if (d->functions)   /* suql's functions run in it: nothing is refused */
		return NULL;
	for (int i = 0; i < js(ex)->n; i++)
		if (!js(ex)->j[i].jp)
			return NULL;
	for (int i = 0; i < js(ex)->n; i++) {
		const Join *j = &js(ex)->j[i];
		if (!j->why && j->jp->rewritten)
			continue;
		ex->refused_at = j->orig;
		char *m = xprintf(OP_ROW_BY_ROW ": a semantic join judged pair by pair (matches() "
		                  "%d: %s)", i + 1, j->why ? j->why : "naive mode");
		char *a = arena_strndup(ex->a, m, strlen(m));
		free(m);
		return a;
	}
	return NULL;
}

/* The LIMIT the join's walk may stop at (rows returned), or -1. */
static long long lazy_limit(Exec *ex, Join *j, Block *b)
{
	const Stmt *st = ex->ast->stmt;
	if (js(ex)->n != 1 || ex->nocc > 0 || op_slot_applies(ex, OP_AGG) || !b->top || st->kind != ST_SELECT ||
	    !b->sel || b->sel->ncore != 1 || !b->sel->limit || b->sel->order || b->aggregate)
		return -1;
	(void)j;
	int freetext = 0, outer = 0;
	ons_scan(ex, b->core->from, &freetext, &outer);
	if (outer)
		return -1;
	long long lim = -1, off = 0;
	plan_limit_of(ex, b->sel, &lim, &off);
	return lim > 0 ? lim : -1;
}

/* The pairs of left values [from, to) as requests, appended at reqs[*n]. */
static void wave_reqs(Exec *ex, Join *j, JoinPlan *jp, long long from, long long to, Req *reqs,
                      long long *n)
{
	for (long long l = from; l < to; l++) {
		int sig = exec_join_sig(ex, j, jp->lv[l], jp->ln[l]);
		for (int c = 0; c < jp->ncand[l]; c++) {
			int r = jp->cand[l][c];
			reqs[*n].sig = sig;
			reqs[*n].v = jp->rv[r];
			reqs[*n].n = jp->rn[r];
			(*n)++;
		}
	}
}

/* One pair's verdict in the join's counters. */
static void count_verdict(JoinPlan *jp, const MemoVal *mv)
{
	jp->asked++;
	if (mv->verdict == VERDICT_YES)
		jp->yes++;
	else if (mv->verdict == VERDICT_NO)
		jp->no++;
	else
		jp->unknown++;
}

/* The counters of a join its factorization decided: the pairs known, not asked again. */
static void count_known(Exec *ex, Join *j, JoinPlan *jp)
{
	for (long long l = 0; l < jp->nl; l++) {
		int sig = exec_join_sig(ex, j, jp->lv[l], jp->ln[l]);
		for (int c = 0; c < jp->ncand[l]; c++) {
			int r = jp->cand[l][c];
			const MemoVal *mv = memo_get(ex->memo, sig, jp->rv[r], jp->rn[r]);
			if (!mv)
				continue;
			count_verdict(jp, mv);
		}
	}
}

static SuqlStatus exec_join_run(Exec *ex, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	for (int i = 0; i < js(ex)->n && st == SUQL_OK; i++) {
		Join *j = &js(ex)->j[i];
		JoinPlan *jp = j->jp;
		if (!jp || !jp->rewritten)
			continue;
		if (jp->jf)
			st = exec_factor_run(ex, j, jp->jf, err);
		if (st != SUQL_OK)
			break;
		if (jp->lazy > 0 && exec_factor_done(jp->jf)) {
			/* its walk decided the LIMIT's rows (or every pair): nothing else is asked */
			count_known(ex, j, jp);
			jp->lasked = jp->nl;
			j->ran = 1;
			continue;
		}
		Req *reqs = xcalloc((size_t)jp->pairs + 1, sizeof *reqs);
		long long n = 0, done = 0;
		const LlmStats *ls = llm_stats_statement(ex->e->llm);
		long c0 = ls->total.calls, h0 = ls->total.cache_hits, q0 = ls->total.requests;
		if (jp->lazy > 0) {
			/* waves of left values: the first as many calls as go out at once */
			long long want = llm_concurrency(ex->e->llm), calls = 0, to = 0;
			while (to < jp->nl && (to == 0 || calls + calls_for(ex, jp, to) <= want))
				calls += calls_for(ex, jp, to++);
			while (st == SUQL_OK && done < jp->nl) {
				long long first = n;
				wave_reqs(ex, j, jp, done, to, reqs, &n);
				st = exec_llm_run(ex, reqs + first, (int)(n - first), NULL, NULL, err);
				long long got = 0;
				j->ran = 1;   /* a pair not asked yet counts as no match */
				int counted = st == SUQL_OK && exec_final_count(ex, &got) == 0;
				j->ran = 0;
				long long wave = to - done;
				done = to;
				if (!counted) {   /* cannot tell: the rest in one wave */
					to = jp->nl;
					if (done < jp->nl)
						continue;
				}
				if (counted && got >= jp->lazy)
					break;
				to = done + 2 * wave < jp->nl ? done + 2 * wave : jp->nl;
			}
			jp->lasked = done;
		} else {
			wave_reqs(ex, j, jp, 0, jp->nl, reqs, &n);
			st = exec_llm_run(ex, reqs, (int)n, NULL, NULL, err);
		}
		jp->calls = ls->total.calls - c0;
		jp->hits = ls->total.cache_hits - h0;
		jp->requests = ls->total.requests - q0;
		for (long long k = 0; k < n; k++) {
			const MemoVal *mv = reqs[k].state == REQ_DONE
			                    ? memo_get(ex->memo, reqs[k].sig, reqs[k].v, reqs[k].n) : NULL;
			if (!mv)
				continue;
			count_verdict(jp, mv);
		}
		free(reqs);
		j->ran = st == SUQL_OK;
	}
	return st;
}

/* ---- the plan and the counters ---- */

static void show_side(SBuf *out, const char *what, long long n, const char *sql)
{
	sb_printf(out, "  %s: %lld distinct value%s: %s\n", what, n, n == 1 ? "" : "s", sql);
}

static void exec_join_show(Exec *ex, SBuf *out)
{
	for (int i = 0; i < js(ex)->n; i++) {
		Join *j = &js(ex)->j[i];
		JoinPlan *jp = j->jp;
		char *e = exec_print_expr(ex, j->orig);
		sb_printf(out, "join %d: %s", i + 1, e);
		free(e);
		if (j->block >= 0)
			sb_printf(out, " (block %d, %s)", j->block + 1, j->pos == POS_ON ? "ON" :
			          j->pos == POS_WHERE ? "WHERE" : "elsewhere");
		sb_putc(out, '\n');
		if (!jp || (!jp->rewritten && !jp->lsql) || j->why) {
			sb_printf(out, "  pair by pair, as SQLite meets each pair (one call a pair): %s\n",
			          j->why ? j->why : "naive mode");
			continue;
		}
		show_side(out, "left", jp->nl, jp->lsql);
		show_side(out, "right", jp->nr, jp->rsql);
		long long pw = jp->nl * jp->nr;
		if (!jp->rewritten) {
			sb_printf(out, "  pair by pair (naive mode): up to %lld x %lld = %lld calls\n",
			          jp->nl, jp->nr, pw);
			continue;
		}
		sb_printf(out, "  rewrite: one batched request per left value picks its matches "
		          "among the right values");
		if (jp->pruned)
			sb_printf(out, "; BM25 keeps the best %d right values that share words with it "
			          "(pairs not kept are no match)", ex->set.join_candidates);
		sb_putc(out, '\n');
		if (jp->allow && jp->excluded)
			sb_printf(out, "  pairs: %lld of %lld occur in rows the structured conditions let "
			          "through; the other %lld are never asked\n", pw - jp->excluded, pw,
			          jp->excluded);
		sb_printf(out, "  expected: %lld LLM call%s carrying %lld pairs, against %lld "
		          "pairwise (%lld x %lld)", jp->expect, jp->expect == 1 ? "" : "s", jp->pairs,
		          pw, jp->nl, jp->nr);
		if (jp->expect > 0)
			sb_printf(out, ": %.0fx fewer", (double)pw / (double)jp->expect);
		sb_putc(out, '\n');
		exec_factor_show(jp->jf, jp->expect, out);
		if (jp->lazy > 0)
			sb_printf(out, "  walk: lazy, stops once %lld row%s passed (LIMIT): left values "
			          "in waves, the first as many calls as go out at once, each next one "
			          "twice as many left values\n", jp->lazy, jp->lazy == 1 ? "" : "s");
	}
}

static void exec_join_counters(Exec *ex, SBuf *out)
{
	for (int i = 0; i < js(ex)->n; i++) {
		JoinPlan *jp = js(ex)->j[i].jp;
		if (!jp || !js(ex)->j[i].ran)
			continue;
		long long decided = exec_factor_decided(jp->jf);
		if (decided)   /* the sample's pairs and those with a value left unclassified */
			sb_printf(out, "join %d: %lld pairs decided by the factorization, %lld asked "
			          "(its check, and the pairs of values found wrong or without a "
			          "class); then %ld "
			          "call%s (%ld cache hit%s, %ld request%s): %lld matched, %lld did not",
			          i + 1, decided, jp->asked - decided, jp->calls, jp->calls == 1 ? "" : "s",
			          jp->hits, jp->hits == 1 ? "" : "s", jp->requests,
			          jp->requests == 1 ? "" : "s", jp->yes, jp->no);
		else
			sb_printf(out, "join %d: %lld pairs asked in %ld call%s (%ld cache hit%s, %ld "
			          "request%s): %lld matched, %lld did not", i + 1, jp->asked, jp->calls,
			          jp->calls == 1 ? "" : "s", jp->hits, jp->hits == 1 ? "" : "s",
			          jp->requests, jp->requests == 1 ? "" : "s", jp->yes, jp->no);
		if (jp->unknown)
			sb_printf(out, ", %lld unknown (a reply that could not be read%s)", jp->unknown,
			          ex->cnt.low_confidence ? ", or a verdict of low confidence" : "");
		sb_printf(out, "; pairwise: %lld", jp->nl * jp->nr);
		if (jp->excluded)
			sb_printf(out, "; %lld excluded by the structured conditions", jp->excluded);
		long long dropped = jp->nl * jp->nr - jp->excluded - jp->pairs;
		if (jp->pruned && dropped > 0)
			sb_printf(out, "; %lld never asked (join_candidates %d kept the pairs sharing "
			          "most words; they count as no match)", dropped, ex->set.join_candidates);
		if (jp->lazy > 0 && jp->lasked < jp->nl) {
			long long left = 0;
			for (long long l = jp->lasked; l < jp->nl; l++)
				left += jp->ncand[l];
			sb_printf(out, "; stopped after %lld of %lld left values, the LIMIT's rows found "
			          "(%lld pairs not asked)", jp->lasked, jp->nl, left);
		}
		sb_putc(out, '\n');
		exec_factor_counters(jp->jf, out);
	}
}

static void exec_join_free(Exec *ex)
{
	for (int i = 0; i < js(ex)->n; i++) {
		JoinPlan *jp = js(ex)->j[i].jp;
		if (!jp)
			continue;
		exec_factor_free(jp->jf);
		free(jp->mh);
		free(jp->msig);
		free(jp->lsql);
		free(jp->rsql);
		for (long long k = 0; k < jp->nl; k++)
			free(jp->lv[k]);
		for (long long k = 0; k < jp->nr; k++)
			free(jp->rv[k]);
		free(jp->lv);
		free(jp->rv);
		free(jp->ln);
		free(jp->rn);
		for (long long k = 0; jp->cand && k < jp->nl; k++)
			free(jp->cand[k]);
		for (long long k = 0; jp->allow && k < jp->nl; k++)
			free(jp->allow[k]);
		free(jp->allow);
		free(jp->cand);
		free(jp->ncand);
		free(jp);
	}
	free(js(ex)->j);
	free(ex->opstate[OP_JOIN]);
	ex->opstate[OP_JOIN] = NULL;
}

/* ---- its row of the operator table (op.c) ---- */

/* A semantic join: matches(left, right, 'question'), true when the question holds for the
   pair. Its question must be a literal; it is printed as suql_match(left, right, id), and
   exec_join.c decides how the pairs are asked. */
static int join_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	(void)f;
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (e->over || e->star || e->distinct)
		return OP_BIND_NONE;
	Expr *q = e->list->items[2];
	char *text = bind_literal(ex, b, q);
	char buf[96];
	const char *problem = text ? bind_occ_question_problem(SQLITE_TEXT, text, strlen(text), buf,
	                                                       sizeof buf)
	                           : "must be a literal text";
	if (!problem && ex->standalone)
		problem = "cannot be stored (a view or trigger): matches() runs only in statements";
	if (problem) {
		if (bd->st == SUQL_OK && bd->err)
			bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, q->span.off, q->span.len,
			                "a semantic join reads matches(a.name, b.name, 'the same "
			                "company?')", "the question of matches() %s", problem);
		return OP_BIND_TOOK;
	}
	if (!ex->opstate[OP_JOIN])
		ex->opstate[OP_JOIN] = xcalloc(1, sizeof(JoinState));
	JoinState *st = ex->opstate[OP_JOIN];
	st->j = xrealloc(st->j, ((size_t)st->n + 1) * sizeof *st->j);
	Join *j = &st->j[st->n];
	memset(j, 0, sizeof *j);
	j->id = st->n++;
	j->block = b;
	j->pos = at->pos;
	j->slot = slot;
	j->orig = ast_expr_copy(ex->a, e);
	Sig s = {0};
	s.kind = FT_VERIFY;
	s.question = xstrdup(text);
	s.op = xstrdup("matches");
	s.list = -1;
	j->sig = memo_sig_intern(ex, &s);
	bind_walk(bd, b, &e->list->items[0], at->pos, 0, at->in_agg, at->pocc, at->rcol);
	bind_walk(bd, b, &e->list->items[1], at->pos, 0, at->in_agg, at->pocc, at->rcol);
	return OP_BIND_TOOK;
}

/* matches(l, r, 'q') -> suql_match(l, r, id): the same argument list, so occurrences
   inside l or r (replaced before, in place) stay replaced */
static void join_mutate(Exec *ex)
{
	for (int i = 0; i < js(ex)->n; i++) {
		Join *j = &js(ex)->j[i];
		Expr *m = *j->slot;
		m->name = ast_name_make(ex->a, "suql_match");
		m->list->items[2] = ast_integer(ex->a, j->id);
		j->left = m->list->items[0];
		j->right = m->list->items[1];
	}
}

/* A join's call stays where it is: the planner copies no condition holding one. */
static int join_holds(const Exec *ex, const Expr *e)
{
	for (int i = 0; e->kind == EX_FUNC && i < js(ex)->n; i++)
		if (js(ex)->j[i].orig == e || *js(ex)->j[i].slot == e)
			return OP_HOLD;
	return OP_HOLD_NONE;
}

/* suql_match(left, right, id): semantic join number id: 1 when the question holds for the
   pair, 0 when not, NULL when either side is NULL or the reply could not be read. A pair
   the rewrite did not ask about is 0; counting (the budget phase) takes every pair as a
   match, which only lets more rows through. */
static void fn_match(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	(void)argc;
	Exec *ex = udf_current(c);
	if (!ex)
		return;
	int id = sqlite3_value_int(argv[2]);
	if (id < 0 || id >= js(ex)->n) {
		sqlite3_result_error(c, "suql_match: no such join in this statement", -1);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		sqlite3_result_null(c);
		return;
	}
	if (ex->counting) {
		sqlite3_result_int(c, 1);
		return;
	}
	Join *j = &js(ex)->j[id];
	const char *l = (const char *)sqlite3_value_text(argv[0]);
	size_t ln = (size_t)sqlite3_value_bytes(argv[0]);
	const char *r = (const char *)sqlite3_value_text(argv[1]);
	size_t rn = (size_t)sqlite3_value_bytes(argv[1]);
	int sig = exec_join_sig(ex, j, l ? l : "", ln);
	MemoVal *mv = memo_get(ex->memo, sig, r ? r : "", rn);
	if (!mv && j->ran) {
		sqlite3_result_int(c, 0);
		return;
	}
	udf_evaluate(c, ex, sig, 0, argv[1]);
}

static void join_functions(Engine *e)
{
	sqlite3_create_function(e->db, "suql_match", 3, SQLITE_UTF8, e, fn_match, NULL, NULL);
}

static const OpFunc join_funcs[] = {{"matches", 3, 3}, {NULL, 0, 0}};

const EngineOp exec_join_row = {
	.name = "semantic join",
	.slot = OP_JOIN,
	.construct = OP_EVALUATED,
	.funcs = join_funcs,
	.bind = join_bind,
	.mutate = join_mutate,
	.functions = join_functions,
	.applies = exec_join_op_applies,
	.holds = join_holds,
	.plan = exec_join_plan,
	.floor = exec_join_op_floor,
	.run = exec_join_run,
	.show = exec_join_show,
	.counters = exec_join_counters,
	.refuse = exec_join_op_refuse,
	.free = exec_join_free,
};
