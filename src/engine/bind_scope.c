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
 * Table facts and catalog rows are looked up once (TabInfo) and kept by the engine from
 * statement to statement while the database has not changed: a script of many small
 * SELECTs would otherwise spend most of its time asking sqlite_schema the same questions.
 */
#include "engine/bind_int.h"
#include "engine/sql_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const JSON_COLS[] = {
	"key", "value", "type", "atom", "id", "parent", "fullkey", "path", "json", "root",
};
#define NJSON ((int)(sizeof JSON_COLS / sizeof *JSON_COLS))

static TabInfo *bind_scope_table(Exec *ex, const char *name)
{
	Engine *e = ex->e;
	if (!ex->tabs_checked) {
		ex->tabs_checked = 1;
		bind_scope_tabs_check(e, 0);
	}
	for (int i = 0; i < e->ntabs; i++)
		if (str_ieq(e->tabs[i].name, name))
			return &e->tabs[i];
	if (e->ntabs == e->captabs) {
		e->captabs = e->captabs ? e->captabs * 2 : 8;
		e->tabs = xrealloc(e->tabs, (size_t)e->captabs * sizeof *e->tabs);
	}
	TabInfo *t = &e->tabs[e->ntabs++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	if (e->pg) {   /* PostgreSQL: the columns through the store; rows are not fetched
	                  again by rowid (exec_pg.c identifies them by ctid) */
		StoreColumn *sc = NULL;
		int nsc = 0;
		if (store_columns(e->store, name, &sc, &nsc, NULL) == SUQL_OK) {
			t->exists = 1;
			int npk = 0, key = -1;
			for (int i = 0; i < nsc; i++) {
				exec_strv_push(&t->cols, &t->ncols, sc[i].name);
				npk += sc[i].pk > 0;
				if (sc[i].pk > 0 && (str_ieq(sc[i].type, "integer") ||
				                     str_ieq(sc[i].type, "bigint") ||
				                     str_ieq(sc[i].type, "smallint")))
					key = i;
			}
			if (npk == 1 && key >= 0)
				t->rowkey = xstrdup(sc[key].name);
		}
		store_columns_free(sc, nsc);
		/* an ordinary table's rows have a ctid, which a walk takes as their rowid
		   (exec_pg_plan.c); a view's or a partitioned table's have none that is unique */
		StoreCursor *c;
		const char *args[] = {name};
		if (t->exists && store_query(e->store, "SELECT relkind = 'r' FROM pg_class WHERE oid "
		                             "= to_regclass(quote_ident($1))", args, 1, &c, NULL) ==
		                 SUQL_OK) {
			t->rowid = store_next(c) > 0 && store_integer(c, 0);
			store_done(c);
		}
		SuqlErr err = {0};
		if (t->exists && catalog_table(e->store, name, &t->cat, &t->ncat, &err) != SUQL_OK)
			t->ncat = 0;
		err_clear(&err);
		return t;
	}
	sqlite3_stmt *st;
	/* SQLite says which tables have a rowid (wr: WITHOUT ROWID); virtual tables are not
	   fetched by rowid either */
	if (sqlite3_prepare_v2(ex->db, "SELECT type IN ('table', 'shadow') AND NOT wr FROM "
	                       "pragma_table_list(?1) WHERE schema = 'main' AND type IN "
	                       "('table', 'view', 'shadow', 'virtual')", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			t->exists = 1;
			t->rowid = sqlite3_column_int(st, 0);
		}
		sqlite3_finalize(st);
	}
	if (t->exists) {
		char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", name);
		if (sqlite3_prepare_v2(ex->db, q, -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW)
				exec_strv_push(&t->cols, &t->ncols, (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		sqlite3_free(q);
		SuqlErr err = {0};
		CatColumn *cc = NULL;
		int n = 0;
		if (catalog_table(ex->e->store, name, &cc, &n, &err) == SUQL_OK) {
			t->cat = cc;
			t->ncat = n;
		}
		err_clear(&err);
	}
	return t;
}

const CatColumn *bind_scope_catalog(Exec *ex, const char *table, const char *column)
{
	TabInfo *t = bind_scope_table(ex, table);
	for (int i = 0; i < t->ncat; i++)
		if (str_ieq(t->cat[i].column, column))
			return &t->cat[i];
	return NULL;
}

/* What says whether the database changed: the schema cookie (this connection's DDL, even
   uncommitted), its count of changed rows (its writes, catalog rows included) and the
   pager's data version (commits by other connections). */
static void tabs_key(Engine *e, long long key[3])
{
	sqlite3 *db = e->db;
	key[0] = -1;
	if (e->cookie || sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &e->cookie, NULL) ==
	                 SQLITE_OK) {
		if (sqlite3_step(e->cookie) == SQLITE_ROW)
			key[0] = sqlite3_column_int64(e->cookie, 0);
		sqlite3_reset(e->cookie);
	}
	key[1] = sqlite3_total_changes64(db);
	unsigned int dv = 0;
	key[2] = sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &dv) == SQLITE_OK
	         ? (long long)dv : -1;
}

void bind_scope_tabs_check(Engine *e, int all)
{
	long long key[3] = {-1, -1, -1};
	if (all || e->pg) {   /* PostgreSQL: learnt again for every statement */
		sqlite3_finalize(e->cookie);
		e->cookie = NULL;
	} else {
		tabs_key(e, key);
	}
	if (!all && key[0] >= 0 && key[2] >= 0 && memcmp(key, e->tabs_key, sizeof key) == 0)
		return;
	memcpy(e->tabs_key, key, sizeof key);
	for (int i = 0; i < e->ntabs; i++) {
		TabInfo *t = &e->tabs[i];
		free(t->name);
		free(t->rowkey);
		for (int k = 0; k < t->ncols; k++)
			free(t->cols[k]);
		free(t->cols);
		catalog_columns_free(t->cat, t->ncat);
	}
	free(e->tabs);
	e->tabs = NULL;
	e->ntabs = e->captabs = 0;
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
			exec_strv_push(v, n, ast_name_value(ex->a, rc->alias));
		} else if (e->kind == EX_STAR) {
			for (int k = 0; k < b->nitems; k++) {
				ScopeItem *it = &b->items[k];
				if (e->table.s && !str_ieq(it->name, ast_name_value(ex->a, e->table)))
					continue;
				if (it->ncols == 0 && (it->kind == IT_CTE || it->kind == IT_SUBQUERY))
					bind_scope_item_columns(ex, b, it);
				int lim = it->kind == IT_UNNEST ? 1 + 8 : it->ncols;   /* no json, root */
				for (int j = 0; j < lim && j < it->ncols; j++)
					exec_strv_push(v, n, it->cols[j]);
			}
		} else if (e->kind == EX_COLUMN) {
			exec_strv_push(v, n, ast_name_value(ex->a, e->name));
		} else if (rc->span.len && ex->ast->src && rc->span.off >= ex->ast->src_off) {
			char *s = xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off), rc->span.len);
			exec_strv_push(v, n, s);
			free(s);
		} else {
			exec_strv_push(v, n, "?column?");
		}
	}
}

void bind_scope_item_columns(Exec *ex, Block *b, ScopeItem *it)
{
	(void)b;
	switch (it->kind) {
	case IT_TABLE: {
		TabInfo *t = bind_scope_table(ex, it->table);
		if (!t->exists) {
			it->ncols = -1;
			return;
		}
		it->rowid = t->rowid;
		it->rowkey = t->rowkey ? xstrdup(t->rowkey) : NULL;
		for (int i = 0; i < t->ncols; i++)
			exec_strv_push(&it->cols, &it->ncols, t->cols[i]);
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
		exec_strv_push(&it->cols, &it->ncols, el);
		for (int i = 0; i < NJSON; i++)
			exec_strv_push(&it->cols, &it->ncols, JSON_COLS[i]);
		return;
	}
	case IT_FUNC: {
		const char *fn = ast_name_value(ex->a, it->f->name);
		if (str_ieq(fn, "json_each") || str_ieq(fn, "json_tree")) {
			for (int i = 0; i < NJSON; i++)
				exec_strv_push(&it->cols, &it->ncols, JSON_COLS[i]);
		} else {
			it->ncols = -1;
		}
		return;
	}
	}
}
