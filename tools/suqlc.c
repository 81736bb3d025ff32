/*
 * suqlc.c: the SUQL front end as a command (build/suqlc). For each statement read from the
 * files named (or stdin) it prints the normalised SUQL and the SQLite translation, or the
 * error. Used by the golden tests and the benchmark.
 *
 *   suqlc [FILE...]            "suql: ..." and "sql: ..." lines per statement
 *   suqlc --golden FILE...     run golden test files (see tests/golden/README)
 *   suqlc --bench N [FILE...]  parse and translate everything N times; statements/second
 *   suqlc --bench-exec N [FILE...]  the same with only the SQL printer (what engine_exec
 *                              does before SQLite prepares the statement)
 *   suqlc --ast [FILE...]      the structural dump of each statement
 */
#include "base/util.h"
#include "sql/ast.h"
#include "sql/parse.h"
#include "sql/print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *len)
{
	if (!path || strcmp(path, "-") == 0) {
		SBuf b = SBUF_INIT;
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			sb_putn(&b, buf, n);
		*len = b.len;
		return b.s ? sb_steal(&b) : xstrdup("");
	}
	char *s = util_read_file(path, len);
	if (!s) {
		fprintf(stderr, "suqlc: cannot read %s\n", path);
		exit(2);
	}
	return s;
}

/* Translate every statement of text into out, the way the golden files show it. */
static void translate(const char *text, size_t len, SBuf *out, int ast_dump)
{
	size_t pos = 0;
	while (pos < len) {
		Ast *ast = NULL;
		size_t end = 0;
		SuqlErr err = {0};
		SuqlStatus s = parse_statement(text, len, pos, &ast, &end, &err);
		if (s != SUQL_OK) {
			sb_printf(out, "error: %s\n", err.msg);
			err_clear(&err);
		} else if (ast) {
			if (ast_dump) {
				ast_dump_stmt(out, ast->stmt);
				sb_putc(out, '\n');
			} else {
				char *q = print_suql_stmt(ast);
				char *l = print_sql_stmt(ast);
				sb_printf(out, "suql: %s;\nsql: %s;\n", q, l);
				free(q);
				free(l);
			}
			ast_free(ast);
		}
		if (end <= pos)
			break;
		pos = end;
	}
}

/* Print s line by line as "#   line" detail lines. */
static void print_detail(const char *s)
{
	while (*s) {
		size_t l = strcspn(s, "\n");
		printf("#   %.*s\n", (int)l, s);
		s += l + (s[l] == '\n');
	}
}

/* Golden files: cases separated by blank lines; a case is ">>> input" (continued by
   "... more input" lines) followed by the expected output lines. Lines starting with '#'
   between cases are comments. */
static int golden(const char *path)
{
	size_t len;
	char *text = read_all(path, &len);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int failed = 0, n = 0, line = 1;
	char *p = text, *counted = text;   /* line is the number of the line at counted */
	while (*p) {
		/* skip blank and comment lines */
		if (*p == '\n') { p++; continue; }
		if (*p == '#') { p = strchr(p, '\n'); if (!p) break; p++; continue; }
		if (strncmp(p, ">>> ", 4) != 0) {
			printf("not ok %s: malformed golden file near: %.40s\n", base, p);
			failed++;
			break;
		}
		SBuf in = SBUF_INIT, want = SBUF_INIT;
		for (; counted < p; counted++)
			line += *counted == '\n';
		while (*p && (strncmp(p, ">>> ", 4) == 0 || strncmp(p, "... ", 4) == 0)) {
			char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			if (in.len)
				sb_putc(&in, '\n');
			sb_putn(&in, p + 4, l - 4);
			p = e ? e + 1 : p + l;
		}
		while (*p && *p != '\n') {
			char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p + 1) : strlen(p);
			sb_putn(&want, p, l);
			p += l;
		}
		SBuf got = SBUF_INIT;
		translate(sb_str(&in), in.len, &got, 0);
		n++;
		if (want.len && want.s[want.len - 1] != '\n')
			sb_putc(&want, '\n');
		if (strcmp(sb_str(&want), sb_str(&got)) == 0) {
			printf("ok %s:%d\n", base, line);
		} else {
			failed++;
			printf("not ok %s:%d\n# input: %s\n# want:\n", base, line, sb_str(&in));
			print_detail(sb_str(&want));
			printf("# got:\n");
			print_detail(sb_str(&got));
		}
		sb_free(&in);
		sb_free(&want);
		sb_free(&got);
	}
	if (n == 0) {
		printf("not ok %s: no cases\n", base);
		failed++;
	}
	free(text);
	return failed;
}

static int bench(int rounds, int nfiles, char **files, int both)
{
	SBuf all = SBUF_INIT;
	for (int i = 0; i < nfiles || (nfiles == 0 && i == 0); i++) {
		size_t len;
		char *t = read_all(nfiles ? files[i] : NULL, &len);
		sb_putn(&all, t, len);
		sb_putc(&all, '\n');
		free(t);
	}
	long stmts = 0, errors = 0;
	size_t bytes = 0;
	double t0 = util_now_ms();
	for (int r = 0; r < rounds; r++) {
		size_t pos = 0;
		while (pos < all.len) {
			Ast *ast = NULL;
			size_t end = 0;
			SuqlErr err = {0};
			if (parse_statement(all.s, all.len, pos, &ast, &end, &err) != SUQL_OK) {
				errors++;
				err_clear(&err);
			} else if (ast) {
				char *q = both ? print_suql_stmt(ast) : NULL;
				char *l = print_sql_stmt(ast);
				bytes += strlen(l);
				free(q);
				free(l);
				ast_free(ast);
				stmts++;
			}
			if (end <= pos)
				break;
			pos = end;
		}
	}
	double ms = util_now_ms() - t0;
	printf("statements: %ld (%d rounds of %ld), errors: %ld\n", stmts, rounds,
	       rounds ? stmts / rounds : 0, errors);
	printf("input: %zu bytes per round, output: %zu bytes in all\n", all.len, bytes);
	printf("time: %.1f ms, %.0f statements/second (parse + %s), %.1f MB/s\n", ms,
	       ms > 0 ? (double)stmts * 1000.0 / ms : 0.0, both ? "both printers" : "SQL printer",
	       ms > 0 ? (double)all.len * (double)rounds / 1048.576 / ms : 0.0);
	sb_free(&all);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--golden") == 0) {
		int failed = 0;
		for (int i = 2; i < argc; i++)
			failed += golden(argv[i]);
		return failed ? 1 : 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--bench") == 0)
		return bench(atoi(argv[2]), argc - 3, argv + 3, 1);
	if (argc >= 3 && strcmp(argv[1], "--bench-exec") == 0)
		return bench(atoi(argv[2]), argc - 3, argv + 3, 0);
	int ast_dump = argc >= 2 && strcmp(argv[1], "--ast") == 0;
	int first = 1 + ast_dump;
	SBuf out = SBUF_INIT;
	for (int i = first; i < argc || (i == first && argc == first); i++) {
		size_t len;
		char *t = read_all(i < argc ? argv[i] : NULL, &len);
		translate(t, len, &out, ast_dump);
		free(t);
	}
	fwrite(sb_str(&out), 1, out.len, stdout);
	sb_free(&out);
	return 0;
}
