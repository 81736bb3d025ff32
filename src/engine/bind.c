/*
 * bind.c: the binder. It walks a statement once and finds:
 *
 *  - its SELECT blocks (each SelectCore: the statement's own, subqueries, FROM subqueries,
 *    CTEs, compound members), each with the names its FROM items bring into scope
 *    (bind_scope.c) and where names not found there are looked up next;
 *  - which blocks are correlated (refer to columns of an enclosing block), by resolving
 *    every column reference;
 *  - every construct of an operator: the binder offers each expression to the rows of
 *    the operator table in order (op_bind, op_int.h), as SQLite looks a function up in
 *    its table: a call of one of a row's SQL functions (by name and number of arguments)
 *    to that row, any expression to a row with forms of its own. So the filter walk's
 *    row finds every free-text occurrence (bind_occ.c: a verify atom, answer() compared
 *    with literals by = <> IN NOT IN; a typed or plain answer(); a summary()), with its
 *    position (WHERE and whether it stands in the AND/OR/NOT skeleton there, SELECT list,
 *    ORDER BY, ...), its signature and where its text argument comes from (a FREE_TEXT[]
 *    column, an unnest element, an expression); ENUM's row every comparison of an ENUM or
 *    ENUM[] column with literals; the others their calls (matches(), answer_agg(),
 *    extract(), bm25()).
 *
 * A double-quoted word that names no column in scope is a string, as in SQLite.
 * bind_occ_mutate then replaces each occurrence's node by the call of its SQL function,
 * and each row's own constructs by theirs (the rows' mutate entries).
 */
#include "engine/bind_int.h"
#include "engine/op_int.h"
#include "engine/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bind_select(Bind *bd, Select *s, int parent, int lookup, BlockKind kind,
                        int top);

/* ---- names ---- */

static const char *const AGGREGATES[] = {
	"count", "sum", "avg", "min", "max", "total", "group_concat", "string_agg",
	"json_group_array", "json_group_object", "jsonb_group_array", "jsonb_group_object",
	"median", "percentile", "percentile_cont", "percentile_disc", "stddev", "variance",
};

int bind_is_aggregate_name(const Expr *e)
{
	if (e->kind != EX_FUNC)
		return 0;
	if (e->over || e->extra)
		return 1;
	for (size_t i = 0; i < sizeof AGGREGATES / sizeof *AGGREGATES; i++) {
		if (ast_name_is(e->name, AGGREGATES[i])) {
			/* min() and max() with several arguments are scalar functions */
			if ((ast_name_is(e->name, "min") || ast_name_is(e->name, "max")) && e->list &&
			    e->list->n > 1)
				return 0;
			return 1;
		}
	}
	return 0;
}

static int is_rowid_name(const char *n)
{
	return str_ieq(n, "rowid") || str_ieq(n, "oid") || str_ieq(n, "_rowid_");
}

/* The column index of name in item it, -1 when absent, -2 when the item's names are
   unknown (it may hold anything). */
int bind_item_col(Exec *ex, Block *b, ScopeItem *it, const char *name)
{
	if ((it->kind == IT_CTE || it->kind == IT_SUBQUERY || it->kind == IT_TABLE) &&
	    it->ncols == 0)
		bind_scope_item_columns(ex, b, it);
	if (it->ncols < 0)
		return -2;
	for (int i = 0; i < it->ncols; i++)
		if (str_ieq(it->cols[i], name))
			return i;
	if (it->kind == IT_TABLE && it->rowid && is_rowid_name(name))
		return -3;
	return -1;
}

int bind_resolve(Exec *ex, int b, const Expr *col, int *blk)
{
	*blk = -1;
	if (col->kind != EX_COLUMN)
		return -1;
	const char *name = ast_name_value(ex->a, col->name);
	const char *tab = col->table.s ? ast_name_value(ex->a, col->table) : NULL;
	for (int x = b; x >= 0; x = ex->blocks[x].lookup) {
		Block *bl = &ex->blocks[x];
		for (int i = 0; i < bl->nitems; i++) {
			ScopeItem *it = &bl->items[i];
			/* an item is qualified by its alias, or by its table's name when it has none
			   (it->name is that): t.x does not name a column of t AS d */
			if (tab && !str_ieq(it->name, tab))
				continue;
			/* a column, the rowid, or an item whose names are unknown (assumed here) */
			int k = bind_item_col(ex, bl, it, name);
			if (k >= 0 || k == -3 || k == -2) {
				*blk = x;
				return i;
			}
		}
	}
	return -1;
}

