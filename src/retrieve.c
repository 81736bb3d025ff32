/*
 * retrieve.c: the registry of retrieval indexes, and building them, keeping them current
 * and dropping them. The storage layout is described in retrieve.h; ranking is in
 * retrieve_rank.c.
 *
 * Building reads every row of the table once and writes its passages: their text to
 * suql_txt_<id>, over which the FTS5 index is an external-content index (so the text is
 * stored once), and where each belongs to suql_psg_<id>, a narrow table that ranking reads
 * for every matching passage (kept apart from the text so that it stays small enough to
 * sit in the page cache). Refreshing reads the rowids the triggers recorded, deletes those
 * rows' passages (FTS5's 'delete' command needs the old text, which suql_txt_<id> keeps)
 * and cuts the current values again. Both run inside SAVEPOINT suql_index.
 */
#include "retrieve_int.h"

#include "catalog.h"
#include "progress.h"
#include "text.h"

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

static const char *const TOKENIZER = "porter unicode61 remove_diacritics 2";

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

static int table_exists(sqlite3 *db, const char *name)
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
}

int ret_entry_get(sqlite3 *db, const char *table, const char *column, RetEntry *e,
                  SuqlErr *err)
{
	memset(e, 0, sizeof *e);
	if (!table_exists(db, "suql_index"))
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

static void put_ident(SBuf *b, const char *s)
{
	sb_put_ident(b, s, strlen(s));
}

static SuqlStatus drop_objects(sqlite3 *db, sqlite3_int64 id, SuqlErr *err)
{
	char *sql = xprintf("DROP TRIGGER IF EXISTS suql_trg_%lld_ins;"
	                    "DROP TRIGGER IF EXISTS suql_trg_%lld_upd;"
	                    "DROP TRIGGER IF EXISTS suql_trg_%lld_del;"
	                    "DROP TABLE IF EXISTS suql_fts_%lld;"
	                    "DROP TABLE IF EXISTS suql_psg_%lld;"
	                    "DROP TABLE IF EXISTS suql_txt_%lld;"
	                    "DELETE FROM suql_index_dirty WHERE idx = %lld;",
	                    (long long)id, (long long)id, (long long)id, (long long)id,
	                    (long long)id, (long long)id, (long long)id);
	SuqlStatus s = ret_exec(db, sql, err);
	free(sql);
	return s;
}

static SuqlStatus create_objects(sqlite3 *db, const RetEntry *e, const char *column,
                                 const char *rowid, SuqlErr *err)
{
	long long id = (long long)e->id;
	SBuf b = SBUF_INIT;
	sb_printf(&b, "CREATE TABLE %s(pid INTEGER PRIMARY KEY, rid INTEGER NOT NULL, "
	          "ord INTEGER NOT NULL, ntok INTEGER NOT NULL);", e->psg);
	sb_printf(&b, "CREATE TABLE %s(pid INTEGER PRIMARY KEY, text TEXT NOT NULL);", e->txt);
	sb_printf(&b, "CREATE VIRTUAL TABLE %s USING fts5(text, content='%s', content_rowid='pid', "
	          "tokenize='%s');", e->fts, e->txt, TOKENIZER);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_ins AFTER INSERT ON ", id);
	put_ident(&b, e->table);
	sb_printf(&b, " BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) VALUES (%lld, NEW.%s); "
	          "END;", id, rowid);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_upd AFTER UPDATE ON ", id);
	put_ident(&b, e->table);
	sb_puts(&b, " WHEN OLD.");
	put_ident(&b, column);
	sb_puts(&b, " IS NOT NEW.");
	put_ident(&b, column);
	sb_printf(&b, " OR OLD.%s IS NOT NEW.%s BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) "
	          "VALUES (%lld, OLD.%s), (%lld, NEW.%s); END;", rowid, rowid, id, rowid, id, rowid);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_del AFTER DELETE ON ", id);
	put_ident(&b, e->table);
	sb_printf(&b, " BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) VALUES (%lld, OLD.%s); "
	          "END;", id, rowid);
	SuqlStatus s = ret_exec(db, b.s, err);
	sb_free(&b);
	return s;
}

int ret_count_tokens(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int w = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
		n += w && !in;
		in = w;
	}
	return n;
}

