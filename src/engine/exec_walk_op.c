/*
 * exec_walk_op.c: the filter walk's row of the operator table (op.c): when it applies
 * (every statement with a block), what it runs (each planned block walked in the
 * planner's order, its values read ahead), and what it refuses on a backend that cannot
 * call suql's functions per row as it runs a statement (Dialect.functions: PostgreSQL).
 *
 * Every refusal of a backend is one of two kinds, and says which first (op_int.h):
 *  - OP_ROW_BY_ROW: the statement's free text is evaluated as the database reads each
 *    row (a question that differs per row, a correlated subquery the planner does not
 *    evaluate ahead, a recursive CTE, JOIN ... ON, an answer() inside another, a view
 *    read later, UPDATE or DELETE shapes whose rows SQLite meets in an order of its own,
 *    naive mode with a join or an aggregate over free text), which only a database that
 *    calls suql's functions can do; naive mode's other values are evaluated ahead
 *    (naive_ahead);
 *  - OP_NO_IDENTITY: the walk cannot tell the rows it judged apart (a table with neither
 *    a key nor a usable ctid, rows of a function in FROM other than unnest()).
 * Refusals are asked before the planner and again after it (PL_NONE is the planner's).
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/plan_int.h"
#include "engine/udf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exec_walk_op_applies(const Exec *ex)
{
	return ex->nblocks > 0 || ex->nocc > 0;
}

/* Whether occurrence i of block b may be evaluated now in naive mode: the values its
   argument reads (an answer() inside it) and, for one read over the rows that pass the
   block's WHERE, the WHERE's, are known. */
static int naive_ready(const Exec *ex, const Block *b, int i, const unsigned char *done)
{
	const Occ *o = &ex->occ[i];
	for (int k = 0; k < ex->nocc; k++) {
		const Occ *p = &ex->occ[k];
		if (done[k] || p->plan != PL_AHEAD || k == i)
			continue;
		if (p->parent_occ == i)
			return 0;
		if (!o->own && p->block == b->id && p->pos == POS_WHERE)
			return 0;
	}
	return 1;
}

/* Naive mode where the database calls no function of suql's (PostgreSQL): every value
   SQLite's functions would ask as rows are read is evaluated ahead, one value a call (no
   batch: the naive plan's cost), over every row of its block's FROM (a WHERE's, and a
   correlated block's) or every row that passes the WHERE (the rest), each text once in
   the statement as SQLite's memo keeps it; the final statement then reads them bound.
   A LIMIT does not stop it early as it stops SQLite's reading. */
static SuqlStatus naive_ahead(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	int batch = ex->set.batch;
	ex->set.batch = 1;
	unsigned char *done = xcalloc((size_t)ex->nocc + 1, 1);
	int *order = plan_order(ex);
	for (int i = 0; i < ex->nblocks && s == SUQL_OK; i++) {
		Block *b = &ex->blocks[order[i]];
		for (int more = 1; more && s == SUQL_OK;) {
			more = 0;
			for (int k = 0; k < ex->nocc && s == SUQL_OK; k++) {
				const Occ *o = &ex->occ[k];
				if (done[k] || o->block != b->id || o->plan != PL_AHEAD ||
				    !naive_ready(ex, b, k, done))
					continue;
				long long n = 0;
				s = exec_final_values(ex, b, k, o->own ? NULL : b->core->where, &n, err);
				ex->cnt.ahead_values += n;
				done[k] = 1;
				more = 1;
			}
		}
	}
	free(order);
	free(done);
	ex->set.batch = batch;
	return s;
}

/* Whether block b has values to read ahead: an uncorrelated block's, or a correlated
   one's free text that reads only its own rows. */
static int has_ahead(const Exec *ex, const Block *b)
{
	if (!b->exec || !b->core)
		return 0;
	if (!b->correlated)
		return 1;
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].block == b->id && ex->occ[i].own)
			return 1;
	return 0;
}

/* An answer() inside another's argument, where the database calls no function of
   suql's (Occ.own 3, plan_ahead.c): evaluated before block b is walked, one value
   a call, over the rows the one around it reads (the candidates of its unit, or the rows
   that pass a WHERE without free text), as SQLite's function asks it when the walk reads
   each candidate's text. */
