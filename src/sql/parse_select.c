/*
 * parse_select.c: SELECT and VALUES (compound chains, WITH, result columns, FROM with every
 * join form, WHERE, GROUP BY, HAVING, WINDOW, ORDER BY, LIMIT), and SUQL's unnest() in FROM.
 */
#include "sql/parse_int.h"

#include <stdlib.h>
#include <string.h>

/* A bare alias (no AS) may follow here: an id or string that is not a join keyword and
   not a keyword with a meaning at this point. */
static int bare_alias_ok(Parser *p)
{
	Token t = p_tok(p);
	if (!tok_is_alias(t))
		return 0;
	if (t.type == TK_ID) {
		if (t.kw == KW_INDEXED)
			return 0;
		if (p_word_is(p, 0, "ERROR") && p_word_is(p, 1, "WITHIN"))
			return 0;   /* the clause of a sample, not an alias (p_error_within) */
		if (t.kw == KW_WINDOW && tok_is_id(p_peek(p, 1)) && p_kw_at(p, 2, KW_AS))
			return 0;
	}
	return 1;
}

static void p_alias(Parser *p, AstName *alias, int *as_kw)
{
	if (p_accept_kw(p, KW_AS)) {
		/* as ::= AS nm | ids: after AS a join keyword is a name too */
		*as_kw = 1;
		if (!tok_is_nm(p_tok(p)))
			p_unexpected(p, "an alias name after AS");
		*alias = p_name_of(p, p_next(p));
	} else if (bare_alias_ok(p)) {
		*alias = p_name_of(p, p_next(p));
	}
}

OrderList *p_order_list(Parser *p)
{
	OrderList *l = P_NEW(p, OrderList);
	do {
		OrderTerm *t = P_NEW(p, OrderTerm);
		t->span.off = p_off(p, p_tok(p));
		t->expr = p_expr(p);
		if (p_accept_kw(p, KW_ASC))
			t->dir = SORT_ASC;
		else if (p_accept_kw(p, KW_DESC))
			t->dir = SORT_DESC;
		if (p_kw(p, KW_NULLS)) {
			p_next(p);
			if (p_accept_kw(p, KW_FIRST))
				t->nulls = NULLS_FIRST;
			else {
				p_expect_kw(p, KW_LAST);
				t->nulls = NULLS_LAST;
			}
		}
		t->span = p_span_from(p, t->span.off);
		P_PUSH(p, l, t);
	} while (p_accept(p, TK_COMMA));
	return l;
}

/* result-column: * | name . * | expr [[AS] alias] */
ResultList *p_result_list(Parser *p)
{
	ResultList *l = P_NEW(p, ResultList);
	do {
		ResultCol *c = P_NEW(p, ResultCol);
		Token t = p_tok(p);
		c->span.off = p_off(p, t);
		if (t.type == TK_STAR) {
			p_next(p);
			c->expr = ast_expr_new(p->arena, EX_STAR);
			c->expr->span = p_span_from(p, c->span.off);
		} else if (tok_is_nm(t) && p_peek(p, 1).type == TK_DOT &&
		           p_peek(p, 2).type == TK_STAR) {
			p_next(p);
			p_next(p);
			p_next(p);
			c->expr = ast_expr_new(p->arena, EX_STAR);
			c->expr->table = p_name_of(p, t);
			c->expr->span = p_span_from(p, c->span.off);
		} else {
			if (t.type == TK_ID && (t.kw == KW_FROM || t.kw == KW_WHERE))
				p_fail_at(p, t, "name the columns to select, or write *",
				          "expected a result column before %s", lex_keyword_name(t.kw));
			c->expr = p_expr(p);
			c->span = p_span_to_next(p, c->span.off);
			p_alias(p, &c->alias, &c->as_kw);
			P_PUSH(p, l, c);
			continue;
		}
		c->span = p_span_from(p, c->span.off);
		P_PUSH(p, l, c);
	} while (p_accept(p, TK_COMMA));
	return l;
}

/* join-operator: ',' | [NATURAL] [LEFT|RIGHT|FULL] [OUTER] JOIN | INNER JOIN | CROSS JOIN
   (up to three keywords before JOIN, kept as written; SQLite checks the combination) */
static int p_join_op(Parser *p, FromItem *f)
{
	if (p_accept(p, TK_COMMA)) {
		f->comma = 1;
		return 1;
	}
	int k = 0;
	while (k < 3 && p_peek(p, k).type == TK_ID && lex_keyword_is_join(p_peek(p, k).kw))
		k++;
	if (!p_kw_at(p, k, KW_JOIN))
		return 0;
	for (int i = 0; i < k; i++)
		f->join_kw[i] = p_next(p).kw;
	p_next(p);
	f->njoin = 1 + k;
	return 1;
}

