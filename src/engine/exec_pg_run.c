/*
 * exec_pg_run.c: PostgreSQL's check, final run and record reading of a statement suql
 * plans (the backend's row, exec_pg.c; the pipeline is exec_statement.c's, the planner
 * and walk SQLite's, their statements printed for Postgres by exec_pg_plan.c, which says
 * how). What runs: verify atoms ANDed in WHERE, free text under OR or NOT, typed and
 * constrained answers in WHERE, answer() and summary() as result columns, free text in
 * ORDER BY, GROUP BY, HAVING, aggregates and inside expressions of the result columns, in
 * subqueries and CTEs that are not correlated, semantic joins that are rewritten
 * (exec_join.c lists their values and pairs on the store and asks the model; the final
 * statement looks the verdicts up), a semantic top-k (exec_topk.c lists its candidates on
 * the store and ranks them in memory); UPDATE and DELETE through exec_pg_dml.c.
 *
 * The check plans the statement as it will run with the server's EXPLAIN (its parameters
 * empty), so that a mistake is placed in the user's text before any count or call.
 *
 * CREATE TABLE ... AS runs as INSERT ... SELECT does, its final statement in two (Postgres
 * binds no parameters there): the table made WITH NO DATA from the query printed without
 * them, then filled by INSERT ... SELECT with the values bound (create_as).
 *
 * Projection last runs the final statement twice in the statement's snapshot: first for
 * the texts of the rows returned (evaluated in batches, as SQLite does from its temp
 * table), then with those values bound.
 */
#include "engine/bind_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "engine/record_int.h"
#include "engine/top_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Projection last, the first run: the statement with the projected occurrences' texts
   as more result columns; the distinct texts of each (in the order of the rows) are
   evaluated in batches. */
static SuqlStatus project_texts(Exec *ex, Block *b, SuqlErr *err)
{
	int *occ = NULL, nocc = 0;
	for (int i = 0; i < ex->nocc; i++)
		if (ex->occ[i].plan == PL_PROJECT && ex->occ[i].block == b->id) {
			occ = xrealloc(occ, ((size_t)nocc + 1) * sizeof *occ);
			occ[nocc++] = i;
		}
	if (!nocc)
		return SUQL_OK;
	ResultList *cols = NULL;
	for (int i = 0; i < b->core->cols->n; i++) {
		exec_col(ex->a, &cols, NULL, NULL);
		*cols->items[i] = *b->core->cols->items[i];
	}
	for (int k = 0; k < nocc; k++) {
		char al[32];
		snprintf(al, sizeof al, "suql_text%d", k);
		exec_col(ex->a, &cols, exec_pg_plan_text(ex, ex->occ[occ[k]].arg), al);
	}
	Printer *pr = exec_pg_plan_print_final(ex, exec_final_select(ex, b, cols));
	StoreCursor *c;
	SuqlStatus s = exec_pg_plan_query(ex, print_text(pr), &c, err);
	s = exec_pg_plan_place(ex, pr, s, err);
	print_free(pr);
	Memo **seen = xcalloc((size_t)nocc, sizeof *seen);
	char ***v = xcalloc((size_t)nocc, sizeof *v);
	size_t **len = xcalloc((size_t)nocc, sizeof *len);
	long *n = xcalloc((size_t)nocc, sizeof *n);
	for (int k = 0; k < nocc; k++)
		seen[k] = memo_new();
	int rc = 0;
	while (s == SUQL_OK && (rc = store_next(c)) > 0) {
		int nc = store_column_count(c);
		ex->cnt.project_rows++;
		for (int k = 0; k < nocc; k++) {
			const char *t = store_text(c, nc - nocc + k);
			size_t tl = t ? strlen(t) : 0;
			if (!t || memo_get(seen[k], 0, t, tl))
				continue;
			memo_put(seen[k], 0, t, tl);
			v[k] = xrealloc(v[k], ((size_t)n[k] + 1) * sizeof **v);
			len[k] = xrealloc(len[k], ((size_t)n[k] + 1) * sizeof **len);
			v[k][n[k]] = xstrndup(t, tl);
			len[k][n[k]++] = tl;
		}
	}
	if (s == SUQL_OK) {
		if (rc < 0)
			s = err_set(err, SUQL_ERROR, "reading the rows kept failed");
		store_done(c);
	}
	for (int k = 0; k < nocc; k++) {
		if (s == SUQL_OK) {
			/* the values are taken over (and freed) */
			s = exec_llm_run_values(ex, ex->occ[occ[k]].sig, v[k], len[k], n[k],
			                        &ex->cnt.project_values, err);
		} else {
			for (long i = 0; i < n[k]; i++)
				free(v[k][i]);
			free(v[k]);
			free(len[k]);
		}
		memo_free(seen[k]);
	}
	free(seen);
	free(v);
	free(len);
	free(n);
	free(occ);
	return s;
}

