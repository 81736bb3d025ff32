/*
 * plan.c: the optimizer's plan for each SELECT block: which blocks are walked, laziness
 * under LIMIT and the order of the walk, the plan of every occurrence outside WHERE, the
 * order of a unit's atoms (cost x selectivity), the counts that bound the calls, and the
 * worst case compared with the budget (plan_unit.c makes the units, plan_show.c writes
 * the plan).
 *
 * A block's WHERE is read as its AND/OR/NOT skeleton over leaves. A leaf is structured
 * (SQLite evaluates it: no free text of this block in it), a verify atom of the block, or
 * a free-text leaf (free text of the block inside something larger, e.g. a typed answer
 * compared with a date: its calls are evaluated for every candidate, then SQLite evaluates
 * it). The skeleton becomes an OR of ANDs (DNF, NOT pushed to the leaves), each AND a
 * *unit*: its structured literals make one SQLite statement listing the unit's candidates,
 * its atoms are tried per candidate, cheapest and most selective first. Past the size cap
 * (dnf_cap conjuncts) the block is one unit holding the whole tree, judged per candidate
 * with short-circuit, and the candidates are the rows that satisfy the tree's top-level
 * structured conjuncts.
 *
 * Before any call the budget needs the most calls the statement may make: for that, every
 * block's WHERE is *relaxed* (literals that need the model, or an ENUM literal not yet
 * classified, are dropped: the OR of what is left of each conjunct can only hold for more
 * rows), candidate counts are read with count(*) over the relaxed conditions, and the SQL
 * functions answer NULL without calling anything while they are counted.
 *
 * A block is walked lazily (stops early) when its select has LIMIT and no GROUP BY,
 * aggregate or window, and its ORDER BY is absent (candidates in relevance order) or
 * structured (candidates in that order). With DISTINCT it stops once LIMIT distinct
 * result rows have a passing row (distinct_why says when it cannot). Occurrences outside WHERE get their own plan:
 * projection last (the statement's result columns), ahead (every row that passes WHERE:
 * ORDER BY, GROUP BY, HAVING, aggregates), or on demand (per row, by the functions).
 */
#include "engine/bind_int.h"
#include "engine/op_int.h"
#include "engine/sql_int.h"
#include "engine/plan_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_occ_cb(void *ctx, Expr *e)
{
	Exec *ex = ctx;
	if (e->kind == EX_FUNC)
		for (int i = 0; i < ex->nocc; i++)
			if (ex->occ[i].call == e)
				return AST_STOP;
	return AST_CONTINUE;
}

static int has_occ(Exec *ex, Expr *e)
{
	AstVisitor v = {0};
	v.ctx = ex;
	v.expr = has_occ_cb;
	return ast_visit_expr(e, &v) == AST_STOP;
}

static int has_subquery_cb(void *ctx, Expr *e)
{
	(void)ctx;
	if (e->select || (e->kind == EX_FUNC && bind_is_aggregate_name(e)))
		return AST_STOP;
	return AST_CONTINUE;
}

/* ---- LIMIT and ORDER BY ---- */

static Expr *resolve_term(Exec *ex, Block *b, Expr *e)
{
	SelectCore *c = b->core;
	if (e->kind == EX_COLLATE) {
		Expr *in = resolve_term(ex, b, e->left);
		if (!in)
			return NULL;
		Expr *n = ast_expr_new(ex->a, EX_COLLATE);
		*n = *e;
		n->left = in;
		return n;
	}
	if (e->kind == EX_LITERAL && e->lit == LIT_INTEGER) {
		long k = strtol(e->name.s, NULL, 0);
		if (k < 1 || !c->cols || k > c->cols->n)
			return NULL;
		for (int i = 0; i < k; i++)
			if (c->cols->items[i]->expr->kind == EX_STAR)
				return NULL;
		return c->cols->items[k - 1]->expr;
	}
	if (e->kind == EX_COLUMN && !e->table.s && c->cols)
		for (int i = 0; i < c->cols->n; i++)
			if (c->cols->items[i]->alias.s && ast_name_eq(c->cols->items[i]->alias, e->name))
				return c->cols->items[i]->expr;
	/* an unnest element by its bare name: the translation reads it as alias.value
	   (SQLite's json_each; Postgres's unnest() names it as written) */
	if (e->kind == EX_COLUMN && !e->table.s && !ex->e->dialect->arrays)
		for (int i = 0; i < b->nitems; i++) {
			ScopeItem *it = &b->items[i];
			if (it->kind != IT_UNNEST)
				continue;
			if (it->f->alias_cols && it->f->alias_cols->n) {
				if (ast_name_eq(e->name, it->f->alias_cols->items[0]))
					return ast_column(ex->a, it->name, "value");
				continue;
			}
			if (!ast_name_is(e->name, it->name))
				continue;
			return ast_column(ex->a, it->name, "value");
		}
	return e;
}

