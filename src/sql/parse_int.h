/*
 * parse_int.h: what the parser's files (parse.c, parse_expr.c, parse_primary.c,
 * parse_type.c, parse_select.c, parse_dml.c, parse_ddl.c) share: the parser state, token
 * helpers and the error helpers. Not for use outside the parser.
 *
 * Ownership: the Parser borrows the caller's text and error record; every node it makes
 * lives in the arena of the Ast being built.
 */
#ifndef SUQL_PARSE_INT_H
#define SUQL_PARSE_INT_H

#include "sql/ast.h"
#include "sql/lex.h"
#include "sql/parse.h"

#include <setjmp.h>

#define LOOKAHEAD 4

typedef struct Parser {
	Lexer lx;                 /* over the arena copy of the statement */
	Token la[LOOKAHEAD];      /* la[0] is the current token */
	int nla;
	const char *src;          /* the caller's whole text (for messages) */
	size_t srclen;
	size_t base;              /* offset of the copy's first byte in src */
	const char *text;         /* the arena copy */
	Arena *arena;
	SuqlErr *err;
	int depth;
	size_t last_end;          /* end of the last consumed token (in the copy) */
	TokType last_type;        /* its type */
	Keyword last_kw;          /* and keyword */
	int has_suql;
	int complete;              /* the statement ends with its ';' (not at the end of the text) */
	SBuf tmp;                 /* scratch text (type names); freed at the end */
	size_t open_off;          /* where the construct p_open_hint names was opened (in src) */
	jmp_buf fail;             /* errors unwind to parse_statement */
	SuqlStatus status;
} Parser;

/* tokens */
Token p_tok(Parser *p);                 /* current */
Token p_peek(Parser *p, int k);         /* k tokens ahead (0 = current) */
Token p_next(Parser *p);                /* consume and return the current token */
int p_is(Parser *p, TokType t);
int p_kw(Parser *p, Keyword kw);        /* current is this keyword (unquoted) */
int p_kw_at(Parser *p, int k, Keyword kw);
int p_accept(Parser *p, TokType t);
int p_accept_kw(Parser *p, Keyword kw);
Token p_expect(Parser *p, TokType t, const char *what);
void p_expect_kw(Parser *p, Keyword kw);
void p_expect_close(Parser *p, Token open);     /* ')' for the '(' in open */
int p_word_is(Parser *p, int k, const char *word);   /* token k is this unquoted word */

/* names */
int tok_is_id(Token t);       /* ID (non-reserved keyword allowed) or quoted name */
int tok_is_nm(Token t);       /* id, string, or join keyword */
int tok_is_alias(Token t);    /* a bare alias: id or string, not a join keyword */
AstName p_name_of(Parser *p, Token t);
AstName p_expect_nm(Parser *p, const char *what);
IdList *p_column_names(Parser *p, Token open);        /* name, ... ) after the '(' open */
AstSpan p_span_from(Parser *p, size_t start_off);    /* start (absolute) to last token */
AstSpan p_span_to_next(Parser *p, size_t start_off);  /* start to the next token, trimmed */
size_t p_off(Parser *p, Token t);                     /* absolute offset of t */
const char *p_text_at(Parser *p, size_t abs_off);     /* pointer into the copy */
void p_enter(Parser *p, Token at);                    /* depth + 1, checked */
void p_leave(Parser *p);

/* errors (do not return) */
_Noreturn void p_fail_at(Parser *p, Token t, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
_Noreturn void p_unexpected(Parser *p, const char *expected);
/* "the WHAT at {place} TAIL" into buf, for the token that opened a construct: the error
   p_fail_at makes with it names that token's place (err_at_rel), so it is right wherever
   the statement stands in a script. */
const char *p_open_hint(Parser *p, Token open, const char *what, const char *tail, char *buf,
                        size_t n);

/* lists */
void *ast_grow(Arena *a, void *items, int n, int *cap, size_t elem);
#define P_PUSH(p, list, item)                                                           \
	do {                                                                            \
		(list)->items = ast_grow((p)->arena, (list)->items, (list)->n, &(list)->cap, \
		                         sizeof *(list)->items);                        \
		(list)->items[(list)->n++] = (item);                                    \
	} while (0)
#define P_NEW(p, type) ((type *)arena_alloc((p)->arena, sizeof(type)))

/* grammar */
Expr *p_expr(Parser *p);                      /* a whole expression */
ExprList *p_expr_list(Parser *p);             /* e, e, ... (at least one) */
Select *p_select(Parser *p);                  /* [WITH] select-core ... [ORDER BY] [LIMIT] */
With *p_with(Parser *p);                      /* after WITH */
OrderList *p_order_list(Parser *p);           /* after ORDER BY */
/* [ORDER BY ...] [LIMIT a [OFFSET b] | LIMIT b, a] */
void p_order_limit(Parser *p, OrderList **order, Expr **limit, Expr **offset);
/* [ERROR WITHIN e% AT CONFIDENCE c%] after the statement's own SELECT, into s */
void p_error_within(Parser *p, Select *s);
ResultList *p_result_list(Parser *p);         /* RETURNING / SELECT columns */
FromList *p_from_list(Parser *p);
Window *p_window_spec(Parser *p, Token open); /* inside ( ... ) after the '(' */
TypeName *p_type_name(Parser *p, int column_def);
int p_starts_select(Parser *p, int k);        /* SELECT, VALUES or WITH at token k */

Expr *p_new_expr(Parser *p, ExprKind kind, size_t start);   /* span starts at start */
Expr *p_finish(Parser *p, Expr *e);                        /* span ends at the last token */
Expr *p_primary(Parser *p);                   /* parse_primary.c */
TypeName *p_pg_type(Parser *p);               /* the type after `::` (parse_type.c) */
void p_insert(Parser *p, Stmt *st);          /* parse_dml.c */
void p_update(Parser *p, Stmt *st);
void p_delete(Parser *p, Stmt *st);
void p_qualified(Parser *p, AstName *schema, AstName *name, const char *what);
void p_indexed(Parser *p, IndexedKind *kind, AstName *index);   /* [INDEXED BY x | NOT INDEXED] */
void p_create(Parser *p, Stmt *st);           /* after CREATE */
void p_alter(Parser *p, Stmt *st);            /* after ALTER */
void p_skip_rest(Parser *p, int allow_semi);   /* to ';' (or, in a trigger, the end) */

#endif