void p_indexed(Parser *p, IndexedKind *kind, AstName *index)
{
	if (p_kw(p, KW_INDEXED)) {
		p_next(p);
		p_expect_kw(p, KW_BY);
		*kind = INDEXED_BY;
		*index = p_expect_nm(p, "an index name");
	} else if (p_kw(p, KW_NOT) && p_kw_at(p, 1, KW_INDEXED)) {
		p_next(p);
		p_next(p);
		*kind = NOT_INDEXED;
	}
}

static FromItem *p_from_item(Parser *p)
{
	FromItem *f = P_NEW(p, FromItem);
	Token t = p_tok(p);
	f->span.off = p_off(p, t);
	if (t.type == TK_LP) {
		Token open = p_next(p);
		p_enter(p, open);
		if (p_starts_select(p, 0)) {
			f->kind = FROM_SUBQUERY;
			f->select = p_select(p);
		} else {
			f->kind = FROM_JOIN;
			f->nested = p_from_list(p);
		}
		p_expect_close(p, open);
		p_leave(p);
		p_alias(p, &f->alias, &f->as_kw);
	} else {
		if (!tok_is_nm(t))
			p_unexpected(p, "a table name");
		f->name = p_name_of(p, p_next(p));
		if (p_is(p, TK_DOT)) {
			p_next(p);
			f->schema = f->name;
			f->name = p_expect_nm(p, "a table name");
		}
		if (p_is(p, TK_LP)) {
			Token open = p_next(p);
			p_enter(p, open);
			f->kind = FROM_FUNC;
			f->args = p_is(p, TK_RP) ? P_NEW(p, ExprList) : p_expr_list(p);
			p_expect_close(p, open);
			p_leave(p);
			if (!f->schema.s && t.type == TK_ID && ast_name_is(f->name, "unnest")) {
				f->kind = FROM_UNNEST;
				p->has_suql = 1;
				if (f->args->n != 1)
					p_fail_at(p, t, "write unnest(column) AS name",
					          "unnest() takes 1 argument (an array)");
			}
			p_alias(p, &f->alias, &f->as_kw);
			if (f->kind == FROM_UNNEST && f->alias.s && p_is(p, TK_LP)) {
				Token o2 = p_next(p);
				ast_idlist_push(p->arena, &f->alias_cols, p_expect_nm(p, "a column name"));
				p_expect_close(p, o2);
			}
		} else {
			f->kind = FROM_TABLE;
			p_alias(p, &f->alias, &f->as_kw);
			p_indexed(p, &f->indexed, &f->index);
		}
	}
	return f;
}

FromList *p_from_list(Parser *p)
{
	FromList *l = P_NEW(p, FromList);
	FromItem join = {0};
	for (;;) {
		FromItem *f = p_from_item(p);
		f->comma = join.comma;
		f->njoin = join.njoin;
		for (int i = 0; i < 3; i++)
			f->join_kw[i] = join.join_kw[i];
		if (p_accept_kw(p, KW_ON)) {
			f->on = p_expr(p);
		} else if (p_accept_kw(p, KW_USING)) {
			Token open = p_expect(p, TK_LP, "'(' after USING");
			f->using_ = p_column_names(p, open);
		}
		f->span = p_span_from(p, f->span.off);
		P_PUSH(p, l, f);
		join = (FromItem){0};
		if (!p_join_op(p, &join))
			break;
	}
	return l;
}

/* WITH [RECURSIVE] name [(cols)] AS [[NOT] MATERIALIZED] (select), ...  (after WITH) */
With *p_with(Parser *p)
{
	With *w = P_NEW(p, With);
	w->span.off = p->base + p->last_end - 4;   /* the WITH just consumed */
	w->recursive = p_accept_kw(p, KW_RECURSIVE);
	do {
		Cte *c = P_NEW(p, Cte);
		Token t = p_tok(p);
		c->span.off = p_off(p, t);
		c->name = p_expect_nm(p, "a name for the common table expression");
		if (p_is(p, TK_LP))
			c->cols = p_column_names(p, p_next(p));
		p_expect_kw(p, KW_AS);
		if (p_kw(p, KW_NOT) && p_kw_at(p, 1, KW_MATERIALIZED)) {
			p_next(p);
			p_next(p);
			c->mat = MAT_NO;
		} else if (p_accept_kw(p, KW_MATERIALIZED)) {
			c->mat = MAT_YES;
		}
		Token open = p_expect(p, TK_LP, "'(' before the common table expression's SELECT");
		p_enter(p, open);
		if (!p_starts_select(p, 0))
			p_unexpected(p, "SELECT or VALUES");
		c->select = p_select(p);
		p_expect_close(p, open);
		p_leave(p);
		c->span = p_span_from(p, c->span.off);
		P_PUSH(p, w, c);
	} while (p_accept(p, TK_COMMA));
	w->span = p_span_from(p, w->span.off);
	return w;
}