/* The values of s's LIMIT and OFFSET (0 when absent), evaluated once; lim -1: none. */
void plan_limit_of(Exec *ex, Select *s, long long *limp, long long *offp)
{
	if (ex->e->dialect->only_ints) {   /* integer literals (anything else: not lazy) */
		const Expr *l = s->limit, *o = s->offset;
		int lit = l->kind == EX_LITERAL && l->lit == LIT_INTEGER &&
		          (!o || (o->kind == EX_LITERAL && o->lit == LIT_INTEGER));
		*limp = lit ? strtoll(ast_name_value(ex->a, l->name), NULL, 10) : -1;
		*offp = lit && o ? strtoll(ast_name_value(ex->a, o->name), NULL, 10) : 0;
		return;
	}
	Printer *pr = print_new(PRINT_SQL, NULL, NULL, 0);
	print_raw(pr, "SELECT CAST((");
	print_expr(pr, s->limit);
	print_raw(pr, ") AS INTEGER), CAST(coalesce((");
	if (s->offset)
		print_expr(pr, s->offset);
	else
		print_raw(pr, "0");
	print_raw(pr, "), 0) AS INTEGER)");
	sqlite3_stmt *st;
	long long lim = -1, off = 0;
	exec_bound(ex, 1);   /* LIMIT (SELECT count(*) FROM ...) */
	if (sqlite3_prepare_v2(ex->e->db, print_text(pr), -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			lim = sqlite3_column_int64(st, 0);
			off = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	exec_bound(ex, 0);
	print_free(pr);
	*limp = lim;
	*offp = off < 0 ? 0 : off;
}

/* A block that is an aggregate only through DISTINCT may still stop early: once LIMIT
   distinct result rows have a passing row. That needs result columns SQLite computes from
   one row (no free text, subquery or aggregate), rows the walk can fetch again by their
   ids (to read a passing row's result values), and an ORDER BY, if any, over result
   columns (so that the first rows in its order give the first distinct values). NULL when
   it can, or why not; any GROUP BY, window or aggregate says why the walk reads all. */
static const char *distinct_why(Exec *ex, Block *b)
{
	SelectCore *c = b->core;
	if (c->group && c->group->n)
		return "GROUP BY: a group's result is known only once all its rows are judged";
	if (c->windows)
		return "a window function reads every row";
	if (c->distinct != DISTINCT_DISTINCT || c->having)
		return "an aggregate reads every row";
	if (!b->identity)
		return "DISTINCT over rows that cannot be read again by their ids";
	AstVisitor v = {0};
	v.expr = has_subquery_cb;
	for (int i = 0; c->cols && i < c->cols->n; i++) {
		Expr *e = c->cols->items[i]->expr;
		if (e->kind == EX_STAR)
			return "DISTINCT over *";
		if (has_occ(ex, e))
			return "DISTINCT over free text in the result columns";
		if (ast_visit_expr(e, &v) == AST_STOP)
			return "an aggregate or a subquery in the result columns";
	}
	return NULL;
}

/* An ORDER BY term of a DISTINCT walk is one of the result columns. */
static int orders_result(Block *b, const Expr *e)
{
	for (int i = 0; b->core->cols && i < b->core->cols->n; i++)
		if (ast_expr_equal(b->core->cols->items[i]->expr, e))
			return 1;
	return 0;
}

static void plan_limit(Exec *ex, Block *b)
{
	Select *s = b->sel;
	b->limit = -1;
	b->limit_all = -1;
	b->ordered = 0;
	b->order = NULL;
	b->distinct_walk = 0;
	if (!s || s->ncore != 1 || !s->limit || !b->core)
		return;
	if (b->aggregate) {
		b->why_not_lazy = distinct_why(ex, b);
		if (b->why_not_lazy)
			return;
		b->distinct_walk = 1;
	}
	long long lim, off;
	plan_limit_of(ex, s, &lim, &off);
	if (lim < 0)
		return;
	b->out_limit = lim;
	b->limit_all = lim + off;
	if (s->order) {
		OrderList *ol = arena_alloc(ex->a, sizeof *ol);
		ol->items = arena_alloc(ex->a, (size_t)s->order->n * sizeof *ol->items);
		for (int i = 0; i < s->order->n; i++) {
			OrderTerm *t = s->order->items[i];
			Expr *e = resolve_term(ex, b, t->expr);
			if (!e || has_occ(ex, e)) {
				b->why_not_lazy = "its ORDER BY needs free text";
				return;
			}
			AstVisitor v = {0};
			v.expr = has_subquery_cb;
			if (ast_visit_expr(e, &v) == AST_STOP) {
				b->why_not_lazy = "its ORDER BY holds a subquery or an aggregate";
				return;
			}
			if (b->distinct_walk && !orders_result(b, e)) {
				b->why_not_lazy = "DISTINCT with an ORDER BY on other than result columns";
				return;
			}
			OrderTerm *n = arena_alloc(ex->a, sizeof *n);
			*n = *t;
			n->expr = e;
			ol->items[ol->n++] = n;
		}
		ol->cap = ol->n;
		b->order = ol;
		b->ordered = 1;
	}
	b->limit = lim + off;
}

/* ---- which blocks are walked ---- */

int plan_recursive_cte(const Block *b)
{
	if (b->kind != BK_CTE && !(b->kind == BK_COMPOUND))
		return 0;
	for (int i = 0; i < b->nwith; i++)
		if (b->with[i]->recursive)
			for (int k = 0; k < b->with[i]->n; k++)
				if (b->with[i]->items[k]->select == b->sel)
					return 1;
	return 0;
}

static void plan_blocks(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		b->planned = 0;
		b->why = NULL;
		if (!b->exec || !b->core)
			b->why = b->exec ? "not a SELECT" : "not run now (stored SQL)";
		else if (b->core->kind != CORE_SELECT)
			b->why = "VALUES";
		else if (b->correlated)
			b->why = "correlated with an enclosing query: evaluated per row, on demand";
		else if (plan_recursive_cte(b))
			b->why = "a recursive CTE: evaluated per row, on demand";
		else if (b->nocc_where > 0)
			b->planned = 1;
		/* identity: every FROM item says which row it is */
		b->identity = b->nitems > 0;
		for (int k = 0; k < b->nitems; k++) {
			ScopeItem *it = &b->items[k];
			if (it->kind == IT_TABLE && it->ncols == 0)
				bind_scope_item_columns(ex, b, it);
			/* PostgreSQL: a table's rows by their key or ctid (dialect_pg.c), an
			   unnest()'s of one array by their ordinality (exec_pg_plan_from) */
			int ok = (it->kind == IT_TABLE && it->rowid) ||
			         (it->kind == IT_UNNEST && (!ex->e->dialect->arrays ||
			                                    (it->f && it->f->args && it->f->args->n == 1))) ||
			         (ex->e->dialect->func_ids && it->kind == IT_FUNC && it->ncols > 0);
			b->identity &= ok;
		}
		if (b->planned) {
			plan_limit(ex, b);
		} else if (b->top && b->sel && b->sel->ncore == 1 && b->sel->limit && b->sel->order &&
		           !b->aggregate && b->nocc > 0) {
			/* for a semantic top-k (plan_topk.c) */
			long long lim, off;
			plan_limit_of(ex, b->sel, &lim, &off);
			b->limit_all = lim < 0 ? -1 : lim + off;
		}
	}
}

/* Projection last: a result column of the statement's own simple SELECT whose free text
   can wait until the rows are known. */
static int projectable(Exec *ex, Block *b, int rcol)
{
	Stmt *st = ex->ast->stmt;
	if (!b->top || st->kind != ST_SELECT || st->explain || b->aggregate || !b->core ||
	    b->core->distinct || rcol < 0 || !b->core->cols || rcol >= b->core->cols->n)
		return 0;
	if (b->colref && b->colref[rcol])
		return 0;
	Expr *e = b->core->cols->items[rcol]->expr;
	AstVisitor v = {0};
	v.expr = has_subquery_cb;
	if (ast_visit_expr(e, &v) == AST_STOP)
		return 0;
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->pos == POS_SELECT && o->block == b->id && o->result_col == rcol &&
		    (o->in_agg || o->parent_occ >= 0))
			return 0;
	}
	return 1;
}

