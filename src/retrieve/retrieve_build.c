/*
 * retrieve_build.c: writing an index: creating its tables and triggers, building it from
 * every row of its table, and refreshing the rows its triggers recorded. retrieve.c
 * decides when; this file does it.
 *
 * Building reads every row once and writes its passages: their text to suql_txt_<id>,
 * over which the FTS5 index is an external-content index (so the text is stored once), and
 * where each belongs to suql_psg_<id>, a narrow table that ranking reads for every
 * matching passage (kept apart from the text so that it stays small enough to sit in the
 * page cache). Refreshing deletes the recorded rows' passages (FTS5's 'delete' command
 * needs the old text, which suql_txt_<id> keeps) and cuts their current values again.
 */
#include "retrieve/retrieve_int.h"

#include "base/progress.h"
#include "base/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static SuqlStatus create_objects(sqlite3 *db, const RetEntry *e, const char *column,
                                 const char *rowid, SuqlErr *err)
{
	long long id = (long long)e->id;
	SBuf b = SBUF_INIT;
	sb_printf(&b, "CREATE TABLE %s(pid INTEGER PRIMARY KEY AUTOINCREMENT, rid INTEGER NOT NULL, "
	          "ord INTEGER NOT NULL, ntok INTEGER NOT NULL);", e->psg);
	sb_printf(&b, "CREATE TABLE %s(pid INTEGER PRIMARY KEY, text TEXT NOT NULL);", e->txt);
	sb_printf(&b, "CREATE VIRTUAL TABLE %s USING fts5(text, content='%s', content_rowid='pid', "
	          "tokenize='%s');", e->fts, e->txt, RET_TOKENIZER);
	sb_printf(&b, "CREATE TABLE %s(term TEXT NOT NULL, s INTEGER NOT NULL, dl INTEGER NOT NULL, "
	          "rid INTEGER NOT NULL, pid INTEGER NOT NULL, tf INTEGER NOT NULL, "
	          "PRIMARY KEY(term, s, dl, rid, pid)) WITHOUT ROWID;", e->imp);
	sb_printf(&b, "CREATE TABLE %s(term TEXT NOT NULL, s INTEGER NOT NULL, dl INTEGER NOT NULL, "
	          "rid INTEGER NOT NULL, pid INTEGER NOT NULL, tfmax INTEGER NOT NULL, "
	          "PRIMARY KEY(term, s)) WITHOUT ROWID;", e->rest);
	sb_printf(&b, "CREATE TABLE %s(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;", e->df);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_ins AFTER INSERT ON ", id);
	ret_put_ident(&b, e->table);
	sb_printf(&b, " BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) VALUES (%lld, NEW.%s); "
	          "END;", id, rowid);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_upd AFTER UPDATE ON ", id);
	ret_put_ident(&b, e->table);
	sb_puts(&b, " WHEN OLD.");
	ret_put_ident(&b, column);
	sb_puts(&b, " IS NOT NEW.");
	ret_put_ident(&b, column);
	sb_printf(&b, " OR OLD.%s IS NOT NEW.%s BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) "
	          "VALUES (%lld, OLD.%s), (%lld, NEW.%s); END;", rowid, rowid, id, rowid, id, rowid);
	sb_printf(&b, "CREATE TRIGGER suql_trg_%lld_del AFTER DELETE ON ", id);
	ret_put_ident(&b, e->table);
	sb_printf(&b, " BEGIN INSERT OR IGNORE INTO suql_index_dirty(idx, rid) VALUES (%lld, OLD.%s); "
	          "END;", id, rowid);
	SuqlStatus s = ret_exec(db, b.s, err);
	sb_free(&b);
	return s;
}

/* Words in a passage as FTS5's unicode61 tokenizer counts them (runs of letters and
   digits; bytes of UTF-8 sequences count as letters): the passage length BM25 uses. */
