/*
 * exec_cand.c: a unit's candidates. One SQLite statement lists them: the rows that satisfy
 * the unit's structured part, with what identifies each row (t.rowid of every table,
 * e.id of every json_each or unnest item), and the structured leaves of a tree as columns,
 * in the query's ORDER BY order when the walk is ordered. The argument texts are fetched
 * again by those ids when asked, so a million candidates cost a few bytes each; when a
 * FROM item cannot say which row it is (a subquery), the statement selects the texts
 * themselves and they are kept.
 */
#include "engine/exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the candidate statement ---- */

void exec_cand_ids(Walk *w)
{
	Exec *ex = w->ex;
	Block *b = w->b;
	if (!b->identity)
		return;
	w->idx = xmalloc(((size_t)b->nitems + 1) * sizeof *w->idx);
	for (int i = 0; i < b->nitems; i++) {
		w->idx[w->nid++] = ex->e->dialect->row_id(ex, &b->items[i]);
	}
}

int exec_cand_arg(Walk *w, Expr *e)
{
	for (int i = 0; i < w->narg; i++)
		if (w->args[i] == e || ast_expr_equal(w->args[i], e))
			return i;
	w->args = xrealloc(w->args, ((size_t)w->narg + 1) * sizeof *w->args);
	w->args[w->narg] = e;
	return w->narg++;
}

char *exec_cand_sql(Walk *w, int with_args, int ordered)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	char al[32];
	for (int i = 0; i < w->nid; i++) {
		snprintf(al, sizeof al, "suql_id%d", i);
		exec_col(ex->a, &cols, w->idx[i], al);
	}
	if (with_args)
		for (int i = 0; i < w->narg; i++) {
			snprintf(al, sizeof al, "suql_arg%d", i);
			exec_col(ex->a, &cols, ex->e->dialect->text_of(ex, w->args[i]), al);
		}
	for (int i = 0; i < w->u->nsqlcols; i++) {
		snprintf(al, sizeof al, "suql_leaf%d", i);
		exec_col(ex->a, &cols, w->u->sqlcols[i], al);
	}
	/* a DISTINCT walk where rows are not read again: each candidate's result row comes
	   with it (the walk keeps its hash, exec_cand_key) */
	const SelectCore *core = w->b->core;
	for (int i = 0; with_args && w->b->distinct_walk && !ex->e->dialect->refetch && core->cols &&
	                i < core->cols->n; i++) {
		snprintf(al, sizeof al, "suql_res%d", i);
		exec_col(ex->a, &cols, core->cols->items[i]->expr, al);
	}
	if (!cols)
		exec_col(ex->a, &cols, ast_integer(ex->a, 1), "suql_one");
	/* rows in the order SQLite lists them */
	OrderList *ord = ex->e->dialect->list_order(ex, w->b, ordered ? w->b->order : NULL);
	Select *s = exec_select(ex, w->b, cols, w->u->where, ord);
	return exec_print_select(ex, s);
}

static void grow(Walk *w)
{
	if (w->n < w->cap)
		return;
	w->cap = w->cap ? w->cap * 2 : 256;
	size_t c = (size_t)w->cap;
	w->ids = xrealloc(w->ids, c * ((size_t)w->nid + 1) * sizeof *w->ids);
	if (!w->b->identity || !w->ex->e->dialect->refetch) {
		w->vals = xrealloc(w->vals, c * ((size_t)w->narg + 1) * sizeof *w->vals);
		w->lens = xrealloc(w->lens, c * ((size_t)w->narg + 1) * sizeof *w->lens);
	}
	w->sqlv = xrealloc(w->sqlv, c * ((size_t)w->u->nsqlcols + 1));
}

/* A dialect that does not read rows again (Dialect.refetch: PostgreSQL): the candidates
   with their texts, through the store (each row is read once: the server is not asked
   again per candidate), ids as the dialect numbers its rows (Dialect.row_id), structured
   leaves as the booleans it prints ('t', 'f'). */