/* A FROM subquery or CTE whose rows are all read: no LIMIT of its own, and none on the
   way to the statement except in a block that groups or aggregates (which reads all its
   rows anyway). Free text in its result columns is then evaluated ahead, in batches over
   the rows that pass its WHERE, rather than row by row as SQLite reads them: every one of
   those rows is asked anyway. Under a LIMIT the rows read depend on the outer query, so
   the functions ask per row, on demand, as before. */
static int rows_all_read(Exec *ex, Block *b)
{
	if (b->top || (b->kind != BK_FROM && b->kind != BK_CTE) || (b->sel && b->sel->limit))
		return 0;
	for (int x = b->parent; x >= 0; x = ex->blocks[x].parent) {
		const Block *p = &ex->blocks[x];
		if (p->correlated)
			return 0;
		if (p->sel && p->sel->limit && !p->aggregate)
			return 0;
	}
	return 1;
}

/* The query of INSERT ... SELECT or CREATE TABLE ... AS (each core of a compound one),
   without a LIMIT, on a backend
   that cannot call suql's functions as it reads each row: every row it returns is stored,
   so free text in its result columns is evaluated ahead, as a top SELECT's is. (Where the
   backend calls the functions, SQLite, they stay on demand: the same values, asked one
   call each as the rows are stored, as before.) */
static int rows_stored(Exec *ex, const Block *b)
{
	const Stmt *st = ex->ast->stmt;
	return !ex->e->dialect->functions && (st->kind == ST_INSERT || st->kind == ST_CREATE_TABLE) &&
	       b->parent < 0 && b->sel && b->sel == st->select && !b->sel->limit;
}

