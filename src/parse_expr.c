/*
 * parse_expr.c: expressions, by precedence climbing with SQLite's precedence and
 * associativity (see the PREC_ constants in ast.h), and the SUQL forms: answer(),
 * summary(), `::`, op ANY/SOME/ALL (...), @>, <@, ARRAY[...] and ILIKE.
 */
#include "parse_int.h"

#include <stdio.h>
#include <string.h>

static Expr *new_expr(Parser *p, ExprKind kind, size_t start)
{
	Expr *e = ast_expr_new(p->arena, kind);
	e->span.off = start;
	return e;
}

static Expr *finish(Parser *p, Expr *e)
{
	e->span = p_span_from(p, e->span.off);
	return e;
}

int p_starts_select(Parser *p, int k)
{
	return p_kw_at(p, k, KW_SELECT) || p_kw_at(p, k, KW_VALUES) || p_kw_at(p, k, KW_WITH);
}

int p_starts_expr(Parser *p, int k)
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

/* ---- types ---- */
static const struct { const char *name; PgType t; } PG_TYPES[] = {
	{"date", PGT_DATE}, {"timestamp", PGT_TIMESTAMP}, {"timestamptz", PGT_TIMESTAMP},
	{"datetime", PGT_TIMESTAMP}, {"time", PGT_TIME}, {"int", PGT_INT},
	{"integer", PGT_INT}, {"bigint", PGT_INT}, {"smallint", PGT_INT}, {"int2", PGT_INT},
	{"int4", PGT_INT}, {"int8", PGT_INT}, {"real", PGT_REAL}, {"float", PGT_REAL},
	{"float4", PGT_REAL}, {"float8", PGT_REAL}, {"double", PGT_REAL},
	{"numeric", PGT_NUMERIC}, {"decimal", PGT_NUMERIC}, {"text", PGT_TEXT},
	{"varchar", PGT_TEXT}, {"char", PGT_TEXT}, {"bool", PGT_BOOL}, {"boolean", PGT_BOOL},
};

/* The conversion a CAST(x AS type) stands for when x is a typed answer: SQLite's affinity
   rules, with date and time words and BOOL recognised first. */
static PgType cast_pg(const char *s, size_t n)
{
	char u[64];
	size_t m = n < sizeof u - 1 ? n : sizeof u - 1;
	for (size_t i = 0; i < m; i++)
		u[i] = (char)((s[i] >= 'a' && s[i] <= 'z') ? s[i] - 32 : s[i]);
	u[m] = '\0';
	if (strstr(u, "INT")) return PGT_INT;
	if (strstr(u, "CHAR") || strstr(u, "CLOB") || strstr(u, "TEXT")) return PGT_TEXT;
	if (strstr(u, "BLOB")) return PGT_NONE;
	if (strstr(u, "REAL") || strstr(u, "FLOA") || strstr(u, "DOUB")) return PGT_REAL;
	if (strstr(u, "TIMESTAMP") || strstr(u, "DATETIME")) return PGT_TIMESTAMP;
	if (strstr(u, "DATE")) return PGT_DATE;
	if (strstr(u, "TIME")) return PGT_TIME;
	if (strstr(u, "BOOL")) return PGT_BOOL;
	return PGT_NUMERIC;
}

/* Append a token to a normalised type spelling: words separated by one space. */
static void type_put(Parser *p, SBuf *b, Token t, int *need_space)
{
	if (*need_space)
		sb_putc(b, ' ');
	sb_putn(b, p->text + t.off, t.len);
	*need_space = 1;
}

/* signed number inside a type's parentheses: [+|-] number */
static void type_signed(Parser *p, SBuf *b)
{
	if (p_is(p, TK_PLUS) || p_is(p, TK_MINUS)) {
		Token s = p_next(p);
		sb_putn(b, p->text + s.off, s.len);
	}
	Token t = p_tok(p);
	if (t.type != TK_INTEGER && t.type != TK_FLOAT)
		p_unexpected(p, "a number");
	p_next(p);
	sb_putn(b, p->text + t.off, t.len);
}

