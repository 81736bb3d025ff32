/*
 * dialect.c: the two backends as rows of one table (engine_int.h: Dialect). The engine
 * asks a statement's dialect what it may do (a retrieval index of suql's own, windowed
 * reads, embeddings, the fast path, rows read again by their ids) and how to write its
 * own SQL (TRUE, where ENUM mappings live, the text of a free-text argument), instead of
 * testing which backend runs. engine.c sets it when the database opens.
 */
#include "engine/engine_int.h"
#include "engine/sql_int.h"

static Expr *as_written(Exec *ex, Expr *arg)
{
	(void)ex;
	return arg;
}

static Expr *sqlite_row_id(Exec *ex, const ScopeItem *it)
{
	return ast_column(ex->a, it->name, it->kind == IT_TABLE ? "rowid" : "id");
}

/* Rows come in rowid order by themselves. */
static OrderList *sqlite_order(Exec *ex, Block *b, OrderList *ord)
{
	(void)ex, (void)b;
	return ord;
}

static Expr *pg_row_id(Exec *ex, const ScopeItem *it)
{
	return it->kind == IT_TABLE ? exec_pg_plan_rowid(ex, it)
	                            : ast_column(ex->a, it->name, "suql_ord");
}

const Dialect dialect_sqlite = {
	.name = "sqlite",
	.true_lit = "1",
	.enum_map = "suql_enum_map",
	.retrieval = 1,
	.window = 1,
	.embeddings = 1,
	.fast_path = 1,
	.refetch = 1,
	.only_ints = 0,
	.arrays = 0,
	.func_ids = 1,
	.row_calls = 1,
	.text_of = as_written,
	.row_id = sqlite_row_id,
	.list_order = sqlite_order,
	.final_count = NULL,
};

const Dialect dialect_pg = {
	.name = "postgresql",
	.true_lit = "TRUE",
	.enum_map = "suql.enum_map",
	.retrieval = 0,
	.window = 0,
	.embeddings = 0,
	.fast_path = 0,
	.refetch = 0,
	.only_ints = 1,
	.arrays = 1,
	.func_ids = 0,
	.row_calls = 0,
	.text_of = exec_pg_plan_text,
	.row_id = pg_row_id,
	.list_order = exec_pg_plan_order,   /* keys or ctids after the ORDER BY */
	.final_count = exec_pg_plan_count,
};
