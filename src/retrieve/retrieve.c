/*
 * retrieve.c: the registry of retrieval indexes and the decisions about them: whether an
 * index is current, when to build or refresh it (retrieve_build.c does the writing), and
 * dropping, renaming and rebuilding. The storage layout is described in retrieve.h;
 * ranking is in retrieve_rank.c. Work that writes runs inside SAVEPOINT suql_index, in a
 * transaction that takes the write lock first when none is open (begin_write).
 */
#include "retrieve/retrieve_int.h"

#include "store/own.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const REGISTRY_DDL =
	"CREATE TABLE IF NOT EXISTS suql_index("
	"id INTEGER PRIMARY KEY, "
	"tbl TEXT NOT NULL COLLATE NOCASE, "
	"col TEXT NOT NULL COLLATE NOCASE, "
	"kind TEXT NOT NULL DEFAULT 'fts5', "
	"chunk INTEGER NOT NULL, "
	"tokenizer TEXT NOT NULL, "
	"nrows INTEGER NOT NULL DEFAULT 0, "
	"npassages INTEGER NOT NULL DEFAULT 0, "
	"built TEXT, "
	"embed_model TEXT, embed_dim INTEGER, embed_table TEXT, "
	"format INTEGER NOT NULL DEFAULT 1, "
	"UNIQUE(tbl, col));"
	"CREATE TABLE IF NOT EXISTS suql_index_dirty("
	"idx INTEGER NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY(idx, rid)) WITHOUT ROWID;";

SuqlStatus ret_exec(sqlite3 *db, const char *sql, SuqlErr *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "retrieval index: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return SUQL_ERROR;
	}
	return SUQL_OK;
}

SuqlStatus ret_step(sqlite3 *db, sqlite3_stmt *st, SuqlErr *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	return SUQL_OK;
}

int ret_table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
	                       "name = ?1 COLLATE NOCASE", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

void ret_entry_free(RetEntry *e)
{
	free(e->table);
	free(e->column);
	memset(e, 0, sizeof *e);
}

static void entry_names(RetEntry *e)
{
	snprintf(e->psg, sizeof e->psg, "suql_psg_%lld", (long long)e->id);
	snprintf(e->fts, sizeof e->fts, "suql_fts_%lld", (long long)e->id);
	snprintf(e->txt, sizeof e->txt, "suql_txt_%lld", (long long)e->id);
	snprintf(e->imp, sizeof e->imp, "suql_imp_%lld", (long long)e->id);
	snprintf(e->rest, sizeof e->rest, "suql_rest_%lld", (long long)e->id);
	snprintf(e->df, sizeof e->df, "suql_df_%lld", (long long)e->id);
}

int ret_entry_get(sqlite3 *db, const char *table, const char *column, RetEntry *e,
                  SuqlErr *err)
{
	memset(e, 0, sizeof *e);
	if (!ret_table_exists(db, "suql_index"))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT id, tbl, col, chunk, format FROM suql_index "
	                       "WHERE tbl = ?1 AND col = ?2", -1, &st, NULL) != SQLITE_OK) {
		err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	int found = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		e->id = sqlite3_column_int64(st, 0);
		e->table = xstrdup((const char *)sqlite3_column_text(st, 1));
		e->column = xstrdup((const char *)sqlite3_column_text(st, 2));
		e->chunk = sqlite3_column_int(st, 3);
		e->format = sqlite3_column_int(st, 4);
		entry_names(e);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int ret_has_index(sqlite3 *db, const char *table, const char *column)
{
	RetEntry e;
	int k = ret_entry_get(db, table, column, &e, NULL);
	ret_entry_free(&e);
	return k == 1;
}

/* The column's name as the table spells it, and a name for the rowid that no column
   shadows. 0 when the table has no such column. */
static int column_info(sqlite3 *db, const char *table, const char *column, char **real,
                       const char **rowid)
{
	static const char *const rowids[] = {"rowid", "_rowid_", "oid"};
	int shadow[3] = {0, 0, 0};
	sqlite3_stmt *st;
	*real = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		if (!*real && str_ieq(n, column))
			*real = xstrdup(n);
		for (int i = 0; i < 3; i++)
			shadow[i] |= str_ieq(n, rowids[i]);
	}
	sqlite3_finalize(st);
	*rowid = "rowid";
	for (int i = 0; i < 3; i++)
		if (!shadow[i]) {
			*rowid = rowids[i];
			break;
		}
	return *real != NULL;
}
void ret_put_ident(SBuf *b, const char *s)
{
	sb_put_ident(b, s, strlen(s));
}

