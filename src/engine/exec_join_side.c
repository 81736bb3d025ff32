/*
 * exec_join_side.c: what each side of a semantic join reads, for exec_join.c's listings:
 * the one FROM item a side's expression reads (or none: the join is judged pair by pair),
 * the conditions of the block that reach that item alone (a WHERE's or an inner join's
 * ON conjunct without free text, and what equality with the other side implies), and the
 * statement that lists the side's distinct values under them. Pure functions of the bound
 * statement: nothing here runs a statement or asks the model.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/plan_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- which FROM item each side reads ---- */

typedef struct SideScan {
	Exec *ex;
	int b;
	int item;             /* the one item read so far, -1 none, -2 several or elsewhere */
} SideScan;

static int side_cb(void *ctx, Expr *e)
{
	SideScan *sc = ctx;
	if (e->select)
		sc->item = -2;   /* a subquery: not a function of one item's row */
	if (sc->item == -2)
		return AST_STOP;
	if (e->kind != EX_COLUMN)
		return AST_CONTINUE;
	int blk;
	int i = bind_resolve(sc->ex, sc->b, e, &blk);
	if (i < 0 || blk != sc->b || (sc->item >= 0 && sc->item != i))
		sc->item = -2;
	else
		sc->item = i;
	return sc->item == -2 ? AST_STOP : AST_CONTINUE;
}

int exec_join_side_item(Exec *ex, int b, Expr *e)
{
	SideScan sc = {ex, b, -1};
	AstVisitor v = {0};
	v.ctx = &sc;
	v.expr = side_cb;
	ast_visit_expr(e, &v);
	if (sc.item < 0)
		return -1;
	const ScopeItem *it = &ex->blocks[b].items[sc.item];
	if ((it->kind != IT_TABLE && it->kind != IT_CTE && it->kind != IT_SUBQUERY) || !it->f ||
	    it->f->kind == FROM_JOIN)
		return -1;
	return sc.item;
}

/* ---- the filters that reach a side ----
   A conjunct of the block's WHERE (or of the ON of an inner join) that reads one FROM item
   alone and holds no free text holds for every row of that item the join can return: it
   goes into that side's listing (not with an outer join in the FROM: there a WHERE on the
   null-extended side, such as b.x IS NULL, depends on which values matched). So does what equality implies: with a.k = b.k and
   a.k = 'x' (or b.k = 'x'), the other side gets its own k = 'x'. */

typedef struct Conjs {
	Expr **v;
	int n, cap;
} Conjs;

static void conj_add(Conjs *c, Expr *e)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->v = xrealloc(c->v, (size_t)c->cap * sizeof *c->v);
	}
	c->v[c->n++] = e;
}

static void conj_split(Expr *e, Conjs *c)
{
	if (!e)
		return;
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		conj_split(e->left, c);
		conj_split(e->right, c);
		return;
	}
	conj_add(c, e);
}

/* an inner join: a plain JOIN, a comma, INNER or CROSS (ON of an outer join is not a
   filter of either side) */
int exec_join_side_inner(const FromItem *f)
{
	if (f->comma || f->njoin <= 1)
		return 1;
	for (int k = 0; k < f->njoin - 1; k++)
		if (f->join_kw[k] != KW_INNER && f->join_kw[k] != KW_CROSS)
			return 0;
	return 1;
}

static void on_conjs(const FromList *fl, Conjs *c, int *outer)
{
	for (int i = 0; fl && i < fl->n; i++) {
		const FromItem *f = fl->items[i];
		if (!exec_join_side_inner(f))
			*outer = 1;
		else
			conj_split(f->on, c);
		if (f->kind == FROM_JOIN)
			on_conjs(f->nested, c, outer);
	}
}

/* The one FROM item a conjunct reads (its columns all of it, no free text, no subquery),
   or -1. */
static int conj_item(Exec *ex, int b, Expr *e)
{
	if (!plan_push_plain_expr(ex, e))
		return -1;
	SideScan sc = {ex, b, -1};
	AstVisitor w = {0};
	w.ctx = &sc;
	w.expr = side_cb;
	ast_visit_expr(e, &w);
	return sc.item >= 0 ? sc.item : -1;
}

static int col_item(Exec *ex, int b, const Expr *e)
{
	int blk;
	if (e->kind != EX_COLUMN)
		return -1;
	int i = bind_resolve(ex, b, e, &blk);
	return i >= 0 && blk == b ? i : -1;
}

