/*
 * parse_primary.c: the primaries of expressions: literals, parameters, names, function
 * calls (answer() and summary() become SUQL nodes), CASE, CAST, EXISTS, RAISE, subqueries,
 * row values and ARRAY[...].
 */
#include "sql/parse_int.h"

#include <stdio.h>
#include <string.h>

/* ---- primaries ---- */

/* The answers a constrained answer allows: ARRAY[...] of string or number literals. */
static void p_answer_options(Parser *p, const Expr *o)
{
	const char *hint = "write the answers allowed as ARRAY['a', 'b', 'c']";
	Token at = {TK_ID, KW_NONE, o->span.off - p->base, o->span.len};
	if (o->kind != EX_ARRAY || !o->list || o->list->n == 0)
		p_fail_at(p, at, hint, "answer()'s third argument lists the answers allowed: an "
		          "ARRAY[...] of literals");
	for (int i = 0; i < o->list->n; i++) {
		const Expr *v = o->list->items[i];
		const Expr *num = v->kind == EX_UNARY && (v->op == OP_NEG || v->op == OP_POS) ? v->left
		                                                                            : NULL;
		if (num && !(num->kind == EX_LITERAL && (num->lit == LIT_INTEGER ||
		                                         num->lit == LIT_FLOAT)))
			num = NULL;
		if (!num && (v->kind != EX_LITERAL || (v->lit != LIT_STRING && v->lit != LIT_INTEGER &&
		                                       v->lit != LIT_FLOAT))) {
			Token vt = {TK_ID, KW_NONE, v->span.off - p->base, v->span.len};
			p_fail_at(p, vt, hint, "an answer allowed by answer() is a string or number "
			          "literal");
		}
	}
}

/* function call after the name: ( [DISTINCT|ALL] [* | args [ORDER BY ...]] )
   [FILTER (WHERE e)] [OVER (window) | OVER name]; answer() and summary() become SUQL nodes */
static Expr *p_call(Parser *p, Token name, size_t start)
{
	Expr *e = p_new_expr(p, EX_FUNC, start);
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
	p_finish(p, e);
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
			if (ans && nargs != 2 && nargs != 3)
				p_fail_at(p, at, "write answer(column, 'question') or answer(column, "
				          "'question', ARRAY['a', 'b'])",
				          "answer() takes 2 or 3 arguments (a text, a question and the "
				          "answers allowed)");
			if (ans && nargs == 3)
				p_answer_options(p, e->list->items[2]);
			if (sum && nargs != 1)
				p_fail_at(p, at, "write summary(column)",
				          "summary() takes 1 argument (a text)");
			e->kind = ans ? EX_ANSWER : EX_SUMMARY;
			e->left = e->list->items[0];
			e->right = ans ? e->list->items[1] : NULL;
			e->extra = ans && nargs == 3 ? e->list->items[2] : NULL;
			e->list = NULL;
			p->has_suql = 1;
		}
		/* answer_agg(text, 'question' [, ARRAY[...]]), summary_agg(text [, 'focus']):
		   aggregates the binder recognizes (bind_occ.c, exec_agg.c) */
		int aa = str_nieq(p->text + name.off, name.len, "answer_agg");
		if (aa || str_nieq(p->text + name.off, name.len, "summary_agg")) {
			Token at = name;
			at.len = e->span.len;
			int nargs = e->list ? e->list->n : 0;
			if (e->distinct || e->star || e->order || e->extra || e->over)
				p_fail_at(p, at, NULL, "%s() takes plain arguments (no DISTINCT, *, ORDER "
				          "BY, FILTER or OVER)", aa ? "answer_agg" : "summary_agg");
			if (aa && nargs != 2 && nargs != 3)
				p_fail_at(p, at, "write answer_agg(column, 'question') or answer_agg(column, "
				          "'question', ARRAY['a', 'b'])", "answer_agg() takes 2 or 3 "
				          "arguments (a text, a question and the answers allowed)");
			if (!aa && nargs != 1 && nargs != 2)
				p_fail_at(p, at, "write summary_agg(column) or summary_agg(column, 'focus')",
				          "summary_agg() takes 1 or 2 arguments (a text and what to focus on)");
			if (aa && nargs == 3)
				p_answer_options(p, e->list->items[2]);
			p->has_suql = 1;
		}
		/* extract(text, 'spec'): a call the binder turns into an occurrence (bind_occ.c) */
		if (str_nieq(p->text + name.off, name.len, "extract")) {
			Token at = name;
			at.len = e->span.len;
			if (e->distinct || e->star || e->order || e->extra || e->over || !e->list ||
			    e->list->n != 2)
				p_fail_at(p, at, "write extract(column, 'name type, ...'), such as "
				          "extract(reviews, 'noise text, wait_minutes int')",
				          "extract() takes 2 plain arguments (a text and the spec of its "
				          "fields)");
			p->has_suql = 1;
		}
	}
	return e;
}

/* CASE [base] WHEN e THEN e ... [ELSE e] END */
static Expr *p_case(Parser *p, size_t start)
{
	Expr *e = p_new_expr(p, EX_CASE, start);
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
		char hint[96];
		p_open_hint(p, kw, "CASE", "needs an END", hint, sizeof hint);
		Token t = p_tok(p);
		if (t.type == TK_EOF)
			p_fail_at(p, t, hint, "expected END");
		p_fail_at(p, t, hint, "expected END, found '%.*s'", (int)(t.len > 40 ? 40 : t.len),
		          p->text + t.off);
	}
	p_next(p);
	p_leave(p);
	return p_finish(p, e);
}

