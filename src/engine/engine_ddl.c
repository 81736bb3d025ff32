/*
 * engine_ddl.c: DDL keeps the catalog of SUQL types in step, on either backend (each
 * backend's row runs the statement, inside a savepoint or transaction of its own, and
 * calls this after it, top_int.h): CREATE TABLE records the SUQL column types, DROP TABLE
 * forgets them, ALTER TABLE RENAME / ADD COLUMN / DROP COLUMN follow.
 *
 * Views with free text are kept in suql's catalog with their text as written
 * (CATALOG_VIEW), so that a statement reading one expands it (bind_view.c): CREATE VIEW
 * of such a query (engine_ddl_view; on SQLite the database stores the view too, with
 * suql's self-contained functions; the PostgreSQL server cannot store a query that calls
 * answer(), so there the catalog's row is the view), DROP VIEW removes the row.
 */
#include "engine/bind_int.h"
#include "engine/top_int.h"

#include <stdlib.h>
#include <string.h>

/* PostgreSQL's retrieval index (exec_pg_index.c) follows its table: dropped with it, or
   renamed (to NULL: dropped). SQLite's follows by itself (retrieve/). */
static SuqlStatus ret_index_follow(Engine *e, const char *table, const char *to, SuqlErr *err)
{
	if (e->dialect->functions || !table || !store_has_table(e->store, "suql.ret_index"))
		return SUQL_OK;
	const char *args[] = {table, to};
	if (to)
		return store_run(e->store, "UPDATE suql.ret_index SET tbl = $2 WHERE tbl = $1", args, 2,
		                 err);
	SuqlStatus s = store_run(e->store, "DELETE FROM suql.ret_psg WHERE idx IN (SELECT id FROM "
	                         "suql.ret_index WHERE tbl = $1)", args, 1, err);
	if (s == SUQL_OK)
		s = store_run(e->store, "DELETE FROM suql.ret_term WHERE idx IN (SELECT id FROM "
		              "suql.ret_index WHERE tbl = $1)", args, 1, err);
	if (s == SUQL_OK)
		s = store_run(e->store, "DELETE FROM suql.ret_index WHERE tbl = $1", args, 1, err);
	return s;
}

/* Catalog work after a DDL statement ran (inside the savepoint). */
SuqlStatus engine_ddl_catalog(Engine *e, const Ast *ast, int existed, SuqlErr *err)
{
	const Stmt *st = ast->stmt;
	Arena *a = ast->arena;
	const char *table = st->table.s ? ast_name_value(a, st->table) : NULL;
	switch (st->kind) {
	case ST_CREATE_TABLE:
		if (existed || !st->cols)
			return SUQL_OK;
		for (int i = 0; i < st->cols->n; i++) {
			const ColumnDef *c = st->cols->items[i];
			if (!c->type || !c->type->suql)
				continue;
			SuqlStatus s = catalog_set(e->store, table, ast_name_value(a, c->name),
			                           c->type->text, err);
			if (s != SUQL_OK)
				return s;
		}
		return SUQL_OK;
	case ST_DROP_TABLE: {
		SuqlStatus s = ret_index_follow(e, table, NULL, err);
		return s == SUQL_OK ? catalog_drop_table(e->store, table, err) : s;
	}
	case ST_ALTER_TABLE: {
		CatColumn c = {0};
		SuqlStatus s = SUQL_OK;
		switch (st->alter) {
		case ALTER_RENAME_TABLE:
			s = ret_index_follow(e, table, ast_name_value(a, st->newname), err);
			return s == SUQL_OK ? catalog_rename_table(e->store, table,
			                                           ast_name_value(a, st->newname), err)
			                    : s;
		case ALTER_ADD_COLUMN:
			if (st->coldef->type && st->coldef->type->suql)
				s = catalog_set(e->store, table, ast_name_value(a, st->coldef->name),
				                st->coldef->type->text, err);
			return s;
		case ALTER_RENAME_COLUMN:
			if (catalog_get(e->store, table, ast_name_value(a, st->column), &c) == 1) {
				char *type = xstrdup(c.type);
				s = catalog_set(e->store, table, ast_name_value(a, st->newname), type, err);
				if (s == SUQL_OK)   /* a plain type removes the old entry */
					s = catalog_set(e->store, table, ast_name_value(a, st->column), "TEXT", err);
				free(type);
				catalog_column_free(&c);
			}
			return s;
		case ALTER_DROP_COLUMN:
			if (catalog_get(e->store, table, ast_name_value(a, st->column), &c) == 1) {
				catalog_column_free(&c);
				s = catalog_set(e->store, table, ast_name_value(a, st->column), "TEXT", err);
			}
			return s;
		default:
			return SUQL_OK;
		}
	}
	case ST_OTHER:
		if (st->drop_view && table)
			return catalog_prop_set(e->store, table, CATALOG_VIEW, NULL, err);
		return SUQL_OK;
	default:
		return SUQL_OK;
	}
}