SuqlStatus ret_drop_objects(sqlite3 *db, sqlite3_int64 id, SuqlErr *err)
{
	char *sql = xprintf("DROP TRIGGER IF EXISTS suql_trg_%lld_ins;"
	                    "DROP TRIGGER IF EXISTS suql_trg_%lld_upd;"
	                    "DROP TRIGGER IF EXISTS suql_trg_%lld_del;"
	                    "DROP TABLE IF EXISTS suql_fts_%lld;"
	                    "DROP TABLE IF EXISTS suql_psg_%lld;"
	                    "DROP TABLE IF EXISTS suql_txt_%lld;"
	                    "DROP TABLE IF EXISTS suql_imp_%lld;"
	                    "DROP TABLE IF EXISTS suql_rest_%lld;"
	                    "DROP TABLE IF EXISTS suql_df_%lld;"
	                    "DELETE FROM suql_index_dirty WHERE idx = %lld;",
	                    (long long)id, (long long)id, (long long)id, (long long)id,
	                    (long long)id, (long long)id, (long long)id, (long long)id,
	                    (long long)id, (long long)id);
	SuqlStatus s = ret_exec(db, sql, err);
	free(sql);
	return s;
}
/* Are the index's triggers and tables all there? (A table dropped and created again
   loses its triggers.) */
static int objects_intact(sqlite3 *db, const RetEntry *e)
{
	sqlite3_stmt *st;
	char *q = xprintf("SELECT count(*) FROM sqlite_schema WHERE name IN ('suql_trg_%lld_ins', "
	                  "'suql_trg_%lld_upd', 'suql_trg_%lld_del', '%s', '%s', '%s', '%s', '%s', '%s')",
	                  (long long)e->id, (long long)e->id, (long long)e->id, e->psg, e->fts, e->txt,
	                  e->imp, e->rest, e->df);
	int n = 0;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	free(q);
	return n == 9;
}

static SuqlStatus forget(sqlite3 *db, sqlite3_int64 id, SuqlErr *err)
{
	if (ret_drop_objects(db, id, err) != SUQL_OK)
		return SUQL_ERROR;
	/* the executor's embeddings, kept by pid beside the index (a rebuild keeps them: pids
	   are never given out twice) */
	char *q = xprintf("DROP TABLE IF EXISTS suql_emb_%lld; DELETE FROM suql_index WHERE id = %lld",
	                  (long long)id, (long long)id);
	SuqlStatus s = ret_exec(db, q, err);
	free(q);
	return s;
}

/* The work of ret_ensure (rebuild: always build again), inside the caller's savepoint. */
static SuqlStatus ensure(sqlite3 *db, const char *table, const char *column, int rebuild,
                         RetInfo *info, SuqlErr *err)
{
	RetEntry e;
	int k = ret_entry_get(db, table, column, &e, err);
	if (k < 0)
		return SUQL_ERROR;
	char *real = NULL;
	const char *rowid = "rowid";
	SuqlStatus s = SUQL_OK;
	if (!ret_table_exists(db, table) || !column_info(db, table, column, &real, &rowid)) {
		s = err_set(err, SUQL_ERROR, "no such column: %s.%s", table, column);
		goto done;
	}
	if (k == 0) {
		if (ret_exec(db, REGISTRY_DDL, err) != SUQL_OK) {
			s = SUQL_ERROR;
			goto done;
		}
		sqlite3_stmt *st;
		sqlite3_prepare_v2(db, "INSERT INTO suql_index(tbl, col, chunk, tokenizer, format) "
		                   "VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL);
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, real, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, RET_CHUNK);
		sqlite3_bind_text(st, 4, RET_TOKENIZER, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, RET_FORMAT);
		int rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
			goto done;
		}
		e.id = sqlite3_last_insert_rowid(db);
		e.table = xstrdup(table);
		e.column = xstrdup(real);
		e.chunk = RET_CHUNK;
		e.format = RET_FORMAT;
		entry_names(&e);
		rebuild = 1;
	}
	if (rebuild || e.format != RET_FORMAT || !objects_intact(db, &e))
		s = ret_build(db, &e, real, rowid, info, err);
	else
		s = ret_refresh(db, &e, real, rowid, info, err);