static int holds_free_text(const Exec *ex, Expr *e);

/* A name as Postgres knows it: its value when quoted, else folded to lower case. */
static char *pg_folded(Exec *ex, AstName n)
{
	char *v = ast_name_value(ex->a, n);
	if (n.n && n.s[0] != '"')
		for (char *p = v; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p + 32);
	return v;
}

/* CREATE TABLE ... AS: Postgres binds no parameters there, so the table is created from
   the query printed without them (WITH NO DATA: its columns' names and types, free text
   a NULL of its type), then filled by INSERT ... SELECT with the values bound, in the
   statement's transaction. IF NOT EXISTS over a table that exists does neither; nor does
   a reply that could not be read (all or nothing). */
static SuqlStatus create_as(Exec *ex, SuqlErr *err)
{
	const Stmt *st = ex->ast->stmt;
	/* the name as written (Postgres folds an unquoted name to lower case, keeps a quoted
	   one), and as Postgres knows it */
	SBuf name = SBUF_INIT;
	if (st->schema.s) {
		sb_putn(&name, st->schema.s, st->schema.n);
		sb_putc(&name, '.');
	}
	sb_putn(&name, st->table.s, st->table.n);
	char *plain = st->schema.s ? xprintf("%s.%s", pg_folded(ex, st->schema),
	                                     pg_folded(ex, st->table))
	                           : xstrdup(pg_folded(ex, st->table));
	int exists = st->if_not_exists && store_has_table(ex->e->store, plain);
	free(plain);
	if (exists) {
		sb_free(&name);
		return SUQL_OK;
	}
	/* all or nothing, as UPDATE and DELETE (exec_pg_dml.c): no table from replies that
	   could not be read, unless llm.unreadable is warn */
	if (ex->unread && llm_unreadable_fails(ex->e->llm)) {
		sb_free(&name);
		return err_set(err, SUQL_LLM, "%ld of the model's replies could not be read (see "
		               "the warning): the table was not created; :set llm.unreadable warn "
		               "to create it with those values unknown", ex->unread);
	}
	exec_pg_plan_nodata(ex, 1);
	Printer *pr = exec_pg_plan_print_final(ex, NULL);
	exec_pg_plan_nodata(ex, 0);
	char *sql = xprintf("%s WITH NO DATA", print_text(pr));
	SuqlStatus s = store_exec(ex->e->store, sql, err);
	s = exec_pg_plan_place(ex, pr, s, err);
	free(sql);
	print_free(pr);
	if (s == SUQL_OK) {
		pr = exec_pg_plan_print_final(ex, st->select);
		sql = xprintf("INSERT INTO %s %s", sb_str(&name), print_text(pr));
		int n;
		char **v = exec_pg_plan_params(ex, &n, err);
		s = v ? exec_pg_rows_run(ex, sql, (const char *const *)v, n, NULL, 0, err)
		      : SUQL_ERROR;
		exec_pg_plan_params_free(v, n);
		free(sql);
		print_free(pr);
	}
	sb_free(&name);
	return s;
}

/* The final statement, with every value bound; result columns that hold free text and
   have no name of their own are shown under the name SQLite gives them (their text). */
