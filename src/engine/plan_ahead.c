/*
 * plan_ahead.c: free text the planner evaluates ahead where SQLite's functions would ask
 * it as the database reads each row, so that a backend that calls no function of suql's
 * (PostgreSQL) runs it with SQLite's rows, and SQLite in one pass instead of one per row
 * around it (Occ.own says which):
 *  - 1: a correlated subquery's free text that reads only its own rows, over every row of
 *    its FROM, in batches (and naive mode's values there, one a call);
 *  - 2: a correlated subquery's free text that reads the row around it too, over the
 *    distinct pairs of rows of the two blocks the statement can reach;
 *  - 3: an answer() inside another's argument, over the rows the one around it reads, one
 *    a call, where the backend calls no function of suql's;
 *  - 4: a result column of INSERT ... SELECT or CREATE TABLE ... AS under a LIMIT of its
 *    own, there, over the rows it stores, one a call.
 * plan.c's plan_occs decides with these; the walk's row (exec_walk_op.c) and
 * exec_final.c evaluate them.
 */
#include "engine/bind_int.h"
#include "engine/sql_int.h"
#include "engine/plan_int.h"

#include <string.h>
#include <strings.h>

/* The query of INSERT ... SELECT or CREATE TABLE ... AS under a LIMIT of its own, on a
   backend that cannot call suql's functions as it stores each row: one core, no free text
   in WHERE, no grouping or DISTINCT, every FROM item identifying its rows, and an ORDER BY
   (if any) of the block's own columns. The rows stored are then known before the
   statement runs, once the order is made total by the rows' identity (as SQLite reads
   them): their values are evaluated ahead over exactly those rows, one a call, as
   SQLite's functions ask them as the rows are stored (Occ.own 4, exec_final.c). */
int plan_ahead_stored(Exec *ex, const Block *b)
{
	const Stmt *st = ex->ast->stmt;
	if (ex->e->dialect->functions || (st->kind != ST_INSERT && st->kind != ST_CREATE_TABLE) ||
	    b->parent >= 0 || !b->sel || b->sel != st->select || !b->sel->limit ||
	    b->sel->ncore != 1 || b->aggregate || b->nocc_where > 0 || !b->identity ||
	    b->core->distinct)
		return 0;
	for (int i = 0; b->sel->order && i < b->sel->order->n; i++) {
		const Expr *e = b->sel->order->items[i]->expr;
		int blk;
		if (e->kind != EX_COLUMN || bind_resolve(ex, b->id, e, &blk) < 0 || blk != b->id)
			return 0;
	}
	return 1;
}

/* A column of the argument that block b does not read from its own FROM. */
static int outer_col_cb(void *ctx, Expr *e)
{
	void **p = ctx;
	Exec *ex = p[0];
	int b = *(int *)p[1], blk;
	if (e->select)   /* a subquery's rows are its own to read */
		return AST_STOP;
	if (e->kind == EX_COLUMN && (bind_resolve(ex, b, e, &blk) < 0 || blk != b))
		return AST_STOP;
	return AST_CONTINUE;
}

/* Whether occurrence o can be evaluated ahead over every row of its block's FROM, that
   FROM read alone: its question a literal, not inside another's argument, in the
   block's WHERE, result columns, ORDER BY, GROUP BY or HAVING, its argument reading only
   the block's own columns (not an enclosing query's), the FROM only tables (whose rows
   are there whatever the enclosing row is). A correlated subquery's free text that
   reads only its own rows is so evaluated once, in batches, instead of once per row of
   the query around it; so is every value of naive mode on a backend that calls no
   function of suql's (its FROM may then hold anything uncorrelated). */
int plan_ahead_own(Exec *ex, const Block *b, const Occ *o)
{
	if (!b->exec || !b->core || b->core->kind != CORE_SELECT || plan_recursive_cte(b) ||
	    o->sig < 0 || o->pos == POS_ON || o->pos == POS_OTHER)
		return 0;
	if (o->parent_occ >= 0 && ex->set.optimize != OPT_OFF)
		return 0;
	for (int k = 0; b->correlated && k < b->nitems; k++)
		if (b->items[k].kind != IT_TABLE)
			return 0;
	int id = b->id;
	void *p[2] = {ex, &id};
	AstVisitor v = {0};
	v.ctx = p;
	v.expr = outer_col_cb;
	return ast_visit_expr(o->arg, &v) != AST_STOP;
}

/* ---- free text of a correlated subquery that reads the row around it too ---- */

typedef struct PairsCtx {
	Exec *ex;
	int b, p;             /* a column must be read from block b or block p */
} PairsCtx;

/* A part of a condition or an argument that cannot stand in the statement over the two
   FROMs joined: a subquery, free text, a column not qualified (two FROMs may both have
   it) or read from neither block. */
static int pairs_cb(void *ctx, Expr *e)
{
	PairsCtx *c = ctx;
	int blk;
	if (e->select)
		return AST_STOP;
	for (int k = 0; k < c->ex->nocc; k++)
		if (e == c->ex->occ[k].call)
			return AST_STOP;
	if (e->kind == EX_FUNC && e->name.n > 5 && strncasecmp(e->name.s, "suql_", 5) == 0)
		return AST_STOP;
	if (e->kind == EX_COLUMN &&
	    (!e->table.n || bind_resolve(c->ex, c->b, e, &blk) < 0 || (blk != c->b && blk != c->p)))
		return AST_STOP;
	return AST_CONTINUE;
}

