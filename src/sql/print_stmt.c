/*
 * print_stmt.c: printing whole statements: INSERT/REPLACE with upsert, UPDATE, DELETE,
 * CREATE TABLE (SUQL types as TEXT in SQLite), CREATE VIEW, EXPLAIN, and the statements
 * kept as text; and the print_*_stmt shorthands.
 */
#include "sql/print_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- statements ---- */
static void pr_or(Printer *pr, OrAction a)
{
	static const char *const OR[] = {"", " OR ROLLBACK", " OR ABORT", " OR REPLACE",
	                                 " OR FAIL", " OR IGNORE"};
	print_raw(pr, OR[a]);
}

static void pr_set(Printer *pr, const SetList *l)
{
	for (int i = 0; i < l->n; i++) {
		const SetItem *s = l->items[i];
		if (i)
			print_raw(pr, ", ");
		if (s->paren)
			pr_idlist(pr, s->cols);
		else
			print_name(pr, s->cols->items[0]);
		print_raw(pr, " = ");
		pr_expr_prec(pr, s->expr, PREC_NONE);
	}
}

static void pr_qualified(Printer *pr, const Stmt *st)
{
	pr_qualname(pr, st->schema, st->table);
	if (st->alias.s) {
		print_raw(pr, " AS ");
		print_name(pr, st->alias);
	}
	pr_indexed(pr, st->indexed, st->index);
}

static void pr_returning(Printer *pr, const Stmt *st)
{
	if (st->returning) {
		print_raw(pr, " RETURNING ");
		pr_results(pr, st->returning);
	}
}

static void pr_insert(Printer *pr, const Stmt *st)
{
	if (st->replace_kw) {
		print_raw(pr, "REPLACE");
	} else {
		print_raw(pr, "INSERT");
		pr_or(pr, st->or_action);
	}
	print_raw(pr, " INTO ");
	pr_qualified(pr, st);
	if (st->columns) {
		print_raw(pr, " ");
		pr_idlist(pr, st->columns);
	}
	if (st->default_values) {
		print_raw(pr, " DEFAULT VALUES");
	} else {
		print_raw(pr, " ");
		print_select(pr, st->select);
	}
	for (int i = 0; st->upsert && i < st->upsert->n; i++) {
		const Upsert *u = st->upsert->items[i];
		print_raw(pr, " ON CONFLICT");
		if (u->target) {
			print_raw(pr, " (");
			pr_order(pr, u->target);
			print_raw(pr, ")");
			if (u->target_where) {
				print_raw(pr, " WHERE ");
				pr_expr_prec(pr, u->target_where, PREC_NONE);
			}
		}
		if (u->do_nothing) {
			print_raw(pr, " DO NOTHING");
		} else {
			print_raw(pr, " DO UPDATE SET ");
			pr_set(pr, u->set);
			if (u->where) {
				print_raw(pr, " WHERE ");
				pr_expr_prec(pr, u->where, PREC_NONE);
			}
		}
	}
	pr_returning(pr, st);
}

static void pr_verbatim(Printer *pr, const Stmt *st)
{
	pr_map(pr, st->text_off, st->text_len);
	print_rawn(pr, st->text, st->text_len);
}

static void pr_column_def(Printer *pr, const ColumnDef *c)
{
	print_name(pr, c->name);
	if (c->type) {
		print_raw(pr, " ");
		if (c->type->suql && pr->mode == PRINT_SQL)
			print_raw(pr, "TEXT");
		else if (c->type->suql && pr->mode == PRINT_PG &&
		         (str_has_prefix(c->type->text, "FREE_TEXT") ||
		          str_has_prefix(c->type->text, "ENUM")))
			print_raw(pr, c->type->text[c->type->n - 1] == ']' ? "TEXT[]" : "TEXT");
		else
			print_rawn(pr, c->type->text, c->type->n);
	}
	if (c->cons.len) {
		print_raw(pr, " ");
		pr_map(pr, c->cons.off, c->cons.len);
		print_rawn(pr, c->cons_text, c->cons.len);
	}
}

/* CREATE [TEMP] what [IF NOT EXISTS] [schema.]name */
static void pr_create_head(Printer *pr, const Stmt *st, const char *what)
{
	print_raw(pr, st->temp ? "CREATE TEMP " : "CREATE ");
	print_raw(pr, what);
	print_raw(pr, st->if_not_exists ? " IF NOT EXISTS " : " ");
	pr_qualname(pr, st->schema, st->table);
}

