/*
 * ast.h: the syntax tree of a SUQL statement, as the parser builds it and the printers and
 * the executor read and rewrite it. doc/ast.md walks through it for the executor's author.
 *
 * Every node carries its source span: the byte offset and length, in the text given to the
 * parser, of the text it was parsed from (nodes built later have a zero span). Names and
 * literals keep their text exactly as written (quotes included), so a printer can reproduce
 * them and SQLite sees the same tokens: `"Flag Bearer"`, `[x]`, 'it''s', 0x1F.
 *
 * Ownership: all nodes of a tree, their lists and their text live in one Arena; arena_free
 * releases everything at once. Nothing in a tree is freed on its own. Node constructors
 * and copies take the arena to allocate from; a node may point to nodes of the same arena
 * only.
 */
#ifndef SUQL_AST_H
#define SUQL_AST_H

#include <stddef.h>

#include "base/util.h"
#include "sql/lex.h"

/* ---- arena ---- */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);                   /* zeroed, aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);  /* NUL-terminated copy */

typedef struct AstSpan {
	size_t off, len;
} AstSpan;

/* A name as written (raw text with its quotes); s == NULL when absent. */
typedef struct AstName {
	const char *s;
	size_t n;
	size_t off;     /* source offset (0 for built names) */
} AstName;

typedef struct Expr Expr;
typedef struct Select Select;
typedef struct Window Window;

/* Lists: n items in items[0..n). */
typedef struct ExprList {
	int n, cap;
	Expr **items;
} ExprList;

typedef struct IdList {
	int n, cap;
	AstName *items;
} IdList;

typedef enum SortDir { SORT_NONE = 0, SORT_ASC, SORT_DESC } SortDir;
typedef enum NullsOrder { NULLS_NONE = 0, NULLS_FIRST, NULLS_LAST } NullsOrder;

typedef struct OrderTerm {
	AstSpan span;
	Expr *expr;        /* COLLATE is part of the expression (EX_COLLATE) */
	SortDir dir;
	NullsOrder nulls;
} OrderTerm;

typedef struct OrderList {
	int n, cap;
	OrderTerm **items;
} OrderList;

/* A type as written after CAST(x AS ...), `::` or in a column definition. */
typedef enum PgType {
	PGT_NONE = 0,  /* not a `::` target */
	PGT_DATE, PGT_TIMESTAMP, PGT_TIME, PGT_INT, PGT_REAL, PGT_NUMERIC, PGT_TEXT, PGT_BOOL,
	PGT_INTERVAL   /* only of a string literal: '3 days'::interval, INTERVAL '3 days' */
} PgType;

/* An INTERVAL literal's text, raw with its quotes ('3 days', '1 year 2 months', '2 hours
   ago'), as SQLite date modifiers ("+3 days", "+14 days" for two weeks): their count,
   written into mods (NULL: only checked), or -1 when the text is not an interval SQLite's modifiers can say.
   *has_time (may be NULL) is set to 1 when a part is hours, minutes or seconds. */
#define AST_INTERVAL_MAX 8
#define AST_INTERVAL_MOD 40
int ast_interval_mods(const char *raw, size_t n, char mods[][AST_INTERVAL_MOD], int *has_time);

/* The lower-case word for a conversion ("date", "int", ...; "text" for PGT_NONE), as the
   executor's typed answers name it. */
const char *ast_pg_name(PgType t);

typedef struct TypeName {
	AstSpan span;
	const char *text;  /* normalised spelling: "VARCHAR(20)", "FREE_TEXT[]", "ENUM('a', 'b')" */
	size_t n;
	PgType pg;         /* for `::` and typed answers: the conversion it stands for */
	int suql;          /* a SUQL column type: FREE_TEXT, ENUM, any T[] */
} TypeName;

