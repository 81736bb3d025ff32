/*
 * exec_pg_plan.c: a free-text SELECT on PostgreSQL that is not a plain AND of verify
 * atoms (exec_pg_walk.c runs those): free text under OR or NOT, typed and constrained
 * answers in WHERE, free text in ORDER BY, GROUP BY, HAVING, aggregates and inside
 * expressions of the result columns, in subqueries and CTEs that are not correlated.
 *
 * It runs the SQLite backend's own planner and walk (plan.c, plan_unit.c, exec_walk.c,
 * exec_final.c's evaluation ahead), so the units, waves, batches and calls are theirs;
 * only the statements they run go to Postgres, printed PRINT_PG through
 * exec_pg_plan_hook:
 *
 *  - an occurrence (the suql_* call bind_occ_mutate put in its place) becomes a look-up
 *    of its value in two arrays bound as parameters, the texts it was evaluated for and
 *    the results: ($2::boolean[])[array_position($1::text[], <the argument's text>)],
 *    cast as a typed answer is. This is the memo read by
 *    SQLite's functions, moved into the statement: keyed by the text, it works wherever
 *    the occurrence stands (WHERE, ORDER BY, GROUP BY, a CTE) and a text not evaluated
 *    reads NULL, as a planned miss does in SQLite. The values are parameters of
 *    PQexecParams, never text in the SQL;
 *  - the rows a lazy walk passed are kept to in the final statement by their ctid
 *    (t.ctid = ANY($n::tid[])), as SQLite keeps to their rowids;
 *  - a row's identity in a walk is its ctid as a number (block * 65536 + offset), an
 *    unnest() element's its ordinality (the item is printed WITH ORDINALITY, its number
 *    named suql_ord), and its texts come with the candidates (Postgres is not asked again
 *    per candidate).
 *
 * Projection last runs the final statement twice in the statement's snapshot: first for
 * the texts of the rows returned (evaluated in batches, as SQLite does from its temp
 * table), then with those values bound.
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum PpKind { PP_KEYS, PP_VALS, PP_KEEP } PpKind;

struct PgParam {
	int kind;             /* PpKind */
	int x;                /* PP_KEYS, PP_VALS: the signature; PP_KEEP: the block */
};

/* Per Exec: the parameters of the statement printed last, and the printing state. */
typedef struct PgState {
	PgBind b;
	int final;            /* printing the final statement: walked blocks keep to their rows */
	const Expr *inside;   /* the WHERE being printed by the keep rule itself */
} PgState;

static PgState *state(Exec *ex)
{
	if (!ex->pgb)
		ex->pgb = xcalloc(1, sizeof(PgState));   /* PgBind is its first member */
	return (PgState *)(void *)ex->pgb;
}

void exec_pg_plan_free(Exec *ex)
{
	if (!ex->pgb)
		return;
	free(ex->pgb->p);
	free(ex->pgb);
	ex->pgb = NULL;
}

static int param(Exec *ex, int kind, int x)
{
	PgBind *pb = &state(ex)->b;
	for (int i = 0; i < pb->n; i++)
		if (pb->p[i].kind == kind && pb->p[i].x == x)
			return i + 1;
	pb->p = xrealloc(pb->p, ((size_t)pb->n + 1) * sizeof *pb->p);
	pb->p[pb->n].kind = kind;
	pb->p[pb->n].x = x;
	return ++pb->n;
}

/* The Postgres type a typed answer converts to (SQLite's CAST AS INTEGER is 64-bit). */
static const char *pg_type(PgType pg)
{
	switch (pg) {
	case PGT_DATE: return "date";
	case PGT_TIMESTAMP: return "timestamp";
	case PGT_TIME: return "time";
	case PGT_INT: return "bigint";
	case PGT_REAL: return "double precision";
	case PGT_NUMERIC: return "numeric";
	case PGT_BOOL: return "boolean";
	default: return NULL;
	}
}

