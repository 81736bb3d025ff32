/*
 * exec_pg.c: statements on a PostgreSQL database (store_pg.c). SUQL's syntax is
 * Postgres's, so the structured parts go to the server as the user wrote them (printed
 * PRINT_PG: arrays, `::` casts, `@>`, `&&`, ILIKE and JSON pass through); only the
 * free-text judgments happen here. doc/postgres.md describes the design; in short:
 *
 *  - a statement without free text runs as it is;
 *  - a SELECT whose free text is verify atoms standing as conjuncts of its WHERE
 *    (answer(reviews, 'q') = 'Yes' AND rating > 4) runs in three steps, inside one
 *    REPEATABLE READ READ ONLY transaction so that row identities hold between them:
 *      1. candidates: SELECT the rows' ctid and the atoms' texts FROM ... WHERE <the
 *         structured conjuncts> [ORDER BY ...], in Postgres;
 *      2. judgments: the atoms asked of the model in waves, with the SQLite walk's wave
 *         sizing, batching, memo and cache (exec_llm_run), stopping once a LIMIT has its
 *         rows;
 *      3. the final statement: the user's, with the atoms replaced by
 *         t.ctid = ANY($1::tid[]), $1 bound to the array of verified rows (a parameter,
 *         never text in the SQL).
 *    Everything else a free-text statement may hold (answer() in result columns, ORDER BY,
 *    subqueries, OR over atoms, ENUM classification, data changes) is refused with a clear
 *    error naming what is not supported on PostgreSQL yet.
 *
 * Rows reach the sink the way the renderer reads them today, as an sqlite3_stmt: the
 * Postgres rows are copied into a table of an in-memory SQLite database that belongs to
 * the engine (e->db) and read back in order, each value with its kind (integer, real,
 * text, NULL). doc/architecture.md names the backend-neutral row that would replace this.
 */
#include "engine/bind_int.h"
#include "engine/enum_int.h"
#include "engine/exec_int.h"
#include "sql/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chat statements (read-only mode) may run this long in Postgres. */
#define PG_READONLY_TIMEOUT_MS 30000

/* ---- rows to the sink ---- */

/* answer() or summary() standing as a result column (projection last): Postgres returns
   its argument's text in a column named hidden; suql puts the result there, shown under
   the name SQLite would give the column. */
typedef struct PgProj {
	int occ;
	char hidden[24];      /* suql_proj0, ... */
	char *shown;
} PgProj;

/* The projected columns' texts, evaluated in batches (as SQLite's projection last: the
   distinct values of the rows kept), then written over them in the scratch table. */
static SuqlStatus pg_project(Exec *ex, const PgProj *pj, int npj, const int *pcol,
                             SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int k = 0; k < npj && s == SUQL_OK; k++) {
		if (pcol[k] < 0)
			continue;
		const Occ *o = &ex->occ[pj[k].occ];
		char q[160];
		snprintf(q, sizeof q, "SELECT DISTINCT c%d FROM temp.suql_pg_rows", pcol[k]);
		sqlite3_stmt *vs, *rd = NULL, *up = NULL;
		s = exec_prepare(ex, q, &vs, err);
		if (s == SUQL_OK)
			s = exec_llm_run_column(ex, o->sig, vs, "reading the rows kept",
			                        &ex->cnt.project_values, err);
		snprintf(q, sizeof q, "SELECT rowid, c%d FROM temp.suql_pg_rows", pcol[k]);
		if (s == SUQL_OK)
			s = exec_prepare(ex, q, &rd, err);
		snprintf(q, sizeof q, "UPDATE temp.suql_pg_rows SET c%d = ?1 WHERE rowid = ?2", pcol[k]);
		if (s == SUQL_OK)
			s = exec_prepare(ex, q, &up, err);
		while (s == SUQL_OK && sqlite3_step(rd) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(rd, 1);
			MemoVal *mv = v ? memo_get(ex->memo, o->sig, v, strlen(v)) : NULL;
			if (mv && !mv->value && mv->warning)
				exec_warn(ex, mv->warning);
			if (mv && mv->value)
				sqlite3_bind_text(up, 1, mv->value, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(up, 1);
			sqlite3_bind_int64(up, 2, sqlite3_column_int64(rd, 0));
			if (sqlite3_step(up) != SQLITE_DONE)
				s = exec_sqlerr(ex, err, NULL);
			sqlite3_reset(up);
		}
		sqlite3_finalize(rd);
		sqlite3_finalize(up);
	}
	return s;
}

/* Copy the cursor's rows into the engine's scratch table (projected columns computed
   there), then stream them to the sink. */