static void plan_occs(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++) {
		ex->blocks[i].topk = NULL;
	}
	for (int i = 0; i < ex->nocc; i++) {
		Occ *o = &ex->occ[i];
		o->plan = PL_NONE;
		o->mode = OCC_ONDEMAND;
		o->own = 0;
		if (o->block < 0)
			continue;
		Block *b = &ex->blocks[o->block];
		if (ex->set.optimize == OPT_OFF) {
			/* naive mode where the database calls no function of suql's: every value
			   evaluated ahead, one a call (exec_walk_op.c), over the rows SQLite's
			   functions would meet at worst */
			if (!ex->e->dialect->functions && plan_ahead_own(ex, b, o)) {
				o->plan = PL_AHEAD;
				o->own = o->pos == POS_WHERE || b->correlated;
			}
			continue;
		}
		if (b->correlated && (plan_ahead_own(ex, b, o) || plan_ahead_pairs_ok(ex, b, o))) {
			o->plan = PL_AHEAD;
			o->own = plan_ahead_own(ex, b, o) ? 1 : 2;
			continue;
		}
		if (!b->exec || !b->core || b->correlated || b->core->kind != CORE_SELECT ||
		    plan_recursive_cte(b))
			continue;
		if (o->parent_occ >= 0)
			continue;   /* inside another's argument: asked when that one reads it */
		if (o->pos == POS_WHERE) {
			if (b->planned) {
				o->plan = o->atom ? PL_WALK : PL_LEAF;
				o->mode = OCC_PLANNED;
			}
			continue;
		}
		if (o->pos == POS_ON || o->pos == POS_OTHER)
			continue;
		if (o->pos == POS_SELECT && projectable(ex, b, o->result_col)) {
			o->plan = PL_PROJECT;
			continue;
		}
		int all = o->pos == POS_ORDER || o->pos == POS_GROUP || o->pos == POS_HAVING ||
		          o->in_agg || b->aggregate || (b->colref && o->result_col >= 0 &&
		                                        b->colref[o->result_col]);
		if (!all && o->pos == POS_SELECT && b->top && !(b->sel && b->sel->limit))
			all = 1;   /* every row is returned anyway */
		if (!all && o->pos == POS_SELECT && rows_all_read(ex, b))
			all = 1;   /* every row is read by the query around it */
		if (!all && o->pos == POS_SELECT && rows_stored(ex, b))
			all = 1;   /* every row is stored anyway */
		if (!all && o->pos == POS_SELECT && o->parent_occ < 0 && plan_ahead_stored(ex, b)) {
			o->plan = PL_AHEAD;
			o->own = 4;   /* the rows its LIMIT stores, one a call */
			if (!b->ordered_total) {   /* the statement's rows: those listed ahead */
				b->sel->order = ex->e->dialect->list_order(ex, b, b->sel->order);
				b->ordered_total = 1;
			}
			continue;
		}
		if (!all && o->pos == POS_SELECT && b->kind == BK_COMPOUND && b->sel &&
		    b->sel->cores[0] == ex->ast->stmt->select->cores[0] && !b->sel->limit)
			all = 1;
		if (all)
			o->plan = PL_AHEAD;
		if (all && b->sel && b->sel->order && b->sel->order->n &&
		    !(b->topk && !b->topk->why_not))
			plan_topk(ex, b, o, resolve_term(ex, b, b->sel->order->items[0]->expr));
	}
	plan_ahead_nested(ex);
}

/* ---- atom order within a unit: cheap and selective first ---- */

static double avg_tokens(Exec *ex, Block *b, Occ *o)
{
	ResultList *cols = NULL;
	Expr *arg = ex->e->dialect->text_of(ex, o->arg);
	exec_col(ex->a, &cols, ast_func(ex->a, "length", 1, &arg), NULL);
	Select *s = exec_select(ex, b, cols, NULL, NULL);
	s->limit = ast_integer(ex->a, 32);
	char *sql = exec_print_select(ex, s);
	double sum = 0;
	int n = 0;
	ExecProbe p;
	if (exec_probe_open(&p, ex, sql) == 0)
		while (exec_probe_next(&p) > 0) {
			const char *v = store_text(p.c, 0);
			sum += v ? strtod(v, NULL) : 0;
			n++;
		}
	exec_probe_close(&p);
	free(sql);
	double t = n ? sum / n / TEXT_BYTES_PER_TOKEN : 100;   /* bytes to tokens */
	double cap = ex->set.passage_tokens;
	return t > cap ? cap : t < 1 ? 1 : t;
}

/* The share of the column's rows whose passages share a word with the question. */
static double match_share(Exec *ex, Occ *o)
{
	const Sig *s = &ex->sigs[o->sig >= 0 ? o->sig : o->tsig];
	if (!o->arg_table || !o->arg_indexed || !s->question || !ex->e->dialect->retrieval)
		return 0.5;   /* (no retrieval index of suql's to count with) */
	RetQuestion q = {o->arg_col, s->question};
	RetScore *sc = NULL;
	size_t n = 0;
	SuqlErr err = {0};
	double share = 0.5;
	char *q2 = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", o->arg_table);
	long long total = exec_count(ex, q2);
	sqlite3_free(q2);
	if (total > 0 && ret_score(ex->e->db, o->arg_table, &q, 1, NULL, 0, RET_MATCHED_ONLY, 0, &sc,
	                           &n, &err) == SUQL_OK)
		share = (double)n / (double)total;
	free(sc);
	err_clear(&err);
	return share;
}

