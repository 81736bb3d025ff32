/*
 * bind_scope.c: what names a FROM item brings into scope, for the binder (bind.c).
 *
 * A table or view: its columns from PRAGMA table_info, and whether it is a rowid table
 * (its rows can be fetched again and ranked by the retrieval index). A CTE or a subquery:
 * the names of its first SELECT's result columns (an alias, a column's own name, the
 * columns a star stands for, else the text as written, as SQLite names them). unnest(x)
 * AS e: the element e and json_each's columns (key, value, ...), as the translation to
 * json_each makes them visible. A table-valued function: json_each/json_tree's columns,
 * any other's unknown (any name may be one of them).
 *
 * Table facts and catalog rows are looked up once per statement (TabInfo).
 */
#include "exec_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const JSON_COLS[] = {
	"key", "value", "type", "atom", "id", "parent", "fullkey", "path", "json", "root",
};
#define NJSON ((int)(sizeof JSON_COLS / sizeof *JSON_COLS))

static void push_col(char ***v, int *n, const char *s)
{
	*v = xrealloc(*v, ((size_t)*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

TabInfo *scope_table(Exec *ex, const char *name)
{
	for (int i = 0; i < ex->ntabs; i++)
		if (str_ieq(ex->tabs[i].name, name))
			return &ex->tabs[i];
	if (ex->ntabs == ex->captabs) {
		ex->captabs = ex->captabs ? ex->captabs * 2 : 8;
		ex->tabs = xrealloc(ex->tabs, (size_t)ex->captabs * sizeof *ex->tabs);
	}
	TabInfo *t = &ex->tabs[ex->ntabs++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(ex->db, "SELECT type, sql FROM sqlite_schema WHERE name = ?1 "
	                       "COLLATE NOCASE AND type IN ('table', 'view')", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *type = (const char *)sqlite3_column_text(st, 0);
			const char *sql = (const char *)sqlite3_column_text(st, 1);
			t->exists = 1;
			t->rowid = type && strcmp(type, "table") == 0;
			if (t->rowid && sql) {
				/* WITHOUT ROWID tables and virtual tables are not fetched by rowid */
				char *up = xstrdup(sql);
				for (char *p = up; *p; p++)
					if (*p >= 'a' && *p <= 'z')
						*p = (char)(*p - 'a' + 'A');
				if (strstr(up, "WITHOUT") && strstr(up, "ROWID"))
					t->rowid = 0;
				if (strncmp(up, "CREATE VIRTUAL", 14) == 0)
					t->rowid = 0;
				free(up);
			}
		}
		sqlite3_finalize(st);
	}
	if (t->exists) {
		char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", name);
		if (sqlite3_prepare_v2(ex->db, q, -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW)
				push_col(&t->cols, &t->ncols, (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		sqlite3_free(q);
		SuqlErr err = {0};
		CatColumn *cc = NULL;
		int n = 0;
		if (catalog_table(ex->db, name, &cc, &n, &err) == SUQL_OK) {
			t->cat = cc;
			t->ncat = n;
		}
		err_clear(&err);
	}
	return t;
}

const CatColumn *scope_catalog(Exec *ex, const char *table, const char *column)
{
	TabInfo *t = scope_table(ex, table);
	for (int i = 0; i < t->ncat; i++)
		if (str_ieq(t->cat[i].column, column))
			return &t->cat[i];
	return NULL;
}

void scope_tabs_free(Exec *ex)
{
	for (int i = 0; i < ex->ntabs; i++) {
		TabInfo *t = &ex->tabs[i];
		free(t->name);
		for (int k = 0; k < t->ncols; k++)
			free(t->cols[k]);
		free(t->cols);
		catalog_columns_free(t->cat, t->ncat);
	}
	free(ex->tabs);
	ex->tabs = NULL;
	ex->ntabs = ex->captabs = 0;
}

/* The names of a core's result columns, as SQLite would name them. */
static void core_names(Exec *ex, Block *b, char ***v, int *n, int depth)
{
	SelectCore *c = b->core;
	if (!c || !c->cols || depth > 32)
		return;
	for (int i = 0; i < c->cols->n; i++) {
		ResultCol *rc = c->cols->items[i];
		Expr *e = rc->expr;
		if (rc->alias.s) {
			push_col(v, n, ast_name_value(ex->a, rc->alias));
		} else if (e->kind == EX_STAR) {
			for (int k = 0; k < b->nitems; k++) {
				ScopeItem *it = &b->items[k];
				if (e->table.s && !str_ieq(it->name, ast_name_value(ex->a, e->table)))
					continue;
				if (it->ncols == 0 && (it->kind == IT_CTE || it->kind == IT_SUBQUERY))
					scope_item_columns(ex, b, it);
				int lim = it->kind == IT_UNNEST ? 1 + 8 : it->ncols;   /* no json, root */
				for (int j = 0; j < lim && j < it->ncols; j++)
					push_col(v, n, it->cols[j]);
			}
		} else if (e->kind == EX_COLUMN) {
			push_col(v, n, ast_name_value(ex->a, e->name));
		} else if (rc->span.len && ex->ast->src && rc->span.off >= ex->ast->src_off) {
			char *s = xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off), rc->span.len);
			push_col(v, n, s);
			free(s);
		} else {
			push_col(v, n, "?column?");
		}
	}
}

void scope_item_columns(Exec *ex, Block *b, ScopeItem *it)
{
	(void)b;
	switch (it->kind) {
	case IT_TABLE: {
		TabInfo *t = scope_table(ex, it->table);
		if (!t->exists) {
			it->ncols = -1;
			return;
		}
		it->rowid = t->rowid;
		for (int i = 0; i < t->ncols; i++)
			push_col(&it->cols, &it->ncols, t->cols[i]);
		return;
	}
	case IT_CTE:
	case IT_SUBQUERY: {
		/* a CTE with a column list has its names already (the binder copied them) */
		if (it->ncols > 0)
			return;
		if (it->block < 0) {
			it->ncols = -1;
			return;
		}
		core_names(ex, &ex->blocks[it->block], &it->cols, &it->ncols, 0);
		if (it->ncols == 0)
			it->ncols = -1;
		return;
	}
	case IT_UNNEST: {
		FromItem *f = it->f;
		const char *el = f->alias_cols && f->alias_cols->n
		                 ? ast_name_value(ex->a, f->alias_cols->items[0])
		                 : it->name;
		push_col(&it->cols, &it->ncols, el);
		for (int i = 0; i < NJSON; i++)
			push_col(&it->cols, &it->ncols, JSON_COLS[i]);
		return;
	}
	case IT_FUNC: {
		const char *fn = ast_name_value(ex->a, it->f->name);
		if (str_ieq(fn, "json_each") || str_ieq(fn, "json_tree")) {
			for (int i = 0; i < NJSON; i++)
				push_col(&it->cols, &it->ncols, JSON_COLS[i]);
		} else {
			it->ncols = -1;
		}
		return;
	}
	}
}
