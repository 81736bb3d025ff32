/*
 * catalog.h: the SUQL types of columns, stored in the database itself (through the Store,
 * store.h) so that a database remembers which columns are free text, lists, or enums.
 *
 * SQLite stores every SUQL column as an ordinary column: FREE_TEXT as TEXT, every list
 * type (TEXT[], FREE_TEXT[], INTEGER[], ENUM(...)[]) as a JSON array in TEXT, ENUM as
 * TEXT. The SUQL type, as declared, lives in the table suql_catalog(tbl, col, type,
 * enum_values). Columns absent from it are plain SQL columns. Tables whose names start
 * with "suql_" belong to suql and are hidden from listings.
 *
 * Properties of whole tables live in suql_table_props(tbl, prop, value). One is known:
 * CATALOG_LABELS = "on" marks a table that holds evaluation labels (the answers a data set
 * is checked against): chat mode neither shows it to the model nor lets its queries read
 * it (:labels sets it).
 *
 * Ownership: CatColumn fields are heap memory released by catalog_column_free;
 * catalog_table returns a heap array released by catalog_columns_free.
 */
#ifndef SUQL_CATALOG_H
#define SUQL_CATALOG_H

#include "base/suql.h"
#include "store/store.h"

typedef struct CatColumn {
	char *table;
	char *column;
	char *type;          /* the SUQL type as declared, normalised: "FREE_TEXT[]",
	                        "ENUM('cheap','moderate')", "TEXT[]", or the SQL type */
	int free_text;       /* FREE_TEXT or FREE_TEXT[] */
	int is_array;        /* any T[] */
	int is_enum;         /* ENUM or ENUM[] */
	char **enum_values;  /* declared values; NULL for an open enum (the values stored) */
	int nenum;
} CatColumn;

/* Parse a SUQL column type ("FREE_TEXT[]", "enum('a', 'b')", "INTEGER[]") into c->type,
   free_text, is_array, is_enum and enum_values; table and column are left alone.
   Returns 1 when the type is a SUQL type (needs a catalog row), 0 for a plain SQL type
   (c->type is then a copy of it), -1 when it is malformed (err says why). */
int catalog_parse_type(const char *decl, CatColumn *c, SuqlErr *err);

/* The SQLite type a SUQL type is stored as ("TEXT" for all of them). */
const char *catalog_storage_type(const CatColumn *c);

/* Record (or replace) the SUQL type of table.column; type is a declaration as above. */
SuqlStatus catalog_set(Store *st, const char *table, const char *column, const char *type,
                       SuqlErr *err);
SuqlStatus catalog_drop_table(Store *st, const char *table, SuqlErr *err);
SuqlStatus catalog_rename_table(Store *st, const char *from, const char *to, SuqlErr *err);

/* Look up table.column (case-insensitive). Returns 1 and fills out when the column has a
   SUQL type, 0 when it is a plain column or unknown. */
int catalog_get(Store *st, const char *table, const char *column, CatColumn *out);

/* Every column of table in declaration order (from PRAGMA table_info), with SUQL types
   where the catalog has them. SUQL_ERROR when the table does not exist. */
SuqlStatus catalog_table(Store *st, const char *table, CatColumn **cols, int *n,
                         SuqlErr *err);

/* The table's definition in SUQL: CREATE TABLE t (name TEXT, reviews FREE_TEXT[], ...);
   ENUM values are listed when there are at most max_enum of them (0: always). */
SuqlStatus catalog_ddl(Store *st, const char *table, int max_enum, char **out, SuqlErr *err);

/* Set (value NULL: remove) a property of table. */
#define CATALOG_LABELS "labels"
SuqlStatus catalog_prop_set(Store *st, const char *table, const char *prop, const char *value,
                            SuqlErr *err);
/* The tables whose prop is value, by name: a heap array of heap strings; returns its size. */
int catalog_prop_tables(Store *st, const char *prop, const char *value, char ***names);
/* Whether table is marked as holding evaluation labels. */
int catalog_is_labels(Store *st, const char *table);

/* Views whose text suql keeps (CATALOG_VIEW: the CREATE VIEW statement as written): a view
   with free text, which a statement reading it expands into itself (engine/bind_view.c).
   catalog_view_get: 1 and *sql (heap) when name is one, else 0. catalog_views: their
   names and texts, by name (heap arrays of heap strings); returns their number. */
#define CATALOG_VIEW "view"
int catalog_view_get(Store *st, const char *name, char **sql);
int catalog_views(Store *st, char ***names, char ***sqls);

void catalog_column_free(CatColumn *c);
void catalog_columns_free(CatColumn *cols, int n);

#endif