static int ret_count_tokens(const char *s)
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
	RetImpact *impact;          /* building: the impact lists, written at the end */
	RetImpactW *impactw;        /* refreshing: the impact lists kept true row by row */
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
		xprintf("SELECT p.pid, t.text, p.ntok FROM %s AS p JOIN %s AS t ON t.pid = p.pid "
		        "WHERE p.rid = ?1", e->psg, e->txt),
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
	ret_impact_free(w->impact);
	ret_impactw_close(w->impactw);
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
		int dl = ret_count_tokens(ps[i]);
		sqlite3_bind_int(w->ins_psg, 3, dl);
		s = ret_step(w->db, w->ins_psg, err);
		if (s != SUQL_OK)
			break;
		sqlite3_int64 pid = sqlite3_last_insert_rowid(w->db);
		if (w->impact)
			s = ret_impact_add(w->impact, pid, rid, dl, ps[i], err);
		else if (w->impactw)
			s = ret_impactw_add(w->impactw, pid, rid, dl, ps[i], err);
		if (s != SUQL_OK)
			break;
		sqlite3_bind_int64(w->ins_txt, 1, pid);
		sqlite3_bind_text(w->ins_txt, 2, ps[i], -1, SQLITE_STATIC);
		s = ret_step(w->db, w->ins_txt, err);
		if (s != SUQL_OK || w->bulk)
			continue;
		sqlite3_bind_int64(w->ins_fts, 1, pid);
		sqlite3_bind_text(w->ins_fts, 2, ps[i], -1, SQLITE_STATIC);
		s = ret_step(w->db, w->ins_fts, err);
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
		sqlite3_int64 pid = sqlite3_column_int64(w->old_psg, 0);
		if (w->impactw)
			s = ret_impactw_remove(w->impactw, pid, rid, sqlite3_column_int(w->old_psg, 2),
			                       (const char *)sqlite3_column_text(w->old_psg, 1), err);
		if (s != SUQL_OK)
			break;
		sqlite3_bind_int64(w->del_fts, 1, pid);
		sqlite3_bind_value(w->del_fts, 2, sqlite3_column_value(w->old_psg, 1));
		s = ret_step(w->db, w->del_fts, err);
		gone++;
	}
	sqlite3_reset(w->old_psg);
	if (s == SUQL_OK) {
		sqlite3_bind_int64(w->del_txt, 1, rid);
		s = ret_step(w->db, w->del_txt, err);
	}
	if (s == SUQL_OK) {
		sqlite3_bind_int64(w->del_psg, 1, rid);
		s = ret_step(w->db, w->del_psg, err);
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
	if (s == SUQL_OK)
		ret_read_counts(db, e, info);
	return s;
}

void ret_read_counts(sqlite3 *db, const RetEntry *e, RetInfo *info)
{
	if (!info)
		return;
	sqlite3_stmt *st;
	char *q = xprintf("SELECT nrows, npassages FROM suql_index WHERE id = %lld", (long long)e->id);
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			info->rows = sqlite3_column_int64(st, 0);
			info->passages = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	free(q);
}

static long long count_rows(sqlite3 *db, const char *table)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "SELECT count(*) FROM ");
	ret_put_ident(&b, table);
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

/* The highest pid an index ever gave out (0: none), so that a rebuilt index goes on from
   there: a pid is never reused, and whatever is kept by pid (vectors) cannot be mistaken
   for another passage's. */
