/*
 * parse_dml.c: the data statements INSERT/REPLACE (with upsert and RETURNING), UPDATE
 * (OR action, FROM, RETURNING, ORDER BY/LIMIT) and DELETE.
 */
#include "sql/parse_int.h"

static OrAction p_or_action(Parser *p)
{
	/* OR ROLLBACK | ABORT | REPLACE | FAIL | IGNORE */
	if (p_accept_kw(p, KW_ROLLBACK)) return OR_ROLLBACK;
	if (p_accept_kw(p, KW_ABORT)) return OR_ABORT;
	if (p_accept_kw(p, KW_REPLACE)) return OR_REPLACE;
	if (p_accept_kw(p, KW_FAIL)) return OR_FAIL;
	if (p_accept_kw(p, KW_IGNORE)) return OR_IGNORE;
	p_unexpected(p, "ROLLBACK, ABORT, REPLACE, FAIL or IGNORE");
}

/* [schema.]name: sets schema and table */
void p_qualified(Parser *p, AstName *schema, AstName *name, const char *what)
{
	*name = p_expect_nm(p, what);
	if (p_is(p, TK_DOT)) {
		p_next(p);
		*schema = *name;
		*name = p_expect_nm(p, what);
	}
}

/* setlist: name = expr | (name, ...) = expr, ... */
static SetList *p_set_list(Parser *p)
{
	SetList *l = P_NEW(p, SetList);
	do {
		SetItem *it = P_NEW(p, SetItem);
		it->span.off = p_off(p, p_tok(p));
		if (p_is(p, TK_LP)) {
			it->paren = 1;
			it->cols = p_column_names(p, p_next(p));
		} else {
			ast_idlist_push(p->arena, &it->cols, p_expect_nm(p, "a column name"));
		}
		p_expect(p, TK_EQ, "'='");
		it->expr = p_expr(p);
		it->span = p_span_from(p, it->span.off);
		P_PUSH(p, l, it);
	} while (p_accept(p, TK_COMMA));
	return l;
}

/* upsert: ON CONFLICT [(indexed-columns) [WHERE e]] DO NOTHING | DO UPDATE SET ... [WHERE e] */
static UpsertList *p_upsert(Parser *p)
{
	UpsertList *l = P_NEW(p, UpsertList);
	while (p_kw(p, KW_ON) && p_kw_at(p, 1, KW_CONFLICT)) {
		Upsert *u = P_NEW(p, Upsert);
		u->span.off = p_off(p, p_tok(p));
		p_next(p);
		p_next(p);
		if (p_is(p, TK_LP)) {
			Token open = p_next(p);
			u->target = P_NEW(p, OrderList);
			do {
				OrderTerm *t = P_NEW(p, OrderTerm);
				t->span.off = p_off(p, p_tok(p));
				t->expr = p_expr(p);
				if (p_accept_kw(p, KW_ASC))
					t->dir = SORT_ASC;
				else if (p_accept_kw(p, KW_DESC))
					t->dir = SORT_DESC;
				t->span = p_span_from(p, t->span.off);
				P_PUSH(p, u->target, t);
			} while (p_accept(p, TK_COMMA));
			p_expect_close(p, open);
			if (p_accept_kw(p, KW_WHERE))
				u->target_where = p_expr(p);
		}
		p_expect_kw(p, KW_DO);
		if (p_accept_kw(p, KW_NOTHING)) {
			u->do_nothing = 1;
		} else {
			p_expect_kw(p, KW_UPDATE);
			p_expect_kw(p, KW_SET);
			u->set = p_set_list(p);
			if (p_accept_kw(p, KW_WHERE))
				u->where = p_expr(p);
		}
		u->span = p_span_from(p, u->span.off);
		P_PUSH(p, l, u);
	}
	return l;
}

static void p_returning(Parser *p, Stmt *st)
{
	if (p_accept_kw(p, KW_RETURNING))
		st->returning = p_result_list(p);
}

/* insert: [WITH] (INSERT [OR action] | REPLACE) INTO [schema.]table [AS alias] [(cols)]
           (select | DEFAULT VALUES) [upsert] [RETURNING ...] */
void p_insert(Parser *p, Stmt *st)
{
	st->kind = ST_INSERT;
	if (p_accept_kw(p, KW_REPLACE)) {
		st->replace_kw = 1;
	} else {
		p_expect_kw(p, KW_INSERT);
		if (p_accept_kw(p, KW_OR))
			st->or_action = p_or_action(p);
	}
	p_expect_kw(p, KW_INTO);
	p_qualified(p, &st->schema, &st->table, "a table name");
	if (p_accept_kw(p, KW_AS))
		st->alias = p_expect_nm(p, "an alias");
	if (p_is(p, TK_LP))
		st->columns = p_column_names(p, p_next(p));
	if (p_kw(p, KW_DEFAULT)) {
		p_next(p);
		p_expect_kw(p, KW_VALUES);
		st->default_values = 1;
	} else if (p_starts_select(p, 0)) {
		st->select = p_select(p);
	} else {
		p_unexpected(p, "VALUES, SELECT or DEFAULT VALUES");
	}
	if (p_kw(p, KW_ON) && p_kw_at(p, 1, KW_CONFLICT))
		st->upsert = p_upsert(p);
	p_returning(p, st);
}

/* qualified table of UPDATE/DELETE: [schema.]name [AS alias] [INDEXED BY x | NOT INDEXED]
   (SQLite takes the alias only after AS here) */
static void p_qualified_table(Parser *p, Stmt *st)
{
	p_qualified(p, &st->schema, &st->table, "a table name");
	if (p_accept_kw(p, KW_AS))
		st->alias = p_expect_nm(p, "an alias");
	p_indexed(p, &st->indexed, &st->index);
}

/* update: [WITH] UPDATE [OR action] qualified-table SET setlist [FROM from] [WHERE e]
           [RETURNING ...] [ORDER BY ...] [LIMIT ...] */
void p_update(Parser *p, Stmt *st)
{
	st->kind = ST_UPDATE;
	p_expect_kw(p, KW_UPDATE);
	if (p_accept_kw(p, KW_OR))
		st->or_action = p_or_action(p);
	p_qualified_table(p, st);
	p_expect_kw(p, KW_SET);
	st->set = p_set_list(p);
	if (p_accept_kw(p, KW_FROM))
		st->from = p_from_list(p);
	if (p_accept_kw(p, KW_WHERE))
		st->where = p_expr(p);
	p_returning(p, st);
	p_order_limit(p, &st->order, &st->limit, &st->offset);
}

/* delete: [WITH] DELETE FROM qualified-table [WHERE e] [RETURNING ...] [ORDER BY] [LIMIT] */
void p_delete(Parser *p, Stmt *st)
{
	st->kind = ST_DELETE;
	p_expect_kw(p, KW_DELETE);
	p_expect_kw(p, KW_FROM);
	p_qualified_table(p, st);
	if (p_accept_kw(p, KW_WHERE))
		st->where = p_expr(p);
	p_returning(p, st);
	p_order_limit(p, &st->order, &st->limit, &st->offset);
}