/* A literal usable as an expected value or a question: its value, or NULL. A double-quoted
   word that is not a column in scope is a string (as SQLite has it). */
char *bind_literal(Exec *ex, int b, const Expr *e)
{
	if (e->kind == EX_LITERAL) {
		if (e->lit == LIT_STRING)
			return ast_name_value(ex->a, e->name);
		if (e->lit == LIT_INTEGER || e->lit == LIT_FLOAT)
			return arena_strndup(ex->a, e->name.s, e->name.n);
		return NULL;
	}
	if (e->kind == EX_COLUMN && !e->table.s && e->name.s && e->name.n > 1 &&
	    e->name.s[0] == '"') {
		int blk;
		if (bind_resolve(ex, b, e, &blk) < 0)
			return ast_name_value(ex->a, e->name);
	}
	return NULL;
}

/* ---- blocks ---- */

static int new_block(Bind *bd, SelectCore *c, Select *s, int ci, int parent, int lookup,
                     BlockKind kind, int top)
{
	Exec *ex = bd->ex;
	if (ex->nblocks == ex->capblocks) {
		ex->capblocks = ex->capblocks ? ex->capblocks * 2 : 8;
		ex->blocks = xrealloc(ex->blocks, (size_t)ex->capblocks * sizeof *ex->blocks);
	}
	Block *b = &ex->blocks[ex->nblocks];
	memset(b, 0, sizeof *b);
	b->id = ex->nblocks;
	b->core = c;
	b->sel = s;
	b->core_index = ci;
	b->parent = parent;
	b->lookup = lookup;
	b->kind = kind;
	b->top = top;
	b->exec = bd->exec;
	b->limit = -1;
	b->limit_all = -1;
	b->out_limit = -1;
	b->ppos = bd->pos;
	b->nwith = bd->nwith;
	if (bd->nwith) {
		b->with = xmalloc((size_t)bd->nwith * sizeof *b->with);
		memcpy(b->with, bd->with, (size_t)bd->nwith * sizeof *b->with);
	}
	return ex->nblocks++;
}

static void add_item(Exec *ex, int b, ScopeItem *it)
{
	Block *bl = &ex->blocks[b];
	bl->items = xrealloc(bl->items, ((size_t)bl->nitems + 1) * sizeof *bl->items);
	bl->items[bl->nitems++] = *it;
}

/* The CTE named name in scope (innermost first), or NULL. */
static Cte *find_cte(Bind *bd, AstName name, int *blockp)
{
	for (int w = bd->nwith - 1; w >= 0; w--) {
		With *wi = bd->with[w];
		for (int i = wi->n - 1; i >= 0; i--) {
			if (ast_name_eq(wi->items[i]->name, name)) {
				*blockp = -1;
				for (int k = 0; k < bd->ex->nblocks; k++)
					if (bd->ex->blocks[k].sel == wi->items[i]->select &&
					    bd->ex->blocks[k].core_index == 0)
						*blockp = k;
				return wi->items[i];
			}
		}
	}
	return NULL;
}

static void from_items(Bind *bd, int b, FromList *l)
{
	Exec *ex = bd->ex;
	for (int i = 0; l && i < l->n; i++) {
		FromItem *f = l->items[i];
		ScopeItem it = {0};
		it.f = f;
		it.block = -1;
		switch (f->kind) {
		case FROM_TABLE: {
			int cb = -1;
			Cte *cte = f->schema.s ? NULL : find_cte(bd, f->name, &cb);
			it.name = xstrdup(ast_name_value(ex->a, f->alias.s ? f->alias : f->name));
			if (cte) {
				it.kind = IT_CTE;
				it.block = cb;
				it.sel = cte->select;
				for (int k = 0; cte->cols && k < cte->cols->n; k++) {
					it.cols = xrealloc(it.cols, ((size_t)it.ncols + 1) * sizeof *it.cols);
					it.cols[it.ncols++] = xstrdup(ast_name_value(ex->a, cte->cols->items[k]));
				}
			} else {
				it.kind = IT_TABLE;
				it.table = xstrdup(ast_name_value(ex->a, f->name));
			}
			add_item(ex, b, &it);
			break;
		}
		case FROM_SUBQUERY: {
			int first = ex->nblocks;
			OccPos saved = bd->pos;
			bd->pos = POS_OTHER;
			bind_select(bd, f->select, b, ex->blocks[b].lookup, BK_FROM, 0);
			bd->pos = saved;
			it.kind = IT_SUBQUERY;
			it.block = first;
			it.sel = f->select;
			it.name = xstrdup(f->alias.s ? ast_name_value(ex->a, f->alias) : "");
			add_item(ex, b, &it);
			break;
		}
		case FROM_JOIN:
			from_items(bd, b, f->nested);
			break;
		case FROM_UNNEST:
		case FROM_FUNC:
			/* the arguments see the items before this one */
			for (int k = 0; f->args && k < f->args->n; k++)
				bind_walk(bd, b, &f->args->items[k], POS_OTHER, 0, 0, -1, -1);
			it.kind = f->kind == FROM_UNNEST ? IT_UNNEST : IT_FUNC;
			it.name = xstrdup(ast_name_value(ex->a, f->alias.s ? f->alias : f->name));
			add_item(ex, b, &it);
			break;
		}
	}
}

