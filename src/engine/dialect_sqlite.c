/*
 * dialect_sqlite.c: SQLite's row of the backend table (engine_int.h: Dialect), whole: what
 * a plan may use there (a retrieval index of suql's own, windowed reads, embeddings, the
 * fast path, rows read again by their rowids, suql's functions called as it reads each
 * row), how the engine's own SQL is written and run (exec.c prints and runs it on the
 * connection), and the entries that run statements of their own: what a table is (its
 * columns, whether it is a rowid table) and what says that the schema or the data
 * changed since, ENUM's reads of a column's values, and its map of mappings,
 * suql_enum_map, with this user's mark on each mapping (llm_sign) and the care
 * store/own.h asks of a file someone else may have made.
 */
#include "engine/sql_int.h"
#include "store/own.h"

#include <stdlib.h>
#include <string.h>

/* ---- the catalog ---- */

static void dialect_sqlite_table(Engine *e, TabInfo *t)
{
	sqlite3_stmt *st;
	/* SQLite says which tables have a rowid (wr: WITHOUT ROWID); virtual tables are not
	   fetched by rowid either */
	if (sqlite3_prepare_v2(e->db, "SELECT type IN ('table', 'shadow') AND NOT wr FROM "
	                       "pragma_table_list(?1) WHERE schema = 'main' AND type IN "
	                       "('table', 'view', 'shadow', 'virtual')", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			t->exists = 1;
			t->rowid = sqlite3_column_int(st, 0);
		}
		sqlite3_finalize(st);
	}
	if (!t->exists)
		return;
	char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", t->name);
	if (sqlite3_prepare_v2(e->db, q, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			exec_strv_push(&t->cols, &t->ncols, (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_free(q);
}

/* The schema cookie (this connection's DDL, even uncommitted), its count of changed rows
   (its writes, catalog rows included) and the pager's data version (commits by other
   connections). */
static void dialect_sqlite_schema_key(Engine *e, long long *key)
{
	if (!key) {
		sqlite3_finalize(e->cookie);
		e->cookie = NULL;
		return;
	}
	sqlite3 *db = e->db;
	key[0] = -1;
	if (e->cookie || sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &e->cookie, NULL) ==
	                 SQLITE_OK) {
		if (sqlite3_step(e->cookie) == SQLITE_ROW)
			key[0] = sqlite3_column_int64(e->cookie, 0);
		sqlite3_reset(e->cookie);
	}
	key[1] = sqlite3_total_changes64(db);
	unsigned int dv = 0;
	key[2] = sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &dv) == SQLITE_OK
	         ? (long long)dv : -1;
}

static char *dialect_sqlite_rows_by_id(const ScopeItem *it, const long long *ids, long long n,
                                char **param)
{
	SBuf q = SBUF_INIT;
	sb_puts(&q, "SELECT rowid, * FROM ");
	sb_put_ident(&q, it->table, strlen(it->table));
	sb_puts(&q, " WHERE rowid IN (");
	for (long long i = 0; i < n; i++)
		sb_printf(&q, "%s%lld", i ? ", " : "", ids[i]);
	sb_putc(&q, ')');
	*param = NULL;
	return sb_steal(&q);
}

/* ---- ENUM ---- */

static char *dialect_sqlite_enum_values(const char *table, const char *column, int list)
{
	char *q = list ? sqlite3_mprintf("SELECT DISTINCT j.value FROM \"%w\" AS t, "
	                                 "json_each(t.\"%w\") AS j WHERE j.type = 'text' ORDER BY 1",
	                                 table, column)
	               : sqlite3_mprintf("SELECT DISTINCT \"%w\" FROM \"%w\" WHERE \"%w\" IS NOT "
	                                 "NULL ORDER BY 1", column, table, column);
	char *s = xstrdup(q);
	sqlite3_free(q);
	return s;
}

static char *dialect_sqlite_enum_has(const char *table, const char *column, int list)
{
	char *q = list ? sqlite3_mprintf("SELECT 1 FROM \"%w\" AS t, json_each(t.\"%w\") AS j "
	                                 "WHERE j.value = ?1 AND j.type = 'text' LIMIT 1", table,
	                                 column)
	               : sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE \"%w\" = ?1 LIMIT 1", table,
	                                 column);
	char *s = xstrdup(q);
	sqlite3_free(q);
	return s;
}

#define MAP_COLS                                                                          \
	"(tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, "                \
	"literal TEXT NOT NULL, vals TEXT NOT NULL, options TEXT NOT NULL, model TEXT NOT NULL, " \
	"source TEXT, PRIMARY KEY (tbl, col, literal, model))"
#define MAP_DDL "CREATE TABLE IF NOT EXISTS suql_enum_map " MAP_COLS

/* The mark of a mapping (llm_sign): over every field, each with its length, names in
   lower case (the map compares them without case). 0 when no mark can be made. */
static int map_mark(const char *tbl, const char *col, const char *literal, const char *vals,
                    const char *options, const char *model, char out[65])
{
	const char *f[6] = {tbl, col, literal, vals, options, model};
	SBuf b = SBUF_INIT;
	sb_puts(&b, "suql_enum_map");
	for (int i = 0; i < 6; i++) {
		const char *v = f[i] ? f[i] : "";
		sb_printf(&b, "|%zu:", strlen(v));
		for (const char *p = v; *p; p++)
			sb_putc(&b, i < 2 && *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p);
	}
	int ok = llm_sign(sb_str(&b), out);
	sb_free(&b);
	return ok;
}

/* Whether the map has the column source (made before marks were kept, it has not). */
static int map_has_source(sqlite3 *db)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('suql_enum_map') WHERE name = "
	                       "'source'", -1, &st, NULL) == SQLITE_OK) {
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

static char *dialect_sqlite_map_foreign(Engine *e)
{
	return own_foreign_shape(e->db, "suql_enum_map");
}

static void *dialect_sqlite_map_open(Exec *ex)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(ex->e->db, map_has_source(ex->e->db)
	                       ? "SELECT vals, model, tbl, col, options, source FROM "
	                         "suql_enum_map WHERE tbl = ?1 AND col = ?2 AND "
	                         "literal = ?3 ORDER BY model = ?4 DESC, model LIMIT 1"
	                       : "SELECT vals, model, tbl, col, options, NULL FROM "
	                         "suql_enum_map WHERE tbl = ?1 AND col = ?2 AND "
	                         "literal = ?3 ORDER BY model = ?4 DESC, model LIMIT 1",
	                       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static int dialect_sqlite_map_read(void *map, Exec *ex, const char *tbl, const char *col,
                            const char *lit, EnumMapRow *row)
{
	sqlite3_stmt *st = map;
	const char *model = llm_model_id(ex->e->llm);
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, lit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, model, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		return 0;
	/* a mapping that names no model, or that does not carry this user's mark (made
	   elsewhere, or written by hand), has no recorded source: made again */
	const char *by = (const char *)sqlite3_column_text(st, 1);
	const char *vals = (const char *)sqlite3_column_text(st, 0);
	const char *src = (const char *)sqlite3_column_text(st, 5);
	char mark[65];
	if (by && *by && strcmp(by, model) == 0 &&
	    (!src || !map_mark((const char *)sqlite3_column_text(st, 2),
	                       (const char *)sqlite3_column_text(st, 3), lit, vals,
	                       (const char *)sqlite3_column_text(st, 4), by, mark) ||
	     strcmp(mark, src) != 0)) {
		row->unmarked = 1;
	} else if (by && *by && strcmp(by, model) == 0) {
		row->known = 1;
		row->vals = xstrdup_or_null(vals);
	} else {
		row->other_model = xstrdup(by && *by ? by : "an unnamed model");
	}
	return 1;
}

static void dialect_sqlite_map_close(void *map)
{
	sqlite3_finalize(map);
}

/* A map made before mappings were kept per model (its key lacks the model) is rebuilt:
   the model becomes the model's name ("M at URL" -> "M", the offline label -> its
   version), and its empty mappings are dropped, since an unreadable reply could make one
   then. */
static void migrate_map(sqlite3 *db)
{
	sqlite3_stmt *st;
	int old = 0;
	if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE name = 'suql_enum_map'", -1,
	                       &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *sql = (const char *)sqlite3_column_text(st, 0);
			old = sql && !strstr(sql, "literal, model)");
		}
		sqlite3_finalize(st);
	}
	if (!old)
		return;
	if (sqlite3_exec(db, "SAVEPOINT suql_enum_migrate; "
	                 "ALTER TABLE suql_enum_map RENAME TO suql_enum_map_old; "
	                 "CREATE TABLE suql_enum_map " MAP_COLS "; "
	                 "INSERT OR REPLACE INTO suql_enum_map (tbl, col, literal, vals, options, "
	                 "model) SELECT tbl, col, literal, vals, "
	                 "options, CASE WHEN model LIKE 'offline%' THEN '" LLM_OFFLINE_ID "' "
	                 "WHEN instr(model, ' at ') > 0 THEN substr(model, 1, instr(model, ' at ') "
	                 "- 1) ELSE coalesce(model, '') END FROM suql_enum_map_old "
	                 "WHERE vals <> '[]'; "
	                 "DROP TABLE suql_enum_map_old; RELEASE suql_enum_migrate", NULL, NULL,
	                 NULL) != SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK TO suql_enum_migrate; RELEASE suql_enum_migrate", NULL,
		             NULL, NULL);
}