/*
 * typetoken: name... [ ( signed [, signed] ) ] [ [] ]     (SQLite types, T[])
 *          | ENUM [ ( 'a', 'b', ... ) ] [ [] ] | FREE_TEXT [ [] ]     (SUQL column types)
 * column_def: stop before words that begin a column constraint.
 */
TypeName *p_type_name(Parser *p, int column_def)
{
	TypeName *tn = P_NEW(p, TypeName);
	Token first = p_tok(p);
	tn->span.off = p_off(p, first);
	SBuf *bp = &p->tmp;   /* freed by parse_run even when an error unwinds */
	sb_truncate(bp, 0);
#define b (*bp)
	int sp = 0, words = 0, is_enum = 0;
	for (;;) {
		Token t = p_tok(p);
		if (t.type == TK_ID && (t.kw == KW_CONSTRAINT || t.kw == KW_PRIMARY ||
		                        t.kw == KW_NOT || t.kw == KW_NULL || t.kw == KW_UNIQUE ||
		                        t.kw == KW_CHECK || t.kw == KW_DEFAULT ||
		                        t.kw == KW_COLLATE || t.kw == KW_REFERENCES ||
		                        t.kw == KW_GENERATED || t.kw == KW_AS))
			break;
		if (!(tok_is_id(t) || t.type == TK_STRING))
			break;
		if (t.type == TK_ID && t.kw == KW_GENERATED)
			break;
		if (!column_def && words > 0 && p_kw(p, KW_AS))
			break;
		if (words == 0 && t.type == TK_ID && str_nieq(p->text + t.off, t.len, "enum"))
			is_enum = 1;
		p_next(p);
		type_put(p, &b, t, &sp);
		words++;
	}
	if (words == 0) {
		if (column_def)
			return NULL;
		tn->text = "";
		return tn;
	}
	if (p_is(p, TK_LP)) {
		Token open = p_next(p);
		sb_putc(&b, '(');
		if (is_enum && column_def) {
			if (!p_is(p, TK_STRING))
				p_unexpected(p, "an ENUM value (a string like 'cheap')");
			do {
				Token s = p_expect(p, TK_STRING, "an ENUM value (a string like 'cheap')");
				if (b.s[b.len - 1] != '(')
					sb_puts(&b, ", ");
				sb_putn(&b, p->text + s.off, s.len);
			} while (p_accept(p, TK_COMMA));
		} else {
			type_signed(p, &b);
			if (p_accept(p, TK_COMMA)) {
				sb_puts(&b, ", ");
				type_signed(p, &b);
			}
		}
		p_expect_close(p, open);
		sb_putc(&b, ')');
	}
	if (column_def && p_is(p, TK_ARRSUFFIX)) {
		p_next(p);
		sb_puts(&b, "[]");
		tn->suql = 1;
	}
	if (column_def && words == 1 && (is_enum || str_nieq(b.s, strcspn(b.s, "[("), "free_text")))
		tn->suql = 1;
	if (tn->suql)
		p->has_suql = 1;
	tn->span = p_span_from(p, tn->span.off);
	tn->text = arena_strndup(p->arena, b.s, b.len);
	tn->n = b.len;
	tn->pg = cast_pg(b.s, b.len);
	return tn;
#undef b
}