static void pr_lookup(Exec *ex, Printer *pr, const Occ *o)
{
	const Sig *s = &ex->sigs[o->sig];
	const char *type = s->kind == FT_ANSWER ? pg_type(s->pg) : NULL;
	int k = param(ex, PP_KEYS, o->sig), v = param(ex, PP_VALS, o->sig);
	char buf[160];
	if (type)
		print_raw(pr, "CAST(");
	snprintf(buf, sizeof buf, "($%d::%s[])[array_position($%d::text[], ", v,
	         s->kind == FT_VERIFY ? "boolean" : "text", k);
	print_raw(pr, buf);
	exec_pg_walk_text(pr, o->arg);
	print_raw(pr, ")]");
	if (type) {
		print_raw(pr, " AS ");
		print_raw(pr, type);
		print_raw(pr, ")");
	}
}

int exec_pg_plan_hook(void *ctx, Printer *pr, const Expr *e)
{
	Exec *ex = ctx;
	PgState *ps = state(ex);
	if (e->kind == EX_FUNC && e->list && e->list->n == 1) {
		Expr *x = e->list->items[0];
		if (ast_name_is(e->name, "suql_pg_text")) {
			exec_pg_walk_text(pr, x);
			return 1;
		}
		if (ast_name_is(e->name, "suql_pg_rowid")) {
			print_raw(pr, "((");
			print_expr(pr, x);
			print_raw(pr, "::text::point)[0]::bigint * 65536 + (");
			print_expr(pr, x);
			print_raw(pr, "::text::point)[1]::bigint)");
			return 1;
		}
	}
	for (int i = 0; i < ex->nocc; i++)
		if (e == ex->occ[i].call && ex->occ[i].sig >= 0) {
			pr_lookup(ex, pr, &ex->occ[i]);
			return 1;
		}
	if (!ps->final || e == ps->inside)
		return 0;
	for (int i = 0; i < ex->nblocks; i++) {
		const Block *b = &ex->blocks[i];
		if (!b->keep_on || !b->core || b->core->where != e || !b->executed)
			continue;
		const Expr *saved = ps->inside;
		ps->inside = e;
		print_raw(pr, "(");
		print_expr(pr, e);
		ps->inside = saved;
		SBuf q = SBUF_INIT;
		sb_puts(&q, ") AND ");
		sb_put_ident(&q, b->items[0].name, strlen(b->items[0].name));
		sb_printf(&q, ".ctid = ANY($%d::tid[])", param(ex, PP_KEEP, i));
		print_raw(pr, sb_str(&q));
		sb_free(&q);
		return 1;
	}
	return 0;
}

int exec_pg_plan_from(void *ctx, Printer *pr, const FromItem *f)
{
	(void)ctx;
	if (f->kind != FROM_UNNEST || !f->args || f->args->n != 1)
		return 0;
	print_name(pr, f->name);
	print_raw(pr, "(");
	print_expr(pr, f->args->items[0]);
	print_raw(pr, ") WITH ORDINALITY AS ");
	AstName t = f->alias.s ? f->alias : f->name;
	print_name(pr, t);
	print_raw(pr, "(");
	print_name(pr, f->alias_cols && f->alias_cols->n ? f->alias_cols->items[0] : t);
	print_raw(pr, ", suql_ord)");
	return 1;
}

Expr *exec_pg_plan_text(Exec *ex, Expr *arg)
{
	return ast_func(ex->a, "suql_pg_text", 1, &arg);
}

Expr *exec_pg_plan_rowid(Exec *ex, const char *item)
{
	Expr *c = ast_column(ex->a, item, "ctid");
	return ast_func(ex->a, "suql_pg_rowid", 1, &c);
}

OrderList *exec_pg_plan_order(Exec *ex, Block *b, OrderList *ord)
{
	if (!b->identity)
		return ord;
	OrderList *o = arena_alloc(ex->a, sizeof *o);
	o->cap = (ord ? ord->n : 0) + b->nitems;
	o->items = arena_alloc(ex->a, (size_t)o->cap * sizeof *o->items);
	for (int i = 0; ord && i < ord->n; i++)
		o->items[o->n++] = ord->items[i];
	for (int i = 0; i < b->nitems; i++) {
		OrderTerm *t = arena_alloc(ex->a, sizeof *t);
		t->expr = ast_column(ex->a, b->items[i].name,
		                     b->items[i].kind == IT_UNNEST ? "suql_ord" : "ctid");
		o->items[o->n++] = t;
	}
	return o;
}