static void from_on(Bind *bd, int b, FromList *l)
{
	for (int i = 0; l && i < l->n; i++) {
		FromItem *f = l->items[i];
		if (f->kind == FROM_JOIN)
			from_on(bd, b, f->nested);
		if (f->on)
			bind_walk(bd, b, &f->on, POS_ON, 0, 0, -1, -1);
	}
}

/* Mark result columns referred to by name or number outside the SELECT list. */
static void mark_colref(Exec *ex, int b, const Expr *e)
{
	Block *bl = &ex->blocks[b];
	SelectCore *c = bl->core;
	if (!c || !c->cols || !e)
		return;
	if (!bl->colref)
		bl->colref = xcalloc((size_t)c->cols->n + 1, 1);
	if (e->kind == EX_LITERAL && e->lit == LIT_INTEGER) {
		long k = strtol(e->name.s, NULL, 0);
		int star = 0;
		for (int i = 0; i < c->cols->n && i < k; i++)
			star |= c->cols->items[i]->expr->kind == EX_STAR;
		for (int i = 0; i < c->cols->n; i++)
			if (star || i == k - 1)
				bl->colref[i] = 1;
		return;
	}
	if (e->kind != EX_COLUMN || e->table.s)
		return;
	for (int i = 0; i < c->cols->n; i++) {
		ResultCol *rc = c->cols->items[i];
		if (rc->alias.s && ast_name_eq(rc->alias, e->name))
			bl->colref[i] = 1;
	}
}

static void bind_core(Bind *bd, int b)
{
	Exec *ex = bd->ex;
	SelectCore *c = ex->blocks[b].core;
	if (c->kind == CORE_VALUES) {
		for (int r = 0; c->rows && r < c->rows->n; r++)
			for (int k = 0; k < c->rows->items[r]->n; k++)
				bind_walk(bd, b, &c->rows->items[r]->items[k], POS_OTHER, 0, 0, -1, -1);
		return;
	}
	from_items(bd, b, c->from);
	from_on(bd, b, c->from);
	for (int i = 0; c->cols && i < c->cols->n; i++)
		bind_walk(bd, b, &c->cols->items[i]->expr, POS_SELECT, 0, 0, -1, i);
	if (c->where)
		bind_walk(bd, b, &c->where, POS_WHERE, 1, 0, -1, -1);
	for (int i = 0; c->group && i < c->group->n; i++) {
		mark_colref(ex, b, c->group->items[i]);
		bind_walk(bd, b, &c->group->items[i], POS_GROUP, 0, 0, -1, -1);
	}
	if (c->having)
		bind_walk(bd, b, &c->having, POS_HAVING, 0, 0, -1, -1);
	for (int i = 0; c->windows && i < c->windows->n; i++) {
		Window *w = c->windows->items[i];
		for (int k = 0; w->partition && k < w->partition->n; k++)
			bind_walk(bd, b, &w->partition->items[k], POS_ORDER, 0, 1, -1, -1);
		for (int k = 0; w->order && k < w->order->n; k++)
			bind_walk(bd, b, &w->order->items[k]->expr, POS_ORDER, 0, 1, -1, -1);
	}
	if (c->distinct == DISTINCT_DISTINCT || (c->group && c->group->n) || c->windows)
		ex->blocks[b].aggregate = 1;
}

