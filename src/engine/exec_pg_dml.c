/*
 * exec_pg_dml.c: free text in UPDATE and DELETE on PostgreSQL, run once planned, shown
 * and checked by the one pipeline (exec_statement.c). SQLite runs such a
 * statement with its SQL functions called per row, on demand (one call per value, the
 * memo sparing a value met twice): the WHERE's conjuncts left to right, a conjunct
 * evaluated only where the ones before it are not false, and SET and RETURNING for the
 * rows the WHERE keeps. Postgres has no suql functions to call, so the same values are
 * evaluated first, in that order, each one call (exec_llm_one, as SQLite's functions
 * do), the texts read in the statement's REPEATABLE READ snapshot (the plan, as SQLite
 * shows it, says "on demand, per row, one call per value"):
 *
 *   1. each occurrence of the WHERE: the distinct texts of the rows of the target table
 *      (and UPDATE's FROM) where the conjuncts before its own are not false (those
 *      conjuncts' free text read from the values evaluated already), within the range of
 *      the table's integer primary key that the WHERE's comparisons with literals set
 *      (SQLite scans its rowid range first, wherever they stand);
 *   2. each occurrence of SET and RETURNING: the texts of the rows the whole WHERE keeps;
 *   3. the user's statement, every occurrence a look-up of its value in one object bound
 *      as a parameter (exec_pg_plan.c: each text a key of its result, never text in the
 *      SQL).
 *
 * Nothing is written before the last step, which runs only when every reply was read
 * (or llm.unreadable is warn: those values NULL, as on SQLite): all or nothing, in the
 * statement's transaction. (SQLite runs the statement as its functions answer, so there
 * the rows changed before the error stay changed.) Free text in an uncorrelated subquery
 * or CTE whose rows are all read was walked ahead by the pipeline, as on SQLite (its
 * values are known here); free text SQLite reads row by row in a subquery, a semantic
 * join or an aggregate is refused.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Dml {
	Exec *ex;
	Block *b;             /* the statement's block (no core) */
	FromList *from;       /* the target table, then UPDATE's FROM */
	Expr **conj;          /* the WHERE's conjuncts, left to right */
	int nconj;
} Dml;

static void conj_flatten(Dml *d, Expr *e)
{
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		conj_flatten(d, e->left);
		conj_flatten(d, e->right);
		return;
	}
	d->conj = xrealloc(d->conj, ((size_t)d->nconj + 1) * sizeof *d->conj);
	d->conj[d->nconj++] = e;
}

/* The target table (with its alias), then the items of UPDATE ... FROM, joined by a
   comma as SQLite joins them. */
static FromList *dml_from(Exec *ex)
{
	const Stmt *st = ex->ast->stmt;
	int n = 1 + (st->from ? st->from->n : 0);
	FromList *fl = arena_alloc(ex->a, sizeof *fl);
	fl->cap = n;
	fl->items = arena_alloc(ex->a, (size_t)n * sizeof *fl->items);
	FromItem *t = arena_alloc(ex->a, sizeof *t);
	t->kind = FROM_TABLE;
	t->span = st->span;
	t->schema = st->schema;
	t->name = st->table;
	t->alias = st->alias;
	fl->items[fl->n++] = t;
	for (int i = 0; st->from && i < st->from->n; i++) {
		FromItem *f = arena_alloc(ex->a, sizeof *f);
		*f = *st->from->items[i];
		if (i == 0 && !f->njoin)
			f->comma = 1;
		fl->items[fl->n++] = f;
	}
	return fl;
}

/* Whether occurrence o stands inside e. */
typedef struct Find {
	const Expr *call;
	int found;
} Find;

static int find_call(void *ctx, Expr *e)
{
	Find *f = ctx;
	if (e != f->call)
		return AST_CONTINUE;
	f->found = 1;
	return AST_STOP;
}

static int occ_in(const Occ *o, Expr *e)
{
	Find f = {o->call, 0};
	AstVisitor v = {0};
	v.ctx = &f;
	v.expr = find_call;
	if (e)
		ast_visit_expr(e, &v);
	return f.found;
}

/* A comparison of the target table's integer primary key with a literal: SQLite's rowid,
   whose range SQLite scans whatever the conjunct's place in the WHERE, so its functions
   are called only for the rows in it. */