/* ---- expressions ---- */
typedef enum ExprKind {
	EX_LITERAL,   /* lit says which; name = the literal's text as written */
	EX_PARAM,     /* name = ?, ?3, :x, @x, $x */
	EX_COLUMN,    /* [schema.][table.]name */
	EX_STAR,      /* * or table.* (result columns only) */
	EX_UNARY,     /* op: OP_NEG, OP_POS, OP_BITNOT, OP_NOT; operand in left */
	EX_BINARY,    /* op (see ExprOp); left op right */
	EX_LIKE,      /* left [NOT] op right [ESCAPE extra]; op: OP_LIKE/GLOB/REGEXP/MATCH/ILIKE */
	EX_BETWEEN,   /* left [NOT] BETWEEN right AND extra */
	EX_IN,        /* left [NOT] IN: (list) | (select) | [schema.]name [ (list) ] (in_table) */
	EX_ISNULL,    /* left ISNULL; with not_: left NOTNULL */
	EX_EXISTS,    /* EXISTS (select) */
	EX_SUBQUERY,  /* (select) */
	EX_CAST,      /* CAST(left AS type) */
	EX_CASE,      /* CASE [left] WHEN list[0] THEN list[1] ... [ELSE extra] END */
	EX_FUNC,      /* name(list) [distinct, star, order] [FILTER (WHERE extra)] [OVER over] */
	EX_COLLATE,   /* left COLLATE name */
	EX_RAISE,     /* RAISE(op [, right]); op: RAISE_IGNORE/ROLLBACK/ABORT/FAIL */
	EX_ROW,       /* (list[0], list[1], ...): a row value */
	/* SUQL forms */
	EX_ANSWER,    /* answer(left, right [, extra]): left a text, right the question, extra
	                 the answers allowed (an EX_ARRAY of literals) or NULL */
	EX_SUMMARY,   /* summary(left) */
	EX_PGCAST,    /* left::type */
	EX_QUANT,     /* left op ANY|SOME|ALL (right) or (select); quant says which */
	EX_CONTAINS,  /* left @> right (op OP_CONTAINS), left <@ right (OP_CONTAINED) or
	                 left && right (OP_OVERLAP) */
	EX_ARRAY,     /* ARRAY[list] */
	EX_KIND_COUNT
} ExprKind;

typedef enum LitKind {
	LIT_INTEGER, LIT_FLOAT, LIT_STRING, LIT_BLOB, LIT_NULL, LIT_TRUE, LIT_FALSE,
	LIT_CURRENT_TIME, LIT_CURRENT_DATE, LIT_CURRENT_TIMESTAMP
} LitKind;

typedef enum ExprOp {
	OP_NONE = 0,
	/* binary, by precedence group */
	OP_OR, OP_AND,
	OP_EQ, OP_NE, OP_IS, OP_ISNOT, OP_ISDISTINCT, OP_ISNOTDISTINCT,
	OP_LT, OP_LE, OP_GT, OP_GE,
	OP_BITAND, OP_BITOR, OP_LSHIFT, OP_RSHIFT,
	OP_ADD, OP_SUB,
	OP_MUL, OP_DIV, OP_REM,
	OP_CONCAT, OP_PTR, OP_PTR2,
	/* unary */
	OP_NEG, OP_POS, OP_BITNOT, OP_NOT,
	/* EX_LIKE */
	OP_LIKE, OP_GLOB, OP_REGEXP, OP_MATCH, OP_ILIKE,
	/* EX_CONTAINS */
	OP_CONTAINS, OP_CONTAINED, OP_OVERLAP,
	/* EX_RAISE */
	RAISE_IGNORE, RAISE_ROLLBACK, RAISE_ABORT, RAISE_FAIL,
	OP_COUNT
} ExprOp;

typedef enum Quant { Q_ANY = 1, Q_SOME, Q_ALL } Quant;

typedef enum FrameType { FRAME_NONE = 0, FRAME_ROWS, FRAME_RANGE, FRAME_GROUPS } FrameType;
typedef enum BoundKind {
	BOUND_NONE = 0, BOUND_UNBOUNDED_PRECEDING, BOUND_PRECEDING, BOUND_CURRENT_ROW,
	BOUND_FOLLOWING, BOUND_UNBOUNDED_FOLLOWING
} BoundKind;
typedef enum FrameExclude {
	EXCLUDE_NONE = 0, EXCLUDE_NO_OTHERS, EXCLUDE_CURRENT_ROW, EXCLUDE_GROUP, EXCLUDE_TIES
} FrameExclude;

/* A window: OVER name (ref), OVER (spec), or one entry of a WINDOW clause (name + spec). */
struct Window {
	AstSpan span;
	AstName name;        /* WINDOW name AS (...), or OVER name when is_ref */
	int is_ref;
	AstName base;        /* ( base PARTITION BY ... ) */
	ExprList *partition;
	OrderList *order;
	FrameType frame;
	int between;         /* BETWEEN start AND end; otherwise start only */
	BoundKind start_kind, end_kind;
	Expr *start, *end;   /* for BOUND_PRECEDING / BOUND_FOLLOWING */
	FrameExclude exclude;
};

