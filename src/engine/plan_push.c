/*
 * plan_push.c: filters of a query that move into the subquery in its FROM. In
 *
 *     SELECT * FROM (SELECT name, location FROM restaurants
 *                    WHERE answer(reviews, 'is it romantic?') = 'Yes') AS r
 *     WHERE r.location = 'Palo Alto'
 *
 * the inner block would be walked over every restaurant, though only Palo Alto's rows can
 * reach the result. A conjunct of the outer WHERE that reads only the subquery's columns,
 * with no free text and no subquery of its own, is ANDed into the inner WHERE, its
 * columns replaced by the inner result expressions they name. SQL allows the move when
 * every row the inner block makes is a row of its FROM passed through plain expressions:
 * one SELECT (no compound), no LIMIT or OFFSET, no DISTINCT, GROUP BY, aggregate or
 * window, not correlated; the outer FROM has no outer join (which would keep the inner
 * rows a filter drops, null-extended), and the result expressions named hold no free text
 * or subquery. The outer WHERE keeps the conjunct, so the rows are the same either way;
 * the inner walk, its counts and the budget see the smaller candidate list, and the plan
 * shows the inner statement with the filter it carries.
 *
 * A CTE gets them on the same terms when it is read in one place only (read in several, each
 * place may filter it differently), is not recursive, and its result columns map one to
 * one onto the names it is read by (its column list, else its result names: no `*`).
 */
#include "engine/bind_int.h"
#include "engine/op_int.h"
#include "engine/plan_int.h"

#include <string.h>

static int bad_cb(void *ctx, Expr *e)
{
	Exec *ex = ctx;
	if (e->select || e->kind == EX_STAR || (e->kind == EX_FUNC && bind_is_aggregate_name(e)))
		return AST_STOP;
	if (e->kind == EX_FUNC)
		for (int i = 0; i < ex->nocc; i++)
			if (ex->occ[i].call == e)
				return AST_STOP;
	/* an operator's node (a semantic join's call; an ENUM literal not classified yet, whose
	   comparison is rewritten in place later, so a copy would compare the literal as
	   written) */
	if (op_holds(ex, e) != OP_HOLD_NONE)
		return AST_STOP;
	return AST_CONTINUE;
}

int plan_push_plain_expr(Exec *ex, Expr *e)
{
	AstVisitor v = {0};
	v.ctx = ex;
	v.expr = bad_cb;
	return ast_visit_expr(e, &v) != AST_STOP;
}

static int outer_join(const FromList *fl)
{
	for (int i = 0; fl && i < fl->n; i++) {
		const FromItem *f = fl->items[i];
		for (int k = 0; !f->comma && k + 1 < f->njoin; k++)
			if (f->join_kw[k] != KW_INNER && f->join_kw[k] != KW_CROSS)
				return 1;
		if (f->kind == FROM_JOIN && outer_join(f->nested))
			return 1;
	}
	return 0;
}

/* The inner result expression an outer column names, or NULL. */
static Expr *named(const SelectCore *c, const Expr *col)
{
	for (int i = 0; c->cols && i < c->cols->n; i++) {
		const ResultCol *rc = c->cols->items[i];
		AstName n = rc->alias.n ? rc->alias : rc->expr->kind == EX_COLUMN ? rc->expr->name
		                                                                  : (AstName){0};
		if (n.n && ast_name_eq(n, col->name))
			return rc->expr;
	}
	return NULL;
}

typedef struct Push {
	Exec *ex;
	Block *outer, *inner;
	int item;             /* the subquery's item in the outer block */
	int ok;
} Push;

/* The inner result expression an outer column names, or NULL: for a subquery by its result
   names; for a CTE by position, through the names the item is read by (its column list). */
static Expr *inner_named(Push *p, const Expr *col)
{
	ScopeItem *it = &p->outer->items[p->item];
	if (it->kind != IT_CTE)
		return named(p->inner->core, col);
	const ResultList *rl = p->inner->core->cols;
	if (it->ncols == 0)
		bind_scope_item_columns(p->ex, p->outer, it);
	if (!rl || it->ncols != rl->n)
		return NULL;
	int at = -1;
	for (int j = 0; j < it->ncols; j++) {
		if (rl->items[j]->expr->kind == EX_STAR)
			return NULL;
		if (str_ieq(it->cols[j], ast_name_value(p->ex->a, col->name))) {
			if (at >= 0)
				return NULL;   /* a name read twice: ambiguous */
			at = j;
		}
	}
	return at >= 0 ? rl->items[at]->expr : NULL;
}