/* Result aliases referred to in WHERE or HAVING count as references too. */
static int alias_ref_cb(void *ctx, Expr *e)
{
	void **p = ctx;
	mark_colref(p[0], *(int *)p[1], e);
	return AST_CONTINUE;
}

static void bind_select(Bind *bd, Select *s, int parent, int lookup, BlockKind kind, int top)
{
	Exec *ex = bd->ex;
	int pushed = 0;
	if (s->with) {
		if (bd->nwith == bd->capwith) {
			bd->capwith = bd->capwith ? bd->capwith * 2 : 4;
			bd->with = xrealloc(bd->with, (size_t)bd->capwith * sizeof *bd->with);
		}
		bd->with[bd->nwith++] = s->with;
		pushed = 1;
		for (int i = 0; i < s->with->n; i++)
			bind_select(bd, s->with->items[i]->select, parent, lookup, BK_CTE, 0);
	}
	int first = -1;
	for (int i = 0; i < s->ncore; i++) {
		BlockKind k = s->ncore > 1 ? BK_COMPOUND : kind;
		int b = new_block(bd, s->cores[i], s, i, parent, lookup, k, top && s->ncore == 1);
		if (first < 0)
			first = b;
		bind_core(bd, b);
		int bb = b;
		void *p[2] = {ex, &bb};
		AstVisitor v = {0};
		v.ctx = p;
		v.expr = alias_ref_cb;
		v.no_subqueries = 1;
		if (s->cores[i]->where)
			ast_visit_expr(s->cores[i]->where, &v);
		if (s->cores[i]->having)
			ast_visit_expr(s->cores[i]->having, &v);
	}
	for (int i = 0; s->order && i < s->order->n; i++) {
		mark_colref(ex, first, s->order->items[i]->expr);
		bind_walk(bd, first, &s->order->items[i]->expr, POS_ORDER, 0, 0, -1, -1);
	}
	if (s->limit)
		bind_walk(bd, first, &s->limit, POS_OTHER, 0, 0, -1, -1);
	if (s->offset)
		bind_walk(bd, first, &s->offset, POS_OTHER, 0, 0, -1, -1);
	if (pushed)
		bd->nwith--;
}

static void resolve_mark(Exec *ex, int b, const Expr *e)
{
	int blk;
	if (bind_resolve(ex, b, e, &blk) < 0 || blk == b)
		return;
	/* a reference to an enclosing block: every block on the way is correlated */
	for (int x = b; x >= 0 && x != blk; x = ex->blocks[x].parent)
		ex->blocks[x].correlated = 1;
}

void bind_walk(Bind *bd, int b, Expr **slot, OccPos pos, int skel, int in_agg, int pocc,
                 int rcol)
{
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (!e)
		return;
	if (e->kind == EX_COLUMN && b >= 0) {
		resolve_mark(ex, b, e);
		return;
	}
	/* an operator's construct: taken whole, or rewritten in place (its arguments are then
	   walked as any function's) */
	OpAt at = {pos, skel, in_agg, pocc, rcol};
	if (op_bind(bd, b, slot, &at) == OP_BIND_TOOK)
		return;
	e = *slot;
	int agg = in_agg;
	if (e->kind == EX_FUNC && bind_is_aggregate_name(e)) {
		agg = 1;
		if (b >= 0 && pos != POS_WHERE)
			ex->blocks[b].aggregate = 1;
	}
	int kskel = skel && ((e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR)) ||
	                     (e->kind == EX_UNARY && e->op == OP_NOT));
	Expr **slots[64];
	int n = ast_expr_children(e, slots, 64);
	Expr ***all = slots;
	if (n > 64) {
		all = xmalloc((size_t)n * sizeof *all);
		ast_expr_children(e, all, n);
	}
	for (int i = 0; i < n; i++)
		bind_walk(bd, b, all[i], pos, kskel, agg, pocc, rcol);
	if (all != slots)
		free(all);
	for (int i = 0; e->order && i < e->order->n; i++)
		bind_walk(bd, b, &e->order->items[i]->expr, pos, 0, agg, pocc, rcol);
	if (e->over) {
		for (int i = 0; e->over->partition && i < e->over->partition->n; i++)
			bind_walk(bd, b, &e->over->partition->items[i], pos, 0, 1, pocc, rcol);
		for (int i = 0; e->over->order && i < e->over->order->n; i++)
			bind_walk(bd, b, &e->over->order->items[i]->expr, pos, 0, 1, pocc, rcol);
	}
	if (e->select) {
		OccPos saved = bd->pos;
		bd->pos = pos;
		bind_select(bd, e->select, b, b, BK_SUBQUERY, 0);
		bd->pos = saved;
	}
}

