/*
 * plan_unit.c: the units of a block's WHERE (see plan.c for the whole plan). The WHERE's
 * AND/OR/NOT skeleton over its leaves becomes an OR of ANDs (DNF, NOT pushed to the
 * leaves), each AND a unit whose structured literals list its candidates and whose atoms
 * are tried per candidate; past dnf_cap conjuncts the block is one unit holding the whole
 * tree. plan_unit_eval judges a unit's tree for one candidate in three-valued logic.
 * For the budget, each block's WHERE is relaxed here (what needs the model dropped).
 */
#include "engine/op_int.h"
#include "engine/sql_int.h"
#include "engine/plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the skeleton and its leaves ---- */

typedef struct Skel {
	Exec *ex;
	int b;
	int budget;           /* budget phase */
	Lit *leaves;          /* distinct leaves of the WHERE */
	int nleaves, cap;
} Skel;

static int occ_of_call(Exec *ex, const Expr *e)
{
	if (e->kind != EX_FUNC)
		return -1;
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].call == e)
			return i;
	return -1;
}

typedef struct Found {
	Exec *ex;
	int b;
	int own, other, pending;
	int *occs;
	int nocc;
} Found;

static int find_cb(void *ctx, Expr *e)
{
	Found *f = ctx;
	int o = occ_of_call(f->ex, e);
	if (o >= 0) {
		if (f->ex->occ[o].block == f->b) {
			f->own = 1;
			f->occs = xrealloc(f->occs, ((size_t)f->nocc + 1) * sizeof *f->occs);
			f->occs[f->nocc++] = o;
		} else {
			f->other = 1;
		}
	}
	if (op_holds(f->ex, e) == OP_HOLD_PENDING)   /* an ENUM literal not classified yet */
		f->pending = 1;
	return AST_CONTINUE;
}

static int add_leaf(Skel *sk, Expr *e)
{
	Exec *ex = sk->ex;
	for (int i = 0; i < sk->nleaves; i++)
		if (sk->leaves[i].e == e)
			return i;
	if (sk->nleaves == sk->cap) {
		sk->cap = sk->cap ? sk->cap * 2 : 8;
		sk->leaves = xrealloc(sk->leaves, (size_t)sk->cap * sizeof *sk->leaves);
	}
	Lit *l = &sk->leaves[sk->nleaves];
	memset(l, 0, sizeof *l);
	l->e = e;
	l->occ = -1;
	int o = occ_of_call(ex, e);
	Found f = {ex, sk->b, 0, 0, 0, NULL, 0};
	AstVisitor v = {0};
	v.ctx = &f;
	v.expr = find_cb;
	ast_visit_expr(e, &v);
	if (o >= 0 && ex->occ[o].atom && ex->occ[o].block == sk->b && f.nocc == 1) {
		l->kind = LK_ATOM;
		l->occ = o;
	} else if (f.pending || (sk->budget && (f.own || f.other))) {
		l->kind = LK_DEFER;
	} else if (f.own) {
		l->kind = LK_LEAF;
	} else {
		l->kind = LK_SQL;
	}
	free(f.occs);
	return sk->nleaves++;
}

/* ---- DNF ---- */

typedef struct Conj {
	int *lit;             /* leaf index * 2 + negated */
	int n;
} Conj;

typedef struct Dnf {
	Conj *c;
	int n;
	int over;             /* past the cap */
} Dnf;

static void dnf_free(Dnf *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->c[i].lit);
	free(d->c);
	d->c = NULL;
	d->n = 0;
}

static void conj_push(Dnf *d, int *lit, int n)
{
	d->c = xrealloc(d->c, ((size_t)d->n + 1) * sizeof *d->c);
	d->c[d->n].lit = xmalloc(((size_t)n + 1) * sizeof(int));
	if (n)
		memcpy(d->c[d->n].lit, lit, (size_t)n * sizeof(int));
	d->c[d->n].n = n;
	d->n++;
}

