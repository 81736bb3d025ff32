/*
 * store_sqlite.c: the SQLite backend of the storage seam (store.h), and the calls every
 * backend shares (they go to the Store's ops). A Store here is one connection; the
 * schema comes from sqlite_schema and pragma_table_info.
 */
#include "base/util.h"
#include "store/catalog.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

typedef struct SqliteStore {
	Store base;
	sqlite3 *db;
	int owned;            /* store_close closes db */
} SqliteStore;

typedef struct SqliteCursor {
	StoreCursor base;
	sqlite3_stmt *st;
} SqliteCursor;

static sqlite3_stmt *st_of(StoreCursor *c)
{
	return ((SqliteCursor *)c)->st;
}

static const StoreOps sqlite_ops;

static sqlite3 *db_of(Store *s)
{
	return ((SqliteStore *)s)->db;
}

static void sq_close(Store *s)
{
	SqliteStore *q = (SqliteStore *)s;
	if (q->owned)
		sqlite3_close(q->db);
	free(q);
}

static SuqlStatus prepare(Store *s, const char *sql, const char *const *params, int nparams,
                          sqlite3_stmt **st, SuqlErr *err)
{
	sqlite3 *db = db_of(s);
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	for (int i = 0; i < nparams; i++)
		if (params[i])
			sqlite3_bind_text(*st, i + 1, params[i], -1, SQLITE_TRANSIENT);
	return SUQL_OK;
}

