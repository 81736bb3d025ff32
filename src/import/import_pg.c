/*
 * import_pg.c: importing a file into a PostgreSQL database. The file is read, checked and
 * typed by the importer as for SQLite (every message, position and option is the same),
 * into a table of a private in-memory SQLite database; the table is then created in
 * Postgres with the Postgres types its columns are stored as, its rows sent with one
 * COPY ... FROM STDIN, and its SUQL types recorded in suql.catalog, all in one
 * transaction: an error anywhere leaves the database as it was. Lists (JSON arrays in
 * SQLite) become Postgres arrays (text[], bigint[], double precision[]).
 *
 * Into a table that exists, the stage first gets an empty table like it (its columns, the
 * class each value is checked by, its SUQL types and its arrays as lists), so the file is
 * checked exactly as SQLite checks an append (a column the table lacks, a bad value: the
 * same messages); the rows then go with one COPY naming the columns the file has, in a
 * transaction (or a savepoint of the user's).
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

/* The column list "a", "b" of names[0..n). */
static void put_names(SBuf *b, char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		sb_puts(b, i ? ", " : "");
		sb_put_ident(b, names[i], strlen(names[i]));
	}
}

/* The staged table's columns names[0..n) into the Postgres table pgtable's columns of the
   same names, with one COPY: every value is COPY data, never SQL. list[i]: the column is
   a Postgres array (its staged JSON arrays become array literals). */
static SuqlStatus copy_rows(Store *stage, const char *table, Store *pg, const char *pgtable,
                            char *const *names, const int *list, int n, SuqlErr *err)
{
	SBuf q = SBUF_INIT, data = SBUF_INIT, cell = SBUF_INIT;
	sb_puts(&q, "SELECT ");
	put_names(&q, names, n);
	sb_puts(&q, " FROM ");
	sb_put_ident(&q, table, strlen(table));
	sb_puts(&q, " ORDER BY rowid");
	StoreCursor *c = NULL;
	SuqlStatus s = store_query(stage, sb_str(&q), NULL, 0, &c, err);
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
	if (s == SUQL_OK) {
		sb_truncate(&q, 0);
		sb_puts(&q, "COPY ");
		sb_put_ident(&q, pgtable, strlen(pgtable));
		sb_puts(&q, " (");
		put_names(&q, names, n);
		sb_puts(&q, ") FROM STDIN");
		s = store_pg_copy(pg, sb_str(&q), data.s ? data.s : "", data.len, err);
	}
	sb_free(&q);
	sb_free(&data);
	sb_free(&cell);
	return s;
}

/* The staged table into a new Postgres table (inside the caller's transaction). */
static SuqlStatus transfer(Store *stage, Store *pg, const char *table, SuqlErr *err)
{
	CatColumn *cols = NULL;
	int n = 0;
	StoreColumn *sc = NULL;
	int nsc = 0;
	SuqlStatus s = catalog_table(stage, table, &cols, &n, err);
	if (s == SUQL_OK)
		s = store_columns(stage, table, &sc, &nsc, err);
	SBuf ddl = SBUF_INIT;
	sb_puts(&ddl, "CREATE TABLE ");
	sb_put_ident(&ddl, table, strlen(table));
	sb_puts(&ddl, " (");
	int *list = xcalloc((size_t)n + 1, sizeof *list);
	char **names = xcalloc((size_t)n + 1, sizeof *names);
	for (int i = 0; s == SUQL_OK && i < n && i < nsc; i++) {
		const CatColumn *cat = cols[i].free_text || cols[i].is_enum || cols[i].is_array
		                       ? &cols[i] : NULL;
		list[i] = cat && cat->is_array;
		names[i] = cols[i].column;
		sb_puts(&ddl, i ? ", " : "");
		sb_put_ident(&ddl, cols[i].column, strlen(cols[i].column));
		sb_printf(&ddl, " %s", pg_type(cat, sc[i].type));
	}
	sb_puts(&ddl, ")");
	if (s == SUQL_OK)
		s = store_exec(pg, sb_str(&ddl), err);
	if (s == SUQL_OK)
		s = copy_rows(stage, table, pg, table, names, list, n, err);
	for (int i = 0; s == SUQL_OK && i < n; i++)
		if (cols[i].free_text || cols[i].is_enum || cols[i].is_array)
			s = catalog_set(pg, table, cols[i].column, cols[i].type, err);
	free(names);
	free(list);
	sb_free(&ddl);
	store_columns_free(sc, nsc);
	catalog_columns_free(cols, n);
	return s;
}

