/*
 * store.h: the storage seam. Everything suql keeps or reads in the user's database is
 * reached through a Store: statements run (store_exec, store_run), rows read through a
 * cursor (store_query), savepoints, the tables a user sees and the columns of a table, and
 * the controls a running statement needs (interrupt, how long to wait for a lock, the
 * largest value). A Store is a table of operations (StoreOps) over a backend's handle;
 * SQLite is the main backend (store_sqlite.c); PostgreSQL (store_pg.c, through libpq) is
 * the second, for the statements doc/postgres.md lists.
 *
 * What goes through the seam now: opening and closing the database (engine.c), the
 * catalog of SUQL types (catalog.c), the listings of :tables, :schema, :labels,
 * completion and the chat agent's schema, the importer's catalog and savepoint, and the
 * session's interrupt and value-length limit. What still reaches SQLite directly, through
 * store_sqlite (src/README.md lists the files): the executor's statements and the SQL
 * functions it registers, ENUM mappings, the importer's inserts, the retrieval index
 * (FTS5), the evaluation harness's own files and the LLM cache (a local SQLite file
 * whatever the backend). doc/architecture.md says why and what comes next.
 *
 * Statement text given to a Store is in the backend's dialect; parameters are written ?1,
 * ?2, ... and are text (NULL for SQL NULL).
 *
 * Ownership: a Store made by store_pg_open owns its connection; one made by
 * store_sqlite_open owns its connection (store_close closes
 * it); one made by store_sqlite_wrap borrows it. A cursor is freed by store_done; the text
 * store_text returns is valid until the next store_next or store_done. StoreColumn arrays
 * are freed with store_columns_free.
 */
#ifndef SUQL_STORE_H
#define SUQL_STORE_H

#include <sqlite3.h>
#include <stddef.h>

#include "base/row.h"
#include "base/suql.h"

typedef struct Store Store;
typedef struct StoreCursor StoreCursor;

/* A column of a table, as the backend declares it. */
typedef struct StoreColumn {
	char *name;
	char *type;           /* the declared type, "" when none */
	int notnull;
	char *dflt;           /* the DEFAULT expression's text, NULL when none */
	int pk;               /* position in the primary key from 1, 0 when not in it */
} StoreColumn;

/* A table or view a user sees (the backend's own and suql's suql_* tables are not). */
typedef struct StoreTable {
	char *name;
	int view;
	char *sql;            /* the definition as the backend keeps it, NULL when none */
} StoreTable;

/* What a cell of a result row holds. */
typedef enum StoreKind {
	STORE_NULL, STORE_INTEGER, STORE_REAL, STORE_TEXT,
	STORE_BLOB            /* SQLite's bytes (a Row reads them as text) */
} StoreKind;

/* What a backend implements; every Store starts with a pointer to its ops. */
typedef struct StoreOps {
	const char *name;     /* "SQLite" */
	void (*close)(Store *s);
	SuqlStatus (*run)(Store *s, const char *sql, const char *const *params, int nparams,
	                  SuqlErr *err);
	SuqlStatus (*query)(Store *s, const char *sql, const char *const *params, int nparams,
	                    StoreCursor **out, SuqlErr *err);
	int (*next)(StoreCursor *c);
	const char *(*text)(StoreCursor *c, int col);
	long long (*integer)(StoreCursor *c, int col);
	void (*done)(StoreCursor *c);
	int (*has_table)(Store *s, const char *name);
	SuqlStatus (*tables)(Store *s, StoreTable **out, int *n, SuqlErr *err);
	SuqlStatus (*columns)(Store *s, const char *table, StoreColumn **out, int *n,
	                      SuqlErr *err);
	void (*interrupt)(Store *s);
	void (*busy_timeout)(Store *s, double seconds);
	int (*value_limit)(Store *s, int bytes);
	sqlite3 *(*sqlite)(Store *s);
	int (*ncols)(StoreCursor *c);
	const char *(*colname)(StoreCursor *c, int col);
	StoreKind (*kind)(StoreCursor *c, int col);
	const char *(*version)(Store *s);
	size_t (*bytes)(StoreCursor *c, int col);
	const char *own;      /* how suql's own table names start: "suql_", or "suql." (a
	                         schema of suql's own) */
	const char *row_name; /* an expression naming each row of a table: "rowid" */
	SuqlStatus (*top_values)(Store *s, const char *table, const char *column, int list,
	                         StoreCursor **out, SuqlErr *err);
} StoreOps;

struct Store {
	const StoreOps *ops;
};
struct StoreCursor {
	const StoreOps *ops;
};

/* ---- the SQLite backend (store_sqlite.c) ---- */

/* Open (creating it when missing, unless readonly) the SQLite database at path
   (":memory:" for none). SUQL_IO, saying why, when it cannot be opened or is not SQLite. */
Store *store_sqlite_open(const char *path, int readonly, SuqlErr *err);
/* A Store over a connection someone else opened and closes (tools, tests). */
Store *store_sqlite_wrap(sqlite3 *db);

/* ---- the PostgreSQL backend (store_pg.c) ---- */