struct Expr {
	ExprKind kind;
	AstSpan span;
	int op;             /* ExprOp for unary, binary, like, contains, quantified, raise */
	int not_;           /* NOT LIKE, NOT BETWEEN, NOT IN, NOTNULL */
	int distinct;       /* f(DISTINCT x) */
	int star;           /* f(*) */
	Quant quant;        /* EX_QUANT */
	LitKind lit;        /* EX_LITERAL */
	AstName name;       /* literal/param text, column, function, collation, IN table */
	AstName table;      /* column's table, star's table */
	AstName schema;     /* column's or IN-table's schema */
	Expr *left, *right, *extra;
	ExprList *list;     /* function args, IN list, CASE when/then pairs, row, array */
	Select *select;     /* subquery, EXISTS, IN (select), op ANY (select) */
	OrderList *order;   /* aggregate ORDER BY */
	Window *over;       /* OVER */
	TypeName *type;     /* CAST, :: */
	int in_table;       /* EX_IN: IN name or IN name(args) (list != NULL for args) */
};

/* ---- SELECT ---- */
typedef struct ResultCol {
	AstSpan span;       /* the expression as written, without the alias (with comments up
	                       to the next token: the name SQLite gives the column) */
	Expr *expr;         /* EX_STAR for * and t.* */
	AstName alias;
	int as_kw;          /* alias written with AS */
} ResultCol;

typedef struct ResultList {
	int n, cap;
	ResultCol **items;
} ResultList;

typedef enum FromKind {
	FROM_TABLE,     /* [schema.]name */
	FROM_FUNC,      /* [schema.]name(args): a table-valued function such as json_each */
	FROM_SUBQUERY,  /* (select) */
	FROM_JOIN,      /* (nested join list) */
	FROM_UNNEST     /* unnest(args[0]) AS alias [ (alias_cols[0]) ]: one array element per row */
} FromKind;

typedef enum IndexedKind { INDEXED_NONE = 0, INDEXED_BY, NOT_INDEXED } IndexedKind;

typedef struct FromList FromList;
typedef struct FromItem {
	FromKind kind;
	AstSpan span;
	/* How this item joins the one before it: njoin == 0 and !comma for the first item;
	   comma for ','; otherwise the keywords before JOIN as written (LEFT, OUTER, ...). */
	int comma;
	int njoin;          /* 1: plain JOIN; 1 + k: k keywords in join_kw */
	Keyword join_kw[3];
	AstName schema, name;
	AstName alias;
	int as_kw;
	IdList *alias_cols; /* unnest(...) AS t(x) */
	IndexedKind indexed;
	AstName index;
	ExprList *args;     /* FROM_FUNC, FROM_UNNEST */
	Select *select;     /* FROM_SUBQUERY */
	FromList *nested;   /* FROM_JOIN */
	Expr *on;
	IdList *using_;
} FromItem;

struct FromList {
	int n, cap;
	FromItem **items;
};

typedef enum CoreKind { CORE_SELECT, CORE_VALUES } CoreKind;
typedef enum Distinct { DISTINCT_NONE = 0, DISTINCT_ALL, DISTINCT_DISTINCT } Distinct;

typedef struct WindowList {
	int n, cap;
	Window **items;
} WindowList;

typedef struct RowList {
	int n, cap;
	ExprList **items;
} RowList;

/* One SELECT block (or VALUES list) of a possibly compound select. */
typedef struct SelectCore {
	CoreKind kind;
	AstSpan span;
	Distinct distinct;
	ResultList *cols;
	FromList *from;      /* NULL without FROM */
	Expr *where;
	ExprList *group;
	Expr *having;
	WindowList *windows;
	RowList *rows;       /* CORE_VALUES */
} SelectCore;

typedef enum CompoundOp { COMPOUND_NONE = 0, COMPOUND_UNION, COMPOUND_UNION_ALL,
	                  COMPOUND_INTERSECT, COMPOUND_EXCEPT } CompoundOp;

typedef enum Materialized { MAT_DEFAULT = 0, MAT_YES, MAT_NO } Materialized;

typedef struct Cte {
	AstSpan span;
	AstName name;
	IdList *cols;
	Materialized mat;
	Select *select;
} Cte;

typedef struct With {
	AstSpan span;
	int recursive;
	int n, cap;
	Cte **items;
} With;

