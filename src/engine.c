/*
 * engine.c: runs statements. For now every statement goes to SQLite as it is written;
 * the SUQL front end and the free-text executor plug in here.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

struct Engine {
	sqlite3 *db;
	char *path;
	Llm *llm;
};

Engine *engine_open(const char *path, Llm *llm, SuqlErr *err)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK) {
		err_set(err, SUQL_IO, "cannot open database %s: %s", path,
		        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	Engine *e = xcalloc(1, sizeof *e);
	e->db = db;
	e->path = xstrdup(path);
	e->llm = llm;
	return e;
}

void engine_close(Engine *e)
{
	if (!e)
		return;
	sqlite3_close(e->db);
	free(e->path);
	free(e);
}

sqlite3 *engine_db(Engine *e) { return e->db; }
const char *engine_path(const Engine *e) { return e->path; }
Llm *engine_llm(Engine *e) { return e->llm; }

int engine_complete(const char *sql, size_t len)
{
	char *s = xstrndup(sql, len);
	int ok = sqlite3_complete(s);
	free(s);
	return ok;
}

SuqlStatus engine_exec(Engine *e, const char *sql, size_t len, size_t *used,
                       const EngineSink *sink, SuqlErr *err)
{
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	*used = len;
	int rc = sqlite3_prepare_v2(e->db, sql, (int)len, &st, &tail);
	if (tail)
		*used = (size_t)(tail - sql);
	if (rc != SQLITE_OK) {
		int off = sqlite3_error_offset(e->db);
		if (off >= 0)
			return err_at(err, SUQL_ERROR, sql, len, (size_t)off, 0, NULL, "%s",
			              sqlite3_errmsg(e->db));
		return err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(e->db));
	}
	if (!st)
		return SUQL_OK;
	if (sink && sink->columns && sqlite3_column_count(st) > 0)
		sink->columns(sink->ctx, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sink && sink->row && sink->row(sink->ctx, st))
			break;
	}
	SuqlStatus s = SUQL_OK;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		s = err_set(err, rc == SQLITE_INTERRUPT ? SUQL_INTERRUPT : SUQL_ERROR, "%s",
		            sqlite3_errmsg(e->db));
	sqlite3_finalize(st);
	return s;
}

SuqlStatus engine_set(Engine *e, const char *key, const char *value, SuqlErr *err)
{
	(void)e;
	(void)value;
	return err_set(err, SUQL_USAGE, "unknown setting '%s'", key);
}

void engine_settings(const Engine *e, SBuf *out)
{
	(void)e;
	(void)out;
}
