/*
 * parse_type.c: type names (SQLite's type tokens, SUQL column types FREE_TEXT, ENUM(...),
 * T[], and the PostgreSQL types after `::`) and window specifications.
 */
#include "sql/parse_int.h"

#include <stdio.h>
#include <string.h>

/* ---- types ---- */
static const struct { const char *name; PgType t; } PG_TYPES[] = {
	{"date", PGT_DATE}, {"timestamp", PGT_TIMESTAMP}, {"timestamptz", PGT_TIMESTAMP},
	{"datetime", PGT_TIMESTAMP}, {"time", PGT_TIME}, {"int", PGT_INT},
	{"integer", PGT_INT}, {"bigint", PGT_INT}, {"smallint", PGT_INT}, {"int2", PGT_INT},
	{"int4", PGT_INT}, {"int8", PGT_INT}, {"real", PGT_REAL}, {"float", PGT_REAL},
	{"float4", PGT_REAL}, {"float8", PGT_REAL}, {"double", PGT_REAL},
	{"numeric", PGT_NUMERIC}, {"decimal", PGT_NUMERIC}, {"text", PGT_TEXT},
	{"varchar", PGT_TEXT}, {"char", PGT_TEXT}, {"bool", PGT_BOOL}, {"boolean", PGT_BOOL},
	{"interval", PGT_INTERVAL},
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

/* ( signed [, signed] ) after a type name, appended to b as "(n, m)" */
static void type_args(Parser *p, SBuf *b)
{
	Token open = p_next(p);
	sb_putc(b, '(');
	type_signed(p, b);
	if (p_accept(p, TK_COMMA)) {
		sb_puts(b, ", ");
		type_signed(p, b);
	}
	p_expect_close(p, open);
	sb_putc(b, ')');
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
		if (!(tok_is_id(t) || t.type == TK_STRING) || (column_def && t.type == TK_ARRSUFFIX))
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
	/* ENUM('a', ...) is one word and its values: after several words ("ENUM l g (...)") the
	   parentheses hold a size, as SQLite reads them */
	if (p_is(p, TK_LP) && is_enum && words == 1 && column_def) {
		Token open = p_next(p);
		sb_putc(&b, '(');
		do {
			Token s = p_expect(p, TK_STRING, "an ENUM value (a string like 'cheap')");
			if (b.s[b.len - 1] != '(')
				sb_puts(&b, ", ");
			sb_putn(&b, p->text + s.off, s.len);
		} while (p_accept(p, TK_COMMA));
		p_expect_close(p, open);
		sb_putc(&b, ')');
	} else if (p_is(p, TK_LP)) {
		type_args(p, &b);
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
TypeName *p_pg_type(Parser *p)
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
		p_fail_at(p, t, "use date, timestamp, time, interval, int, real, numeric, text or bool",
		          "unsupported type after '::': %.*s", (int)(t.len > 40 ? 40 : t.len),
		          p->text + t.off);
	}
	if (p_is(p, TK_LP))
		type_args(p, &b);
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