static SuqlStatus load_listed(Walk *w, const char *sql, SuqlErr *err)
{
	Exec *ex = w->ex;
	StoreCursor *c;
	SuqlStatus s = ex->e->dialect->query(ex, sql, &c, err);
	if (s != SUQL_OK)
		return s;
	int rc;
	while ((rc = store_next(c)) > 0) {
		grow(w);
		long long k = w->n++;
		for (int i = 0; i < w->nid; i++) {
			const char *t = store_text(c, i);
			w->ids[k * w->nid + i] = t ? strtoll(t, NULL, 10) : NULL_ID;
		}
		for (int i = 0; i < w->narg; i++) {
			const char *t = store_text(c, w->nid + i);
			w->vals[k * w->narg + i] = t ? xstrdup(t) : NULL;
			w->lens[k * w->narg + i] = t ? strlen(t) : 0;
		}
		for (int i = 0; i < w->u->nsqlcols; i++) {
			const char *t = store_text(c, w->nid + w->narg + i);
			w->sqlv[k * w->u->nsqlcols + i] = !t ? VERDICT_NULL
			                                  : *t == 't' ? VERDICT_YES : VERDICT_NO;
		}
		if (w->b->distinct_walk) {   /* the hash of its result row */
			Row r;
			store_row_cursor(&r, c);
			*exec_cand_key_slot(w, k) = exec_cand_row_hash(&r, w->nid + w->narg +
			                                                   w->u->nsqlcols);
		}
		if (suql_interrupted)
			break;
	}
	store_done(c);
	if (rc < 0)
		return err_set(err, SUQL_ERROR, "listing candidates in %s failed",
		               ex->e->dialect->label);
	if (suql_interrupted)
		return err_set(err, SUQL_INTERRUPT, "interrupted");
	return SUQL_OK;
}

SuqlStatus exec_cand_load(Walk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	char *sql = exec_cand_sql(w, !w->b->identity || !ex->e->dialect->refetch, w->b->ordered);
	free(w->u->sql);
	w->u->sql = sql;
	if (!ex->e->dialect->refetch)   /* the texts come with the candidates */
		return load_listed(w, sql, err);
	sqlite3_stmt *st;
	SuqlStatus s = exec_prepare(ex, sql, &st, err);
	if (s != SUQL_OK)
		return s;
	int rc;
	int argc0 = w->nid, leafc0 = w->nid + (w->b->identity ? 0 : w->narg);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		grow(w);
		long long c = w->n++;
		for (int i = 0; i < w->nid; i++)
			w->ids[c * w->nid + i] = sqlite3_column_type(st, i) == SQLITE_NULL
			                         ? NULL_ID : sqlite3_column_int64(st, i);
		if (!w->b->identity)
			for (int i = 0; i < w->narg; i++) {
				size_t n = 0;
				char *v = exec_value_text(sqlite3_column_value(st, argc0 + i), &n);
				w->vals[c * w->narg + i] = v;
				w->lens[c * w->narg + i] = n;
			}
		for (int i = 0; i < w->u->nsqlcols; i++) {
			int k = leafc0 + i;
			w->sqlv[c * w->u->nsqlcols + i] =
				sqlite3_column_type(st, k) == SQLITE_NULL ? VERDICT_NULL
				: sqlite3_column_double(st, k) != 0 ? VERDICT_YES : VERDICT_NO;
		}
		if (suql_interrupted)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		s = exec_sqlerr(ex, err, "listing candidates");
	else if (suql_interrupted)
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	sqlite3_finalize(st);
	return s;
}

/* The text of argument a of candidate c: stored, or fetched again by the row's ids. The
   returned text is the caller's (free). NULL: the value is NULL. */
