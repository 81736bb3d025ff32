/* The PostgreSQL backend's read-only mode (what the chat agent's statements run under):
   every statement in a READ ONLY transaction with a statement_timeout, writes refused by
   the server and the database unchanged, reads still working. It needs a server: suite
   54-postgres runs it with SUQL_PG set to the one it started; without SUQL_PG it skips. */
#include "engine/engine.h"
#include "store/catalog.h"
#include "unit.h"

#include <stdlib.h>

typedef struct Got {
	int rows;
	char first[64];   /* the first row's first column */
} Got;

static int on_row(void *ctx, const Row *st)
{
	Got *g = ctx;
	if (g->rows++ == 0) {
		size_t n;
		const char *t = row_text(st, 0, &n);
		snprintf(g->first, sizeof g->first, "%s", t ? t : "NULL");
	}
	return 0;
}

static SuqlStatus run(Engine *e, const char *sql, Got *g, SuqlErr *err)
{
	EngineSink sink = {0};
	memset(g, 0, sizeof *g);
	sink.ctx = g;
	sink.row = on_row;
	size_t used;
	err_clear(err);
	return engine_exec(e, sql, strlen(sql), &used, &sink, err);
}

int main(void)
{
	const char *pg = getenv("SUQL_PG");
	if (!pg || !*pg) {
		printf("skip unit pg: needs a server (suite 54-postgres runs it with one)\n");
		return 0;
	}
	SuqlErr err = {0};
	Engine *e = engine_open(pg, NULL, &err);
	CHECK(e != NULL, "pg: connects");
	if (!e)
		return unit_done();
	Got g;
	CHECK(run(e, "CREATE TABLE ro_t (a int);", &g, &err) == SUQL_OK &&
	      run(e, "INSERT INTO ro_t VALUES (1), (2);", &g, &err) == SUQL_OK, "pg: setup");
	engine_set_readonly(e, 1);
	CHECK(run(e, "SELECT current_setting('transaction_read_only');", &g, &err) == SUQL_OK &&
	      strcmp(g.first, "on") == 0, "pg: read-only mode runs statements READ ONLY");
	CHECK(run(e, "SELECT current_setting('statement_timeout');", &g, &err) == SUQL_OK &&
	      strcmp(g.first, "30s") == 0, "pg: ... with a statement_timeout of 30 s");
	const char *writes[] = {"INSERT INTO ro_t VALUES (3);", "UPDATE ro_t SET a = 3;",
	                        "DELETE FROM ro_t;", "DROP TABLE ro_t;", NULL};
	for (int i = 0; writes[i]; i++) {
		char name[80];
		snprintf(name, sizeof name, "pg: refused: %s", writes[i]);
		/* by the server (READ ONLY), or before it for DDL the catalog follows */
		CHECK(run(e, writes[i], &g, &err) == SUQL_ERROR && err.msg &&
		      (strstr(err.msg, "read-only transaction") || strstr(err.msg, "refused")), name);
	}
	CHECK(run(e, "CREATE TABLE ro_u (x FREE_TEXT);", &g, &err) == SUQL_ERROR && err.msg &&
	      strstr(err.msg, "refused"), "pg: DDL with SUQL types refused before the server");
	CHECK(run(e, "SELECT count(*) FROM ro_t;", &g, &err) == SUQL_OK && strcmp(g.first, "2") == 0,
	      "pg: reads still work, and the table is unchanged");
	engine_set_readonly(e, 0);
	CHECK(catalog_prop_set(engine_store(e), "ro_t", CATALOG_LABELS, "on", &err) == SUQL_OK,
	      "pg: ro_t marked as holding evaluation labels (suql.table_props)");
	engine_set_readonly(e, 1);
	CHECK(run(e, "SELECT a FROM ro_t;", &g, &err) == SUQL_ERROR && err.msg &&
	      strstr(err.msg, "evaluation labels"), "pg: read-only mode refuses to read it");
	CHECK(run(e, "SELECT 1 WHERE EXISTS (SELECT 1 FROM ro_t);", &g, &err) == SUQL_ERROR,
	      "pg: ... in a subquery too");
	engine_set_readonly(e, 0);
	CHECK(catalog_prop_set(engine_store(e), "ro_t", CATALOG_LABELS, NULL, &err) == SUQL_OK,
	      "pg: the mark removed");
	CHECK(run(e, "SELECT current_setting('transaction_read_only');", &g, &err) == SUQL_OK &&
	      strcmp(g.first, "off") == 0, "pg: writable again");
	CHECK(run(e, "BEGIN;", &g, &err) == SUQL_OK, "pg: the user opens a transaction");
	engine_set_readonly(e, 1);
	CHECK(run(e, "SELECT count(*) FROM ro_t;", &g, &err) == SUQL_ERROR && err.msg &&
	      strstr(err.msg, "COMMIT or ROLLBACK first"),
	      "pg: read-only mode refuses to run inside the user's open transaction");
	engine_set_readonly(e, 0);
	CHECK(run(e, "ROLLBACK;", &g, &err) == SUQL_OK, "pg: ... which ROLLBACK ends");
	CHECK(run(e, "DROP TABLE ro_t;", &g, &err) == SUQL_OK, "pg: cleanup");
	engine_close(e);
	err_clear(&err);
	return unit_done();
}