/* A mapping that could not be stored (a read-only or locked database, a full disk). */
static char *not_stored(Exec *ex, const char *tbl, const char *col, const char *lit)
{
	return xprintf("the ENUM mapping of '%s' for %s.%s was not stored (%s): it serves "
	               "this statement only", lit, tbl, col, sqlite3_errmsg(ex->e->db));
}

static char *dialect_sqlite_map_write(Exec *ex, const char *tbl, const char *col, const char *lit,
                               const char *vals, const char *sig)
{
	SuqlErr oe = {0};
	if (own_write_begin(ex->e->db, "suql_enum_map", &oe) != SUQL_OK) {
		char *m = xprintf("the ENUM mapping of '%s' for %s.%s was not stored: %s; it serves "
		                  "this statement only", lit, tbl, col, oe.msg);
		err_clear(&oe);
		return m;
	}
	migrate_map(ex->e->db);
	if (sqlite3_exec(ex->e->db, MAP_DDL, NULL, NULL, NULL) != SQLITE_OK) {
		char *m = not_stored(ex, tbl, col, lit);
		own_write_end(ex->e->db);
		return m;
	}
	/* the mark that this user's suql made it (a map made before marks gets the column) */
	const char *model = llm_model_id(ex->e->llm);
	char mark[65];
	int marked = map_mark(tbl, col, lit, vals, sig, model, mark);
	if (!map_has_source(ex->e->db))
		sqlite3_exec(ex->e->db, "ALTER TABLE suql_enum_map ADD COLUMN source TEXT", NULL, NULL,
		             NULL);
	char *m = NULL;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(ex->e->db, "INSERT OR REPLACE INTO suql_enum_map (tbl, col, literal, "
	                       "vals, options, model, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	                       -1, &st, NULL) == SQLITE_OK) {
		if (marked)
			sqlite3_bind_text(st, 7, mark, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, lit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, vals, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, sig, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, model, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			m = not_stored(ex, tbl, col, lit);
		sqlite3_finalize(st);
	} else {
		m = not_stored(ex, tbl, col, lit);
	}
	own_write_end(ex->e->db);
	return m;
}

static SuqlStatus dialect_sqlite_map_forget(Engine *e, const char *tbl, const char *col,
                                     const char *lit, long *n, SuqlErr *err)
{
	if (!store_has_table(e->store, "suql_enum_map"))
		return SUQL_OK;
	if (own_write_begin(e->db, "suql_enum_map", err) != SUQL_OK)
		return SUQL_ERROR;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(e->db, "DELETE FROM suql_enum_map WHERE (?1 IS NULL OR tbl = ?1) "
	                       "AND (?2 IS NULL OR col = ?2) AND (?3 IS NULL OR literal = ?3)", -1,
	                       &st, NULL) != SQLITE_OK) {
		own_write_end(e->db);
		return err_set(err, SUQL_ERROR, "cannot change suql_enum_map: %s",
		               sqlite3_errmsg(e->db));
	}
	sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, lit, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	own_write_end(e->db);
	if (rc != SQLITE_DONE)
		return err_set(err, SUQL_ERROR, "cannot change suql_enum_map: %s",
		               sqlite3_errmsg(e->db));
	*n = sqlite3_changes(e->db);
	return SUQL_OK;
}