static SuqlStatus nested_ahead(Exec *ex, Block *b, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	int batch = ex->set.batch;
	ex->set.batch = 1;
	for (int i = 0; i < ex->nocc && s == SUQL_OK; i++) {
		const Occ *o = &ex->occ[i];
		if (o->block != b->id || o->own != 3)
			continue;
		Expr *where = ex->occ[o->parent_occ].plan == PL_AHEAD ? b->core->where
		              : b->budget.relaxed;
		long long n = 0;
		s = exec_final_values(ex, b, i, where, &n, err);
		ex->cnt.ahead_values += n;
	}
	ex->set.batch = batch;
	return s;
}

/* The planned blocks walked in the planner's order (compared passage by passage in
   passage mode), each block's values read ahead for the final statement once the blocks
   it reads have theirs. */
static SuqlStatus exec_walk_op_run(Exec *ex, SuqlErr *err)
{
	if (ex->set.optimize == OPT_OFF)
		return naive_ahead(ex, err);
	SuqlStatus s = SUQL_OK;
	int *order = plan_order(ex);
	for (int i = 0; i < ex->nblocks && s == SUQL_OK; i++) {
		Block *b = &ex->blocks[order[i]];
		if (b->exec && b->core)
			s = nested_ahead(ex, b, err);
		if (s == SUQL_OK && b->planned)
			s = ex->set.optimize == OPT_PASSAGE ? exec_passage_block(ex, b, err)
			                                    : exec_walk_block(ex, b, err);
		if (s == SUQL_OK && has_ahead(ex, b))
			s = exec_final_ahead(ex, b, err);
	}
	free(order);
	return s;
}

/* ---- refusals ---- */

/* m (malloc'd, freed here) copied into ex's arena, where a refusal lives */
static const char *in_arena(Exec *ex, char *m)
{
	char *a = arena_strndup(ex->a, m, strlen(m));
	free(m);
	return a;
}

/* UPDATE and DELETE run their free text as SQLite's functions would be called, row by
   row in the order SQLite reads the statement's own clauses (exec_pg_dml.c); a shape
   whose order of rows is SQLite's own to choose cannot be followed from outside. */
static const char *dml_shape(Exec *ex)
{
	const Stmt *st = ex->ast->stmt;
	if (st->kind != ST_UPDATE && st->kind != ST_DELETE)
		return NULL;
	if (op_evaluated(ex))
		return OP_ROW_BY_ROW ": a semantic join or an aggregate over free text in UPDATE or "
		       "DELETE";
	const Block *b = exec_dml_block(ex);
	if (!b)
		return OP_ROW_BY_ROW ": free text in UPDATE or DELETE outside the statement's own "
		       "clauses";
	/* a subquery's free text that the planner walks ahead (an uncorrelated subquery
	   whose rows are all read) is known before the statement runs, as on SQLite; one it
	   leaves to be asked as SQLite reads each row is not (asked again once planned) */
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].block != b->id && ex->occ_planned && ex->occ[i].plan == PL_NONE) {
			ex->refused_at = ex->occ[i].orig;
			return OP_ROW_BY_ROW ": free text in a subquery or CTE of UPDATE or DELETE that "
			       "SQLite reads row by row (a correlated one, or one under a LIMIT)";
		}
	if (st->order || st->limit)
		return OP_ROW_BY_ROW ": UPDATE or DELETE with ORDER BY or LIMIT (SQLite picks the "
		       "rows as it reads them)";
	return NULL;
}

/* A table of the statement whose rows cannot be told apart (bind_scope.c learnt it). */
static const char *no_identity(Exec *ex)
{
	for (int i = 0; i < ex->nblocks; i++)
		for (int k = 0; k < ex->blocks[i].nitems; k++) {
			const ScopeItem *it = &ex->blocks[i].items[k];
			if (it->kind == IT_TABLE && it->noid)
				return in_arena(ex, xprintf(
				    OP_NO_IDENTITY ": table %s has no row identity: its rows have neither a "
				    "key (a primary key or a unique index on one NOT NULL column of "
				    "integers) nor a ctid that is unique (it is partitioned or foreign); "
				    "declare a primary key, or, where Postgres allows none, name the key in "
				    "suql.table_props: INSERT INTO suql.table_props VALUES ('%s', "
				    "'row_key', '<column>')%s%s", it->table, it->table,
				    it->rowbad ? "; " : "", it->rowbad ? it->rowbad : ""));
			if (it->kind == IT_FUNC && ex->blocks[i].nocc > 0)
				return OP_NO_IDENTITY ": free text over a function in FROM other than "
				       "unnest() (its rows carry no id)";
		}
	return NULL;
}

/* An answer() inside the argument of a walked atom is evaluated ahead over its unit's
   candidates only where every candidate reads it: one unit with that one atom. */
