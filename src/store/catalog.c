/*
 * catalog.c: reading and writing the SUQL types kept in suql_catalog, and parsing SUQL
 * column type declarations. See catalog.h for the storage scheme.
 */
#include "base/util.h"
#include "store/catalog.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const CATALOG_DDL =
	"CREATE TABLE IF NOT EXISTS suql_catalog("
	"tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, "
	"type TEXT NOT NULL, enum_values TEXT, PRIMARY KEY(tbl, col))";

/* Parse ENUM's parenthesised list of string literals: ('a', 'it''s'). p points at '('. */
static int parse_enum_list(const char **pp, CatColumn *c, SuqlErr *err)
{
	const char *p = *pp + 1;
	int cap = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ')' && c->nenum == 0) {
			p++;
			break;
		}
		if (*p != '\'') {
			err_set(err, SUQL_ERROR, "ENUM values must be string literals like 'cheap'");
			return -1;
		}
		SBuf v = SBUF_INIT;
		p++;
		for (;;) {
			if (!*p) {
				sb_free(&v);
				err_set(err, SUQL_ERROR, "unterminated string in ENUM(...)");
				return -1;
			}
			if (*p == '\'' && p[1] == '\'') {
				sb_putc(&v, '\'');
				p += 2;
			} else if (*p == '\'') {
				p++;
				break;
			} else {
				sb_putc(&v, *p++);
			}
		}
		if (c->nenum == cap) {
			cap = cap ? cap * 2 : 8;
			c->enum_values = xrealloc(c->enum_values, (size_t)cap * sizeof *c->enum_values);
		}
		c->enum_values[c->nenum++] = sb_steal(&v);
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ')') {
			p++;
			break;
		}
		err_set(err, SUQL_ERROR, "expected ',' or ')' in ENUM(...)");
		return -1;
	}
	*pp = p;
	return 0;
}

int catalog_parse_type(const char *decl, CatColumn *c, SuqlErr *err)
{
	const char *p = decl;
	while (isspace((unsigned char)*p))
		p++;
	const char *w = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	size_t wlen = (size_t)(p - w);
	c->free_text = str_nieq(w, wlen, "FREE_TEXT");
	c->is_enum = str_nieq(w, wlen, "ENUM");
	c->is_array = 0;
	c->enum_values = NULL;
	c->nenum = 0;
	c->type = NULL;
	SBuf norm = SBUF_INIT;
	for (size_t i = 0; i < wlen; i++)
		sb_putc(&norm, (char)toupper((unsigned char)w[i]));
	while (isspace((unsigned char)*p))
		p++;
	if (c->is_enum && *p == '(') {
		if (parse_enum_list(&p, c, err) < 0) {
			sb_free(&norm);
			catalog_column_free(c);
			return -1;
		}
		sb_putc(&norm, '(');
		for (int i = 0; i < c->nenum; i++) {
			if (i)
				sb_putc(&norm, ',');
			sb_put_sqlstr(&norm, c->enum_values[i], strlen(c->enum_values[i]));
		}
		sb_putc(&norm, ')');
	} else if (!c->is_enum && !c->free_text) {
		/* a plain type keeps everything up to an array suffix: NUMERIC(2,1), DOUBLE PRECISION */
		const char *end = strstr(p, "[");
		const char *e = end ? end : p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		if (e > p) {
			sb_putc(&norm, ' ');
			for (const char *q = p; q < e; q++)
				sb_putc(&norm, (char)toupper((unsigned char)*q));
		}
		p = end ? end : p + strlen(p);
	}
	while (isspace((unsigned char)*p))
		p++;
	if (p[0] == '[') {
		const char *q = p + 1;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != ']') {
			sb_free(&norm);
			catalog_column_free(c);
			err_set(err, SUQL_ERROR, "expected '[]' after the type in '%s'", decl);
			return -1;
		}
		c->is_array = 1;
		sb_puts(&norm, "[]");
		p = q + 1;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (*p) {
		sb_free(&norm);
		catalog_column_free(c);
		err_set(err, SUQL_ERROR, "unexpected '%s' in column type '%s'", p, decl);
		return -1;
	}
	int suql = c->free_text || c->is_enum || c->is_array;
	c->type = suql ? sb_steal(&norm) : (sb_free(&norm), xstrdup(decl));
	return suql;
}

const char *catalog_storage_type(const CatColumn *c)
{
	(void)c;
	return "TEXT";
}

static SuqlStatus catalog_ensure(sqlite3 *db, SuqlErr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, CATALOG_DDL, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "cannot create the SUQL catalog: %s", msg ? msg : "?");
		sqlite3_free(msg);
		return SUQL_ERROR;
	}
	return SUQL_OK;
}

static int table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?1",
	                       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

static int catalog_exists(sqlite3 *db)
{
	return table_exists(db, "suql_catalog");
}