/* The type after `::`: one word (or DOUBLE PRECISION), optional (n[, m]). */
static TypeName *p_pg_type(Parser *p)
{
	Token t = p_tok(p);
	if (t.type != TK_ID && t.type != TK_QID)
		p_unexpected(p, "a type name after '::'");
	p_next(p);
	TypeName *tn = P_NEW(p, TypeName);
	tn->span.off = p_off(p, t);
	SBuf *bp = &p->tmp;
	sb_truncate(bp, 0);
#define b (*bp)
	sb_putn(&b, p->text + t.off, t.len);
	for (size_t i = 0; i < sizeof PG_TYPES / sizeof PG_TYPES[0]; i++)
		if (t.type == TK_ID && str_nieq(p->text + t.off, t.len, PG_TYPES[i].name))
			tn->pg = PG_TYPES[i].t;
	if (tn->pg == PGT_REAL && str_nieq(p->text + t.off, t.len, "double")) {
		if (!p_word_is(p, 0, "precision"))
			tn->pg = PGT_NONE;
		else {
			Token w = p_next(p);
			sb_putc(&b, ' ');
			sb_putn(&b, p->text + w.off, w.len);
		}
	}
	if (p_is(p, TK_ARRSUFFIX))
		p_fail_at(p, p_tok(p), "arrays are JSON text: leave out the cast, or use json(...)",
		          "'::' cannot convert to an array type");
	if (tn->pg == PGT_NONE) {
		p_fail_at(p, t, "use date, timestamp, time, int, real, numeric, text or bool",
		          "unsupported type after '::': %.*s", (int)(t.len > 40 ? 40 : t.len),
		          p->text + t.off);
	}
	if (p_is(p, TK_LP)) {
		Token open = p_next(p);
		sb_putc(&b, '(');
		type_signed(p, &b);
		if (p_accept(p, TK_COMMA)) {
			sb_puts(&b, ", ");
			type_signed(p, &b);
		}
		p_expect_close(p, open);
		sb_putc(&b, ')');
	}
	tn->span = p_span_from(p, tn->span.off);
	tn->text = arena_strndup(p->arena, b.s, b.len);
	tn->n = b.len;
	return tn;
#undef b
}

/* ---- windows ---- */
static BoundKind p_bound(Parser *p, Expr **e)
{
	/* UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | expr PRECEDING | expr FOLLOWING */
	if (p_kw(p, KW_UNBOUNDED)) {
		p_next(p);
		if (p_accept_kw(p, KW_PRECEDING))
			return BOUND_UNBOUNDED_PRECEDING;
		p_expect_kw(p, KW_FOLLOWING);
		return BOUND_UNBOUNDED_FOLLOWING;
	}
	if (p_kw(p, KW_CURRENT) && p_kw_at(p, 1, KW_ROW)) {
		p_next(p);
		p_next(p);
		return BOUND_CURRENT_ROW;
	}
	*e = p_expr(p);
	if (p_accept_kw(p, KW_PRECEDING))
		return BOUND_PRECEDING;
	p_expect_kw(p, KW_FOLLOWING);
	return BOUND_FOLLOWING;
}

/* window: [base] [PARTITION BY list] [ORDER BY list] [frame]  (the '(' is consumed) */
Window *p_window_spec(Parser *p, Token open)
{
	Window *w = P_NEW(p, Window);
	w->span.off = p_off(p, open);
	Token t = p_tok(p);
	if (tok_is_id(t) && !p_kw(p, KW_PARTITION) && !p_kw(p, KW_ORDER) && !p_kw(p, KW_ROWS) &&
	    !p_kw(p, KW_RANGE) && !p_kw(p, KW_GROUPS))
		w->base = p_name_of(p, p_next(p));
	if (p_kw(p, KW_PARTITION)) {
		p_next(p);
		p_expect_kw(p, KW_BY);
		w->partition = p_expr_list(p);
	}
	if (p_kw(p, KW_ORDER)) {
		p_next(p);
		p_expect_kw(p, KW_BY);
		w->order = p_order_list(p);
	}
	if (p_kw(p, KW_ROWS) || p_kw(p, KW_RANGE) || p_kw(p, KW_GROUPS)) {
		Token f = p_next(p);
		w->frame = f.kw == KW_ROWS ? FRAME_ROWS : f.kw == KW_RANGE ? FRAME_RANGE : FRAME_GROUPS;
		if (p_accept_kw(p, KW_BETWEEN)) {
			w->between = 1;
			w->start_kind = p_bound(p, &w->start);
			p_expect_kw(p, KW_AND);
			w->end_kind = p_bound(p, &w->end);
		} else {
			w->start_kind = p_bound(p, &w->start);
		}
		if (p_accept_kw(p, KW_EXCLUDE)) {
			if (p_accept_kw(p, KW_NO)) {
				p_expect_kw(p, KW_OTHERS);
				w->exclude = EXCLUDE_NO_OTHERS;
			} else if (p_accept_kw(p, KW_CURRENT)) {
				p_expect_kw(p, KW_ROW);
				w->exclude = EXCLUDE_CURRENT_ROW;
			} else if (p_accept_kw(p, KW_GROUP)) {
				w->exclude = EXCLUDE_GROUP;
			} else {
				p_expect_kw(p, KW_TIES);
				w->exclude = EXCLUDE_TIES;
			}
		}
	}
	p_expect_close(p, open);
	w->span = p_span_from(p, w->span.off);
	return w;
}