/* ---- the statement ---- */

static int count_cores(void *ctx, SelectCore *c)
{
	(void)c;
	++*(int *)ctx;
	return AST_CONTINUE;
}

/* The WITH clause of a data statement (WITH ... INSERT, UPDATE, DELETE): its names seen
   by every block of the statement, and each query bound as a CTE of no block, as a
   SELECT's own WITH is (bind_select), so that its free text is planned and counted like
   any other (left unbound, SQLite would call suql's functions for it unseen). */
static void stmt_with(Bind *bd, const Stmt *st)
{
	if (!st->with)
		return;
	bd->with = xmalloc(sizeof *bd->with);
	bd->with[0] = st->with;
	bd->nwith = bd->capwith = 1;
	for (int i = 0; i < st->with->n; i++)
		bind_select(bd, st->with->items[i]->select, -1, -1, BK_CTE, 0);
}

SuqlStatus bind_statement(Exec *ex, SuqlErr *err)
{
	Stmt *st = ex->ast->stmt;
	Bind bd = {0};
	bd.ex = ex;
	bd.err = err;
	bd.exec = 1;
	bd.pos = POS_OTHER;
	/* blocks never move once made: room for every core of the statement */
	int ncores = 0;
	AstVisitor v = {0};
	v.ctx = &ncores;
	v.core = count_cores;
	ast_visit_stmt(st, &v);
	ex->capblocks = ncores + 2;
	ex->blocks = xcalloc((size_t)ex->capblocks, sizeof *ex->blocks);

	switch (st->kind) {
	case ST_SELECT:
		bind_select(&bd, st->select, -1, -1, BK_TOP, 1);
		break;
	case ST_CREATE_VIEW:
		ex->standalone = 1;
		bd.exec = 0;
		if (st->select)
			bind_select(&bd, st->select, -1, -1, BK_TOP, 0);
		break;
	case ST_INSERT:
	case ST_CREATE_TABLE:
		stmt_with(&bd, st);
		if (st->select)
			bind_select(&bd, st->select, -1, -1, BK_SUBQUERY, 0);
		for (int i = 0; st->upsert && i < st->upsert->n; i++) {
			Upsert *u = st->upsert->items[i];
			for (int k = 0; u->set && k < u->set->n; k++)
				bind_walk(&bd, -1, &u->set->items[k]->expr, POS_OTHER, 0, 0, -1, -1);
			bind_walk(&bd, -1, &u->where, POS_OTHER, 0, 0, -1, -1);
			bind_walk(&bd, -1, &u->target_where, POS_OTHER, 0, 0, -1, -1);
		}
		for (int i = 0; st->returning && i < st->returning->n; i++)
			bind_walk(&bd, -1, &st->returning->items[i]->expr, POS_OTHER, 0, 0, -1, -1);
		break;
	case ST_UPDATE:
	case ST_DELETE: {
		stmt_with(&bd, st);
		/* a block without a core: names resolve against the table and FROM */
		int b = new_block(&bd, NULL, NULL, 0, -1, -1, BK_TOP, 0);
		ScopeItem it = {0};
		it.kind = IT_TABLE;
		it.block = -1;
		it.table = xstrdup(ast_name_value(ex->a, st->table));
		it.name = xstrdup(ast_name_value(ex->a, st->alias.s ? st->alias : st->table));
		add_item(ex, b, &it);
		from_items(&bd, b, st->from);
		from_on(&bd, b, st->from);
		for (int i = 0; st->set && i < st->set->n; i++)
			bind_walk(&bd, b, &st->set->items[i]->expr, POS_OTHER, 0, 0, -1, -1);
		bind_walk(&bd, b, &st->where, POS_OTHER, 0, 0, -1, -1);
		for (int i = 0; st->returning && i < st->returning->n; i++)
			bind_walk(&bd, b, &st->returning->items[i]->expr, POS_OTHER, 0, 0, -1, -1);
		break;
	}
	default:
		break;
	}
	free(bd.with);
	return bd.st;
}