/* Statements that write one row's passages, shared by build and refresh. */
typedef struct Writer {
	sqlite3 *db;
	sqlite3_stmt *ins_psg, *ins_txt, *ins_fts, *old_psg, *del_fts, *del_txt, *del_psg;
	int chunk;
	int bulk;                   /* building: passages only, the FTS index is made at the end */
	long long passages, rows;   /* net change */
} Writer;

static SuqlStatus writer_open(Writer *w, sqlite3 *db, const RetEntry *e, SuqlErr *err)
{
	memset(w, 0, sizeof *w);
	w->db = db;
	w->chunk = e->chunk > 0 ? e->chunk : RET_CHUNK;
	char *q[7] = {
		xprintf("INSERT INTO %s(pid, rid, ord, ntok) VALUES (NULL, ?1, ?2, ?3)", e->psg),
		xprintf("INSERT INTO %s(pid, text) VALUES (?1, ?2)", e->txt),
		xprintf("INSERT INTO %s(rowid, text) VALUES (?1, ?2)", e->fts),
		xprintf("SELECT p.pid, t.text FROM %s AS p JOIN %s AS t ON t.pid = p.pid WHERE p.rid = ?1",
		        e->psg, e->txt),
		xprintf("INSERT INTO %s(%s, rowid, text) VALUES ('delete', ?1, ?2)", e->fts, e->fts),
		xprintf("DELETE FROM %s WHERE pid IN (SELECT pid FROM %s WHERE rid = ?1)", e->txt, e->psg),
		xprintf("DELETE FROM %s WHERE rid = ?1", e->psg),
	};
	sqlite3_stmt **dst[7] = {&w->ins_psg, &w->ins_txt, &w->ins_fts, &w->old_psg, &w->del_fts,
	                         &w->del_txt, &w->del_psg};
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < 7; i++) {
		if (s == SUQL_OK && sqlite3_prepare_v2(db, q[i], -1, dst[i], NULL) != SQLITE_OK)
			s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
		free(q[i]);
	}
	return s;
}

static void writer_close(Writer *w)
{
	sqlite3_finalize(w->ins_psg);
	sqlite3_finalize(w->ins_txt);
	sqlite3_finalize(w->ins_fts);
	sqlite3_finalize(w->old_psg);
	sqlite3_finalize(w->del_fts);
	sqlite3_finalize(w->del_txt);
	sqlite3_finalize(w->del_psg);
}

static SuqlStatus step_done(sqlite3 *db, sqlite3_stmt *st, SuqlErr *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	return SUQL_OK;
}

static SuqlStatus writer_add(Writer *w, sqlite3_int64 rid, const char *value, size_t n,
                             SuqlErr *err)
{
	char **ps;
	size_t np = text_passages(value, n, (size_t)w->chunk, &ps);
	SuqlStatus s = SUQL_OK;
	for (size_t i = 0; i < np && s == SUQL_OK; i++) {
		sqlite3_bind_int64(w->ins_psg, 1, rid);
		sqlite3_bind_int(w->ins_psg, 2, (int)i);
		sqlite3_bind_int(w->ins_psg, 3, ret_count_tokens(ps[i]));
		s = step_done(w->db, w->ins_psg, err);
		if (s != SUQL_OK)
			break;
		sqlite3_int64 pid = sqlite3_last_insert_rowid(w->db);
		sqlite3_bind_int64(w->ins_txt, 1, pid);
		sqlite3_bind_text(w->ins_txt, 2, ps[i], -1, SQLITE_STATIC);
		s = step_done(w->db, w->ins_txt, err);
		if (s != SUQL_OK || w->bulk)
			continue;
		sqlite3_bind_int64(w->ins_fts, 1, pid);
		sqlite3_bind_text(w->ins_fts, 2, ps[i], -1, SQLITE_STATIC);
		s = step_done(w->db, w->ins_fts, err);
	}
	sqlite3_clear_bindings(w->ins_txt);
	sqlite3_clear_bindings(w->ins_fts);
	text_strv_free(ps, np);
	if (s == SUQL_OK) {
		w->passages += (long long)np;
		w->rows += np > 0;
	}
	return s;
}

