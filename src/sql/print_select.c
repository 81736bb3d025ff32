/*
 * print_select.c: printing SELECT: WITH, compound chains, result columns (with the names
 * SQLite would give them), FROM lists and joins, WHERE, GROUP BY, HAVING, WINDOW, ORDER BY
 * and LIMIT. unnest() items are collected into the printer's scope here.
 */
#include "sql/lex.h"
#include "sql/print_int.h"

#include <stdio.h>
#include <string.h>

/* ---- select ---- */
void pr_results(Printer *pr, const ResultList *l)
{
	for (int i = 0; i < l->n; i++) {
		const ResultCol *c = l->items[i];
		if (i)
			print_raw(pr, ", ");
		size_t mark = pr->out.len;
		pr_expr_prec(pr, c->expr, PREC_NONE);
		const char *written = pr->src && c->span.off >= pr->src_off
		                      ? pr->src + (c->span.off - pr->src_off) : NULL;
		int same_text = written && pr->out.len - mark == c->span.len &&
		                memcmp(pr->out.s + mark, written, c->span.len) == 0;
		if (c->alias.s) {
			print_raw(pr, " AS ");
			print_name(pr, c->alias);
		} else if (pr->mode == PRINT_SQL && written && c->span.len &&
		           c->expr->kind != EX_STAR &&
		           (c->expr->kind == EX_COLUMN ? pr_is_unnest_column(pr, c->expr)
		                                       : !same_text)) {
			/* SQLite names such a column after its text as written; when the printed
			   text differs, keep that name with an alias (an unnest element is named
			   after itself, as a column would be) */
			print_raw(pr, " AS ");
			if (c->expr->kind == EX_COLUMN) {
				Arena *a = arena_new();
				char *v = ast_name_value(a, c->expr->name);
				sb_put_ident(&pr->out, v, strlen(v));
				arena_free(a);
			} else {
				sb_put_ident(&pr->out, pr->src + (c->span.off - pr->src_off), c->span.len);
			}
		}
	}
}

void pr_idlist(Printer *pr, const IdList *l)
{
	print_raw(pr, "(");
	for (int i = 0; i < l->n; i++) {
		if (i)
			print_raw(pr, ", ");
		print_name(pr, l->items[i]);
	}
	print_raw(pr, ")");
}

static void print_from_item_default(Printer *pr, const FromItem *f)
{
	pr_map(pr, f->span.off, 0);
	switch (f->kind) {
	case FROM_UNNEST:
		pr_unnest_from(pr, f);
		return;
	case FROM_SUBQUERY:
		pr_paren_select(pr, f->select);
		break;
	case FROM_JOIN:
		print_raw(pr, "(");
		pr_from_list(pr, f->nested);
		print_raw(pr, ")");
		break;
	default:
		pr_qualname(pr, f->schema, f->name);
		if (f->kind == FROM_FUNC) {
			print_raw(pr, "(");
			pr_list(pr, f->args);
			print_raw(pr, ")");
		}
		break;
	}
	if (f->alias.s) {
		print_raw(pr, " AS ");
		print_name(pr, f->alias);
	} else if (f->kind == FROM_SUBQUERY && pr->mode == PRINT_PG) {
		/* SQLite (and PostgreSQL from 16) take a subquery in FROM without a name;
		   PostgreSQL before 16 wants one: a name no column reference can use */
		char a[40];
		snprintf(a, sizeof a, " AS suql_sub%d", ++pr->uniq);
		print_raw(pr, a);
	}
	pr_indexed(pr, f->indexed, f->index);
}

void pr_from_list(Printer *pr, const FromList *l)
{
	for (int i = 0; i < l->n; i++) {
		const FromItem *f = l->items[i];
		if (f->comma) {
			print_raw(pr, ", ");
		} else if (f->njoin) {
			print_raw(pr, " ");
			for (int k = 0; k + 1 < f->njoin; k++) {
				print_raw(pr, lex_keyword_name(f->join_kw[k]));
				print_raw(pr, " ");
			}
			print_raw(pr, "JOIN ");
		}
		if (!pr->hooks.from || !pr->hooks.from(pr->hooks.ctx, pr, f))
			print_from_item_default(pr, f);
		if (f->on) {
			print_raw(pr, " ON ");
			pr_expr_prec(pr, f->on, PREC_NONE);
		}
		if (f->using_) {
			print_raw(pr, " USING ");
			pr_idlist(pr, f->using_);
		}
	}
}

