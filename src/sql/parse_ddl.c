/*
 * parse_ddl.c: CREATE TABLE (with SUQL column types), CREATE VIEW, ALTER TABLE, and the
 * CREATE statements kept as text (INDEX, TRIGGER, VIRTUAL TABLE). Column and table
 * constraints are kept as written: SQLite checks them, and suql only needs the types.
 */
#include "sql/parse_int.h"

/* A call of a free-text function in a trigger's body: SQLite runs triggers itself, inside
   every INSERT, UPDATE or DELETE of the table, where answer() and summary() do not exist
   (and suql's own functions would ask the model row by row, unseen): so CREATE TRIGGER
   refuses them rather than break each later write. */
static void trigger_check(Parser *p, Token t)
{
	static const char *const FT[] = {"answer", "summary", "suql_answer", "suql_summary",
	                                 "suql_verify", "suql_atom"};
	if (t.type != TK_ID || p_peek(p, 1).type != TK_LP)
		return;
	for (size_t i = 0; i < sizeof FT / sizeof *FT; i++)
		if (str_nieq(p->text + t.off, t.len, FT[i]))
			p_fail_at(p, t, "run the free-text query as its own statement (INSERT ... SELECT "
			          "answer(...) ...) after the rows are written",
			          "a trigger cannot call answer() or summary(): SQLite runs it inside "
			          "every write to the table, where free text cannot be asked");
}

void p_skip_rest(Parser *p, int allow_semi)
{
	for (;;) {
		Token t = p_tok(p);
		if (allow_semi)
			trigger_check(p, t);
		/* a trigger that ends with END at the end of the text is whole, as a statement
		   without its ';' at the end of a script is */
		if (t.type == TK_EOF && allow_semi && !p->complete && p->last_kw != KW_END)
			p_fail_at(p, t, "a trigger body ends with END;", "expected END after the trigger body");
		if (t.type == TK_EOF || (t.type == TK_SEMI && !allow_semi))
			return;
		if (t.type == TK_SEMI && allow_semi && p->complete && p_peek(p, 1).type == TK_EOF)
			return;
		if (t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID)
			p_unexpected(p, "the end of the statement");
		p_next(p);
	}
}

/* Skip a balanced run of tokens up to ',' or ')' at depth 0 (not consumed). */
static void skip_balanced(Parser *p)
{
	int depth = 0;
	for (;;) {
		Token t = p_tok(p);
		if (t.type == TK_EOF || t.type == TK_SEMI)
			return;
		if (depth == 0 && (t.type == TK_COMMA || t.type == TK_RP))
			return;
		if (t.type == TK_LP)
			depth++;
		else if (t.type == TK_RP)
			depth--;
		else if (t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID ||
		         t.type == TK_LBRACKET || t.type == TK_RBRACKET)
			p_unexpected(p, "a column constraint");   /* ARRAY[...] has no place here */
		p_next(p);
	}
}

/* column-def: name [type] [constraints...] */
static int starts_column_constraint(Token t)
{
	return t.type == TK_ID &&
	       (t.kw == KW_CONSTRAINT || t.kw == KW_PRIMARY || t.kw == KW_NOT || t.kw == KW_NULL ||
	        t.kw == KW_UNIQUE || t.kw == KW_CHECK || t.kw == KW_DEFAULT || t.kw == KW_COLLATE ||
	        t.kw == KW_REFERENCES || t.kw == KW_GENERATED || t.kw == KW_AS);
}