static SuqlStatus run_final(Exec *ex, SuqlErr *err)
{
	Block *top = NULL;
	for (int i = 0; i < ex->nblocks && !top; i++)
		if (ex->blocks[i].top && ex->blocks[i].core && ex->blocks[i].core->cols)
			top = &ex->blocks[i];
	SuqlStatus s = SUQL_OK;
	if (top && top->sel && top->sel->ncore == 1)
		s = project_texts(ex, top, err);
	PgName *pj = NULL;
	int npj = 0;
	AstName *saved = NULL;
	SelectCore *core = top ? top->core : NULL;
	if (core) {
		saved = xcalloc((size_t)core->cols->n + 1, sizeof *saved);
		for (int i = 0; i < core->cols->n; i++) {
			ResultCol *rc = core->cols->items[i];
			saved[i] = rc->alias;
			int has = 0;
			for (int k = 0; k < ex->nocc && !has; k++)
				has = ex->occ[k].block == top->id && ex->occ[k].pos == POS_SELECT &&
				      ex->occ[k].result_col == i;
			if (!has && op_slot_applies(ex, OP_AGG))   /* an aggregate over free text */
				has = holds_free_text(ex, rc->expr);
			if (!has || rc->alias.s || rc->expr->kind == EX_STAR)
				continue;
			pj = xrealloc(pj, ((size_t)npj + 1) * sizeof *pj);
			snprintf(pj[npj].hidden, sizeof pj[npj].hidden, "suql_col%d", npj);
			pj[npj].shown = xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off),
			                         rc->span.len);
			rc->alias = ast_name_make(ex->a, pj[npj].hidden);
			npj++;
		}
	}
	Printer *pr = exec_pg_plan_print_final(ex, NULL);
	if (core)
		for (int i = 0; i < core->cols->n; i++)
			core->cols->items[i]->alias = saved[i];
	free(saved);
	if (s == SUQL_OK && ex->ast->stmt->kind == ST_CREATE_TABLE) {
		s = create_as(ex, err);
	} else if (s == SUQL_OK) {
		int n;
		char **v = exec_pg_plan_params(ex, &n, err);
		s = v ? exec_pg_rows_run(ex, print_text(pr), (const char *const *)v, n, pj, npj, err)
		      : SUQL_ERROR;
		s = exec_pg_plan_place(ex, pr, s, err);
		exec_pg_plan_params_free(v, n);
	}
	print_free(pr);
	for (int k = 0; k < npj; k++)
		free(pj[k].shown);
	free(pj);
	return s;
}

/* The rows' keys: a key of integers, or a ctid "(b,o)" (several FROM items: theirs
   joined by ','), as the numbers the walk gives rows: the key, or
   b * 65536 + o. */
static int pg_ids(const char *key, sqlite3_int64 *ids, int nid)
{
	const char *p = key;
	for (int i = 0; i < nid; i++) {
		long long blk, off;
		int used = 0;
		while (*p == ',' || *p == ' ')
			p++;
		if (*p != '(') {   /* an integer primary key */
			char *end;
			long long v = strtoll(p, &end, 10);
			ids[i] = end == p ? NULL_ID : (sqlite3_int64)v;
			p = end;
			continue;
		}
		if (sscanf(p, "(%lld,%lld)%n", &blk, &off, &used) != 2 || used == 0) {
			ids[i] = NULL_ID;
			continue;
		}
		ids[i] = (sqlite3_int64)(blk * 65536 + off);
		p += used;
	}
	return nid;
}

/* A row of a table is known by its key of integers (an integer primary key is SQLite's
   rowid) else by its ctid numbered as the walk numbers it, block * 65536 + offset: the
   column FROM item i of b is known by (NULL: none, not a table). */
static const char *pg_key(const Block *b, int i)
{
	const ScopeItem *it = &b->items[i];
	if (it->kind != IT_TABLE)
		return NULL;
	return it->rowkey ? it->rowkey : "ctid";
}