static SuqlStatus pg_to_sink(Exec *ex, StoreCursor *c, const PgProj *pj, int npj,
                             SuqlErr *err)
{
	Engine *e = ex->e;
	const EngineSink *sink = ex->sink;
	int nc = store_column_count(c);
	if (nc <= 0) {
		while (store_next(c) > 0)
			;
		return SUQL_OK;
	}
	SBuf ddl = SBUF_INIT, ins = SBUF_INIT, sel = SBUF_INIT;
	sb_puts(&ddl, "DROP TABLE IF EXISTS temp.suql_pg_rows; CREATE TEMP TABLE suql_pg_rows(");
	sb_puts(&ins, "INSERT INTO temp.suql_pg_rows VALUES (");
	sb_puts(&sel, "SELECT ");
	int *pcol = xmalloc(((size_t)npj + 1) * sizeof *pcol);
	for (int k = 0; k < npj; k++)
		pcol[k] = -1;
	for (int i = 0; i < nc; i++) {
		sb_printf(&ddl, "%sc%d", i ? ", " : "", i);
		sb_printf(&ins, "%s?", i ? ", " : "");
		const char *name = store_column_name(c, i);
		for (int k = 0; k < npj; k++)
			if (strcmp(name, pj[k].hidden) == 0) {
				pcol[k] = i;
				name = pj[k].shown;
			}
		char *q = sqlite3_mprintf("%sc%d AS \"%w\"", i ? ", " : "", i, name);
		sb_puts(&sel, q);
		sqlite3_free(q);
	}
	sb_puts(&ddl, ")");
	sb_puts(&ins, ")");
	sb_puts(&sel, " FROM temp.suql_pg_rows ORDER BY rowid");
	SuqlStatus s = exec_run_sql(e->db, sb_str(&ddl), err);
	sqlite3_stmt *st = NULL;
	if (s == SUQL_OK)
		s = exec_prepare(ex, sb_str(&ins), &st, err);
	int rc;
	while (s == SUQL_OK && (rc = store_next(c)) > 0) {
		for (int i = 0; i < nc; i++) {
			const char *v = store_text(c, i);
			switch (store_column_kind(c, i)) {
			case STORE_NULL:
				sqlite3_bind_null(st, i + 1);
				break;
			case STORE_INTEGER:
				sqlite3_bind_int64(st, i + 1, strtoll(v, NULL, 10));
				break;
			case STORE_REAL:
				sqlite3_bind_double(st, i + 1, strtod(v, NULL));
				break;
			default:
				sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT);
			}
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			s = exec_sqlerr(ex, err, NULL);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (s == SUQL_OK && npj) {
		sqlite3_stmt *cnt;
		if (exec_prepare(ex, "SELECT count(*) FROM temp.suql_pg_rows", &cnt, NULL) == SUQL_OK) {
			if (sqlite3_step(cnt) == SQLITE_ROW)
				ex->cnt.project_rows = sqlite3_column_int64(cnt, 0);
			sqlite3_finalize(cnt);
		}
		s = pg_project(ex, pj, npj, pcol, err);
	}
	free(pcol);
	if (s == SUQL_OK)
		s = exec_prepare(ex, sb_str(&sel), &st, err);
	if (s == SUQL_OK) {
		if (sink && sink->columns)
			sink->columns(sink->ctx, st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			ex->cnt.rows_out++;
			if (sink && sink->row && sink->row(sink->ctx, st))
				break;
		}
	}
	sqlite3_finalize(st);
	sqlite3_exec(e->db, "DROP TABLE IF EXISTS temp.suql_pg_rows", NULL, NULL, NULL);
	sb_free(&ddl);
	sb_free(&ins);
	sb_free(&sel);
	return s;
}

/* Run sql (parameters: text, $1...) in Postgres and show its rows. */
static SuqlStatus pg_rows(Exec *ex, const char *sql, const char *const *params, int nparams,
                          const PgProj *pj, int npj, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(ex->e->store, sql, params, nparams, &c, err);
	if (s != SUQL_OK)
		return s;
	s = pg_to_sink(ex, c, pj, npj, err);
	store_done(c);
	return s;
}

/* ---- transactions ---- */

/* The statement's transaction: read only in read-only mode (with a time limit), and
   REPEATABLE READ for the three steps of a free-text query (ctid must hold between them). */
static SuqlStatus pg_begin(Exec *ex, int snapshot, SuqlErr *err)
{
	char sql[160];
	if (!ex->e->readonly && !snapshot)
		return SUQL_OK;
	snprintf(sql, sizeof sql, "BEGIN ISOLATION LEVEL %s%s",
	         snapshot ? "REPEATABLE READ" : "READ COMMITTED",
	         ex->e->readonly ? " READ ONLY" : "");
	SuqlStatus s = store_exec(ex->e->store, sql, err);
	if (s == SUQL_OK && ex->e->readonly) {
		snprintf(sql, sizeof sql, "SET LOCAL statement_timeout = %d", PG_READONLY_TIMEOUT_MS);
		s = store_exec(ex->e->store, sql, err);
	}
	return s;
}

static SuqlStatus pg_end(Exec *ex, int snapshot, SuqlStatus s, SuqlErr *err)
{
	if (!ex->e->readonly && !snapshot)
		return s;
	/* nothing a read-only or snapshot statement did is kept but its reads: roll back when
	   it failed (so the connection is usable), commit otherwise */
	if (s != SUQL_OK) {
		store_exec(ex->e->store, "ROLLBACK", NULL);
		return s;
	}
	return store_exec(ex->e->store, "COMMIT", err);
}

/* ---- the free-text SELECT ---- */

typedef struct PgWalk {
	Exec *ex;
	Block *b;
	Expr ***conj;         /* the WHERE's conjuncts (their slots) */
	int nconj;
	int *atoms;           /* occurrence ids of the atoms, in the WHERE's order */
	int natoms;
	long long n;
	char **keys;          /* per candidate: the row identity (ctid text, or several) */
	char **vals;          /* n * natoms: the atoms' texts (NULL: SQL NULL) */
	signed char *atomv;   /* n * natoms: Verdict */
	signed char *state;   /* CAND_* */
	unsigned char *busy;
	long long need;       /* rows needed (LIMIT + OFFSET), -1: all */
	int ordered;
	long long front, front_pass, passes, ndecided;
	int final;            /* printing the final statement (else the candidates) */
	Expr *keyx;           /* the candidate statement's placeholders */
	Expr **argx;
	Expr *rankx, *matchx;
	Expr *lenx;           /* avg_len's placeholder: the length of atom lenk's text */
	int lenk;
	int ranked;           /* candidates by relevance (ts_rank_cd), most relevant first */
	int doc_fn;           /* suql.doc() exists (:index made it): ranking reads the GIN
	                         index's expression */
	long long matches;    /* candidates the ranking's query matched */
	PgProj *proj;         /* answer() and summary() as result columns */
	int nproj;
} PgWalk;

static void conj_flatten(PgWalk *w, Expr **slot)
{
	Expr *e = *slot;
	if (e->kind == EX_BINARY && e->op == OP_AND) {
		conj_flatten(w, &e->left);
		conj_flatten(w, &e->right);
		return;
	}
	w->conj = xrealloc(w->conj, ((size_t)w->nconj + 1) * sizeof *w->conj);
	w->conj[w->nconj++] = slot;
}

static int atom_at(const PgWalk *w, const Expr *e)
{
	for (int k = 0; k < w->natoms; k++)
		if (*w->ex->occ[w->atoms[k]].slot == e)
			return k;
	return -1;
}

/* The identity of a row of every FROM item: its ctid (several items: their ctids as text,
   joined by ','). */
static void pr_key(PgWalk *w, Printer *pr)
{
	Block *b = w->b;
	for (int i = 0; i < b->nitems; i++) {
		if (i)
			print_raw(pr, " || ',' || ");
		print_raw(pr, "\"");
		print_raw(pr, b->items[i].name);
		print_raw(pr, b->nitems > 1 ? "\".ctid::text" : "\".ctid");
	}
}

/* A free-text argument's text: a list (text[]) as a JSON array, as SQLite keeps it, so
   that the model sees the same passages from both backends; anything else as text. */
static void pr_arg_text(Printer *pr, const Expr *arg)
{
	print_raw(pr, "CASE WHEN json_typeof(to_json(");
	print_expr(pr, arg);
	print_raw(pr, ")) = 'array' THEN to_json(");
	print_expr(pr, arg);
	print_raw(pr, ")::text ELSE (");
	print_expr(pr, arg);
	print_raw(pr, ")::text END");
}

static void pr_text(PgWalk *w, Printer *pr, int k)
{
	pr_arg_text(pr, w->ex->occ[w->atoms[k]].arg);
}

/* Ranking: the first atom's text against its question's words (any of them), as Postgres
   full-text search has it: ts_rank_cd (rank) or @@ (match). The text is suql.doc(arg),
   the expression the GIN index of :index holds, when that function exists; else the
   JSON of the value (its strings, for a text[] as for a text). */
static void pr_rank(PgWalk *w, Printer *pr, int rank)
{
	const Occ *o = &w->ex->occ[w->atoms[0]];
	print_raw(pr, rank ? "ts_rank_cd(" : "(");
	print_raw(pr, w->doc_fn ? "to_tsvector('english'::regconfig, suql.doc(" :
	                          "to_tsvector('english'::regconfig, to_json(");
	print_expr(pr, o->arg);
	print_raw(pr, rank ? ")), " : ")) @@ ");
	print_raw(pr, "replace(websearch_to_tsquery('english'::regconfig, ");
	Expr *q = ast_string(w->ex->a, w->ex->sigs[o->sig].question);
	print_expr(pr, q);
	print_raw(pr, ")::text, ' & ', ' | ')::tsquery)");
}

/* Printing hook: the WHERE without its atoms (candidates), or with them replaced by the
   verified rows (final). */
static int pg_hook(void *ctx, Printer *pr, const Expr *e)
{
	PgWalk *w = ctx;
	if (e == w->keyx) {
		pr_key(w, pr);
		return 1;
	}
	if (e == w->lenx) {
		print_raw(pr, "length(");
		pr_text(w, pr, w->lenk);
		print_raw(pr, ")");
		return 1;
	}
	if (e == w->rankx || e == w->matchx) {
		pr_rank(w, pr, e == w->rankx);
		return 1;
	}
	for (int k = 0; k < w->natoms && w->argx; k++) {
		if (e != w->argx[k])
			continue;
		pr_text(w, pr, k);
		return 1;
	}
	for (int k = 0; k < w->nproj && w->final; k++)
		if (e == *w->ex->occ[w->proj[k].occ].slot) {
			pr_arg_text(pr, w->ex->occ[w->proj[k].occ].arg);
			return 1;
		}
	if (!w->b->core || e != w->b->core->where || w->natoms == 0)
		return 0;
	int first = 1;
	for (int i = 0; i < w->nconj; i++) {
		if (atom_at(w, *w->conj[i]) >= 0)
			continue;
		print_raw(pr, first ? "(" : " AND (");
		print_expr(pr, *w->conj[i]);
		print_raw(pr, ")");
		first = 0;
	}
	if (w->final) {
		print_raw(pr, first ? "" : " AND ");
		pr_key(w, pr);
		print_raw(pr, w->b->nitems > 1 ? " = ANY($1::text[])" : " = ANY($1::tid[])");
		first = 0;
	}
	if (first)
		print_raw(pr, "TRUE");
	return 1;
}

static char *print_pg(PgWalk *w, void (*fn)(Printer *, PgWalk *))
{
	PrintHooks hk = {w, pg_hook, NULL};
	Printer *pr = print_new(PRINT_PG, &hk, w->ex->ast->src, w->ex->ast->src_off);
	fn(pr, w);
	char *t = print_steal(pr);
	print_free(pr);
	return t;
}

static void pr_final(Printer *pr, PgWalk *w)
{
	print_stmt(pr, w->ex->ast->stmt);
}

/* The candidate statement: SELECT key, texts FROM ... WHERE <structured> [ORDER BY ...],
   its result columns placeholders that pg_hook prints. */
static void pr_cand(Printer *pr, PgWalk *w)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	w->keyx = ast_null(ex->a);
	exec_col(ex->a, &cols, w->keyx, NULL);
	w->argx = xcalloc((size_t)w->natoms + 1, sizeof *w->argx);
	for (int k = 0; k < w->natoms; k++) {
		w->argx[k] = ast_null(ex->a);
		exec_col(ex->a, &cols, w->argx[k], NULL);
	}
	/* ties of the ORDER BY in the order of the rows in the table (ctid), as SQLite's
	   candidates come in rowid order: both backends ask about the same candidates */
	if (w->ranked) {
		w->matchx = ast_null(ex->a);
		exec_col(ex->a, &cols, w->matchx, NULL);
	}
	Select *sel = ex->ast->stmt->select;
	OrderList *ord = NULL;
	if (w->ranked) {
		ord = arena_alloc(ex->a, sizeof *ord);
		ord->cap = 1 + w->b->nitems;
		ord->items = arena_alloc(ex->a, (size_t)ord->cap * sizeof *ord->items);
		OrderTerm *t = arena_alloc(ex->a, sizeof *t);
		w->rankx = ast_null(ex->a);
		t->expr = w->rankx;
		t->dir = SORT_DESC;
		ord->items[ord->n++] = t;
		for (int i = 0; i < w->b->nitems; i++) {
			t = arena_alloc(ex->a, sizeof *t);
			t->expr = ast_column(ex->a, w->b->items[i].name, "ctid");
			ord->items[ord->n++] = t;
		}
	} else if (w->ordered) {
		ord = arena_alloc(ex->a, sizeof *ord);
		ord->cap = sel->order->n + w->b->nitems;
		ord->items = arena_alloc(ex->a, (size_t)ord->cap * sizeof *ord->items);
		for (int i = 0; i < sel->order->n; i++)
			ord->items[ord->n++] = sel->order->items[i];
		for (int i = 0; i < w->b->nitems; i++) {
			OrderTerm *t = arena_alloc(ex->a, sizeof *t);
			t->expr = ast_column(ex->a, w->b->items[i].name, "ctid");
			ord->items[ord->n++] = t;
		}
	}
	print_select(pr, exec_select(ex, w->b, cols, w->b->core->where, ord));
}

