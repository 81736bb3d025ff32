/*
 * fuzz_parse.c: a libFuzzer target over the front end (built by scripts/fuzz.sh, not by
 * the Makefile's tool rule). For each input: parse every statement; on success print it
 * both ways, check that the normalised SUQL parses back to the same tree, that the SQL
 * translation parses as well, and that the structural dump does not crash. It also tests
 * the grammar against SQLite's on plain SQL: text SQLite prepares must parse (unless it
 * hits suql's caps or SUQL's own rules), and text SQLite calls a syntax error must be
 * rejected, or translate to SQL that SQLite does not prepare either. Any violated
 * property aborts.
 */
#include "sql/ast.h"
#include "sql/parse.h"
#include "sql/print.h"

#include <sqlite3.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sqlite3 *db;

/* What SQLite makes of sql[0..n) on a database with the tables of the seed corpora:
   0 it prepares, 1 a syntax error, 2 another error (which may stop SQLite's parser before
   a later syntax error, e.g. "no such table" in ALTER TABLE). */
static int sqlite_verdict(const char *sql, size_t n)
{
	if (!db) {
		sqlite3_open(":memory:", &db);
		sqlite3_exec(db, "CREATE TABLE t1(a,b,c,d,e); CREATE TABLE t2(a,b,c,d,e);"
		             "CREATE TABLE t3(a,b,c,d,e); CREATE TABLE t(a,b,c);"
		             "CREATE TABLE tab0(pk,col0,col1,col2,col3,col4,col5);"
		             "CREATE TABLE tab1(pk,col0,col1,col2,col3,col4,col5);", NULL, NULL, NULL);
	}
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, (int)n, &st, NULL);
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		return 0;
	const char *m = sqlite3_errmsg(db);
	return strstr(m, "syntax error") || strstr(m, "unrecognized token") ||
	       strstr(m, "incomplete input") ? 1 : 2;
}

/* suql rejections that SQLite has no counterpart for (ENUM(1, 2) is a sized type to
   SQLite, a list of values to suql, which takes only strings there) */
static int suql_only_error(const char *msg)
{
	static const char *const WORDS[] = {"too deep", "too long", "NUL byte", "answer()",
	                                    "summary()", "unnest()", "'::'", "ARRAY[", "ILIKE",
	                                    "(T[])", "an ENUM value", "INTERVAL"};
	for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
		if (strstr(msg, WORDS[i]))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	size_t pos = 0;
	while (pos < size) {
		Ast *ast = NULL;
		size_t end = 0;
		SuqlErr err = {0};
		SuqlStatus s = parse_statement(src, size, pos, &ast, &end, &err);
		int plain = !memchr(src + pos, 0, end > pos ? end - pos : 0);
		if (s != SUQL_OK && plain && err.msg && !suql_only_error(err.msg) &&
		    sqlite_verdict(src + pos, end - pos) == 0) {
			fprintf(stderr, "SQLite takes what suql rejects:\n%.*s\n%s\n", (int)(end - pos),
			        src + pos, err.msg);
			abort();
		}
		if (s == SUQL_OK && ast && !ast->stmt->has_suql && plain &&
		    sqlite_verdict(src + pos, end - pos) == 1) {
			char *l = print_sql_stmt(ast);
			if (sqlite_verdict(l, strlen(l)) == 0) {
				fprintf(stderr, "suql takes a syntax error and SQLite takes its translation:"
				        "\n%.*s\n%s\n", (int)(end - pos), src + pos, l);
				abort();
			}
			free(l);
		}
		if (s == SUQL_OK && ast) {
			char *q = print_suql_stmt(ast);
			char *l = print_sql_stmt(ast);
			SBuf d = SBUF_INIT;
			ast_dump_stmt(&d, ast->stmt);
			Ast *again = NULL;
			size_t e2;
			SuqlErr err2 = {0};
			if (parse_statement(q, strlen(q), 0, &again, &e2, &err2) != SUQL_OK || !again) {
				fprintf(stderr, "normalised SUQL does not parse:\n%s\n%s\n", q,
				        err2.msg ? err2.msg : "(empty)");
				abort();
			}
			if (!ast_equal(ast->stmt, again->stmt)) {
				SBuf d2 = SBUF_INIT;
				ast_dump_stmt(&d2, again->stmt);
				fprintf(stderr, "round trip changes the tree:\n%s\n%s\n%s\n", q, sb_str(&d),
				        sb_str(&d2));
				abort();
			}
			ast_free(again);
			err_clear(&err2);
			/* the SQLite translation is SQL the parser accepts too (unless the
			   translation's own nesting passes the depth cap) */
			Ast *sqlast = NULL;
			if (parse_statement(l, strlen(l), 0, &sqlast, &e2, &err2) != SUQL_OK &&
			    !(err2.msg && strstr(err2.msg, "too deep"))) {
				fprintf(stderr, "the SQL translation does not parse:\n%s\n%s\n", l,
				        err2.msg ? err2.msg : "");
				abort();
			}
			ast_free(sqlast);
			err_clear(&err2);
			sb_free(&d);
			free(q);
			free(l);
			ast_free(ast);
		} else if (s != SUQL_OK && (!err.msg || !*err.msg)) {
			fprintf(stderr, "error without a message\n");
			abort();
		}
		err_clear(&err);
		if (end <= pos)
			break;
		pos = end;
	}
	return 0;
}