static int same_col(Exec *ex, int b, const Expr *x, const Expr *y)
{
	return col_item(ex, b, x) >= 0 && col_item(ex, b, x) == col_item(ex, b, y) &&
	       ast_name_eq(x->name, y->name);
}

/* col = literal (either way round): the column, and the literal in *lit */
static const Expr *col_eq_lit(Exec *ex, int b, const Expr *e, Expr **lit)
{
	if (e->kind != EX_BINARY || e->op != OP_EQ)
		return NULL;
	if (col_item(ex, b, e->left) >= 0 && e->right->kind == EX_LITERAL) {
		*lit = e->right;
		return e->left;
	}
	if (col_item(ex, b, e->right) >= 0 && e->left->kind == EX_LITERAL) {
		*lit = e->left;
		return e->right;
	}
	return NULL;
}

/* The filters of FROM item `item`, ANDed with base. */
static Expr *side_filters(Exec *ex, Block *b, int item, Expr *base)
{
	Conjs c = {0};
	int outer = 0;
	conj_split(b->core->where, &c);
	on_conjs(b->core->from, &c, &outer);
	if (outer) {
		/* with an outer join anywhere, nothing: whether a row is kept null-extended
		   depends on all the values of the other side, not only those passing WHERE */
		c.n = 0;
	}
	Expr *w = base;
	for (int i = 0; i < c.n; i++)
		if (conj_item(ex, b->id, c.v[i]) == item)
			w = exec_and(ex->a, w, c.v[i]);
	for (int i = 0; i < c.n; i++) {   /* other.k = lit, and other.k = mine.k */
		Expr *lit = NULL;
		const Expr *oc = col_eq_lit(ex, b->id, c.v[i], &lit);
		if (!oc || col_item(ex, b->id, oc) == item)
			continue;
		for (int k = 0; k < c.n; k++) {
			Expr *e = c.v[k];
			if (e->kind != EX_BINARY || e->op != OP_EQ)
				continue;
			Expr *mine = NULL;
			if (same_col(ex, b->id, e->left, oc) && col_item(ex, b->id, e->right) == item)
				mine = e->right;
			else if (same_col(ex, b->id, e->right, oc) && col_item(ex, b->id, e->left) == item)
				mine = e->left;
			if (mine)
				w = exec_and(ex->a, w, ast_binary(ex->a, OP_EQ, mine, lit));
		}
	}
	free(c.v);
	return w;
}

/* The value a side is listed and looked up as: itself in SQLite; in PostgreSQL its text
   (a list as JSON, as SQLite keeps it), the text by which exec_pg_plan.c's look-up of
   suql_match finds the verdicts. */
Expr *exec_join_side_value(Exec *ex, Expr *side)
{
	return ex->e->dialect->text_of(ex, side);
}

/* SELECT DISTINCT side FROM item (alone), with the block's WITH clauses in scope, kept to
   the rows the block's filters allow (side_filters). */
char *exec_join_side_sql(Exec *ex, Block *b, int item, Expr *side)
{
	FromItem fi = *b->items[item].f;
	fi.comma = 0;
	fi.njoin = 0;
	fi.on = NULL;
	fi.using_ = NULL;
	FromItem *pfi = &fi;
	FromList fl = {1, 1, &pfi};
	SelectCore core = *b->core;
	core.from = &fl;
	Block tb = *b;
	tb.core = &core;
	ResultList *cols = NULL;
	Expr *v = exec_join_side_value(ex, side);
	exec_col(ex->a, &cols, v, "v");
	Expr *nn = ast_expr_new(ex->a, EX_ISNULL);
	nn->left = side;
	nn->not_ = 1;
	Select *s = exec_select(ex, &tb, cols, side_filters(ex, b, item, nn), NULL);
	s->cores[0]->distinct = DISTINCT_DISTINCT;
	ex->e->dialect->distinct_order(ex, s, &b->items[item], v);
	return exec_print_select(ex, s);
}

Expr *exec_join_side_plain(Exec *ex, Expr *e)
{
	Conjs c = {0};
	conj_split(e, &c);
	Expr *w = NULL;
	for (int i = 0; i < c.n; i++)
		if (plan_push_plain_expr(ex, c.v[i]))
			w = exec_and(ex->a, w, c.v[i]);
	free(c.v);
	return w;
}
