/*
 * bind_int.h: the binder. bind.c makes the statement's SELECT blocks and walks every
 * expression in its name scope; bind_occ.c finds the free-text occurrences and replaces
 * them by calls of suql's SQL functions; bind_scope.c learns the columns of FROM items
 * (tables, CTEs, subqueries, unnest) and keeps what it learnt of tables in the Engine.
 */
#ifndef SUQL_BIND_INT_H
#define SUQL_BIND_INT_H

#include "engine/op_int.h"

typedef struct Bind {
	Exec *ex;
	With **with;          /* WITH clauses in scope, outer first */
	int nwith, capwith;
	int exec;             /* the blocks run (0 inside CREATE VIEW) */
	OccPos pos;           /* where in the parent block a subquery being bound stands */
	SuqlErr *err;         /* the first error found (a question that cannot be one) */
	SuqlStatus st;
} Bind;
SuqlStatus bind_statement(Exec *ex, SuqlErr *err);
void bind_walk(Bind *bd, int b, Expr **slot, OccPos pos, int skel, int in_agg, int pocc,
               int rcol);
/* The filter walk's recognition of free text (its row's bind entry, op_int.h): a verify
   atom (answer() compared with literals), a typed or plain answer(), a summary(). */
int bind_occ_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at);
/* A free-text occurrence of kind at *slot (ans: the answer()/summary() node, or one
   shaped like it), its signature interned; its argument and question walked. Its number. */
int bind_occ_make(Bind *bd, int b, Expr **slot, FtKind kind, Expr *ans, const char *op,
                  Expr **exp, int nexp, PgType pg, OccPos pos, int skel, int in_agg, int pocc,
                  int rcol);
/* A literal's text (a double-quoted word naming no column is one), or NULL. */
char *bind_literal(Exec *ex, int b, const Expr *e);
/* Column name's index in a scope item, -1 absent, -2 the item's names are unknown, -3 rowid */
int bind_item_col(Exec *ex, Block *b, ScopeItem *it, const char *name);
/* The longest question, in bytes: a question goes into every prompt of its calls, so its
   length is a cost (documented with answer() in the manual). */
#define EXEC_QUESTION_MAX 4000
/* What makes a value (SQLite type, text) unusable as a question ("is NULL", "is empty"...),
   or NULL when it is a question. The text is in buf or static. */
const char *bind_occ_question_problem(int type, const char *s, size_t n, char *buf, size_t bufsz);
/* The error about occurrence o's question: at the question in the statement (none for the
   self-contained forms, o NULL). */
SuqlStatus bind_occ_question_error(Exec *ex, const Occ *o, FtKind kind, const char *problem,
                               SuqlErr *err);
/* Replace every occurrence's node by its function call (statement or standalone form),
   then each operator's constructs by theirs (op_mutate). */
void bind_occ_mutate(Exec *ex);
/* Resolve an unqualified or qualified column in block b: the item index, or -1; *blk is
   set to the block where it was found. */
int bind_resolve(Exec *ex, int b, const Expr *col, int *blk);
/* An aggregate or window function (count(), sum(), ..., anything with OVER or FILTER). */
int bind_is_aggregate_name(const Expr *e);

/* bind_scope.c (TabInfo: engine_int.h) */
const CatColumn *bind_scope_catalog(Exec *ex, const char *table, const char *column);
void bind_scope_item_columns(Exec *ex, Block *b, ScopeItem *it);
/* Forget what is known of tables when the database may have changed since it was learnt
   (the schema, this connection's writes, another connection's commits); always, with
   all set. */
void bind_scope_tabs_check(Engine *e, int all);

/* bind_view.c: views of suql's (kept with their text in suql's catalog) read by the
   statement become subqueries of it, their text appended to ex->sql; bind_view_reads:
   whether a statement's query reads one (CREATE VIEW); bind_view_error: an error placed
   in a view's text said at its place there; bind_view_free: what expanding kept. */
SuqlStatus bind_view_expand(Exec *ex, SuqlErr *err);
int bind_view_reads(Exec *ex);
void bind_view_error(Exec *ex, SuqlErr *err);
void bind_view_free(Exec *ex);

#endif
