/*
 * exec_final.c: the end of a statement.
 *
 * Ahead: occurrences in ORDER BY, GROUP BY, HAVING, aggregates (and result columns of
 * blocks that return every row anyway) need a value for every row that passes WHERE;
 * their arguments are read for exactly those rows (the block's WHERE reads the atoms the
 * walk decided) and evaluated in batches before SQLite asks.
 *
 * Projection last: answer() and summary() in the statement's result columns are not left
 * to SQLite, whose top-N sorter computes result columns for rows it later drops. Phase 1
 * runs the statement with those columns replaced by NULL and, after the real columns, the
 * column references the replaced expressions read; its rows go into a temp table in order.
 * Then the free text of exactly those rows is evaluated in batches, and phase 2 reads the
 * table back, computing the replaced columns over it, with the names SQLite gave the
 * statement's columns. The rows reach the sink through phase 2's statement.
 */
#include "engine/exec_int.h"
#include "engine/op_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The texts s lists (its one column), each once (dedupe: the repeats skipped here; else
   the statement lists each once itself), asked of the model as the values of signature
   sig, one a call with one_a_call. what names the rows in an error. */
static SuqlStatus texts_asked(Exec *ex, Select *s, int sig, int dedupe, int one_a_call,
                              const char *what, long long *nvals, SuqlErr *err)
{
	char *sql = exec_print_select(ex, s);
	StoreCursor *c;
	SuqlStatus r = ex->e->dialect->query(ex, sql, &c, err);
	free(sql);
	if (r != SUQL_OK)
		return r;
	Memo *seen = dedupe ? memo_new() : NULL;
	char **v = NULL;
	size_t *len = NULL;
	long n = 0, cap = 0;
	int rc;
	while ((rc = store_next(c)) > 0) {
		const char *t = store_text(c, 0);
		size_t tl = t ? store_bytes(c, 0) : 0;
		if (!t || (seen && memo_get(seen, 0, t, tl)))
			continue;
		if (seen)
			memo_put(seen, 0, t, tl);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof *v);
			len = xrealloc(len, (size_t)cap * sizeof *len);
		}
		v[n] = xstrndup(t, tl);
		len[n++] = tl;
	}
	r = rc < 0 ? exec_sqlerr(ex, err, what) : SUQL_OK;
	store_done(c);
	memo_free(seen);
	if (r != SUQL_OK) {
		for (long i = 0; i < n; i++)
			free(v[i]);
		free(v);
		free(len);
		return r;
	}
	int batch = ex->set.batch;
	if (one_a_call)
		ex->set.batch = 1;
	r = exec_llm_run_values(ex, sig, v, len, n, nvals, err);
	ex->set.batch = batch;
	return r;
}

/* The texts of the argument over the rows that pass where, each once: SQLite's DISTINCT
   keeps the first of each in the order it reads the rows; a backend without that order
   lists the rows in SQLite's (Dialect.list_order), and the repeats are skipped here. */
SuqlStatus exec_final_values(Exec *ex, Block *b, int occ, Expr *where, long long *nvals,
                             SuqlErr *err)
{
	const Occ *o = &ex->occ[occ];
	if (o->sig < 0)
		return SUQL_OK;
	const Dialect *d = ex->e->dialect;
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, d->text_of(ex, o->arg), "suql_arg");
	Select *s = exec_select(ex, b, cols, where, d->scan_order ? NULL : d->list_order(ex, b, NULL));
	if (d->scan_order)
		s->cores[0]->distinct = DISTINCT_DISTINCT;
	return texts_asked(ex, s, o->sig, !d->scan_order, 0, "reading the rows that pass WHERE",
	                   nvals, err);
}

/* A stored query under a LIMIT (Occ.own 4): its ORDER BY made total by the rows'
   identity, in the statement too (plan_ahead.c, when it planned it), so that the rows listed
   here are the rows it stores; their texts in that order, within the LIMIT and OFFSET,
   each asked one a call as SQLite's functions ask them as the rows are stored. */
