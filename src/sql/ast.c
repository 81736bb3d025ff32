/*
 * ast.c: the arena every syntax tree lives in, names, node constructors, deep copies and
 * child access (see ast.h). The walker, the structural dump and equality are in ast_walk.c.
 */
#include "sql/ast.h"
#include "sql/lex.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Select *ast_select_copy(Arena *a, const Select *s);
static ExprList *ast_exprlist_copy(Arena *a, const ExprList *l);

/* ---- arena: a chain of blocks; allocation bumps a pointer ---- */
typedef struct ArenaBlock {
	struct ArenaBlock *next;
	size_t size, used;
	max_align_t data[];
} ArenaBlock;

struct Arena {
	ArenaBlock *head;
};

Arena *arena_new(void)
{
	return xcalloc(1, sizeof(Arena));
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	ArenaBlock *b = a->head;
	while (b) {
		ArenaBlock *n = b->next;
		free(b);
		b = n;
	}
	free(a);
}

void *arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	ArenaBlock *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;
		if (b && b->size * 2 > size && b->size < (1u << 20))
			size = b->size * 2;
		b = xmalloc(sizeof(ArenaBlock) + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void ast_free(Ast *ast)
{
	if (!ast)
		return;
	arena_free(ast->arena);
	free(ast);
}

/* ---- names ---- */
/* A reader of a name's value, one byte at a time, with its quotes taken off: "a""b" reads
   a"b, [x] reads x (brackets have no doubled form). */
typedef struct NameCur {
	const char *p, *end;
	char close;          /* the quote that is doubled inside, or 0 */
} NameCur;

static NameCur name_cur(const char *s, size_t n)
{
	NameCur c = {s, s + n, 0};
	char q = n >= 2 ? s[0] : 0;
	if (q == '[' || q == '"' || q == '\'' || q == '`') {
		c.p++;
		c.end--;
		c.close = q == '[' ? 0 : q;
	}
	return c;
}

/* The next byte of the value, or -1 at its end. */
static int name_next(NameCur *c)
{
	if (c->p >= c->end)
		return -1;
	unsigned char ch = (unsigned char)*c->p++;
	if (c->close && ch == (unsigned char)c->close && c->p < c->end && *c->p == c->close)
		c->p++;
	return ch;
}

/* Two values equal, ASCII case-insensitively. */
static int name_cur_eq(NameCur a, NameCur b)
{
	for (;;) {
		int x = name_next(&a), y = name_next(&b);
		if (x >= 'A' && x <= 'Z') x += 32;
		if (y >= 'A' && y <= 'Z') y += 32;
		if (x != y)
			return 0;
		if (x < 0)
			return 1;
	}
}

char *ast_name_value(Arena *a, AstName n)
{
	if (!n.s)
		return arena_strndup(a, "", 0);
	char *out = arena_alloc(a, n.n + 1);
	size_t o = 0;
	NameCur c = name_cur(n.s, n.n);
	for (int ch; (ch = name_next(&c)) >= 0;)
		out[o++] = (char)ch;
	out[o] = '\0';
	return out;
}

int ast_name_is(AstName n, const char *s)
{
	if (!n.s)
		return 0;
	NameCur plain = {s, s + strlen(s), 0};
	return name_cur_eq(name_cur(n.s, n.n), plain);
}

int ast_name_eq(AstName a, AstName b)
{
	if (!a.s || !b.s)
		return !a.s && !b.s;
	return name_cur_eq(name_cur(a.s, a.n), name_cur(b.s, b.n));
}

static int needs_quotes(const char *v)
{
	if (!*v || (*v >= '0' && *v <= '9'))
		return 1;
	for (const char *p = v; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 1;
	}
	return 0;
}

AstName ast_name_make(Arena *a, const char *value)
{
	AstName n = {0};
	/* quote anything that is not a plain word, and keywords and TRUE/FALSE, which
	   could be read as something else */
	size_t len = strlen(value);
	if (needs_quotes(value) || lex_keyword(value, len) != KW_NONE ||
	    str_ieq(value, "true") || str_ieq(value, "false")) {
		SBuf b = SBUF_INIT;
		sb_put_ident(&b, value, len);
		n.s = arena_strndup(a, b.s, b.len);
		n.n = b.len;
		sb_free(&b);
	} else {
		n.n = len;
		n.s = arena_strndup(a, value, len);
	}
	return n;
}

/* ---- constructors ---- */
Expr *ast_expr_new(Arena *a, ExprKind kind)
{
	Expr *e = arena_alloc(a, sizeof *e);
	e->kind = kind;
	return e;
}

Expr *ast_binary(Arena *a, int op, Expr *l, Expr *r)
{
	Expr *e = ast_expr_new(a, EX_BINARY);
	e->op = op;
	e->left = l;
	e->right = r;
	return e;
}

Expr *ast_unary(Arena *a, int op, Expr *operand)
{
	Expr *e = ast_expr_new(a, EX_UNARY);
	e->op = op;
	e->left = operand;
	return e;
}

Expr *ast_column(Arena *a, const char *table, const char *column)
{
	Expr *e = ast_expr_new(a, EX_COLUMN);
	if (table)
		e->table = ast_name_make(a, table);
	e->name = ast_name_make(a, column);
	return e;
}

Expr *ast_string(Arena *a, const char *value)
{
	Expr *e = ast_expr_new(a, EX_LITERAL);
	e->lit = LIT_STRING;
	SBuf b = SBUF_INIT;
	sb_put_sqlstr(&b, value, strlen(value));
	e->name.s = arena_strndup(a, b.s, b.len);
	e->name.n = b.len;
	sb_free(&b);
	return e;
}

Expr *ast_integer(Arena *a, long long v)
{
	Expr *e = ast_expr_new(a, EX_LITERAL);
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%lld", v < 0 ? -v : v);
	e->lit = LIT_INTEGER;
	e->name.s = arena_strndup(a, buf, (size_t)n);
	e->name.n = (size_t)n;
	return v < 0 ? ast_unary(a, OP_NEG, e) : e;
}

Expr *ast_null(Arena *a)
{
	Expr *e = ast_expr_new(a, EX_LITERAL);
	e->lit = LIT_NULL;
	e->name.s = "NULL";
	e->name.n = 4;
	return e;
}

Expr *ast_func(Arena *a, const char *name, int nargs, Expr **args)
{
	Expr *e = ast_expr_new(a, EX_FUNC);
	e->name = ast_name_make(a, name);
	for (int i = 0; i < nargs; i++)
		ast_list_push(a, &e->list, args[i]);
	if (!e->list)
		e->list = arena_alloc(a, sizeof(ExprList));
	return e;
}

/* Grow an arena array of pointers (or names) by doubling. */
static void *grow(Arena *a, void *items, int n, int *cap, size_t elem)
{
	if (n < *cap)
		return items;
	int nc = *cap ? *cap * 2 : 4;
	void *p = arena_alloc(a, (size_t)nc * elem);
	if (n)
		memcpy(p, items, (size_t)n * elem);
	*cap = nc;
	return p;
}

void ast_list_push(Arena *a, ExprList **l, Expr *e)
{
	if (!*l)
		*l = arena_alloc(a, sizeof(ExprList));
	ExprList *x = *l;
	x->items = grow(a, x->items, x->n, &x->cap, sizeof(Expr *));
	x->items[x->n++] = e;
}

void ast_idlist_push(Arena *a, IdList **l, AstName n)
{
	if (!*l)
		*l = arena_alloc(a, sizeof(IdList));
	IdList *x = *l;
	x->items = grow(a, x->items, x->n, &x->cap, sizeof(AstName));
	x->items[x->n++] = n;
}

/* Exported for the parser's list builders (parse_int.h). */
void *ast_grow(Arena *a, void *items, int n, int *cap, size_t elem)
{
	return grow(a, items, n, cap, elem);
}

/* ---- copies ---- */
static AstName name_copy(Arena *a, AstName n)
{
	if (n.s)
		n.s = arena_strndup(a, n.s, n.n);
	return n;
}

static IdList *idlist_copy(Arena *a, const IdList *l)
{
	if (!l)
		return NULL;
	IdList *c = arena_alloc(a, sizeof *c);
	for (int i = 0; i < l->n; i++)
		ast_idlist_push(a, &c, name_copy(a, l->items[i]));
	return c;
}

static ExprList *ast_exprlist_copy(Arena *a, const ExprList *l)
{
	if (!l)
		return NULL;
	ExprList *c = arena_alloc(a, sizeof *c);
	for (int i = 0; i < l->n; i++)
		ast_list_push(a, &c, ast_expr_copy(a, l->items[i]));
	return c;
}

static OrderList *order_copy(Arena *a, const OrderList *l)
{
	if (!l)
		return NULL;
	OrderList *c = arena_alloc(a, sizeof *c);
	for (int i = 0; i < l->n; i++) {
		OrderTerm *t = arena_alloc(a, sizeof *t);
		*t = *l->items[i];
		t->expr = ast_expr_copy(a, t->expr);
		c->items = grow(a, c->items, c->n, &c->cap, sizeof(OrderTerm *));
		c->items[c->n++] = t;
	}
	return c;
}

static Window *window_copy(Arena *a, const Window *w)
{
	if (!w)
		return NULL;
	Window *c = arena_alloc(a, sizeof *c);
	*c = *w;
	c->name = name_copy(a, w->name);
	c->base = name_copy(a, w->base);
	c->partition = ast_exprlist_copy(a, w->partition);
	c->order = order_copy(a, w->order);
	c->start = ast_expr_copy(a, w->start);
	c->end = ast_expr_copy(a, w->end);
	return c;
}

static TypeName *type_copy(Arena *a, const TypeName *t)
{
	if (!t)
		return NULL;
	TypeName *c = arena_alloc(a, sizeof *c);
	*c = *t;
	c->text = arena_strndup(a, t->text, t->n);
	return c;
}

Expr *ast_expr_copy(Arena *a, const Expr *e)
{
	if (!e)
		return NULL;
	Expr *c = arena_alloc(a, sizeof *c);
	*c = *e;
	c->name = name_copy(a, e->name);
	c->table = name_copy(a, e->table);
	c->schema = name_copy(a, e->schema);
	c->left = ast_expr_copy(a, e->left);
	c->right = ast_expr_copy(a, e->right);
	c->extra = ast_expr_copy(a, e->extra);
	c->list = ast_exprlist_copy(a, e->list);
	c->select = ast_select_copy(a, e->select);
	c->order = order_copy(a, e->order);
	c->over = window_copy(a, e->over);
	c->type = type_copy(a, e->type);
	return c;
}

static FromList *fromlist_copy(Arena *a, const FromList *l);

static FromItem *from_copy(Arena *a, const FromItem *f)
{
	FromItem *c = arena_alloc(a, sizeof *c);
	*c = *f;
	c->schema = name_copy(a, f->schema);
	c->name = name_copy(a, f->name);
	c->alias = name_copy(a, f->alias);
	c->alias_cols = idlist_copy(a, f->alias_cols);
	c->index = name_copy(a, f->index);
	c->args = ast_exprlist_copy(a, f->args);
	c->select = ast_select_copy(a, f->select);
	c->nested = fromlist_copy(a, f->nested);
	c->on = ast_expr_copy(a, f->on);
	c->using_ = idlist_copy(a, f->using_);
	return c;
}

static FromList *fromlist_copy(Arena *a, const FromList *l)
{
	if (!l)
		return NULL;
	FromList *c = arena_alloc(a, sizeof *c);
	for (int i = 0; i < l->n; i++) {
		c->items = grow(a, c->items, c->n, &c->cap, sizeof(FromItem *));
		c->items[c->n++] = from_copy(a, l->items[i]);
	}
	return c;
}

static SelectCore *core_copy(Arena *a, const SelectCore *s)
{
	SelectCore *c = arena_alloc(a, sizeof *c);
	*c = *s;
	if (s->cols) {
		c->cols = arena_alloc(a, sizeof(ResultList));
		for (int i = 0; i < s->cols->n; i++) {
			ResultCol *r = arena_alloc(a, sizeof *r);
			*r = *s->cols->items[i];
			r->expr = ast_expr_copy(a, r->expr);
			r->alias = name_copy(a, r->alias);
			c->cols->items = grow(a, c->cols->items, c->cols->n, &c->cols->cap,
			                      sizeof(ResultCol *));
			c->cols->items[c->cols->n++] = r;
		}
	}
	c->from = fromlist_copy(a, s->from);
	c->where = ast_expr_copy(a, s->where);
	c->group = ast_exprlist_copy(a, s->group);
	c->having = ast_expr_copy(a, s->having);
	if (s->windows) {
		c->windows = arena_alloc(a, sizeof(WindowList));
		for (int i = 0; i < s->windows->n; i++) {
			WindowList *w = c->windows;
			w->items = grow(a, w->items, w->n, &w->cap, sizeof(Window *));
			w->items[w->n++] = window_copy(a, s->windows->items[i]);
		}
	}
	if (s->rows) {
		c->rows = arena_alloc(a, sizeof(RowList));
		for (int i = 0; i < s->rows->n; i++) {
			RowList *r = c->rows;
			r->items = grow(a, r->items, r->n, &r->cap, sizeof(ExprList *));
			r->items[r->n++] = ast_exprlist_copy(a, s->rows->items[i]);
		}
	}
	return c;
}

static Select *ast_select_copy(Arena *a, const Select *s)
{
	if (!s)
		return NULL;
	Select *c = arena_alloc(a, sizeof *c);
	*c = *s;
	if (s->with) {
		c->with = arena_alloc(a, sizeof(With));
		c->with->recursive = s->with->recursive;
		for (int i = 0; i < s->with->n; i++) {
			Cte *t = arena_alloc(a, sizeof *t);
			*t = *s->with->items[i];
			t->name = name_copy(a, t->name);
			t->cols = idlist_copy(a, t->cols);
			t->select = ast_select_copy(a, t->select);
			c->with->items = grow(a, c->with->items, c->with->n, &c->with->cap,
			                      sizeof(Cte *));
			c->with->items[c->with->n++] = t;
		}
	}
	c->cores = arena_alloc(a, (size_t)(s->ncore ? s->ncore : 1) * sizeof(SelectCore *));
	c->ops = arena_alloc(a, (size_t)(s->ncore ? s->ncore : 1) * sizeof(CompoundOp));
	c->capcore = s->ncore;
	for (int i = 0; i < s->ncore; i++) {
		c->cores[i] = core_copy(a, s->cores[i]);
		c->ops[i] = s->ops[i];
	}
	c->order = order_copy(a, s->order);
	c->limit = ast_expr_copy(a, s->limit);
	c->offset = ast_expr_copy(a, s->offset);
	return c;
}

/* ---- reading ---- */
int ast_expr_children(Expr *e, Expr ***slots, int max)
{
	int n = 0;
#define ADD(p) do { if (p) { if (n < max) slots[n] = &(p); n++; } } while (0)
	ADD(e->left);
	if (e->kind == EX_CASE || e->kind == EX_FUNC || e->kind == EX_IN || e->kind == EX_ROW ||
	    e->kind == EX_ARRAY) {
		if (e->list)
			for (int i = 0; i < e->list->n; i++)
				ADD(e->list->items[i]);
	}
	ADD(e->right);
	ADD(e->extra);
#undef ADD
	return n;
}

int ast_is_suql_expr(const Expr *e)
{
	return e->kind >= EX_ANSWER || (e->kind == EX_LIKE && e->op == OP_ILIKE);
}

SelectCore *ast_simple_core(Select *s)
{
	return s && s->ncore == 1 ? s->cores[0] : NULL;
}

const char *ast_pg_name(PgType t)
{
	switch (t) {
	case PGT_DATE: return "date";
	case PGT_TIMESTAMP: return "timestamp";
	case PGT_TIME: return "time";
	case PGT_INT: return "int";
	case PGT_REAL: return "real";
	case PGT_NUMERIC: return "numeric";
	case PGT_BOOL: return "bool";
	default: return "text";
	}
}

int ast_binop_prec(int op)
{
	switch (op) {
	case OP_OR: return PREC_OR;
	case OP_AND: return PREC_AND;
	case OP_EQ: case OP_NE: case OP_IS: case OP_ISNOT: case OP_ISDISTINCT:
	case OP_ISNOTDISTINCT: return PREC_EQ;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: return PREC_CMP;
	case OP_BITAND: case OP_BITOR: case OP_LSHIFT: case OP_RSHIFT: return PREC_BIT;
	case OP_ADD: case OP_SUB: return PREC_ADD;
	case OP_MUL: case OP_DIV: case OP_REM: return PREC_MUL;
	case OP_CONCAT: case OP_PTR: case OP_PTR2: return PREC_CONCAT;
	default: return PREC_PRIMARY;
	}
}

int ast_prec(const Expr *e)
{
	switch (e->kind) {
	case EX_BINARY: return ast_binop_prec(e->op);
	case EX_UNARY: return e->op == OP_NOT ? PREC_NOT : PREC_UNARY;
	case EX_LIKE: case EX_BETWEEN: case EX_IN: case EX_ISNULL: case EX_CONTAINS:
		return PREC_EQ;
	case EX_QUANT: return ast_binop_prec(e->op);
	case EX_COLLATE: return PREC_COLLATE;
	case EX_PGCAST: return PREC_PGCAST;
	default: return PREC_PRIMARY;
	}
}
