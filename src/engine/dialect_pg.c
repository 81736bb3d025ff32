/*
 * dialect_pg.c: PostgreSQL's entries of its Dialect row (dialect.c) that are more than a
 * line: the plan's lines of the final statement, and a join side's distinct values listed
 * in SQLite's order. The SQL it prints for the planner and the walks is exec_pg_plan.c's.
 */
#include "engine/sql_int.h"

#include <stdlib.h>
#include <string.h>

void dialect_pg_show_final(Exec *ex, SBuf *out)
{
	exec_pg_plan_show_identity(ex, out);
	/* the final statement, its free text read from the values bound as $1... */
	PrintHooks hk = {ex, exec_pg_plan_hook, exec_pg_plan_from};
	Printer *pr = print_new(PRINT_PG, &hk, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sb_printf(out, "postgresql, the values suql evaluates bound as arrays: %s\n",
	          print_text(pr));
	print_free(pr);
}

/* A table's distinct values in the order SQLite lists them (it scans the table by rowid
   and keeps each value's first row): grouped, ordered by the first row's integer primary
   key (SQLite's rowid) or ctid. The order is that of the requests, and of a lazy LIMIT's
   waves. */
void dialect_pg_distinct(Exec *ex, Select *s, const ScopeItem *it, Expr *v)
{
	if (it->kind != IT_TABLE || (!it->rowkey && !it->rowid))
		return;   /* a view's rows have no ctid: Postgres's order */
	Expr *key = exec_pg_plan_rowid(ex, it);
	OrderList *ord = arena_alloc(ex->a, sizeof *ord);
	ord->cap = 1;
	ord->items = arena_alloc(ex->a, sizeof *ord->items);
	OrderTerm *t = arena_alloc(ex->a, sizeof *t);
	t->expr = ast_func(ex->a, "min", 1, &key);
	ord->items[ord->n++] = t;
	s->order = ord;
	s->cores[0]->distinct = DISTINCT_NONE;
	s->cores[0]->group = NULL;
	ast_list_push(ex->a, &s->cores[0]->group, v);
}

