/* Unit tests for the statement path in engine.c: parse, report, translate, run. The SUQL
   array forms are checked on real rows, SQLite errors come back at the user's column, and
   DDL keeps the catalog in step. */
#include "engine/engine.h"
#include "store/catalog.h"
#include "unit.h"

#include <stdlib.h>

typedef struct Out {
	SBuf rows;
	SBuf parsed;
} Out;

static void on_parsed(void *ctx, const char *suql)
{
	Out *o = ctx;
	sb_puts(&o->parsed, suql);
}

static int on_row(void *ctx, const Row *st)
{
	Out *o = ctx;
	int n = row_count(st);
	if (o->rows.len)
		sb_putc(&o->rows, ';');
	for (int i = 0; i < n; i++) {
		size_t len;
		const char *t = row_text(st, i, &len);
		sb_printf(&o->rows, "%s%s", i ? "|" : "", t ? t : "NULL");
	}
	return 0;
}

static Engine *eng;
static SuqlErr err;

static int has_type(const char *table, const char *column)
{
	CatColumn c = {0};
	int r = catalog_get(engine_store(eng), table, column, &c);
	catalog_column_free(&c);
	return r == 1;
}

/* Run every statement of sql; returns the rows of the last one ("a|b;c|d"), or
   "ERROR: message" for the first failure. */
static char *run(const char *sql)
{
	Out o = {SBUF_INIT, SBUF_INIT};
	EngineSink sink = {0};
	sink.ctx = &o;
	sink.row = on_row;
	sink.parsed = on_parsed;
	size_t pos = 0, len = strlen(sql);
	while (pos < len) {
		size_t used = 0;
		sb_truncate(&o.rows, 0);
		if (engine_exec(eng, sql + pos, len - pos, &used, &sink, &err) != SUQL_OK) {
			char *m = xprintf("ERROR: %s", err.msg);
			sb_free(&o.rows);
			sb_free(&o.parsed);
			return m;
		}
		if (!used)
			break;
		pos += used;
	}
	sb_free(&o.parsed);
	char *r = xstrdup(sb_str(&o.rows));
	sb_free(&o.rows);
	return r;
}

#define EXPECT(sql, want, name)                 \
	do {                                    \
		char *got_ = run(sql);          \
		CHECK_STR(got_, want, name);    \
		free(got_);                     \
	} while (0)

