/*
 * bm25.c: the relevance function bm25(column, 'query'), usable wherever an expression is
 * (SELECT, ORDER BY, WHERE). Its value for a row is what the retrieval index says of the
 * row's column (retrieve/retrieve.h): the Okapi BM25 of its best passage for the query's
 * content words, with the statistics of the whole column; 0 when no passage matches, NULL
 * when the value is NULL. Retrieval only measures words in common: no model is asked.
 *
 * The binder rewrites the call, when its first argument is a column of a rowid table, into
 * a self-contained function call that also works in views:
 *
 *   bm25(r.reviews, 'quiet corners')
 *     -> suql_bm25('restaurants', 'reviews', r.rowid, 'quiet corners', r.reviews)
 *
 * and makes the column's index current before the statement runs (so that the function,
 * called while SQLite reads rows, only reads it). The function scores every matching row
 * of the table once per statement, table, column and query (one ranking through the
 * index) and looks each row up in that. bm25() with a number as second argument is left
 * alone: it is FTS5's own auxiliary function (bm25(fts_table, weight, ...)).
 */
#include "engine/bind_int.h"
#include "engine/op_int.h"
#include "retrieve/retrieve.h"

#include <stdlib.h>
#include <string.h>

/* One ranking: the matching rows of table.column for a query, by rowid. */
struct Bm25Cache {
	char *table, *column, *query;
	RetScore *rows;
	size_t n;
	struct Bm25Cache *next;
};

/* bm25()'s state (Exec.opstate[OP_BM25]): the rankings made, and the calls bound. */
typedef struct Bm25State {
	struct Bm25Cache *rankings;
	int calls;
} Bm25State;

static Bm25State *state(Exec *ex)
{
	if (!ex->opstate[OP_BM25])
		ex->opstate[OP_BM25] = xcalloc(1, sizeof(Bm25State));
	return ex->opstate[OP_BM25];
}

static void bm25_free(Exec *ex)
{
	Bm25State *s = ex->opstate[OP_BM25];
	while (s && s->rankings) {
		struct Bm25Cache *c = s->rankings;
		s->rankings = c->next;
		free(c->table);
		free(c->column);
		free(c->query);
		free(c->rows);
		free(c);
	}
	free(s);
	ex->opstate[OP_BM25] = NULL;
}

static int by_rowid(const void *a, const void *b)
{
	sqlite3_int64 x = ((const RetScore *)a)->rowid, y = ((const RetScore *)b)->rowid;
	return x < y ? -1 : x > y;
}

static struct Bm25Cache *ranking(Exec *ex, const char *table, const char *column,
                                 const char *query, SuqlErr *err)
{
	for (struct Bm25Cache *c = state(ex)->rankings; c; c = c->next)
		if (strcmp(c->table, table) == 0 && strcmp(c->column, column) == 0 &&
		    strcmp(c->query, query) == 0)
			return c;
	struct Bm25Cache *c = xcalloc(1, sizeof *c);
	RetQuestion q = {column, query};
	if (ret_score(ex->e->db, table, &q, 1, NULL, 0, RET_MATCHED_ONLY, 0, &c->rows, &c->n, err) !=
	    SUQL_OK) {
		free(c);
		return NULL;
	}
	qsort(c->rows, c->n, sizeof *c->rows, by_rowid);
	c->table = xstrdup(table);
	c->column = xstrdup(column);
	c->query = xstrdup(query);
	c->next = state(ex)->rankings;
	state(ex)->rankings = c;
	return c;
}