struct Select {
	AstSpan span;
	With *with;
	int ncore, capcore;
	SelectCore **cores;
	CompoundOp *ops;     /* ops[i] joins cores[i-1] and cores[i] (ops[0] unused) */
	OrderList *order;    /* for the whole (compound) select */
	Expr *limit, *offset;
	/* ERROR WITHIN e% AT CONFIDENCE c% (the statement's own SELECT only, after LIMIT):
	   e and c as fractions (err_within 0: no clause), then SEED n; err_span the clause as written,
	   err_num and conf_num its two numbers (for errors placed at them) */
	double err_within, confidence;
	AstSpan err_span, err_num, conf_num;
	long long seed;      /* [SEED n] after it: the sample's random order; -1: the default */
};

/* ---- other statements ---- */
typedef enum OrAction { OR_NONE = 0, OR_ROLLBACK, OR_ABORT, OR_REPLACE, OR_FAIL, OR_IGNORE }
	OrAction;

typedef struct SetItem {
	AstSpan span;
	IdList *cols;        /* one name, or several for (a, b) = ... */
	int paren;
	Expr *expr;
} SetItem;

typedef struct SetList {
	int n, cap;
	SetItem **items;
} SetList;

typedef struct Upsert {
	AstSpan span;
	OrderList *target;   /* ON CONFLICT (target) */
	Expr *target_where;
	int do_nothing;
	SetList *set;
	Expr *where;
} Upsert;

typedef struct UpsertList {
	int n, cap;
	Upsert **items;
} UpsertList;

typedef struct ColumnDef {
	AstSpan span;
	AstName name;
	TypeName *type;      /* NULL when no type is written */
	AstSpan cons;        /* column constraints, kept as written (len 0: none) */
	const char *cons_text;
} ColumnDef;

typedef struct ColumnList {
	int n, cap;
	ColumnDef **items;
} ColumnList;

typedef enum StmtKind {
	ST_SELECT,        /* select */
	ST_INSERT,        /* [with] INSERT/REPLACE INTO table [(columns)] select|DEFAULT VALUES */
	ST_UPDATE,
	ST_DELETE,
	ST_CREATE_TABLE,
	ST_CREATE_VIEW,
	ST_ALTER_TABLE,   /* kept as text; table/alter fields filled in for the catalog */
	ST_DROP_TABLE,    /* kept as text; table filled in */
	ST_OTHER          /* any other statement, kept as its text */
} StmtKind;

typedef enum AlterKind {
	ALTER_OTHER = 0, ALTER_RENAME_TABLE, ALTER_RENAME_COLUMN, ALTER_ADD_COLUMN, ALTER_DROP_COLUMN
} AlterKind;

typedef struct Stmt {
	StmtKind kind;
	AstSpan span;            /* the statement without its ';' */
	int explain;             /* 1: EXPLAIN, 2: EXPLAIN QUERY PLAN */
	const char *text;        /* the statement's text (from the EXPLAIN keyword on) */
	size_t text_len;
	size_t text_off;         /* source offset of text[0] */
	int has_suql;            /* any SUQL construct anywhere in the statement */
	Keyword lead;            /* ST_OTHER: the keyword it starts with (KW_BEGIN, KW_COMMIT,
	                            KW_ANALYZE, ...) */
	AstSpan read_write;      /* BEGIN ... READ WRITE: where it asks for a transaction that
	                            may write (len 0: it does not) */

	Select *select;          /* SELECT; INSERT source; CREATE TABLE AS; CREATE VIEW */
	With *with;              /* INSERT, UPDATE, DELETE */
	int replace_kw;          /* REPLACE INTO */
	OrAction or_action;
	AstName schema, table, alias;
	IndexedKind indexed;
	AstName index;
	IdList *columns;         /* INSERT (columns), CREATE VIEW (columns) */
	int default_values;
	UpsertList *upsert;
	SetList *set;            /* UPDATE */
	FromList *from;          /* UPDATE ... FROM */
	Expr *where;
	ResultList *returning;
	OrderList *order;        /* UPDATE/DELETE ... ORDER BY */
	Expr *limit, *offset;

	int temp, if_not_exists, if_exists;
	int drop_view;           /* ST_OTHER: DROP VIEW [IF EXISTS] table */
	ColumnList *cols;        /* CREATE TABLE */
	const char *tcons;       /* table constraints, as written (NULL: none) */
	size_t tcons_len;
	const char *options;     /* WITHOUT ROWID, STRICT, as written (NULL: none) */
	size_t options_len;

	AlterKind alter;
	AstName column, newname; /* RENAME [COLUMN] column TO newname; DROP COLUMN column */
	ColumnDef *coldef;       /* ADD COLUMN */
} Stmt;

