/*
 * engine_ddl.c: DDL keeps the catalog of SUQL types in step, on either backend (each
 * backend's row runs the statement, inside a savepoint or transaction of its own, and
 * calls this after it, top_int.h): CREATE TABLE records the SUQL column types, DROP TABLE
 * forgets them, ALTER TABLE RENAME / ADD COLUMN / DROP COLUMN follow.
 */
#include "engine/top_int.h"

#include <stdlib.h>

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
	case ST_DROP_TABLE:
		return catalog_drop_table(e->store, table, err);
	case ST_ALTER_TABLE: {
		CatColumn c = {0};
		SuqlStatus s = SUQL_OK;
		switch (st->alter) {
		case ALTER_RENAME_TABLE:
			return catalog_rename_table(e->store, table, ast_name_value(a, st->newname), err);
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
	return st->kind == ST_DROP_TABLE || st->kind == ST_ALTER_TABLE;
}
