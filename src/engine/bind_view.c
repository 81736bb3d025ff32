/*
 * bind_view.c: views of suql's expanded into the statement that reads them, before the
 * binder walks it.
 *
 * A view whose query has free text, made through suql, is kept with its text as written
 * in suql's table properties (CATALOG_VIEW, store/catalog.h). On SQLite the database has
 * the view too (its free text as suql's self-contained functions, which any reader of
 * the file who loads them can run row by row); on PostgreSQL the server cannot store a
 * query that calls answer(), so the catalog's row is the view. Either way a statement of
 * suql's that reads the view by name gets the view's query in its place, as a subquery
 * named after the view (`FROM hh` becomes `FROM (SELECT ...) AS hh`), so that the binder,
 * the planner and the walk see its free text as the statement's own: planned, batched,
 * counted, shown in the plan, and on PostgreSQL sent as the server's own SQL.
 *
 * Spans: the view's text is appended to the statement's (ex->sql, after the user's text)
 * and parsed there, so every span of the expanded tree is an offset into one text, as
 * the printers, the check and the errors expect; an error whose place falls in a view's
 * text is said at its place in that view (bind_view_error).
 *
 * A name that a CTE in scope takes is the CTE's; a view's own query sees no CTE of the
 * statement reading it; a view may read another view of suql's (expanded in turn, to a
 * depth of BIND_VIEW_DEPTH, a view that reads itself refused).
 */
#include "engine/bind_int.h"
#include "store/catalog.h"
#include "sql/parse.h"

#include <stdlib.h>
#include <string.h>

#define BIND_VIEW_DEPTH 16

typedef struct VW {
	Exec *ex;
	SuqlErr *err;
	SuqlStatus st;
	int expand;            /* 0: only note whether a view of suql's is read */
	int found;
	With **with;           /* WITH clauses in scope, outer first; from base on */
	int nwith, capwith, base;
	const char *stack[BIND_VIEW_DEPTH];   /* the views being expanded, outer first */
	int depth;
	SBuf buf;              /* the user's text, then each view's */
} VW;

static void vw_select(VW *w, Select *s);

static int vw_is_cte(const VW *w, AstName name)
{
	for (int i = w->nwith - 1; i >= w->base; i--)
		for (int k = 0; k < w->with[i]->n; k++)
			if (ast_name_eq(w->with[i]->items[k]->name, name))
				return 1;
	return 0;
}

/* Where the database stores the view too (SQLite, whose statements call suql's
   functions): it still has a view of that name (a view dropped or replaced by a table
   outside suql is not expanded from a stale row). PostgreSQL: the row is the view. */
static int vw_in_database(Exec *ex, const char *name)
{
	if (!ex->e->dialect->functions)
		return 1;
	const char *args[] = {name};
	StoreCursor *c;
	int hit = 0;
	if (store_query(ex->e->store, "SELECT 1 FROM sqlite_schema WHERE type = 'view' AND "
	                "lower(name) = lower(?1)", args, 1, &c, NULL) == SUQL_OK) {
		hit = store_next(c) > 0;
		store_done(c);
	}
	return hit;
}

/* The view's column names given to its query's result columns (CREATE VIEW v(a, b)); 0
   when they cannot be (a star, a count that differs), and the view is then left alone. */
static int vw_name_columns(Select *s, const IdList *cols)
{
	if (!cols)
		return 1;
	for (int i = 0; i < s->ncore; i++) {
		SelectCore *c = s->cores[i];
		if (c->kind != CORE_SELECT || !c->cols || c->cols->n != cols->n)
			return 0;
		for (int k = 0; k < c->cols->n; k++)
			if (c->cols->items[k]->expr->kind == EX_STAR)
				return 0;
	}
	for (int k = 0; k < cols->n; k++)   /* the first member names a compound's columns */
		s->cores[0]->cols->items[k]->alias = cols->items[k];
	return 1;
}

