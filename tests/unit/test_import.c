/*
 * Data-driven tests of the importer. Every file under tests/import/good and
 * tests/import/bad has a companion FILE.expect:
 *
 *   # comment
 *   args: --types 'price=ENUM('cheap')' --array-sep '|'   import options, shell-quoted
 *   table: t                       the table to import into (default t)
 *   setup: SQL                     run before the import (any number of lines)
 *   types: id INTEGER, name TEXT   good: the columns' types afterwards (SUQL types shown)
 *   rows:                          good: the rows that follow, quote() of each value, '|'
 *   1|'Luigi'|NULL
 *   error: FILE:7:2: ...           bad: the first line of the message (FILE: the path)
 *
 * A bad import must leave the database exactly as it was: the test compares a dump of
 * every table (the catalog included) before and after.
 */
#include "base/util.h"
#include "import/import.h"
#include "store/catalog.h"
#include "unit.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static const char *top(void)
{
	const char *t = getenv("SUQL_TOP");
	return t && *t ? t : ".";
}

/* Split a line shell-style: blanks separate, '...' and "..." quote. */
static int split_args(const char *s, char **argv, int max)
{
	int n = 0;
	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		SBuf b = SBUF_INIT;
		sb_putn(&b, "", 0);
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				while (*s && *s != q)
					sb_putc(&b, *s++);
				if (*s)
					s++;
			} else {
				sb_putc(&b, *s++);
			}
		}
		argv[n++] = sb_steal(&b);
	}
	return n;
}

/* Every table's definition and rows, in a stable order. */
static char *dump(sqlite3 *db)
{
	SBuf out = SBUF_INIT;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL "
	                   "ORDER BY name", -1, &st, NULL);
	char *names[256];
	int nn = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *sql = (const char *)sqlite3_column_text(st, 1);
		sb_printf(&out, "%s\n", sql);
		if (str_has_prefix(sql, "CREATE TABLE") && nn < 256)
			names[nn++] = xstrdup(name);
	}
	sqlite3_finalize(st);
	for (int i = 0; i < nn; i++) {
		SBuf q = SBUF_INIT;
		sb_puts(&q, "SELECT * FROM ");
		sb_put_ident(&q, names[i], strlen(names[i]));
		if (sqlite3_prepare_v2(db, q.s, -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW) {
				for (int c = 0; c < sqlite3_column_count(st); c++) {
					const unsigned char *t = sqlite3_column_text(st, c);
					sb_printf(&out, "%d:%s|", sqlite3_column_type(st, c), t ? (const char *)t : "");
				}
				sb_putc(&out, '\n');
			}
			sqlite3_finalize(st);
		}
		sb_free(&q);
		free(names[i]);
	}
	return sb_steal(&out);
}

/* The table's columns and rows in the expect file's notation. */
static void describe(sqlite3 *db, const char *table, SBuf *types, SBuf *rows)
{
	CatColumn *cols;
	int n;
	SuqlErr err = {0};
	Store *store = store_sqlite_wrap(db);
	SuqlStatus found = catalog_table(store, table, &cols, &n, &err);
	store_close(store);
	if (found != SUQL_OK) {
		sb_printf(types, "(%s)", err.msg);
		err_clear(&err);
		return;
	}
	SBuf q = SBUF_INIT;
	sb_puts(&q, "SELECT ");
	for (int i = 0; i < n; i++) {
		sb_printf(types, "%s%s %s", i ? ", " : "", cols[i].column, cols[i].type);
		sb_puts(&q, i ? ", quote(" : "quote(");
		sb_put_ident(&q, cols[i].column, strlen(cols[i].column));
		sb_puts(&q, ")");
	}
	sb_puts(&q, " FROM ");
	sb_put_ident(&q, table, strlen(table));
	sb_puts(&q, " ORDER BY rowid");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q.s, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int i = 0; i < n; i++) {
				if (i)
					sb_putc(rows, '|');
				for (const char *c = (const char *)sqlite3_column_text(st, i); *c; c++) {
					if (*c == '\n')
						sb_puts(rows, "\\n");
					else if (*c == '\r')
						sb_puts(rows, "\\r");
					else
						sb_putc(rows, *c);
				}
			}
			sb_putc(rows, '\n');
		}
		sqlite3_finalize(st);
	}
	sb_free(&q);
	catalog_columns_free(cols, n);
}

static char *replace_file(const char *s, const char *path)
{
	SBuf b = SBUF_INIT;
	const char *p;
	while ((p = strstr(s, "FILE")) != NULL) {
		sb_putn(&b, s, (size_t)(p - s));
		sb_puts(&b, path);
		s = p + 4;
	}
	sb_puts(&b, s);
	return sb_steal(&b);
}