/* A bulk job's write (engine_once.c): BEGIN IMMEDIATE takes the write lock first, so the
   look for the job's row is the truth until COMMIT; the row is written under
   own_write_begin (a table of that name suql did not make, or a trigger on it, is
   refused). */
static SuqlStatus sqlite_once_begin(Engine *e, const char *job, const char *batch, int *state,
                                     SuqlErr *err)
{
	if (!sqlite3_get_autocommit(e->db))
		return err_set(err, SUQL_USAGE, DIALECT_ONCE_OPEN);
	SuqlStatus s = store_exec(e->store, "BEGIN IMMEDIATE", err);
	if (s != SUQL_OK)
		return s;
	s = own_write_begin(e->db, "suql_bulk_done", err);
	if (s == SUQL_OK) {
		s = store_exec(e->store, "CREATE TABLE IF NOT EXISTS suql_bulk_done(job TEXT PRIMARY "
		               "KEY, batch TEXT, done TEXT NOT NULL)", err);
		int m = s == SUQL_OK ? exec_once_marked(e, "suql_bulk_done", job, err) : -1;
		if (m < 0 && s == SUQL_OK)
			s = err->code;
		if (m == 1)
			*state = ENGINE_ONCE_DONE;
		const char *p[2] = {job, batch};
		if (m == 0)
			s = store_run(e->store, "INSERT INTO suql_bulk_done(job, batch, done) VALUES "
			              "(?1, ?2, datetime('now'))", p, 2, err);
		own_write_end(e->db);
	}
	if (s != SUQL_OK || *state == ENGINE_ONCE_DONE) {
		store_exec(e->store, "ROLLBACK", NULL);
		return s;
	}
	*state = ENGINE_ONCE_BEGUN;
	return SUQL_OK;
}