done:
	free(real);
	ret_entry_free(&e);
	return s;
}

/* Work that writes begins here. Outside a transaction it takes the write lock first
   (BEGIN IMMEDIATE, which waits within the busy timeout): a transaction that read first
   and then asked to write while another process held the write lock would be refused at
   once ("database is locked": SQLite does not wait where two connections could wait for
   each other). Inside the user's transaction, a savepoint. 1: a transaction was begun
   here; 0: nested; -1: error. */
static int begin_write(sqlite3 *db, SuqlErr *err)
{
	/* not through a trigger of the file, nor into tables suql did not make (store/own.h) */
	char *why = own_refusal(db, "suql_index");
	if (!why)
		why = own_refusal(db, "suql_index_dirty");
	if (why) {
		err_set(err, SUQL_ERROR, "retrieval index: %s", why);
		free(why);
		return -1;
	}
	int outer = sqlite3_get_autocommit(db);
	if (outer && ret_exec(db, "BEGIN IMMEDIATE", err) != SUQL_OK)
		return -1;
	if (ret_exec(db, "SAVEPOINT suql_index", err) != SUQL_OK) {
		if (outer)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	own_untrusted(db);
	return outer;
}

static SuqlStatus in_savepoint(sqlite3 *db, int outer, SuqlStatus s, SuqlErr *err)
{
	own_write_end(db);
	if (s != SUQL_OK) {
		sqlite3_exec(db, "ROLLBACK TO suql_index", NULL, NULL, NULL);
		sqlite3_exec(db, "RELEASE suql_index", NULL, NULL, NULL);
		if (outer && !sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return s;
	}
	s = ret_exec(db, "RELEASE suql_index", err);
	if (outer && s == SUQL_OK)
		s = ret_exec(db, "COMMIT", err);
	if (outer && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return s;
}

/* Nothing to do? (No savepoint, no write: a read-only database works when current.) When
   current, the index's counts go into info (when not NULL). */
static int is_current_as(sqlite3 *db, const char *table, const char *column, RetInfo *info,
                         int stale)
{
	RetEntry e;
	if (ret_entry_get(db, table, column, &e, NULL) != 1)
		return 0;
	int ok = ret_table_exists(db, table) && e.format == RET_FORMAT && objects_intact(db, &e);
	if (ok && stale) {
		char *real = NULL;
		const char *rowid;
		ok = column_info(db, table, column, &real, &rowid);
		free(real);
	} else if (ok) {
		sqlite3_stmt *st;
		char *q = xprintf("SELECT 1 FROM suql_index_dirty WHERE idx = %lld LIMIT 1",
		                  (long long)e.id);
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
			ok = sqlite3_step(st) == SQLITE_DONE;
			sqlite3_finalize(st);
		}
		free(q);
		char *real = NULL;
		const char *rowid;
		ok = ok && column_info(db, table, column, &real, &rowid);
		free(real);
	}
	if (ok)
		ret_read_counts(db, &e, info);
	ret_entry_free(&e);
	return ok;
}

static int is_current(sqlite3 *db, const char *table, const char *column, RetInfo *info)
{
	return is_current_as(db, table, column, info, 0);
}

/* A refresh that could not take the write lock (another process held it past
   busy_timeout, or this connection was reading, where SQLite does not wait): an index
   whose tables are all there serves as it is, without the rows changed since (they are
   brought in by the next statement that can write). Ranking with it only orders the
   candidates, and a walk still reads every candidate. */
static int busy_code(sqlite3 *db)
{
	int rc = sqlite3_errcode(db);
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

SuqlStatus ret_ensure(sqlite3 *db, const char *table, const char *column, RetInfo *info,
                      SuqlErr *err)
{
	if (info)
		memset(info, 0, sizeof *info);
	if (is_current(db, table, column, info))
		return SUQL_OK;   /* read only: a current index works in a read-only database */
	/* A table or column that is gone takes its index with it (committed, not rolled back
	   with the error). */
	char *real = NULL;
	const char *rowid;
	int tbl = ret_table_exists(db, table);
	int col = tbl && column_info(db, table, column, &real, &rowid);
	free(real);
	if (!col) {
		if (ret_has_index(db, table, column) && ret_drop(db, table, column, err) != SUQL_OK)
			return SUQL_ERROR;
		return tbl ? err_set(err, SUQL_ERROR, "no such column: %s.%s", table, column)
		           : err_set(err, SUQL_ERROR, "no such table: %s", table);
	}
	int outer = begin_write(db, err);
	int busy = outer < 0 && busy_code(db);
	SuqlStatus s = SUQL_ERROR;
	if (outer >= 0) {
		s = ensure(db, table, column, 0, info, err);
		busy = s != SUQL_OK && busy_code(db);
		s = in_savepoint(db, outer, s, err);
		busy |= s != SUQL_OK && busy_code(db);
	}
	if (s != SUQL_OK && busy && is_current_as(db, table, column, info, 1)) {
		err_clear(err);
		return SUQL_OK;
	}
	return s;
}

SuqlStatus ret_drop(sqlite3 *db, const char *table, const char *column, SuqlErr *err)
{
	if (!ret_table_exists(db, "suql_index"))
		return SUQL_OK;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT id FROM suql_index WHERE tbl = ?1 AND (?2 IS NULL OR col = ?2)",
	                   -1, &st, NULL);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	sqlite3_int64 ids[64];
	int n = 0;
	while (n < 64 && sqlite3_step(st) == SQLITE_ROW)
		ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	int outer = begin_write(db, err);
	if (outer < 0)
		return SUQL_ERROR;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++)
		s = forget(db, ids[i], err);
	return in_savepoint(db, outer, s, err);
}

SuqlStatus ret_rename_table(sqlite3 *db, const char *from, const char *to, SuqlErr *err)
{
	if (!ret_table_exists(db, "suql_index"))
		return SUQL_OK;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "UPDATE suql_index SET tbl = ?2 WHERE tbl = ?1", -1, &st, NULL);
	sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	return SUQL_OK;
}

