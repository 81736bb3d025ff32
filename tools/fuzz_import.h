/*
 * fuzz_import.h: the body the importer's libFuzzer targets share (tools/fuzz_csv.c,
 * tools/fuzz_json.c; built by scripts/fuzz.sh, not by the Makefile's tool rule). The
 * first byte of an input picks the options (separator, list separator, declared types,
 * importing twice so the second appends); the rest is the file. Properties, any violation
 * aborts:
 *   - a failed import says why, naming the file (reader errors also say where), and leaves
 *     the database as it was: no table, no catalog entry;
 *   - a successful import stored as many rows as it reports, and no text value holding a
 *     NUL byte (SQLite would cut it short: such input is an error).
 */
#include "base/util.h"
#include "import/import.h"

#include <sqlite3.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long long fuzz_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void fuzz_fail(const char *what, const char *name, const uint8_t *data, size_t size)
{
	fprintf(stderr, "%s (%s, %zu bytes)\n", what, name, size);
	fwrite(data, 1, size > 400 ? 400 : size, stderr);
	fputc('\n', stderr);
	abort();
}

/* No text value of t holds a NUL byte. */
static int fuzz_no_nul(sqlite3 *db)
{
	sqlite3_stmt *st;
	int ok = 1;
	if (sqlite3_prepare_v2(db, "SELECT * FROM t", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (ok && sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			if (sqlite3_column_type(st, i) != SQLITE_TEXT)
				continue;
			const char *v = (const char *)sqlite3_column_text(st, i);
			if (v && strlen(v) != (size_t)sqlite3_column_bytes(st, i))
				ok = 0;
		}
	sqlite3_finalize(st);
	return ok;
}

static void fuzz_import(const uint8_t *data, size_t size, const char *const *names, int nnames)
{
	if (size < 1)
		return;
	static const char *const TYPES[] = {
		NULL, NULL, "a=FREE_TEXT[]", "a=ENUM('x', 'y')", "b=INTEGER", "a=TEXT[],b=REAL",
		"c=BOOLEAN", "a=ENUM('x','y')[]",
	};
	static const char DELIMS[] = {0, ';', '\t', '|'};
	unsigned k = data[0];
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	opt.progress = PROGRESS_OFF;
	opt.delim = DELIMS[k & 3];
	opt.types = TYPES[(k >> 2) & 7];
	opt.array_sep = (k & 32) ? "|" : NULL;
	int twice = (k & 64) != 0;
	const char *name = names[(k >> 7) % (unsigned)nnames];
	ImportStats stats = {0};
	opt.stats = &stats;
	const char *file = (const char *)data + 1;
	size_t len = size - 1;

	sqlite3 *db = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	Store *st = store_sqlite_wrap(db);
	long long rows = 0;
	for (int round = 0; round < 1 + twice; round++) {
		SuqlErr err = {0};
		long long before = round ? fuzz_count(db, "SELECT count(*) FROM t") : 0;
		SuqlStatus s = import_buffer(st, name, file, len, "t", &opt, &err);
		if (s != SUQL_OK) {
			if (!err.msg || !*err.msg)
				fuzz_fail("a failed import without a message", name, data, size);
			if (s == SUQL_ERROR && strncmp(err.msg, name, strlen(name)) != 0)
				fuzz_fail("an import error that does not name the file", name, data, size);
			long long now = round ? fuzz_count(db, "SELECT count(*) FROM t")
			                      : fuzz_count(db, "SELECT count(*) FROM sqlite_schema "
			                                       "WHERE name = 't'");
			if (now != before)
				fuzz_fail("a failed import changed the database", name, data, size);
			if (!round && fuzz_count(db, "SELECT count(*) FROM sqlite_schema WHERE name = "
			                             "'suql_catalog'") > 0 &&
			    fuzz_count(db, "SELECT count(*) FROM suql_catalog WHERE tbl = 't'") != 0)
				fuzz_fail("a failed import left catalog entries", name, data, size);
			err_clear(&err);
			break;
		}
		rows += stats.rows;
		if (fuzz_count(db, "SELECT count(*) FROM t") != rows)
			fuzz_fail("an import reports another number of rows than it stored", name,
			          data, size);
		if (!fuzz_no_nul(db))
			fuzz_fail("an import stored text with a NUL byte", name, data, size);
		err_clear(&err);
	}
	store_close(st);
	sqlite3_close(db);
}