static int dnf_of(Skel *sk, Expr *e, int neg, Dnf *out, int cap)
{
	if (e->kind == EX_UNARY && e->op == OP_NOT)
		return dnf_of(sk, e->left, !neg, out, cap);
	int is_and = e->kind == EX_BINARY && e->op == OP_AND;
	int is_or = e->kind == EX_BINARY && e->op == OP_OR;
	if ((is_and && !neg) || (is_or && neg)) {
		/* distribute: (A1 or A2) and (B1 or B2) -> A1B1 or A1B2 or ... */
		Dnf l = {0}, r = {0};
		if (dnf_of(sk, e->left, neg, &l, cap) || dnf_of(sk, e->right, neg, &r, cap) ||
		    (long long)l.n * r.n > cap) {
			dnf_free(&l);
			dnf_free(&r);
			return 1;
		}
		for (int i = 0; i < l.n; i++) {
			for (int k = 0; k < r.n; k++) {
				int n = l.c[i].n + r.c[k].n;
				int *v = xmalloc(((size_t)n + 1) * sizeof *v);
				int m = 0, contra = 0;
				for (int j = 0; j < l.c[i].n; j++)
					v[m++] = l.c[i].lit[j];
				for (int j = 0; j < r.c[k].n; j++) {
					int x = r.c[k].lit[j], dup = 0;
					for (int q = 0; q < m; q++) {
						dup |= v[q] == x;
						contra |= v[q] == (x ^ 1);   /* a and not a: never true */
					}
					if (!dup)
						v[m++] = x;
				}
				if (!contra)
					conj_push(out, v, m);
				free(v);
			}
		}
		dnf_free(&l);
		dnf_free(&r);
		return 0;
	}
	if ((is_or && !neg) || (is_and && neg)) {
		if (dnf_of(sk, e->left, neg, out, cap) || dnf_of(sk, e->right, neg, out, cap))
			return 1;
		return out->n > cap;
	}
	int lit = add_leaf(sk, e) * 2 + neg;
	conj_push(out, &lit, 1);
	return out->n > cap;
}

/* ---- units ---- */

void plan_unit_free(Unit *u)
{
	free(u->lits);
	for (int i = 0; i < u->nnodes; i++)
		free(u->nodes[i].kids);
	free(u->nodes);
	free(u->atoms);
	free(u->leaf_occ);
	free(u->sqlcols);
	free(u->sql);
	free(u->rank_note);
	free(u->cascade);
	memset(u, 0, sizeof *u);
}