static SuqlStatus stored_values(Exec *ex, Block *b, int occ, long long *nvals, SuqlErr *err)
{
	const Occ *o = &ex->occ[occ];
	Select *q = b->sel;
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, ex->e->dialect->text_of(ex, o->arg), "suql_arg");
	Select *s = exec_select(ex, b, cols, b->core->where, q->order);
	s->limit = q->limit;
	s->offset = q->offset;
	return texts_asked(ex, s, o->sig, 1, 1, "reading the rows the query stores", nvals, err);
}

SuqlStatus exec_final_ahead(Exec *ex, Block *b, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	for (int i = 0; i < ex->nocc && st == SUQL_OK; i++) {
		const Occ *o = &ex->occ[i];
		if (o->block != b->id)
			continue;
		/* an occurrence an operator evaluates itself (a semantic top-k) */
		if (o->plan != PL_AHEAD && op_ahead(ex, b, i, &st, err))
			continue;
		if (o->plan != PL_AHEAD || o->own == 3)   /* (that one before the walk) */
			continue;
		long long n = 0;
		if (o->own == 4) {
			st = stored_values(ex, b, i, &n, err);
		} else if (o->own == 2) {   /* the pairs with the enclosing query's rows it can reach */
			Expr *where;
			Block *t = plan_ahead_pairs(ex, o, &where);
			st = exec_final_values(ex, t, i, where, &n, err);
		} else {
			st = exec_final_values(ex, b, i, o->own ? NULL : b->core->where, &n, err);
		}
		ex->cnt.ahead_values += n;
	}
	return st;
}

/* ---- keeping to the rows the walk passed ---- */

/* More passed rows than this are not listed (the statement stays as written): a list that
   long is not read faster than the table. */
#define KEEP_MAX 10000

typedef struct Keep {
	Exec *ex;
	const Expr *inside;   /* the WHERE being printed by the hook itself */
} Keep;

/* A walked block's WHERE, printed as (WHERE) AND item.rowid IN (the rows it passed): SQLite
   seeks to those rows instead of reading every row's text until enough pass. */
static int keep_hook(void *ctx, Printer *pr, const Expr *e)
{
	Keep *k = ctx;
	if (e == k->inside)
		return 0;
	for (int i = 0; i < k->ex->nblocks; i++) {
		const Block *b = &k->ex->blocks[i];
		if (!b->kept.on || !b->core || b->core->where != e || !b->executed ||
		    b->kept.n > KEEP_MAX)
			continue;
		const Expr *saved = k->inside;
		k->inside = e;
		print_raw(pr, "(");
		print_expr(pr, e);
		k->inside = saved;
		SBuf q = SBUF_INIT;
		sb_puts(&q, ") AND ");
		sb_put_ident(&q, b->items[0].name, strlen(b->items[0].name));
		sb_puts(&q, ".rowid IN (");
		for (long j = 0; j < b->kept.n; j++)
			sb_printf(&q, "%s%lld", j ? ", " : "", b->kept.ids[j]);
		sb_puts(&q, ")");
		print_raw(pr, sb_str(&q));
		sb_free(&q);
		return 1;
	}
	return 0;
}

/* A printer for the statement that finally runs (see keep_hook); k lives as long. */
static Printer *final_printer(Exec *ex, Keep *k, PrintHooks *hk)
{
	k->ex = ex;
	k->inside = NULL;
	hk->ctx = k;
	hk->expr = keep_hook;
	hk->from = NULL;
	return print_new(PRINT_SQL, hk, ex->ast->src, ex->ast->src_off);
}

Select *exec_final_select(Exec *ex, const Block *b, ResultList *cols)
{
	Arena *a = ex->a;
	SelectCore *c1 = arena_alloc(a, sizeof *c1);
	*c1 = *b->core;
	c1->cols = cols;
	Select *s1 = arena_alloc(a, sizeof *s1);
	*s1 = *b->sel;
	s1->cores = arena_alloc(a, sizeof *s1->cores);
	s1->cores[0] = c1;
	return s1;
}