/* Where a child of a unit's AND comes in the atoms' order. */
static int atom_rank(const Unit *u, int node)
{
	const TNode *t = &u->nodes[node];
	if (t->kind == TN_NOT && t->nkids == 1)
		t = &u->nodes[t->kids[0]];
	return t->kind == TN_ATOM ? t->occ : 1 << 30;
}

static void order_atoms(Exec *ex, Block *b)
{
	for (int i = 0; i < b->nunits; i++) {
		Unit *u = &b->units[i];
		if (u->natoms < 2 || b->dnf_over)
			continue;
		double *key = xmalloc((size_t)u->natoms * sizeof *key);
		/* the rates earlier walks saw, when every question has one (a rate seen and a
		   share of words are not on one scale: neither is compared with the other) */
		int learned = 1;
		for (int k = 0; k < u->natoms && learned; k++)
			learned = plan_cost_learned(ex, &ex->occ[u->atoms[k]], NULL, NULL) >= 0;
		for (int k = 0; k < u->natoms; k++) {
			Occ *o = &ex->occ[u->atoms[k]];
			/* a literal's selectivity is the share of rows it lets through: as earlier
			   walks saw it, else the share of rows that hold a word of the question */
			double sel = learned ? plan_cost_learned(ex, o, NULL, NULL) : match_share(ex, o);
			for (int l = 0; l < u->nlits; l++)
				if (u->lits[l].kind == LK_ATOM && u->lits[l].occ == o->id && u->lits[l].neg)
					sel = 1 - sel;
			double cost = avg_tokens(ex, b, o);
			for (int l = 0; l < u->nlits; l++)
				if (u->lits[l].kind == LK_ATOM && u->lits[l].occ == o->id) {
					u->lits[l].sel = sel;
					u->lits[l].cost = cost;
				}
			/* for an AND, try first what fails most per token spent */
			key[k] = cost / fmax(1e-3, 1 - sel);
		}
		for (int k = 1; k < u->natoms; k++) {
			int a = u->atoms[k];
			double ka = key[k];
			int j = k;
			while (j > 0 && key[j - 1] > ka) {
				u->atoms[j] = u->atoms[j - 1];
				key[j] = key[j - 1];
				j--;
			}
			u->atoms[j] = a;
			key[j] = ka;
		}
		/* the tree refers to atoms by index: renumber */
		for (int n = 0; n < u->nnodes; n++) {
			TNode *t = &u->nodes[n];
			if (t->kind != TN_ATOM)
				continue;
			int occ = -1;
			for (int l = 0; l < ex->nocc; l++)
				if (ex->occ[l].call == t->expr)
					occ = l;
			for (int k = 0; k < u->natoms; k++)
				if (u->atoms[k] == occ)
					t->occ = k;
		}
		/* the AND tries its children in the atoms' order */
		TNode *root = &u->nodes[0];
		for (int k = 1; k < root->nkids; k++) {
			int x = root->kids[k], j = k;
			int kx = atom_rank(u, x);
			while (j > 0 && atom_rank(u, root->kids[j - 1]) > kx) {
				root->kids[j] = root->kids[j - 1];
				j--;
			}
			root->kids[j] = x;
		}
		free(key);
	}
}

/* ---- counts ---- */

long long plan_count_rows(Exec *ex, Block *b, Expr *where)
{
	ResultList *cols = NULL;
	Expr *cnt = ast_func(ex->a, "count", 0, NULL);
	cnt->star = 1;
	exec_col(ex->a, &cols, cnt, NULL);
	Select *s = exec_select(ex, b, cols, where, NULL);
	char *sql = exec_print_select(ex, s);
	long long n = exec_count(ex, sql);
	free(sql);
	return n;
}

/* When the FROM cannot be counted alone (it refers to an enclosing query): the product of
   its tables' sizes. */
static long long guess_rows(Exec *ex, Block *b)
{
	long long p = 1;
	for (int i = 0; i < b->nitems; i++) {
		ScopeItem *it = &b->items[i];
		if (it->kind != IT_TABLE)
			continue;
		char *q = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", it->table);
		if (ex->e->dialect->unbind)   /* SQL of its own writing: no parameters */
			ex->e->dialect->unbind(ex);
		long long n = exec_count(ex, q);
		sqlite3_free(q);
		if (n > 0)
			p *= n;
	}
	b->budget.guessed = 1;
	return p;
}