static void pr_create_table(Printer *pr, const Stmt *st)
{
	pr_create_head(pr, st, "TABLE");
	if (st->select) {
		print_raw(pr, " AS ");
		print_select(pr, st->select);
		return;
	}
	print_raw(pr, " (");
	for (int i = 0; i < st->cols->n; i++) {
		if (i)
			print_raw(pr, ", ");
		pr_column_def(pr, st->cols->items[i]);
	}
	if (st->tcons) {
		print_raw(pr, ", ");
		print_rawn(pr, st->tcons, st->tcons_len);
	}
	print_raw(pr, ")");
	if (st->options) {
		print_raw(pr, " ");
		print_rawn(pr, st->options, st->options_len);
	}
}

void print_stmt(Printer *pr, const Stmt *st)
{
	int verbatim = st->kind == ST_OTHER || st->kind == ST_DROP_TABLE ||
	               (st->kind == ST_ALTER_TABLE && !(pr->mode == PRINT_SQL && st->coldef &&
	                                                st->coldef->type && st->coldef->type->suql)) ||
	               (pr->mode == PRINT_SQL && !st->has_suql &&
	                (st->kind == ST_CREATE_TABLE || st->kind == ST_CREATE_VIEW));
	if (verbatim) {
		pr_verbatim(pr, st);
		return;
	}
	if (st->kind == ST_ALTER_TABLE) {
		/* ADD COLUMN with a SUQL type: the text with the type replaced by TEXT */
		const TypeName *t = st->coldef->type;
		size_t a = t->span.off - st->text_off, b = a + t->span.len;
		pr_map(pr, st->text_off, a);
		print_rawn(pr, st->text, a);
		print_raw(pr, "TEXT");
		pr_map(pr, t->span.off + t->span.len, st->text_len - b);
		print_rawn(pr, st->text + b, st->text_len - b);
		return;
	}
	pr_map(pr, st->span.off, 0);
	if (st->explain)
		print_raw(pr, st->explain == 2 ? "EXPLAIN QUERY PLAN " : "EXPLAIN ");
	if (st->with)
		pr_with(pr, st->with);
	switch (st->kind) {
	case ST_SELECT:
		print_select(pr, st->select);
		break;
	case ST_INSERT:
		pr_insert(pr, st);
		break;
	case ST_UPDATE:
		print_raw(pr, "UPDATE");
		pr_or(pr, st->or_action);
		print_raw(pr, " ");
		pr_qualified(pr, st);
		print_raw(pr, " SET ");
		pr_set(pr, st->set);
		if (st->from) {
			print_raw(pr, " FROM ");
			pr_from_list(pr, st->from);
		}
		if (st->where) {
			print_raw(pr, " WHERE ");
			pr_expr_prec(pr, st->where, PREC_NONE);
		}
		pr_returning(pr, st);
		pr_limit(pr, st->order, st->limit, st->offset);
		break;
	case ST_DELETE:
		print_raw(pr, "DELETE FROM ");
		pr_qualified(pr, st);
		if (st->where) {
			print_raw(pr, " WHERE ");
			pr_expr_prec(pr, st->where, PREC_NONE);
		}
		pr_returning(pr, st);
		pr_limit(pr, st->order, st->limit, st->offset);
		break;
	case ST_CREATE_TABLE:
		pr_create_table(pr, st);
		break;
	case ST_CREATE_VIEW:
		pr_create_head(pr, st, "VIEW");
		if (st->columns) {
			print_raw(pr, " ");
			pr_idlist(pr, st->columns);
		}
		print_raw(pr, " AS ");
		print_select(pr, st->select);
		break;
	default:
		pr_verbatim(pr, st);
		break;
	}
}

static char *print_whole(const Ast *ast, PrintMode mode)
{
	Printer *pr = print_new(mode, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	char *s = print_steal(pr);
	print_free(pr);
	return s;
}

char *print_suql_stmt(const Ast *ast)
{
	return print_whole(ast, PRINT_SUQL);
}

char *print_sql_stmt(const Ast *ast)
{
	return print_whole(ast, PRINT_SQL);
}