/* The record's second reading of the rows returned (record_int.h): the final statement
   with each row's key and the texts its free text read as more columns, the same arrays
   bound. */
static void record_rows(Exec *ex)
{
	Block *b;
	int nv = 0;
	int *occs = exec_record_rows_begin(ex, &b, pg_key, &nv);
	if (!b)
		return;
	char *sql = NULL;
	if (b->sel && b->sel->ncore == 1) {
		ResultList *cols = NULL;
		for (int i = 0; i < b->core->cols->n; i++) {
			exec_col(ex->a, &cols, NULL, NULL);
			*cols->items[i] = *b->core->cols->items[i];
		}
		char al[32];
		for (int i = 0; i < b->nitems; i++) {
			snprintf(al, sizeof al, "suql_rid%d", i);
			exec_col(ex->a, &cols, ast_column(ex->a, b->items[i].name, pg_key(b, i)), al);
		}
		for (int j = 0; j < nv; j++) {
			snprintf(al, sizeof al, "suql_rarg%d", j + 1);
			exec_col(ex->a, &cols, exec_pg_plan_text(ex, ex->occ[occs[j]].arg), al);
		}
		Printer *pr = exec_pg_plan_print_final(ex, exec_final_select(ex, b, cols));
		sql = xstrdup(print_text(pr));
		print_free(pr);
	}
	int n;
	char **v = exec_pg_plan_params(ex, &n, NULL);
	StoreCursor *c = NULL;
	if (v && sql && ex->rec &&
	    store_query(ex->e->store, sql, (const char *const *)v, n, &c, NULL) != SUQL_OK)
		c = NULL;   /* not traced */
	exec_record_rows(ex, occs, c, pg_ids);
	exec_pg_plan_params_free(v, n);
	free(sql);
}

/* ---- the statement ---- */

/* A statement that writes (what: "UPDATE", ...) in a read-only transaction (--readonly,
   or the user's own) is refused before any call, in the server's words; SUQL_OK when
   the transaction may write (EXPLAIN does not tell). */
static SuqlStatus writable(Exec *ex, const char *what, SuqlErr *err)
{
	int ro = ex->e->readonly;
	StoreCursor *c;
	if (!ro && store_query(ex->e->store, "SELECT current_setting('transaction_read_only')",
	                       NULL, 0, &c, NULL) == SUQL_OK) {
		ro = store_next(c) > 0 && store_text(c, 0) && strcmp(store_text(c, 0), "on") == 0;
		store_done(c);
	}
	if (ro)
		return err_set(err, SUQL_ERROR, "cannot execute %s in a read-only transaction", what);
	return SUQL_OK;
}

/* The statement as it will run, planned by the server (EXPLAIN runs nothing, the
   parameters empty): a mistake in it is reported at its place in the user's text before
   any count or call, as SQLite's check does. */
