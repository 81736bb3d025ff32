/*
 * print.h: the two printers of a syntax tree.
 *
 *  - PRINT_SUQL: normalised SUQL (keywords upper case, one space between words, SUQL forms
 *    kept as SUQL). This is what the REPL shows as "parsed"; parsing it again gives the
 *    same tree (ast_equal).
 *  - PRINT_SQL: SQLite SQL, the translation that runs. SUQL forms become SQLite: arrays are
 *    JSON text (ANY/ALL/@>/<@ through json_each, ARRAY[...] as json_array, unnest() as
 *    json_each), ILIKE as LIKE, `::type` as date()/datetime()/CAST/..., answer() and
 *    summary() as calls of suql_answer()/suql_summary(), SUQL column types as TEXT. A
 *    statement without SUQL forms prints to SQL that SQLite runs with the same result
 *    (doc/frontend.md lists the rules). CREATE TABLE/VIEW and the statements kept as text
 *    print as written when they hold no SUQL.
 *
 *  - PRINT_PG: PostgreSQL SQL: SUQL as it is (its syntax is Postgres's), except that SUQL
 *    column types are written as the Postgres types they are stored as: FREE_TEXT and ENUM
 *    as TEXT, FREE_TEXT[] and ENUM[] as TEXT[] (other T[] are Postgres arrays already).
 *
 * The SQL printer records a position map from output offsets to source offsets, so an
 * error offset SQLite reports in the translated SQL can point into the user's text.
 *
 * Hooks let a caller (the executor) print chosen nodes itself: the expr hook is called for
 * every expression before the default printing, the from hook for every FROM item; each
 * returns 1 when it printed the node (it may call print_expr for parts of it) and 0 to
 * let the default print it. A hook's output for an expression is put in parentheses when
 * it stands inside an operator.
 *
 * Ownership: a Printer owns its output buffer and map; print_steal hands the text over.
 * It borrows the tree and the hooks.
 */
#ifndef SUQL_PRINT_H
#define SUQL_PRINT_H

#include "sql/ast.h"

typedef enum PrintMode { PRINT_SQL, PRINT_SUQL, PRINT_PG } PrintMode;

typedef struct Printer Printer;

typedef struct PrintHooks {
	void *ctx;
	int (*expr)(void *ctx, Printer *pr, const Expr *e);
	int (*from)(void *ctx, Printer *pr, const FromItem *f);
} PrintHooks;

/* src/src_off: the statement text the tree was parsed from (Ast.src, Ast.src_off), used for
   result-column names; may be NULL for trees built by hand. */
Printer *print_new(PrintMode mode, const PrintHooks *hooks, const char *src, size_t src_off);
void print_free(Printer *pr);

void print_stmt(Printer *pr, const Stmt *st);
void print_select(Printer *pr, const Select *s);
void print_expr(Printer *pr, const Expr *e);           /* hooks first */
void print_raw(Printer *pr, const char *s);
void print_rawn(Printer *pr, const char *s, size_t n);
void print_name(Printer *pr, AstName n);

const char *print_text(const Printer *pr);
size_t print_len(const Printer *pr);
char *print_steal(Printer *pr);    /* caller frees */

/* The source offset that output offset out_off came from (best effort: the start of the
   node or token printed there, plus the distance into it). */
size_t print_map(const Printer *pr, size_t out_off);

/* Shorthands: the whole statement printed one way (caller frees). */
char *print_suql_stmt(const Ast *ast);
char *print_sql_stmt(const Ast *ast);

#endif
