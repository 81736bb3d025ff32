/*
 * parse_expr.c: expressions, by precedence climbing with SQLite's precedence and
 * associativity (see the PREC_ constants in ast.h), with the SUQL operators `::`,
 * op ANY/SOME/ALL (...), @>, <@, && and ILIKE. Primaries are in parse_primary.c, types and
 * windows in parse_type.c.
 */
#include "sql/parse_int.h"

#include <stdio.h>
#include <string.h>

static Expr *p_expr_prec(Parser *p, int minprec);

/* An error at the whole of an expression's text */
_Noreturn static void fail_span(Parser *p, AstSpan sp, const char *hint, const char *msg)
{
	Token t = {TK_ID, KW_NONE, sp.off - p->base, sp.len};
	p_fail_at(p, t, hint, "%s", msg);
}
static int p_starts_expr(Parser *p, int k);

Expr *p_new_expr(Parser *p, ExprKind kind, size_t start)
{
	Expr *e = ast_expr_new(p->arena, kind);
	e->span.off = start;
	return e;
}

Expr *p_finish(Parser *p, Expr *e)
{
	e->span = p_span_from(p, e->span.off);
	return e;
}

int p_starts_select(Parser *p, int k)
{
	return p_kw_at(p, k, KW_SELECT) || p_kw_at(p, k, KW_VALUES) || p_kw_at(p, k, KW_WITH);
}

static int p_starts_expr(Parser *p, int k)
{
	Token t = p_peek(p, k);
	switch (t.type) {
	case TK_INTEGER: case TK_FLOAT: case TK_STRING: case TK_BLOB: case TK_VARIABLE:
	case TK_LP: case TK_MINUS: case TK_PLUS: case TK_BITNOT: case TK_QID:
		return 1;
	case TK_ID:
		switch (t.kw) {
		case KW_NOT: case KW_NULL: case KW_CASE: case KW_EXISTS:
			return 1;
		default:
			return t.kw == KW_NONE || lex_keyword_is_fallback(t.kw) ||
			       lex_keyword_is_join(t.kw);
		}
	default:
		return 0;
	}
}

ExprList *p_expr_list(Parser *p)
{
	ExprList *l = NULL;
	do
		ast_list_push(p->arena, &l, p_expr(p));
	while (p_accept(p, TK_COMMA));
	return l;
}

Expr *p_expr(Parser *p)
{
	return p_expr_prec(p, PREC_OR);
}

static Expr *p_unary(Parser *p)
{
	Token t = p_tok(p);
	size_t start = p_off(p, t);
	int op = 0, prec = 0;
	if (t.type == TK_ID && t.kw == KW_NOT) {
		op = OP_NOT;
		prec = PREC_NOT;
	} else if (t.type == TK_MINUS) {
		op = OP_NEG;
		prec = PREC_UNARY;
	} else if (t.type == TK_PLUS) {
		op = OP_POS;
		prec = PREC_UNARY;
	} else if (t.type == TK_BITNOT) {
		op = OP_BITNOT;
		prec = PREC_UNARY;
	}
	if (op) {
		p_next(p);
		p_enter(p, t);
		Expr *e = p_new_expr(p, EX_UNARY, start);
		e->op = op;
		e->left = p_expr_prec(p, prec);
		p_leave(p);
		return p_finish(p, e);
	}
	Expr *e = p_primary(p);
	while (p_is(p, TK_DCOLON)) {
		p_next(p);
		Expr *c = p_new_expr(p, EX_PGCAST, e->span.off);
		c->left = e;
		c->type = p_pg_type(p);
		p->has_suql = 1;
		e = p_finish(p, c);
		if (c->type->pg != PGT_INTERVAL)
			continue;
		if (!(e->left->kind == EX_LITERAL && e->left->lit == LIT_STRING))
			fail_span(p, e->span, "write a literal: date + '3 days'::interval; an answer "
			          "in days is answer(t, 'how many days?')::int",
			          "::INTERVAL converts only a literal: SQLite has no interval values to "
			          "convert a column or expression into");
		if (ast_interval_mods(e->left->name.s, e->left->name.n, NULL, NULL) <= 0)
			fail_span(p, e->span, "write a number and a unit: '3 days', '1 year 2 months', "
			            "'90 minutes', '2 weeks ago'",
			            "::INTERVAL takes a string literal of years, months, weeks, days, "
			            "hours, minutes or seconds");
	}
	return e;
}

static int is_interval(const Expr *e)
{
	return e->kind == EX_PGCAST && e->type->pg == PGT_INTERVAL;
}