static void run_case(const char *dir, const char *file, int bad)
{
	char *path = xprintf("%s/%s", dir, file);
	char *xpath = xprintf("%s.expect", path);
	char *name = xprintf("import %s/%s", bad ? "bad" : "good", file);
	size_t len;
	char *spec = util_read_file(xpath, &len);
	if (!spec) {
		printf("not ok %s\n# missing %s\n", name, xpath);
		unit_failed++;
		goto out;
	}
	sqlite3 *db;
	sqlite3_open(":memory:", &db);
	Store *st = store_sqlite_wrap(db);
	SuqlErr err = {0};
	/* Something to keep intact: a table, its rows and a catalog entry. */
	sqlite3_exec(db, "CREATE TABLE keep(a INTEGER, b TEXT); INSERT INTO keep VALUES (1, 'x');",
	             0, 0, 0);
	catalog_set(st, "keep", "b", "FREE_TEXT", &err);
	const char *table = "t";
	char *argv[32];
	int argc = 0;
	SBuf want_types = SBUF_INIT, want_rows = SBUF_INIT;
	char *want_error = NULL, *table_buf = NULL;
	int in_rows = 0;
	for (char *line = strtok(spec, "\n"); line; line = strtok(NULL, "\n")) {
		if (in_rows) {
			sb_printf(&want_rows, "%s\n", line);
		} else if (line[0] == '#') {
			continue;
		} else if (str_has_prefix(line, "args:")) {
			argc = split_args(line + 5, argv, 32);
		} else if (str_has_prefix(line, "table:")) {
			table_buf = xstrdup(line + 6 + strspn(line + 6, " "));
			table = table_buf;
		} else if (str_has_prefix(line, "setup:")) {
			char *msg = NULL;
			if (sqlite3_exec(db, line + 6, 0, 0, &msg) != SQLITE_OK)
				printf("# setup failed: %s\n", msg);
			sqlite3_free(msg);
		} else if (str_has_prefix(line, "types:")) {
			sb_puts(&want_types, line + 6 + strspn(line + 6, " "));
		} else if (str_has_prefix(line, "rows:")) {
			in_rows = 1;
		} else if (str_has_prefix(line, "error:")) {
			want_error = replace_file(line + 6 + strspn(line + 6, " "), path);
		}
	}
	/* import_parse_args takes FILE TABLE first */
	char *full[34];
	full[0] = path;
	full[1] = (char *)table;
	for (int i = 0; i < argc; i++)
		full[i + 2] = argv[i];
	const char *f, *t;
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	opt.progress = PROGRESS_OFF;
	char *before = dump(db);
	SuqlStatus s = import_parse_args(argc + 2, full, &f, &t, &opt, &err);
	if (s == SUQL_OK)
		s = import_file(st, f, t, &opt, &err);
	if (bad) {
		char *first = err.msg ? xstrndup(err.msg, strcspn(err.msg, "\n")) : xstrdup("(no error)");
		char *after = dump(db);
		if (s == SUQL_OK) {
			printf("not ok %s\n# the import succeeded\n", name);
			unit_failed++;
		} else if (!want_error || strcmp(first, want_error) != 0) {
			printf("not ok %s\n# got:  %s\n# want: %s\n", name, first,
			       want_error ? want_error : "(no error: line)");
			unit_failed++;
		} else if (strcmp(before, after) != 0) {
			printf("not ok %s\n# the database changed\n# before:\n%s# after:\n%s", name, before,
			       after);
			unit_failed++;
		} else {
			printf("ok %s\n", name);
		}
		free(first);
		free(after);
	} else {
		SBuf types = SBUF_INIT, rows = SBUF_INIT;
		if (s == SUQL_OK)
			describe(db, table, &types, &rows);
		if (s != SUQL_OK) {
			printf("not ok %s\n# %s\n", name, err.msg);
			unit_failed++;
		} else if (strcmp(sb_str(&types), sb_str(&want_types)) != 0 ||
		           strcmp(sb_str(&rows), sb_str(&want_rows)) != 0) {
			printf("not ok %s\n# got types:  %s\n# want types: %s\n# got rows:\n%s# want rows:\n%s",
			       name, sb_str(&types), sb_str(&want_types), sb_str(&rows), sb_str(&want_rows));
			unit_failed++;
		} else {
			printf("ok %s\n", name);
		}
		sb_free(&types);
		sb_free(&rows);
	}
	free(before);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(want_error);
	free(table_buf);
	sb_free(&want_types);
	sb_free(&want_rows);
	err_clear(&err);
	store_close(st);
	sqlite3_close(db);
	free(spec);
out:
	free(path);
	free(xpath);
	free(name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *sub, int bad)
{
	char *dir = xprintf("%s/tests/import/%s", top(), sub);
	DIR *d = opendir(dir);
	if (!d) {
		printf("not ok import %s\n# cannot open %s\n", sub, dir);
		unit_failed++;
		free(dir);
		return;
	}
	char *files[512];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL && n < 512) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || (l > 7 && strcmp(de->d_name + l - 7, ".expect") == 0))
			continue;
		files[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(files, (size_t)n, sizeof *files, cmp_str);
	for (int i = 0; i < n; i++) {
		run_case(dir, files[i], bad);
		free(files[i]);
	}
	free(dir);
}

int main(void)
{
	run_dir("good", 0);
	run_dir("bad", 1);
	return unit_done();
}
