/* Read-only mode: writes are refused at prepare time and leave the database unchanged;
   reads still work. */
#include "engine/engine.h"
#include "unit.h"

static int count_rows(void *ctx, const Row *st)
{
	(void)st;
	(*(int *)ctx)++;
	return 0;
}

static SuqlStatus run(Engine *e, const char *sql, int *rows, SuqlErr *err)
{
	EngineSink sink = {0};
	sink.ctx = rows;
	sink.row = count_rows;
	size_t used;
	return engine_exec(e, sql, strlen(sql), &used, &sink, err);
}

int main(void)
{
	SuqlErr err = {0};
	Engine *e = engine_open(":memory:", NULL, &err);
	int rows = 0;
	CHECK(run(e, "CREATE TABLE t(a);", &rows, &err) == SUQL_OK &&
	      run(e, "INSERT INTO t VALUES (1);", &rows, &err) == SUQL_OK &&
	      run(e, "INSERT INTO t VALUES (1);", &rows, &err) == SUQL_OK, "setup");
	engine_set_readonly(e, 1);
	const char *writes[] = {"INSERT INTO t VALUES (2);", "UPDATE t SET a = 3;", "DELETE FROM t;",
	                        "DROP TABLE t;", "CREATE TABLE u(x);", "PRAGMA user_version = 3;",
	                        "ATTACH ':memory:' AS x;", NULL};
	for (int i = 0; writes[i]; i++) {
		SuqlStatus s = run(e, writes[i], &rows, &err);
		char name[80];
		snprintf(name, sizeof name, "refused: %s", writes[i]);
		CHECK(s == SUQL_ERROR && err.msg && strstr(err.msg, "refused"), name);
	}
	rows = 0;
	CHECK(run(e, "SELECT * FROM t;", &rows, &err) == SUQL_OK && rows == 2,
	      "reads still work, and the table is unchanged");
	rows = 0;
	CHECK(run(e, "PRAGMA user_version;", &rows, &err) == SUQL_OK && rows == 1,
	      "reading a pragma is allowed");
	engine_set_readonly(e, 0);
	CHECK(run(e, "INSERT INTO t VALUES (2);", &rows, &err) == SUQL_OK, "writable again");
	engine_close(e);
	err_clear(&err);
	return unit_done();
}