/* ---- which statements run here ---- */

/* Occurrence i, in the result columns, is a plain answer() or summary() that is a whole
   result column of a block without aggregates: projection last. NULL, or why not. */
static const char *pg_projection(PgWalk *w, int i)
{
	Exec *ex = w->ex;
	const Occ *o = &ex->occ[i];
	SelectCore *c = w->b->core;
	if (w->b->aggregate || o->in_agg)
		return "answer() or summary() in the result columns of a query with aggregates, "
		       "GROUP BY or DISTINCT";
	int col = -1;
	for (int k = 0; c->cols && k < c->cols->n && col < 0; k++)
		if (o->slot == &c->cols->items[k]->expr)
			col = k;
	Expr *e = *o->slot;
	if (col < 0 || (e->kind != EX_ANSWER && e->kind != EX_SUMMARY) || o->kind == FT_VERIFY)
		return "answer() or summary() inside an expression of the result columns (only a "
		       "whole column is)";
	ResultCol *rc = c->cols->items[col];
	PgProj *p;
	w->proj = xrealloc(w->proj, ((size_t)w->nproj + 1) * sizeof *w->proj);
	p = &w->proj[w->nproj];
	p->occ = i;
	snprintf(p->hidden, sizeof p->hidden, "suql_proj%d", w->nproj);
	p->shown = rc->alias.s ? xstrdup(ast_name_value(ex->a, rc->alias))
	                       : xstrndup(ex->ast->src + (rc->span.off - ex->ast->src_off),
	                                  rc->span.len);
	w->nproj++;
	return NULL;
}

