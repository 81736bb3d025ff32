/*
 * ast_walk.c: walking a syntax tree (the visitor of ast.h), and the structural dump that
 * tests and ast_equal use. The dump writes every node kind, operator, flag, name and child
 * in a fixed order and leaves spans out, so two trees dump alike exactly when they have the
 * same shape and content.
 */
#include "sql/ast.h"

#include <string.h>

static int ast_visit_select(Select *s, const AstVisitor *v);

/* ---- visitor ---- */
static int visit_from(FromList *l, const AstVisitor *v);
static int visit_window(Window *w, const AstVisitor *v);

static int visit_order(OrderList *l, const AstVisitor *v)
{
	if (!l)
		return AST_CONTINUE;
	for (int i = 0; i < l->n; i++)
		if (ast_visit_expr(l->items[i]->expr, v) == AST_STOP)
			return AST_STOP;
	return AST_CONTINUE;
}

static int visit_list(ExprList *l, const AstVisitor *v)
{
	if (!l)
		return AST_CONTINUE;
	for (int i = 0; i < l->n; i++)
		if (ast_visit_expr(l->items[i], v) == AST_STOP)
			return AST_STOP;
	return AST_CONTINUE;
}

static int visit_window(Window *w, const AstVisitor *v)
{
	if (!w)
		return AST_CONTINUE;
	if (visit_list(w->partition, v) == AST_STOP || visit_order(w->order, v) == AST_STOP ||
	    ast_visit_expr(w->start, v) == AST_STOP || ast_visit_expr(w->end, v) == AST_STOP)
		return AST_STOP;
	return AST_CONTINUE;
}

int ast_visit_expr(Expr *e, const AstVisitor *v)
{
	if (!e)
		return AST_CONTINUE;
	if (v->expr) {
		int r = v->expr(v->ctx, e);
		if (r != AST_CONTINUE)
			return r == AST_STOP ? AST_STOP : AST_CONTINUE;
	}
	/* the children in the order ast_expr_children gives them */
	if (ast_visit_expr(e->left, v) == AST_STOP || visit_list(e->list, v) == AST_STOP ||
	    ast_visit_expr(e->right, v) == AST_STOP || ast_visit_expr(e->extra, v) == AST_STOP)
		return AST_STOP;
	if (visit_order(e->order, v) == AST_STOP || visit_window(e->over, v) == AST_STOP)
		return AST_STOP;
	if (e->select && !v->no_subqueries)
		return ast_visit_select(e->select, v);
	return AST_CONTINUE;
}

static int visit_core(SelectCore *c, const AstVisitor *v)
{
	if (v->core) {
		int r = v->core(v->ctx, c);
		if (r != AST_CONTINUE)
			return r == AST_STOP ? AST_STOP : AST_CONTINUE;
	}
	if (c->cols)
		for (int i = 0; i < c->cols->n; i++)
			if (ast_visit_expr(c->cols->items[i]->expr, v) == AST_STOP)
				return AST_STOP;
	if (visit_from(c->from, v) == AST_STOP || ast_visit_expr(c->where, v) == AST_STOP ||
	    visit_list(c->group, v) == AST_STOP || ast_visit_expr(c->having, v) == AST_STOP)
		return AST_STOP;
	if (c->windows)
		for (int i = 0; i < c->windows->n; i++)
			if (visit_window(c->windows->items[i], v) == AST_STOP)
				return AST_STOP;
	if (c->rows)
		for (int i = 0; i < c->rows->n; i++)
			if (visit_list(c->rows->items[i], v) == AST_STOP)
				return AST_STOP;
	return AST_CONTINUE;
}

static int visit_from(FromList *l, const AstVisitor *v)
{
	if (!l)
		return AST_CONTINUE;
	for (int i = 0; i < l->n; i++) {
		FromItem *f = l->items[i];
		if (v->from) {
			int r = v->from(v->ctx, f);
			if (r == AST_STOP)
				return AST_STOP;
			if (r == AST_SKIP)
				continue;
		}
		if (visit_list(f->args, v) == AST_STOP)
			return AST_STOP;
		if (f->select && !v->no_subqueries && ast_visit_select(f->select, v) == AST_STOP)
			return AST_STOP;
		if (visit_from(f->nested, v) == AST_STOP || ast_visit_expr(f->on, v) == AST_STOP)
			return AST_STOP;
	}
	return AST_CONTINUE;
}

