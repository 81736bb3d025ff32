/*
 * Unit tests around the importer that are not about file contents: missing files, the
 * argument parser, the :import and :index meta-commands, and the progress bar.
 */
#include "base/progress.h"
#include "base/util.h"
#include "cli/meta.h"
#include "engine/engine.h"
#include "import/import.h"
#include "retrieve/retrieve.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static char *slurp(FILE *f)
{
	fflush(f);
	rewind(f);
	SBuf b = SBUF_INIT;
	sb_putn(&b, "", 0);
	char buf[512];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	return sb_steal(&b);
}

static void test_files(void)
{
	sqlite3 *db;
	sqlite3_open(":memory:", &db);
	Store *store = store_sqlite_wrap(db);
	SuqlErr err = {0};
	CHECK(import_file(store, "no/such/x.csv", "t", NULL, &err) == SUQL_IO, "missing file: SUQL_IO");
	CHECK_STR(err.msg, "no such file: no/such/x.csv", "missing file: message");
	CHECK(import_file(store, "tests", "t", NULL, &err) == SUQL_IO && strstr(err.msg, "directory"),
	      "a directory is refused");
	CHECK(import_buffer(store, "x.csv", "a\n1\n", 4, "suql_x", NULL, &err) == SUQL_USAGE,
	      "suql_ table names are reserved");
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	ImportStats st = {0};
	opt.format = IMPORT_JSONL;
	opt.stats = &st;
	const char *data = "{\"a\": 1, \"r\": [\"some words here\"]}\n{\"a\": 2}\n";
	CHECK(import_buffer(store, "memory", data, strlen(data), "t", &opt, &err) == SUQL_OK &&
	      st.rows == 2 && st.columns == 2 && st.created == 1, "import_buffer with --format");
	CHECK(import_buffer(store, "memory", data, strlen(data), "t", &opt, &err) == SUQL_OK &&
	      st.rows == 2 && st.created == 0, "a second import appends");
	store_close(store);
	sqlite3_close(db);
	err_clear(&err);
}

static void test_args(void)
{
	const char *f, *t;
	SuqlErr err = {0};
	ImportOptions o = IMPORT_OPTIONS_INIT;
	char *a1[] = {"x.txt", "tbl", "--format", "csv", "--types", "r=FREE_TEXT[]", "--array-sep",
	              "|", "--delimiter", "\\t", "--index", "--columns", "a,b"};
	CHECK(import_parse_args(13, a1, &f, &t, &o, &err) == SUQL_OK && strcmp(f, "x.txt") == 0 &&
	      strcmp(t, "tbl") == 0 && o.format == IMPORT_CSV && strcmp(o.types, "r=FREE_TEXT[]") == 0 &&
	      strcmp(o.array_sep, "|") == 0 && o.delim == '\t' && o.index && strcmp(o.columns, "a,b") == 0,
	      "args: every option");
	char *a2[] = {"x.csv"};
	CHECK(import_parse_args(1, a2, &f, &t, &o, &err) == SUQL_USAGE && strstr(err.msg, "usage"),
	      "args: a table is required");
	char *a3[] = {"x.csv", "t", "--format", "xml"};
	CHECK(import_parse_args(4, a3, &f, &t, &o, &err) == SUQL_USAGE &&
	      strstr(err.msg, "unknown format 'xml'"), "args: unknown format");
	char *a4[] = {"x.csv", "t", "--bogus", "1"};
	CHECK(import_parse_args(4, a4, &f, &t, &o, &err) == SUQL_USAGE &&
	      strstr(err.msg, "unknown option --bogus"), "args: unknown option");
	char *a5[] = {"x.csv", "t", "--types"};
	CHECK(import_parse_args(3, a5, &f, &t, &o, &err) == SUQL_USAGE &&
	      strstr(err.msg, "--types needs a value"), "args: a missing value");
	err_clear(&err);
}

static void test_meta(void)
{
	SuqlErr err = {0};
	Engine *e = engine_open(":memory:", NULL, &err);
	FILE *out = tmpfile(), *errf = tmpfile();
	MetaEnv env = {e, NULL, out, errf, 0, NULL, NULL};
	char *path = xprintf("%s/tests/import/good/basic.jsonl", getenv("SUQL_TOP") ? getenv("SUQL_TOP") : ".");
	char *argv[] = {"import", path, "restaurants", "--types", "reviews=FREE_TEXT[]", "--index"};
	CHECK(meta_import(&env, 6, argv, &err) == SUQL_OK, ":import runs");
	char *o = slurp(out);
	CHECK_STR(o, "imported 3 rows into restaurants (new table, 7 columns); indexed 1 free-text "
	          "column\n", ":import reports rows, columns and indexes");
	free(o);
	CHECK(ret_has_index(engine_db(e), "restaurants", "reviews"), ":import --index builds the index");
	fclose(out);
	out = tmpfile();
	env.out = out;
	char *iargv[] = {"index", "restaurants"};
	CHECK(meta_index(&env, 2, iargv, &err) == SUQL_OK, ":index TABLE runs");
	o = slurp(out);
	CHECK_STR(o, "restaurants.reviews: 2 rows, 3 passages\n", ":index reports each index");
	free(o);
	char *bad[] = {"index", "nope"};
	CHECK(meta_index(&env, 2, bad, &err) == SUQL_ERROR && strstr(err.msg, "no such table"),
	      ":index of an unknown table");
	char *none[] = {"import", "x.csv"};
	CHECK(meta_import(&env, 2, none, &err) == SUQL_USAGE, ":import without a table");
	fclose(out);
	fclose(errf);
	free(path);
	engine_close(e);
	err_clear(&err);
}

static void test_progress(void)
{
	FILE *f = tmpfile();
	CHECK(progress_open(f, PROGRESS_AUTO, "x", 10) == NULL, "progress: nothing when not a tty");
	CHECK(progress_open(f, PROGRESS_OFF, "x", 10) == NULL, "progress: nothing when off");
	progress_set(NULL, 1);
	progress_close(NULL);
	Progress *p = progress_open(f, PROGRESS_ON, "loading", 200);
	progress_set(p, 100);
	progress_set(p, 200);
	progress_phase(p, "counting", 0);
	progress_set(p, 1234567);
	char *mid = slurp(f);
	CHECK(strstr(mid, "loading  [##########..........]  50%  100") != NULL, "progress: half way");
	CHECK(strstr(mid, "[####################] 100%  200") != NULL, "progress: the end is drawn");
	CHECK(strstr(mid, "counting  1,234,567") != NULL, "progress: unknown total shows a count");
	CHECK(strchr(mid, '\n') == NULL, "progress: never a newline");
	free(mid);
	fseek(f, 0, SEEK_END);
	progress_close(p);
	char *all = slurp(f);
	size_t n = strlen(all);
	CHECK(n > 2 && all[n - 1] == '\r', "progress: closing erases the line");
	free(all);
	fclose(f);
}

int main(void)
{
	test_files();
	test_args();
	test_meta();
	test_progress();
	return unit_done();
}
