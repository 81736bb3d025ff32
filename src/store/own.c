/*
 * own.c: what suql trusts in an SQLite file (own.h): triggers on suql's tables, tables
 * named like suql's that suql did not make, and trusted_schema while suql writes its own
 * tables. The shapes below are the columns (name and declared type, in order) of the
 * tables suql makes under fixed names; they must follow the CREATE statements in
 * catalog.c, engine/enum.c, engine/engine_once.c and retrieve/retrieve.c (the robustness
 * tests open files made by each). The tables of one retrieval index (suql_psg_<id>, ...) are reached only
 * through suql_index's rows and are not checked here.
 */
#include "store/own.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct Shape {
	const char *name;
	const char *cols;   /* "name TYPE,name TYPE,..." (a name listed twice: either shape) */
} Shape;

static const Shape SHAPES[] = {
	{"suql_catalog", "tbl TEXT,col TEXT,type TEXT,enum_values TEXT"},
	{"suql_table_props", "tbl TEXT,prop TEXT,value TEXT"},
	{"suql_enum_map", "tbl TEXT,col TEXT,literal TEXT,vals TEXT,options TEXT,model TEXT"},
	{"suql_enum_map", "tbl TEXT,col TEXT,literal TEXT,vals TEXT,options TEXT,model TEXT,"
	                  "source TEXT"},
	{"suql_index", "id INTEGER,tbl TEXT,col TEXT,kind TEXT,chunk INTEGER,tokenizer TEXT,"
	               "nrows INTEGER,npassages INTEGER,built TEXT,embed_model TEXT,"
	               "embed_dim INTEGER,embed_table TEXT,format INTEGER"},
	{"suql_index_dirty", "idx INTEGER,rid INTEGER"},
	{"suql_bulk_done", "job TEXT,batch TEXT,done TEXT"},
};

int own_is_name(const char *name)
{
	return name && str_nieq(name, 5, "suql_");
}

void own_strings_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void push(char ***v, int *n, char *s)
{
	*v = xrealloc(*v, ((size_t)*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* The table's columns as "name TYPE,..." (types in upper case); NULL when it is not a
   table of the file. */
static char *columns_of(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name, upper(type) FROM pragma_table_info(?1) "
	                       "WHERE EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' "
	                       "AND name = ?1 COLLATE NOCASE) ORDER BY cid", -1, &st,
	                       NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	SBuf b = SBUF_INIT;
	int any = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (any++)
			sb_putc(&b, ',');
		sb_printf(&b, "%s %s", (const char *)sqlite3_column_text(st, 0),
		          (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (!any) {
		sb_free(&b);
		return NULL;
	}
	return sb_steal(&b);
}

char *own_foreign_shape(sqlite3 *db, const char *table)
{
	const char *name = NULL;
	char *have = NULL;
	int ok = 0;
	for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES && !ok; i++) {
		if (!str_ieq(table, SHAPES[i].name))
			continue;
		if (!name) {
			name = SHAPES[i].name;
			if (!(have = columns_of(db, name)))
				return NULL;   /* not made yet */
		}
		ok = str_ieq(have, SHAPES[i].cols);   /* one of the shapes suql makes or made */
	}
	free(have);
	if (!name || ok)
		return NULL;
	return xprintf("the table %s is named like suql's own but suql did not make it (its "
	               "columns differ): suql leaves it as it is and keeps nothing there; rename "
	               "it (ALTER TABLE %s RENAME TO another_name) to let suql make its own", name,
	               name);
}

/* The triggers on one table (NULL: on any of suql's), as "name" strings. */
static int triggers_on(sqlite3 *db, const char *table, char ***names, char ***tables)
{
	*names = NULL;
	if (tables)
		*tables = NULL;
	int n = 0, nt = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name, tbl_name FROM sqlite_schema WHERE type = "
	                       "'trigger' AND (?1 IS NULL AND lower(substr(tbl_name, 1, 5)) = "
	                       "'suql_' OR tbl_name = ?1 COLLATE NOCASE) ORDER BY name", -1, &st,
	                       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		push(names, &n, xstrdup((const char *)sqlite3_column_text(st, 0)));
		if (tables)
			push(tables, &nt, xstrdup((const char *)sqlite3_column_text(st, 1)));
	}
	sqlite3_finalize(st);
	return n;
}

static char *trigger_msg(const char *trigger, const char *table)
{
	SBuf b = SBUF_INIT;
	sb_printf(&b, "the database has a trigger on suql's own table %s (", table);
	sb_put_ident(&b, trigger, strlen(trigger));
	sb_puts(&b, "), which would run each time suql stores its data there: suql does not "
	            "write that table while it is there; drop it (DROP TRIGGER ");
	sb_put_ident(&b, trigger, strlen(trigger));
	sb_puts(&b, ") to let suql keep its data");
	return sb_steal(&b);
}

char *own_refusal(sqlite3 *db, const char *table)
{
	char *msg = own_foreign_shape(db, table);
	if (msg)
		return msg;
	char **names;
	int n = triggers_on(db, table, &names, NULL);
	if (n > 0)
		msg = trigger_msg(names[0], table);
	own_strings_free(names, n);
	return msg;
}

/* trusted_schema as the user had it, given back when the outermost write of suql's ends
   (writes nest: the catalog's inside a statement's) */
static _Thread_local sqlite3 *untrusted_db;
static _Thread_local int untrusted_depth, untrusted_was;

static void untrusted_begin(sqlite3 *db)
{
	if (untrusted_depth == 0 || untrusted_db != db) {
		untrusted_db = db;
		untrusted_depth = 0;
		untrusted_was = 1;
		sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &untrusted_was);
	}
	untrusted_depth++;
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
}

SuqlStatus own_write_begin(sqlite3 *db, const char *table, SuqlErr *err)
{
	char *msg = own_refusal(db, table);
	if (msg) {
		err_set(err, SUQL_ERROR, "%s", msg);
		free(msg);
		return SUQL_ERROR;
	}
	untrusted_begin(db);
	return SUQL_OK;
}

void own_untrusted(sqlite3 *db)
{
	untrusted_begin(db);
}

void own_write_end(sqlite3 *db)
{
	if (untrusted_db == db && untrusted_depth > 0 && --untrusted_depth > 0)
		return;
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, untrusted_db == db ? untrusted_was : 1,
	                  (int *)NULL);
	untrusted_db = NULL;
}

int own_triggers(sqlite3 *db, char ***names)
{
	return triggers_on(db, NULL, names, NULL);
}

int own_scan(sqlite3 *db, char ***msgs)
{
	*msgs = NULL;
	int n = 0;
	for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++) {
		if (i && str_ieq(SHAPES[i].name, SHAPES[i - 1].name))
			continue;
		char *m = own_foreign_shape(db, SHAPES[i].name);
		if (m)
			push(msgs, &n, m);
	}
	char **names, **tables;
	int nt = triggers_on(db, NULL, &names, &tables);
	for (int i = 0; i < nt; i++)
		push(msgs, &n, trigger_msg(names[i], tables[i]));
	own_strings_free(names, nt);
	own_strings_free(tables, nt);
	return n;
}