static void vw_expand(VW *w, FromItem *f, const char *name, char *text)
{
	Exec *ex = w->ex;
	for (int i = 0; i < w->depth; i++) {
		if (str_ieq(w->stack[i], name)) {
			w->st = err_set(w->err, SUQL_ERROR, "view %s reads itself (through %s)", name,
			                w->stack[w->depth - 1]);
			return;
		}
	}
	if (w->depth == BIND_VIEW_DEPTH) {
		w->st = err_set(w->err, SUQL_ERROR, "views read views %d deep at %s: too deep",
		                BIND_VIEW_DEPTH, name);
		return;
	}
	if (!w->buf.len)
		sb_putn(&w->buf, ex->sql, ex->len);
	sb_puts(&w->buf, "\n");
	size_t off = w->buf.len;
	sb_puts(&w->buf, text);
	ex->views = xrealloc(ex->views, ((size_t)ex->nviews + 1) * sizeof *ex->views);
	ExecView *v = &ex->views[ex->nviews++];
	memset(v, 0, sizeof *v);
	v->name = xstrdup(name);
	v->off = off;
	v->len = strlen(text);
	/* errors of the view's own text are placed in it (bind_view_error reads these) */
	ex->sql = w->buf.s;
	ex->len = w->buf.len;
	size_t end = 0;
	Ast *va = NULL;
	SuqlStatus s = parse_statement(w->buf.s, w->buf.len, off, &va, &end, w->err);
	v->ast = va;
	if (s != SUQL_OK) {
		w->st = s;
		return;
	}
	Stmt *vs = va ? va->stmt : NULL;
	if (!vs || vs->kind != ST_CREATE_VIEW || !vs->select) {
		w->st = err_set(w->err, SUQL_ERROR, "suql's catalog keeps no query for view %s", name);
		return;
	}
	if (!vw_name_columns(vs->select, vs->columns))
		return;   /* left to the database */
	f->kind = FROM_SUBQUERY;
	f->select = vs->select;
	if (!f->alias.s) {
		f->alias = f->name;
		f->as_kw = 1;
	}
	f->schema = (AstName){0};
	f->indexed = INDEXED_NONE;
	/* the view's query sees none of the statement's CTEs */
	int base = w->base;
	w->base = w->nwith;
	w->stack[w->depth++] = v->name;
	vw_select(w, vs->select);
	w->depth--;
	w->base = base;
}

static void vw_table(VW *w, FromItem *f)
{
	Exec *ex = w->ex;
	if (f->schema.s || vw_is_cte(w, f->name))
		return;
	char *name = ast_name_value(ex->a, f->name);
	char *text = NULL;
	if (catalog_view_get(ex->e->store, name, &text) && vw_in_database(ex, name)) {
		w->found = 1;
		if (w->expand)
			vw_expand(w, f, name, text);
	}
	free(text);
}

static int vw_select_cb(void *ctx, Select *s)
{
	vw_select(ctx, s);
	return AST_SKIP;
}

static void vw_expr(VW *w, Expr *e)
{
	if (!e || w->st != SUQL_OK)
		return;
	AstVisitor v = {0};
	v.ctx = w;
	v.select = vw_select_cb;
	ast_visit_expr(e, &v);
}

static void vw_from(VW *w, FromList *l)
{
	for (int i = 0; l && i < l->n && w->st == SUQL_OK; i++) {
		FromItem *f = l->items[i];
		switch (f->kind) {
		case FROM_TABLE:
			vw_table(w, f);
			break;
		case FROM_SUBQUERY:
			vw_select(w, f->select);
			break;
		case FROM_JOIN:
			vw_from(w, f->nested);
			break;
		case FROM_FUNC:
		case FROM_UNNEST:
			for (int k = 0; f->args && k < f->args->n; k++)
				vw_expr(w, f->args->items[k]);
			break;
		}
		vw_expr(w, f->on);
	}
}

static void vw_push(VW *w, With *with)
{
	if (w->nwith == w->capwith) {
		w->capwith = w->capwith ? w->capwith * 2 : 4;
		w->with = xrealloc(w->with, (size_t)w->capwith * sizeof *w->with);
	}
	w->with[w->nwith++] = with;
}