/* ARRAY [ e, ... ] */
static Expr *p_array(Parser *p, size_t start)
{
	Expr *e = p_new_expr(p, EX_ARRAY, start);
	p_next(p);
	Token open = p_next(p);   /* [ */
	p_enter(p, open);
	if (!p_is(p, TK_RBRACKET))
		e->list = p_expr_list(p);
	if (!p_is(p, TK_RBRACKET)) {
		char hint[96];
		p_fail_at(p, p_tok(p), p_open_hint(p, open, "'['", "is never closed", hint, sizeof hint),
		          "missing ']' to close 'ARRAY['");
	}
	p_next(p);
	p_leave(p);
	p->has_suql = 1;
	return p_finish(p, e);
}

/* name [. name [. name]] as a column reference; t is the first name */
static Expr *p_column_ref(Parser *p, Token t, size_t start)
{
	Expr *e = p_new_expr(p, EX_COLUMN, start);
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
	return p_finish(p, e);
}

static Expr *p_literal(Parser *p, LitKind lit, size_t start)
{
	Expr *e = p_new_expr(p, EX_LITERAL, start);
	Token t = p_next(p);
	e->lit = lit;
	e->name = p_name_of(p, t);
	return p_finish(p, e);
}

Expr *p_primary(Parser *p)
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
		Expr *e = p_new_expr(p, EX_PARAM, start);
		e->name = p_name_of(p, p_next(p));
		return p_finish(p, e);
	}
	case TK_LP: {
		Token open = p_next(p);
		p_enter(p, open);
		Expr *e;
		if (p_starts_select(p, 0)) {
			e = p_new_expr(p, EX_SUBQUERY, start);
			e->select = p_select(p);
			p_expect_close(p, open);
			p_finish(p, e);
		} else {
			if (p_is(p, TK_RP))
				p_unexpected(p, "an expression");
			ExprList *l = p_expr_list(p);
			p_expect_close(p, open);
			if (l->n == 1) {
				e = l->items[0];
			} else {
				e = p_new_expr(p, EX_ROW, start);
				e->list = l;
				p_finish(p, e);
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
			Expr *e = p_new_expr(p, EX_CAST, start);
			p_next(p);
			Token open = p_next(p);
			p_enter(p, open);
			e->left = p_expr(p);
			p_expect_kw(p, KW_AS);
			e->type = p_type_name(p, 0);
			p_expect_close(p, open);
			p_leave(p);
			return p_finish(p, e);
		}
		break;
	case KW_EXISTS:
		if (n1.type == TK_LP) {
			Expr *e = p_new_expr(p, EX_EXISTS, start);
			p_next(p);
			Token open = p_next(p);
			p_enter(p, open);
			if (!p_starts_select(p, 0))
				p_unexpected(p, "a SELECT after EXISTS (");
			e->select = p_select(p);
			p_expect_close(p, open);
			p_leave(p);
			return p_finish(p, e);
		}
		p_unexpected(p, "'(' after EXISTS");
	case KW_RAISE:
		if (n1.type == TK_LP) {
			Expr *e = p_new_expr(p, EX_RAISE, start);
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
			return p_finish(p, e);
		}
		break;
	default:
		break;
	}
	if (!(t.kw == KW_NONE || lex_keyword_is_fallback(t.kw) || lex_keyword_is_join(t.kw)))
		p_unexpected(p, "an expression");
	if (n1.type == TK_LBRACKET && str_nieq(p->text + t.off, t.len, "array"))
		return p_array(p, start);
	/* INTERVAL '3 days' (PostgreSQL): the same node as '3 days'::INTERVAL. A string that
	   is no interval leaves SQLite's reading: the column interval with that alias. */
	if (n1.type == TK_STRING && t.kw == KW_NONE && str_nieq(p->text + t.off, t.len, "interval") &&
	    ast_interval_mods(p->text + n1.off, n1.len, NULL, NULL) > 0) {
		p_next(p);
		Expr *c = p_new_expr(p, EX_PGCAST, start);
		c->left = p_literal(p, LIT_STRING, p_off(p, n1));
		c->type = P_NEW(p, TypeName);
		c->type->span.off = start;
		c->type->span.len = t.len;
		c->type->text = "INTERVAL";
		c->type->n = 8;
		c->type->pg = PGT_INTERVAL;
		p->has_suql = 1;
		return p_finish(p, c);
	}
	p_next(p);
	if (p_is(p, TK_LP))
		return p_call(p, t, start);
	if (t.kw == KW_NONE && !p_is(p, TK_DOT)) {
		if (str_nieq(p->text + t.off, t.len, "true")) {
			Expr *e = p_new_expr(p, EX_LITERAL, start);
			e->lit = LIT_TRUE;
			e->name = p_name_of(p, t);
			return p_finish(p, e);
		}
		if (str_nieq(p->text + t.off, t.len, "false")) {
			Expr *e = p_new_expr(p, EX_LITERAL, start);
			e->lit = LIT_FALSE;
			e->name = p_name_of(p, t);
			return p_finish(p, e);
		}
	}
	return p_column_ref(p, t, start);
}