/* ---- primaries ---- */

/* function call after the name: ( [DISTINCT|ALL] [* | args [ORDER BY ...]] )
   [FILTER (WHERE e)] [OVER (window) | OVER name]; answer() and summary() become SUQL nodes */
static Expr *p_call(Parser *p, Token name, size_t start)
{
	Expr *e = new_expr(p, EX_FUNC, start);
	e->name = p_name_of(p, name);
	Token open = p_expect(p, TK_LP, "'('");
	p_enter(p, open);
	if (p_accept_kw(p, KW_DISTINCT))
		e->distinct = 1;
	else
		p_accept_kw(p, KW_ALL);
	if (p_is(p, TK_STAR) && !e->distinct) {
		p_next(p);
		e->star = 1;
	} else if (!p_is(p, TK_RP)) {
		e->list = p_expr_list(p);
		if (p_kw(p, KW_ORDER)) {
			p_next(p);
			p_expect_kw(p, KW_BY);
			e->order = p_order_list(p);
		}
	}
	p_expect_close(p, open);
	p_leave(p);
	if (p_kw(p, KW_FILTER) && p_peek(p, 1).type == TK_LP) {
		p_next(p);
		Token fo = p_next(p);
		p_expect_kw(p, KW_WHERE);
		e->extra = p_expr(p);
		p_expect_close(p, fo);
	}
	if (p_kw(p, KW_OVER) && (p_peek(p, 1).type == TK_LP || tok_is_id(p_peek(p, 1)))) {
		p_next(p);
		if (p_is(p, TK_LP)) {
			Token wo = p_next(p);
			e->over = p_window_spec(p, wo);
		} else {
			e->over = P_NEW(p, Window);
			e->over->is_ref = 1;
			e->over->name = p_name_of(p, p_next(p));
		}
	}
	finish(p, e);
	if (name.type == TK_ID) {
		int ans = str_nieq(p->text + name.off, name.len, "answer");
		int sum = str_nieq(p->text + name.off, name.len, "summary");
		if (ans || sum) {
			int nargs = e->list ? e->list->n : 0;
			const char *fn = ans ? "answer" : "summary";
			Token at = name;
			at.len = e->span.len;
			if (e->distinct || e->star || e->order || e->extra || e->over)
				p_fail_at(p, at, NULL, "%s() takes plain arguments (no DISTINCT, *, "
				          "ORDER BY, FILTER or OVER)", fn);
			if (ans && nargs != 2)
				p_fail_at(p, at, "write answer(column, 'question')",
				          "answer() takes 2 arguments (a text and a question)");
			if (sum && nargs != 1)
				p_fail_at(p, at, "write summary(column)",
				          "summary() takes 1 argument (a text)");
			e->kind = ans ? EX_ANSWER : EX_SUMMARY;
			e->left = e->list->items[0];
			e->right = ans ? e->list->items[1] : NULL;
			e->list = NULL;
			p->has_suql = 1;
		}
	}
	return e;
}

