/*
 * store_row.c: Rows (base/row.h) over what the storage seam reads: an SQLite statement
 * stepped to a row, its columns read with sqlite3_column_*; and a store cursor's current
 * row, its kinds as the backend reports them (store_column_kind) and its numbers read from
 * their text, as the server sent it.
 */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

/* ---- an SQLite statement ---- */

static sqlite3_stmt *stmt(const Row *r)
{
	return r->h;
}

static int sq_count(const Row *r)
{
	return sqlite3_column_count(stmt(r));
}

static const char *sq_name(const Row *r, int col)
{
	return sqlite3_column_name(stmt(r), col);
}

static RowKind sq_kind(const Row *r, int col)
{
	/* SQLITE_INTEGER .. SQLITE_NULL are 1 .. 5, as RowKind numbers them */
	return (RowKind)sqlite3_column_type(stmt(r), col);
}

static long long sq_integer(const Row *r, int col)
{
	return sqlite3_column_int64(stmt(r), col);
}

static double sq_real(const Row *r, int col)
{
	return sqlite3_column_double(stmt(r), col);
}

static const char *sq_text(const Row *r, int col, size_t *n)
{
	sqlite3_stmt *st = stmt(r);
	int t = sqlite3_column_type(st, col);
	const void *p = t == SQLITE_NULL ? NULL
	                : t == SQLITE_BLOB ? sqlite3_column_blob(st, col)
	                                   : (const void *)sqlite3_column_text(st, col);
	*n = p ? (size_t)sqlite3_column_bytes(st, col) : 0;
	return p;
}

static const RowOps sqlite_row = {sq_count, sq_name, sq_kind, sq_integer, sq_real, sq_text};

void store_row_sqlite(Row *r, sqlite3_stmt *st)
{
	memset(r, 0, sizeof *r);
	r->ops = &sqlite_row;
	r->h = st;
}

/* ---- a store cursor ---- */

static StoreCursor *cursor(const Row *r)
{
	return r->h;
}

static int cu_count(const Row *r)
{
	return store_column_count(cursor(r));
}

static const char *cu_name(const Row *r, int col)
{
	return store_column_name(cursor(r), col);
}

static RowKind cu_kind(const Row *r, int col)
{
	switch (store_column_kind(cursor(r), col)) {
	case STORE_NULL: return ROW_NULL;
	case STORE_INTEGER: return ROW_INTEGER;
	case STORE_REAL: return ROW_REAL;
	default: return ROW_TEXT;
	}
}

static long long cu_integer(const Row *r, int col)
{
	const char *t = store_text(cursor(r), col);
	return t ? strtoll(t, NULL, 10) : 0;
}

static double cu_real(const Row *r, int col)
{
	const char *t = store_text(cursor(r), col);
	return t ? strtod(t, NULL) : 0;
}

static const char *cu_text(const Row *r, int col, size_t *n)
{
	const char *t = store_text(cursor(r), col);
	*n = t ? strlen(t) : 0;
	return t;
}

static const RowOps cursor_row = {cu_count, cu_name, cu_kind, cu_integer, cu_real, cu_text};

void store_row_cursor(Row *r, StoreCursor *c)
{
	memset(r, 0, sizeof *r);
	r->ops = &cursor_row;
	r->h = c;
}