static int node_add(Unit *u, TNodeKind k)
{
	u->nodes = xrealloc(u->nodes, ((size_t)u->nnodes + 1) * sizeof *u->nodes);
	TNode *n = &u->nodes[u->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = k;
	n->col = n->occ = -1;
	return u->nnodes++;
}

static void node_kid(Unit *u, int p, int k)
{
	TNode *n = &u->nodes[p];
	n->kids = xrealloc(n->kids, ((size_t)n->nkids + 1) * sizeof *n->kids);
	n->kids[n->nkids++] = k;
}

static int unit_atom_index(Unit *u, int occ)
{
	for (int i = 0; i < u->natoms; i++)
		if (u->atoms[i] == occ)
			return i;
	u->atoms = xrealloc(u->atoms, ((size_t)u->natoms + 1) * sizeof *u->atoms);
	u->atoms[u->natoms] = occ;
	return u->natoms++;
}

static void add_leaf_occs(Exec *ex, Unit *u, int b, Expr *e)
{
	Found f = {ex, b, 0, 0, 0, NULL, 0};
	AstVisitor v = {0};
	v.ctx = &f;
	v.expr = find_cb;
	ast_visit_expr(e, &v);
	for (int i = 0; i < f.nocc; i++) {
		int dup = 0;
		for (int k = 0; k < u->nleaf_occ; k++)
			dup |= u->leaf_occ[k] == f.occs[i];
		if (!dup) {
			u->leaf_occ = xrealloc(u->leaf_occ, ((size_t)u->nleaf_occ + 1) * sizeof(int));
			u->leaf_occ[u->nleaf_occ++] = f.occs[i];
		}
	}
	free(f.occs);
}

/* The tree of a whole WHERE (tree mode): structured and free-text leaves read as columns. */
static int tree_of(Exec *ex, Skel *sk, Unit *u, Expr *e)
{
	if (e->kind == EX_UNARY && e->op == OP_NOT) {
		int n = node_add(u, TN_NOT);
		int k = tree_of(ex, sk, u, e->left);
		node_kid(u, n, k);
		return n;
	}
	if (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
		int n = node_add(u, e->op == OP_AND ? TN_AND : TN_OR);
		int l = tree_of(ex, sk, u, e->left);
		int r = tree_of(ex, sk, u, e->right);
		node_kid(u, n, l);
		node_kid(u, n, r);
		return n;
	}
	Lit *l = &sk->leaves[add_leaf(sk, e)];
	if (l->kind == LK_ATOM) {
		int n = node_add(u, TN_ATOM);
		u->nodes[n].occ = unit_atom_index(u, l->occ);
		u->nodes[n].expr = e;
		return n;
	}
	if (l->kind == LK_DEFER) {
		add_leaf_occs(ex, u, sk->b, e);   /* counted for the budget all the same */
		return node_add(u, TN_TRUE);      /* budget phase: assumed to hold */
	}
	if (l->kind == LK_LEAF)
		add_leaf_occs(ex, u, sk->b, e);
	int n = node_add(u, TN_SQL);
	u->nodes[n].expr = e;
	u->nodes[n].col = u->nsqlcols;
	u->sqlcols = xrealloc(u->sqlcols, ((size_t)u->nsqlcols + 1) * sizeof *u->sqlcols);
	u->sqlcols[u->nsqlcols++] = e;
	return n;
}

/* The top-level structured conjuncts of a tree (the candidates of tree mode). */
static Expr *top_sql(Exec *ex, Skel *sk, Expr *e)
{
	if (e->kind == EX_BINARY && e->op == OP_AND)
		return exec_and(ex->a, top_sql(ex, sk, e->left), top_sql(ex, sk, e->right));
	Lit *l = &sk->leaves[add_leaf(sk, e)];
	return l->kind == LK_SQL ? e : NULL;
}

static Expr *lit_expr(Exec *ex, const Lit *l, int neg)
{
	return neg ? ast_unary(ex->a, OP_NOT, l->e) : l->e;
}

/* Build block b's units from its WHERE. budget: the relaxed form (no calls needed). */
static void build_units(Exec *ex, Block *b, int budget)
{
	for (int i = 0; i < b->nunits; i++)
		plan_unit_free(&b->units[i]);
	free(b->units);
	b->units = NULL;
	b->nunits = 0;
	b->dnf_over = 0;
	Expr *w = b->core ? b->core->where : NULL;
	if (!w)
		return;
	Skel sk = {ex, b->id, budget, NULL, 0, 0};
	Dnf d = {0};
	int cap = ex->set.dnf_cap > 0 ? ex->set.dnf_cap : ENGINE_DEFAULT_DNF_CAP;
	if (dnf_of(&sk, w, 0, &d, cap) || d.n > cap) {
		dnf_free(&d);
		b->dnf_over = 1;
		b->units = xcalloc(1, sizeof *b->units);
		b->nunits = 1;
		Unit *u = &b->units[0];
		u->where = u->where_sql = top_sql(ex, &sk, w);
		tree_of(ex, &sk, u, w);
		/* node 0 must be the root: tree_of adds the root first */
	} else {
		b->units = xcalloc((size_t)(d.n ? d.n : 1), sizeof *b->units);
		b->nunits = d.n;
		for (int i = 0; i < d.n; i++) {
			Unit *u = &b->units[i];
			int root = node_add(u, TN_AND);
			for (int k = 0; k < d.c[i].n; k++) {
				int li = d.c[i].lit[k] >> 1, neg = d.c[i].lit[k] & 1;
				Lit *l = &sk.leaves[li];
				u->lits = xrealloc(u->lits, ((size_t)u->nlits + 1) * sizeof *u->lits);
				u->lits[u->nlits] = *l;
				u->lits[u->nlits].neg = neg;
				u->nlits++;
				if (l->kind == LK_DEFER)
					add_leaf_occs(ex, u, b->id, l->e);   /* counted for the budget */
				if (l->kind == LK_SQL || l->kind == LK_LEAF) {
					u->where = exec_and(ex->a, u->where, lit_expr(ex, l, neg));
					if (l->kind == LK_SQL)
						u->where_sql = exec_and(ex->a, u->where_sql, lit_expr(ex, l, neg));
					if (l->kind == LK_LEAF)
						add_leaf_occs(ex, u, b->id, l->e);
				} else if (l->kind == LK_ATOM) {
					int n = node_add(u, TN_ATOM);
					u->nodes[n].occ = unit_atom_index(u, l->occ);
					u->nodes[n].expr = l->e;
					if (neg) {
						int m = node_add(u, TN_NOT);
						node_kid(u, m, n);
						n = m;
					}
					node_kid(u, root, n);
				}
			}
		}
		dnf_free(&d);
	}
	free(sk.leaves);
}

/* The relaxed WHERE of a block: OR over units of their structured parts. */
static void set_relaxed(Exec *ex, Block *b)
{
	b->budget.relaxed_set = 1;
	b->budget.relaxed = NULL;
	Expr *r = NULL;
	for (int i = 0; i < b->nunits; i++) {
		Unit *u = &b->units[i];
		if (!u->where)
			return;   /* a unit with no structured part: every row may pass */
		r = r ? ast_binary(ex->a, OP_OR, r, u->where) : u->where;
	}
	b->budget.relaxed = r;
	if (b->nunits == 0 && b->core && b->core->where)
		b->budget.relaxed = ast_integer(ex->a, 0);   /* no conjunct can hold */
}

void plan_unit_make(Exec *ex, Block *b, int budget)
{
	build_units(ex, b, budget);
	if (budget)
		set_relaxed(ex, b);
}

/* ---- the tree ---- */

static Tri of_verdict(int v)
{
	return v < 0 ? TRI_NULL : v ? TRI_TRUE : TRI_FALSE;
}

static Tri eval_node(const Unit *u, int n, const signed char *sqlv, const signed char *av,
                     int *next)
{
	const TNode *t = &u->nodes[n];
	switch (t->kind) {
	case TN_TRUE:
		return TRI_TRUE;
	case TN_SQL:
		return of_verdict(sqlv[t->col]);
	case TN_ATOM:
		if (av[t->occ] == VERDICT_UNASKED) {
			if (*next < 0)
				*next = t->occ;
			return TRI_UNDECIDED;
		}
		return of_verdict(av[t->occ]);
	case TN_NOT: {
		Tri v = eval_node(u, t->kids[0], sqlv, av, next);
		return v == TRI_TRUE ? TRI_FALSE : v == TRI_FALSE ? TRI_TRUE : v;
	}
	case TN_AND:
	case TN_OR: {
		Tri decisive = t->kind == TN_AND ? TRI_FALSE : TRI_TRUE;
		int any_u = 0, any_n = 0, first = -1;
		for (int i = 0; i < t->nkids; i++) {
			int nx = -1;
			Tri v = eval_node(u, t->kids[i], sqlv, av, &nx);
			if (v == decisive)
				return v;   /* decided whatever the rest says */
			if (v == TRI_UNDECIDED) {
				any_u = 1;
				if (first < 0)
					first = nx;
			}
			if (v == TRI_NULL)
				any_n = 1;
		}
		if (any_u) {
			if (*next < 0)
				*next = first;
			return TRI_UNDECIDED;
		}
		return any_n ? TRI_NULL : t->kind == TN_AND ? TRI_TRUE : TRI_FALSE;
	}
	}
	return TRI_NULL;
}

Tri plan_unit_eval(const Unit *u, const signed char *sqlv, const signed char *atomv, int *next)
{
	*next = -1;
	if (u->nnodes == 0)
		return TRI_TRUE;
	return eval_node(u, 0, sqlv, atomv, next);
}

/* For the plan's expected asks: each outcome of the atoms' verdicts (each passing with
   probability rate, alone), weighted by its probability, walked as the walk asks (the next
   atom the tree needs, until it is decided); the structured leaves taken to hold, as the
   unit's candidates pass its structured WHERE. Past REACH_ATOMS atoms: every atom asked. */
#define REACH_ATOMS 12

double plan_unit_reach(const Unit *u, int k, double rate)
{
	int na = u->natoms;
	if (na <= 1 || u->nnodes == 0 || na > REACH_ATOMS)
		return 1;
	signed char *sqlv = xmalloc((size_t)u->nsqlcols + 1);
	memset(sqlv, 1, (size_t)u->nsqlcols + 1);
	signed char *av = xmalloc((size_t)na);
	double reach = 0;
	for (unsigned m = 0; m < (1u << na); m++) {
		double pr = 1;
		for (int i = 0; i < na; i++)
			pr *= (m >> i) & 1 ? rate : 1 - rate;
		memset(av, VERDICT_UNASKED, (size_t)na);
		for (int step = 0; step <= na; step++) {
			int nx;
			if (plan_unit_eval(u, sqlv, av, &nx) != TRI_UNDECIDED || nx < 0)
				break;
			if (nx == k) {
				reach += pr;
				break;
			}
			av[nx] = (signed char)((m >> nx) & 1);
		}
	}
	free(sqlv);
	free(av);
	return reach;
}