/* CASE [base] WHEN e THEN e ... [ELSE e] END */
static Expr *p_case(Parser *p, size_t start)
{
	Expr *e = new_expr(p, EX_CASE, start);
	Token kw = p_next(p);
	p_enter(p, kw);
	if (!p_kw(p, KW_WHEN))
		e->left = p_expr(p);
	if (!p_kw(p, KW_WHEN))
		p_unexpected(p, "WHEN");
	while (p_accept_kw(p, KW_WHEN)) {
		ast_list_push(p->arena, &e->list, p_expr(p));
		p_expect_kw(p, KW_THEN);
		ast_list_push(p->arena, &e->list, p_expr(p));
	}
	if (p_accept_kw(p, KW_ELSE))
		e->extra = p_expr(p);
	if (!p_kw(p, KW_END)) {
		int line, col;
		err_linecol(p->src, p->srclen, p_off(p, kw), &line, &col);
		char hint[96];
		snprintf(hint, sizeof hint, "the CASE at line %d, column %d needs an END", line, col);
		Token t = p_tok(p);
		if (t.type == TK_EOF)
			p_fail_at(p, t, hint, "expected END");
		p_fail_at(p, t, hint, "expected END, found '%.*s'", (int)(t.len > 40 ? 40 : t.len),
		          p->text + t.off);
	}
	p_next(p);
	p_leave(p);
	return finish(p, e);
}

/* ARRAY [ e, ... ] */
static Expr *p_array(Parser *p, size_t start)
{
	Expr *e = new_expr(p, EX_ARRAY, start);
	p_next(p);
	Token open = p_next(p);   /* [ */
	p_enter(p, open);
	if (!p_is(p, TK_RBRACKET))
		e->list = p_expr_list(p);
	if (!p_is(p, TK_RBRACKET)) {
		int line, col;
		err_linecol(p->src, p->srclen, p_off(p, open), &line, &col);
		char hint[96];
		snprintf(hint, sizeof hint, "the '[' at line %d, column %d is never closed", line, col);
		p_fail_at(p, p_tok(p), hint, "missing ']' to close 'ARRAY['");
	}
	p_next(p);
	p_leave(p);
	p->has_suql = 1;
	return finish(p, e);
}

/* name [. name [. name]] as a column reference; t is the first name */
static Expr *p_column_ref(Parser *p, Token t, size_t start)
{
	Expr *e = new_expr(p, EX_COLUMN, start);
	e->name = p_name_of(p, t);
	if (p_is(p, TK_DOT)) {
		p_next(p);
		e->table = e->name;
		e->name = p_expect_nm(p, "a column name");
		if (p_is(p, TK_DOT)) {
			p_next(p);
			e->schema = e->table;
			e->table = e->name;
			e->name = p_expect_nm(p, "a column name");
		}
	}
	return finish(p, e);
}

static Expr *p_literal(Parser *p, LitKind lit, size_t start)
{
	Expr *e = new_expr(p, EX_LITERAL, start);
	Token t = p_next(p);
	e->lit = lit;
	e->name = p_name_of(p, t);
	return finish(p, e);
}

