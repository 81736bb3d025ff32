/*
 * fuzz_parse.c: a libFuzzer target over the front end (built by scripts/fuzz.sh, not by
 * the Makefile's tool rule). For each input: parse every statement; on success print it
 * both ways, check that the normalised SUQL parses back to the same tree, that the SQL
 * translation parses as well, and that the structural dump does not crash. Any violated
 * property aborts.
 */
#include "ast.h"
#include "parse.h"
#include "print.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	size_t pos = 0;
	while (pos < size) {
		Ast *ast = NULL;
		size_t end = 0;
		SuqlErr err = {0};
		SuqlStatus s = parse_statement(src, size, pos, &ast, &end, &err);
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
