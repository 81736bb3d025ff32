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

/* PostgreSQL: what identifies table t's rows, from the catalog (the name bound, never
   SQL text), first found:
     1. a key declared in suql.table_props (prop 'row_key', value the column): for a table
        that cannot have a unique index (a partitioned table whose partitions are foreign
        tables, postgres_fdw's, cannot);
     2. its primary key, else a unique index without predicate or expression, when it is
        one column of integers that is NOT NULL;
     3. its ctid, when it is an ordinary table or a materialized view (relkind r, m): a
        ctid is unique there, not across a partitioned table's partitions, nor on a
        foreign table (postgres_fdw's is the remote row's, per shard).
   A view has none and needs none (its rows are not fetched again: SQLite's views have no
   rowid either); any other relation has none (noid), and a free-text statement that
   reads it is refused by the walk's row of the operator table (exec_walk_op.c). The key
   is a column of integers so that a row's identity is the number the walk keeps (SQLite's
   rowid); a key of another type or of
   several columns leaves an ordinary table on its ctid. */
static void pg_identity(Store *st, TabInfo *t)
{
	static const char *const INTS = "('int2'::regtype, 'int4'::regtype, 'int8'::regtype)";
	const char *args[] = {t->name};
	StoreCursor *c;
	char sql[1024];
	if (store_has_table(st, "suql.table_props")) {
		/* the declared column, and whether it is one of the table's of integers (one
		   that is not is said, in the plan and in a refusal, rather than passed over) */
		snprintf(sql, sizeof sql,
		         "SELECT p.value, a.attname IS NOT NULL, a.atttypid IN %s FROM "
		         "suql.table_props p LEFT JOIN pg_attribute a ON a.attrelid = "
		         "to_regclass(quote_ident($1)) AND a.attname = p.value AND a.attnum > 0 AND "
		         "NOT a.attisdropped WHERE lower(p.tbl) = lower($1) AND p.prop = 'row_key'",
		         INTS);
		if (store_query(st, sql, args, 1, &c, NULL) == SUQL_OK) {
			const char *v = store_next(c) > 0 ? store_text(c, 0) : NULL;
			const char *col = store_text(c, 1), *ints = store_text(c, 2);
			if (v && col && ints && strcmp(ints, "t") == 0) {
				t->rowkey = xstrdup(v);
				t->rowwhy = "declared in suql.table_props";
			} else if (v) {
				t->rowbad = xprintf("the row_key declared in suql.table_props, '%s', is %s",
				                    v, col && strcmp(col, "t") == 0
				                       ? "not a column of integers" : "not a column of it");
			}
			store_done(c);
		}
	}
	snprintf(sql, sizeof sql,
	         "SELECT c.relkind::text, k.attname, k.indisprimary::int FROM pg_class c LEFT JOIN "
	         "LATERAL (SELECT a.attname, i.indisprimary FROM pg_index i JOIN pg_attribute a ON "
	         "a.attrelid = i.indrelid AND a.attnum = i.indkey[0] WHERE i.indrelid = c.oid AND "
	         "i.indisunique AND i.indimmediate AND i.indnkeyatts = 1 AND i.indpred IS NULL AND "
	         "i.indexprs IS NULL AND a.attnotnull AND a.atttypid IN %s ORDER BY "
	         "i.indisprimary DESC, a.attnum LIMIT 1) k ON true WHERE c.oid = "
	         "to_regclass(quote_ident($1))", INTS);
	if (store_query(st, sql, args, 1, &c, NULL) != SUQL_OK)
		return;
	if (store_next(c) > 0) {
		const char *kind = store_text(c, 0), *key = store_text(c, 1);
		int ctid = kind && (strcmp(kind, "r") == 0 || strcmp(kind, "m") == 0);
		if (!t->rowkey && key) {
			t->rowkey = xstrdup(key);
			t->rowwhy = store_integer(c, 2) ? "primary key" : "unique index";
		}
		t->rowid = t->rowkey || ctid;
		t->noid = !t->rowid && kind && strcmp(kind, "v") != 0;
	}
	store_done(c);
}

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
	if (e->pg) {   /* PostgreSQL: the columns through the store; its rows' identity */
		StoreColumn *sc = NULL;
		int nsc = 0;
		if (store_columns(e->store, name, &sc, &nsc, NULL) == SUQL_OK) {
			t->exists = 1;
			for (int i = 0; i < nsc; i++)
				exec_strv_push(&t->cols, &t->ncols, sc[i].name);
		}
		store_columns_free(sc, nsc);
		if (t->exists)
			pg_identity(e->store, t);
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
		free(t->rowbad);
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
		it->rowwhy = t->rowwhy;
		it->rowbad = t->rowbad ? xstrdup(t->rowbad) : NULL;
		it->noid = t->noid;
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