/* Whether the statement is a SELECT this file runs: one block, and every occurrence a
   verify atom with a literal question standing as a conjunct of the block's WHERE. NULL,
   or what is not supported (for the error). */
static const char *pg_shape(PgWalk *w)
{
	Exec *ex = w->ex;
	const Stmt *st = ex->ast->stmt;
	if (st->kind != ST_SELECT || st->explain)
		return "free text in a statement other than SELECT";
	if (ex->nblocks != 1 || st->select->ncore != 1)
		return "free text in a query with subqueries, CTEs or compound SELECTs";
	Block *b = &ex->blocks[0];
	w->b = b;
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->sig < 0)
			return "a question that is not a literal";
		if (o->pos == POS_SELECT) {
			const char *why = pg_projection(w, i);
			if (why)
				return why;
			continue;
		}
		if (o->kind != FT_VERIFY || o->pos != POS_WHERE)
			return "free text outside WHERE and the result columns";
	}
	for (int i = 0; i < b->nitems; i++)
		if (b->items[i].kind != IT_TABLE)
			return "free text over a FROM item that is not a table";
	if (b->core->where)
		conj_flatten(w, &b->core->where);
	for (int i = 0; i < ex->nocc; i++) {
		const Occ *o = &ex->occ[i];
		if (o->pos == POS_SELECT)
			continue;
		int at = -1;
		for (int k = 0; k < w->nconj && at < 0; k++)
			if (w->conj[k] == o->slot)
				at = k;
		if (at < 0)
			return "a free-text condition under OR or NOT (only ANDed conditions are)";
		w->atoms = xrealloc(w->atoms, ((size_t)w->natoms + 1) * sizeof *w->atoms);
		w->atoms[w->natoms++] = i;
	}
	return NULL;
}