static SuqlStatus validate(Exec *ex, const Select *sel, SuqlErr *err)
{
	Printer *pr = exec_pg_plan_print_final(ex, sel);
	char *sql = xprintf("EXPLAIN %s", print_text(pr));
	int n = exec_pg_plan_nparams(ex);
	const char **v = xcalloc((size_t)n + 1, sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = "{}";
	StoreCursor *c;
	SuqlStatus s = store_query(ex->e->store, sql, v, n, &c, err);
	if (s == SUQL_OK)
		store_done(c);
	free(v);
	free(sql);
	/* the server's offset counts "EXPLAIN " too */
	s = exec_pg_plan_place_shifted(ex, pr, s, 8, err);
	print_free(pr);
	return s;
}

/* ---- where NULL sorts ----
   SQLite sorts NULL first under ASC and last under DESC, Postgres the other way round. A
   free-text value is NULL when the model gave no answer that could be read; so that such
   rows come in the same place on both backends, an ORDER BY term of the user's that holds
   free text (or names a result column that does) and says nothing of NULLs gets SQLite's
   rule written out (NULLS FIRST under ASC, NULLS LAST under DESC) in what is sent to
   Postgres. Terms over the user's own columns keep Postgres's rule. */

typedef struct NullsScan {
	const Exec *ex;
	int found;
} NullsScan;

static int find_occ(void *ctx, Expr *e)
{
	NullsScan *ns = ctx;
	if (exec_pg_plan_is_agg(ns->ex, e)) {
		ns->found = 1;
		return AST_STOP;
	}
	for (int i = 0; i < ns->ex->nocc; i++)
		if (ns->ex->occ[i].call == e) {
			ns->found = 1;
			return AST_STOP;
		}
	return AST_CONTINUE;
}

static int holds_free_text(const Exec *ex, Expr *e)
{
	NullsScan ns = {ex, 0};
	AstVisitor v = {0};
	v.ctx = &ns;
	v.expr = find_occ;
	if (e)
		ast_visit_expr(e, &v);
	return ns.found;
}

/* The result column of s's first core that the term names by its alias or its number,
   or NULL. */
static Expr *aliased(const Select *s, const Expr *e)
{
	if (!e || !s->ncore || !s->cores[0]->cols)
		return NULL;
	const ResultList *cols = s->cores[0]->cols;
	if (e->kind == EX_LITERAL && e->lit == LIT_INTEGER) {
		long k = strtol(e->name.s, NULL, 10);
		return k >= 1 && k <= cols->n ? cols->items[k - 1]->expr : NULL;
	}
	if (e->kind != EX_COLUMN || e->table.n)
		return NULL;
	for (int i = 0; i < cols->n; i++) {
		AstName a = cols->items[i]->alias;
		if (a.n && ast_name_eq(a, e->name))
			return cols->items[i]->expr;
	}
	return NULL;
}

static int pin_select(void *ctx, Select *s)
{
	const Exec *ex = ctx;
	for (int i = 0; s->order && i < s->order->n; i++) {
		OrderTerm *t = s->order->items[i];
		if (t->nulls == NULLS_NONE &&
		    (holds_free_text(ex, t->expr) || holds_free_text(ex, aliased(s, t->expr))))
			t->nulls = t->dir == SORT_DESC ? NULLS_LAST : NULLS_FIRST;
	}
	return AST_CONTINUE;
}

static void pin_nulls(Exec *ex)
{
	AstVisitor v = {0};
	v.ctx = ex;
	v.select = pin_select;
	ast_visit_stmt(ex->ast->stmt, &v);
}

SuqlStatus exec_pg_run_check(Exec *ex, int explain, SuqlErr *err)
{
	const Stmt *st = ex->ast->stmt;
	SuqlStatus s = SUQL_OK;
	/* a write in a read-only transaction is refused before any call (an EXPLAIN writes
	   nothing) */
	if (!explain && (st->kind == ST_UPDATE || st->kind == ST_DELETE))
		s = writable(ex, st->kind == ST_UPDATE ? "UPDATE" : "DELETE", err);
	else if (!explain && st->kind == ST_CREATE_TABLE)
		s = writable(ex, "CREATE TABLE AS", err);
	memo_keep_texts(ex->memo);   /* the final statement looks the texts up */
	pin_nulls(ex);
	/* CREATE TABLE ... AS takes no parameters: its query is planned alone */
	return s == SUQL_OK ? validate(ex, st->kind == ST_CREATE_TABLE ? st->select : NULL, err) : s;
}

SuqlStatus exec_pg_run_check_view(Exec *ex, SuqlErr *err)
{
	return validate(ex, ex->ast->stmt->select, err);
}

SuqlStatus exec_pg_run_final(Exec *ex, SuqlErr *err)
{
	const Stmt *st = ex->ast->stmt;
	if (st->kind == ST_UPDATE || st->kind == ST_DELETE)
		return exec_pg_dml_final(ex, err);
	return run_final(ex, err);
}

void exec_pg_run_record(Exec *ex)
{
	const Stmt *st = ex->ast->stmt;
	if (st->kind != ST_UPDATE && st->kind != ST_DELETE)
		record_rows(ex);
}