/* Whether path names a PostgreSQL database: a postgresql:// or postgres:// URI, or
   "pg:" followed by a libpq conninfo (what --pg makes). */
int store_pg_target(const char *path);
/* Connect (libpq: the PG* environment variables and ~/.pgpass fill in what target leaves
   out). SUQL_IO, with libpq's reason and what to check, when it cannot. */
Store *store_pg_open(const char *target, SuqlErr *err);
/* Where a PostgreSQL store is connected, for people: "dbname as user on host:port" (no
   password); the caller frees it. */
char *store_pg_describe(Store *s);
/* Where in its statement the last error of a PostgreSQL store was (a byte offset), -1
   when the server did not say (or another backend). */
long store_pg_error_offset(Store *s);
/* Whether a transaction is open on a PostgreSQL store (the user's BEGIN). */
int store_pg_in_transaction(Store *s);
/* Whether that transaction failed (only ROLLBACK runs there now). */
int store_pg_in_failed_transaction(Store *s);
/* COPY ... FROM STDIN (sql) with data, in COPY's text format, as one statement. */
SuqlStatus store_pg_copy(Store *s, const char *sql, const char *data, size_t len, SuqlErr *err);
/* libpq's version (PQlibVersion); 0 when libpq cannot be loaded (err says why). */
int store_pg_libversion(SuqlErr *err);

/* ---- any backend ---- */

void store_close(Store *s);
const char *store_backend(const Store *s);   /* "SQLite", "PostgreSQL" */
const char *store_version(Store *s);         /* the library's or the server's version */
/* How suql's own tables are named in this backend: "suql_" + name (SQLite), or
   "suql." + name (PostgreSQL, a schema of suql's own). */
const char *store_own(const Store *s);

/* Run a statement that returns no rows (or whose rows are not wanted): SUQL_ERROR with
   the backend's message. store_exec takes no parameters (and may hold several
   statements, separated by ';'). */
SuqlStatus store_exec(Store *s, const char *sql, SuqlErr *err);
SuqlStatus store_run(Store *s, const char *sql, const char *const *params, int nparams,
                     SuqlErr *err);

/* Rows: store_query prepares sql with its parameters; store_next steps to the next row
   (1), the end (0) or an error (-1); store_text (NULL for SQL NULL) and store_integer read
   a column of the current row; store_done ends the cursor. */
SuqlStatus store_query(Store *s, const char *sql, const char *const *params, int nparams,
                       StoreCursor **out, SuqlErr *err);
int store_next(StoreCursor *c);
const char *store_text(StoreCursor *c, int col);
long long store_integer(StoreCursor *c, int col);
/* The length in bytes of what store_text returns (an SQLite text may hold NULs); 0 for
   NULL. */
size_t store_bytes(StoreCursor *c, int col);
void store_done(StoreCursor *c);
/* The cursor's result columns: how many, their names, and what the current row's cell
   holds. */
int store_column_count(StoreCursor *c);
const char *store_column_name(StoreCursor *c, int col);
StoreKind store_column_kind(StoreCursor *c, int col);

/* A savepoint around work that must happen entirely or not at all (name: an identifier). */
SuqlStatus store_savepoint(Store *s, const char *name, SuqlErr *err);
SuqlStatus store_release(Store *s, const char *name, SuqlErr *err);
void store_rollback_to(Store *s, const char *name);

/* The schema: whether a table of that name exists (suql's own included), the tables and
   views a user sees by name, and a table's columns in their order (SUQL_ERROR when the
   table has none: it does not exist). */
int store_has_table(Store *s, const char *name);
/* An expression naming each row of a table in a SELECT of it (a row's name where a table
   has no key of its own): SQLite's rowid, PostgreSQL's ctid as text. */
const char *store_row_name(Store *s);
/* A column's most frequent text values (a list column's elements) in the table's first
   20000 rows: rows of (value, its count, how many distinct values), most frequent first
   (ties in binary order), at most 12. */
SuqlStatus store_top_values(Store *s, const char *table, const char *column, int list,
                            StoreCursor **out, SuqlErr *err);
SuqlStatus store_tables(Store *s, StoreTable **out, int *n, SuqlErr *err);
void store_tables_free(StoreTable *t, int n);
SuqlStatus store_columns(Store *s, const char *table, StoreColumn **out, int *n, SuqlErr *err);
void store_columns_free(StoreColumn *c, int n);

/* Controls: stop the running statement (safe in a signal handler), wait up to seconds for
   a database another process holds, and allow values of at most bytes (0: the backend's
   largest), returning the limit that was in force before. */
void store_interrupt(Store *s);
void store_busy_timeout(Store *s, double seconds);
int store_value_limit(Store *s, int bytes);

/* The SQLite connection under a Store of the SQLite backend, NULL for another backend:
   what the code not yet behind the seam uses. */
sqlite3 *store_sqlite(Store *s);

/* ---- rows (base/row.h) ----
   A Row over an SQLite statement stepped to a row, or over a cursor's current row (its
   kinds as store_column_kind says, an integer or a real read from its text). Both borrow
   their handle. */
void store_row_sqlite(Row *r, sqlite3_stmt *st);
void store_row_cursor(Row *r, StoreCursor *c);

#endif