static Expr *p_primary(Parser *p)
{
	Token t = p_tok(p);
	size_t start = p_off(p, t);
	switch (t.type) {
	case TK_INTEGER: return p_literal(p, LIT_INTEGER, start);
	case TK_FLOAT: return p_literal(p, LIT_FLOAT, start);
	case TK_BLOB: return p_literal(p, LIT_BLOB, start);
	case TK_STRING:
		if (p_peek(p, 1).type == TK_DOT) {
			p_next(p);
			return p_column_ref(p, t, start);
		}
		return p_literal(p, LIT_STRING, start);
	case TK_VARIABLE: {
		Expr *e = new_expr(p, EX_PARAM, start);
		e->name = p_name_of(p, p_next(p));
		return finish(p, e);
	}
	case TK_LP: {
		Token open = p_next(p);
		p_enter(p, open);
		Expr *e;
		if (p_starts_select(p, 0)) {
			e = new_expr(p, EX_SUBQUERY, start);
			e->select = p_select(p);
			p_expect_close(p, open);
			finish(p, e);
		} else {
			if (p_is(p, TK_RP))
				p_unexpected(p, "an expression");
			ExprList *l = p_expr_list(p);
			p_expect_close(p, open);
			if (l->n == 1) {
				e = l->items[0];
			} else {
				e = new_expr(p, EX_ROW, start);
				e->list = l;
				finish(p, e);
			}
		}
		p_leave(p);
		return e;
	}
	case TK_QID:
		p_next(p);
		if (p_is(p, TK_LP))
			return p_call(p, t, start);
		return p_column_ref(p, t, start);
	case TK_ID:
		break;
	default:
		p_unexpected(p, "an expression");
	}
	Token n1 = p_peek(p, 1);
	switch (t.kw) {
	case KW_NULL: return p_literal(p, LIT_NULL, start);
	case KW_CURRENT_TIME: return p_literal(p, LIT_CURRENT_TIME, start);
	case KW_CURRENT_DATE: return p_literal(p, LIT_CURRENT_DATE, start);
	case KW_CURRENT_TIMESTAMP: return p_literal(p, LIT_CURRENT_TIMESTAMP, start);
	case KW_CASE: return p_case(p, start);
	case KW_CAST:
		if (n1.type == TK_LP) {
			Expr *e = new_expr(p, EX_CAST, start);
			p_next(p);
			Token open = p_next(p);
			p_enter(p, open);
			e->left = p_expr(p);
			p_expect_kw(p, KW_AS);
			e->type = p_type_name(p, 0);
			p_expect_close(p, open);
			p_leave(p);
			return finish(p, e);
		}
		break;
	case KW_EXISTS:
		if (n1.type == TK_LP) {
			Expr *e = new_expr(p, EX_EXISTS, start);
			p_next(p);
			Token open = p_next(p);
			p_enter(p, open);
			if (!p_starts_select(p, 0))
				p_unexpected(p, "a SELECT after EXISTS (");
			e->select = p_select(p);
			p_expect_close(p, open);
			p_leave(p);
			return finish(p, e);
		}
		p_unexpected(p, "'(' after EXISTS");
	case KW_RAISE:
		if (n1.type == TK_LP) {
			Expr *e = new_expr(p, EX_RAISE, start);
			p_next(p);
			Token open = p_next(p);
			if (p_accept_kw(p, KW_IGNORE)) {
				e->op = RAISE_IGNORE;
			} else {
				if (p_accept_kw(p, KW_ROLLBACK)) e->op = RAISE_ROLLBACK;
				else if (p_accept_kw(p, KW_ABORT)) e->op = RAISE_ABORT;
				else if (p_accept_kw(p, KW_FAIL)) e->op = RAISE_FAIL;
				else p_unexpected(p, "IGNORE, ROLLBACK, ABORT or FAIL");
				p_expect(p, TK_COMMA, "','");
				e->right = p_expr(p);
			}
			p_expect_close(p, open);
			return finish(p, e);
		}
		break;
	default:
		break;
	}
	if (!(t.kw == KW_NONE || lex_keyword_is_fallback(t.kw) || lex_keyword_is_join(t.kw)))
		p_unexpected(p, "an expression");
	if (n1.type == TK_LBRACKET && str_nieq(p->text + t.off, t.len, "array"))
		return p_array(p, start);
	p_next(p);
	if (p_is(p, TK_LP))
		return p_call(p, t, start);
	if (t.kw == KW_NONE && !p_is(p, TK_DOT)) {
		if (str_nieq(p->text + t.off, t.len, "true")) {
			Expr *e = new_expr(p, EX_LITERAL, start);
			e->lit = LIT_TRUE;
			e->name = p_name_of(p, t);
			return finish(p, e);
		}
		if (str_nieq(p->text + t.off, t.len, "false")) {
			Expr *e = new_expr(p, EX_LITERAL, start);
			e->lit = LIT_FALSE;
			e->name = p_name_of(p, t);
			return finish(p, e);
		}
	}
	return p_column_ref(p, t, start);
}