static int pairs_fits(Exec *ex, int b, int p, Expr *e)
{
	PairsCtx c = {ex, b, p};
	AstVisitor v = {0};
	v.ctx = &c;
	v.expr = pairs_cb;
	return ast_visit_expr(e, &v) != AST_STOP;
}

/* The conjuncts of e (at its top-level ANDs) that fit, ANDed onto *acc: a pair failing
   one of them fails the WHERE whatever the free text says, so its value is not needed. */
static void pairs_where(Exec *ex, int b, int p, Expr *e, Expr **acc)
{
	if (!e)
		return;
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		pairs_where(ex, b, p, e->left, acc);
		pairs_where(ex, b, p, e->right, acc);
	} else if (pairs_fits(ex, b, p, e)) {
		*acc = exec_and(ex->a, *acc, e);
	}
}

/* Whether o, free text of a correlated block whose argument reads the enclosing block's
   row too, can be evaluated over the pairs of rows the statement can reach: both blocks
   SELECTs of tables only, named apart, the enclosing one not correlated itself, and the
   argument's columns qualified. */
int plan_ahead_pairs_ok(Exec *ex, const Block *b, const Occ *o)
{
	if (ex->set.optimize == OPT_OFF || !b->correlated || b->parent < 0 || o->sig < 0 ||
	    o->parent_occ >= 0 || o->pos == POS_ON || o->pos == POS_OTHER)
		return 0;
	const Block *p = &ex->blocks[b->parent];
	if (p->correlated || !b->exec || !p->exec || !b->core || !p->core ||
	    b->core->kind != CORE_SELECT || p->core->kind != CORE_SELECT || !b->core->from ||
	    !p->core->from || plan_recursive_cte(b) || plan_recursive_cte(p))
		return 0;
	for (int k = 0; k < b->nitems; k++) {
		if (b->items[k].kind != IT_TABLE)
			return 0;
		for (int m = 0; m < p->nitems; m++)
			if (p->items[m].kind != IT_TABLE || !b->items[k].name || !p->items[m].name ||
			    strcasecmp(b->items[k].name, p->items[m].name) == 0)
				return 0;
	}
	return pairs_fits(ex, b->id, p->id, o->arg);
}

Block *plan_ahead_pairs(Exec *ex, const Occ *o, Expr **where)
{
	const Block *b = &ex->blocks[o->block], *p = &ex->blocks[b->parent];
	Block *t = arena_alloc(ex->a, sizeof *t);
	*t = *b;
	SelectCore *c = arena_alloc(ex->a, sizeof *c);
	*c = *b->core;
	FromList *fl = arena_alloc(ex->a, sizeof *fl);
	fl->n = fl->cap = p->core->from->n + b->core->from->n;
	fl->items = arena_alloc(ex->a, (size_t)fl->n * sizeof *fl->items);
	int n = 0;
	for (int i = 0; i < p->core->from->n; i++)
		fl->items[n++] = p->core->from->items[i];
	for (int i = 0; i < b->core->from->n; i++) {
		FromItem *f = b->core->from->items[i];
		if (i == 0) {   /* joined to the enclosing FROM by a comma */
			FromItem *g = arena_alloc(ex->a, sizeof *g);
			*g = *f;
			g->comma = 1;
			g->njoin = 0;
			f = g;
		}
		fl->items[n++] = f;
	}
	c->from = fl;
	t->core = c;
	*where = NULL;
	pairs_where(ex, p->id, p->id, p->core->where, where);
	pairs_where(ex, b->id, p->id, b->core->where, where);
	return t;
}

/* A FROM that could not be counted alone refers to an enclosing query after all (a
   join's ON): its free text stays on demand. The pairs an occurrence over pairs reaches
   are counted now, for the estimate. */
void plan_ahead_counted(Exec *ex)
{
	for (int i = 0; i < ex->nocc; i++) {
		Occ *o = &ex->occ[i];
		if (o->own == 2) {
			Expr *where;
			Block *t = plan_ahead_pairs(ex, o, &where);
			o->pairs = plan_count_rows(ex, t, where);
		}
		if ((o->own == 1 && o->block >= 0 && ex->blocks[o->block].correlated &&
		     ex->blocks[o->block].budget.guessed) || (o->own == 2 && o->pairs < 0)) {
			o->plan = PL_NONE;
			o->own = 0;
		}
	}
}

/* Where the database calls no function of suql's (PostgreSQL): an answer() inside the
   argument of a WHERE atom walked over every candidate (no LIMIT), or of a value
   evaluated ahead in a block whose WHERE has no free text, is asked for exactly the rows
   the one around it reads, so it is evaluated ahead over them, one a call, as SQLite's
   function asks it as the walk reads each candidate's text (Occ.own 3). Elsewhere
   (projection last, a lazy walk) SQLite asks it only for rows known as the statement
   runs: refused there. */
void plan_ahead_nested(Exec *ex)
{
	if (ex->set.optimize == OPT_OFF || ex->e->dialect->functions)
		return;
	for (int i = 0; i < ex->nocc; i++) {
		Occ *o = &ex->occ[i];
		if (o->parent_occ < 0 || o->block < 0 || o->sig < 0)
			continue;
		const Occ *p = &ex->occ[o->parent_occ];
		const Block *b = &ex->blocks[o->block];
		if (p->block != o->block || p->parent_occ >= 0)
			continue;
		if (((p->plan == PL_WALK || p->plan == PL_LEAF) && b->limit < 0) ||
		    (p->plan == PL_AHEAD && !p->own && b->nocc_where == 0)) {
			o->plan = PL_AHEAD;
			o->own = 3;
		}
	}
}