/* ---- the parameters' values ---- */

static void put_elem(SBuf *b, const char *v)
{
	if (!v) {
		sb_puts(b, "NULL");
		return;
	}
	sb_putc(b, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(b, '\\');
		sb_putc(b, *p);
	}
	sb_putc(b, '"');
}

/* One parameter as a Postgres array literal: the memo's texts for a signature, their
   results (in the same order), or the ctids a walk kept. */
static char *param_value(Exec *ex, const struct PgParam *pp)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '{');
	int first = 1;
	if (pp->kind == PP_KEEP) {
		const Block *bl = &ex->blocks[pp->x];
		for (long i = 0; i < bl->nkeep; i++) {
			char t[48];
			long long id = bl->keep[i];
			snprintf(t, sizeof t, "(%lld,%lld)", id / 65536, id % 65536);
			if (!first)
				sb_putc(&b, ',');
			first = 0;
			put_elem(&b, t);
		}
	} else {
		size_t pos = 0;
		int sig;
		const char *text;
		const MemoVal *mv;
		const Sig *s = &ex->sigs[pp->x];
		while (memo_next(ex->memo, &pos, &sig, &text, &mv)) {
			if (sig != pp->x)
				continue;
			if (!first)
				sb_putc(&b, ',');
			first = 0;
			if (pp->kind == PP_KEYS)
				put_elem(&b, text);
			else if (s->kind == FT_VERIFY)
				sb_puts(&b, mv->verdict == VERDICT_YES ? "t" : mv->verdict == VERDICT_NO
				                                               ? "f" : "NULL");
			else
				put_elem(&b, mv->value);
		}
	}
	sb_putc(&b, '}');
	return sb_steal(&b);
}

static char **params_of(Exec *ex, int *n)
{
	PgBind *pb = &state(ex)->b;
	char **v = xcalloc((size_t)pb->n + 1, sizeof *v);
	for (int i = 0; i < pb->n; i++)
		v[i] = param_value(ex, &pb->p[i]);
	*n = pb->n;
	return v;
}

static void params_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

SuqlStatus exec_pg_plan_query(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err)
{
	int n;
	char **v = params_of(ex, &n);
	SuqlStatus s = store_query(ex->e->store, sql, (const char *const *)v, n, c, err);
	params_free(v, n);
	return s;
}