char *exec_final_with_cols(Exec *ex, Block *b, ResultList *cols)
{
	Select *s1 = exec_final_select(ex, b, cols);
	Keep keep;
	PrintHooks khk;
	Printer *pr = final_printer(ex, &keep, &khk);
	print_select(pr, s1);
	char *sql = print_steal(pr);
	print_free(pr);
	return sql;
}

/* ---- streaming a statement to the sink ---- */

static SuqlStatus stream(Exec *ex, sqlite3_stmt *st, SuqlErr *err)
{
	const EngineSink *sink = ex->sink;
	Row row;
	store_row_sqlite(&row, st);
	if (sink && sink->columns && sqlite3_column_count(st) > 0)
		sink->columns(sink->ctx, &row);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ex->cnt.rows_out++;
		if (sink && sink->row && sink->row(sink->ctx, &row))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return exec_sqlerr(ex, err, NULL);
	return SUQL_OK;
}

/* ---- projection last ---- */

/* The temp table of the projection's rows: SQLite's state of the statement (Exec.backend),
   dropped by exec_final_free. */
typedef struct TempTable {
	int made;
	char name[48];
} TempTable;

void exec_final_free(Exec *ex)
{
	TempTable *tmp = ex->backend;
	if (!tmp)
		return;
	if (tmp->made) {
		char *q = sqlite3_mprintf("DROP TABLE IF EXISTS temp.\"%w\"", tmp->name);
		sqlite3_exec(ex->e->db, q, NULL, NULL, NULL);
		sqlite3_free(q);
	}
	free(tmp);
	ex->backend = NULL;
}

typedef struct Hidden {
	Exec *ex;
	Expr **cols;          /* column references read by the replaced expressions */
	int n, cap;
} Hidden;

static int collect_cb(void *ctx, Expr *e)
{
	Hidden *h = ctx;
	if (e->kind != EX_COLUMN)
		return AST_CONTINUE;
	for (int i = 0; i < h->n; i++)
		if (h->cols[i] == e)
			return AST_CONTINUE;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 8;
		h->cols = xrealloc(h->cols, (size_t)h->cap * sizeof *h->cols);
	}
	h->cols[h->n++] = e;
	return AST_CONTINUE;
}

static int hidden_hook(void *ctx, Printer *pr, const Expr *e)
{
	Hidden *h = ctx;
	if (e->kind != EX_COLUMN)
		return 0;
	for (int i = 0; i < h->n; i++) {
		if (h->cols[i] == e) {
			char nm[32];
			snprintf(nm, sizeof nm, "h%d", i + 1);
			print_raw(pr, nm);
			return 1;
		}
	}
	return 0;
}

static char *print_hidden(Exec *ex, Hidden *h, const Expr *e)
{
	PrintHooks hk = {h, hidden_hook, NULL};
	Printer *pr = print_new(PRINT_SQL, &hk, ex->ast->src, ex->ast->src_off);
	print_expr(pr, e);
	char *s = print_steal(pr);
	print_free(pr);
	return s;
}

/* How many columns result column i stands for (a star: as many as SQLite expands). */
static int width_of(Exec *ex, Block *b, ResultCol *rc, SuqlErr *err, int *ok)
{
	*ok = 1;
	if (rc->expr->kind != EX_STAR)
		return 1;
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, rc->expr, NULL);
	Select *s = exec_select(ex, b, cols, NULL, NULL);
	char *sql = exec_print_select(ex, s);
	sqlite3_stmt *st;
	int n = 0;
	if (exec_prepare(ex, sql, &st, err) == SUQL_OK) {
		n = sqlite3_column_count(st);
		sqlite3_finalize(st);
	} else {
		*ok = 0;
	}
	free(sql);
	return n;
}