static int ast_visit_select(Select *s, const AstVisitor *v)
{
	if (!s)
		return AST_CONTINUE;
	if (v->select) {
		int r = v->select(v->ctx, s);
		if (r != AST_CONTINUE)
			return r == AST_STOP ? AST_STOP : AST_CONTINUE;
	}
	if (s->with && !v->no_subqueries)
		for (int i = 0; i < s->with->n; i++)
			if (ast_visit_select(s->with->items[i]->select, v) == AST_STOP)
				return AST_STOP;
	for (int i = 0; i < s->ncore; i++)
		if (visit_core(s->cores[i], v) == AST_STOP)
			return AST_STOP;
	if (visit_order(s->order, v) == AST_STOP || ast_visit_expr(s->limit, v) == AST_STOP ||
	    ast_visit_expr(s->offset, v) == AST_STOP)
		return AST_STOP;
	return AST_CONTINUE;
}

int ast_visit_stmt(Stmt *st, const AstVisitor *v)
{
	if (st->with && !v->no_subqueries)
		for (int i = 0; i < st->with->n; i++)
			if (ast_visit_select(st->with->items[i]->select, v) == AST_STOP)
				return AST_STOP;
	if (st->select && ast_visit_select(st->select, v) == AST_STOP)
		return AST_STOP;
	if (st->set)
		for (int i = 0; i < st->set->n; i++)
			if (ast_visit_expr(st->set->items[i]->expr, v) == AST_STOP)
				return AST_STOP;
	if (st->upsert)
		for (int i = 0; i < st->upsert->n; i++) {
			Upsert *u = st->upsert->items[i];
			if (visit_order(u->target, v) == AST_STOP ||
			    ast_visit_expr(u->target_where, v) == AST_STOP ||
			    ast_visit_expr(u->where, v) == AST_STOP)
				return AST_STOP;
			if (u->set)
				for (int j = 0; j < u->set->n; j++)
					if (ast_visit_expr(u->set->items[j]->expr, v) == AST_STOP)
						return AST_STOP;
		}
	if (visit_from(st->from, v) == AST_STOP || ast_visit_expr(st->where, v) == AST_STOP)
		return AST_STOP;
	if (st->returning)
		for (int i = 0; i < st->returning->n; i++)
			if (ast_visit_expr(st->returning->items[i]->expr, v) == AST_STOP)
				return AST_STOP;
	if (visit_order(st->order, v) == AST_STOP || ast_visit_expr(st->limit, v) == AST_STOP ||
	    ast_visit_expr(st->offset, v) == AST_STOP)
		return AST_STOP;
	return AST_CONTINUE;
}

/* ---- structural dump ---- */
static void d_select(SBuf *o, const Select *s);
static void d_from(SBuf *o, const FromList *l);

static void d_name(SBuf *o, const char *tag, AstName n)
{
	if (!n.s)
		return;
	sb_printf(o, " %s=", tag);
	sb_putn(o, n.s, n.n);
}

/* " tag=<expr>" when e is there. */
static void d_expr(SBuf *o, const char *tag, const Expr *e)
{
	if (e) {
		sb_printf(o, " %s=", tag);
		ast_dump_expr(o, e);
	}
}

static void d_int(SBuf *o, const char *tag, long v)
{
	if (v)
		sb_printf(o, " %s=%ld", tag, v);
}

static void d_list(SBuf *o, const char *tag, const ExprList *l)
{
	if (!l)
		return;
	sb_printf(o, " %s[", tag);
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_putc(o, ',');
		ast_dump_expr(o, l->items[i]);
	}
	sb_putc(o, ']');
}

static void d_ids(SBuf *o, const char *tag, const IdList *l)
{
	if (!l)
		return;
	sb_printf(o, " %s[", tag);
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_putc(o, ',');
		sb_putn(o, l->items[i].s, l->items[i].n);
	}
	sb_putc(o, ']');
}

static void d_order(SBuf *o, const char *tag, const OrderList *l)
{
	if (!l)
		return;
	sb_printf(o, " %s[", tag);
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_putc(o, ',');
		ast_dump_expr(o, l->items[i]->expr);
		d_int(o, "dir", l->items[i]->dir);
		d_int(o, "nulls", l->items[i]->nulls);
	}
	sb_putc(o, ']');
}

static void d_window(SBuf *o, const char *tag, const Window *w)
{
	if (!w)
		return;
	sb_printf(o, " %s(", tag);
	d_name(o, "name", w->name);
	d_int(o, "ref", w->is_ref);
	d_name(o, "base", w->base);
	d_list(o, "part", w->partition);
	d_order(o, "order", w->order);
	d_int(o, "frame", w->frame);
	d_int(o, "between", w->between);
	d_int(o, "sk", w->start_kind);
	d_int(o, "ek", w->end_kind);
	d_expr(o, "s", w->start);
	d_expr(o, "e", w->end);
	d_int(o, "excl", w->exclude);
	sb_putc(o, ')');
}