static ColumnDef *p_column_def(Parser *p)
{
	ColumnDef *c = P_NEW(p, ColumnDef);
	Token t = p_tok(p);
	c->span.off = p_off(p, t);
	c->name = p_expect_nm(p, "a column name");
	c->type = p_type_name(p, 1);
	Token ct = p_tok(p);
	/* SQLite reads "x []" as a type made of the empty name []; to suql '[]' marks a list
	   and needs its element type (found by the fuzzer) */
	/* '(' after a type is its size to SQLite, so after T[] or ENUM('a') it cannot start the
	   constraints (found by the fuzzer: TEXT[](x) printed as TEXT (x), which does not parse) */
	if (ct.type == TK_LP && c->type && c->type->suql)
		p_fail_at(p, ct, "a list type (T[]) and an ENUM('a', ...) take no size",
		          "expected a column constraint, ',' or ')' after the type %s, found '('",
		          c->type->text);
	if (ct.type == TK_LP)
		p_unexpected(p, "a column constraint (PRIMARY KEY, NOT NULL, DEFAULT, ...), ',' or ')'");
	if (!c->type && ct.type == TK_ARRSUFFIX)
		p_fail_at(p, ct, NULL, "expected a type before '[]': a list column is written with "
		          "its element type (T[]), e.g. tags TEXT[]");
	/* the constraints are kept as written, but must start as SQLite's do: a word after
	   "(n)" or "[]" would join the type name when the translation is read again (found by
	   the fuzzer: FREE_TEXT[] IMARY KEY printed as TEXT IMARY KEY) */
	if ((tok_is_id(ct) || ct.type == TK_STRING) && !starts_column_constraint(ct)) {
		/* (SQLite, which has no arrays, reads [] as a name, part of a longer type name) */
		int array = c->type && c->type->n >= 2 && c->type->text[c->type->n - 1] == ']';
		p_unexpected(p, array ? "a column constraint (PRIMARY KEY, NOT NULL, DEFAULT, ...), "
		                        "',' or ')' after an array type (T[])"
		                      : "a column constraint (PRIMARY KEY, NOT NULL, DEFAULT, ...), "
		                        "',' or ')'");
	}
	if (!(ct.type == TK_COMMA || ct.type == TK_RP || ct.type == TK_EOF || ct.type == TK_SEMI)) {
		size_t s = p_off(p, ct);
		skip_balanced(p);
		c->cons = p_span_from(p, s);
		c->cons_text = p_text_at(p, s);
	}
	c->span = p_span_from(p, c->span.off);
	return c;
}

static int starts_table_constraint(Parser *p)
{
	return p_kw(p, KW_CONSTRAINT) || p_kw(p, KW_PRIMARY) || p_kw(p, KW_UNIQUE) ||
	       p_kw(p, KW_CHECK) || p_kw(p, KW_FOREIGN);
}

static void p_if_not_exists(Parser *p, Stmt *st)
{
	if (p_kw(p, KW_IF) && p_kw_at(p, 1, KW_NOT) && p_kw_at(p, 2, KW_EXISTS)) {
		p_next(p);
		p_next(p);
		p_next(p);
		st->if_not_exists = 1;
	}
}

/* create-table: TABLE [IF NOT EXISTS] name ( column-def, ... [, table-constraint ...] )
                 [options] | TABLE [IF NOT EXISTS] name AS select */
static void p_create_table(Parser *p, Stmt *st)
{
	st->kind = ST_CREATE_TABLE;
	p_if_not_exists(p, st);
	p_qualified(p, &st->schema, &st->table, "a table name");
	if (p_accept_kw(p, KW_AS)) {
		if (!p_starts_select(p, 0))
			p_unexpected(p, "SELECT after AS");
		st->select = p_select(p);
		return;
	}
	Token open = p_expect(p, TK_LP, "'(' or AS after the table name");
	st->cols = P_NEW(p, ColumnList);
	for (;;) {
		if (st->cols->n > 0 && starts_table_constraint(p)) {
			size_t s = p_off(p, p_tok(p));
			for (;;) {
				skip_balanced(p);
				if (!p_accept(p, TK_COMMA))
					break;
			}
			AstSpan sp = p_span_from(p, s);
			st->tcons = p_text_at(p, s);
			st->tcons_len = sp.len;
			break;
		}
		ColumnDef *c = p_column_def(p);
		P_PUSH(p, st->cols, c);
		if (!p_accept(p, TK_COMMA))
			break;
	}
	p_expect_close(p, open);
	Token t = p_tok(p);
	if (t.type != TK_EOF && t.type != TK_SEMI) {
		/* options: WITHOUT ROWID | STRICT, separated by ','. As in SQLite's grammar the
		   first may be left out: "(...), STRICT" is "(...) STRICT" (kept without the
		   comma); ",," and a ',' at the end are syntax errors there and here. */
		if (p_accept(p, TK_COMMA))
			t = p_tok(p);
		size_t s = p_off(p, t);
		for (;;) {
			Token w = p_tok(p);
			if (!(w.type == TK_ID && (w.kw == KW_WITHOUT || tok_is_id(w))))
				p_unexpected(p, "WITHOUT ROWID, STRICT or the end of the statement");
			p_next(p);
			if (w.kw == KW_WITHOUT) {
				if (!tok_is_id(p_tok(p)))
					p_unexpected(p, "ROWID");
				p_next(p);
			}
			if (!p_accept(p, TK_COMMA))
				break;
		}
		AstSpan sp = p_span_from(p, s);
		st->options = p_text_at(p, s);
		st->options_len = sp.len;
	}
}

