/* Unit tests for catalog.c: type parsing, storing and reading SUQL column types. */
#include "base/util.h"
#include "store/catalog.h"
#include "unit.h"

#include <stdlib.h>

int main(void)
{
	CatColumn c = {0};
	SuqlErr err = {0};
	CHECK(catalog_parse_type("free_text []", &c, &err) == 1 && c.free_text && c.is_array,
	      "parse: FREE_TEXT[]");
	CHECK_STR(c.type, "FREE_TEXT[]", "parse: normalised FREE_TEXT[]");
	catalog_column_free(&c);
	CHECK(catalog_parse_type("enum('cheap', 'it''s')", &c, &err) == 1 && c.is_enum &&
	      c.nenum == 2 && strcmp(c.enum_values[1], "it's") == 0, "parse: ENUM values");
	CHECK_STR(c.type, "ENUM('cheap','it''s')", "parse: normalised ENUM");
	catalog_column_free(&c);
	CHECK(catalog_parse_type("INTEGER[]", &c, &err) == 1 && c.is_array && !c.free_text,
	      "parse: INTEGER[]");
	catalog_column_free(&c);
	CHECK(catalog_parse_type("NUMERIC(2,1)", &c, &err) == 0, "parse: plain SQL type");
	CHECK_STR(c.type, "NUMERIC(2,1)", "parse: plain type kept");
	catalog_column_free(&c);
	CHECK(catalog_parse_type("ENUM('a' 'b')", &c, &err) < 0 && err.msg, "parse: bad ENUM list");
	CHECK(catalog_parse_type("TEXT[", &c, &err) < 0, "parse: bad array suffix");

	sqlite3 *db;
	sqlite3_open(":memory:", &db);
	Store *st = store_sqlite_wrap(db);
	sqlite3_exec(db, "CREATE TABLE r(name TEXT, reviews TEXT, price TEXT, \"odd col\" TEXT)",
	             0, 0, 0);
	CatColumn *cols = NULL;
	int n = 0;
	CHECK(catalog_table(st, "r", &cols, &n, &err) == SUQL_OK && n == 4 &&
	      strcmp(cols[1].column, "reviews") == 0 && strcmp(cols[1].type, "TEXT") == 0 &&
	      !cols[1].free_text, "table: plain columns before there is a catalog");
	catalog_columns_free(cols, n);
	CHECK(catalog_set(st, "r", "reviews", "FREE_TEXT[]", &err) == SUQL_OK, "set: free text");
	CHECK(catalog_set(st, "R", "price", "ENUM('cheap','moderate')", &err) == SUQL_OK,
	      "set: enum, table name case-insensitive");
	CHECK(catalog_get(st, "r", "REVIEWS", &c) == 1 && c.free_text && c.is_array,
	      "get: free text");
	catalog_column_free(&c);
	CHECK(catalog_get(st, "r", "name", &c) == 0, "get: plain column");
	CHECK(catalog_table(st, "r", &cols, &n, &err) == SUQL_OK && n == 4 &&
	      cols[1].free_text && cols[1].is_array && strcmp(cols[1].type, "FREE_TEXT[]") == 0 &&
	      cols[2].is_enum && cols[2].nenum == 2 && !cols[0].free_text && !cols[3].is_enum &&
	      strcmp(cols[3].column, "odd col") == 0, "table: every column, SUQL types from the catalog");
	catalog_columns_free(cols, n);
	char *ddl = NULL;
	CHECK(catalog_ddl(st, "r", 10, &ddl, &err) == SUQL_OK, "ddl: ok");
	CHECK_STR(ddl, "CREATE TABLE r (\n  name TEXT,\n  reviews FREE_TEXT[],\n"
	          "  price ENUM('cheap','moderate'),\n  \"odd col\" TEXT\n);", "ddl: SUQL types");
	free(ddl);
	CHECK(catalog_ddl(st, "r", 1, &ddl, &err) == SUQL_OK && strstr(ddl, "price ENUM,"),
	      "ddl: long enums not listed");
	free(ddl);
	CHECK(catalog_ddl(st, "nope", 10, &ddl, &err) == SUQL_ERROR && err.msg &&
	      strcmp(err.msg, "no such table: nope") == 0, "ddl: unknown table");
	CHECK(catalog_drop_table(st, "r", &err) == SUQL_OK && catalog_get(st, "r", "reviews", &c) == 0,
	      "drop table forgets its columns");
	store_close(st);
	sqlite3_close(db);
	err_clear(&err);
	return unit_done();
}