static sqlite3_int64 last_pid(sqlite3 *db, const RetEntry *e)
{
	sqlite3_int64 n = 0;
	sqlite3_stmt *st;
	if (ret_table_exists(db, "sqlite_sequence") &&
	    sqlite3_prepare_v2(db, "SELECT seq FROM sqlite_sequence WHERE name = ?1", -1, &st,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, e->psg, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

/* (Re)create the index objects of e and index every row. The passages are written first
   and the rowid index and the FTS index made from them afterwards ('rebuild'), which is
   about twice as fast as maintaining both row by row. */
SuqlStatus ret_build(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
                     RetInfo *info, SuqlErr *err)
{
	sqlite3_int64 last = last_pid(db, e);
	if (ret_drop_objects(db, e->id, err) != SUQL_OK ||
	    create_objects(db, e, column, rowid, err) != SUQL_OK)
		return SUQL_ERROR;
	if (last > 0) {
		char *q = xprintf("INSERT INTO sqlite_sequence(name, seq) VALUES ('%s', %lld)", e->psg,
		                  (long long)last);
		SuqlStatus s = ret_exec(db, q, err);
		free(q);
		if (s != SUQL_OK)
			return s;
	}
	Writer w;
	if (writer_open(&w, db, e, err) != SUQL_OK) {
		writer_close(&w);
		return SUQL_ERROR;
	}
	w.bulk = 1;
	if (ret_impact_begin(db, &w.impact, err) != SUQL_OK) {
		writer_close(&w);
		return SUQL_ERROR;
	}
	SBuf b = SBUF_INIT;
	sb_printf(&b, "SELECT %s, ", rowid);
	ret_put_ident(&b, column);
	sb_puts(&b, " FROM ");
	ret_put_ident(&b, e->table);
	sqlite3_stmt *st = NULL;
	SuqlStatus s = SUQL_OK;
	if (sqlite3_prepare_v2(db, b.s, -1, &st, NULL) != SQLITE_OK)
		s = err_set(err, SUQL_ERROR, "retrieval index: %s", sqlite3_errmsg(db));
	sb_free(&b);
	char *label = xprintf("indexing %s.%s", e->table, column);
	Progress *pg = progress_open(stderr, PROGRESS_AUTO, label, 0);
	if (pg)   /* counting the rows reads the table: only for a bar that is drawn */
		progress_phase(pg, label, (double)count_rows(db, e->table));
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
	if (s == SUQL_OK) {
		/* FTS5 writes a segment each time its in-memory table of terms reaches hashsize
		   (1 MB by default) and then merges them; 64 MB while building makes fewer segments
		   to merge (about a quarter less time at 100k rows, measured), and later writes go
		   back to the default */
		char *q = xprintf("CREATE INDEX %s_rid ON %s(rid);"
		                  "INSERT INTO %s(%s, rank) VALUES ('hashsize', 67108864);"
		                  "INSERT INTO %s(%s) VALUES ('rebuild');"
		                  "INSERT INTO %s(%s, rank) VALUES ('hashsize', 1048576);",
		                  e->psg, e->psg, e->fts, e->fts, e->fts, e->fts, e->fts, e->fts);
		s = ret_exec(db, q, err);
		free(q);
	}
	if (s == SUQL_OK)
		s = ret_impact_finish(db, w.impact, e, err);
	writer_close(&w);
	if (s == SUQL_OK)
		s = save_counts(db, e, &w, 1, info, err);
	if (info) {
		info->built = 1;
		info->refreshed = done;
	}
	return s;
}

/* Re-index the rows the triggers recorded. */
SuqlStatus ret_refresh(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
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
		ret_read_counts(db, e, info);
		return SUQL_OK;
	}
	/* Most of the table changed (a bulk import into an indexed table): building again is
	   faster than replacing rows one at a time. */
	long long indexed = 0;
	char *cq = xprintf("SELECT nrows FROM suql_index WHERE id = %lld", (long long)e->id);
	if (sqlite3_prepare_v2(db, cq, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			indexed = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	free(cq);
	if (n > 1000 && (long long)n > indexed / 2) {
		free(rids);
		return ret_build(db, e, column, rowid, info, err);
	}
	Writer w;
	SuqlStatus s = writer_open(&w, db, e, err);
	if (s == SUQL_OK)
		s = ret_impactw_open(db, e, &w.impactw, err);
	SBuf b = SBUF_INIT;
	sb_puts(&b, "SELECT ");
	ret_put_ident(&b, column);
	sb_puts(&b, " FROM ");
	ret_put_ident(&b, e->table);
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