int engine_ddl_needs_catalog(const Stmt *st)
{
	if (st->explain)
		return 0;
	if (st->kind == ST_CREATE_TABLE)
		return st->has_suql && st->cols;
	return st->kind == ST_DROP_TABLE || st->kind == ST_ALTER_TABLE ||
	       (st->kind == ST_OTHER && st->drop_view);
}

int engine_ddl_view_only(Engine *e, const Ast *ast)
{
	const Stmt *st = ast->stmt;
	if (st->kind != ST_OTHER || !st->drop_view || st->explain || e->dialect->functions)
		return 0;
	const char *name = ast_name_value(ast->arena, st->table);
	char *text = NULL;
	int kept = catalog_view_get(e->store, name, &text);
	free(text);
	return kept && !store_has_table(e->store, name);
}

int engine_ddl_view_keeps(Exec *ex)
{
	const Stmt *st = ex->ast->stmt;
	return st->kind == ST_CREATE_VIEW && !st->explain && (ex->nocc > 0 || bind_view_reads(ex));
}

/* SQLite: a table or view of that name is there (CREATE VIEW IF NOT EXISTS leaves it). */
static int view_there(Engine *e, const char *name)
{
	const char *args[] = {name};
	StoreCursor *c;
	int hit = 0;
	if (store_query(e->store, "SELECT 1 FROM sqlite_schema WHERE type IN ('table', 'view') "
	                "AND lower(name) = lower(?1)", args, 1, &c, NULL) == SUQL_OK) {
		hit = store_next(c) > 0;
		store_done(c);
	}
	return hit;
}

SuqlStatus engine_ddl_view(Exec *ex, const Backend *be, SuqlErr *err)
{
	Engine *e = ex->e;
	const Stmt *st = ex->ast->stmt;
	const char *name = ast_name_value(ex->a, st->table);
	int own = e->dialect->functions;   /* the database stores the view too */
	if (st->temp) {
		if (!own)
			return err_set(err, SUQL_ERROR, "a TEMP view with free text cannot be kept on "
			               "PostgreSQL (its server cannot store a query that calls answer()): "
			               "make it without TEMP, and suql keeps it in its catalog");
		return be->final(ex, 0, err);   /* SQLite's temp view, read row by row */
	}
	char *old = NULL;
	int kept = catalog_view_get(e->store, name, &old);
	free(old);
	int exists = own ? view_there(e, name) : store_has_table(e->store, name);
	if (own) {
		SuqlStatus s = be->final(ex, 0, err);
		if (s != SUQL_OK || exists)   /* IF NOT EXISTS of one that is there: as it was */
			return s;
	} else if (exists || kept) {
		if (st->if_not_exists)
			return SUQL_OK;
		return err_at(err, SUQL_ERROR, ex->sql, ex->len, st->table.off, st->table.n, NULL,
		              "relation \"%s\" already exists%s", name,
		               kept && !exists ? " (a view with free text, kept in suql's catalog)"
		                               : "");
	}
	if (e->readonly)
		return exec_refused(e, err);
	char *text = xstrndup(ex->sql + st->span.off, st->span.len);
	SuqlStatus s = catalog_prop_set(e->store, name, CATALOG_VIEW, text, err);
	free(text);
	return s;
}
