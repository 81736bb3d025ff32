/*
 * exec_factor_check.c: the check that lets a factored join (exec_factor.c) decide pairs by
 * comparing classes, and the deciding itself (see doc/join.md, "The check").
 *
 * A factorization says: the pair question holds exactly when the two values' classes are
 * the same (or differ). The model's classes may be wrong for some values even when the
 * factorization is right, and a value in the wrong class changes every pair it is in.
 * So, before any pair is decided by comparing, each classified value is judged directly,
 * once, against an anchor of its own class on the other side (a pair its class predicts
 * to match; to fail with "different"), and the anchors of every two classes against each
 * other:
 *
 *   - per class i, an anchor pair (L_i, R_i), a left and a right value of class i, whose
 *     own pair must agree with the comparison; every other left value of class i is judged
 *     against R_i, every right value only on the right against L_i. When all of them agree,
 *     every value of class i has the true class of R_i (the verdicts chain them: the pair
 *     question holds between two values exactly when their true classes are the same, or
 *     differ, whatever the model's classes say);
 *   - for every two anchored classes i, j, one pair (L_i, R_j) (or (L_j, R_i)): when it
 *     agrees, the true classes of i and j differ.
 *
 * Then for two trusted values, the comparison of their classes is the comparison of their
 * true classes: every pair between trusted values is decided as pairwise judging would
 * decide it. A value whose pair disagrees is not trusted: its pairs are judged directly. An
 * anchor most of whose pairs disagree is the wrong one: another is chosen and its class's
 * values judged again (at most FC_ROUNDS times). A disagreeing pair between anchors of two
 * classes says the classes are not what the question compares: the factorization is not
 * trusted at all; so too when more than a quarter of the values checked disagree
 * (FC_DISTRUST_SHARE): judging their pairs would cost about what pairwise judging does.
 *
 * The pairs of the check and of the values not trusted go out as a join's pairs of several
 * left values in one request (Exec.mix_pairs: prompts/match_pairs.txt), n + m + classes²/2
 * pairs, batch to a call, each cached as the single match prompt of its pair is.
 *
 * Under a LIMIT (partial waves) only the values classified so far are checked, the pairs
 * between anchors only when a match means different classes (a LIMIT's rows are matches,
 * and with "same" those are within one class), and only matches are decided: the rows
 * then returned are pairs pairwise judging would return. The last wave decides every pair.
 */
#include "engine/exec_int.h"
#include "engine/memo_int.h"

#include <stdlib.h>
#include <string.h>

#define FC_ROUNDS 3           /* anchors tried per class and wave */
#define FC_DISTRUST_SHARE 4   /* more than 1/4 of the values checked disagree: not trusted */

enum { T_NONE = 0, T_OK = 1, T_BAD = -1 };

struct FactorCheck {
	JoinSides s;
	int nclass, different;
	long long nn;          /* nodes: a distinct value of either side (one for both) */
	long long *lnode, *rnode;   /* value -> node */
	long long *li, *ri;    /* node -> its left and right value, -1 when not on that side */
	int *cls;              /* node -> class, -1 none; -2 not classified yet */
	signed char *trust;    /* T_NONE not checked yet, T_OK, T_BAD */
	long long *aL, *aR;    /* per class: its anchors (nodes), -1 none */
	unsigned char *crossed;   /* per two classes: the pair between their anchors agreed */
	unsigned char *sel;    /* per node: chosen for the check (a partial wave chooses only as
	                          many as its LIMIT's matches need) */
	int distrust;          /* the factorization is not trusted at all */
	FactorCheckStats st;
};

static uint64_t vh(const char *v, size_t n)
{
	uint64_t h = str_hash64(v, n);
	return h ? h : 1;
}

