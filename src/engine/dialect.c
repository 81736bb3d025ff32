/*
 * dialect.c: the two backends as rows of one table (engine_int.h: Dialect). The engine
 * asks a statement's dialect what it may do (a retrieval index of suql's own, windowed
 * reads, embeddings, the fast path, rows read again by their ids, suql's functions in the
 * backend), how to write its own SQL (TRUE, where ENUM mappings live, the text of a
 * free-text argument, the printing mode) and how to run it and keep what it keeps (the
 * engine's statements, what the catalog says of a table, ENUM's map), instead of testing
 * which backend runs. engine.c sets it when the database opens. The entries of a line or
 * two are here; the longer ones are each backend's file's (dialect_sqlite.c,
 * dialect_pg.c), and PostgreSQL's printing is exec_pg_plan.c's.
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

static void sqlite_show_final(Exec *ex, SBuf *out)
{
	Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sb_printf(out, "sqlite: %s\n", print_text(pr));
	print_free(pr);
}

/* SQLite's DISTINCT keeps each value at its first row by itself. */
static void as_listed(Exec *ex, Select *s, const ScopeItem *it, Expr *v)
{
	(void)ex, (void)s, (void)it, (void)v;
}

static Expr *integer_truth(Exec *ex, int v)
{
	return ast_integer(ex->a, v);
}

static Expr *pg_row_id(Exec *ex, const ScopeItem *it)
{
	return it->kind == IT_TABLE ? exec_pg_plan_rowid(ex, it)
	                            : ast_column(ex->a, it->name, "suql_ord");
}

static Expr *boolean_truth(Exec *ex, int v)
{
	return ast_binary(ex->a, OP_EQ, ast_integer(ex->a, 1), ast_integer(ex->a, v));
}

/* A text's bytes: SQLite's length() counts characters, a blob's length its bytes. */
static char *sqlite_text_stats(const char *inner, long long cap)
{
	return xprintf("SELECT count(*), count(suql_arg), count(DISTINCT suql_arg), "
	               "sum(min(length(CAST(suql_arg AS BLOB)), %lld)), "
	               "max(min(length(CAST(suql_arg AS BLOB)), %lld)) FROM (%s) AS suql_t",
	               cap, cap, inner);
}

static char *pg_text_stats(const char *inner, long long cap)
{
	return xprintf("SELECT count(*), count(suql_arg), count(DISTINCT suql_arg), "
	               "sum(least(octet_length(suql_arg), %lld)), "
	               "max(least(octet_length(suql_arg), %lld)) FROM (%s) AS suql_t",
	               cap, cap, inner);
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
	.scan_order = 1,
	.functions = 1,
	.text_of = as_written,
	.row_id = sqlite_row_id,
	.list_order = sqlite_order,
	.final_count = NULL,
	.print_select = exec_print_sqlite,
	.query = exec_query_sqlite,
	.try_query = exec_try_sqlite,
	.show_final = sqlite_show_final,
	.distinct_order = as_listed,
	.truth = integer_truth,
	.rows_by_id = dialect_sqlite_rows_by_id,
	.text_stats = sqlite_text_stats,
	.table_facts = dialect_sqlite_table,
	.schema_key = dialect_sqlite_schema_key,
	.enum_values = dialect_sqlite_enum_values,
	.enum_has = dialect_sqlite_enum_has,
	.map_foreign = dialect_sqlite_map_foreign,
	.map_open = dialect_sqlite_map_open,
	.map_read = dialect_sqlite_map_read,
	.map_close = dialect_sqlite_map_close,
	.map_write = dialect_sqlite_map_write,
	.map_forget = dialect_sqlite_map_forget,
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
	.scan_order = 0,
	.functions = 0,
	.text_of = exec_pg_plan_text,
	.row_id = pg_row_id,
	.list_order = exec_pg_plan_order,   /* keys or ctids after the ORDER BY */
	.final_count = exec_pg_plan_count,
	.print_select = exec_pg_plan_print_select,
	.unbind = exec_pg_plan_unbind,
	.query = exec_pg_plan_query,
	.try_query = exec_pg_plan_try,
	.show_final = dialect_pg_show_final,
	.distinct_order = dialect_pg_distinct,
	.truth = boolean_truth,
	.rows_by_id = dialect_pg_rows_by_id,
	.text_stats = pg_text_stats,
	.table_facts = dialect_pg_table,
	.schema_key = dialect_pg_schema_key,
	.enum_values = dialect_pg_enum_values,
	.enum_has = dialect_pg_enum_has,
	.map_foreign = dialect_pg_map_foreign,
	.map_open = dialect_pg_map_open,
	.map_read = dialect_pg_map_read,
	.map_close = dialect_pg_map_close,
	.map_write = dialect_pg_map_write,
	.map_forget = dialect_pg_map_forget,
};