/* LIMIT + OFFSET when the walk may stop early: literal integers, no aggregate. */
static long long pg_need(PgWalk *w)
{
	const Select *sel = w->ex->ast->stmt->select;
	if (!sel->limit || w->b->aggregate)
		return -1;
	if (sel->limit->kind != EX_LITERAL || sel->limit->lit != LIT_INTEGER)
		return -1;
	long long n = strtoll(ast_name_value(w->ex->a, sel->limit->name), NULL, 10);
	if (sel->offset) {
		if (sel->offset->kind != EX_LITERAL || sel->offset->lit != LIT_INTEGER)
			return -1;
		n += strtoll(ast_name_value(w->ex->a, sel->offset->name), NULL, 10);
	}
	return n;
}

/* ---- the walk ---- */

static Tri pg_eval(PgWalk *w, long long c, int *next)
{
	int unknown = 0;
	*next = -1;
	for (int k = 0; k < w->natoms; k++) {
		signed char v = w->atomv[c * w->natoms + k];
		if (v == VERDICT_NO)
			return TRI_FALSE;
		if (v == VERDICT_NULL)
			unknown = 1;
		if (v == VERDICT_UNASKED && *next < 0)
			*next = k;
	}
	if (*next >= 0)
		return TRI_UNDECIDED;
	return unknown ? TRI_NULL : TRI_TRUE;
}

static void pg_decide(PgWalk *w, long long c)
{
	int next;
	if (w->state[c] != CAND_UNDECIDED)
		return;
	Tri v = pg_eval(w, c, &next);
	if (v == TRI_UNDECIDED)
		return;
	w->state[c] = v == TRI_TRUE ? CAND_PASSED : v == TRI_NULL ? CAND_NULL : CAND_FAILED;
	w->ndecided++;
	w->passes += v == TRI_TRUE;
}

static long long pg_have(const PgWalk *w)
{
	return w->ordered ? w->front_pass : w->passes;
}

static int pg_enough(PgWalk *w)
{
	while (w->front < w->n && w->state[w->front] != CAND_UNDECIDED)
		w->front_pass += w->state[w->front++] == CAND_PASSED;
	return w->need >= 0 && pg_have(w) >= w->need;
}

static int pg_done(void *ctx, Req *r, const MemoVal *mv)
{
	PgWalk *w = ctx;
	w->atomv[(long long)r->tag * w->natoms + r->tag2] = (signed char)mv->verdict;
	w->busy[r->tag] = 0;
	pg_decide(w, r->tag);
	return pg_enough(w);
}

/* The waves: the same sizing as the SQLite walk (exec_walk_wave_size), candidates in the
   order Postgres returned them. */
static SuqlStatus pg_waves(PgWalk *w, double prior, SuqlErr *err)
{
	Exec *ex = w->ex;
	long long maxwave = plan_max_wave(ex);
	long long seen_dec = 0, seen_pass = 0;
	SuqlStatus st = SUQL_OK;
	for (;;) {
		if (suql_interrupted)
			return err_set(err, SUQL_INTERRUPT, "interrupted");
		if (pg_enough(w) || w->front >= w->n)
			break;
		long long want = exec_walk_wave_size(w->need < 0 ? -1 : w->need - pg_have(w),
		                                     seen_pass, seen_dec, prior, maxwave);
		Req *reqs = xcalloc((size_t)want, sizeof *reqs);
		int nreq = 0;
		long long progress = 0;
		for (long long c = w->front; c < w->n && nreq < want; c++) {
			if (w->state[c] != CAND_UNDECIDED || w->busy[c])
				continue;
			for (;;) {
				int k;
				if (pg_eval(w, c, &k) != TRI_UNDECIDED) {
					pg_decide(w, c);
					progress++;
					break;
				}
				const Occ *o = &ex->occ[w->atoms[k]];
				const char *val = w->vals[c * w->natoms + k];
				if (!val) {
					w->atomv[c * w->natoms + k] = VERDICT_NULL;   /* NULL text: unknown */
					continue;
				}
				MemoVal *mv = memo_get(ex->memo, o->sig, val, strlen(val));
				if (mv) {
					w->atomv[c * w->natoms + k] = (signed char)mv->verdict;
					continue;
				}
				Req *r = &reqs[nreq++];
				r->sig = o->sig;
				r->v = val;
				r->n = strlen(val);
				r->tag = (int)c;
				r->tag2 = k;
				w->busy[c] = 1;
				break;
			}
		}
		long long pass0 = w->passes, dec0 = w->ndecided;
		if (nreq > 0) {
			st = exec_llm_run(ex, reqs, nreq, pg_done, w, err);
			for (int i = 0; i < nreq; i++)
				if (reqs[i].state == REQ_CANCELLED)
					w->busy[reqs[i].tag] = 0;
		}
		seen_dec += w->ndecided - dec0;
		seen_pass += w->passes - pass0;
		free(reqs);
		if (st != SUQL_OK || (nreq == 0 && progress == 0))
			break;
	}
	return st;
}

