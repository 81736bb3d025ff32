/*
 * corpora.c: checks the front end against corpora of real SQL (build/corpora).
 *
 *   corpora spider DEV.sql TABLES.json   Spider's dev queries, against empty tables built
 *                                        from its schemas (one database per db_id)
 *   corpora sqlfluff FILE...             each file's statements in order on a scratch
 *                                        database (earlier CREATEs exist for later ones)
 *   corpora roundtrip FILE...            every statement of sqllogictest files
 *   corpora seeds OUTDIR FILE...         write statements of any of these as one file each
 *                                        (a seed corpus for the fuzzer)
 *
 * For each statement: it must parse; parse(print_suql(tree)) must give the same tree; and
 * (spider, sqlfluff) the translated SQL must prepare in SQLite exactly when the original
 * does. Prints one ok/not ok line per corpus or file, with "# ..." details.
 */
#include "base/util.h"
#include "sql/ast.h"
#include "sql/lex.h"
#include "sql/parse.h"
#include "sql/print.h"

#include <jansson.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Stats {
	int stmts, parse_fail, roundtrip_fail, prepare_mismatch, both_fail, both_reject;
	int result_mismatch, results_same;   /* spider: queries run on sample rows */
	int notes;
	SBuf out;
} Stats;

static void note(Stats *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(Stats *s, const char *fmt, ...)
{
	if (s->notes++ >= 25)
		return;
	va_list ap;
	va_start(ap, fmt);
	sb_puts(&s->out, "# ");
	sb_vprintf(&s->out, fmt, ap);
	sb_putc(&s->out, '\n');
	va_end(ap);
}

static void flat(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\t')
			*s = ' ';
}

/* parse(print_suql(ast)) must be ast. Returns 1 when it holds. */
static int roundtrip(Stats *s, const Ast *ast, const char *where)
{
	char *q = print_suql_stmt(ast);
	Ast *again = NULL;
	size_t end;
	SuqlErr err = {0};
	int ok = 0;
	if (parse_statement(q, strlen(q), 0, &again, &end, &err) != SUQL_OK || !again) {
		flat(err.msg ? err.msg : q);
		note(s, "%s: the normalised SUQL does not parse: %.300s", where, q);
	} else if (!ast_equal(ast->stmt, again->stmt)) {
		note(s, "%s: round trip changes the tree: %.300s", where, q);
	} else {
		ok = 1;
	}
	if (!ok)
		s->roundtrip_fail++;
	err_clear(&err);
	ast_free(again);
	free(q);
	return ok;
}

static int prepares(sqlite3 *db, const char *sql, size_t len, char **msg)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, (int)len, &st, NULL);
	if (rc != SQLITE_OK && msg)
		*msg = xstrdup(sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc == SQLITE_OK;
}

/* Prepare the original text on da and the translation on db (which may be the same
   database); they must agree. Returns 1 when both prepare. */
static int compare_prepare(Stats *s, sqlite3 *da, const char *orig, size_t olen, sqlite3 *db,
                           const char *sql, const char *where)
{
	char *m1 = NULL, *m2 = NULL;
	int a = prepares(da, orig, olen, &m1);
	int b = prepares(db, sql, strlen(sql), &m2);
	if (a != b) {
		s->prepare_mismatch++;
		note(s, "%s: original %s, translation %s (%s): %.300s", where,
		     a ? "prepares" : "fails", b ? "prepares" : "fails", a ? m2 : m1, sql);
	} else if (!a && strcmp(m1, m2) != 0) {
		s->prepare_mismatch++;
		note(s, "%s: SQLite gives different errors: %s / %s", where, m1, m2);
	} else if (!a) {
		s->both_fail++;
	}
	free(m1);
	free(m2);
	return a && b;
}

static char *result_text(sqlite3 *db, const char *sql, size_t len);

/* Run the original on da and the translation on db: same column names and rows (when
   both run at all). */
static void compare_results(Stats *s, sqlite3 *da, const char *orig, size_t olen, sqlite3 *db,
                            const char *sql, const char *where)
{
	char *ra = result_text(da, orig, olen);
	char *rb = result_text(db, sql, strlen(sql));
	if (ra && rb && strcmp(ra, rb) != 0) {
		s->result_mismatch++;
		note(s, "%s: different results: %.300s", where, sql);
	} else if (ra && rb) {
		s->results_same++;
	}
	free(ra);
	free(rb);
}

static int report(Stats *s, const char *name)
{
	int bad = s->parse_fail || s->roundtrip_fail || s->prepare_mismatch || s->result_mismatch;
	printf("%s %s\n# %d statements, %d do not parse, %d fail the round trip, %d prepare "
	       "differently, %d fail to prepare both ways (same error), %d syntax errors for SQLite too\n",
	       bad ? "not ok" : "ok", name, s->stmts, s->parse_fail, s->roundtrip_fail,
	       s->prepare_mismatch, s->both_fail, s->both_reject);
	if (s->results_same || s->result_mismatch)
		printf("# run both ways: %d give the same column names and rows, %d differ\n",
		       s->results_same, s->result_mismatch);
	fputs(sb_str(&s->out), stdout);
	sb_free(&s->out);
	return bad;
}

