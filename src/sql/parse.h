/*
 * parse.h: the SUQL parser. It reads one statement of SQLite's dialect plus the SUQL forms
 * (answer(), summary(), `::`, ANY/SOME/ALL, @>, <@, ARRAY[...], ILIKE, unnest() in FROM,
 * SUQL column types) and builds the tree of ast.h. SELECT, VALUES, INSERT, REPLACE, UPDATE,
 * DELETE, CREATE TABLE, CREATE VIEW and EXPLAIN are parsed in full; every other statement
 * is recognised by its first keywords and kept as its text.
 *
 * Errors point into the text (err_at: line, column, caret, hint). Text that ends in the
 * middle of a statement gives SUQL_INCOMPLETE and a message starting "incomplete input:".
 * Limits: PARSE_MAX_DEPTH nested levels (parentheses, subqueries, operators), and
 * PARSE_MAX_INPUT bytes of statement text.
 *
 * Ownership: a returned Ast is the caller's (ast_free); it holds a copy of the statement's
 * text, so the caller's buffer may go away. Spans are offsets in the caller's text.
 */
#ifndef SUQL_PARSE_H
#define SUQL_PARSE_H

#include "base/suql.h"
#include "sql/ast.h"

#define PARSE_MAX_DEPTH 1000
#define PARSE_MAX_INPUT ((size_t)100 * 1024 * 1024)

/*
 * Parse the statement that starts at src[start] (leading blanks and comments skipped).
 * On SUQL_OK, *end is the offset just past the statement's ';' (or len), and *out the tree,
 * or NULL when the text held only blanks, comments or a lone ';'. On an error *out is NULL
 * and *end is still set past the failing statement's ';' when one was found (so a script
 * can go on with the next statement), or to len.
 */
SuqlStatus parse_statement(const char *src, size_t len, size_t start, Ast **out, size_t *end,
                           SuqlErr *err);

/* Parse src[0..len) as one expression into arena a (for the executor and tests). */
SuqlStatus parse_expression(Arena *a, const char *src, size_t len, Expr **out, SuqlErr *err);

#endif