SuqlStatus exec_pg_plan_try(Exec *ex, const char *sql, StoreCursor **c)
{
	Store *st = ex->e->store;
	*c = NULL;
	if (store_savepoint(st, "suql_try", NULL) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = exec_pg_plan_query(ex, sql, c, NULL);
	if (s != SUQL_OK)
		store_rollback_to(st, "suql_try");
	else
		store_release(st, "suql_try", NULL);
	return s;
}

double exec_pg_plan_sum(StoreCursor *c, int *n)
{
	double sum = 0;
	*n = 0;
	while (store_next(c) > 0) {
		const char *v = store_text(c, 0);
		sum += v ? strtod(v, NULL) : 0;
		(*n)++;
	}
	store_done(c);
	return sum;
}

/* ---- the final statement ---- */

/* The printer holds the text and the map back to the user's (exec_pg_place). */
static Printer *print_final(Exec *ex, const Select *sel)
{
	PgState *ps = state(ex);
	ps->b.n = 0;
	ps->final = 1;
	ps->inside = NULL;
	PrintHooks hk = {ex, exec_pg_plan_hook, exec_pg_plan_from};
	Printer *pr = print_new(PRINT_PG, &hk, ex->ast->src, ex->ast->src_off);
	if (sel)
		print_select(pr, sel);
	else
		print_stmt(pr, ex->ast->stmt);
	ps->final = 0;
	return pr;
}

/* Projection last, the first run: the statement with the projected occurrences' texts
   as more result columns; the distinct texts of each (in the order of the rows) are
   evaluated in batches. */
static SuqlStatus project_texts(Exec *ex, Block *b, SuqlErr *err)
{
	int *occ = NULL, nocc = 0;
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].plan == PL_PROJECT && ex->occ[i].block == b->id) {
			occ = xrealloc(occ, ((size_t)nocc + 1) * sizeof *occ);
			occ[nocc++] = i;
		}
	if (!nocc)
		return SUQL_OK;
	ResultList *cols = NULL;
	for (int i = 0; i < b->core->cols->n; i++) {
		exec_col(ex->a, &cols, NULL, NULL);
		*cols->items[i] = *b->core->cols->items[i];
	}
	for (int k = 0; k < nocc; k++) {
		char al[32];
		snprintf(al, sizeof al, "suql_text%d", k);
		exec_col(ex->a, &cols, exec_pg_plan_text(ex, ex->occ[occ[k]].arg), al);
	}
	SelectCore *c1 = arena_alloc(ex->a, sizeof *c1);
	*c1 = *b->core;
	c1->cols = cols;
	Select *s1 = arena_alloc(ex->a, sizeof *s1);
	*s1 = *b->sel;
	s1->cores = arena_alloc(ex->a, sizeof *s1->cores);
	s1->cores[0] = c1;
	Printer *pr = print_final(ex, s1);
	StoreCursor *c;
	SuqlStatus s = exec_pg_plan_query(ex, print_text(pr), &c, err);
	s = exec_pg_place(ex, pr, s, err);
	print_free(pr);
	Memo **seen = xcalloc((size_t)nocc, sizeof *seen);
	char ***v = xcalloc((size_t)nocc, sizeof *v);
	size_t **len = xcalloc((size_t)nocc, sizeof *len);
	long *n = xcalloc((size_t)nocc, sizeof *n);
	for (int k = 0; k < nocc; k++)
		seen[k] = memo_new();
	int rc = 0;
	while (s == SUQL_OK && (rc = store_next(c)) > 0) {
		int nc = store_column_count(c);
		ex->cnt.project_rows++;
		for (int k = 0; k < nocc; k++) {
			const char *t = store_text(c, nc - nocc + k);
			size_t tl = t ? strlen(t) : 0;
			if (!t || memo_get(seen[k], 0, t, tl))
				continue;
			memo_put(seen[k], 0, t, tl);
			v[k] = xrealloc(v[k], ((size_t)n[k] + 1) * sizeof **v);
			len[k] = xrealloc(len[k], ((size_t)n[k] + 1) * sizeof **len);
			v[k][n[k]] = xstrndup(t, tl);
			len[k][n[k]++] = tl;
		}
	}
	if (s == SUQL_OK) {
		if (rc < 0)
			s = err_set(err, SUQL_ERROR, "reading the rows kept failed");
		store_done(c);
	}
	for (int k = 0; k < nocc; k++) {
		if (s == SUQL_OK) {
			/* the values are taken over (and freed) */
			s = exec_llm_run_values(ex, ex->occ[occ[k]].sig, v[k], len[k], n[k],
			                        &ex->cnt.project_values, err);
		} else {
			for (long i = 0; i < n[k]; i++)
				free(v[k][i]);
			free(v[k]);
			free(len[k]);
		}
		memo_free(seen[k]);
	}
	free(seen);
	free(v);
	free(len);
	free(n);
	free(occ);
	return s;
}

/* The final statement, with every value bound; result columns that hold free text and
   have no name of their own are shown under the name SQLite gives them (their text). */