static SuqlStatus sq_run(Store *s, const char *sql, const char *const *params, int nparams,
                         SuqlErr *err)
{
	sqlite3 *db = db_of(s);
	if (!params) {   /* text that may hold several statements */
		char *msg = NULL;
		if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
			return SUQL_OK;
		err_set(err, SUQL_ERROR, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return SUQL_ERROR;
	}
	sqlite3_stmt *st;
	if (prepare(s, sql, params, nparams, &st, err) != SUQL_OK)
		return SUQL_ERROR;
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	return SUQL_OK;
}

static SuqlStatus sq_query(Store *s, const char *sql, const char *const *params, int nparams,
                           StoreCursor **out, SuqlErr *err)
{
	sqlite3_stmt *st;
	*out = NULL;
	if (prepare(s, sql, params, nparams, &st, err) != SUQL_OK)
		return SUQL_ERROR;
	SqliteCursor *c = xcalloc(1, sizeof *c);
	c->base.ops = &sqlite_ops;
	c->st = st;
	*out = &c->base;
	return SUQL_OK;
}

static int sq_next(StoreCursor *c)
{
	int rc = sqlite3_step(st_of(c));
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static const char *sq_text(StoreCursor *c, int col)
{
	return (const char *)sqlite3_column_text(st_of(c), col);
}

static long long sq_integer(StoreCursor *c, int col)
{
	return sqlite3_column_int64(st_of(c), col);
}

static size_t sq_bytes(StoreCursor *c, int col)
{
	return (size_t)sqlite3_column_bytes(st_of(c), col);
}

static void sq_done(StoreCursor *c)
{
	sqlite3_finalize(st_of(c));
	free(c);
}

static int sq_has_table(Store *s, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db_of(s), "SELECT 1 FROM sqlite_schema WHERE type='table' AND "
	                       "name=?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

static SuqlStatus sq_tables(Store *s, StoreTable **out, int *n, SuqlErr *err)
{
	sqlite3 *db = db_of(s);
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, type, sql FROM sqlite_schema WHERE type IN "
	                       "('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND "
	                       "name NOT LIKE 'suql\\_%' ESCAPE '\\' ORDER BY name", -1, &st,
	                       NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xrealloc(*out, ((size_t)*n + 1) * sizeof **out);
		StoreTable *t = &(*out)[(*n)++];
		t->name = xstrdup((const char *)sqlite3_column_text(st, 0));
		t->view = strcmp((const char *)sqlite3_column_text(st, 1), "view") == 0;
		t->sql = xstrdup_or_null((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	return SUQL_OK;
}

static SuqlStatus sq_columns(Store *s, const char *table, StoreColumn **out, int *n,
                             SuqlErr *err)
{
	sqlite3 *db = db_of(s);
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\", dflt_value, pk FROM "
	                       "pragma_table_info(?1) ORDER BY cid", -1, &st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xrealloc(*out, ((size_t)*n + 1) * sizeof **out);
		StoreColumn *c = &(*out)[(*n)++];
		const char *type = (const char *)sqlite3_column_text(st, 1);
		c->name = xstrdup((const char *)sqlite3_column_text(st, 0));
		c->type = xstrdup(type ? type : "");
		c->notnull = sqlite3_column_int(st, 2);
		c->dflt = xstrdup_or_null((const char *)sqlite3_column_text(st, 3));
		c->pk = sqlite3_column_int(st, 4);
	}
	sqlite3_finalize(st);
	if (*n == 0)
		return err_set(err, SUQL_ERROR, "no such table: %s", table);
	return SUQL_OK;
}

static void sq_interrupt(Store *s)
{
	sqlite3_interrupt(db_of(s));
}

static void sq_busy_timeout(Store *s, double seconds)
{
	sqlite3_busy_timeout(db_of(s), (int)(seconds * 1000));
}

static int sq_value_limit(Store *s, int bytes)
{
	/* 1000000000 is SQLite's default largest string or blob */
	return sqlite3_limit(db_of(s), SQLITE_LIMIT_LENGTH, bytes > 0 ? bytes : 1000000000);
}

static int sq_ncols(StoreCursor *c)
{
	return sqlite3_column_count(st_of(c));
}

static const char *sq_colname(StoreCursor *c, int col)
{
	return sqlite3_column_name(st_of(c), col);
}

static StoreKind sq_kind(StoreCursor *c, int col)
{
	switch (sqlite3_column_type(st_of(c), col)) {
	case SQLITE_NULL: return STORE_NULL;
	case SQLITE_INTEGER: return STORE_INTEGER;
	case SQLITE_FLOAT: return STORE_REAL;
	case SQLITE_BLOB: return STORE_BLOB;
	default: return STORE_TEXT;
	}
}

static const char *sq_version(Store *s)
{
	(void)s;
	return sqlite3_libversion();
}

/* A list is a JSON array here (read by json_each). */
static SuqlStatus sq_top_values(Store *s, const char *table, const char *column, int list,
                                StoreCursor **out, SuqlErr *err)
{
	SBuf t = SBUF_INIT, col = SBUF_INIT;
	sb_put_ident(&t, table, strlen(table));
	sb_put_ident(&col, column, strlen(column));
	char *q;
	if (list)
		q = xprintf("SELECT j.value, count(*) AS n, count(*) OVER () FROM (SELECT %s AS v "
		            "FROM %s LIMIT 20000) AS s, json_each(CASE WHEN json_valid(s.v) THEN s.v "
		            "ELSE '[]' END) AS j WHERE j.type = 'text' GROUP BY j.value "
		            "ORDER BY n DESC, j.value LIMIT 12", col.s, t.s);
	else
		q = xprintf("SELECT v, count(*) AS n, count(*) OVER () FROM (SELECT %s AS v FROM %s "
		            "LIMIT 20000) WHERE typeof(v) = 'text' GROUP BY v ORDER BY n DESC, v "
		            "LIMIT 12", col.s, t.s);
	sb_free(&t);
	sb_free(&col);
	SuqlStatus st = store_query(s, q, NULL, 0, out, err);
	free(q);
	return st;
}

static const StoreOps sqlite_ops = {
	"SQLite", sq_close, sq_run, sq_query, sq_next, sq_text, sq_integer, sq_done,
	sq_has_table, sq_tables, sq_columns, sq_interrupt, sq_busy_timeout, sq_value_limit,
	db_of, sq_ncols, sq_colname, sq_kind, sq_version, sq_bytes, "suql_", "rowid",
	sq_top_values,
};

Store *store_sqlite_wrap(sqlite3 *db)
{
	SqliteStore *q = xcalloc(1, sizeof *q);
	q->base.ops = &sqlite_ops;
	q->db = db;
	return &q->base;
}

Store *store_sqlite_open(const char *path, int readonly, SuqlErr *err)
{
	sqlite3 *db = NULL;
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	/* NOMUTEX: one thread uses a connection (suql has no other), so the connection's
	   mutex, taken by every call into SQLite (each column of each row), is left out, as
	   the sqlite3 shell leaves it out (SQLITE_CONFIG_MULTITHREAD) */
	int rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err_set(err, SUQL_IO, "cannot open database %s: %s", path,
		        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	/* A database file is data: defensive mode keeps statements from corrupting it on
	   purpose (writable_schema, writes to the shadow tables of virtual tables, journal_mode
	   off), whoever runs them. trusted_schema stays SQLite's default for the user's own
	   statements and is turned off while suql writes its own tables (store/own.h says why). */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	/* SQLite reads a file only when a statement needs it: read the schema now, so that a
	   file that is not a database (or is damaged) is refused at open, not at every
	   statement. A database another process holds is not an error here. */
	rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
		err_set(err, SUQL_IO, "cannot open database %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	Store *s = store_sqlite_wrap(db);
	((SqliteStore *)s)->owned = 1;
	return s;
}

/* ---- any backend: the calls go to the ops ---- */

void store_close(Store *s)
{
	if (s)
		s->ops->close(s);
}

const char *store_backend(const Store *s)
{
	return s->ops->name;
}

SuqlStatus store_exec(Store *s, const char *sql, SuqlErr *err)
{
	return s->ops->run(s, sql, NULL, 0, err);
}

SuqlStatus store_run(Store *s, const char *sql, const char *const *params, int nparams,
                     SuqlErr *err)
{
	static const char *const none[1] = {NULL};
	return s->ops->run(s, sql, params ? params : none, nparams, err);
}

SuqlStatus store_query(Store *s, const char *sql, const char *const *params, int nparams,
                       StoreCursor **out, SuqlErr *err)
{
	return s->ops->query(s, sql, params, nparams, out, err);
}

int store_next(StoreCursor *c)
{
	return c->ops->next(c);
}

const char *store_text(StoreCursor *c, int col)
{
	return c->ops->text(c, col);
}

long long store_integer(StoreCursor *c, int col)
{
	return c->ops->integer(c, col);
}

int store_column_count(StoreCursor *c)
{
	return c->ops->ncols(c);
}

const char *store_column_name(StoreCursor *c, int col)
{
	return c->ops->colname(c, col);
}

size_t store_bytes(StoreCursor *c, int col)
{
	return c->ops->bytes(c, col);
}

StoreKind store_column_kind(StoreCursor *c, int col)
{
	return c->ops->kind(c, col);
}

const char *store_version(Store *s)
{
	return s->ops->version(s);
}

const char *store_own(const Store *s)
{
	return s->ops->own;
}

void store_done(StoreCursor *c)
{
	if (c)
		c->ops->done(c);
}

/* A statement about a savepoint: "SAVEPOINT %s", "RELEASE %s", ... */
static SuqlStatus savepoint_sql(Store *s, const char *fmt, const char *name, SuqlErr *err)
{
	char *q = xprintf(fmt, name, name);
	SuqlStatus st = store_exec(s, q, err);
	free(q);
	return st;
}

SuqlStatus store_savepoint(Store *s, const char *name, SuqlErr *err)
{
	return savepoint_sql(s, "SAVEPOINT %s", name, err);
}

SuqlStatus store_release(Store *s, const char *name, SuqlErr *err)
{
	return savepoint_sql(s, "RELEASE %s", name, err);
}

void store_rollback_to(Store *s, const char *name)
{
	savepoint_sql(s, "ROLLBACK TO %s; RELEASE %s", name, NULL);
}

int store_has_table(Store *s, const char *name)
{
	return s->ops->has_table(s, name);
}

const char *store_row_name(Store *s)
{
	return s->ops->row_name;
}

SuqlStatus store_top_values(Store *s, const char *table, const char *column, int list,
                            StoreCursor **out, SuqlErr *err)
{
	return s->ops->top_values(s, table, column, list, out, err);
}

static int table_cmp(const void *a, const void *b)
{
	return strcmp(((const StoreTable *)a)->name, ((const StoreTable *)b)->name);
}

/* The backend's tables and views, and the views with free text kept in suql's catalog
   (catalog.h): where the database cannot store them (PostgreSQL) they are listed from
   there, and where it stores them too (SQLite) they are shown as written. */
SuqlStatus store_tables(Store *s, StoreTable **out, int *n, SuqlErr *err)
{
	if (s->ops->tables(s, out, n, err) != SUQL_OK)
		return SUQL_ERROR;
	char **names, **sqls;
	int nv = catalog_views(s, &names, &sqls), added = 0;
	for (int i = 0; i < nv; i++) {
		int k = 0;
		while (k < *n && !str_ieq((*out)[k].name, names[i]))
			k++;
		if (k < *n && (*out)[k].view) {
			free((*out)[k].sql);
			(*out)[k].sql = sqls[i];
		} else if (k == *n && !store_sqlite(s)) {
			*out = xrealloc(*out, ((size_t)*n + 1) * sizeof **out);
			(*out)[*n] = (StoreTable){names[i], 1, sqls[i]};
			++*n;
			added = 1;
			continue;
		} else {
			free(sqls[i]);
		}
		free(names[i]);
	}
	free(names);
	free(sqls);
	if (added)
		qsort(*out, (size_t)*n, sizeof **out, table_cmp);
	return SUQL_OK;
}

void store_tables_free(StoreTable *t, int n)
{
	for (int i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].sql);
	}
	free(t);
}

SuqlStatus store_columns(Store *s, const char *table, StoreColumn **out, int *n, SuqlErr *err)
{
	return s->ops->columns(s, table, out, n, err);
}

void store_columns_free(StoreColumn *c, int n)
{
	for (int i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].type);
		free(c[i].dflt);
	}
	free(c);
}

void store_interrupt(Store *s)
{
	s->ops->interrupt(s);
}

void store_busy_timeout(Store *s, double seconds)
{
	s->ops->busy_timeout(s, seconds);
}

int store_value_limit(Store *s, int bytes)
{
	return s->ops->value_limit(s, bytes);
}

sqlite3 *store_sqlite(Store *s)
{
	return s ? s->ops->sqlite(s) : NULL;
}