static SuqlStatus project(Exec *ex, Block *b, SuqlErr *err)
{
	Arena *a = ex->a;
	if (!ex->backend)
		ex->backend = xcalloc(1, sizeof(TempTable));
	TempTable *tmp = ex->backend;
	SelectCore *c = b->core;
	int ncols = c->cols->n;
	unsigned char *proj = xcalloc((size_t)ncols + 1, 1);
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].plan == PL_PROJECT && ex->occ[i].block == b->id)
			proj[ex->occ[i].result_col] = 1;
	/* phase 1: the statement with the projected columns as NULL, the columns they read
	   after the statement's own */
	Hidden h = {ex, NULL, 0, 0};
	ResultList *cols = NULL;
	for (int i = 0; i < ncols; i++) {
		ResultCol *rc = c->cols->items[i];
		if (!proj[i]) {
			exec_col(a, &cols, rc->expr, NULL);
			*cols->items[cols->n - 1] = *rc;
			continue;
		}
		AstVisitor v = {0};
		v.ctx = &h;
		v.expr = collect_cb;
		ast_visit_expr(rc->expr, &v);
		exec_col(a, &cols, ast_null(a), NULL);
		cols->items[cols->n - 1]->alias = rc->alias;
	}
	for (int i = 0; i < h.n; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "suql_h%d", i + 1);
		exec_col(a, &cols, h.cols[i], nm);
	}
	char *sql1 = exec_final_with_cols(ex, b, cols);

	SuqlStatus st = SUQL_OK;
	sqlite3_stmt *p1 = NULL, *ins = NULL, *p2 = NULL;
	int *off = xcalloc((size_t)ncols + 1, sizeof *off);
	SBuf q = SBUF_INIT;
	st = exec_prepare(ex, sql1, &p1, err);
	int total = p1 ? sqlite3_column_count(p1) : 0;
	int nreal = total - h.n;
	int at = 0;
	for (int i = 0; i < ncols && st == SUQL_OK; i++) {
		int ok;
		off[i] = at;
		at += width_of(ex, b, c->cols->items[i], err, &ok);
		if (!ok)
			st = SUQL_ERROR;
	}
	if (st == SUQL_OK && (at != nreal || nreal != ex->cols.n))
		st = err_set(err, SUQL_ERROR, "internal error: projection columns do not line up");
	if (st == SUQL_OK) {
		snprintf(tmp->name, sizeof tmp->name, "suql_out_%lu", ex->e->seq);
		sb_printf(&q, "CREATE TEMP TABLE \"%s\" (", tmp->name);
		for (int i = 0; i < total; i++)
			sb_printf(&q, "%s%s%d", i ? ", " : "", i < nreal ? "c" : "h",
			          i < nreal ? i + 1 : i - nreal + 1);
		sb_puts(&q, ")");
		st = exec_run_sql(ex->e->db, sb_str(&q), err);
		if (st == SUQL_OK)
			tmp->made = 1;
	}
	if (st == SUQL_OK) {
		sb_truncate(&q, 0);
		sb_printf(&q, "INSERT INTO temp.\"%s\" VALUES (", tmp->name);
		for (int i = 0; i < total; i++)
			sb_printf(&q, "%s?", i ? ", " : "");
		sb_puts(&q, ")");
		st = exec_prepare(ex, sb_str(&q), &ins, err);
	}
	int rc = SQLITE_DONE;
	while (st == SUQL_OK && (rc = sqlite3_step(p1)) == SQLITE_ROW) {
		for (int i = 0; i < total; i++)
			sqlite3_bind_value(ins, i + 1, sqlite3_column_value(p1, i));
		if (sqlite3_step(ins) != SQLITE_DONE)
			st = exec_sqlerr(ex, err, NULL);
		sqlite3_reset(ins);
		ex->cnt.project_rows++;
	}
	if (st == SUQL_OK && rc != SQLITE_DONE)
		st = exec_sqlerr(ex, err, NULL);
	sqlite3_finalize(p1);
	sqlite3_finalize(ins);
	/* the free text of the rows kept, in batches */
	for (int i = 0; i < ex->nocc && st == SUQL_OK; i++) {
		Occ *o = &ex->occ[i];
		if (o->plan != PL_PROJECT || o->block != b->id || o->sig < 0)
			continue;
		char *arg = print_hidden(ex, &h, o->arg);
		sb_truncate(&q, 0);
		sb_printf(&q, "SELECT DISTINCT %s FROM temp.\"%s\"", arg, tmp->name);
		free(arg);
		sqlite3_stmt *vs;
		st = exec_prepare(ex, sb_str(&q), &vs, err);
		if (st == SUQL_OK)
			st = exec_llm_run_column(ex, o->sig, vs, "reading the rows kept", &ex->cnt.project_values,
			                   err);
	}
	/* phase 2: the rows, in order, with the statement's column names */
	if (st == SUQL_OK) {
		sb_truncate(&q, 0);
		sb_puts(&q, "SELECT ");
		int out = 0;
		for (int i = 0; i < ncols; i++) {
			int wdt = (i + 1 < ncols ? off[i + 1] : nreal) - off[i];
			if (proj[i]) {
				char *e = print_hidden(ex, &h, c->cols->items[i]->expr);
				sb_printf(&q, "%s%s AS ", out++ ? ", " : "", e);
				sb_put_ident(&q, ex->cols.names[off[i]], strlen(ex->cols.names[off[i]]));
				free(e);
				continue;
			}
			for (int k = 0; k < wdt; k++) {
				sb_printf(&q, "%sc%d AS ", out++ ? ", " : "", off[i] + k + 1);
				const char *nm = ex->cols.names[off[i] + k];
				sb_put_ident(&q, nm, strlen(nm));
			}
		}
		sb_printf(&q, " FROM temp.\"%s\" ORDER BY rowid", tmp->name);
		st = exec_prepare(ex, sb_str(&q), &p2, err);
		if (st == SUQL_OK)
			st = stream(ex, p2, err);
		sqlite3_finalize(p2);
	}
	sb_free(&q);
	free(off);
	free(sql1);
	free(h.cols);
	free(proj);
	return st;
}