/* e (a copy) with every column of the subquery replaced; p->ok 0 when one cannot be */
static Expr *subst(Push *p, Expr *e)
{
	if (!e || !p->ok)
		return e;
	if (e->kind == EX_COLUMN) {
		int blk;
		int i = bind_resolve(p->ex, p->outer->id, e, &blk);
		Expr *r = i == p->item && blk == p->outer->id ? inner_named(p, e) : NULL;
		if (!r || !plan_push_plain_expr(p->ex, r)) {
			p->ok = 0;
			return e;
		}
		return ast_expr_copy(p->ex->a, r);
	}
	Expr **slots[64];
	int n = ast_expr_children(e, slots, 64);
	if (n > 64) {
		p->ok = 0;
		return e;
	}
	for (int k = 0; k < n; k++)
		*slots[k] = subst(p, *slots[k]);
	return e;
}

/* The one item a conjunct's columns all name in block b, or -1. */
static int reads_item(Exec *ex, int b, Expr *e, int *item)
{
	if (!e)
		return 0;
	if (e->kind == EX_COLUMN) {
		int blk;
		int i = bind_resolve(ex, b, e, &blk);
		if (i < 0 || blk != b || (*item >= 0 && *item != i))
			return -1;
		*item = i;
		return 0;
	}
	Expr **slots[64];
	int n = ast_expr_children(e, slots, 64);
	if (n > 64)
		return -1;
	for (int k = 0; k < n; k++)
		if (reads_item(ex, b, *slots[k], item) < 0)
			return -1;
	return 0;
}

static void conjuncts(Push *p, Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		conjuncts(p, e->left);
		conjuncts(p, e->right);
		return;
	}
	int item = -1;
	if (!plan_push_plain_expr(p->ex, e) || reads_item(p->ex, p->outer->id, e, &item) < 0 || item != p->item)
		return;
	p->ok = 1;
	Expr *c = subst(p, ast_expr_copy(p->ex->a, e));
	if (!p->ok)
		return;
	SelectCore *ic = p->inner->core;
	ic->where = ic->where ? ast_binary(p->ex->a, OP_AND, ic->where, c) : c;
	p->inner->pushed++;
	p->inner->pushed_from = p->outer->id;
}

/* The one place a CTE's block is read (its block and item), or 0 when it is read in none or
   in several. */
static int cte_reader(Exec *ex, const Block *cte, Block **o, int *item)
{
	int n = 0;
	for (int i = 0; i < ex->nblocks; i++)
		for (int k = 0; k < ex->blocks[i].nitems; k++)
			if (ex->blocks[i].items[k].kind == IT_CTE && ex->blocks[i].items[k].block == cte->id) {
				*o = &ex->blocks[i];
				*item = k;
				n++;
			}
	return n == 1;
}

static int recursive(const Block *b)
{
	for (int i = 0; i < b->nwith; i++)
		if (b->with[i]->recursive)
			return 1;
	return 0;
}

void plan_push_filters(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if ((b->kind != BK_FROM && b->kind != BK_CTE) || !b->exec || !b->core ||
		    b->core->kind != CORE_SELECT || b->correlated || b->aggregate ||
		    b->nocc_where == 0 || !b->sel || b->sel->ncore != 1 || b->sel->limit ||
		    b->core->windows || (b->kind == BK_FROM && b->parent < 0))
			continue;
		Block *o = b->parent >= 0 ? &ex->blocks[b->parent] : NULL;
		int only = -1;
		if (b->kind == BK_CTE && (recursive(b) || !cte_reader(ex, b, &o, &only)))
			continue;
		if (!o || !o->core || !o->core->where || outer_join(o->core->from))
			continue;
		for (int k = 0; k < o->nitems; k++)
			if ((b->kind == BK_CTE ? k == only
			                       : o->items[k].kind == IT_SUBQUERY) && o->items[k].block == b->id) {
				Push p = {ex, o, b, k, 0};
				conjuncts(&p, o->core->where);
			}
	}
}