/* An interval is only added to a date or time, or subtracted from one. */
static void check_interval_use(Parser *p, const Expr *e)
{
	int l = is_interval(e->left), r = is_interval(e->right);
	if (!l && !r)
		return;
	if ((e->op == OP_ADD && !(l && r)) || (e->op == OP_SUB && r && !l))
		return;
	fail_span(p, e->span, "write date + INTERVAL '3 days' or date - INTERVAL '1 month'",
	            "an INTERVAL can only be added to a date or time or subtracted from one");
}

/* The right side of IN: (list) | (select) | () | [schema.]table [ (args) ] */
static void p_in_rhs(Parser *p, Expr *e)
{
	if (p_is(p, TK_LP)) {
		Token open = p_next(p);
		p_enter(p, open);
		if (p_starts_select(p, 0))
			e->select = p_select(p);
		else if (!p_is(p, TK_RP))
			e->list = p_expr_list(p);
		else
			e->list = P_NEW(p, ExprList);
		p_expect_close(p, open);
		p_leave(p);
		return;
	}
	e->in_table = 1;
	e->name = p_expect_nm(p, "'(' or a table name after IN");
	if (p_is(p, TK_DOT)) {
		p_next(p);
		e->schema = e->name;
		e->name = p_expect_nm(p, "a table name");
	}
	if (p_is(p, TK_LP)) {
		Token open = p_next(p);
		e->list = p_is(p, TK_RP) ? P_NEW(p, ExprList) : p_expr_list(p);
		p_expect_close(p, open);
	}
}

static int cmp_op(TokType t)
{
	switch (t) {
	case TK_EQ: return OP_EQ;
	case TK_NE: return OP_NE;
	case TK_LT: return OP_LT;
	case TK_LE: return OP_LE;
	case TK_GT: return OP_GT;
	case TK_GE: return OP_GE;
	case TK_BITAND: return OP_BITAND;
	case TK_BITOR: return OP_BITOR;
	case TK_LSHIFT: return OP_LSHIFT;
	case TK_RSHIFT: return OP_RSHIFT;
	case TK_PLUS: return OP_ADD;
	case TK_MINUS: return OP_SUB;
	case TK_STAR: return OP_MUL;
	case TK_SLASH: return OP_DIV;
	case TK_REM: return OP_REM;
	case TK_CONCAT: return OP_CONCAT;
	case TK_PTR: return OP_PTR;
	case TK_PTR2: return OP_PTR2;
	default: return 0;
	}
}

static int like_op(Parser *p, int k)
{
	Token t = p_peek(p, k);
	if (t.type != TK_ID)
		return 0;
	switch (t.kw) {
	case KW_LIKE: return OP_LIKE;
	case KW_GLOB: return OP_GLOB;
	case KW_REGEXP: return OP_REGEXP;
	case KW_MATCH: return OP_MATCH;
	case KW_NONE:
		if (str_nieq(p->text + t.off, t.len, "ilike") && p_starts_expr(p, k + 1))
			return OP_ILIKE;
		return 0;
	default: return 0;
	}
}