FactorCheck *exec_factor_check_new(const JoinSides *s, int nclass, int different)
{
	FactorCheck *c = xcalloc(1, sizeof *c);
	c->s = *s;
	c->nclass = nclass;
	c->different = different;
	long long cap = s->nl + s->nr + 1;
	c->lnode = xmalloc((size_t)s->nl * sizeof *c->lnode + 1);
	c->rnode = xmalloc((size_t)s->nr * sizeof *c->rnode + 1);
	c->li = xmalloc((size_t)cap * sizeof *c->li);
	c->ri = xmalloc((size_t)cap * sizeof *c->ri);
	/* a right value that is also a left value is the same node (a self-join's values) */
	size_t hcap = 64;
	while (hcap < (size_t)s->nl * 2 + 2)
		hcap *= 2;
	uint64_t *hh = xcalloc(hcap, sizeof *hh);
	long long *hi = xmalloc(hcap * sizeof *hi);
	for (long long l = 0; l < s->nl; l++) {
		c->lnode[l] = c->nn;
		c->li[c->nn] = l;
		c->ri[c->nn++] = -1;
		uint64_t h = vh(s->lv[l], s->ln[l]);
		size_t k = h & (hcap - 1);
		while (hh[k])
			k = (k + 1) & (hcap - 1);
		hh[k] = h;
		hi[k] = l;
	}
	for (long long r = 0; r < s->nr; r++) {
		uint64_t h = vh(s->rv[r], s->rn[r]);
		long long found = -1;
		for (size_t k = h & (hcap - 1); hh[k] && found < 0; k = (k + 1) & (hcap - 1))
			if (hh[k] == h && s->ln[hi[k]] == s->rn[r] &&
			    memcmp(s->lv[hi[k]], s->rv[r], s->rn[r]) == 0)
				found = hi[k];
		if (found >= 0 && c->ri[c->lnode[found]] < 0) {
			c->rnode[r] = c->lnode[found];
			c->ri[c->rnode[r]] = r;
		} else {
			c->rnode[r] = c->nn;
			c->li[c->nn] = -1;
			c->ri[c->nn++] = r;
		}
	}
	free(hh);
	free(hi);
	c->cls = xmalloc((size_t)c->nn * sizeof *c->cls + 1);
	for (long long i = 0; i < c->nn; i++)
		c->cls[i] = -2;
	c->trust = xcalloc((size_t)c->nn + 1, 1);
	c->aL = xmalloc(((size_t)nclass + 1) * sizeof *c->aL);
	c->aR = xmalloc(((size_t)nclass + 1) * sizeof *c->aR);
	for (int i = 0; i < nclass; i++)
		c->aL[i] = c->aR[i] = -1;
	c->crossed = xcalloc((size_t)nclass * (size_t)nclass + 1, 1);
	c->sel = xcalloc((size_t)c->nn + 1, 1);
	return c;
}

void exec_factor_check_free(FactorCheck *c)
{
	if (!c)
		return;
	free(c->lnode);
	free(c->rnode);
	free(c->li);
	free(c->ri);
	free(c->cls);
	free(c->trust);
	free(c->aL);
	free(c->aR);
	free(c->crossed);
	free(c->sel);
	free(c);
}

void exec_factor_check_set(FactorCheck *c, int right, long long i, int cls)
{
	long long n = right ? c->rnode[i] : c->lnode[i];
	if (c->cls[n] == -2) {
		c->cls[n] = cls;
		c->st.classified++;
		c->st.unclassified += cls < 0;
	}
}

int exec_factor_check_class(const FactorCheck *c, int right, long long i)
{
	return c->cls[right ? c->rnode[i] : c->lnode[i]];
}

int exec_factor_check_distrusted(const FactorCheck *c)
{
	return c->distrust;
}

const FactorCheckStats *exec_factor_check_stats(const FactorCheck *c)
{
	return &c->st;
}

/* ---- judging pairs directly ---- */

typedef struct Edge {
	long long a, b;   /* nodes: a on the left, b on the right */
	int verdict;      /* after judging: 1 yes, 0 no, -1 unknown */
} Edge;

typedef struct Edges {
	Edge *v;
	long long n, cap;
} Edges;

static void edge_add(Edges *e, long long a, long long b)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->v = xrealloc(e->v, (size_t)e->cap * sizeof *e->v);
	}
	e->v[e->n++] = (Edge){a, b, -1};
}

/* Judge the pairs of e (left value of node a, right value of node b) directly, pairs of
   several left values to a call; each verdict into the memo as any pair's. */