/* unary: NOT e | - e | + e | ~ e | primary, then `::type` postfixes */
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
		Expr *e = new_expr(p, EX_UNARY, start);
		e->op = op;
		e->left = p_expr_prec(p, prec);
		p_leave(p);
		return finish(p, e);
	}
	Expr *e = p_primary(p);
	while (p_is(p, TK_DCOLON)) {
		p_next(p);
		Expr *c = new_expr(p, EX_PGCAST, e->span.off);
		c->left = e;
		c->type = p_pg_type(p);
		p->has_suql = 1;
		e = finish(p, c);
	}
	return e;
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

Expr *p_expr_prec(Parser *p, int minprec)
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
				e = new_expr(p, EX_QUANT, start);
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
				e = new_expr(p, EX_BINARY, start);
				e->op = op;
				e->left = left;
				e->right = p_expr_prec(p, prec + 1);
			}
			left = finish(p, e);
			continue;
		}
		if (t.type == TK_CONTAINS || t.type == TK_CONTAINED) {
			if (PREC_EQ < minprec)
				break;
			p_next(p);
			e = new_expr(p, EX_CONTAINS, start);
			e->op = t.type == TK_CONTAINS ? OP_CONTAINS : OP_CONTAINED;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			p->has_suql = 1;
			left = finish(p, e);
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
			e = new_expr(p, EX_BINARY, start);
			e->op = bop;
			e->left = left;
			e->right = p_expr_prec(p, prec + 1);
			left = finish(p, e);
			continue;
		}
		case KW_COLLATE:
			if (PREC_COLLATE < minprec)
				goto done;
			p_next(p);
			e = new_expr(p, EX_COLLATE, start);
			e->left = left;
			if (!tok_is_alias(p_tok(p)))
				p_unexpected(p, "a collation name");
			e->name = p_name_of(p, p_next(p));
			left = finish(p, e);
			continue;
		case KW_ISNULL: case KW_NOTNULL:
			if (PREC_EQ < minprec)
				goto done;
			p_next(p);
			e = new_expr(p, EX_ISNULL, start);
			e->not_ = t.kw == KW_NOTNULL;
			e->left = left;
			left = finish(p, e);
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
			e = new_expr(p, EX_BINARY, start);
			e->op = iop;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			left = finish(p, e);
			continue;
		}
		case KW_NOT:
		case KW_IN:
		case KW_BETWEEN:
		default:
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
			e = new_expr(p, EX_ISNULL, start);
			e->not_ = 1;
			e->left = left;
			left = finish(p, e);
			continue;
		}
		if (t2.type == TK_ID && t2.kw == KW_IN) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = new_expr(p, EX_IN, start);
			e->not_ = not_;
			e->left = left;
			p_in_rhs(p, e);
			left = finish(p, e);
			continue;
		}
		if (t2.type == TK_ID && t2.kw == KW_BETWEEN) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = new_expr(p, EX_BETWEEN, start);
			e->not_ = not_;
			e->left = left;
			/* the low bound takes every operator but AND and OR (SQLite's grammar
			   shifts = and IS there); the high bound stops at = as usual */
			e->right = p_expr_prec(p, PREC_EQ);
			p_expect_kw(p, KW_AND);
			e->extra = p_expr_prec(p, PREC_EQ + 1);
			left = finish(p, e);
			continue;
		}
		if ((lop = like_op(p, k)) != 0) {
			if (PREC_EQ < minprec)
				break;
			for (int i = 0; i <= k; i++)
				p_next(p);
			e = new_expr(p, EX_LIKE, start);
			e->not_ = not_;
			e->op = lop;
			e->left = left;
			e->right = p_expr_prec(p, PREC_EQ + 1);
			if (p_accept_kw(p, KW_ESCAPE))
				e->extra = p_expr_prec(p, PREC_EQ + 1);
			if (lop == OP_ILIKE)
				p->has_suql = 1;
			left = finish(p, e);
			continue;
		}
		break;
	}
done:
	p_leave(p);
	return left;
}
