/*
 * catalog.c: reading and writing the SUQL types kept in suql_catalog, and parsing SUQL
 * column type declarations. See catalog.h for the storage scheme. Everything goes through
 * the Store (store.h), in SQL any backend runs.
 */
#include "base/util.h"
#include "store/catalog.h"
#include "store/own.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* suql's own tables are named by the backend (store_own): suql_catalog in SQLite,
   suql.catalog in PostgreSQL, whose schema "suql" is made the first time a SUQL type is
   declared. Names are compared without regard to case (lower() on both sides). */
#define OWN(st, sql) own_sql(st, sql, (char[512]){0})

/* sql with every "suql_" of a table name written the backend's way (buf: 512 bytes). */
static const char *own_sql(const Store *st, const char *sql, char *buf)
{
	const char *own = store_own(st);
	if (strcmp(own, "suql_") == 0)
		return sql;
	size_t o = 0, ol = strlen(own);
	for (const char *p = sql; *p && o + ol + 1 < 512; p++) {
		if (strncmp(p, "suql_", 5) == 0) {
			memcpy(buf + o, own, ol);
			o += ol;
			p += 4;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = 0;
	return buf;
}

static const char *const CATALOG_DDL =
	"CREATE TABLE IF NOT EXISTS suql_catalog("
	"tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, "
	"type TEXT NOT NULL, enum_values TEXT, PRIMARY KEY(tbl, col))";
static const char *const CATALOG_DDL_SCHEMA =
	"CREATE SCHEMA IF NOT EXISTS suql; CREATE TABLE IF NOT EXISTS suql.catalog("
	"tbl TEXT NOT NULL, col TEXT NOT NULL, type TEXT NOT NULL, enum_values TEXT, "
	"PRIMARY KEY(tbl, col))";
static const char *const PROPS_DDL =
	"CREATE TABLE IF NOT EXISTS suql_table_props(tbl TEXT NOT NULL COLLATE NOCASE, "
	"prop TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(tbl, prop))";
static const char *const PROPS_DDL_SCHEMA =
	"CREATE SCHEMA IF NOT EXISTS suql; CREATE TABLE IF NOT EXISTS suql.table_props("
	"tbl TEXT NOT NULL, prop TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(tbl, prop))";

static int schema_own(const Store *st)
{
	return strcmp(store_own(st), "suql_") != 0;
}

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

static SuqlStatus catalog_ensure(Store *st, SuqlErr *err)
{
	SuqlErr e = {0};
	if (store_exec(st, schema_own(st) ? CATALOG_DDL_SCHEMA : CATALOG_DDL, &e) == SUQL_OK)
		return SUQL_OK;
	err_set(err, SUQL_ERROR, "cannot create the SUQL catalog: %s", e.msg ? e.msg : "?");
	err_clear(&e);
	return SUQL_ERROR;
}

/* A statement that writes the catalog or the table properties, with up to four text
   parameters (NULL: SQL NULL). */
static SuqlStatus run(Store *st, const char *sql, const char *a, const char *b,
                      const char *c, const char *d, SuqlErr *err)
{
	const char *args[] = {a, b, c, d};
	/* SQLite: not through a trigger of the file, nor into a table suql did not make */
	sqlite3 *db = store_sqlite(st);
	const char *own = strstr(sql, "suql_table_props") ? "suql_table_props" : "suql_catalog";
	if (db && own_write_begin(db, own, err) != SUQL_OK)
		return SUQL_ERROR;
	SuqlErr e = {0};
	SuqlStatus s = store_run(st, sql, args, 4, &e);
	if (db)
		own_write_end(db);
	if (s != SUQL_OK)
		err_set(err, SUQL_ERROR, "catalog: %s", e.msg ? e.msg : "?");
	err_clear(&e);
	return s;
}

SuqlStatus catalog_set(Store *st, const char *table, const char *column, const char *type,
                       SuqlErr *err)
{
	CatColumn c = {0};
	int k = catalog_parse_type(type, &c, err);
	if (k < 0)
		return SUQL_ERROR;
	SuqlStatus s = catalog_ensure(st, err);
	if (s == SUQL_OK)   /* replaced, in plain SQL any backend runs */
		s = run(st, OWN(st, "DELETE FROM suql_catalog WHERE lower(tbl)=lower(?1) AND "
		                    "lower(col)=lower(?2)"), table, column, NULL,
		        NULL, err);
	if (s == SUQL_OK && k > 0) {
		char *vals = NULL;
		if (c.enum_values) {
			json_t *a = json_array();
			for (int i = 0; i < c.nenum; i++)
				json_array_append_new(a, json_string(c.enum_values[i]));
			vals = json_dumps(a, JSON_COMPACT);
			json_decref(a);
		}
		s = run(st, OWN(st, "INSERT INTO suql_catalog(tbl, col, type, enum_values) VALUES (?1, ?2, ?3, "
		        "?4)"), table, column, c.type, vals, err);
		free(vals);
	}
	catalog_column_free(&c);
	return s;
}

SuqlStatus catalog_drop_table(Store *st, const char *table, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	if (store_has_table(st, OWN(st, "suql_table_props")))
		s = run(st, OWN(st, "DELETE FROM suql_table_props WHERE lower(tbl)=lower(?1)"),
		        table, NULL, NULL, NULL, err);
	if (s != SUQL_OK || !store_has_table(st, OWN(st, "suql_catalog")))
		return s;
	return run(st, OWN(st, "DELETE FROM suql_catalog WHERE lower(tbl)=lower(?1)"), table,
	           NULL, NULL, NULL, err);
}

SuqlStatus catalog_rename_table(Store *st, const char *from, const char *to, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	if (store_has_table(st, OWN(st, "suql_table_props")))
		s = run(st, OWN(st, "UPDATE suql_table_props SET tbl=?2 WHERE lower(tbl)=lower(?1)"),
		        from, to, NULL, NULL,
		        err);
	if (s != SUQL_OK || !store_has_table(st, OWN(st, "suql_catalog")))
		return s;
	return run(st, OWN(st, "UPDATE suql_catalog SET tbl=?2 WHERE lower(tbl)=lower(?1)"), from,
	           to, NULL, NULL, err);
}

/* ---- table properties ---- */

SuqlStatus catalog_prop_set(Store *st, const char *table, const char *prop, const char *value,
                            SuqlErr *err)
{
	if (!value) {
		if (!store_has_table(st, OWN(st, "suql_table_props")))
			return SUQL_OK;
		return run(st, OWN(st, "DELETE FROM suql_table_props WHERE lower(tbl)=lower(?1) AND "
		                        "prop=?2"), table, prop,
		           NULL, NULL, err);
	}
	SuqlErr e = {0};   /* store_exec: the schema's DDL is two statements */
	SuqlStatus s = store_exec(st, schema_own(st) ? PROPS_DDL_SCHEMA : PROPS_DDL, &e);
	if (s != SUQL_OK)
		err_set(err, SUQL_ERROR, "catalog: %s", e.msg ? e.msg : "?");
	err_clear(&e);
	if (s == SUQL_OK)
		s = run(st, OWN(st, "DELETE FROM suql_table_props WHERE lower(tbl)=lower(?1) AND "
		                        "prop=?2"), table, prop,
		        NULL, NULL, err);
	if (s != SUQL_OK)
		return s;
	return run(st, OWN(st, "INSERT INTO suql_table_props(tbl, prop, value) VALUES (?1, ?2, "
	                       "?3)"), table,
	           prop, value, NULL, err);
}

int catalog_prop_tables(Store *st, const char *prop, const char *value, char ***names)
{
	*names = NULL;
	if (!store_has_table(st, OWN(st, "suql_table_props")))
		return 0;
	const char *args[] = {prop, value};
	StoreCursor *c;
	int n = 0;
	if (store_query(st, OWN(st, "SELECT tbl FROM suql_table_props WHERE prop=?1 AND value=?2 ORDER BY "
	                "tbl"), args, 2, &c, NULL) != SUQL_OK)
		return 0;
	while (store_next(c) > 0) {
		*names = xrealloc(*names, ((size_t)n + 1) * sizeof **names);
		(*names)[n++] = xstrdup(store_text(c, 0));
	}
	store_done(c);
	return n;
}

int catalog_is_labels(Store *st, const char *table)
{
	char **v;
	int n = catalog_prop_tables(st, CATALOG_LABELS, "on", &v), hit = 0;
	for (int i = 0; i < n; i++) {
		hit |= str_ieq(v[i], table);
		free(v[i]);
	}
	free(v);
	return hit;
}

int catalog_view_get(Store *st, const char *name, char **sql)
{
	*sql = NULL;
	if (!store_has_table(st, OWN(st, "suql_table_props")))
		return 0;
	const char *args[] = {name, CATALOG_VIEW};
	StoreCursor *c;
	if (store_query(st, OWN(st, "SELECT value FROM suql_table_props WHERE lower(tbl)=lower(?1) "
	                "AND prop=?2"), args, 2, &c, NULL) != SUQL_OK)
		return 0;
	if (store_next(c) > 0)
		*sql = xstrdup(store_text(c, 0));
	store_done(c);
	return *sql != NULL;
}

int catalog_views(Store *st, char ***names, char ***sqls)
{
	*names = *sqls = NULL;
	if (!store_has_table(st, OWN(st, "suql_table_props")))
		return 0;
	const char *args[] = {CATALOG_VIEW};
	StoreCursor *c;
	int n = 0;
	if (store_query(st, OWN(st, "SELECT tbl, value FROM suql_table_props WHERE prop=?1 ORDER "
	                "BY tbl"), args, 1, &c, NULL) != SUQL_OK)
		return 0;
	while (store_next(c) > 0) {
		*names = xrealloc(*names, ((size_t)n + 1) * sizeof **names);
		*sqls = xrealloc(*sqls, ((size_t)n + 1) * sizeof **sqls);
		(*names)[n] = xstrdup(store_text(c, 0));
		(*sqls)[n++] = xstrdup(store_text(c, 1));
	}
	store_done(c);
	return n;
}

/* The SUQL types recorded for table's columns, as the catalog spells the names (rows of
   tbl, col, type; none when the catalog has none), read in one statement: the binder reads
   every table of a statement. */
static SuqlStatus recorded(Store *st, const char *table, char ***rows, int *n, SuqlErr *err)
{
	*rows = NULL;
	*n = 0;
	if (!store_has_table(st, OWN(st, "suql_catalog")))
		return SUQL_OK;
	const char *args[] = {table};
	StoreCursor *c;
	if (store_query(st, OWN(st, "SELECT tbl, col, type FROM suql_catalog WHERE "
	                        "lower(tbl)=lower(?1)"), args, 1, &c,
	                err) != SUQL_OK)
		return SUQL_ERROR;
	while (store_next(c) > 0) {
		*rows = xrealloc(*rows, ((size_t)*n + 3) * sizeof **rows);
		for (int k = 0; k < 3; k++) {
			const char *v = store_text(c, k);
			(*rows)[(*n)++] = xstrdup(v ? v : "");
		}
	}
	store_done(c);
	return SUQL_OK;
}

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* c gets the SUQL type recorded as type for table.column: 1, or 0 (c zeroed) when type
   is not one. */
static int fill(CatColumn *c, const char *table, const char *column, const char *type)
{
	memset(c, 0, sizeof *c);
	if (catalog_parse_type(type, c, NULL) <= 0) {
		catalog_column_free(c);
		return 0;
	}
	c->table = xstrdup(table);
	c->column = xstrdup(column);
	return 1;
}

int catalog_get(Store *st, const char *table, const char *column, CatColumn *out)
{
	memset(out, 0, sizeof *out);
	if (!store_has_table(st, OWN(st, "suql_catalog")))
		return 0;
	const char *args[] = {table, column};
	StoreCursor *c;
	if (store_query(st, OWN(st, "SELECT tbl, col, type FROM suql_catalog WHERE "
	                        "lower(tbl)=lower(?1) AND lower(col)=lower(?2)"),
	                args, 2, &c, NULL) != SUQL_OK)
		return 0;
	int found = 0;
	if (store_next(c) > 0) {
		const char *type = store_text(c, 2);
		found = fill(out, store_text(c, 0), store_text(c, 1), type ? type : "");
	}
	store_done(c);
	return found;
}

SuqlStatus catalog_table(Store *st, const char *table, CatColumn **cols, int *n, SuqlErr *err)
{
	*cols = NULL;
	*n = 0;
	StoreColumn *sc;
	int nsc, nr;
	char **rec;
	if (store_columns(st, table, &sc, &nsc, err) != SUQL_OK)
		return SUQL_ERROR;
	if (recorded(st, table, &rec, &nr, err) != SUQL_OK) {
		store_columns_free(sc, nsc);
		return SUQL_ERROR;
	}
	*cols = xcalloc((size_t)nsc + 1, sizeof **cols);
	for (int i = 0; i < nsc; i++) {
		CatColumn *c = &(*cols)[i];
		int k = 0;
		while (k < nr && !str_ieq(rec[k + 1], sc[i].name))
			k += 3;
		if (k >= nr || !fill(c, rec[k], rec[k + 1], rec[k + 2])) {
			memset(c, 0, sizeof *c);
			c->table = xstrdup(table);
			c->column = xstrdup(sc[i].name);
			c->type = xstrdup(sc[i].type);
		}
	}
	*n = nsc;
	free_strv(rec, nr);
	store_columns_free(sc, nsc);
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

SuqlStatus catalog_ddl(Store *st, const char *table, int max_enum, char **out, SuqlErr *err)
{
	CatColumn *cols;
	int n;
	*out = NULL;
	if (catalog_table(st, table, &cols, &n, err) != SUQL_OK)
		return SUQL_ERROR;
	/* the constraints the database keeps per column: NOT NULL, DEFAULT, the primary key */
	int *pk = xcalloc((size_t)n + 1, sizeof *pk), npk = 0;
	char **extra = xcalloc((size_t)n + 1, sizeof *extra);
	StoreColumn *sc;
	int nsc;
	if (store_columns(st, table, &sc, &nsc, NULL) == SUQL_OK) {
		for (int i = 0; i < n && i < nsc; i++) {
			const char *dflt = sc[i].dflt;
			pk[i] = sc[i].pk;
			npk += pk[i] > 0;
			if (sc[i].notnull || dflt)
				extra[i] = xprintf("%s%s%s", sc[i].notnull ? " NOT NULL" : "",
				                   dflt ? " DEFAULT " : "", dflt ? dflt : "");
		}
		store_columns_free(sc, nsc);
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