/* suql_bm25(table, column, rowid, query, value) */
static void fn_bm25(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	Engine *e = sqlite3_user_data(ctx);
	Exec *ex = e->cur;
	(void)argc;
	if (!ex) {
		sqlite3_result_error(ctx, "bm25() runs only inside statements that suql runs", -1);
		return;
	}
	if (sqlite3_value_type(argv[4]) == SQLITE_NULL || sqlite3_value_type(argv[2]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	const char *table = (const char *)sqlite3_value_text(argv[0]);
	const char *column = (const char *)sqlite3_value_text(argv[1]);
	const char *query = (const char *)sqlite3_value_text(argv[3]);
	if (!table || !column || !query) {
		sqlite3_result_error(ctx, "bm25() takes a column and a query text", -1);
		return;
	}
	SuqlErr err = {0};
	struct Bm25Cache *c = ranking(ex, table, column, query, &err);
	if (!c) {
		sqlite3_result_error(ctx, err.msg ? err.msg : "bm25(): the index could not be read", -1);
		err_clear(&err);
		return;
	}
	RetScore key = {sqlite3_value_int64(argv[2]), 0, 0};
	RetScore *hit = bsearch(&key, c->rows, c->n, sizeof *c->rows, by_rowid);
	sqlite3_result_double(ctx, hit ? hit->score : 0.0);
}

static void bm25_register(Engine *e)
{
	sqlite3_create_function(e->db, "suql_bm25", 5, SQLITE_UTF8, e, fn_bm25, NULL, NULL);
}

/* ---- the binder's part ---- */

/* bm25(column, 'query') at *slot: rewritten in place (OP_BIND_ON: its arguments are
   walked as any function's; an error about it is left in bd), or left alone
   (OP_BIND_NONE: FTS5's bm25(table, weight)). */
static int bm25_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	(void)f;
	(void)at;
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (e->distinct || e->star || e->over || e->order || e->extra)
		return OP_BIND_NONE;
	Expr *col = e->list->items[0], *q = e->list->items[1];
	if (q->kind == EX_LITERAL && (q->lit == LIT_INTEGER || q->lit == LIT_FLOAT))
		return OP_BIND_NONE;   /* FTS5's bm25(table, weight) */
	const char *why = NULL;
	int blk = -1, i = -1;
	if (col->kind != EX_COLUMN)
		why = "bm25() ranks a column of a table: its first argument must name one";
	else if (b < 0 || (i = bind_resolve(ex, b, col, &blk)) < 0)
		why = "bm25(): no such column";
	ScopeItem *it = i >= 0 ? &ex->blocks[blk].items[i] : NULL;
	if (!why && !ex->e->dialect->retrieval) {   /* the server's own text search ranks */
		if (!(q->kind == EX_LITERAL && q->lit == LIT_STRING)) {
			if (bd->st == SUQL_OK && bd->err)
				bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, e->span.off,
				                e->span.len, "write bm25(table.column, 'words to look for')",
				                "bm25()'s query must be a string literal");
			return OP_BIND_ON;
		}
		state(ex)->calls++;
		*slot = ex->e->dialect->relevance(ex, b, e, col, q);
		return OP_BIND_ON;
	}
	if (!why && (it->kind != IT_TABLE || !it->rowid))
		why = "bm25() ranks a column of a table with rowids (not of a view, subquery, CTE "
		      "or unnest)";
	if (!why && !(q->kind == EX_LITERAL && q->lit == LIT_STRING))
		why = "bm25()'s query must be a string literal";
	if (why) {
		if (bd->st == SUQL_OK && bd->err)
			bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, e->span.off, e->span.len,
			                "write bm25(table.column, 'words to look for')", "%s", why);
		return OP_BIND_ON;
	}
	const char *name = ast_name_value(ex->a, col->name);
	int k = bind_item_col(ex, &ex->blocks[blk], it, name);
	const char *column = k >= 0 ? it->cols[k] : name;
	if (bd->exec && bd->st == SUQL_OK) {
		SuqlErr err = {0};
		if (ret_ensure(ex->e->db, it->table, column, NULL, &err) != SUQL_OK) {
			bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, e->span.off, e->span.len,
			                NULL, "bm25(): %s", err.msg ? err.msg : "no index");
			err_clear(&err);
			return OP_BIND_ON;
		}
	}
	Expr *args[5];
	args[0] = ast_string(ex->a, it->table);
	args[1] = ast_string(ex->a, column);
	args[2] = ast_column(ex->a, it->name, "rowid");
	args[3] = q;
	args[4] = col;
	Expr *call = ast_func(ex->a, "suql_bm25", 5, args);
	call->span = e->span;
	*slot = call;
	state(ex)->calls++;
	return OP_BIND_ON;
}

/* ---- its row of the operator table (op.c) ---- */

static int bm25_applies(const Exec *ex)
{
	const Bm25State *s = ex->opstate[OP_BM25];
	return s && s->calls > 0;
}

static const OpFunc bm25_funcs[] = {{"bm25", 2, 2}, {NULL, 0, 0}};

const EngineOp bm25_row = {
	.name = "bm25",
	.slot = OP_BM25,
	.funcs = bm25_funcs,
	.bind = bm25_bind,
	.functions = bm25_register,
	.applies = bm25_applies,
	.free = bm25_free,
};