static const char *nested_refused(Exec *ex)
{
	for (int i = 0; ex->occ_planned && i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->own != 3 || ex->occ[o->parent_occ].plan == PL_AHEAD)
			continue;
		const Block *b = &ex->blocks[o->block];
		int other = b->nunits != 1 || b->dnf_over;
		for (int k = 0; !other && k < b->units[0].natoms + b->units[0].nleaf_occ; k++) {
			const Unit *u = &b->units[0];
			const Occ *q = &ex->occ[k < u->natoms ? u->atoms[k] : u->leaf_occ[k - u->natoms]];
			other = q->parent_occ < 0 && q->id != o->parent_occ;
		}
		if (other) {
			ex->refused_at = o->orig;
			return OP_ROW_BY_ROW ": an argument of another answer() in a WHERE of several "
			       "conditions with free text (SQLite asks it only for the candidates "
			       "that reach the one around it)";
		}
	}
	return NULL;
}

static const char *exec_walk_op_refuse(Exec *ex, const Dialect *d)
{
	if (d->functions)   /* suql's functions run in it: nothing is refused */
		return NULL;
	const Stmt *st = ex->ast->stmt;
	/* naive mode's values are evaluated ahead (naive_ahead) but for what a semantic
	   join or an aggregate over free text would judge row by row, and for UPDATE and
	   DELETE, whose rows SQLite meets as it changes them */
	if (ex->set.optimize == OPT_OFF && (op_evaluated(ex) ||
	    (ex->nocc && (st->kind == ST_UPDATE || st->kind == ST_DELETE))))
		return OP_ROW_BY_ROW ": optimize off (naive mode leaves every value to the "
		       "statement, asked as each row is read)";
	if (st->kind == ST_CREATE_VIEW)   /* kept in suql's catalog (engine_ddl.c) */
		return NULL;
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].sig < 0) {
			ex->refused_at = ex->occ[i].orig;
			return OP_ROW_BY_ROW ": a question that is not a literal (each row asks its own)";
		}
	const char *why = dml_shape(ex);
	if (!why)
		why = no_identity(ex);
	if (!why)
		why = nested_refused(ex);
	/* (UPDATE and DELETE of the shapes above follow SQLite's rows from outside: their
	   free text is on demand there, as the planner leaves it) */
	int dml = st->kind == ST_UPDATE || st->kind == ST_DELETE;
	for (int i = 0; !why && !dml && ex->occ_planned && i < ex->nocc; i++)
		if (ex->occ[i].plan == PL_NONE) {
			ex->refused_at = ex->occ[i].orig;
			why = OP_ROW_BY_ROW ": where SQLite asks it as it reads each row (a correlated "
			      "subquery, a recursive CTE, JOIN ... ON, an argument of another answer(), "
			      "VALUES, a stored query under a LIMIT)";
		}
	return why;
}

/* ---- the floor (doc/engine.md, "The floor") ---- */

/* The share of candidates atom k of unit u lets through, as the plan estimates it: the
   rate earlier walks saw (learned), else the share the planner ordered the atoms by, else
   the rate the budget assumes; a ranked walk's (n candidates) top ones at the rate it
   expects of them. */
static double atom_rate(Exec *ex, const Block *b, const Unit *u, int k, long long n)
{
	const Occ *o = &ex->occ[u->atoms[k]];
	double s = plan_cost_learned(ex, o, NULL, NULL);
	for (int l = 0; l < u->nlits; l++)
		if (u->lits[l].kind == LK_ATOM && u->lits[l].occ == o->id) {
			if (s < 0 && u->lits[l].cost > 0)
				s = u->lits[l].sel;   /* (negation already in it) */
			else if (s >= 0 && u->lits[l].neg)
				s = 1 - s;
		}
	if (s <= 0)
		s = PLAN_WALK_EXPECT_RATE;
	int ranked = b->limit >= 0 && !b->ordered && u->natoms > 0 && n > 1;
	if (ranked && s < plan_cost_top_rate())
		s = plan_cost_top_rate();
	return s;
}

/* Unit k's candidates as the plan counted them (the walk's count once walked). */
static long long unit_rows(const Block *b, int k)
{
	const Unit *u = &b->units[k];
	if (u->count > 0)
		return u->count;
	return b->budget.ncount == b->nunits && b->budget.count ? b->budget.count[k] : b->bound;
}