static SuqlStatus run_final(Exec *ex, SuqlErr *err)
{
	Block *top = NULL;
	for (int i = 0; i < ex->nblocks && !top; i++)
		if (ex->blocks[i].top && ex->blocks[i].core && ex->blocks[i].core->cols)
			top = &ex->blocks[i];
	SuqlStatus s = SUQL_OK;
	if (top && top->sel && top->sel->ncore == 1)
		s = project_texts(ex, top, err);
	PgProj *pj = NULL;
	int npj = 0;
	AstName *saved = NULL;
	SelectCore *core = top ? top->core : NULL;
	if (core) {
		saved = xcalloc((size_t)core->cols->n + 1, sizeof *saved);
		for (int i = 0; i < core->cols->n; i++) {
			ResultCol *rc = core->cols->items[i];
			saved[i] = rc->alias;
			int has = 0;
			for (int k = 0; k < ex->nocc && !has; k++)
				has = ex->occ[k].block == top->id && ex->occ[k].pos == POS_SELECT &&
				      ex->occ[k].result_col == i;
			if (!has || rc->alias.s || rc->expr->kind == EX_STAR)
				continue;
			pj = xrealloc(pj, ((size_t)npj + 1) * sizeof *pj);
			pj[npj].occ = -1;
			snprintf(pj[npj].hidden, sizeof pj[npj].hidden, "suql_col%d", npj);
			pj[npj].shown = xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off),
			                         rc->span.len);
			rc->alias = ast_name_make(ex->a, pj[npj].hidden);
			npj++;
		}
	}
	Printer *pr = print_final(ex, NULL);
	if (core)
		for (int i = 0; i < core->cols->n; i++)
			core->cols->items[i]->alias = saved[i];
	free(saved);
	if (s == SUQL_OK) {
		int n;
		char **v = params_of(ex, &n);
		s = exec_pg_rows_run(ex, print_text(pr), (const char *const *)v, n, pj, npj, err);
		s = exec_pg_place(ex, pr, s, err);
		params_free(v, n);
	}
	print_free(pr);
	for (int k = 0; k < npj; k++)
		free(pj[k].shown);
	free(pj);
	return s;
}

/* ---- the statement ---- */

/* The statement as it will run, planned by the server (EXPLAIN runs nothing, the arrays
   empty): a mistake in it is reported at its place in the user's text before any count
   or call, as SQLite's validation does. */
static SuqlStatus validate(Exec *ex, SuqlErr *err)
{
	Printer *pr = print_final(ex, NULL);
	char *sql = xprintf("EXPLAIN %s", print_text(pr));
	int n = state(ex)->b.n;
	const char **v = xcalloc((size_t)n + 1, sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = "{}";
	StoreCursor *c;
	SuqlStatus s = store_query(ex->e->store, sql, v, n, &c, err);
	if (s == SUQL_OK)
		store_done(c);
	free(v);
	free(sql);
	/* the server's offset counts "EXPLAIN " too */
	s = exec_pg_place_shifted(ex, pr, s, 8, err);
	print_free(pr);
	return s;
}

/* Why the SQLite planner's plan of this statement cannot run here; NULL: it can. */
static const char *unsupported(Exec *ex)
{
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->plan == PL_NONE)
			return "free text evaluated row by row (in a correlated subquery, a recursive "
			       "CTE, JOIN ... ON, or an argument of another answer())";
		if (o->plan == PL_TOPK)
			return "ORDER BY free text with LIMIT (a semantic top-k)";
	}
	return NULL;
}

/* ---- where NULL sorts ----
   SQLite sorts NULL first under ASC and last under DESC, Postgres the other way round. A
   free-text value is NULL when the model gave no answer that could be read; so that such
   rows come in the same place on both backends, an ORDER BY term of the user's that holds
   free text (or names a result column that does) and says nothing of NULLs gets SQLite's
   rule written out (NULLS FIRST under ASC, NULLS LAST under DESC) in what is sent to
   Postgres. Terms over the user's own columns keep Postgres's rule. */

typedef struct NullsScan {
	const Exec *ex;
	int found;
} NullsScan;

static int find_occ(void *ctx, Expr *e)
{
	NullsScan *ns = ctx;
	for (int i = 0; i < ns->ex->nocc; i++)
		if (ns->ex->occ[i].call == e) {
			ns->found = 1;
			return AST_STOP;
		}
	return AST_CONTINUE;
}