int main(void)
{
	eng = engine_open(":memory:", NULL, &err);
	CHECK(eng != NULL, "engine opens");
	if (!eng)
		return unit_done();   /* everything below needs it */
	EXPECT("CREATE TABLE r (id INTEGER, name TEXT, tags TEXT[], nums INTEGER[], "
	       "price ENUM('cheap', 'dear'), reviews FREE_TEXT[], born TEXT);", "",
	       "CREATE TABLE with SUQL types");
	CatColumn c = {0};
	CHECK(catalog_get(engine_store(eng), "r", "tags", &c) == 1 && c.is_array,
	      "the catalog records TEXT[]");
	catalog_column_free(&c);
	CHECK(catalog_get(engine_store(eng), "r", "reviews", &c) == 1 && c.free_text && c.is_array,
	      "the catalog records FREE_TEXT[]");
	catalog_column_free(&c);
	CHECK(catalog_get(engine_store(eng), "r", "price", &c) == 1 && c.is_enum && c.nenum == 2,
	      "the catalog records ENUM values");
	catalog_column_free(&c);
	EXPECT("SELECT type FROM pragma_table_info('r') WHERE name = 'tags';", "TEXT",
	       "SUQL types are stored as TEXT");
	EXPECT("INSERT INTO r VALUES (1, 'Sushi Go', '[\"sushi\",\"japanese\"]', '[1,5,9]', 'cheap',"
	       " '[\"great fish\",\"slow service\"]', '1990-05-17 10:00:00');"
	       "INSERT INTO r VALUES (2, 'Pasta Place', '[\"italian\"]', '[10,20]', 'dear',"
	       " '[\"lovely\"]', '2001-01-02');"
	       "INSERT INTO r VALUES (3, 'Nowhere', '[]', '[]', NULL, '[]', NULL);", "", "inserts");
	EXPECT("SELECT id FROM r WHERE 'sushi' = ANY (tags);", "1", "= ANY over an array");
	EXPECT("SELECT id FROM r WHERE 'sushi' <> ALL (tags) ORDER BY id;", "2;3", "<> ALL");
	EXPECT("SELECT id FROM r WHERE 4 < ANY (nums) ORDER BY id;", "1;2", "< ANY");
	EXPECT("SELECT id FROM r WHERE 10 <= ALL (nums) ORDER BY id;", "2;3",
	       "<= ALL (true for an empty array)");
	EXPECT("SELECT id FROM r WHERE tags @> ARRAY['japanese', 'sushi'];", "1", "@> ARRAY");
	EXPECT("SELECT id FROM r WHERE tags <@ ARRAY['italian', 'french'] ORDER BY id;", "2;3",
	       "<@ ARRAY");
	EXPECT("SELECT id FROM r WHERE id = ANY (SELECT 2 UNION SELECT 3) ORDER BY id;", "2;3",
	       "= ANY (subquery)");
	EXPECT("SELECT id FROM r WHERE id > ALL (SELECT 1 UNION SELECT 2);", "3",
	       "> ALL (subquery)");
	EXPECT("SELECT name FROM r WHERE name ILIKE 'sushi%';", "Sushi Go", "ILIKE");
	EXPECT("SELECT rv FROM r, unnest(reviews) AS rv WHERE r.id = 1 ORDER BY rv;",
	       "great fish;slow service", "unnest() gives one element per row");
	EXPECT("SELECT t.x FROM r, unnest(r.tags) AS t(x) WHERE r.id = 2;", "italian",
	       "unnest() AS t(x)");
	EXPECT("SELECT born::date, born::timestamp, '42'::int + 1, 'yes'::bool, 'f'::bool, "
	       "'maybe'::bool FROM r WHERE id = 1;", "1990-05-17|1990-05-17 10:00:00|43|1|0|NULL",
	       ":: conversions");
	EXPECT("SELECT json_array_length(ARRAY[1, 2, 3]);", "3", "ARRAY[...] is a JSON array");
	EXPECT("SELECT 'value' = ANY (json_array('value'));", "1",
	       "an operand named like a json_each column is not captured");
	EXPECT("SELECT count(*) FROM (SELECT 1 AS value) WHERE 'a' = ANY (json_array(value));", "0",
	       "a column named value inside ANY");

	char *e = run("SELECT nme FROM r;");
	CHECK(strstr(e, "ERROR: line 1, column 8: no such column: nme") == e &&
	      strstr(e, "^~~"), "SQLite error at the user's column");
	free(e);
	e = run("SELECT *,\n  id\nFROM r WHERE  'x' = ANY (tags) AND nme = 1;");
	CHECK(strstr(e, "line 3, column 36: no such column: nme") != NULL,
	      "error position mapped through a translated statement");
	free(e);
	e = run("SELECT answer(reviews, 'q') FROM r;");
	CHECK(strstr(e, "no language model client") != NULL,
	      "answer() needs the executor's language model client (none given here)");
	free(e);
	e = run("SELECT (1;");
	CHECK(strstr(e, "missing ')'") != NULL, "parse errors come back");
	free(e);

	/* ALTER and DROP keep the catalog in step */
	EXPECT("ALTER TABLE r ADD COLUMN menu FREE_TEXT;", "", "ADD COLUMN with a SUQL type");
	CHECK(catalog_get(engine_store(eng), "r", "menu", &c) == 1 && c.free_text, "ADD COLUMN recorded");
	catalog_column_free(&c);
	EXPECT("ALTER TABLE r RENAME COLUMN tags TO labels;", "", "RENAME COLUMN");
	CHECK(catalog_get(engine_store(eng), "r", "labels", &c) == 1 && c.is_array &&
	      !has_type("r", "tags"), "RENAME COLUMN moves the type");
	catalog_column_free(&c);
	EXPECT("ALTER TABLE r DROP COLUMN menu;", "", "DROP COLUMN");
	CHECK(!has_type("r", "menu"), "DROP COLUMN forgets the type");
	EXPECT("ALTER TABLE r RENAME TO places;", "", "RENAME TO");
	CHECK(catalog_get(engine_store(eng), "places", "labels", &c) == 1, "RENAME TO moves the types");
	catalog_column_free(&c);
	EXPECT("CREATE TABLE IF NOT EXISTS places (labels FREE_TEXT);", "",
	       "CREATE IF NOT EXISTS of an existing table");
	CHECK(catalog_get(engine_store(eng), "places", "labels", &c) == 1 && !c.free_text,
	      "leaves the existing types alone");
	catalog_column_free(&c);
	EXPECT("DROP TABLE places;", "", "DROP TABLE");
	CHECK(!has_type("places", "labels"), "DROP TABLE forgets types");
	e = run("CREATE TABLE sqlite_x (a FREE_TEXT);");
	CHECK(strncmp(e, "ERROR:", 6) == 0 &&
	      !has_type("sqlite_x", "a"),
	      "a failed CREATE records nothing");
	free(e);

	/* statements, blanks, the parsed report */
	Out o = {SBUF_INIT, SBUF_INIT};
	EngineSink sink = {0};
	sink.ctx = &o;
	sink.parsed = on_parsed;
	sink.row = on_row;
	size_t used = 0;
	const char *two = "select  1 ; select 2;";
	CHECK(engine_exec(eng, two, strlen(two), &used, &sink, &err) == SUQL_OK && used == 11,
	      "one statement at a time");
	CHECK_STR(sb_str(&o.parsed), "SELECT 1", "the sink sees the normalised SUQL");
	CHECK(engine_exec(eng, "  -- only a comment\n", 20, &used, &sink, &err) == SUQL_OK &&
	      used == 20, "blanks and comments run nothing");
	CHECK(engine_exec(eng, "SELECT 'abc", 11, &used, &sink, &err) == SUQL_INCOMPLETE,
	      "an unterminated string is incomplete input");
	sb_free(&o.rows);
	sb_free(&o.parsed);
	err_clear(&err);
	engine_close(eng);
	return unit_done();
}