static SuqlStatus pg_load(PgWalk *w, const char *sql, SuqlErr *err)
{
	StoreCursor *c;
	SuqlStatus s = store_query(w->ex->e->store, sql, NULL, 0, &c, err);
	if (s != SUQL_OK)
		return s;
	long long cap = 0;
	while (store_next(c) > 0) {
		if (w->n == cap) {
			cap = cap ? cap * 2 : 64;
			w->keys = xrealloc(w->keys, (size_t)cap * sizeof *w->keys);
			w->vals = xrealloc(w->vals, (size_t)cap * (size_t)w->natoms * sizeof *w->vals);
		}
		const char *k = store_text(c, 0);
		w->keys[w->n] = xstrdup(k ? k : "");
		for (int i = 0; i < w->natoms; i++)
			w->vals[w->n * w->natoms + i] = xstrdup_or_null(store_text(c, 1 + i));
		if (w->ranked)
			w->matches += store_integer(c, 1 + w->natoms);
		w->n++;
	}
	store_done(c);
	size_t n1 = (size_t)w->n + 1;
	w->atomv = xmalloc(n1 * ((size_t)w->natoms + 1));
	memset(w->atomv, VERDICT_UNASKED, n1 * ((size_t)w->natoms + 1));
	w->state = xmalloc(n1);
	memset(w->state, CAND_UNDECIDED, n1);
	w->busy = xcalloc(n1, 1);
	return SUQL_OK;
}

static void pg_walk_free(PgWalk *w)
{
	for (long long i = 0; i < w->n; i++) {
		free(w->keys[i]);
		for (int k = 0; k < w->natoms; k++)
			free(w->vals[i * w->natoms + k]);
	}
	free(w->keys);
	free(w->vals);
	free(w->atomv);
	free(w->state);
	free(w->busy);
	free(w->conj);
	free(w->atoms);
	free(w->argx);
	for (int k = 0; k < w->nproj; k++)
		free(w->proj[k].shown);
	free(w->proj);
}

/* The verified rows as a Postgres array literal, the value of $1: {"(0,1)","(3,7)"}. */
static char *pg_array(PgWalk *w, long long *count)
{
	SBuf b = SBUF_INIT;
	sb_putc(&b, '{');
	*count = 0;
	for (long long c = 0; c < w->n; c++) {
		if (w->state[c] != CAND_PASSED)
			continue;
		if ((*count)++)
			sb_putc(&b, ',');
		sb_putc(&b, '"');
		for (const char *p = w->keys[c]; *p; p++) {
			if (*p == '"' || *p == '\\')
				sb_putc(&b, '\\');
			sb_putc(&b, *p);
		}
		sb_putc(&b, '"');
	}
	sb_putc(&b, '}');
	return sb_steal(&b);
}

static void pr_len(Printer *pr, PgWalk *w)
{
	Exec *ex = w->ex;
	ResultList *cols = NULL;
	w->lenx = ast_null(ex->a);
	exec_col(ex->a, &cols, w->lenx, NULL);
	Select *s = exec_select(ex, w->b, cols, NULL, NULL);
	s->limit = ast_integer(ex->a, 32);
	print_select(pr, s);
}

/* Several atoms: tried cheapest first, as the SQLite planner orders them (plan.c,
   order_atoms): by the average length in tokens of the first 32 texts of the FROM, an
   estimate of selectivity of one half for each (Postgres gives no retrieval index's
   share of matches here). */
static void pg_order_atoms(PgWalk *w)
{
	Exec *ex = w->ex;
	if (w->natoms < 2)
		return;
	double *key = xmalloc((size_t)w->natoms * sizeof *key);
	for (int k = 0; k < w->natoms; k++) {
		w->lenk = k;
		char *sql = print_pg(w, pr_len);
		StoreCursor *c;
		double sum = 0;
		int n = 0;
		if (store_query(ex->e->store, sql, NULL, 0, &c, NULL) == SUQL_OK) {
			while (store_next(c) > 0) {
				const char *v = store_text(c, 0);
				sum += v ? strtod(v, NULL) : 0;
				n++;
			}
			store_done(c);
		}
		free(sql);
		double t = n ? sum / n / TEXT_BYTES_PER_TOKEN : 100, cap = ex->set.passage_tokens;
		key[k] = (t > cap ? cap : t < 1 ? 1 : t) / 0.5;
	}
	for (int k = 1; k < w->natoms; k++) {
		int a = w->atoms[k];
		double ka = key[k];
		int j = k;
		while (j > 0 && key[j - 1] > ka) {
			w->atoms[j] = w->atoms[j - 1];
			key[j] = key[j - 1];
			j--;
		}
		w->atoms[j] = a;
		key[j] = ka;
	}
	free(key);
	w->lenx = NULL;
}