static SuqlStatus writer_remove(Writer *w, sqlite3_int64 rid, SuqlErr *err)
{
	long long gone = 0;
	sqlite3_bind_int64(w->old_psg, 1, rid);
	SuqlStatus s = SUQL_OK;
	while (s == SUQL_OK && sqlite3_step(w->old_psg) == SQLITE_ROW) {
		sqlite3_bind_int64(w->del_fts, 1, sqlite3_column_int64(w->old_psg, 0));
		sqlite3_bind_value(w->del_fts, 2, sqlite3_column_value(w->old_psg, 1));
		s = step_done(w->db, w->del_fts, err);
		gone++;
	}
	sqlite3_reset(w->old_psg);
	if (s == SUQL_OK) {
		sqlite3_bind_int64(w->del_txt, 1, rid);
		s = step_done(w->db, w->del_txt, err);
	}
	if (s == SUQL_OK) {
		sqlite3_bind_int64(w->del_psg, 1, rid);
		s = step_done(w->db, w->del_psg, err);
	}
	w->passages -= gone;
	w->rows -= gone > 0;
	return s;
}

static SuqlStatus save_counts(sqlite3 *db, const RetEntry *e, const Writer *w, int rebuilt,
                              RetInfo *info, SuqlErr *err)
{
	char *sql = xprintf("UPDATE suql_index SET nrows = %snrows + %lld, npassages = "
	                    "%snpassages + %lld%s WHERE id = %lld",
	                    rebuilt ? "0*" : "", w->rows, rebuilt ? "0*" : "", w->passages,
	                    rebuilt ? ", built = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')" : "",
	                    (long long)e->id);
	SuqlStatus s = ret_exec(db, sql, err);
	free(sql);
	if (s == SUQL_OK && info) {
		sqlite3_stmt *st;
		char *q = xprintf("SELECT nrows, npassages FROM suql_index WHERE id = %lld",
		                  (long long)e->id);
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW) {
				info->rows = sqlite3_column_int64(st, 0);
				info->passages = sqlite3_column_int64(st, 1);
			}
			sqlite3_finalize(st);
		}
		free(q);
	}
	return s;
}