/* ---- the row ---- */

static Expr *as_written(Exec *ex, Expr *arg)
{
	(void)ex;
	return arg;
}

static Expr *sqlite_row_id(Exec *ex, const ScopeItem *it)
{
	return ast_column(ex->a, it->name, it->kind == IT_TABLE ? "rowid" : "id");
}

/* Rows come in rowid order by themselves. */
static OrderList *sqlite_order(Exec *ex, Block *b, OrderList *ord)
{
	(void)ex, (void)b;
	return ord;
}

static void sqlite_show_final(Exec *ex, SBuf *out)
{
	Printer *pr = print_new(PRINT_SQL, NULL, ex->ast->src, ex->ast->src_off);
	print_stmt(pr, ex->ast->stmt);
	sb_printf(out, "sqlite: %s\n", print_text(pr));
	print_free(pr);
}

/* SQLite's DISTINCT keeps each value at its first row by itself. */
static void as_listed(Exec *ex, Select *s, const ScopeItem *it, Expr *v)
{
	(void)ex, (void)s, (void)it, (void)v;
}

static Expr *integer_truth(Exec *ex, int v)
{
	return ast_integer(ex->a, v);
}

/* A text's bytes: SQLite's length() counts characters, a blob's length its bytes. */
static char *sqlite_text_stats(const char *inner, long long cap)
{
	return xprintf("SELECT count(*), count(suql_arg), count(DISTINCT suql_arg), "
	               "sum(min(length(CAST(suql_arg AS BLOB)), %lld)), "
	               "max(min(length(CAST(suql_arg AS BLOB)), %lld)) FROM (%s) AS suql_t",
	               cap, cap, inner);
}

const Dialect dialect_sqlite = {
	.name = "sqlite",
	.label = "SQLite",
	.true_lit = "1",
	.enum_map = "suql_enum_map",
	.retrieval = 1,
	.window = 1,
	.embeddings = 1,
	.fast_path = 1,
	.refetch = 1,
	.only_ints = 0,
	.arrays = 0,
	.func_ids = 1,
	.scan_order = 1,
	.functions = 1,
	.text_of = as_written,
	.row_id = sqlite_row_id,
	.list_order = sqlite_order,
	.final_count = NULL,
	.print_select = exec_print_sqlite,
	.query = exec_query_sqlite,
	.try_query = exec_try_sqlite,
	.show_final = sqlite_show_final,
	.distinct_order = as_listed,
	.truth = integer_truth,
	.rows_by_id = dialect_sqlite_rows_by_id,
	.text_stats = sqlite_text_stats,
	.table_facts = dialect_sqlite_table,
	.schema_key = dialect_sqlite_schema_key,
	.enum_values = dialect_sqlite_enum_values,
	.enum_has = dialect_sqlite_enum_has,
	.map_foreign = dialect_sqlite_map_foreign,
	.map_open = dialect_sqlite_map_open,
	.map_read = dialect_sqlite_map_read,
	.map_close = dialect_sqlite_map_close,
	.map_write = dialect_sqlite_map_write,
	.map_forget = dialect_sqlite_map_forget,
	.once_begin = sqlite_once_begin,
};