/* select-core: SELECT [DISTINCT|ALL] results [FROM ...] [WHERE e] [GROUP BY list]
                [HAVING e] [WINDOW name AS (spec), ...]  |  VALUES (list), ... */
static SelectCore *p_core(Parser *p)
{
	SelectCore *c = P_NEW(p, SelectCore);
	Token t = p_tok(p);
	c->span.off = p_off(p, t);
	if (p_accept_kw(p, KW_VALUES)) {
		c->kind = CORE_VALUES;
		c->rows = P_NEW(p, RowList);
		do {
			Token open = p_expect(p, TK_LP, "'(' before a row of VALUES");
			p_enter(p, open);
			ExprList *row = p_expr_list(p);
			p_expect_close(p, open);
			p_leave(p);
			P_PUSH(p, c->rows, row);
		} while (p_accept(p, TK_COMMA));
		c->span = p_span_from(p, c->span.off);
		return c;
	}
	p_expect_kw(p, KW_SELECT);
	if (p_accept_kw(p, KW_DISTINCT))
		c->distinct = DISTINCT_DISTINCT;
	else if (p_accept_kw(p, KW_ALL))
		c->distinct = DISTINCT_ALL;
	c->cols = p_result_list(p);
	if (p_accept_kw(p, KW_FROM))
		c->from = p_from_list(p);
	if (p_accept_kw(p, KW_WHERE))
		c->where = p_expr(p);
	if (p_kw(p, KW_GROUP)) {
		p_next(p);
		p_expect_kw(p, KW_BY);
		c->group = p_expr_list(p);
	}
	if (p_accept_kw(p, KW_HAVING))
		c->having = p_expr(p);
	if (p_kw(p, KW_WINDOW) && tok_is_id(p_peek(p, 1)) && p_kw_at(p, 2, KW_AS)) {
		p_next(p);
		c->windows = P_NEW(p, WindowList);
		do {
			Token n = p_tok(p);
			if (!tok_is_id(n))
				p_unexpected(p, "a window name");
			p_next(p);
			p_expect_kw(p, KW_AS);
			Token open = p_expect(p, TK_LP, "'(' before the window definition");
			Window *w = p_window_spec(p, open);
			w->name = p_name_of(p, n);
			P_PUSH(p, c->windows, w);
		} while (p_accept(p, TK_COMMA));
	}
	c->span = p_span_from(p, c->span.off);
	return c;
}

/* select: [WITH ...] core (compound-op core)* [ORDER BY list] [LIMIT e [(OFFSET|,) e]] */
Select *p_select(Parser *p)
{
	Token first = p_tok(p);
	p_enter(p, first);
	Select *s = P_NEW(p, Select);
	s->span.off = p_off(p, first);
	if (p_accept_kw(p, KW_WITH))
		s->with = p_with(p);
	CompoundOp op = COMPOUND_NONE;
	for (;;) {
		if (!p_kw(p, KW_SELECT) && !p_kw(p, KW_VALUES)) {
			if (p_is(p, TK_LP) && p_starts_select(p, 1))
				p_fail_at(p, p_tok(p), "remove the parentheses around this SELECT",
				          "a SELECT in a compound cannot be in parentheses");
			p_unexpected(p, "SELECT or VALUES");
		}
		SelectCore *c = p_core(p);
		if (s->ncore == s->capcore) {
			int nc = s->capcore ? s->capcore * 2 : 2;
			SelectCore **cores = arena_alloc(p->arena, (size_t)nc * sizeof *cores);
			CompoundOp *ops = arena_alloc(p->arena, (size_t)nc * sizeof *ops);
			for (int i = 0; i < s->ncore; i++) {
				cores[i] = s->cores[i];
				ops[i] = s->ops[i];
			}
			s->cores = cores;
			s->ops = ops;
			s->capcore = nc;
		}
		s->cores[s->ncore] = c;
		s->ops[s->ncore] = op;
		s->ncore++;
		if (s->ncore > PARSE_MAX_DEPTH)
			p_fail_at(p, p_tok(p), NULL, "too many SELECTs in one compound (more than %d)",
			          PARSE_MAX_DEPTH);
		if (p_kw(p, KW_UNION)) {
			p_next(p);
			op = p_accept_kw(p, KW_ALL) ? COMPOUND_UNION_ALL : COMPOUND_UNION;
		} else if (p_accept_kw(p, KW_INTERSECT)) {
			op = COMPOUND_INTERSECT;
		} else if (p_accept_kw(p, KW_EXCEPT)) {
			op = COMPOUND_EXCEPT;
		} else {
			break;
		}
	}
	p_order_limit(p, &s->order, &s->limit, &s->offset);
	s->span = p_span_from(p, s->span.off);
	p_leave(p);
	return s;
}

