/*
 * row.h: a result row as its readers see it, whatever produced it. The engine hands each
 * row of a statement to its sink as a Row; the renderer, the session, the chat agent and
 * the evaluation harness read the row's columns through it, never through a backend's own
 * handle. A Row is a table of operations (RowOps) over a producer's handle: an SQLite
 * statement stepped to a row or a store cursor (store/store.h: store_row_sqlite,
 * store_row_cursor), or the engine's own wrapper that puts the values of free-text result
 * columns in place of the texts the database returned (engine/exec_pg_rows.c).
 *
 * A column's kind is one of the five SQL value kinds. Its text is the value as text
 * (integers and reals as the producer prints them), NUL-terminated, with its length in
 * bytes; a blob's bytes come the same way. row_integer and row_real are meaningful for
 * ROW_INTEGER and ROW_REAL.
 *
 * Ownership: a Row borrows its producer's handle and is valid only during the callback
 * that receives it; the pointers its accessors return are valid until the producer moves
 * to the next row.
 */
#ifndef SUQL_ROW_H
#define SUQL_ROW_H

#include <stddef.h>

/* The kinds, numbered as SQLite numbers its fundamental datatypes. */
typedef enum RowKind {
	ROW_INTEGER = 1,
	ROW_REAL = 2,
	ROW_TEXT = 3,
	ROW_BLOB = 4,
	ROW_NULL = 5
} RowKind;

typedef struct Row Row;

typedef struct RowOps {
	int (*count)(const Row *r);
	const char *(*name)(const Row *r, int col);
	RowKind (*kind)(const Row *r, int col);
	long long (*integer)(const Row *r, int col);
	double (*real)(const Row *r, int col);
	/* the text of the value (a blob's bytes), *n its length; NULL for SQL NULL */
	const char *(*text)(const Row *r, int col, size_t *n);
} RowOps;

struct Row {
	const RowOps *ops;
	void *h;            /* the producer's handle */
	const Row *under;   /* a wrapper's row underneath (NULL otherwise) */
	void *ctx;          /* a wrapper's own state */
};

static inline int row_count(const Row *r) { return r->ops->count(r); }
static inline const char *row_name(const Row *r, int col) { return r->ops->name(r, col); }
static inline RowKind row_kind(const Row *r, int col) { return r->ops->kind(r, col); }
static inline long long row_integer(const Row *r, int col) { return r->ops->integer(r, col); }
static inline double row_real(const Row *r, int col) { return r->ops->real(r, col); }
static inline const char *row_text(const Row *r, int col, size_t *n)
{
	return r->ops->text(r, col, n);
}

#endif
