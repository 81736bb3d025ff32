/*
 * dialect_pg.c: PostgreSQL's row of the backend table (engine_int.h: Dialect), whole: what
 * a plan may use there (no retrieval index of suql's, no windows, texts listed with the
 * candidates, no functions of suql's in the server: every value bound as a parameter),
 * and its entries: the plan's lines of the final statement, a join side's distinct values
 * listed in SQLite's order, what the catalog says of a table (its columns and what
 * identifies its rows), ENUM's reads of a column's values and its map in suql's schema
 * (suql.enum_map), and the statement that reads a table's rows by their identities. The SQL it prints for
 * the planner and the walks is exec_pg_plan.c's; everything here goes through the store.
 */
#include "engine/sql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dialect_pg_show_final(Exec *ex, SBuf *out)
{
	exec_pg_plan_show_identity(ex, out);
	/* the final statement, its free text read from the values bound as $1... */
	PrintHooks hk = {ex, exec_pg_plan_hook, exec_pg_plan_from};
	Printer *pr = print_new(PRINT_PG, &hk, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sb_printf(out, "postgresql, the values suql evaluates bound as parameters: %s\n",
	          print_text(pr));
	print_free(pr);
}

/* A table's distinct values in the order SQLite lists them (it scans the table by rowid
   and keeps each value's first row): grouped, ordered by the first row's integer primary
   key (SQLite's rowid) or ctid. The order is that of the requests, and of a lazy LIMIT's
   waves. */
static void dialect_pg_distinct(Exec *ex, Select *s, const ScopeItem *it, Expr *v)
{
	if (it->kind != IT_TABLE || (!it->rowkey && !it->rowid))
		return;   /* a view's rows have no ctid: Postgres's order */
	Expr *key = exec_pg_plan_rowid(ex, it);
	OrderList *ord = arena_alloc(ex->a, sizeof *ord);
	ord->cap = 1;
	ord->items = arena_alloc(ex->a, sizeof *ord->items);
	OrderTerm *t = arena_alloc(ex->a, sizeof *t);
	t->expr = ast_func(ex->a, "min", 1, &key);
	ord->items[ord->n++] = t;
	s->order = ord;
	s->cores[0]->distinct = DISTINCT_NONE;
	s->cores[0]->group = NULL;
	ast_list_push(ex->a, &s->cores[0]->group, v);
}

/* ---- the catalog ---- */

/* PostgreSQL: what identifies table t's rows, from the catalog (the name bound, never
   SQL text), first found:
     1. a key declared in suql.table_props (prop 'row_key', value the column): for a table
        that cannot have a unique index (a partitioned table whose partitions are foreign
        tables, postgres_fdw's, cannot);
     2. its primary key, else a unique index without predicate or expression, when it is
        one column of integers that is NOT NULL;
     3. its ctid, when it is an ordinary table or a materialized view (relkind r, m): a
        ctid is unique there, not across a partitioned table's partitions, nor on a
        foreign table (postgres_fdw's is the remote row's, per shard).
   A view has none and needs none (its rows are not fetched again: SQLite's views have no
   rowid either); any other relation has none (noid), and a free-text statement that
   reads it is refused by the walk's row of the operator table (exec_walk_op.c). The key
   is a column of integers so that a row's identity is the number the walk keeps (SQLite's
   rowid); a key of another type or of
   several columns leaves an ordinary table on its ctid. */
static void identity(Store *st, TabInfo *t)
{
	static const char *const INTS = "('int2'::regtype, 'int4'::regtype, 'int8'::regtype)";
	const char *args[] = {t->name};
	StoreCursor *c;
	char sql[1024];
	if (store_has_table(st, "suql.table_props")) {
		/* the declared column, and whether it is one of the table's of integers (one
		   that is not is said, in the plan and in a refusal, rather than passed over) */
		snprintf(sql, sizeof sql,
		         "SELECT p.value, a.attname IS NOT NULL, a.atttypid IN %s FROM "
		         "suql.table_props p LEFT JOIN pg_attribute a ON a.attrelid = "
		         "to_regclass(quote_ident($1)) AND a.attname = p.value AND a.attnum > 0 AND "
		         "NOT a.attisdropped WHERE lower(p.tbl) = lower($1) AND p.prop = 'row_key'",
		         INTS);
		if (store_query(st, sql, args, 1, &c, NULL) == SUQL_OK) {
			const char *v = store_next(c) > 0 ? store_text(c, 0) : NULL;
			const char *col = store_text(c, 1), *ints = store_text(c, 2);
			if (v && col && ints && strcmp(ints, "t") == 0) {
				t->rowkey = xstrdup(v);
				t->rowwhy = "declared in suql.table_props";
			} else if (v) {
				t->rowbad = xprintf("the row_key declared in suql.table_props, '%s', is %s",
				                    v, col && strcmp(col, "t") == 0
				                       ? "not a column of integers" : "not a column of it");
			}
			store_done(c);
		}
	}
	snprintf(sql, sizeof sql,
	         "SELECT c.relkind::text, k.attname, k.indisprimary::int FROM pg_class c LEFT JOIN "
	         "LATERAL (SELECT a.attname, i.indisprimary FROM pg_index i JOIN pg_attribute a ON "
	         "a.attrelid = i.indrelid AND a.attnum = i.indkey[0] WHERE i.indrelid = c.oid AND "
	         "i.indisunique AND i.indimmediate AND i.indnkeyatts = 1 AND i.indpred IS NULL AND "
	         "i.indexprs IS NULL AND a.attnotnull AND a.atttypid IN %s ORDER BY "
	         "i.indisprimary DESC, a.attnum LIMIT 1) k ON true WHERE c.oid = "
	         "to_regclass(quote_ident($1))", INTS);
	if (store_query(st, sql, args, 1, &c, NULL) != SUQL_OK)
		return;
	if (store_next(c) > 0) {
		const char *kind = store_text(c, 0), *key = store_text(c, 1);
		int ctid = kind && (strcmp(kind, "r") == 0 || strcmp(kind, "m") == 0);
		if (!t->rowkey && key) {
			t->rowkey = xstrdup(key);
			t->rowwhy = store_integer(c, 2) ? "primary key" : "unique index";
		}
		t->rowid = t->rowkey || ctid;
		t->noid = !t->rowid && kind && strcmp(kind, "v") != 0;
	}
	store_done(c);
}

static void dialect_pg_table(Engine *e, TabInfo *t)
{
	StoreColumn *sc = NULL;
	int nsc = 0;
	if (store_columns(e->store, t->name, &sc, &nsc, NULL) == SUQL_OK) {
		t->exists = 1;
		for (int i = 0; i < nsc; i++)
			exec_strv_push(&t->cols, &t->ncols, sc[i].name);
	}
	store_columns_free(sc, nsc);
	if (t->exists)
		identity(e->store, t);
}

/* Learnt again for every statement: nothing kept. */
static void dialect_pg_schema_key(Engine *e, long long *key)
{
	(void)e, (void)key;
}

/* By key, or by ctid (numbered block * 65536 + offset as the walks number it), bound as an
   array. */
static char *dialect_pg_rows_by_id(const ScopeItem *it, const long long *ids, long long n,
                            char **param)
{
	SBuf q = SBUF_INIT, arr = SBUF_INIT;
	sb_puts(&q, "SELECT ");
	if (it->rowkey) {
		sb_put_ident(&q, it->rowkey, strlen(it->rowkey));
		sb_puts(&q, "::bigint");
	} else {
		sb_puts(&q, "(ctid::text::point)[0]::bigint * 65536 + (ctid::text::point)[1]::bigint");
	}
	sb_puts(&q, ", * FROM ");
	sb_put_ident(&q, it->table, strlen(it->table));
	sb_puts(&q, " WHERE ");
	if (it->rowkey)
		sb_put_ident(&q, it->rowkey, strlen(it->rowkey));
	else
		sb_puts(&q, "ctid");
	sb_puts(&q, it->rowkey ? " = ANY($1::bigint[])" : " = ANY($1::tid[])");
	sb_putc(&arr, '{');
	for (long long i = 0; i < n; i++) {
		if (i)
			sb_putc(&arr, ',');
		char t[48];
		if (it->rowkey)
			snprintf(t, sizeof t, "%lld", ids[i]);
		else
			exec_pg_plan_ctid(ids[i], t);
		sb_printf(&arr, it->rowkey ? "%s" : "\"%s\"", t);
	}
	sb_putc(&arr, '}');
	*param = sb_steal(&arr);
	return sb_steal(&q);
}

/* ---- ENUM: a list is a text[]; the map is suql.enum_map, in suql's schema ---- */

static char *dialect_pg_enum_values(const char *table, const char *column, int list)
{
	SBuf q = SBUF_INIT;   /* in SQLite's (binary) order */
	if (list) {
		sb_puts(&q, "SELECT DISTINCT v COLLATE \"C\" FROM ");
		sb_put_ident(&q, table, strlen(table));
		sb_puts(&q, ", unnest(");
		sb_put_ident(&q, column, strlen(column));
		sb_puts(&q, ") AS u(v) WHERE v IS NOT NULL ORDER BY 1");
	} else {
		sb_puts(&q, "SELECT DISTINCT ");
		sb_put_ident(&q, column, strlen(column));
		sb_puts(&q, "::text COLLATE \"C\" FROM ");
		sb_put_ident(&q, table, strlen(table));
		sb_puts(&q, " WHERE ");
		sb_put_ident(&q, column, strlen(column));
		sb_puts(&q, " IS NOT NULL ORDER BY 1");
	}
	return sb_steal(&q);
}

static char *dialect_pg_enum_has(const char *table, const char *column, int list)
{
	SBuf q = SBUF_INIT;
	sb_puts(&q, "SELECT 1 FROM ");
	sb_put_ident(&q, table, strlen(table));
	if (list) {
		sb_puts(&q, " WHERE ?1 = ANY(");
		sb_put_ident(&q, column, strlen(column));
		sb_puts(&q, ") LIMIT 1");
	} else {
		sb_puts(&q, " WHERE ");
		sb_put_ident(&q, column, strlen(column));
		sb_puts(&q, "::text = ?1 LIMIT 1");
	}
	return sb_steal(&q);
}

/* The schema exists when an ENUM column is compared (its type is in suql.catalog): the
   user's consent to suql's tables, as for the catalog; the map is made there on first
   use. */
#define PG_MAP "suql.enum_map"
#define PG_MAP_DDL                                                                        \
	"CREATE TABLE IF NOT EXISTS suql.enum_map (tbl text NOT NULL, col text NOT NULL, "     \
	"literal text NOT NULL, vals text NOT NULL, options text NOT NULL, model text NOT "    \
	"NULL, PRIMARY KEY (tbl, col, literal, model))"

/* suql's own schema holds no user's table. */
static char *dialect_pg_map_foreign(Engine *e)
{
	(void)e;
	return NULL;
}

/* Nothing to keep open: each read is a statement of its own (the map is the Exec's store's,
   returned when it exists). */
static void *dialect_pg_map_open(Exec *ex)
{
	return store_has_table(ex->e->store, PG_MAP) ? ex : NULL;
}

static int dialect_pg_map_read(void *map, Exec *ex, const char *tbl, const char *col,
                        const char *lit, EnumMapRow *row)
{
	(void)map;
	const char *model = llm_model_id(ex->e->llm);
	const char *args[] = {tbl, col, lit, model};
	StoreCursor *cur;
	if (store_query(ex->e->store, "SELECT vals, model FROM suql.enum_map WHERE lower(tbl) = "
	                "lower($1) AND lower(col) = lower($2) AND literal = $3 ORDER BY model = $4 "
	                "DESC, model LIMIT 1", args, 4, &cur, NULL) != SUQL_OK)
		return 0;
	int found = store_next(cur) > 0;
	if (found) {
		const char *by = store_text(cur, 1);
		if (by && strcmp(by, model) == 0) {
			row->known = 1;
			row->vals = xstrdup_or_null(store_text(cur, 0));
		} else {
			row->other_model = xstrdup(by ? by : "an unnamed model");
		}
	}
	store_done(cur);
	return found;
}

static void dialect_pg_map_close(void *map)
{
	(void)map;
}

/* Under a savepoint: a map that cannot be written (read-only mode, a read-only
   transaction, no right to) leaves the statement's transaction usable. */
static char *dialect_pg_map_write(Exec *ex, const char *tbl, const char *col, const char *lit,
                           const char *vals, const char *sig)
{
	Store *st = ex->e->store;
	const char *args[] = {tbl, col, lit, vals, sig, llm_model_id(ex->e->llm)};
	int tx = store_pg_in_transaction(st);   /* else each statement commits on its own */
	SuqlErr e = {0};
	int ok = 0;
	if (!tx || store_savepoint(st, "suql_enum_map", &e) == SUQL_OK) {
		if (store_exec(st, PG_MAP_DDL, &e) != SUQL_OK ||
		    store_run(st, "INSERT INTO suql.enum_map (tbl, col, literal, vals, options, "
		              "model) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tbl, col, literal, "
		              "model) DO UPDATE SET vals = EXCLUDED.vals, options = EXCLUDED.options",
		              args, 6, &e) != SUQL_OK) {
			if (tx)
				store_rollback_to(st, "suql_enum_map");
		} else {
			ok = !tx || store_release(st, "suql_enum_map", &e) == SUQL_OK;
		}
	}
	char *m = ok ? NULL
	          : xprintf("the ENUM mapping of '%s' for %s.%s was not stored (%s): it serves "
	                    "this statement only", lit, tbl, col,
	                    e.msg ? e.msg : "PostgreSQL refused it");
	err_clear(&e);
	return m;
}

static SuqlStatus dialect_pg_map_forget(Engine *e, const char *tbl, const char *col,
                                 const char *lit, long *n, SuqlErr *err)
{
	if (!store_has_table(e->store, PG_MAP))
		return SUQL_OK;
	const char *args[] = {tbl, col, lit};
	StoreCursor *cur;
	SuqlStatus s = store_query(e->store, "WITH d AS (DELETE FROM suql.enum_map WHERE "
	                           "($1::text IS NULL OR lower(tbl) = lower($1)) AND ($2::text "
	                           "IS NULL OR lower(col) = lower($2)) AND ($3::text IS NULL OR "
	                           "literal = $3) RETURNING 1) SELECT count(*) FROM d", args, 3,
	                           &cur, err);
	if (s == SUQL_OK) {
		if (store_next(cur) > 0)
			*n = (long)store_integer(cur, 0);
		store_done(cur);
	}
	return s;
}

/* A bulk job's write (engine_once.c): suql.bulk_done made in a transaction of its own (a
   concurrent CREATE ... IF NOT EXISTS may fail: it is tried twice), then BEGIN ISOLATION
   LEVEL REPEATABLE READ (the snapshot a planned statement needs) and the job's row
   inserted first: a row another resume committed makes the insert fail on its key, and
   the row is then looked for outside the failed transaction. */
static SuqlStatus pg_once_begin(Engine *e, const char *job, const char *batch, int *state,
                                 SuqlErr *err)
{
	if (store_pg_in_transaction(e->store))
		return err_set(err, SUQL_USAGE, DIALECT_ONCE_OPEN);
	static const char *const DDL = "CREATE SCHEMA IF NOT EXISTS suql; CREATE TABLE IF NOT "
	                               "EXISTS suql.bulk_done(job text PRIMARY KEY, batch text, "
	                               "done timestamptz NOT NULL DEFAULT now())";
	SuqlErr first = {0};
	SuqlStatus s = store_exec(e->store, DDL, &first);
	if (s != SUQL_OK)   /* another suql made it at the same time */
		s = store_exec(e->store, DDL, err);
	err_clear(&first);
	if (s != SUQL_OK)
		return s;
	s = store_exec(e->store, "BEGIN ISOLATION LEVEL REPEATABLE READ", err);
	if (s != SUQL_OK)
		return s;
	const char *p[2] = {job, batch};
	SuqlErr ins = {0};
	s = store_run(e->store, "INSERT INTO suql.bulk_done(job, batch) VALUES (?1, ?2)", p, 2,
	              &ins);
	if (s == SUQL_OK) {
		*state = ENGINE_ONCE_BEGUN;
		return SUQL_OK;
	}
	store_exec(e->store, "ROLLBACK", NULL);
	int m = exec_once_marked(e, "suql.bulk_done", job, err);
	if (m == 1) {
		*state = ENGINE_ONCE_DONE;
		err_clear(&ins);
		return SUQL_OK;
	}
	if (m == 0) {   /* not a key found taken: the insert's own error */
		err_clear(err);
		*err = ins;
		return err->code;
	}
	err_clear(&ins);
	return err->code;
}

/* ---- bm25() as the server's full-text search ---- */

/* A function call printed as written (name not quoted: "suql.doc"). */
static Expr *pg_call(Arena *a, const char *name, int nargs, Expr **args)
{
	Expr *f = ast_func(a, name, nargs, args);
	f->name.s = arena_strndup(a, name, strlen(name));
	f->name.n = strlen(name);
	return f;
}

static Expr *pg_cast(Arena *a, Expr *x, const char *type)
{
	Expr *c = ast_expr_new(a, EX_CAST);
	TypeName *t = arena_alloc(a, sizeof *t);
	t->text = arena_strndup(a, type, strlen(type));
	t->n = strlen(type);
	c->left = x;
	c->type = t;
	return c;
}

/* suql.doc() exists (:index made it with the GIN indexes). */
static int pg_doc_fn(Exec *ex)
{
	StoreCursor *c;
	int yes = 0;
	if (store_query(ex->e->store, "SELECT to_regprocedure('suql.doc(text[])') IS NOT NULL",
	                NULL, 0, &c, NULL) == SUQL_OK) {
		yes = store_next(c) > 0 && store_integer(c, 0);
		store_done(c);
	}
	return yes;
}

/* A result column that is the call keeps its name as written, as SQLite names it (the
   server would name it after the outermost function of what it became). */
static void pg_keep_name(Exec *ex, int b, const Expr *e)
{
	ResultList *l = b >= 0 && ex->blocks[b].core ? ex->blocks[b].core->cols : NULL;
	for (int i = 0; l && i < l->n; i++) {
		ResultCol *c = l->items[i];
		if (c->expr != e || c->alias.s || !c->span.len || c->span.off < ex->ast->src_off)
			continue;
		char *v = arena_strndup(ex->a, ex->ast->src + (c->span.off - ex->ast->src_off),
		                        c->span.len);
		c->alias = ast_name_make(ex->a, v);
	}
}

/* On PostgreSQL bm25(col, 'q') is the server's relevance of the column's text to the
   query's words (any of them), Postgres full-text search:
     ts_rank_cd(to_tsvector('english'::regconfig, suql.doc(col)),
                replace(plainto_tsquery('english'::regconfig, 'q')::text, ' & ', ' | ')
                ::tsquery)
   suql.doc(col) (a text[] as its elements joined) is what the GIN index of :index is
   built on; without that function the text is to_json(col) (a text[] as its strings).
   The query is the literal as written (quoted), and plainto_tsquery reads it as plain
   words: quotes and tsquery operators in it are data. 0 when no word matches, NULL when
   the value is NULL; cast to numeric (Dialect.relevance). */
static Expr *pg_relevance(Exec *ex, int b, Expr *e, Expr *col, Expr *q)
{
	Arena *a = ex->a;
	Expr *cfg = pg_cast(a, ast_string(a, "english"), "regconfig");
	Expr *doc = pg_call(a, pg_doc_fn(ex) ? "suql.doc" : "to_json", 1, &col);
	Expr *vec = pg_call(a, "to_tsvector", 2, (Expr *[]){cfg, doc});
	Expr *words = pg_call(a, "plainto_tsquery", 2, (Expr *[]){cfg, q});
	Expr *any = pg_call(a, "replace", 3, (Expr *[]){pg_cast(a, words, "text"),
	                                                 ast_string(a, " & "), ast_string(a, " | ")});
	Expr *rank = pg_call(a, "ts_rank_cd", 2, (Expr *[]){vec, pg_cast(a, any, "tsquery")});
	rank = pg_cast(a, rank, "numeric");   /* a real; numeric as round(x, 2) takes */
	rank->span = e->span;
	pg_keep_name(ex, b, e);
	return rank;
}

/* ---- the row ---- */

static Expr *pg_row_id(Exec *ex, const ScopeItem *it)
{
	return it->kind == IT_TABLE ? exec_pg_plan_rowid(ex, it)
	                            : ast_column(ex->a, it->name, "suql_ord");
}

static Expr *boolean_truth(Exec *ex, int v)
{
	return ast_binary(ex->a, OP_EQ, ast_integer(ex->a, 1), ast_integer(ex->a, v));
}

static char *pg_text_stats(const char *inner, long long cap)
{
	return xprintf("SELECT count(*), count(suql_arg), count(DISTINCT suql_arg), "
	               "sum(least(octet_length(suql_arg), %lld)), "
	               "max(least(octet_length(suql_arg), %lld)) FROM (%s) AS suql_t",
	               cap, cap, inner);
}

const Dialect dialect_pg = {
	.name = "postgresql",
	.label = "PostgreSQL",
	.true_lit = "TRUE",
	.enum_map = "suql.enum_map",
	.retrieval = 0,
	.window = 0,
	.embeddings = 0,
	.fast_path = 0,
	.refetch = 0,
	.only_ints = 1,
	.arrays = 1,
	.func_ids = 0,
	.scan_order = 0,
	.functions = 0,
	.text_of = exec_pg_plan_text,
	.row_id = pg_row_id,
	.list_order = exec_pg_plan_order,   /* keys or ctids after the ORDER BY */
	.final_count = exec_pg_plan_count,
	.relevance = pg_relevance,
	.rank_index = exec_pg_index_score,
	.group_key = exec_pg_plan_aggkey,
	.final_query = exec_pg_plan_final_query,
	.print_select = exec_pg_plan_print_select,
	.unbind = exec_pg_plan_unbind,
	.query = exec_pg_plan_query,
	.try_query = exec_pg_plan_try,
	.show_final = dialect_pg_show_final,
	.distinct_order = dialect_pg_distinct,
	.truth = boolean_truth,
	.rows_by_id = dialect_pg_rows_by_id,
	.text_stats = pg_text_stats,
	.table_facts = dialect_pg_table,
	.schema_key = dialect_pg_schema_key,
	.enum_values = dialect_pg_enum_values,
	.enum_has = dialect_pg_enum_has,
	.map_foreign = dialect_pg_map_foreign,
	.map_open = dialect_pg_map_open,
	.map_read = dialect_pg_map_read,
	.map_close = dialect_pg_map_close,
	.map_write = dialect_pg_map_write,
	.map_forget = dialect_pg_map_forget,
	.once_begin = pg_once_begin,
};