static void vw_select(VW *w, Select *s)
{
	if (!s || w->st != SUQL_OK)
		return;
	int pushed = 0;
	if (s->with) {   /* (a recursive CTE names itself: in scope in its own query) */
		vw_push(w, s->with);
		pushed = 1;
		for (int i = 0; i < s->with->n; i++)
			vw_select(w, s->with->items[i]->select);
	}
	for (int i = 0; i < s->ncore && w->st == SUQL_OK; i++) {
		SelectCore *c = s->cores[i];
		if (c->kind == CORE_VALUES) {
			for (int r = 0; c->rows && r < c->rows->n; r++)
				for (int k = 0; k < c->rows->items[r]->n; k++)
					vw_expr(w, c->rows->items[r]->items[k]);
			continue;
		}
		vw_from(w, c->from);
		for (int k = 0; c->cols && k < c->cols->n; k++)
			vw_expr(w, c->cols->items[k]->expr);
		vw_expr(w, c->where);
		for (int k = 0; c->group && k < c->group->n; k++)
			vw_expr(w, c->group->items[k]);
		vw_expr(w, c->having);
	}
	for (int i = 0; s->order && i < s->order->n; i++)
		vw_expr(w, s->order->items[i]->expr);
	vw_expr(w, s->limit);
	vw_expr(w, s->offset);
	if (pushed)
		w->nwith--;
}

static void vw_stmt(VW *w, Stmt *st)
{
	if (st->with) {
		vw_push(w, st->with);
		for (int i = 0; i < st->with->n; i++)
			vw_select(w, st->with->items[i]->select);
	}
	vw_select(w, st->select);
	vw_from(w, st->from);
	for (int i = 0; st->set && i < st->set->n; i++)
		vw_expr(w, st->set->items[i]->expr);
	vw_expr(w, st->where);
	for (int i = 0; st->returning && i < st->returning->n; i++)
		vw_expr(w, st->returning->items[i]->expr);
}

SuqlStatus bind_view_expand(Exec *ex, SuqlErr *err)
{
	Stmt *st = ex->ast->stmt;
	if (st->kind == ST_CREATE_VIEW)
		return SUQL_OK;   /* the view keeps the names it reads (bind_view_reads) */
	VW w = {0};
	w.ex = ex;
	w.err = err;
	w.expand = 1;
	vw_stmt(&w, st);
	free(w.with);
	if (w.buf.len) {
		ex->len = w.buf.len;
		ex->viewbuf = sb_steal(&w.buf);
		ex->sql = ex->viewbuf;
		/* the printers read result columns as written from the tree's text */
		ex->user_src = ex->ast->src;
		ex->ast->src = ex->viewbuf + ex->ast->src_off;
	}
	sb_free(&w.buf);
	return w.st;
}

int bind_view_reads(Exec *ex)
{
	VW w = {0};
	w.ex = ex;
	SuqlErr err = {0};
	w.err = &err;
	Stmt *st = ex->ast->stmt;
	if (st->select)
		vw_select(&w, st->select);
	free(w.with);
	err_clear(&err);
	return w.found;
}

void bind_view_error(Exec *ex, SuqlErr *err)
{
	if (!err || !err->placed || err->off < ex->user_len)
		return;
	for (int i = 0; i < ex->nviews; i++) {
		const ExecView *v = &ex->views[i];
		if (err->off < v->off || err->off > v->off + v->len)
			continue;
		char *what = xstrdup(err->what ? err->what : "failed");
		char *hint = err->hint ? xstrdup(err->hint) : NULL;
		size_t len = err->len;
		if (err->off + len > v->off + v->len)
			len = v->off + v->len - err->off;
		SuqlStatus code = err->code;
		err_at(err, code, ex->sql + v->off, v->len, err->off - v->off, len, hint, "%s", what);
		/* said at its place in the view: not moved to the statement's place in a script */
		char *m = xprintf("in view %s, %s", v->name, err->msg);
		free(err->msg);
		err->msg = m;
		err->placed = 0;
		free(what);
		free(hint);
		return;
	}
}

void bind_view_free(Exec *ex)
{
	if (ex->user_src)
		ex->ast->src = ex->user_src;
	for (int i = 0; i < ex->nviews; i++) {
		free(ex->views[i].name);
		ast_free(ex->views[i].ast);
	}
	free(ex->views);
	free(ex->viewbuf);
}