void p_order_limit(Parser *p, OrderList **order, Expr **limit, Expr **offset)
{
	if (p_kw(p, KW_ORDER)) {
		p_next(p);
		p_expect_kw(p, KW_BY);
		*order = p_order_list(p);
	}
	if (p_accept_kw(p, KW_LIMIT)) {
		Expr *a = p_expr(p);
		if (p_accept_kw(p, KW_OFFSET)) {
			*limit = a;
			*offset = p_expr(p);
		} else if (p_accept(p, TK_COMMA)) {   /* LIMIT offset, count */
			*offset = a;
			*limit = p_expr(p);
		} else {
			*limit = a;
		}
	}
}

/* A percentage "N%" of the clause: its value as a fraction, its place in *at; lo < N and
   N < hi (or N <= hi when hi_ok). */
static double percent(Parser *p, const char *what, double lo, double hi, int hi_ok,
                      const char *hint, AstSpan *at)
{
	Token t = p_tok(p);
	if (t.type != TK_INTEGER && t.type != TK_FLOAT)
		p_unexpected(p, what);
	char buf[64];
	size_t n = t.len < sizeof buf - 1 ? t.len : sizeof buf - 1;
	memcpy(buf, p->text + t.off, n);
	buf[n] = 0;
	char *end = NULL;
	double v = strtod(buf, &end);
	if (!end || *end || !(v > lo) || v > hi || (!hi_ok && v >= hi))
		p_fail_at(p, t, hint, "%s must be more than %g%% and %s %g%%, not %s%%", what, lo,
		          hi_ok ? "at most" : "less than", hi, buf);
	p_next(p);
	at->off = p_off(p, t);
	at->len = t.len;
	if (!p_accept(p, TK_REM))
		p_unexpected(p, "'%' after the number");
	return v / 100.0;
}

/* [ERROR WITHIN e% AT CONFIDENCE c% [SEED n]] after the statement's SELECT (BlinkDB's clause, last,
   after LIMIT as BlinkDB writes it after GROUP BY): the engine's sample operator
   (exec_sample.c) checks what the statement around it must be. */
void p_error_within(Parser *p, Select *s)
{
	if (!p_word_is(p, 0, "ERROR") || !p_word_is(p, 1, "WITHIN"))
		return;
	Token first = p_next(p);
	p_next(p);
	s->err_within = percent(p, "the error", 0, 100, 1,
	                        "write the relative error as a percentage, such as ERROR WITHIN 10%",
	                        &s->err_num);
	if (!p_word_is(p, 0, "AT"))
		p_unexpected(p, "AT CONFIDENCE c% after ERROR WITHIN e%");
	p_next(p);
	if (!p_word_is(p, 0, "CONFIDENCE"))
		p_unexpected(p, "CONFIDENCE after AT");
	p_next(p);
	s->confidence = percent(p, "the confidence", 0, 100, 0,
	                        "write the confidence as a percentage below 100, such as AT "
	                        "CONFIDENCE 95%", &s->conf_num);
	s->seed = -1;
	if (p_word_is(p, 0, "SEED")) {
		p_next(p);
		Token t = p_tok(p);
		char buf[32];
		size_t n = t.len < sizeof buf - 1 ? t.len : sizeof buf - 1;
		memcpy(buf, p->text + t.off, n);
		buf[n] = 0;
		char *end = NULL;
		long long v = t.type == TK_INTEGER ? strtoll(buf, &end, 10) : -1;
		if (t.type != TK_INTEGER || !end || *end || v < 0 || v > 2000000000)
			p_fail_at(p, t, "write SEED and a whole number from 0 to 2000000000, such as SEED 7",
			          "the seed of the sample must be a whole number");
		p_next(p);
		s->seed = v;
	}
	s->err_span = p_span_from(p, p_off(p, first));
}