static void d_type(SBuf *o, const TypeName *t)
{
	if (!t)
		return;
	sb_puts(o, " type=");
	sb_putn(o, t->text, t->n);
	d_int(o, "pg", t->pg);
	d_int(o, "suql", t->suql);
}

void ast_dump_expr(SBuf *o, const Expr *e)
{
	if (!e) {
		sb_puts(o, "nil");
		return;
	}
	sb_printf(o, "(%d", (int)e->kind);
	d_int(o, "op", e->op);
	d_int(o, "not", e->not_);
	d_int(o, "dist", e->distinct);
	d_int(o, "star", e->star);
	d_int(o, "q", e->quant);
	if (e->kind == EX_LITERAL)
		sb_printf(o, " lit=%d", (int)e->lit);
	d_int(o, "intab", e->in_table);
	/* answer() and summary() are known by their kind; the name's case as written (the
	   printers write them in lower case) is not part of the tree */
	if (!(e->kind == EX_LITERAL && e->lit != LIT_INTEGER && e->lit != LIT_FLOAT &&
	      e->lit != LIT_STRING && e->lit != LIT_BLOB) && e->kind != EX_ANSWER &&
	    e->kind != EX_SUMMARY)
		d_name(o, "n", e->name);
	d_name(o, "t", e->table);
	d_name(o, "s", e->schema);
	d_expr(o, "l", e->left);
	d_expr(o, "r", e->right);
	d_expr(o, "x", e->extra);
	d_list(o, "list", e->list);
	if (e->select) {
		sb_puts(o, " sel=");
		d_select(o, e->select);
	}
	d_order(o, "order", e->order);
	d_window(o, "over", e->over);
	d_type(o, e->type);
	sb_putc(o, ')');
}

static void d_results(SBuf *o, const char *tag, const ResultList *l)
{
	if (!l)
		return;
	sb_printf(o, " %s[", tag);
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_putc(o, ',');
		ast_dump_expr(o, l->items[i]->expr);
		d_name(o, "as", l->items[i]->alias);
	}
	sb_putc(o, ']');
}

static void d_from(SBuf *o, const FromList *l)
{
	if (!l)
		return;
	sb_puts(o, " from[");
	for (int i = 0; i < l->n; i++) {
		const FromItem *f = l->items[i];
		sb_printf(o, "{%d", (int)f->kind);
		d_int(o, "comma", f->comma);
		d_int(o, "nj", f->njoin);
		for (int k = 0; k + 1 < f->njoin && k < 3; k++)
			sb_printf(o, " jk=%d", (int)f->join_kw[k]);
		d_name(o, "s", f->schema);
		d_name(o, "n", f->name);
		d_name(o, "as", f->alias);
		d_ids(o, "ascols", f->alias_cols);
		d_int(o, "idx", f->indexed);
		d_name(o, "index", f->index);
		d_list(o, "args", f->args);
		if (f->select) {
			sb_puts(o, " sel=");
			d_select(o, f->select);
		}
		if (f->nested)
			d_from(o, f->nested);
		d_expr(o, "on", f->on);
		d_ids(o, "using", f->using_);
		sb_putc(o, '}');
	}
	sb_putc(o, ']');
}

static void d_with(SBuf *o, const With *w)
{
	if (!w)
		return;
	sb_printf(o, " with%s[", w->recursive ? "-rec" : "");
	for (int i = 0; i < w->n; i++) {
		const Cte *c = w->items[i];
		sb_putc(o, '{');
		d_name(o, "n", c->name);
		d_ids(o, "cols", c->cols);
		d_int(o, "mat", c->mat);
		d_select(o, c->select);
		sb_putc(o, '}');
	}
	sb_putc(o, ']');
}