/* The class the importer checks a Postgres column's values (or a list's elements) by:
   INTEGER, REAL, BOOLEAN or TEXT (Postgres checks the rest when the rows arrive). */
static const char *stage_class(const char *t)
{
	static const char *const ints[] = {"smallint", "integer", "bigint"};
	static const char *const reals[] = {"double precision", "real", "numeric"};
	for (size_t i = 0; i < 3; i++)
		if (str_has_prefix(t, ints[i]))
			return "INTEGER";
	for (size_t i = 0; i < 3; i++)
		if (str_has_prefix(t, reals[i]))
			return "REAL";
	return str_has_prefix(t, "boolean") ? "BOOLEAN" : "TEXT";
}

static int is_pg_array(const char *t)
{
	size_t n = strlen(t);
	return n >= 2 && strcmp(t + n - 2, "[]") == 0;
}

/* The table's name as Postgres has it (table names it ignoring case), or NULL when it is a
   view (*view set). Heap. */
static char *pg_table_name(Store *pg, const char *table, int *view, SuqlErr *err)
{
	StoreTable *tabs;
	int n;
	*view = 0;
	if (store_tables(pg, &tabs, &n, err) != SUQL_OK)
		return NULL;
	int k = -1;
	for (int i = 0; i < n; i++)
		if (strcmp(tabs[i].name, table) == 0 || (k < 0 && str_ieq(tabs[i].name, table)))
			k = i;
	char *name = NULL;
	if (k >= 0 && tabs[k].view)
		*view = 1;
	else
		name = xstrdup(k >= 0 ? tabs[k].name : table);
	store_tables_free(tabs, n);
	return name;
}

/* Into the stage, an empty table like the Postgres one: its columns, in their order, with
   the type the importer checks each by; SUQL types (and Postgres arrays, as lists) in the
   stage's catalog. */
static SuqlStatus stage_like(Store *stage, const char *table, const CatColumn *cols,
                             const StoreColumn *sc, int n, SuqlErr *err)
{
	SBuf ddl = SBUF_INIT;
	sb_puts(&ddl, "CREATE TABLE ");
	sb_put_ident(&ddl, table, strlen(table));
	sb_puts(&ddl, " (");
	for (int i = 0; i < n; i++) {
		int suql = cols[i].free_text || cols[i].is_enum || cols[i].is_array;
		sb_puts(&ddl, i ? ", " : "");
		sb_put_ident(&ddl, sc[i].name, strlen(sc[i].name));
		sb_printf(&ddl, " %s", suql || is_pg_array(sc[i].type) ? "TEXT" : stage_class(sc[i].type));
	}
	sb_puts(&ddl, ")");
	SuqlStatus s = store_exec(stage, sb_str(&ddl), err);
	sb_free(&ddl);
	for (int i = 0; s == SUQL_OK && i < n; i++) {
		if (cols[i].free_text || cols[i].is_enum || cols[i].is_array) {
			s = catalog_set(stage, table, sc[i].name, cols[i].type, err);
		} else if (is_pg_array(sc[i].type)) {
			char *list = xprintf("%s[]", stage_class(sc[i].type));
			s = catalog_set(stage, table, sc[i].name, list, err);
			free(list);
		}
	}
	return s;
}

/* --types on a table that exists records the SUQL types it declares; on Postgres a type
   is kept only where the column is stored as the new-table path would store it. */
static SuqlStatus declared_types(Store *stage, Store *pg, const char *table,
                                 const char *pgtable, const CatColumn *was,
                                 const StoreColumn *sc, int n, SuqlErr *err)
{
	CatColumn *now;
	int nn;
	if (catalog_table(stage, table, &now, &nn, err) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; s == SUQL_OK && i < n && i < nn; i++) {
		const CatColumn *c = &now[i];
		if (!(c->free_text || c->is_enum || c->is_array) ||
		    (was[i].type && strcmp(was[i].type, c->type) == 0))
			continue;
		const char *want = pg_type(c, "TEXT");
		if (strcmp(want, sc[i].type) != 0)
			s = err_set(err, SUQL_USAGE, "--types: column %s of %s is %s on PostgreSQL, and "
			            "%s is stored as %s", sc[i].name, pgtable, sc[i].type, c->type, want);
		else
			s = catalog_set(pg, pgtable, sc[i].name, c->type, err);
	}
	catalog_columns_free(now, nn);
	return s;
}