static SuqlStatus run(sqlite3 *db, const char *sql, const char *a, const char *b,
                      const char *c, const char *d, SuqlErr *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "catalog: %s", sqlite3_errmsg(db));
	const char *args[] = {a, b, c, d};
	for (int i = 0; i < 4; i++)
		if (i < sqlite3_bind_parameter_count(st))
			sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return err_set(err, SUQL_ERROR, "catalog: %s", sqlite3_errmsg(db));
	return SUQL_OK;
}

SuqlStatus catalog_set(sqlite3 *db, const char *table, const char *column, const char *type,
                       SuqlErr *err)
{
	CatColumn c = {0};
	int k = catalog_parse_type(type, &c, err);
	if (k < 0)
		return SUQL_ERROR;
	SuqlStatus s = catalog_ensure(db, err);
	if (s == SUQL_OK && k == 0) {
		s = run(db, "DELETE FROM suql_catalog WHERE tbl=?1 AND col=?2", table, column, NULL,
		        NULL, err);
	} else if (s == SUQL_OK) {
		char *vals = NULL;
		if (c.enum_values) {
			json_t *a = json_array();
			for (int i = 0; i < c.nenum; i++)
				json_array_append_new(a, json_string(c.enum_values[i]));
			vals = json_dumps(a, JSON_COMPACT);
			json_decref(a);
		}
		s = run(db, "INSERT OR REPLACE INTO suql_catalog(tbl, col, type, enum_values) "
		        "VALUES (?1, ?2, ?3, ?4)", table, column, c.type, vals, err);
		free(vals);
	}
	catalog_column_free(&c);
	return s;
}

SuqlStatus catalog_drop_table(sqlite3 *db, const char *table, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	if (table_exists(db, "suql_table_props"))
		s = run(db, "DELETE FROM suql_table_props WHERE tbl=?1", table, NULL, NULL, NULL, err);
	if (s != SUQL_OK || !catalog_exists(db))
		return s;
	return run(db, "DELETE FROM suql_catalog WHERE tbl=?1", table, NULL, NULL, NULL, err);
}

SuqlStatus catalog_rename_table(sqlite3 *db, const char *from, const char *to, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	if (table_exists(db, "suql_table_props"))
		s = run(db, "UPDATE suql_table_props SET tbl=?2 WHERE tbl=?1", from, to, NULL, NULL,
		        err);
	if (s != SUQL_OK || !catalog_exists(db))
		return s;
	return run(db, "UPDATE suql_catalog SET tbl=?2 WHERE tbl=?1", from, to, NULL, NULL, err);
}

/* ---- table properties ---- */

SuqlStatus catalog_prop_set(sqlite3 *db, const char *table, const char *prop, const char *value,
                            SuqlErr *err)
{
	if (!value) {
		if (!table_exists(db, "suql_table_props"))
			return SUQL_OK;
		return run(db, "DELETE FROM suql_table_props WHERE tbl=?1 AND prop=?2", table, prop,
		           NULL, NULL, err);
	}
	SuqlStatus s = run(db, "CREATE TABLE IF NOT EXISTS suql_table_props(tbl TEXT NOT NULL "
	                   "COLLATE NOCASE, prop TEXT NOT NULL, value TEXT NOT NULL, "
	                   "PRIMARY KEY(tbl, prop))", NULL, NULL, NULL, NULL, err);
	if (s != SUQL_OK)
		return s;
	return run(db, "INSERT OR REPLACE INTO suql_table_props(tbl, prop, value) VALUES (?1, ?2, "
	           "?3)", table, prop, value, NULL, err);
}

int catalog_prop_tables(sqlite3 *db, const char *prop, const char *value, char ***names)
{
	*names = NULL;
	if (!table_exists(db, "suql_table_props"))
		return 0;
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT tbl FROM suql_table_props WHERE prop=?1 AND value=?2 "
	                       "ORDER BY tbl", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, prop, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		*names = xrealloc(*names, ((size_t)n + 1) * sizeof **names);
		(*names)[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return n;
}

int catalog_is_labels(sqlite3 *db, const char *table)
{
	char **v;
	int n = catalog_prop_tables(db, CATALOG_LABELS, "on", &v), hit = 0;
	for (int i = 0; i < n; i++) {
		hit |= str_ieq(v[i], table);
		free(v[i]);
	}
	free(v);
	return hit;
}

static const char *const CATALOG_GET =
	"SELECT tbl, col, type FROM suql_catalog WHERE tbl=?1 AND col=?2";

/* One lookup with the prepared CATALOG_GET (reset afterwards): 1 and out filled when the
   column has a SUQL type, else 0 and out zeroed. */
static int lookup(sqlite3_stmt *st, const char *table, const char *column, CatColumn *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	int found = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 2);
		if (catalog_parse_type(type ? type : "", out, NULL) > 0) {
			out->table = xstrdup((const char *)sqlite3_column_text(st, 0));
			out->column = xstrdup((const char *)sqlite3_column_text(st, 1));
			found = 1;
		} else {
			catalog_column_free(out);
		}
	}
	sqlite3_reset(st);
	return found;
}