/* ---- spider ---- */
static void spider_db(sqlite3 *db, json_t *schema)
{
	json_t *tables = json_object_get(schema, "table_names_original");
	json_t *cols = json_object_get(schema, "column_names_original");
	json_t *types = json_object_get(schema, "column_types");
	for (size_t t = 0; t < json_array_size(tables); t++) {
		SBuf b = SBUF_INIT;
		const char *tn = json_string_value(json_array_get(tables, t));
		sb_puts(&b, "CREATE TABLE ");
		sb_put_ident(&b, tn, strlen(tn));
		sb_puts(&b, " (");
		int n = 0;
		for (size_t c = 0; c < json_array_size(cols); c++) {
			json_t *pair = json_array_get(cols, c);
			if (json_integer_value(json_array_get(pair, 0)) != (json_int_t)t)
				continue;
			const char *cn = json_string_value(json_array_get(pair, 1));
			const char *ty = json_string_value(json_array_get(types, c));
			if (n++)
				sb_puts(&b, ", ");
			sb_put_ident(&b, cn, strlen(cn));
			sb_puts(&b, ty && strcmp(ty, "number") == 0 ? " NUMERIC" : " TEXT");
		}
		sb_puts(&b, ")");
		sqlite3_exec(db, b.s, NULL, NULL, NULL);
		/* a few rows of small values (some NULL, repeated, mixed types), the same for
		   every run, so queries return rows to compare */
		for (int r = 0; r < 6; r++) {
			sb_truncate(&b, 0);
			sb_puts(&b, "INSERT INTO ");
			sb_put_ident(&b, tn, strlen(tn));
			sb_puts(&b, " VALUES (");
			for (int k = 0; k < n; k++) {
				static const char *const V[] = {"1", "'a'", "2", "NULL", "'b'", "3.5",
				                                "'A'", "0"};
				sb_puts(&b, k ? ", " : "");
				sb_puts(&b, V[(r * 3 + k * 5 + (int)t) % 8]);
			}
			sb_puts(&b, ")");
			sqlite3_exec(db, b.s, NULL, NULL, NULL);
		}
		sb_free(&b);
	}
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result of sql on db as text: column names, then the rows sorted (the two
   statements may visit rows in different orders where the query does not fix one).
   NULL when it fails. */
static char *result_text(sqlite3 *db, const char *sql, size_t len)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, (int)len, &st, NULL) != SQLITE_OK || !st)
		return NULL;
	SBuf out = SBUF_INIT;
	int nc = sqlite3_column_count(st);
	for (int i = 0; i < nc; i++)
		sb_printf(&out, "%s%s", i ? "|" : "", sqlite3_column_name(st, i));
	sb_putc(&out, '\n');
	char **rows = NULL;
	size_t nrows = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && nrows < 10000) {
		SBuf row = SBUF_INIT;
		for (int i = 0; i < nc; i++) {
			const unsigned char *v = sqlite3_column_text(st, i);
			sb_printf(&row, "%s%d:%s", i ? "|" : "", sqlite3_column_type(st, i),
			          v ? (const char *)v : "");
		}
		if (nrows == cap) {
			cap = cap ? cap * 2 : 64;
			rows = xrealloc(rows, cap * sizeof *rows);
		}
		rows[nrows++] = row.s ? sb_steal(&row) : xstrdup("");
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		sb_printf(&out, "error: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (nrows)
		qsort(rows, nrows, sizeof *rows, cmp_line);
	for (size_t i = 0; i < nrows; i++) {
		sb_puts(&out, rows[i]);
		sb_putc(&out, '\n');
		free(rows[i]);
	}
	free(rows);
	return sb_steal(&out);
}

static int run_spider(const char *dev, const char *tables_path)
{
	Stats s = {0};
	json_error_t jerr;
	json_t *tables = json_load_file(tables_path, 0, &jerr);
	size_t len;
	char *text = util_read_file(dev, &len);
	if (!tables || !text) {
		printf("not ok spider\n# cannot read %s or %s\n", dev, tables_path);
		return 1;
	}
	char *db_id = NULL, *built = NULL;   /* the question's db_id; the one db holds */
	sqlite3 *db = NULL;
	int lineno = 0;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		if (strncmp(p, "Question", 8) == 0) {
			char *bar = strstr(p, "|||");
			free(db_id);
			db_id = NULL;
			if (bar) {
				bar += 3;
				while (*bar == ' ')
					bar++;
				db_id = xstrdup(bar);
				size_t l = strlen(db_id);
				while (l && (db_id[l - 1] == ' ' || db_id[l - 1] == '\r'))
					db_id[--l] = '\0';
			}
		} else if (strncmp(p, "SQL:", 4) == 0 && db_id) {
			const char *q = p + 4;
			while (*q == ' ')
				q++;
			char where[64];
			snprintf(where, sizeof where, "spider_dev.sql:%d", lineno);
			s.stmts++;
			/* consecutive questions on one db_id share the database built for it
			   (Spider's queries only read; anything else makes the next one rebuild) */
			if (!built || strcmp(built, db_id) != 0) {
				sqlite3_close(db);
				sqlite3_open(":memory:", &db);
				for (size_t i = 0; i < json_array_size(tables); i++) {
					json_t *sc = json_array_get(tables, i);
					const char *id = json_string_value(json_object_get(sc, "db_id"));
					if (id && strcmp(id, db_id) == 0)
						spider_db(db, sc);
				}
				free(built);
				built = xstrdup(db_id);
			}
			Ast *ast = NULL;
			size_t end;
			SuqlErr err = {0};
			if (parse_statement(q, strlen(q), 0, &ast, &end, &err) != SUQL_OK || !ast) {
				s.parse_fail++;
				flat(err.msg ? err.msg : (char *)"");
				note(&s, "%s: does not parse: %s", where, err.msg ? err.msg : "empty");
			} else {
				roundtrip(&s, ast, where);
				char *sql = print_sql_stmt(ast);
				compare_prepare(&s, db, q, strlen(q), db, sql, where);
				/* same column names and rows on the sample data */
				compare_results(&s, db, q, strlen(q), db, sql, where);
				free(sql);
				if (ast->stmt->kind != ST_SELECT) {   /* it may have written: rebuild */
					free(built);
					built = NULL;
				}
			}
			err_clear(&err);
			ast_free(ast);
		}
		p = nl ? nl + 1 : NULL;
	}
	sqlite3_close(db);
	free(built);
	free(db_id);
	free(text);
	json_decref(tables);
	return report(&s, "spider");
}