/* The walk's floor: each planned block's units at the fewest calls that find its LIMIT's
   rows (the cheapest unit: any rows will do; those of a conjunct without free text come
   free) or decide every candidate (every unit), its
   free-text leaves over every candidate; an occurrence read ahead or projected last over
   the rows it is asked of, one on demand over its block's rows: each in full calls. The
   same question of the same text in the same place counts once, as in the plan. */
static long long exec_walk_op_floor(Exec *ex)
{
	if (!ex->occ_planned)
		return 0;
	long long per = plan_cost_floor_batch(ex), total = 0;
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->planned)
			continue;
		/* under a LIMIT, the rows of conjuncts without free text come without a call:
		   the other conjuncts need find only the rest */
		long long need = b->dnf_over ? -1 : b->limit;
		for (int k = 0; k < b->nunits && need > 0; k++)
			if (b->units[k].natoms == 0 && b->units[k].nleaf_occ == 0)
				need -= unit_rows(b, k);
		if (b->limit >= 0 && need <= 0 && !b->dnf_over)
			continue;
		if (op_walk_floor(ex, b) >= 0)
			continue;   /* an operator takes the walk over: its row counts its floor */
		long long best = -1, sum = 0;
		for (int k = 0; k < b->nunits; k++) {
			Unit *u = &b->units[k];
			long long n = unit_rows(b, k), f = 0;
			for (int l = 0; l < u->nleaf_occ; l++)
				f += plan_cost_floor_items(n, per);
			if (u->natoms > 0) {
				double *s = xmalloc((size_t)u->natoms * sizeof *s);
				for (int a = 0; a < u->natoms; a++)
					s[a] = atom_rate(ex, b, u, a, n);
				f += plan_cost_floor_walk(n, need, s, b->dnf_over ? 1 : u->natoms, per);
				free(s);
			}
			sum += f;
			if (u->natoms + u->nleaf_occ > 0 && (best < 0 || f < best))
				best = f;
		}
		total += b->limit >= 0 && best >= 0 ? best : sum;
	}
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->plan == PL_WALK || o->plan == PL_LEAF || o->plan == PL_TOPK ||
		    (o->pos == POS_WHERE && o->block >= 0 && ex->blocks[o->block].planned &&
		     o->parent_occ < 0))
			continue;   /* in its unit above (naive mode too), or the top-k's own */
		int dup = 0;
		for (int j = 0; j < i && !dup; j++) {
			const Occ *p = &ex->occ[j];
			dup = p->block == o->block && p->sig == o->sig && o->sig >= 0 &&
			      p->plan == o->plan && ast_expr_equal(p->arg, o->arg);
		}
		if (dup)
			continue;
		if (o->block < 0) {
			total += 1;
			continue;
		}
		const Block *b = &ex->blocks[o->block];
		/* the rows its values are asked for, in full calls; under a LIMIT, the rows
		   returned (projection last) or stored (a stored query), as the worst case counts */
		long long r = o->plan == PL_NONE && o->pos == POS_WHERE ? b->from_rows : b->bound;
		if (o->plan == PL_PROJECT || (o->plan == PL_AHEAD && o->own == 4)) {
			long long lim = b->out_limit, off;
			if (lim < 0 && b->sel && b->sel->ncore == 1 && b->sel->limit)
				plan_limit_of(ex, b->sel, &lim, &off);   /* a block not walked */
			if (lim >= 0 && lim < r)
				r = lim;   /* the rows returned (or stored), which the LIMIT counts */
		}
		total += plan_cost_floor_items(r, per);
	}
	return total;
}

/* ---- the row ---- */

/* The walk's state (Exec.opstate[OP_WALK]): the walk running now, for engine_progress. */
static void exec_walk_op_free(Exec *ex)
{
	free(ex->opstate[OP_WALK]);
	ex->opstate[OP_WALK] = NULL;
}

/* answer() and summary() as the parser reads them (EX_ANSWER, EX_SUMMARY), which the
   binder's forms recognize (bind_occ_bind) */
static const OpFunc walk_funcs[] = {{"answer", 2, 3}, {"summary", 1, 1}, {NULL, 0, 0}};

const EngineOp exec_walk_op_row = {
	.name = "filter walk",
	.slot = OP_WALK,
	.funcs = walk_funcs,
	.forms = 1,
	.bind = bind_occ_bind,
	.functions = udf_register,
	.applies = exec_walk_op_applies,
	.run = exec_walk_op_run,
	.floor = exec_walk_op_floor,
	.show = exec_walk_show_plan,
	.counters = exec_walk_show_counters,
	.refuse = exec_walk_op_refuse,
	.free = exec_walk_op_free,
};
