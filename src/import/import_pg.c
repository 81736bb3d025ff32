/*
 * import_pg.c: importing a file into a PostgreSQL database. The file is read, checked and
 * typed by the importer as for SQLite (every message, position and option is the same),
 * into a table of a private in-memory SQLite database; the table is then created in
 * Postgres with the Postgres types its columns are stored as, its rows sent with one
 * COPY ... FROM STDIN, and its SUQL types recorded in suql.catalog, all in one
 * transaction: an error anywhere leaves the database as it was. Lists (JSON arrays in
 * SQLite) become Postgres arrays (text[], bigint[], double precision[]).
 *
 * Ownership: everything made here is freed here; the Store is borrowed.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

/* The Postgres type of a staged column: its SUQL type (cat, may be NULL) or its SQLite
   declared type. */
static const char *pg_type(const CatColumn *cat, const char *decl)
{
	const char *t = cat ? cat->type : decl;
	int list = cat && cat->is_array;
	if (cat && (cat->free_text || cat->is_enum))
		return list ? "text[]" : "text";
	if (str_has_prefix(t, "INTEGER") || str_has_prefix(t, "INT"))
		return list ? "bigint[]" : "bigint";
	if (str_has_prefix(t, "REAL"))
		return list ? "double precision[]" : "double precision";
	if (str_has_prefix(t, "BOOL"))
		return list ? "boolean[]" : "boolean";
	return list ? "text[]" : "text";
}

/* A value in COPY's text format: \N for NULL, backslash escapes for \ tab CR LF. */
static void copy_text(SBuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': sb_puts(b, "\\\\"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\r': sb_puts(b, "\\r"); break;
		default: sb_putc(b, *s);
		}
	}
}

/* A JSON array (as the importer stored it) as a Postgres array literal:
   {"a","b \"c\""} (every element quoted, NULL as NULL). 0 when it is not an array. */
static int pg_array(const char *json, SBuf *out)
{
	json_t *a = json_loads(json, JSON_DECODE_ANY, NULL);
	if (!json_is_array(a)) {
		json_decref(a);
		return 0;
	}
	size_t i;
	json_t *e;
	sb_putc(out, '{');
	json_array_foreach(a, i, e) {
		if (i)
			sb_putc(out, ',');
		if (json_is_null(e)) {
			sb_puts(out, "NULL");
			continue;
		}
		char *t = json_is_string(e) ? xstrdup(json_string_value(e))
		                            : json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
		sb_putc(out, '"');
		for (const char *p = t; *p; p++) {
			if (*p == '"' || *p == '\\')
				sb_putc(out, '\\');
			sb_putc(out, *p);
		}
		sb_putc(out, '"');
		free(t);
	}
	sb_putc(out, '}');
	json_decref(a);
	return 1;
}

/* The staged table into Postgres (inside the caller's transaction). */
static SuqlStatus transfer(Store *stage, Store *pg, const char *table, SuqlErr *err)
{
	CatColumn *cols = NULL;
	int n = 0;
	StoreColumn *sc = NULL;
	int nsc = 0;
	SuqlStatus s = catalog_table(stage, table, &cols, &n, err);
	if (s == SUQL_OK)
		s = store_columns(stage, table, &sc, &nsc, err);
	SBuf ddl = SBUF_INIT, data = SBUF_INIT, cell = SBUF_INIT;
	sb_puts(&ddl, "CREATE TABLE ");
	sb_put_ident(&ddl, table, strlen(table));
	sb_puts(&ddl, " (");
	int *list = xcalloc((size_t)n + 1, sizeof *list);
	for (int i = 0; s == SUQL_OK && i < n && i < nsc; i++) {
		const CatColumn *cat = cols[i].free_text || cols[i].is_enum || cols[i].is_array
		                       ? &cols[i] : NULL;
		list[i] = cat && cat->is_array;
		sb_puts(&ddl, i ? ", " : "");
		sb_put_ident(&ddl, cols[i].column, strlen(cols[i].column));
		sb_printf(&ddl, " %s", pg_type(cat, sc[i].type));
	}
	sb_puts(&ddl, ")");
	if (s == SUQL_OK)
		s = store_exec(pg, sb_str(&ddl), err);
	SBuf q = SBUF_INIT;
	sb_puts(&q, "SELECT * FROM ");
	sb_put_ident(&q, table, strlen(table));
	sb_puts(&q, " ORDER BY rowid");
	char *sel = sb_steal(&q);
	StoreCursor *c = NULL;
	if (s == SUQL_OK)
		s = store_query(stage, sel, NULL, 0, &c, err);
	while (s == SUQL_OK && store_next(c) > 0) {
		for (int i = 0; i < n; i++) {
			const char *v = store_text(c, i);
			sb_puts(&data, i ? "\t" : "");
			if (!v) {
				sb_puts(&data, "\\N");
				continue;
			}
			sb_truncate(&cell, 0);
			if (list[i] && pg_array(v, &cell))
				copy_text(&data, sb_str(&cell));
			else
				copy_text(&data, v);
		}
		sb_putc(&data, '\n');
	}
	if (c)
		store_done(c);
	char *copy = NULL;
	if (s == SUQL_OK) {
		sb_puts(&q, "COPY ");
		sb_put_ident(&q, table, strlen(table));
		sb_puts(&q, " FROM STDIN");
		copy = sb_steal(&q);
		s = store_pg_copy(pg, copy, data.s ? data.s : "", data.len, err);
	}
	for (int i = 0; s == SUQL_OK && i < n; i++)
		if (cols[i].free_text || cols[i].is_enum || cols[i].is_array)
			s = catalog_set(pg, table, cols[i].column, cols[i].type, err);
	free(copy);
	free(sel);
	free(list);
	sb_free(&ddl);
	sb_free(&data);
	sb_free(&cell);
	store_columns_free(sc, nsc);
	catalog_columns_free(cols, n);
	return s;
}

SuqlStatus imp_pg_buffer(Store *pg, const char *name, const char *data, size_t len,
                         const char *table, const ImportOptions *opt, SuqlErr *err)
{
	if (opt->index)
		return err_set(err, SUQL_USAGE, "--index: on PostgreSQL, run :index after the import "
		               "(it makes GIN full-text indexes)");
	if (store_has_table(pg, table))
		return err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: importing into a "
		               "table that exists (%s); import into a new table, then INSERT ... "
		               "SELECT", table);
	sqlite3 *db = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		sqlite3_close(db);
		return err_set(err, SUQL_IO, "cannot open an in-memory SQLite database");
	}
	Store *stage = store_sqlite_wrap(db);
	SuqlStatus s = import_buffer(stage, name, data, len, table, opt, err);
	/* inside the user's own transaction, a savepoint of it */
	int own = !store_pg_in_transaction(pg);
	if (s == SUQL_OK)
		s = own ? store_exec(pg, "BEGIN", err) : store_savepoint(pg, "suql_import", err);
	if (s == SUQL_OK) {
		s = transfer(stage, pg, table, err);
		if (s == SUQL_OK)
			s = own ? store_exec(pg, "COMMIT", err) : store_release(pg, "suql_import", err);
		else if (own)
			store_exec(pg, "ROLLBACK", NULL);
		else
			store_rollback_to(pg, "suql_import");
	}
	store_close(stage);
	sqlite3_close(db);
	return s;
}