static SuqlStatus pg_freetext(PgWalk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	const EngineSink *sink = ex->sink;
	w->need = pg_need(w);
	w->ordered = ex->ast->stmt->select->order != NULL && w->need >= 0;
	/* as the SQLite walk: a lazy walk without ORDER BY takes the most relevant first */
	w->ranked = !w->ordered && w->need >= 0 && w->natoms > 0;
	if (w->ranked) {
		StoreCursor *c;
		if (store_query(ex->e->store, "SELECT to_regprocedure('suql.doc(text[])') IS NOT NULL",
		                NULL, 0, &c, NULL) == SUQL_OK) {
			w->doc_fn = store_next(c) > 0 && store_integer(c, 0);
			store_done(c);
		}
	}
	pg_order_atoms(w);
	char *cand = w->natoms ? print_pg(w, pr_cand) : NULL;
	/* the final statement: projected columns under hidden names (pg_to_sink) */
	w->final = 1;
	SelectCore *core = w->b->core;
	AstName *saved = xcalloc((size_t)w->nproj + 1, sizeof *saved);
	for (int k = 0; k < w->nproj; k++) {
		for (int i = 0; i < core->cols->n; i++)
			if (ex->occ[w->proj[k].occ].slot == &core->cols->items[i]->expr) {
				saved[k] = core->cols->items[i]->alias;
				core->cols->items[i]->alias = ast_name_make(ex->a, w->proj[k].hidden);
			}
	}
	char *fin = print_pg(w, pr_final);
	for (int k = 0; k < w->nproj; k++)
		for (int i = 0; i < core->cols->n; i++)
			if (ex->occ[w->proj[k].occ].slot == &core->cols->items[i]->expr)
				core->cols->items[i]->alias = saved[k];
	free(saved);
	if (cand)
		sb_printf(&ex->plan, "PostgreSQL: the structured part lists the candidates\n  %s\n",
		          cand);
	for (int k = 0; k < w->natoms; k++) {
		char *t = plan_show_expr(ex, ex->occ[w->atoms[k]].orig);
		sb_printf(&ex->plan, "suql judges %s per candidate%s\n", t,
		          k ? " (still undecided)" : "");
		free(t);
	}
	if (w->need >= 0 && w->natoms)
		sb_printf(&ex->plan, "lazy: stops once %lld row%s passed%s\n", w->need,
		          w->need == 1 ? "" : "s", w->ordered ? ", in ORDER BY order" :
		          w->doc_fn ? ", most relevant first (full-text rank, the GIN index's "
		                      "expression)" : ", most relevant first (full-text rank, "
		                                      "computed per candidate: no :index)");
	if (w->natoms)
		sb_printf(&ex->plan, "PostgreSQL runs the statement over the verified rows, bound as "
		          "$1\n  %s\n", fin);
	else
		sb_printf(&ex->plan, "PostgreSQL runs the statement\n  %s\n", fin);
	for (int k = 0; k < w->nproj; k++) {
		char *t = plan_show_expr(ex, ex->occ[w->proj[k].occ].orig);
		sb_printf(&ex->plan, "projection last: suql evaluates %s for the rows returned\n", t);
		free(t);
	}
	SuqlStatus s = cand ? pg_load(w, cand, err) : SUQL_OK;
	/* the calls it may cost, counted as the SQLite planner counts them, checked against
	   the budget before any call (projection last: what a LIMIT allows, else not known
	   before the rows come) */
	long long mw = plan_max_wave(ex), pc = plan_per_call(ex);
	ex->worst_total = w->natoms * exec_walk_worst_calls(w->n, w->need, w->natoms, mw, pc);
	ex->expect_total = w->need < 0 ? ex->worst_total :
	                   w->natoms * exec_walk_expect_calls(w->n, w->need, w->natoms, mw, pc,
	                                                      WALK_EXPECT_RATE);
	if (w->need >= 0 && w->nproj) {
		long long pw = w->nproj * ((w->need + pc - 1) / pc);
		ex->worst_total += pw;
		ex->expect_total += pw;
	}
	if (s == SUQL_OK && w->natoms)
		sb_printf(&ex->plan, "%lld candidate%s", w->n, w->n == 1 ? "" : "s");
	if (s == SUQL_OK && (w->natoms || w->need >= 0)) {
		if (ex->expect_total < ex->worst_total)
			sb_printf(&ex->plan, "; expected: at most %lld LLM calls while at least 1 "
			          "candidate in %.0f passes", ex->expect_total, 1 / WALK_EXPECT_RATE);
		sb_printf(&ex->plan, "%sworst case: %lld LLM calls%s; budget %ld\n",
		          w->natoms ? "\n" : "", ex->worst_total,
		          w->natoms ? ", if too few candidates pass" : "", ex->set.budget);
	}
	if (sink && sink->plan)
		sink->plan(sink->ctx, sb_str(&ex->plan));
	if (s == SUQL_OK && ex->set.budget > 0 && ex->expect_total > ex->set.budget)
		s = exec_over_budget(ex, err);
	double prior = EXEC_WAVE_PRIOR;
	if (s == SUQL_OK && w->ranked) {   /* as the SQLite walk: the share the ranking matched */
		prior = w->n ? (double)w->matches / (double)w->n : 0;
		if (prior <= 0)
			prior = EXEC_WAVE_PRIOR_RANKED_MIN;
	}
	if (s == SUQL_OK)
		s = pg_waves(w, prior, err);
	if (s == SUQL_OK) {
		long long count;
		char *arr = pg_array(w, &count);
		const char *params[] = {arr};
		s = pg_rows(ex, fin, w->natoms ? params : NULL, w->natoms ? 1 : 0, w->proj, w->nproj,
		            err);
		free(arr);
	}
	long long passed = 0, failed = 0, unknown = 0, judged = 0;
	for (long long c = 0; c < w->n; c++) {
		passed += w->state[c] == CAND_PASSED;
		failed += w->state[c] == CAND_FAILED;
		unknown += w->state[c] == CAND_NULL;
		judged += w->state[c] != CAND_UNDECIDED;
	}
	SBuf *pl = &ex->plan;
	sb_truncate(pl, 0);
	if (w->natoms) {
		sb_printf(pl, "where: %lld candidate%s after the structured filter; %lld judged: "
		          "%lld passed, %lld failed", w->n, w->n == 1 ? "" : "s", judged, passed,
		          failed);
		if (unknown)
			sb_printf(pl, ", %lld unknown (no text, or a reply that could not be read)",
			          unknown);
		sb_putc(pl, '\n');
	}
	free(cand);
	free(fin);
	return s;
}

/* ---- the entry ---- */