static SuqlStatus judge(Exec *ex, FactorCheck *c, Edges *e, SuqlErr *err)
{
	if (e->n == 0)
		return SUQL_OK;
	Req *reqs = xcalloc((size_t)e->n + 1, sizeof *reqs);
	for (long long k = 0; k < e->n; k++) {
		long long l = c->li[e->v[k].a], r = c->ri[e->v[k].b];
		reqs[k].sig = c->s.sig(ex, c->s.ctx, c->s.lv[l], c->s.ln[l]);
		reqs[k].v = c->s.rv[r];
		reqs[k].n = c->s.rn[r];
	}
	int mix = ex->mix_pairs;
	ex->mix_pairs = 1;
	SuqlStatus st = exec_llm_run(ex, reqs, (int)e->n, NULL, NULL, err);
	ex->mix_pairs = mix;
	for (long long k = 0; k < e->n && st == SUQL_OK; k++) {
		const MemoVal *mv = reqs[k].state == REQ_DONE
		                    ? memo_get(ex->memo, reqs[k].sig, reqs[k].v, reqs[k].n) : NULL;
		e->v[k].verdict = mv && mv->verdict == VERDICT_YES ? 1
		                  : mv && mv->verdict == VERDICT_NO ? 0 : -1;
	}
	free(reqs);
	return st;
}

/* Whether the direct verdict agrees with the comparison of the two nodes' classes. */
static int agrees(const FactorCheck *c, const Edge *e)
{
	int yes = (c->cls[e->a] == c->cls[e->b]) != c->different;
	return e->verdict >= 0 && e->verdict == yes;
}

/* ---- the check of the values classified since the last one ---- */

static long long first_of(const FactorCheck *c, int cls, int right, long long other)
{
	for (long long n = 0; n < c->nn; n++)
		if (c->cls[n] == cls && c->sel[n] && c->trust[n] != T_BAD && n != other &&
		    (right ? c->ri[n] : c->li[n]) >= 0)
			return n;
	return -1;
}

/* One round: anchors for the classes without them, each unchecked value against its
   class's anchor; then the verdicts read. 1 when a class needs another round. */