/* ---- sqlfluff ---- */
static int run_sqlfluff(int n, char **files)
{
	Stats s = {0};
	for (int f = 0; f < n; f++) {
		size_t len;
		char *text = util_read_file(files[f], &len);
		if (!text)
			continue;
		const char *base = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
		/* two scratch databases: one runs the originals, one the translations */
		sqlite3 *da, *db;
		sqlite3_open(":memory:", &da);
		sqlite3_open(":memory:", &db);
		size_t pos = 0;
		while (pos < len) {
			Ast *ast = NULL;
			size_t end;
			SuqlErr err = {0};
			int line, col;
			err_linecol(text, len, pos, &line, &col);
			char where[128];
			SuqlStatus st = parse_statement(text, len, pos, &ast, &end, &err);
			if (st == SUQL_OK && ast) {
				err_linecol(text, len, ast->stmt->span.off, &line, &col);
				snprintf(where, sizeof where, "%s:%d", base, line);
				s.stmts++;
				roundtrip(&s, ast, where);
				char *sql = print_sql_stmt(ast);
				const char *orig = text + ast->stmt->span.off;
				size_t olen = ast->stmt->span.len;
				if (compare_prepare(&s, da, orig, olen, db, sql, where) &&
				    ast->stmt->kind == ST_SELECT)
					compare_results(&s, da, orig, olen, db, sql, where);
				/* run both so later statements see earlier tables */
				char *tail = xstrndup(orig, olen);
				sqlite3_exec(da, tail, NULL, NULL, NULL);
				sqlite3_exec(db, sql, NULL, NULL, NULL);
				free(tail);
				free(sql);
			} else if (st != SUQL_OK) {
				/* SQLite's own verdict on the same text: a syntax error there too makes
				   the rejection right */
				char *m = NULL;
				int sq = prepares(da, text + pos, end - pos, &m);
				s.stmts++;
				Lexer lx;
				lex_init(&lx, text, len, pos);
				err_linecol(text, len, lex_next(&lx).off, &line, &col);
				snprintf(where, sizeof where, "%s:%d", base, line);
				flat(err.msg);
				if (!sq && m && strstr(m, "syntax error")) {
					s.both_reject++;
					note(&s, "%s: rejected, as SQLite rejects it (%s): %s", where, m, err.msg);
				} else {
					s.parse_fail++;
					note(&s, "%s: does not parse: %s", where, err.msg);
				}
				free(m);
			}
			err_clear(&err);
			ast_free(ast);
			if (end <= pos)
				break;
			pos = end;
		}
		sqlite3_close(da);
		sqlite3_close(db);
		free(text);
	}
	return report(&s, "sqlfluff-sqlite");
}