/* ---- the tree ---- */
typedef struct Ast {
	Arena *arena;
	Stmt *stmt;
	const char *src;         /* copy of the statement's text; spans are offsets in the */
	size_t src_off;          /* caller's text: src[i] is that text's byte src_off + i */
} Ast;

void ast_free(Ast *ast);     /* frees the arena and the Ast */

/* ---- names ---- */
/* The name's value without quotes, in the arena ("Flag Bearer" for "Flag Bearer"). */
char *ast_name_value(Arena *a, AstName n);
/* Case-insensitive comparison of the name's value with s. */
int ast_name_is(AstName n, const char *s);
int ast_name_eq(AstName a, AstName b);        /* same value, case-insensitive */
/* A name for value, quoted with "" when it needs quotes. */
AstName ast_name_make(Arena *a, const char *value);

/* Operator precedence, as SQLite's grammar has it (higher binds tighter), with SUQL's
   `::` binding tightest and @>, <@, ILIKE and quantified = beside =. */
enum {
	PREC_NONE = 0, PREC_OR, PREC_AND, PREC_NOT, PREC_EQ, PREC_CMP, PREC_ESCAPE, PREC_BIT,
	PREC_ADD, PREC_MUL, PREC_CONCAT, PREC_COLLATE, PREC_UNARY, PREC_PGCAST, PREC_PRIMARY
};
int ast_prec(const Expr *e);
int ast_binop_prec(int op);

/* ---- building nodes ---- */
Expr *ast_expr_new(Arena *a, ExprKind kind);
Expr *ast_binary(Arena *a, int op, Expr *l, Expr *r);
Expr *ast_unary(Arena *a, int op, Expr *operand);
Expr *ast_column(Arena *a, const char *table, const char *column);   /* table may be NULL */
Expr *ast_string(Arena *a, const char *value);    /* 'value' with quotes doubled */
Expr *ast_integer(Arena *a, long long v);
Expr *ast_null(Arena *a);
Expr *ast_func(Arena *a, const char *name, int nargs, Expr **args);
void ast_list_push(Arena *a, ExprList **l, Expr *e);   /* creates the list when NULL */
void ast_idlist_push(Arena *a, IdList **l, AstName n);

/* Deep copies into arena a (which may differ from the source tree's arena). */
Expr *ast_expr_copy(Arena *a, const Expr *e);

/* ---- reading ---- */
/* The slots holding e's direct child expressions, in source order (so a caller can read or
   replace them). Returns how many there are; at most max are stored. Subqueries are not
   expressions: see ast_visit. */
int ast_expr_children(Expr *e, Expr ***slots, int max);
int ast_is_suql_expr(const Expr *e);   /* EX_ANSWER ... EX_ARRAY, or ILIKE */

/* SELECT core accessors, for the executor: a simple (non-compound) select's only core, or
   NULL for a compound select. */
SelectCore *ast_simple_core(Select *s);

/* ---- walking ---- */
enum { AST_CONTINUE = 0, AST_SKIP = 1, AST_STOP = 2 };
typedef struct AstVisitor {
	void *ctx;
	/* Each callback may be NULL; it is called before the node's children and returns
	   AST_CONTINUE, AST_SKIP (do not descend into this node) or AST_STOP (end the walk). */
	int (*expr)(void *ctx, Expr *e);
	int (*select)(void *ctx, Select *s);     /* every SELECT, subqueries included */
	int (*core)(void *ctx, SelectCore *c);
	int (*from)(void *ctx, FromItem *f);
	int no_subqueries;                       /* do not enter subqueries */
} AstVisitor;
int ast_visit_stmt(Stmt *st, const AstVisitor *v);    /* AST_STOP if stopped */
int ast_visit_expr(Expr *e, const AstVisitor *v);

/* ---- comparing and dumping ---- */
/* A structural dump (every kind, operator, flag and name; no spans) on one line. */
void ast_dump_stmt(SBuf *out, const Stmt *st);
void ast_dump_expr(SBuf *out, const Expr *e);
/* Same tree, spans ignored. */
int ast_equal(const Stmt *a, const Stmt *b);
int ast_expr_equal(const Expr *a, const Expr *b);

#endif