/* Into a table that exists: the file is checked against the table's columns and types as
   the importer checks it on SQLite (the same messages), staged, then its rows appended
   with one COPY naming the columns the file has (the others get their defaults). */
static SuqlStatus append(Store *pg, Store *stage, const char *name, const char *data,
                         size_t len, const char *table, const ImportOptions *opt,
                         int *began, SuqlErr *err)
{
	int view;
	char *pgtable = pg_table_name(pg, table, &view, err);
	if (!pgtable)
		return view ? err_set(err, SUQL_ERROR, "%s is a view; import into a table", table)
		            : SUQL_ERROR;
	CatColumn *cols = NULL;
	StoreColumn *sc = NULL;
	int n = 0, nsc = 0, nnamed = 0;
	char **named = NULL;
	SuqlStatus s = catalog_table(pg, pgtable, &cols, &n, err);
	if (s == SUQL_OK)
		s = store_columns(pg, pgtable, &sc, &nsc, err);
	if (s == SUQL_OK && n != nsc)
		s = err_set(err, SUQL_ERROR, "%s: its columns changed while it was read", pgtable);
	if (s == SUQL_OK)
		s = stage_like(stage, table, cols, sc, n, err);
	if (s == SUQL_OK)
		s = imp_buffer_named(stage, name, data, len, table, opt, &named, &nnamed, err);
	int *list = xcalloc((size_t)nnamed + 1, sizeof *list);
	for (int i = 0; s == SUQL_OK && i < nnamed; i++)
		for (int k = 0; k < nsc; k++)
			if (strcmp(sc[k].name, named[i]) == 0)
				list[i] = is_pg_array(sc[k].type);
	if (s == SUQL_OK) {
		*began = 1;
		s = store_pg_in_transaction(pg) ? store_savepoint(pg, "suql_import", err)
		                                : (*began = 2, store_exec(pg, "BEGIN", err));
		if (s != SUQL_OK)
			*began = 0;
	}
	if (s == SUQL_OK && nnamed)
		s = copy_rows(stage, table, pg, pgtable, named, list, nnamed, err);
	if (s == SUQL_OK && opt->types)
		s = declared_types(stage, pg, table, pgtable, cols, sc, n, err);
	for (int i = 0; i < nnamed; i++)
		free(named[i]);
	free(named);
	free(list);
	store_columns_free(sc, nsc);
	catalog_columns_free(cols, n);
	free(pgtable);
	return s;
}

SuqlStatus imp_pg_buffer(Store *pg, const char *name, const char *data, size_t len,
                         const char *table, const ImportOptions *opt, SuqlErr *err)
{
	if (opt->index)
		return err_set(err, SUQL_USAGE, "--index: on PostgreSQL, run :index after the import "
		               "(it makes GIN full-text indexes)");
	sqlite3 *db = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		sqlite3_close(db);
		return err_set(err, SUQL_IO, "cannot open an in-memory SQLite database");
	}
	Store *stage = store_sqlite_wrap(db);
	SuqlStatus s;
	if (store_has_table(pg, table)) {
		/* began: 0 nothing, 1 a savepoint of the user's transaction, 2 our own */
		int began = 0;
		s = append(pg, stage, name, data, len, table, opt, &began, err);
		if (began == 1)
			s = s == SUQL_OK ? store_release(pg, "suql_import", err)
			                 : (store_rollback_to(pg, "suql_import"), s);
		else if (began == 2)
			s = s == SUQL_OK ? store_exec(pg, "COMMIT", err)
			                 : (store_exec(pg, "ROLLBACK", NULL), s);
	} else {
		s = import_buffer(stage, name, data, len, table, opt, err);
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
	}
	store_close(stage);
	sqlite3_close(db);
	return s;
}