static long long count_rows(sqlite3 *db, const char *table)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "SELECT count(*) FROM ");
	put_ident(&b, table);
	sqlite3_stmt *st;
	long long n = 0;
	if (sqlite3_prepare_v2(db, b.s, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sb_free(&b);
	return n;
}

/* (Re)create the index objects of e and index every row. The passages are written first
   and the rowid index and the FTS index made from them afterwards ('rebuild'), which is
   about twice as fast as maintaining both row by row. */
static SuqlStatus build(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
                        RetInfo *info, SuqlErr *err)
{
	if (drop_objects(db, e->id, err) != SUQL_OK ||
	    create_objects(db, e, column, rowid, err) != SUQL_OK)
		return SUQL_ERROR;
	Writer w;
	if (writer_open(&w, db, e, err) != SUQL_OK) {
		writer_close(&w);
		return SUQL_ERROR;
	}
	w.bulk = 1;
	SBuf b = SBUF_INIT;
	sb_printf(&b, "SELECT %s, ", rowid);
	put_ident(&b, column);
	sb_puts(&b, " FROM ");
	put_ident(&b, e->table);
	sqlite3_stmt *st = NULL;
	SuqlStatus s = SUQL_OK;
	if (sqlite3_prepare_v2(db, b.s, -1, &st, NULL) != SQLITE_OK)
		s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	sb_free(&b);
	char *label = xprintf("indexing %s.%s", e->table, column);
	Progress *pg = progress_open(stderr, PROGRESS_AUTO, label, (double)count_rows(db, e->table));
	free(label);
	long long done = 0;
	while (s == SUQL_OK && sqlite3_step(st) == SQLITE_ROW) {
		if (suql_interrupted) {
			s = err_set(err, SUQL_INTERRUPT, "interrupted");
			break;
		}
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (v)
			s = writer_add(&w, sqlite3_column_int64(st, 0), v,
			               (size_t)sqlite3_column_bytes(st, 1), err);
		progress_set(pg, (double)++done);
	}
	progress_close(pg);
	sqlite3_finalize(st);
	writer_close(&w);
	if (s == SUQL_OK) {
		char *q = xprintf("CREATE INDEX %s_rid ON %s(rid); INSERT INTO %s(%s) VALUES ('rebuild');",
		                  e->psg, e->psg, e->fts, e->fts);
		s = ret_exec(db, q, err);
		free(q);
	}
	if (s == SUQL_OK)
		s = save_counts(db, e, &w, 1, info, err);
	if (info) {
		info->built = 1;
		info->refreshed = done;
	}
	return s;
}

/* Re-index the rows the triggers recorded. */
static SuqlStatus refresh(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
                          RetInfo *info, SuqlErr *err)
{
	sqlite3_stmt *st;
	char *q = xprintf("SELECT rid FROM suql_index_dirty WHERE idx = %lld", (long long)e->id);
	int rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
	free(q);
	if (rc != SQLITE_OK)
		return err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	sqlite3_int64 *rids = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == cap)
			rids = xrealloc(rids, (cap = cap ? cap * 2 : 64) * sizeof *rids);
		rids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (n == 0) {
		free(rids);
		if (info)
			save_counts(db, e, &(Writer){0}, 0, info, err);
		return SUQL_OK;
	}
	Writer w;
	SuqlStatus s = writer_open(&w, db, e, err);
	SBuf b = SBUF_INIT;
	sb_puts(&b, "SELECT ");
	put_ident(&b, column);
	sb_puts(&b, " FROM ");
	put_ident(&b, e->table);
	sb_printf(&b, " WHERE %s = ?1", rowid);
	sqlite3_stmt *get = NULL;
	if (s == SUQL_OK && sqlite3_prepare_v2(db, b.s, -1, &get, NULL) != SQLITE_OK)
		s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	sb_free(&b);
	char *label = xprintf("updating the index of %s.%s", e->table, column);
	Progress *pg = progress_open(stderr, PROGRESS_AUTO, label, (double)n);
	free(label);
	for (size_t i = 0; i < n && s == SUQL_OK; i++) {
		s = writer_remove(&w, rids[i], err);
		sqlite3_bind_int64(get, 1, rids[i]);
		if (s == SUQL_OK && sqlite3_step(get) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(get, 0);
			if (v)
				s = writer_add(&w, rids[i], v, (size_t)sqlite3_column_bytes(get, 0), err);
		}
		sqlite3_reset(get);
		progress_set(pg, (double)(i + 1));
	}
	progress_close(pg);
	sqlite3_finalize(get);
	writer_close(&w);
	free(rids);
	if (s == SUQL_OK) {
		char *del = xprintf("DELETE FROM suql_index_dirty WHERE idx = %lld", (long long)e->id);
		s = ret_exec(db, del, err);
		free(del);
	}
	if (s == SUQL_OK)
		s = save_counts(db, e, &w, 0, info, err);
	if (info)
		info->refreshed = (long long)n;
	return s;
}

/* Are the index's triggers and tables all there? (A table dropped and created again
   loses its triggers.) */
static int objects_intact(sqlite3 *db, const RetEntry *e)
{
	sqlite3_stmt *st;
	char *q = xprintf("SELECT count(*) FROM sqlite_schema WHERE name IN ('suql_trg_%lld_ins', "
	                  "'suql_trg_%lld_upd', 'suql_trg_%lld_del', '%s', '%s', '%s')", (long long)e->id,
	                  (long long)e->id, (long long)e->id, e->psg, e->fts, e->txt);
	int n = 0;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	free(q);
	return n == 6;
}