/* ---- sqllogictest statements ---- */
/* Call fn for the SQL of every statement/query record of a sqllogictest file. */
typedef void (*SqlFn)(void *ctx, const char *sql, int lineno, int expect_error);

static void slt_records(const char *path, SqlFn fn, void *ctx)
{
	size_t len;
	char *text = util_read_file(path, &len);
	if (!text)
		return;
	char *p = text;
	int lineno = 0;
	int in_sql = 0, start = 0, expect_error = 0;
	SBuf sql = SBUF_INIT;
	while (p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		int blank = p[0] == '\0' || (p[0] == '\r' && p[1] == '\0');
		if (in_sql && (blank || strncmp(p, "----", 4) == 0)) {
			fn(ctx, sb_str(&sql), start, expect_error);
			sb_truncate(&sql, 0);
			in_sql = 0;
		} else if (in_sql) {
			if (p[0] != '#') {
				if (sql.len)
					sb_putc(&sql, '\n');
				sb_puts(&sql, p);
			}
		} else if (strncmp(p, "statement ", 10) == 0 || strncmp(p, "query ", 6) == 0) {
			in_sql = 1;
			start = lineno + 1;
			expect_error = strncmp(p, "statement error", 15) == 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (in_sql)
		fn(ctx, sb_str(&sql), start, expect_error);
	sb_free(&sql);
	free(text);
}

typedef struct RtCtx {
	Stats *s;
	const char *name;
} RtCtx;

static void rt_one(void *ctx, const char *sql, int lineno, int expect_error)
{
	RtCtx *c = ctx;
	Ast *ast = NULL;
	size_t end;
	SuqlErr err = {0};
	char where[160];
	snprintf(where, sizeof where, "%s:%d", c->name, lineno);
	c->s->stmts++;
	if (parse_statement(sql, strlen(sql), 0, &ast, &end, &err) != SUQL_OK || !ast) {
		if (!expect_error) {
			c->s->parse_fail++;
			flat(err.msg ? err.msg : (char *)"");
			note(c->s, "%s: does not parse: %s", where, err.msg ? err.msg : "empty");
		}
	} else {
		roundtrip(c->s, ast, where);
	}
	err_clear(&err);
	ast_free(ast);
}

static int run_roundtrip(int n, char **files)
{
	Stats s = {0};
	for (int i = 0; i < n; i++) {
		const char *name = strstr(files[i], "/test/") ? strstr(files[i], "/test/") + 6
		                                               : files[i];
		RtCtx c = {&s, name};
		slt_records(files[i], rt_one, &c);
	}
	return report(&s, "sqllogictest round trip");
}

/* ---- fuzz seeds ---- */
typedef struct SeedCtx {
	const char *dir;
	int n;
} SeedCtx;

static void seed_write(SeedCtx *c, const char *sql, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/seed-%06d.sql", c->dir, c->n++);
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(sql, 1, len, f);
		fclose(f);
	}
}

static void seed_one(void *ctx, const char *sql, int lineno, int expect_error)
{
	(void)lineno;
	(void)expect_error;
	seed_write(ctx, sql, strlen(sql));
}

static int run_seeds(const char *dir, int n, char **files)
{
	SeedCtx c = {dir, 0};
	mkdir(dir, 0777);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(files[i]);
		if (l > 5 && strcmp(files[i] + l - 5, ".test") == 0) {
			slt_records(files[i], seed_one, &c);
			continue;
		}
		size_t len;
		char *text = util_read_file(files[i], &len);
		if (!text)
			continue;
		/* spider lines start with "SQL:"; other files are split into statements */
		if (strstr(files[i], "spider")) {
			for (char *p = text; p;) {
				char *nl = strchr(p, '\n');
				if (nl)
					*nl = '\0';
				if (strncmp(p, "SQL:", 4) == 0)
					seed_write(&c, p + 4, strlen(p + 4));
				p = nl ? nl + 1 : NULL;
			}
		} else {
			/* only the statements' ends are needed: no parse */
			size_t pos = 0;
			while (pos < len) {
				int complete, empty;
				size_t end = lex_statement_end(text, len, pos, &complete, &empty);
				if (end <= pos)
					break;
				seed_write(&c, text + pos, end - pos);
				pos = end;
			}
		}
		free(text);
	}
	printf("%d seeds written to %s\n", c.n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "spider") == 0)
		return run_spider(argv[2], argv[3]);
	if (argc >= 2 && strcmp(argv[1], "sqlfluff") == 0)
		return run_sqlfluff(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "roundtrip") == 0)
		return run_roundtrip(argc - 2, argv + 2);
	if (argc >= 3 && strcmp(argv[1], "seeds") == 0)
		return run_seeds(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: corpora spider DEV.sql TABLES.json | sqlfluff FILE... | "
	        "roundtrip FILE... | seeds OUTDIR FILE...\n");
	return 2;
}