static void budget_counts(Exec *ex)
{
	ex->relaxing = 1;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->exec || !b->core || b->core->kind != CORE_SELECT)
			continue;
		plan_unit_make(ex, b, 1);
	}
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->exec || !b->core) {
			if (b->exec && !b->core) {   /* UPDATE or DELETE: the table's rows */
				b->from_rows = guess_rows(ex, b);
				b->bound = b->from_rows;
			}
			continue;
		}
		if (b->core->kind != CORE_SELECT) {
			b->from_rows = b->bound = b->core->rows ? b->core->rows->n : 1;
			continue;
		}
		b->from_rows = b->core->from ? plan_count_rows(ex, b, NULL) : 1;
		b->budget.uncounted = b->from_rows == EXEC_COUNT_CUT;
		if (b->from_rows < 0)
			b->from_rows = guess_rows(ex, b);
		/* a FROM too large (or endless) to count: its subsets are not counted either; a
		   WHERE with nothing left once relaxed keeps every row, already counted (on a
		   table of long texts each count reads the whole table) */
		b->bound = b->core->where && !b->budget.uncounted && b->budget.relaxed
		           ? plan_count_rows(ex, b, b->budget.relaxed)
		           : b->from_rows;
		if (b->bound < 0 || b->bound > b->from_rows)
			b->bound = b->from_rows;
		free(b->budget.count);
		b->budget.ncount = b->nunits;
		b->budget.count = xcalloc((size_t)b->nunits + 1, sizeof *b->budget.count);
		for (int k = 0; k < b->nunits; k++) {
			Unit *u = &b->units[k];
			u->count = u->where && !b->budget.uncounted ? plan_count_rows(ex, b, u->where) : b->from_rows;
			if (u->count < 0 || u->count > b->from_rows)
				u->count = b->bound;
			b->budget.count[k] = u->count;
		}
	}
	ex->relaxing = 0;
}

/* How many times block b runs: a correlated block once per row of the block around it. */
static long long runs_of(Exec *ex, int b)
{
	long long r = 1;
	for (int x = b; x >= 0 && ex->blocks[x].correlated && ex->blocks[x].parent >= 0;
	     x = ex->blocks[x].parent) {
		/* in the result columns (and after), once per row that passes the WHERE around it;
		   in WHERE or ON, perhaps once per row of its FROM */
		const Block *p = &ex->blocks[ex->blocks[x].parent];
		OccPos ppos = ex->blocks[x].ppos;
		long long n = ppos == POS_SELECT || ppos == POS_ORDER || ppos == POS_GROUP ||
		              ppos == POS_HAVING ? p->bound : p->from_rows;
		r *= n > 0 ? n : 1;
	}
	return r;
}

/* Candidates one call carries in the worst case: every candidate shows its whole passage
   allowance, so a call holds batch_tokens / passage_tokens of them (and never more than
   batch). */
/* Calls for n candidates in the worst case. */
static long long per_batch(Exec *ex, long long n)
{
	long long b = plan_cost_per_call(ex);
	return n <= 0 ? 0 : (n + b - 1) / b;
}

/* The most candidates one wave of a walk asks about (exec_walk.c): a call's batch times
   the calls in flight. */
/* The candidates one wave carries at most: a call's batch times the calls in flight. */
static long long plan_max_wave(Exec *ex)
{
	long long b = ex->set.batch > 0 ? ex->set.batch : 1;
	int conc = ex->e->llm ? llm_concurrency(ex->e->llm) : 1;
	return b * (conc > 0 ? conc : 1);
}

/* The most waves plan_cost_waves follows of a walk. */
#define PLAN_WAVES 64

/* Whether the plan's tokens are read from the texts: a model that costs something, and a
   walk suql sizes (not the per-passage baseline). */
static int reads_texts(Exec *ex)
{
	return ex->e->llm && !llm_is_offline(ex->e->llm) && ex->set.optimize == OPT_ON;
}

/* The tokens of o's asks over the distinct texts of b's rows that pass where, at most
   rows of them (-1: all), in calls calls: one wave. A LIMIT without ORDER BY returns the
   first rows: the texts expected are theirs. */
static void texts_all(Exec *ex, Block *b, const Occ *o, Expr *where, long long rows,
                      long long calls)
{
	const PlanText *t = reads_texts(ex) ? plan_text_of(ex, b, o, where) : NULL;
	if (!t)
		return;
	double w[PLAN_WAVES];
	double n = (double)(rows >= 0 && rows < b->bound ? rows : b->bound);
	PlanAsks a = {calls, calls, plan_cost_per_call(ex), ceil(n * t->share), w, 0, -1};
	a.nwave = plan_cost_waves((long long)ceil(a.wasks), -1, plan_max_wave(ex), 1, 0, w,
	                          PLAN_WAVES);
	if (rows >= 0 && rows <= t->nhead && !(b->sel && b->sel->order)) {
		a.etext = 0;
		for (long long i = 0; i < rows; i++)
			a.etext += t->head[i];
	}
	plan_cost_texts(ex, o, t, &a);
}

/* The tokens of o's asks in unit u of block b's walk: as the walk expects (a ranked walk's
   first wave of its top candidates; an ordered one at PLAN_WALK_EXPECT_RATE), each
   distinct text once, the atom asked of the candidates its tree still needs it for. */