SuqlStatus exec_pg_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                             const EngineSink *sink, SuqlErr *err)
{
	Exec *ex = exec_new(e, ast, sql, len, sink);
	Exec *outer = e->cur;
	e->cur = ex;
	const Stmt *st = ast->stmt;
	SuqlStatus s = SUQL_OK;
	int bound = st->kind == ST_SELECT || st->kind == ST_INSERT || st->kind == ST_UPDATE ||
	            st->kind == ST_DELETE || st->kind == ST_CREATE_VIEW ||
	            (st->kind == ST_CREATE_TABLE && st->select);
	if (bound)
		s = bind_statement(ex, err);
	if (s == SUQL_OK && ex->nenums > 0)
		s = enum_lookup(ex, err);
	if (s == SUQL_OK && ex->nenums > 0 && enum_pending(ex) > 0)
		s = err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: comparing an ENUM "
		            "column with a value that is not one of its declared values (classifying "
		            "it needs the model and a mapping table suql keeps only in SQLite)");
	if (s == SUQL_OK && ex->nenums > 0)
		enum_rewrite(ex, 0);
	int freetext = s == SUQL_OK && ex->nocc > 0;
	PgWalk w = {0};
	w.ex = ex;
	const char *why = freetext ? pg_shape(&w) : NULL;
	if (freetext && sink && sink->freetext)
		sink->freetext(sink->ctx);
	if (why)
		s = err_set(err, SUQL_ERROR, "not supported on PostgreSQL yet: %s; the SQLite "
		            "backend runs it", why);
	if (s == SUQL_OK && freetext && !e->llm)
		s = err_set(err, SUQL_LLM, "no language model client: free-text functions need one");
	if (s == SUQL_OK)
		s = pg_begin(ex, freetext, err);
	if (s == SUQL_OK) {
		if (freetext) {
			s = pg_freetext(&w, err);
		} else {
			Printer *pr = print_new(PRINT_PG, NULL, ast->src, ast->src_off);
			print_stmt(pr, st);
			if (st->has_suql && sink && sink->plan) {
				sb_printf(&ex->plan, "no free text: PostgreSQL runs\n%s\n", print_text(pr));
				sink->plan(sink->ctx, sb_str(&ex->plan));
			}
			s = pg_rows(ex, print_text(pr), NULL, 0, NULL, 0, err);
			long off = store_pg_error_offset(e->store);
			if (s == SUQL_ERROR && off >= 0 && (size_t)off <= print_len(pr)) {
				/* the server's place in the printed text, mapped back to the user's */
				size_t at = print_map(pr, (size_t)off);
				char *msg = xstrdup(err->msg ? err->msg : "failed");
				err_clear(err);
				if (at < len)
					s = err_at(err, SUQL_ERROR, sql, len, at, 1, NULL, "%s", msg);
				else
					s = err_set(err, SUQL_ERROR, "%s", msg);
				free(msg);
			}
			print_free(pr);
		}
		s = pg_end(ex, freetext, s, err);
	}
	s = exec_budget_stopped(ex, s, err);
	if (freetext && sink && sink->counters && (s == SUQL_OK || s == SUQL_LLM ||
	                                           s == SUQL_INTERRUPT)) {
		SBuf c = SBUF_INIT;
		sb_puts(&c, sb_str(&ex->plan));
		plan_show_counters(ex, &c);
		sink->counters(sink->ctx, sb_str(&c));
		sb_free(&c);
	}
	pg_walk_free(&w);
	if (e->llm)
		llm_set_cap(e->llm, 0);
	e->cur = outer;
	exec_free(ex);
	return s;
}

/* ---- :index ---- */

SuqlStatus exec_pg_index(Engine *e, const char *table, FILE *out, SuqlErr *err)
{
	Store *st = e->store;
	if (!store_has_table(st, "suql.catalog")) {
		fprintf(out, "no free-text columns to index\n");
		return SUQL_OK;
	}
	/* the text of a value, immutable so that an index may hold it: a text[] as its
	   elements joined by spaces */
	SuqlStatus s = store_exec(st, "CREATE OR REPLACE FUNCTION suql.doc(text) RETURNS text "
	                          "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT $1'; "
	                          "CREATE OR REPLACE FUNCTION suql.doc(text[]) RETURNS text "
	                          "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS "
	                          "'SELECT array_to_string($1, '' '')'", err);
	if (s != SUQL_OK)
		return s;
	const char *args[] = {table ? table : ""};
	StoreCursor *c;
	s = store_query(st, "SELECT tbl, col FROM suql.catalog WHERE type LIKE 'FREE_TEXT%' AND "
	                "($1 = '' OR lower(tbl) = lower($1)) ORDER BY 1, 2", args, 1, &c, err);
	if (s != SUQL_OK)
		return s;
	int n = 0;
	while (s == SUQL_OK && store_next(c) > 0) {
		const char *t = store_text(c, 0), *col = store_text(c, 1);
		char *name = xprintf("suql_fts_%s_%s", t, col);
		char *q = xprintf("CREATE INDEX IF NOT EXISTS \"%s\" ON \"%s\" USING gin "
		                  "(to_tsvector('english'::regconfig, suql.doc(\"%s\")))", name, t, col);
		if (strchr(t, '"') || strchr(col, '"'))
			s = err_set(err, SUQL_ERROR, "cannot index %s.%s: a name with a double quote", t,
			            col);
		else
			s = store_exec(st, q, err);
		if (s == SUQL_OK)
			fprintf(out, "%s.%s: GIN index %s (Postgres full-text search)\n", t, col, name);
		n += s == SUQL_OK;
		free(q);
		free(name);
	}
	store_done(c);
	if (s == SUQL_OK && n == 0)
		fprintf(out, "no free-text columns to index\n");
	return s;
}