static SuqlStatus round_of(Exec *ex, FactorCheck *c, int *again, SuqlErr *err)
{
	Edges e = {0};
	long long *anchor_edge = xmalloc(((size_t)c->nclass + 1) * sizeof *anchor_edge);
	for (int i = 0; i < c->nclass; i++) {
		anchor_edge[i] = -1;
		if (c->aR[i] < 0) {
			long long R = first_of(c, i, 1, -1), L = R >= 0 ? first_of(c, i, 0, R) : -1;
			if (R < 0 || L < 0)
				continue;   /* not anchored yet: its values wait, their pairs judged */
			c->aL[i] = L;
			c->aR[i] = R;
			anchor_edge[i] = e.n;
			edge_add(&e, L, R);
		}
	}
	for (long long n = 0; n < c->nn; n++) {
		int i = c->cls[n];
		if (i < 0 || !c->sel[n] || c->trust[n] != T_NONE || c->aR[i] < 0 || n == c->aL[i] ||
		    n == c->aR[i])
			continue;
		if (c->li[n] >= 0)
			edge_add(&e, n, c->aR[i]);
		else
			edge_add(&e, c->aL[i], n);
	}
	SuqlStatus st = judge(ex, c, &e, err);
	c->st.checked += e.n;
	*again = 0;
	if (st == SUQL_OK) {
		/* an anchor most of whose pairs disagree is the wrong one */
		long long *badL = xcalloc((size_t)c->nclass + 1, sizeof *badL);
		long long *badR = xcalloc((size_t)c->nclass + 1, sizeof *badR);
		long long *nL = xcalloc((size_t)c->nclass + 1, sizeof *nL);
		long long *nR = xcalloc((size_t)c->nclass + 1, sizeof *nR);
		for (long long k = 0; k < e.n; k++) {
			int i = c->cls[e.v[k].a];
			int bad = !agrees(c, &e.v[k]);
			if (e.v[k].b == c->aR[i]) {
				nR[i]++;
				badR[i] += bad;
			}
			if (e.v[k].a == c->aL[i]) {
				nL[i]++;
				badL[i] += bad;
			}
		}
		for (int i = 0; i < c->nclass; i++) {
			if (c->aR[i] < 0)
				continue;
			int fresh = anchor_edge[i] >= 0;
			int pair_bad = fresh && !agrees(c, &e.v[anchor_edge[i]]);
			int r_bad = nR[i] >= 2 && badR[i] * 2 > nR[i];
			int l_bad = nL[i] >= 2 && badL[i] * 2 > nL[i];
			if (fresh && (pair_bad || r_bad || l_bad)) {
				/* not these anchors: the wrong one (or both, when their own pair is
				   what disagrees) is not trusted, the others are judged again */
				if (pair_bad || r_bad)
					c->trust[c->aR[i]] = T_BAD;
				if (pair_bad || l_bad)
					c->trust[c->aL[i]] = T_BAD;
				c->st.values_bad += (pair_bad || r_bad) + (pair_bad || l_bad);
				c->aL[i] = c->aR[i] = -1;
				c->st.reanchored++;
				*again = 1;
				anchor_edge[i] = -2;   /* its pairs' verdicts do not count */
			} else if (fresh) {
				c->trust[c->aL[i]] = c->trust[c->aR[i]] = T_OK;
			}
		}
		for (long long k = 0; k < e.n; k++) {
			int i = c->cls[e.v[k].a];
			if (anchor_edge[i] == -2 || k == anchor_edge[i])
				continue;
			long long n = e.v[k].a == c->aL[i] ? e.v[k].b : e.v[k].a;
			if (c->trust[n] != T_NONE)
				continue;
			c->trust[n] = agrees(c, &e.v[k]) ? T_OK : T_BAD;
			c->st.values_bad += c->trust[n] == T_BAD;
		}
		free(badL);
		free(badR);
		free(nL);
		free(nR);
	}
	free(anchor_edge);
	free(e.v);
	return st;
}

/* The pairs between the anchors of every two classes not checked yet. */
static SuqlStatus cross(Exec *ex, FactorCheck *c, SuqlErr *err)
{
	Edges e = {0};
	for (int i = 0; i < c->nclass; i++)
		for (int j = i + 1; j < c->nclass; j++) {
			if (c->crossed[i * c->nclass + j] || c->aR[i] < 0 || c->aR[j] < 0)
				continue;
			edge_add(&e, c->aL[i], c->aR[j]);
		}
	SuqlStatus st = judge(ex, c, &e, err);
	c->st.checked += e.n;
	c->st.crossed += e.n;
	for (long long k = 0; k < e.n && st == SUQL_OK; k++) {
		int i = c->cls[e.v[k].a], j = c->cls[e.v[k].b];
		if (!agrees(c, &e.v[k]))
			c->distrust = 1;   /* the classes are not what the question compares */
		c->crossed[i * c->nclass + j] = 1;
	}
	free(e.v);
	return st;
}

/* ---- deciding ---- */

static int trusted(const FactorCheck *c, long long n)
{
	return c->cls[n] >= 0 && c->trust[n] == T_OK && c->aR[c->cls[n]] >= 0;
}

/* Every pair both of whose values are classified and not in the memo: decided by
   comparing when both are trusted (under a partial wave only matches), else judged
   (not under a partial wave). */
static SuqlStatus decide(Exec *ex, FactorCheck *c, int partial, SuqlErr *err)
{
	Edges direct = {0};
	for (long long l = 0; l < c->s.nl; l++) {
		long long a = c->lnode[l];
		if (c->cls[a] == -2)
			continue;
		int sig = -1;
		for (long long r = 0; r < c->s.nr; r++) {
			long long b = c->rnode[r];
			if (c->cls[b] == -2 || (c->s.allow && !c->s.allow[l][r]))
				continue;
			if (sig < 0)
				sig = c->s.sig(ex, c->s.ctx, c->s.lv[l], c->s.ln[l]);
			if (memo_get(ex->memo, sig, c->s.rv[r], c->s.rn[r]))
				continue;   /* judged already: the check's own verdict */
			if (trusted(c, a) && trusted(c, b)) {
				int yes = (c->cls[a] == c->cls[b]) != c->different;
				if (partial && !yes)
					continue;
				MemoVal *mv = memo_put(ex->memo, sig, c->s.rv[r], c->s.rn[r]);
				mv->verdict = yes ? VERDICT_YES : VERDICT_NO;
				c->st.decided++;
				c->st.yes += yes;
			} else if (!partial) {
				edge_add(&direct, a, b);
			}
		}
	}
	SuqlStatus st = judge(ex, c, &direct, err);
	c->st.direct += direct.n;
	free(direct.v);
	return st;
}