static SuqlStatus forget(sqlite3 *db, sqlite3_int64 id, SuqlErr *err)
{
	if (drop_objects(db, id, err) != SUQL_OK)
		return SUQL_ERROR;
	char *q = xprintf("DELETE FROM suql_index WHERE id = %lld", (long long)id);
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
	if (!table_exists(db, table) || !column_info(db, table, column, &real, &rowid)) {
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
		sqlite3_bind_text(st, 4, TOKENIZER, -1, SQLITE_STATIC);
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
		s = build(db, &e, real, rowid, info, err);
	else
		s = refresh(db, &e, real, rowid, info, err);
done:
	free(real);
	ret_entry_free(&e);
	return s;
}

static SuqlStatus in_savepoint(sqlite3 *db, SuqlStatus s, SuqlErr *err)
{
	if (s != SUQL_OK) {
		sqlite3_exec(db, "ROLLBACK TO suql_index", NULL, NULL, NULL);
		sqlite3_exec(db, "RELEASE suql_index", NULL, NULL, NULL);
		return s;
	}
	return ret_exec(db, "RELEASE suql_index", err);
}

/* Nothing to do? (No savepoint, no write: a read-only database works when current.) */
static int is_current(sqlite3 *db, const char *table, const char *column)
{
	RetEntry e;
	if (ret_entry_get(db, table, column, &e, NULL) != 1)
		return 0;
	int ok = table_exists(db, table) && e.format == RET_FORMAT && objects_intact(db, &e);
	if (ok) {
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
	ret_entry_free(&e);
	return ok;
}

SuqlStatus ret_ensure(sqlite3 *db, const char *table, const char *column, RetInfo *info,
                      SuqlErr *err)
{
	if (info)
		memset(info, 0, sizeof *info);
	if (is_current(db, table, column)) {
		if (info) {
			RetEntry e;
			if (ret_entry_get(db, table, column, &e, NULL) == 1)
				save_counts(db, &e, &(Writer){0}, 0, info, NULL);
			ret_entry_free(&e);
		}
		return SUQL_OK;
	}
	/* A table or column that is gone takes its index with it (committed, not rolled back
	   with the error). */
	char *real = NULL;
	const char *rowid;
	int tbl = table_exists(db, table);
	int col = tbl && column_info(db, table, column, &real, &rowid);
	free(real);
	if (!col) {
		if (ret_has_index(db, table, column) && ret_drop(db, table, column, err) != SUQL_OK)
			return SUQL_ERROR;
		return tbl ? err_set(err, SUQL_ERROR, "no such column: %s.%s", table, column)
		           : err_set(err, SUQL_ERROR, "no such table: %s", table);
	}
	if (ret_exec(db, "SAVEPOINT suql_index", err) != SUQL_OK)
		return SUQL_ERROR;
	return in_savepoint(db, ensure(db, table, column, 0, info, err), err);
}

SuqlStatus ret_drop(sqlite3 *db, const char *table, const char *column, SuqlErr *err)
{
	if (!table_exists(db, "suql_index"))
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
	if (ret_exec(db, "SAVEPOINT suql_index", err) != SUQL_OK)
		return SUQL_ERROR;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++)
		s = forget(db, ids[i], err);
	return in_savepoint(db, s, err);
}

SuqlStatus ret_rename_table(sqlite3 *db, const char *from, const char *to, SuqlErr *err)
{
	if (!table_exists(db, "suql_index"))
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
		if (!table_exists(db, q ? "suql_index" : "suql_catalog"))
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
	if (table && !table_exists(db, table))
		return err_set(err, SUQL_ERROR, "no such table: %s", table);
	char **pairs;
	int n;
	targets(db, table, &pairs, &n);
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < n && s == SUQL_OK; i++) {
		RetInfo info = {0};
		if (!table_exists(db, pairs[2 * i])) {
			s = ret_drop(db, pairs[2 * i], pairs[2 * i + 1], err);
			continue;
		}
		if ((s = ret_exec(db, "SAVEPOINT suql_index", err)) != SUQL_OK)
			break;
		s = in_savepoint(db, ensure(db, pairs[2 * i], pairs[2 * i + 1], 1, &info, err), err);
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
