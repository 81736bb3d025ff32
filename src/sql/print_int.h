/*
 * print_int.h: what the printer's files share (print.c: the printer and expressions;
 * print_select.c; print_stmt.c; print_sql.c: the SUQL forms and their translations).
 *
 * Ownership: as in print.h.
 */
#ifndef SUQL_PRINT_INT_H
#define SUQL_PRINT_INT_H

#include "sql/print.h"

typedef struct MapEnt {
	size_t out, src, len;
} MapEnt;

struct Printer {
	PrintMode mode;
	PrintHooks hooks;
	SBuf out;
	MapEnt *map;
	size_t nmap, capmap;
	const char *src;
	size_t src_off;
	int uniq;                 /* counter for generated aliases (suql_j1, ...) */
	const FromItem **scope;   /* unnest() items visible here, innermost last */
	int nscope, capscope;
	int depth;
};

void pr_map(Printer *pr, size_t src_off, size_t len);
void pr_qualname(Printer *pr, AstName schema, AstName name);   /* [schema.]name */
void pr_indexed(Printer *pr, IndexedKind kind, AstName index);  /* [INDEXED BY x | NOT INDEXED] */
void pr_expr_prec(Printer *pr, const Expr *e, int minprec);
void pr_list(Printer *pr, const ExprList *l);
void pr_order(Printer *pr, const OrderList *l);
void pr_window_body(Printer *pr, const Window *w);
void pr_paren_select(Printer *pr, const Select *s);
/* print_select.c */
void pr_results(Printer *pr, const ResultList *l);
void pr_idlist(Printer *pr, const IdList *l);
void pr_from_list(Printer *pr, const FromList *l);
void pr_with(Printer *pr, const With *w);
void pr_limit(Printer *pr, const OrderList *order, const Expr *limit, const Expr *offset);

/* print_sql.c: the SUQL forms. pr_suql_prec gives the precedence of what the form prints
   as in the current mode; pr_suql_form prints it. */
int pr_suql_prec(const Printer *pr, const Expr *e);
void pr_suql_form(Printer *pr, const Expr *e);
void pr_typed_answer(Printer *pr, const Expr *answer, PgType pg);
/* A date or time plus or minus an INTERVAL, as SQLite's date functions: 1 when e was one
   and is printed. */
int pr_interval_sql(Printer *pr, const Expr *e);
/* A column reference that names an unnest() element prints as alias.value; returns 1 when
   it printed e that way. */
int pr_unnest_column(Printer *pr, const Expr *e);
int pr_is_unnest_column(const Printer *pr, const Expr *e);
void pr_unnest_from(Printer *pr, const FromItem *f);

#endif