/* Whether the pair of nodes a (left) and b (right) may occur and is a predicted match. */
static int match_pair(const FactorCheck *c, long long a, long long b)
{
	long long l = c->li[a], r = c->ri[b];
	return l >= 0 && r >= 0 && a != b && (!c->s.allow || c->s.allow[l][r]) &&
	       (c->cls[a] == c->cls[b]) != c->different;
}

/* Choose the nodes to check: every classified one, or for a partial wave of a join whose
   matches are within a class, as few as give `need` matches among the chosen (the classes
   with most values first, each class's values in the order they were classified; the
   nodes chosen before count, unless found wrong). */
static void choose(FactorCheck *c, int partial, long long need)
{
	if (!partial || c->different) {
		for (long long n = 0; n < c->nn; n++)
			c->sel[n] |= c->cls[n] >= 0;
		return;
	}
	long long *size = xcalloc((size_t)c->nclass + 1, sizeof *size);
	for (long long n = 0; n < c->nn; n++)
		if (c->cls[n] >= 0 && c->trust[n] != T_BAD)
			size[c->cls[n]]++;
	long long got = 0;
	for (long long n = 0; n < c->nn; n++)   /* the matches the nodes chosen already give */
		for (long long m = 0; c->sel[n] && c->trust[n] != T_BAD && m < c->nn; m++)
			got += c->sel[m] && c->trust[m] != T_BAD && match_pair(c, n, m);
	for (int done = 0; done < c->nclass && got < need; done++) {
		int big = -1;
		for (int i = 0; i < c->nclass; i++)
			if (size[i] > 0 && (big < 0 || size[i] > size[big]))
				big = i;
		if (big < 0)
			break;
		size[big] = 0;
		for (long long n = 0; n < c->nn && got < need; n++) {
			if (c->cls[n] != big || c->sel[n] || c->trust[n] == T_BAD)
				continue;
			c->sel[n] = 1;
			for (long long m = 0; m < c->nn; m++)
				if (c->sel[m] && c->trust[m] != T_BAD)
					got += match_pair(c, n, m) + (m != n && match_pair(c, m, n));
		}
	}
	free(size);
}

int exec_factor_check_unchosen(const FactorCheck *c)
{
	for (long long n = 0; n < c->nn; n++)
		if (c->cls[n] >= 0 && !c->sel[n])
			return 1;
	return 0;
}

SuqlStatus exec_factor_check_run(Exec *ex, FactorCheck *c, int partial, long long need, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	choose(c, partial, need);
	int again = 1;
	for (int k = 0; k < FC_ROUNDS && again && st == SUQL_OK; k++) {
		st = round_of(ex, c, &again, err);
		c->st.rounds++;
	}
	if (st == SUQL_OK && (!partial || c->different))
		st = cross(ex, c, err);
	/* values checked: those with a class, each judged once (anchors with their pair) */
	long long checked = 0;
	for (long long n = 0; n < c->nn; n++)
		checked += c->cls[n] >= 0 && c->sel[n] && c->trust[n] != T_NONE;
	c->st.values_checked = checked;
	if (c->st.values_bad * FC_DISTRUST_SHARE > checked && c->st.values_bad > 0 &&
	    c->st.values_bad * FC_DISTRUST_SHARE > 4)
		c->distrust = 1;   /* judging their pairs costs about what pairwise judging does */
	if (st == SUQL_OK && !c->distrust)
		st = decide(ex, c, partial, err);
	return st;
}