/* Collect the unnest() items of a FROM list (nested joins included) into the scope. */
static void scope_add(Printer *pr, const FromList *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++) {
		const FromItem *f = l->items[i];
		if (f->kind == FROM_JOIN)
			scope_add(pr, f->nested);
		if (f->kind != FROM_UNNEST)
			continue;
		if (pr->nscope == pr->capscope) {
			pr->capscope = pr->capscope ? pr->capscope * 2 : 8;
			pr->scope = xrealloc(pr->scope, (size_t)pr->capscope * sizeof *pr->scope);
		}
		pr->scope[pr->nscope++] = f;
	}
}

static void pr_window_defs(Printer *pr, const WindowList *w)
{
	print_raw(pr, " WINDOW ");
	for (int i = 0; i < w->n; i++) {
		if (i)
			print_raw(pr, ", ");
		print_name(pr, w->items[i]->name);
		print_raw(pr, " AS ");
		pr_window_body(pr, w->items[i]);
	}
}

static void pr_core(Printer *pr, const SelectCore *c)
{
	pr_map(pr, c->span.off, 0);
	if (c->kind == CORE_VALUES) {
		print_raw(pr, "VALUES ");
		for (int i = 0; i < c->rows->n; i++) {
			if (i)
				print_raw(pr, ", ");
			print_raw(pr, "(");
			pr_list(pr, c->rows->items[i]);
			print_raw(pr, ")");
		}
		return;
	}
	int saved = pr->nscope;
	if (pr->mode == PRINT_SQL)
		scope_add(pr, c->from);
	print_raw(pr, "SELECT ");
	if (c->distinct == DISTINCT_DISTINCT)
		print_raw(pr, "DISTINCT ");
	else if (c->distinct == DISTINCT_ALL)
		print_raw(pr, "ALL ");
	pr_results(pr, c->cols);
	if (c->from) {
		print_raw(pr, " FROM ");
		pr_from_list(pr, c->from);
	}
	if (c->where) {
		print_raw(pr, " WHERE ");
		pr_expr_prec(pr, c->where, PREC_NONE);
	}
	if (c->group) {
		print_raw(pr, " GROUP BY ");
		pr_list(pr, c->group);
	}
	if (c->having) {
		print_raw(pr, " HAVING ");
		pr_expr_prec(pr, c->having, PREC_NONE);
	}
	if (c->windows)
		pr_window_defs(pr, c->windows);
	pr->nscope = saved;
}

void pr_with(Printer *pr, const With *w)
{
	print_raw(pr, w->recursive ? "WITH RECURSIVE " : "WITH ");
	for (int i = 0; i < w->n; i++) {
		const Cte *c = w->items[i];
		if (i)
			print_raw(pr, ", ");
		print_name(pr, c->name);
		if (c->cols) {
			print_raw(pr, " ");
			pr_idlist(pr, c->cols);
		}
		print_raw(pr, c->mat == MAT_YES ? " AS MATERIALIZED " :
		              c->mat == MAT_NO ? " AS NOT MATERIALIZED " : " AS ");
		pr_paren_select(pr, c->select);
	}
	print_raw(pr, " ");
}

void pr_limit(Printer *pr, const OrderList *order, const Expr *limit, const Expr *offset)
{
	if (order) {
		print_raw(pr, " ORDER BY ");
		pr_order(pr, order);
	}
	if (limit) {
		print_raw(pr, " LIMIT ");
		pr_expr_prec(pr, limit, PREC_NONE);
		if (offset) {
			print_raw(pr, " OFFSET ");
			pr_expr_prec(pr, offset, PREC_NONE);
		}
	}
}

void print_select(Printer *pr, const Select *s)
{
	if (++pr->depth > 4 * 1000) {   /* trees come from the parser, which caps depth */
		print_raw(pr, "NULL");
		pr->depth--;
		return;
	}
	if (s->with)
		pr_with(pr, s->with);
	static const char *const OPS[] = {"", " UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "};
	for (int i = 0; i < s->ncore; i++) {
		if (i)
			print_raw(pr, OPS[s->ops[i]]);
		pr_core(pr, s->cores[i]);
	}
	pr_limit(pr, s->order, s->limit, s->offset);
	if (pr->mode == PRINT_SUQL && s->err_within > 0) {   /* SUQL's own clause, last */
		char buf[96];
		snprintf(buf, sizeof buf, " ERROR WITHIN %g%% AT CONFIDENCE %g%%", s->err_within * 100,
		         s->confidence * 100);
		print_raw(pr, buf);
		if (s->seed >= 0) {
			snprintf(buf, sizeof buf, " SEED %lld", s->seed);
			print_raw(pr, buf);
		}
	}
	pr->depth--;
}