static int holds_free_text(const Exec *ex, Expr *e)
{
	NullsScan ns = {ex, 0};
	AstVisitor v = {0};
	v.ctx = &ns;
	v.expr = find_occ;
	if (e)
		ast_visit_expr(e, &v);
	return ns.found;
}

/* The result column of s's first core that the term names by its alias or its number,
   or NULL. */
static Expr *aliased(const Select *s, const Expr *e)
{
	if (!e || !s->ncore || !s->cores[0]->cols)
		return NULL;
	const ResultList *cols = s->cores[0]->cols;
	if (e->kind == EX_LITERAL && e->lit == LIT_INTEGER) {
		long k = strtol(e->name.s, NULL, 10);
		return k >= 1 && k <= cols->n ? cols->items[k - 1]->expr : NULL;
	}
	if (e->kind != EX_COLUMN || e->table.n)
		return NULL;
	for (int i = 0; i < cols->n; i++) {
		AstName a = cols->items[i]->alias;
		if (a.n && ast_name_eq(a, e->name))
			return cols->items[i]->expr;
	}
	return NULL;
}

static int pin_select(void *ctx, Select *s)
{
	const Exec *ex = ctx;
	for (int i = 0; s->order && i < s->order->n; i++) {
		OrderTerm *t = s->order->items[i];
		if (t->nulls == NULLS_NONE &&
		    (holds_free_text(ex, t->expr) || holds_free_text(ex, aliased(s, t->expr))))
			t->nulls = t->dir == SORT_DESC ? NULLS_LAST : NULLS_FIRST;
	}
	return AST_CONTINUE;
}

static void pin_nulls(Exec *ex)
{
	AstVisitor v = {0};
	v.ctx = ex;
	v.select = pin_select;
	ast_visit_stmt(ex->ast->stmt, &v);
}

const char *exec_pg_plan_run(Exec *ex, SuqlStatus *out, SuqlErr *err)
{
	const Stmt *st = ex->ast->stmt;
	const EngineSink *sink = ex->sink;
	*out = SUQL_OK;
	/* INSERT ... SELECT runs as a SELECT does (its rows are the final statement's);
	   UPDATE and DELETE judge per row, CREATE ... AS takes no parameters in Postgres */
	if ((st->kind != ST_SELECT && st->kind != ST_INSERT) || st->explain)
		return "free text in a statement other than SELECT and INSERT ... SELECT (UPDATE, "
		       "DELETE, CREATE ... AS, views)";
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].sig < 0)
			return "a question that is not a literal";
	for (int i = 0; i < ex->nblocks; i++)
		for (int k = 0; ex->blocks[i].nocc > 0 && k < ex->blocks[i].nitems; k++)
			if (ex->blocks[i].items[k].kind == IT_FUNC)
				return "free text over a function in FROM other than unnest()";
	if (ex->set.cascade_target > 0)
		return "a cascade (llm.cascade_target)";
	bind_occ_mutate(ex);
	memo_keep_texts(ex->memo);
	SuqlStatus s = validate(ex, err);
	if (s != SUQL_OK) {
		*out = s;
		return NULL;
	}
	s = plan_statement(ex, err);
	if (s != SUQL_OK) {
		*out = s;
		return NULL;
	}
	const char *why = unsupported(ex);
	if (why)
		return why;
	plan_exec(ex);
	pin_nulls(ex);
	plan_show(ex, &ex->plan);
	if (sink && sink->plan)
		sink->plan(sink->ctx, sb_str(&ex->plan));
	sb_truncate(&ex->plan, 0);
	if (ex->set.budget > 0 && ex->expect_total > ex->set.budget) {
		*out = exec_over_budget(ex, err);
		return NULL;
	}
	int *order = plan_order(ex);
	for (int i = 0; i < ex->nblocks && s == SUQL_OK; i++) {
		Block *b = &ex->blocks[order[i]];
		if (b->planned)
			s = exec_walk_block(ex, b, err);
		if (s == SUQL_OK && b->exec && b->core && !b->correlated)
			s = exec_final_ahead(ex, b, err);
	}
	free(order);
	if (s == SUQL_OK)
		s = run_final(ex, err);
	*out = s;
	return NULL;
}