/* create-view: VIEW [IF NOT EXISTS] name [(columns)] AS select */
static void p_create_view(Parser *p, Stmt *st)
{
	st->kind = ST_CREATE_VIEW;
	p_if_not_exists(p, st);
	p_qualified(p, &st->schema, &st->table, "a view name");
	if (p_is(p, TK_LP))
		st->columns = p_column_names(p, p_next(p));
	p_expect_kw(p, KW_AS);
	if (!p_starts_select(p, 0))
		p_unexpected(p, "SELECT after AS");
	st->select = p_select(p);
}

/* create: [TEMP|TEMPORARY] (TABLE ... | VIEW ...) | other CREATE kept as text */
void p_create(Parser *p, Stmt *st)
{
	if (p_kw(p, KW_TEMP) || p_kw(p, KW_TEMPORARY)) {
		p_next(p);
		st->temp = 1;
	}
	if (p_accept_kw(p, KW_TABLE)) {
		p_create_table(p, st);
		return;
	}
	if (p_accept_kw(p, KW_VIEW)) {
		p_create_view(p, st);
		return;
	}
	st->kind = ST_OTHER;
	int trigger = p_kw(p, KW_TRIGGER);
	if (!trigger && !p_kw(p, KW_INDEX) && !p_kw(p, KW_UNIQUE) && !p_kw(p, KW_VIRTUAL))
		p_unexpected(p, "TABLE, VIEW, INDEX, UNIQUE INDEX, TRIGGER or VIRTUAL TABLE");
	p_skip_rest(p, trigger);
}

/* alter: TABLE name (RENAME TO new | RENAME [COLUMN] a TO b | ADD [COLUMN] column-def
          | DROP [COLUMN] name) */
void p_alter(Parser *p, Stmt *st)
{
	st->kind = ST_ALTER_TABLE;
	p_expect_kw(p, KW_TABLE);
	p_qualified(p, &st->schema, &st->table, "a table name");
	if (p_accept_kw(p, KW_RENAME)) {
		if (p_accept_kw(p, KW_TO)) {
			st->alter = ALTER_RENAME_TABLE;
			st->newname = p_expect_nm(p, "the new table name");
		} else {
			p_accept_kw(p, KW_COLUMN);
			st->alter = ALTER_RENAME_COLUMN;
			st->column = p_expect_nm(p, "a column name");
			p_expect_kw(p, KW_TO);
			st->newname = p_expect_nm(p, "the new column name");
		}
	} else if (p_accept_kw(p, KW_ADD)) {
		p_accept_kw(p, KW_COLUMN);
		st->alter = ALTER_ADD_COLUMN;
		st->coldef = p_column_def(p);
	} else if (p_accept_kw(p, KW_DROP)) {
		p_accept_kw(p, KW_COLUMN);
		st->alter = ALTER_DROP_COLUMN;
		st->column = p_expect_nm(p, "a column name");
	} else {
		p_unexpected(p, "RENAME, ADD or DROP");
	}
}