SuqlStatus exec_final_run(Exec *ex, SuqlErr *err)
{
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->plan == PL_PROJECT)
			return project(ex, &ex->blocks[o->block], err);
	}
	sqlite3_stmt *st = ex->ready;
	SuqlStatus s = SUQL_OK;
	ex->ready = NULL;
	if (!st) {
		Keep keep;
		PrintHooks khk;
		Printer *pr = final_printer(ex, &keep, &khk);
		print_stmt(pr, ex->ast->stmt);
		s = exec_prepare(ex, print_text(pr), &st, err);
		print_free(pr);
	}
	if (s != SUQL_OK)
		return s;
	if (!st)
		return SUQL_OK;
	s = stream(ex, st, err);
	sqlite3_finalize(st);
	return s;
}

int exec_final_count(Exec *ex, long long *n)
{
	if (ex->e->dialect->final_count)
		return ex->e->dialect->final_count(ex, n);
	Keep keep;
	PrintHooks khk;
	Printer *pr = final_printer(ex, &keep, &khk);
	print_raw(pr, "SELECT count(*) FROM (");
	print_stmt(pr, ex->ast->stmt);
	print_raw(pr, ")");
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(ex->e->db, print_text(pr), -1, &st, NULL);
	print_free(pr);
	*n = -1;
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return *n < 0 ? -1 : 0;
}

SuqlStatus exec_final_dry(Exec *ex, SuqlErr *err)
{
	Keep keep;
	PrintHooks khk;
	Printer *pr = final_printer(ex, &keep, &khk);
	print_stmt(pr, ex->ast->stmt);
	sqlite3_stmt *st = NULL;
	SuqlStatus s = exec_prepare(ex, print_text(pr), &st, err);
	print_free(pr);
	if (s != SUQL_OK || !st)
		return s;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		s = exec_sqlerr(ex, err, "reading the groups of the aggregates");
	sqlite3_finalize(st);
	return s;
}