static void d_select(SBuf *o, const Select *s)
{
	sb_puts(o, "<select");
	d_with(o, s->with);
	for (int i = 0; i < s->ncore; i++) {
		const SelectCore *c = s->cores[i];
		sb_printf(o, " core%d(op=%d k=%d", i, (int)s->ops[i], (int)c->kind);
		d_int(o, "dist", c->distinct);
		d_results(o, "cols", c->cols);
		d_from(o, c->from);
		d_expr(o, "where", c->where);
		d_list(o, "group", c->group);
		d_expr(o, "having", c->having);
		if (c->windows)
			for (int k = 0; k < c->windows->n; k++)
				d_window(o, "win", c->windows->items[k]);
		if (c->rows)
			for (int k = 0; k < c->rows->n; k++)
				d_list(o, "row", c->rows->items[k]);
		sb_putc(o, ')');
	}
	d_order(o, "order", s->order);
	d_expr(o, "limit", s->limit);
	d_expr(o, "offset", s->offset);
	sb_putc(o, '>');
}

static void d_set(SBuf *o, const SetList *l)
{
	if (!l)
		return;
	sb_puts(o, " set[");
	for (int i = 0; i < l->n; i++) {
		d_ids(o, "c", l->items[i]->cols);
		d_int(o, "paren", l->items[i]->paren);
		sb_putc(o, '=');
		ast_dump_expr(o, l->items[i]->expr);
	}
	sb_putc(o, ']');
}

static void d_coldef(SBuf *o, const ColumnDef *c)
{
	sb_putc(o, '{');
	d_name(o, "n", c->name);
	d_type(o, c->type);
	if (c->cons.len) {
		sb_puts(o, " cons=");
		sb_putn(o, c->cons_text, c->cons.len);
	}
	sb_putc(o, '}');
}

void ast_dump_stmt(SBuf *o, const Stmt *st)
{
	sb_printf(o, "stmt%d", (int)st->kind);
	d_int(o, "explain", st->explain);
	if (st->kind == ST_OTHER) {
		sb_puts(o, " text=");
		sb_putn(o, st->text, st->text_len);
		return;
	}
	d_with(o, st->with);
	if (st->select) {
		sb_putc(o, ' ');
		d_select(o, st->select);
	}
	d_int(o, "replace", st->replace_kw);
	d_int(o, "or", st->or_action);
	d_name(o, "s", st->schema);
	d_name(o, "t", st->table);
	d_name(o, "as", st->alias);
	d_int(o, "idx", st->indexed);
	d_name(o, "index", st->index);
	d_ids(o, "cols", st->columns);
	d_int(o, "defvals", st->default_values);
	if (st->upsert)
		for (int i = 0; i < st->upsert->n; i++) {
			const Upsert *u = st->upsert->items[i];
			sb_puts(o, " upsert(");
			d_order(o, "target", u->target);
			d_expr(o, "tw", u->target_where);
			d_int(o, "nothing", u->do_nothing);
			d_set(o, u->set);
			d_expr(o, "w", u->where);
			sb_putc(o, ')');
		}
	d_set(o, st->set);
	d_from(o, st->from);
	d_expr(o, "where", st->where);
	d_results(o, "returning", st->returning);
	d_order(o, "order", st->order);
	d_expr(o, "limit", st->limit);
	d_expr(o, "offset", st->offset);
	d_int(o, "temp", st->temp);
	d_int(o, "ine", st->if_not_exists);
	d_int(o, "ie", st->if_exists);
	if (st->cols)
		for (int i = 0; i < st->cols->n; i++)
			d_coldef(o, st->cols->items[i]);
	if (st->tcons) {
		sb_puts(o, " tcons=");
		sb_putn(o, st->tcons, st->tcons_len);
	}
	if (st->options) {
		sb_puts(o, " opts=");
		sb_putn(o, st->options, st->options_len);
	}
	d_int(o, "alter", st->alter);
	d_name(o, "col", st->column);
	d_name(o, "new", st->newname);
	if (st->coldef)
		d_coldef(o, st->coldef);
	if (st->kind == ST_ALTER_TABLE || st->kind == ST_DROP_TABLE) {
		sb_puts(o, " text=");
		sb_putn(o, st->text, st->text_len);
	}
}

/* Two dumps alike (x and y are freed). */
static int same_dump(SBuf *x, SBuf *y)
{
	int eq = x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
	sb_free(x);
	sb_free(y);
	return eq;
}

int ast_equal(const Stmt *a, const Stmt *b)
{
	SBuf x = SBUF_INIT, y = SBUF_INIT;
	ast_dump_stmt(&x, a);
	ast_dump_stmt(&y, b);
	return same_dump(&x, &y);
}

int ast_expr_equal(const Expr *a, const Expr *b)
{
	if (a == b)
		return 1;
	SBuf x = SBUF_INIT, y = SBUF_INIT;
	ast_dump_expr(&x, a);
	ast_dump_expr(&y, b);
	return same_dump(&x, &y);
}