static void texts_walk(Exec *ex, Block *b, Unit *u, const Occ *o, long long wcalls,
                       long long ecalls)
{
	int atom = -1;
	for (int k = 0; k < u->natoms; k++)
		if (u->atoms[k] == o->id)
			atom = k;
	const PlanText *t = reads_texts(ex) ? plan_text_of(ex, b, o, atom >= 0 ? u->where
	                                                                        : u->where_sql)
	                                    : NULL;
	if (!t || u->count <= 0)
		return;
	double share = t->share;
	double w[PLAN_WAVES];
	PlanAsks a = {wcalls, ecalls, plan_cost_per_call(ex), 0, w, 0, -1};
	if (atom < 0 || o->plan != PL_WALK || b->limit < 0) {
		a.nwave = plan_cost_waves(u->count, -1, plan_max_wave(ex), 1, 0, w, PLAN_WAVES);
	} else {
		int ranked = !b->ordered && u->natoms > 0 && u->count > 1;
		a.nwave = plan_cost_waves(u->count, b->limit, plan_max_wave(ex),
		                          PLAN_WALK_EXPECT_RATE, ranked, w, PLAN_WAVES);
	}
	double reach = atom >= 0 ? plan_unit_reach(u, atom, PLAN_WAVE_PRIOR) : 1;
	for (int i = 0; i < a.nwave; i++)
		w[i] *= reach * share;
	a.wasks = (double)wcalls * (double)a.per;
	if (a.wasks > ceil((double)u->count * share))
		a.wasks = ceil((double)u->count * share);
	plan_cost_texts(ex, o, t, &a);
}

/* The calls occurrence o may cost at most; *expect: when its lazy walks stop early. */
static long long occ_worst(Exec *ex, const Occ *o, long long *expect)
{
	*expect = -1;   /* the same as the worst case */
	if (o->block < 0)
		return 1;
	Block *b = &ex->blocks[o->block];
	long long runs = runs_of(ex, o->block);
	if (ex->set.optimize == OPT_OFF && o->plan == PL_AHEAD)   /* (no functions: one a row) */
		return o->own ? b->from_rows : b->bound;
	if (ex->set.optimize == OPT_OFF)
		return b->from_rows * runs;
	long long n = 0, e = 0;
	switch (o->plan) {
	case PL_WALK:
	case PL_LEAF:
		for (int i = 0; i < b->nunits; i++) {
			Unit *u = &b->units[i];
			int in = 0;
			for (int k = 0; k < u->natoms; k++)
				in |= u->atoms[k] == o->id;
			for (int k = 0; k < u->nleaf_occ; k++)
				in |= u->leaf_occ[k] == o->id;
			if (in && ex->set.optimize == OPT_PASSAGE && b->limit >= 0) {
				/* the per-passage baseline: a call per passage, so many passages */
				n += PASSAGE_BASELINE_K * (b->limit > 0 ? b->limit : 1);
				e += PASSAGE_BASELINE_K * (b->limit > 0 ? b->limit : 1);
			} else if (in) {
				long long mw = plan_max_wave(ex), pc = plan_cost_per_call(ex);
				long long wu = plan_cost_worst_calls(u->count, b->limit, u->natoms, mw, pc);
				long long eu = b->limit >= 0 && o->plan == PL_WALK
				               ? plan_cost_expect_calls(u->count, b->limit, u->natoms, mw,
				                                        pc, PLAN_WALK_EXPECT_RATE)
				               : wu;
				if (eu > wu)
					eu = wu;
				n += wu;
				e += eu;
				if (runs == 1)
					texts_walk(ex, b, u, o, wu, eu);
			}
		}
		*expect = e < n ? e : n;
		return n;
	case PL_AHEAD:
		if (o->own == 2)   /* the pairs the statement can reach, each text once */
			return per_batch(ex, o->pairs);
		if (o->own == 4) {   /* the rows stored, one a call */
			long long lim, off;
			plan_limit_of(ex, b->sel, &lim, &off);
			return lim >= 0 && lim < b->bound ? lim : b->bound;
		}
		if (o->own == 3)   /* the rows the one around it reads, one a call */
			return ex->occ[o->parent_occ].plan == PL_AHEAD || b->nunits < 1
			       ? b->bound : b->units[0].count;
		if (o->own) {   /* every row of its FROM, once whatever the rows around it */
			n = per_batch(ex, b->from_rows);
			texts_all(ex, b, o, NULL, b->from_rows, n);
			return n;
		}
		/* fall through */
	case PL_TOPK:   /* at worst, every candidate */
		n = per_batch(ex, b->bound);
		if (runs == 1)
			texts_all(ex, b, o, b->budget.relaxed, -1, n);
		return n;
	case PL_PROJECT: {
		long long r = b->bound, lim = b->out_limit, off;
		if (lim < 0 && b->sel && b->sel->ncore == 1 && b->sel->limit)
			plan_limit_of(ex, b->sel, &lim, &off);   /* a block not walked: its LIMIT */
		if (lim >= 0 && lim < r)
			r = lim;   /* projected on the rows returned, which the LIMIT counts */
		n = per_batch(ex, r);
		if (runs == 1)
			texts_all(ex, b, o, b->budget.relaxed, r, n);
		return n;
	}
	default:
		if (o->pos == POS_SELECT || o->pos == POS_ORDER || o->pos == POS_GROUP ||
		    o->pos == POS_HAVING)
			return b->bound * runs;
		return b->from_rows * runs;
	}
}