static Expr *p_expr_prec(Parser *p, int minprec)
{
	Token first = p_tok(p);
	p_enter(p, first);
	Expr *left = p_unary(p);
	int chain = 0;
	for (;;) {
		Token t = p_tok(p);
		size_t start = left->span.off;
		Expr *e = NULL;
		int op = cmp_op(t.type);
		if (++chain + p->depth > PARSE_MAX_DEPTH)
			p_fail_at(p, t, "split the expression into smaller parts",
			          "the expression is too deep (more than %d levels)", PARSE_MAX_DEPTH);
		if (op) {
			int prec = ast_binop_prec(op);
			if (prec < minprec)
				break;
			p_next(p);
			/* op ANY|SOME|ALL ( ... ) */
			if (prec <= PREC_CMP && p_peek(p, 1).type == TK_LP &&
			    (p_word_is(p, 0, "any") || p_word_is(p, 0, "some") || p_kw(p, KW_ALL))) {
				Token q = p_next(p);
				e = p_new_expr(p, EX_QUANT, start);
				e->op = op;
				e->quant = q.kw == KW_ALL ? Q_ALL :
				           str_nieq(p->text + q.off, q.len, "any") ? Q_ANY : Q_SOME;
				e->left = left;
				Token open = p_next(p);
				p_enter(p, open);
				if (p_starts_select(p, 0))
					e->select = p_select(p);
				else
					e->right = p_expr(p);
				p_expect_close(p, open);
				p_leave(p);
				p->has_suql = 1;
			} else {
				e = p_new_expr(p, EX_BINARY, start);
				e->op = op;
				e->left = left;
				e->right = p_expr_prec(p, prec + 1);
			}
			left = p_finish(p, e);
			if (e->kind == EX_BINARY)
				check_interval_use(p, e);
			continue;
		}
		if (t.type == TK_CONTAINS || t.type == TK_CONTAINED || t.type == TK_OVERLAP) {
			if (PREC_EQ < minprec)
				break;
			p_next(p);
			e = p_new_expr(p, EX_CONTAINS, start);
			e->op = t.type == TK_CONTAINS ? OP_CONTAINS :
			        t.type == TK_CONTAINED ? OP_CONTAINED : OP_OVERLAP;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			p->has_suql = 1;
			left = p_finish(p, e);
			continue;
		}
		if (t.type != TK_ID)
			break;
		int lop;
		switch (t.kw) {
		case KW_OR: case KW_AND: {
			int bop = t.kw == KW_OR ? OP_OR : OP_AND;
			int prec = ast_binop_prec(bop);
			if (prec < minprec)
				goto done;
			p_next(p);
			e = p_new_expr(p, EX_BINARY, start);
			e->op = bop;
			e->left = left;
			e->right = p_expr_prec(p, prec + 1);
			left = p_finish(p, e);
			continue;
		}
		case KW_COLLATE:
			if (PREC_COLLATE < minprec)
				goto done;
			p_next(p);
			e = p_new_expr(p, EX_COLLATE, start);
			e->left = left;
			if (!tok_is_alias(p_tok(p)))
				p_unexpected(p, "a collation name");
			e->name = p_name_of(p, p_next(p));
			left = p_finish(p, e);
			continue;
		case KW_ISNULL: case KW_NOTNULL:
			if (PREC_EQ < minprec)
				goto done;
			p_next(p);
			e = p_new_expr(p, EX_ISNULL, start);
			e->not_ = t.kw == KW_NOTNULL;
			e->left = left;
			left = p_finish(p, e);
			continue;
		case KW_IS: {
			if (PREC_EQ < minprec)
				goto done;
			p_next(p);
			int isnot = p_accept_kw(p, KW_NOT);
			int iop = isnot ? OP_ISNOT : OP_IS;
			if (p_kw(p, KW_DISTINCT)) {
				p_next(p);
				p_expect_kw(p, KW_FROM);
				iop = isnot ? OP_ISNOTDISTINCT : OP_ISDISTINCT;
			}
			e = p_new_expr(p, EX_BINARY, start);
			e->op = iop;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			left = p_finish(p, e);
			continue;
		}
		default:   /* [NOT] IN, BETWEEN, LIKE... below */
			break;
		}
		int not_ = 0, k = 0;
		if (t.kw == KW_NOT) {
			not_ = 1;
			k = 1;
		}
		Token t2 = p_peek(p, k);
		if (not_ && t2.type == TK_ID && t2.kw == KW_NULL) {
			if (PREC_EQ < minprec)
				break;
			p_next(p);
			p_next(p);
			e = p_new_expr(p, EX_ISNULL, start);
			e->not_ = 1;
			e->left = left;
			left = p_finish(p, e);
			continue;
		}
		if (t2.type == TK_ID && t2.kw == KW_IN) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = p_new_expr(p, EX_IN, start);
			e->not_ = not_;
			e->left = left;
			p_in_rhs(p, e);
			left = p_finish(p, e);
			continue;
		}
		if (t2.type == TK_ID && t2.kw == KW_BETWEEN) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = p_new_expr(p, EX_BETWEEN, start);
			e->not_ = not_;
			e->left = left;
			/* the low bound takes every operator but AND and OR (SQLite's grammar
			   shifts = and IS there); the high bound stops at = as usual */
			e->right = p_expr_prec(p, PREC_EQ);
			p_expect_kw(p, KW_AND);
			e->extra = p_expr_prec(p, PREC_EQ + 1);
			left = p_finish(p, e);
			continue;
		}
		if ((lop = like_op(p, k)) != 0) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = p_new_expr(p, EX_LIKE, start);
			e->not_ = not_;
			e->op = lop;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			if (p_accept_kw(p, KW_ESCAPE))
				e->extra = p_expr_prec(p, PREC_EQ + 1);
			if (lop == OP_ILIKE)
				p->has_suql = 1;
			left = p_finish(p, e);
			continue;
		}
		break;
	}
done:
	p_leave(p);
	return left;
}