/* (table, column) pairs to rebuild: FREE_TEXT columns in the catalog and indexed ones. */
static void targets(sqlite3 *db, const char *table, char ***pairs, int *n)
{
	*pairs = NULL;
	*n = 0;
	int cap = 0;
	const char *sql[2] = {
		"SELECT tbl, col FROM suql_catalog WHERE type LIKE 'FREE_TEXT%' "
		"AND (?1 IS NULL OR tbl = ?1) ORDER BY rowid",
		"SELECT tbl, col FROM suql_index WHERE (?1 IS NULL OR tbl = ?1) ORDER BY id",
	};
	for (int q = 0; q < 2; q++) {
		if (!ret_table_exists(db, q ? "suql_index" : "suql_catalog"))
			continue;
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, sql[q], -1, &st, NULL) != SQLITE_OK)
			continue;
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			const char *c = (const char *)sqlite3_column_text(st, 1);
			int dup = 0;
			for (int i = 0; i < *n && !dup; i++)
				dup = str_ieq((*pairs)[2 * i], t) && str_ieq((*pairs)[2 * i + 1], c);
			if (dup)
				continue;
			if (*n == cap)
				*pairs = xrealloc(*pairs, (size_t)(cap = cap ? cap * 2 : 8) * 2 * sizeof **pairs);
			(*pairs)[2 * *n] = xstrdup(t);
			(*pairs)[2 * *n + 1] = xstrdup(c);
			(*n)++;
		}
		sqlite3_finalize(st);
	}
}

SuqlStatus ret_rebuild(sqlite3 *db, const char *table, RetEach each, void *ctx, SuqlErr *err)
{
	if (table && !ret_table_exists(db, table))
		return err_set(err, SUQL_ERROR, "no such table: %s", table);
	char **pairs;
	int n;
	targets(db, table, &pairs, &n);
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++) {
		RetInfo info = {0};
		if (!ret_table_exists(db, pairs[2 * i])) {
			s = ret_drop(db, pairs[2 * i], pairs[2 * i + 1], err);
			continue;
		}
		int outer = begin_write(db, err);
		if (outer < 0) {
			s = SUQL_ERROR;
			break;
		}
		s = in_savepoint(db, outer, ensure(db, pairs[2 * i], pairs[2 * i + 1], 1, &info, err),
		                 err);
		if (s == SUQL_OK && each)
			each(ctx, pairs[2 * i], pairs[2 * i + 1], &info);
	}
	for (int i = 0; i < 2 * n; i++)
		free(pairs[i]);
	free(pairs);
	if (s == SUQL_OK && n == 0 && table)
		return err_set(err, SUQL_ERROR, "table %s has no FREE_TEXT column to index", table);
	return s;
}