static void plan_worst(Exec *ex)
{
	plan_cost_reset(ex);
	memset(ex->est.worst, 0, sizeof ex->est.worst);
	memset(ex->est.expect, 0, sizeof ex->est.expect);
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		/* the same question about the same text in the same place is asked once */
		int dup = 0;
		for (int j = 0; j < i && !dup; j++) {
			const Occ *p = &ex->occ[j];
			dup = p->block == o->block && p->sig == o->sig && o->sig >= 0 &&
			      p->plan == o->plan && p->plan != PL_NONE && ast_expr_equal(p->arg, o->arg);
		}
		if (dup)
			continue;
		long long e, w = occ_worst(ex, o, &e);
		ex->est.worst[FT_COST_SLOT(o->kind)] += w;
		ex->est.expect[FT_COST_SLOT(o->kind)] += e >= 0 ? e : w;
	}
	op_cost(ex);   /* the operators' own calls (ENUM's classifications) */
	/* embeddings: the question and the top of each relevance ranking */
	if (ex->set.optimize == OPT_ON && ex->e->llm && llm_has_embeddings(ex->e->llm) &&
	    ex->e->dialect->embeddings)
		for (int i = 0; i < ex->nblocks; i++) {
			Block *b = &ex->blocks[i];
			if (!b->planned || b->limit < 0 || b->ordered || !b->identity)
				continue;
			for (int k = 0; k < b->nunits; k++)
				for (int a = 0; a < b->units[k].natoms; a++)
					if (ex->occ[b->units[k].atoms[a]].arg_indexed)
						ex->est.worst[4] += 1 + (b->units[k].count < EMBED_TOP
						                     ? b->units[k].count : EMBED_TOP);
		}
	ex->est.expect[4] = ex->est.worst[4];
	ex->est.worst_total = ex->est.expect_total = 0;
	for (int k = 0; k < FT_COST_SLOTS; k++) {
		ex->est.worst_total += ex->est.worst[k];
		ex->est.expect_total += ex->est.expect[k];
	}
}

/* After ENUM literals were classified and rewritten: the counts and the estimates again,
   from the statement as it will run. The classification's calls (made) stay in them. */
SuqlStatus plan_recount(Exec *ex, int classified, SuqlErr *err)
{
	budget_counts(ex);
	plan_worst(ex);
	ex->est.worst[3] += classified;
	ex->est.expect[3] += classified;
	ex->est.worst_total += classified;
	ex->est.expect_total += classified;
	if (suql_interrupted)
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	return SUQL_OK;
}

/* ---- the order blocks run in: what a block reads runs before it ---- */

static void visit(Exec *ex, int b, int *seen, int *out, int *n)
{
	if (seen[b])
		return;
	seen[b] = 1;
	for (int i = 0; i < ex->nblocks; i++)
		if (ex->blocks[i].parent == b)
			visit(ex, i, seen, out, n);
	Block *bl = &ex->blocks[b];
	for (int k = 0; k < bl->nitems; k++) {
		ScopeItem *it = &bl->items[k];
		if (it->kind != IT_CTE && it->kind != IT_SUBQUERY)
			continue;
		for (int i = 0; i < ex->nblocks; i++)
			if (ex->blocks[i].sel == it->sel && it->sel)
				visit(ex, i, seen, out, n);
	}
	out[(*n)++] = b;
}

int *plan_order(Exec *ex)
{
	int *seen = xcalloc((size_t)ex->nblocks + 1, sizeof *seen);
	int *out = xmalloc(((size_t)ex->nblocks + 1) * sizeof *out);
	int n = 0;
	for (int i = 0; i < ex->nblocks; i++)
		if (ex->blocks[i].parent < 0)
			visit(ex, i, seen, out, &n);
	for (int i = 0; i < ex->nblocks; i++)
		visit(ex, i, seen, out, &n);
	free(seen);
	return out;
}

/* ---- the statement ---- */

SuqlStatus plan_statement(Exec *ex, SuqlErr *err)
{
	if (ex->set.optimize != OPT_OFF)
		plan_push_filters(ex);
	plan_blocks(ex);
	plan_occs(ex);
	budget_counts(ex);
	/* a block whose rows could not be counted is not walked (the walk lists every
	   candidate first): its free text is evaluated per row as SQLite reads the rows, so a
	   LIMIT over an endless CTE stops as it does without free text */
	int again = 0;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (b->planned && b->budget.uncounted) {
			b->planned = 0;
			b->why = "too many rows in FROM to count before running (or endless): "
			         "evaluated per row, on demand";
			again = 1;
		}
	}
	if (again)
		plan_occs(ex);
	plan_ahead_counted(ex);
	plan_worst(ex);
	ex->occ_planned = 1;
	if (suql_interrupted)   /* Ctrl-C while counting: the counts stopped, and so does this */
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	return SUQL_OK;
}

/* After ENUM literals are classified: the units the walk uses, atoms in order. */
void plan_exec(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->planned)
			continue;
		plan_unit_make(ex, b, 0);
		order_atoms(ex, b);
	}
}