static int rowkey_range(Dml *d, const Expr *e)
{
	const ScopeItem *it = &d->b->items[0];
	if (!it->rowkey || e->kind != EX_BINARY ||
	    (e->op != OP_EQ && e->op != OP_LT && e->op != OP_LE && e->op != OP_GT &&
	     e->op != OP_GE))
		return 0;
	const Expr *c = e->left->kind == EX_COLUMN ? e->left : e->right;
	const Expr *v = c == e->left ? e->right : e->left;
	if (c->kind != EX_COLUMN || v->kind != EX_LITERAL || v->lit != LIT_INTEGER)
		return 0;
	char *name = ast_name_value(d->ex->a, c->name);
	if (!name || !str_ieq(name, it->rowkey))
		return 0;
	if (c->table.n) {
		char *t = ast_name_value(d->ex->a, c->table);
		return t && str_ieq(t, it->name);
	}
	return 1;
}

/* NOT FALSE: coalesce(e, 1 = 1) */
static Expr *not_false(Exec *ex, Expr *e)
{
	Expr *args[2] = {e, ast_binary(ex->a, OP_EQ, ast_integer(ex->a, 1), ast_integer(ex->a, 1))};
	return ast_func(ex->a, "coalesce", 2, args);
}

static Expr *and_expr(Exec *ex, Expr *l, Expr *r)
{
	return l ? ast_binary(ex->a, OP_AND, l, r) : r;
}

/* Occurrence i's distinct texts over the rows where holds, each evaluated now (one call,
   on demand) unless the memo has it. */
static SuqlStatus eval_occ(Dml *d, int i, Expr *holds, SuqlErr *err)
{
	Exec *ex = d->ex;
	const Occ *o = &ex->occ[i];
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, exec_pg_plan_text(ex, o->arg), "suql_arg");
	Select *s = exec_select(ex, d->b, cols, holds, NULL);
	s->cores[0]->from = d->from;
	char *sql = exec_print_select(ex, s);
	StoreCursor *c;
	SuqlStatus r = exec_pg_plan_query(ex, sql, &c, err);
	free(sql);
	if (r != SUQL_OK)
		return r;
	int rc;
	while (r == SUQL_OK && (rc = store_next(c)) > 0) {
		const char *t = store_text(c, 0);
		if (!t || memo_get(ex->memo, o->sig, t, strlen(t)))
			continue;
		MemoVal *mv;
		r = exec_llm_one(ex, o->sig, t, strlen(t), &mv, err);
		if (suql_interrupted && r == SUQL_OK)
			r = err_set(err, SUQL_INTERRUPT, "interrupted");
	}
	if (r == SUQL_OK && rc < 0)
		r = err_set(err, SUQL_ERROR, "reading the rows of the statement failed");
	store_done(c);
	return r;
}

SuqlStatus exec_pg_dml_final(Exec *ex, SuqlErr *err)
{
	const Stmt *st = ex->ast->stmt;
	Dml d = {0};
	d.ex = ex;
	d.b = exec_dml_block(ex);
	d.from = dml_from(ex);
	if (st->where)
		conj_flatten(&d, st->where);
	SuqlStatus s = SUQL_OK;
	/* 1. the WHERE, left to right, within the rowid range SQLite scans */
	Expr *before = NULL;
	for (int k = 0; k < d.nconj; k++)
		if (rowkey_range(&d, d.conj[k]))
			before = and_expr(ex, before, d.conj[k]);
	for (int k = 0; k < d.nconj && s == SUQL_OK; k++) {
		for (int i = 0; i < ex->nocc && s == SUQL_OK; i++)
			if (ex->occ[i].block == d.b->id && occ_in(&ex->occ[i], d.conj[k]))
				s = eval_occ(&d, i, before, err);
		before = and_expr(ex, before, not_false(ex, d.conj[k]));
	}
	/* 2. SET and RETURNING, for the rows the WHERE keeps */
	for (int i = 0; i < ex->nocc && s == SUQL_OK; i++) {
		if (ex->occ[i].block != d.b->id || (st->where && occ_in(&ex->occ[i], st->where)))
			continue;
		s = eval_occ(&d, i, st->where, err);
	}
	/* all or nothing: a reply that could not be read (unless llm.unreadable is warn)
	   stops the statement before it changes anything */
	if (s == SUQL_OK && ex->unread && llm_unreadable_fails(ex->e->llm))
		s = err_set(err, SUQL_LLM, "%ld of the model's replies could not be read (see the "
		            "warning): nothing was changed; :set llm.unreadable warn to run the "
		            "statement with those values NULL", ex->unread);
	/* 3. the statement */
	if (s == SUQL_OK) {
		Printer *pr = exec_pg_plan_print_final(ex, NULL);
		int n;
		char **v = exec_pg_plan_params(ex, &n, err);
		s = v ? exec_pg_rows_run(ex, print_text(pr), (const char *const *)v, n, NULL, 0, err)
		      : SUQL_ERROR;
		s = exec_pg_plan_place(ex, pr, s, err);
		exec_pg_plan_params_free(v, n);
		print_free(pr);
	}
	free(d.conj);
	return s;
}