int catalog_get(sqlite3 *db, const char *table, const char *column, CatColumn *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st;
	if (!catalog_exists(db) || sqlite3_prepare_v2(db, CATALOG_GET, -1, &st, NULL) != SQLITE_OK)
		return 0;
	int found = lookup(st, table, column, out);
	sqlite3_finalize(st);
	return found;
}

SuqlStatus catalog_table(sqlite3 *db, const char *table, CatColumn **cols, int *n, SuqlErr *err)
{
	*cols = NULL;
	*n = 0;
	sqlite3_stmt *st, *get = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?1)", -1, &st, NULL) != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(db));
	/* one lookup statement for every column: the binder reads each table of a statement */
	if (catalog_exists(db) && sqlite3_prepare_v2(db, CATALOG_GET, -1, &get, NULL) != SQLITE_OK)
		get = NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*cols = xrealloc(*cols, (size_t)cap * sizeof **cols);
		}
		CatColumn *c = &(*cols)[(*n)++];
		if (!get || !lookup(get, table, name, c)) {
			memset(c, 0, sizeof *c);
			c->table = xstrdup(table);
			c->column = xstrdup(name);
			c->type = xstrdup(type ? type : "");
		}
	}
	sqlite3_finalize(get);
	sqlite3_finalize(st);
	if (*n == 0)
		return err_set(err, SUQL_ERROR, "no such table: %s", table);
	return SUQL_OK;
}

static int needs_quotes(const char *name)
{
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return 1;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 1;
	return 0;
}

/* A name in the DDL: bare when it can be, else quoted. */
static void put_name(SBuf *b, const char *name)
{
	if (needs_quotes(name))
		sb_put_ident(b, name, strlen(name));
	else
		sb_puts(b, name);
}

SuqlStatus catalog_ddl(sqlite3 *db, const char *table, int max_enum, char **out, SuqlErr *err)
{
	CatColumn *cols;
	int n;
	*out = NULL;
	if (catalog_table(db, table, &cols, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	/* the constraints SQLite keeps per column: NOT NULL, DEFAULT, the primary key */
	int *pk = xcalloc((size_t)n + 1, sizeof *pk), npk = 0;
	char **extra = xcalloc((size_t)n + 1, sizeof *extra);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT \"notnull\", dflt_value, pk FROM pragma_table_info(?1) "
	                       "ORDER BY cid", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		for (int i = 0; i < n && sqlite3_step(st) == SQLITE_ROW; i++) {
			const char *dflt = (const char *)sqlite3_column_text(st, 1);
			pk[i] = sqlite3_column_int(st, 2);
			npk += pk[i] > 0;
			if (sqlite3_column_int(st, 0) || dflt)
				extra[i] = xprintf("%s%s%s", sqlite3_column_int(st, 0) ? " NOT NULL" : "",
				                   dflt ? " DEFAULT " : "", dflt ? dflt : "");
		}
		sqlite3_finalize(st);
	}
	SBuf b = SBUF_INIT;
	sb_puts(&b, "CREATE TABLE ");
	put_name(&b, table);
	sb_puts(&b, " (\n");
	for (int i = 0; i < n; i++) {
		CatColumn *c = &cols[i];
		sb_puts(&b, "  ");
		put_name(&b, c->column);
		if (c->is_enum && c->enum_values && max_enum > 0 && c->nenum > max_enum)
			sb_puts(&b, c->is_array ? " ENUM[]" : " ENUM");
		else if (c->type && *c->type)
			sb_printf(&b, " %s", c->type);
		if (npk == 1 && pk[i])
			sb_puts(&b, " PRIMARY KEY");
		if (extra[i])
			sb_puts(&b, extra[i]);
		sb_puts(&b, i + 1 < n || npk > 1 ? ",\n" : "\n");
	}
	if (npk > 1) {   /* a composite key, in its own order */
		sb_puts(&b, "  PRIMARY KEY (");
		for (int k = 1; k <= npk; k++)
			for (int i = 0; i < n; i++)
				if (pk[i] == k) {
					if (k > 1)
						sb_puts(&b, ", ");
					put_name(&b, cols[i].column);
				}
		sb_puts(&b, ")\n");
	}
	sb_puts(&b, ");");
	for (int i = 0; i < n; i++)
		free(extra[i]);
	free(extra);
	free(pk);
	catalog_columns_free(cols, n);
	*out = sb_steal(&b);
	return SUQL_OK;
}

void catalog_column_free(CatColumn *c)
{
	if (!c)
		return;
	free(c->table);
	free(c->column);
	free(c->type);
	for (int i = 0; i < c->nenum; i++)
		free(c->enum_values[i]);
	free(c->enum_values);
	memset(c, 0, sizeof *c);
}

void catalog_columns_free(CatColumn *cols, int n)
{
	for (int i = 0; i < n; i++)
		catalog_column_free(&cols[i]);
	free(cols);
}