char *exec_cand_value(Walk *w, long long c, int a, size_t *len, SuqlErr *err, int *failed)
{
	*failed = 0;
	if (!w->b->identity || !w->ex->e->dialect->refetch) {
		const char *v = w->vals[c * w->narg + a];
		*len = w->lens[c * w->narg + a];
		return v ? xstrndup(v, *len) : NULL;
	}
	Exec *ex = w->ex;
	if (!w->fetch) {
		ResultList *cols = NULL;
		for (int i = 0; i < w->narg; i++)
			exec_col(ex->a, &cols, w->args[i], NULL);
		Select *s = exec_select(ex, w->b, cols, exec_cand_by_ids(w), NULL);
		char *sql = exec_print_select(ex, s);
		SuqlStatus st = exec_prepare(ex, sql, &w->fetch, err);
		free(sql);
		if (st != SUQL_OK) {
			*failed = 1;
			return NULL;
		}
	}
	exec_cand_bind_ids(w, w->fetch, c);
	char *v = NULL;
	*len = 0;
	int rc = sqlite3_step(w->fetch);
	if (rc == SQLITE_ROW) {
		v = exec_value_text(sqlite3_column_value(w->fetch, a), len);
	} else if (rc != SQLITE_DONE) {
		exec_sqlerr(ex, err, "fetching a candidate");
		*failed = 1;
	}
	sqlite3_reset(w->fetch);
	return v;
}

Expr *exec_cand_by_ids(Walk *w)
{
	Exec *ex = w->ex;
	Expr *where = NULL;
	for (int i = 0; i < w->nid; i++) {
		Expr *p = ast_expr_new(ex->a, EX_PARAM);
		char nm[16];
		snprintf(nm, sizeof nm, "?%d", i + 1);
		p->name.s = arena_strndup(ex->a, nm, strlen(nm));
		p->name.n = strlen(nm);
		where = exec_and(ex->a, where, ast_binary(ex->a, OP_IS, w->idx[i], p));
	}
	return where;
}

void exec_cand_bind_ids(Walk *w, sqlite3_stmt *st, long long c)
{
	sqlite3_reset(st);
	for (int i = 0; i < w->nid; i++) {
		sqlite3_int64 id = w->ids[c * w->nid + i];
		if (id == NULL_ID)
			sqlite3_bind_null(st, i + 1);
		else
			sqlite3_bind_int64(st, i + 1, id);
	}
}

char *exec_cand_plan_sql(Exec *ex, Block *b, Unit *u)
{
	Walk w = {0};
	w.ex = ex;
	w.b = b;
	w.u = u;
	exec_cand_ids(&w);
	for (int k = 0; k < u->natoms; k++)
		exec_cand_arg(&w, ex->occ[u->atoms[k]].arg);
	char *s = exec_cand_sql(&w, !b->identity || !ex->e->dialect->refetch, b->ordered);
	free(w.idx);
	free(w.args);
	return s;
}

/* ---- DISTINCT: the hash of a candidate's result row ---- */

uint64_t *exec_cand_key_slot(Walk *w, long long c)
{
	if (c >= w->nkey) {
		long long n = w->nkey ? w->nkey : 64;
		while (n <= c)
			n *= 2;
		w->key = xrealloc(w->key, (size_t)n * sizeof *w->key);
		memset(w->key + w->nkey, 0, (size_t)(n - w->nkey) * sizeof *w->key);
		w->nkey = n;
	}
	return &w->key[c];
}

uint64_t exec_cand_row_hash(const Row *r, int first)
{
	/* each value as its kind and its bytes. Values DISTINCT takes as one must hash as
	   one; values it keeps apart may too (then the walk only goes on longer): an integer
	   and a real as a real's text, a text folded as the NOCASE and RTRIM collations fold
	   it, whatever the column's collation */
	SBuf b = SBUF_INIT;
	for (int i = first; i < row_count(r); i++) {
		RowKind t = row_kind(r, i);
		size_t n;
		if (t == ROW_INTEGER || t == ROW_REAL) {
			sb_printf(&b, "n%.17g", row_real(r, i));
		} else if (t == ROW_NULL) {
			sb_puts(&b, "z");
		} else if (t == ROW_TEXT) {
			const char *v = row_text(r, i, &n);
			while (n > 0 && v[n - 1] == ' ')
				n--;
			sb_putc(&b, 't');
			for (size_t k = 0; k < n; k++)
				sb_putc(&b, v[k] >= 'A' && v[k] <= 'Z' ? (char)(v[k] + 32) : v[k]);
		} else {
			const char *v = row_text(r, i, &n);
			sb_printf(&b, "b%zu:", n);
			sb_putn(&b, v, n);
		}
		sb_putc(&b, 0);
	}
	uint64_t h = str_hash64(sb_str(&b), b.len);
	sb_free(&b);
	return h ? h : 1;
}
