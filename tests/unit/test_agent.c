/* The chat agent's pieces that need no model: checking a query and adding the default LIMIT
   to its tree (agent_prepare), taking the query out of a reply, keeping rows as bounded JSON
   through the engine's sink, the digest of a result, the schema text and the dialogue. */
#include "chat/agent_int.h"
#include "engine/engine.h"
#include "store/catalog.h"
#include "unit.h"

#include <stdlib.h>

/* agent_prepare's normalised text, or "ERR: <first line of the message>". */
static char *prep(const char *sql, int limit, int *limited)
{
	SuqlErr err = {0};
	char *out = NULL;
	int lim = 0;
	SuqlStatus s = agent_prepare(sql, limit, &out, &lim, &err);
	if (limited)
		*limited = lim;
	if (s != SUQL_OK) {
		char *nl = err.msg ? strchr(err.msg, '\n') : NULL;
		char *r = xprintf("ERR%d: %.*s", (int)s, nl ? (int)(nl - err.msg) : (int)strlen(err.msg),
		                  err.msg);
		err_clear(&err);
		return r;
	}
	return out;
}

static void check_prep(const char *sql, int limit, const char *want, const char *name)
{
	char *got = prep(sql, limit, NULL);
	CHECK_STR(got, want, name);
	free(got);
}

static void test_prepare(void)
{
	int limited = -1;
	char *s = prep("select name from restaurants where location = 'Palo Alto'", 5, &limited);
	CHECK_STR(s, "SELECT name FROM restaurants WHERE location = 'Palo Alto' LIMIT 5",
	          "prepare: LIMIT added to a query without one");
	CHECK(limited == 1, "prepare: says it added the LIMIT");
	free(s);
	s = prep("SELECT name FROM r ORDER BY rating DESC LIMIT 2", 5, &limited);
	CHECK_STR(s, "SELECT name FROM r ORDER BY rating DESC LIMIT 2", "prepare: a LIMIT is kept");
	CHECK(limited == 0, "prepare: kept LIMIT is not reported as added");
	free(s);
	check_prep("SELECT a FROM t LIMIT 3 OFFSET 6", 5, "SELECT a FROM t LIMIT 3 OFFSET 6",
	           "prepare: LIMIT with OFFSET kept");
	check_prep("SELECT a FROM t", 0, "SELECT a FROM t", "prepare: limit 0 adds none");
	check_prep("WITH c AS (SELECT a FROM t LIMIT 1) SELECT * FROM c", 7,
	           "WITH c AS (SELECT a FROM t LIMIT 1) SELECT * FROM c LIMIT 7",
	           "prepare: WITH ... SELECT gets it on the outer select, not the CTE");
	check_prep("SELECT a FROM t UNION SELECT b FROM u", 4,
	           "SELECT a FROM t UNION SELECT b FROM u LIMIT 4",
	           "prepare: a compound select gets one LIMIT for the whole");
	check_prep("SELECT a FROM t WHERE b IN (SELECT b FROM u)", 2,
	           "SELECT a FROM t WHERE b IN (SELECT b FROM u) LIMIT 2",
	           "prepare: subqueries are left alone");
	check_prep("SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes'", 5,
	           "SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' "
	           "LIMIT 5", "prepare: free-text query keeps answer() and gets the LIMIT");
	check_prep("SELECT name, summary(reviews) FROM restaurants WHERE 'sushi' = ANY (cuisines) "
	           "AND price = 'cheap'", 5,
	           "SELECT name, summary(reviews) FROM restaurants WHERE 'sushi' = ANY (cuisines) "
	           "AND price = 'cheap' LIMIT 5", "prepare: summary(), = ANY and ENUM '=' kept");
	check_prep("VALUES (1), (2)", 5, "VALUES (1), (2)",
	           "prepare: a lone VALUES gets no LIMIT (SQLite takes none)");
	check_prep("SELECT 1 UNION VALUES (2)", 5, "SELECT 1 UNION VALUES (2)",
	           "prepare: nor a compound ending with VALUES");
	check_prep("VALUES (1) UNION SELECT 2", 5, "VALUES (1) UNION SELECT 2 LIMIT 5",
	           "prepare: a compound ending with SELECT does");
	check_prep("SELECT a FROM t; -- done", 5, "SELECT a FROM t LIMIT 5",
	           "prepare: a trailing ';' and comment are fine");

	check_prep("DROP TABLE restaurants", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is a DROP "
	           "TABLE statement", "prepare: DROP TABLE refused");
	check_prep("UPDATE restaurants SET price = 'cheap'", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is an UPDATE "
	           "statement", "prepare: UPDATE refused");
	check_prep("insert into t values (1)", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is an INSERT "
	           "statement", "prepare: INSERT refused");
	check_prep("WITH x AS (SELECT 1) DELETE FROM t", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is a DELETE "
	           "statement", "prepare: WITH ... DELETE refused");
	check_prep("PRAGMA writable_schema = 1", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is a "
	           "statement other than SELECT", "prepare: PRAGMA refused");
	check_prep("EXPLAIN SELECT 1", 5,
	           "ERR1: line 1, column 1: only a SELECT query may run here, and this is an EXPLAIN "
	           "statement", "prepare: EXPLAIN refused");
	check_prep("SELECT 1; DROP TABLE t", 5,
	           "ERR1: line 1, column 11: more than one statement; only one SELECT query may run",
	           "prepare: a second statement refused");
	s = prep("SELEC name FROM t", 5, NULL);
	CHECK(strncmp(s, "ERR1: line 1, column 1: ", 24) == 0, "prepare: syntax error located");
	free(s);
	s = prep("SELECT name FROM t WHERE", 5, NULL);
	CHECK(strncmp(s, "ERR1: line 1, column", 20) == 0,
	      "prepare: unfinished query is an error (not SUQL_INCOMPLETE)");
	free(s);
	s = prep("  ", 5, NULL);
	CHECK_STR(s, "ERR1: the reply holds no query", "prepare: nothing to run");
	free(s);
}

static void check_extract(const char *reply, const char *want, const char *name)
{
	char *got = agent_extract_query(reply);
	if (!want) {
		CHECK(got == NULL, name);
	} else {
		CHECK_STR(got, want, name);
	}
	free(got);
}

static void test_extract(void)
{
	check_extract("SELECT 1", "SELECT 1", "extract: plain");
	check_extract("  SELECT 1;  \n", "SELECT 1", "extract: blanks and ';' dropped");
	check_extract("```sql\nSELECT a\nFROM t;\n```", "SELECT a\nFROM t", "extract: fenced");
	check_extract("Here it is:\n```\nSELECT 2\n```\nHope it helps.", "SELECT 2",
	              "extract: fence inside prose");
	check_extract("SUQL: SELECT 3", "SELECT 3", "extract: label dropped");
	check_extract("query: SELECT 4", "SELECT 4", "extract: other label dropped");
	check_extract("NONE", NULL, "extract: NONE is no query");
	check_extract("", NULL, "extract: empty reply");
	check_extract("{\"database\": true, \"suql\": \"SELECT 5;\"}", "SELECT 5",
	              "extract: the query of a JSON reply");
	check_extract("```json\n{\"query\": \"SELECT 6\"}\n```", "SELECT 6",
	              "extract: a fenced JSON reply, key query");
	check_extract("{\"suql\": \"NONE\"}", NULL, "extract: NONE in JSON is no query");
	check_extract("SELECT '{\"suql\": 1}' AS j", "SELECT '{\"suql\": 1}' AS j",
	              "extract: braces inside a literal are not an object");
}

/* agent_read_parse: the verdict, then what it carries ("" for none). */
static void check_parse(const char *reply, AgentVerdict want, const char *text,
                        const char *name)
{
	char *direct = NULL, *query = NULL;
	AgentVerdict v = agent_read_parse(reply, &direct, &query);
	CHECK(v == want, name);
	const char *got = v == AGENT_DIRECT ? direct : v == AGENT_QUERY ? query : "";
	CHECK_STR(got ? got : "(null)", text, name);
	CHECK((v == AGENT_DIRECT || !direct) && (v == AGENT_QUERY || !query), name);
	free(direct);
	free(query);
}

static void test_read_parse(void)
{
	static const struct {
		const char *reply;
		AgentVerdict want;
		const char *text, *name;
	} cases[] = {
		{"{\"database\": false, \"reply\": \"Hello!\"}", AGENT_DIRECT, "Hello!",
		 "parse reply: a direct answer"},
		{"{\"database\": \"no\", \"reply\": \" Hi \"}", AGENT_DIRECT, "Hi",
		 "parse reply: database \"no\""},
		{"Sure:\n```json\n{\"database\": true, \"suql\": \"SELECT 1;\"}\n```", AGENT_QUERY,
		 "SELECT 1", "parse reply: a fenced query object after words"},
		{"{\"database\": false, \"reply\": \"Hi\", \"suql\": \"SELECT 2\"}", AGENT_QUERY,
		 "SELECT 2", "parse reply: a query given wins over database false"},
		{"REPLY: Good morning.", AGENT_DIRECT, "Good morning.",
		 "parse reply: the plain REPLY form"},
		{"SELECT name FROM t", AGENT_QUERY, "SELECT name FROM t", "parse reply: a plain query"},
		{"drop table t;", AGENT_QUERY, "drop table t",
		 "parse reply: any statement goes to the check (which refuses it)"},
		{"```\nWITH a AS (SELECT 1) SELECT * FROM a\n```", AGENT_QUERY,
		 "WITH a AS (SELECT 1) SELECT * FROM a", "parse reply: a fenced plain query"},
		/* replies that cannot be read are neither a verdict nor a query */
		{"{\"database\": true}", AGENT_UNREAD, "", "unreadable: database, no query"},
		{"{\"database\": false}", AGENT_UNREAD, "", "unreadable: no reply text"},
		{"{\"database\": false, \"reply\": \"  \"}", AGENT_UNREAD, "",
		 "unreadable: a blank reply"},
		{"{\"reply\": \"Hello\"}", AGENT_UNREAD, "", "unreadable: a reply without database false"},
		{"{\"database\": true, \"suql\": \"\"}", AGENT_UNREAD, "", "unreadable: an empty query"},
		{"REPLY:   ", AGENT_UNREAD, "", "unreadable: an empty REPLY"},
		{"", AGENT_UNREAD, "", "unreadable: nothing"},
		{"NONE", AGENT_UNREAD, "", "unreadable: NONE"},
		{"Hello there, how can I help?", AGENT_UNREAD, "", "unreadable: prose is no query"},
		{"Selections vary.", AGENT_UNREAD, "", "unreadable: a word that starts like SELECT"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_parse(cases[i].reply, cases[i].want, cases[i].text, cases[i].name);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	return st;
}

/* Feed a statement's rows to the agent's sink, as the engine would. */
static void fill(sqlite3 *db, const char *sql, AgentRows *rows)
{
	EngineSink s = agent_rows_sink(rows);
	sqlite3_stmt *st = prepare(db, sql);
	Row r;
	store_row_sqlite(&r, st);
	s.columns(s.ctx, &r);
	while (sqlite3_step(st) == SQLITE_ROW)
		s.row(s.ctx, &r);
	sqlite3_finalize(st);
}

static void test_rows(sqlite3 *db)
{
	AgentRows rows;
	agent_rows_init(&rows, 0, 10);
	fill(db, "SELECT 1 AS i, 2.5 AS r, NULL AS n, x'00ff' AS b, 'short' AS t, "
	         "'0123456789abc' AS long, 'caf' || char(233) || char(233) || char(233) || "
	         "char(233) || char(233) || char(233) AS u", &rows);
	char *j = agent_rows_json(&rows);
	CHECK_STR(j, "[\n  {\"i\":1,\"r\":2.5,\"n\":null,\"b\":\"(a blob of 2 bytes)\",\"t\":\"short\","
	             "\"long\":\"0123456789...\",\"u\":\"caf\xc3\xa9\xc3\xa9\xc3\xa9...\"}\n]",
	          "rows: types, cut values (at a character)");
	free(j);
	CHECK(rows.count == 1 && rows.ncols == 7 && strcmp(rows.cols[5], "long") == 0,
	      "rows: count and column names");
	agent_rows_free(&rows);

	agent_rows_init(&rows, 200, 0);
	fill(db, "SELECT id, name FROM items ORDER BY id", &rows);
	CHECK(rows.count == 25, "rows: every row counted");
	CHECK(json_array_size(rows.rows) > 0 && json_array_size(rows.rows) < 25 &&
	      rows.omitted == 25 - (long)json_array_size(rows.rows) && rows.bytes <= 200,
	      "rows: kept within max_bytes, the rest counted as omitted");
	agent_rows_free(&rows);

	agent_rows_init(&rows, 0, 0);
	fill(db, "SELECT id FROM items WHERE id < 0", &rows);
	j = agent_rows_json(&rows);
	CHECK_STR(j, "[]", "rows: none");
	free(j);
	agent_rows_free(&rows);
}

static void check_digest(sqlite3 *db, const char *sql, const char *want, const char *name)
{
	AgentRows rows;
	agent_rows_init(&rows, 0, 0);
	fill(db, sql, &rows);
	char *d = agent_digest(&rows);
	CHECK_STR(d, want, name);
	free(d);
	agent_rows_free(&rows);
}

static void test_digest(sqlite3 *db)
{
	check_digest(db, "SELECT id, name, price FROM items WHERE id <= 3",
	             "3 rows: Item 1 (id=1); Item 2 (id=2); Item 3 (id=3)",
	             "digest: name with the id");
	check_digest(db, "SELECT price, name FROM items WHERE id = 4", "1 row: Item 4",
	             "digest: a name without an id");
	check_digest(db, "SELECT item_id, title, price FROM items2",
	             "2 rows: Alpha (item_id=7); Beta (item_id=9)", "digest: title and an _id column");
	check_digest(db, "SELECT count(*) FROM items", "1 row: count(*)=25",
	             "digest: an aggregate shows column=value");
	check_digest(db, "SELECT price, id * 2 AS twice FROM items WHERE id IN (1, 2)",
	             "2 rows: price=1.5, twice=2; price=3.0, twice=4",
	             "digest: no key column: the first two");
	check_digest(db, "SELECT id, name FROM items WHERE id <= 12",
	             "12 rows: Item 1 (id=1); Item 2 (id=2); Item 3 (id=3); Item 4 (id=4); Item 5 "
	             "(id=5); Item 6 (id=6); Item 7 (id=7); Item 8 (id=8); Item 9 (id=9); Item 10 "
	             "(id=10); and 2 more", "digest: at most 10 rows, then how many more");
	check_digest(db, "SELECT id, name FROM items WHERE id < 0", "no rows", "digest: none");
	check_digest(db, "SELECT 'A very long name that goes on and on and on' AS name, NULL AS id",
	             "1 row: A very long name that goes on and on... (id=NULL)",
	             "digest: long values cut, NULL shown");
}

static void test_schema(Store *db)
{
	char *s = agent_schema(db, NULL);
	CHECK(strstr(s, "CREATE TABLE items (\n  id INTEGER,\n  name TEXT,\n  price REAL,\n"
	                "  kind ENUM('a','b'),\n  tags TEXT[],\n  notes FREE_TEXT\n);") != NULL,
	      "schema: SUQL DDL with FREE_TEXT, ENUM values and lists");
	CHECK(strstr(s, "--   tags: one of 'x', 'y'") != NULL, "schema: list values noted");
	CHECK(strstr(s, "--   name:") == NULL, "schema: many distinct names are not listed");
	CHECK(strstr(s, "CREATE TABLE items2") != NULL, "schema: every table");
	free(s);
	s = agent_schema(db, "items2");
	CHECK(strstr(s, "CREATE TABLE items2") && !strstr(s, "CREATE TABLE items ("),
	      "schema: chat.tables narrows it");
	free(s);
}

static void test_dialogue(void)
{
	Agent a;
	memset(&a, 0, sizeof a);
	a.context = 1;
	char *d = agent_dialogue(&a);
	CHECK_STR(d, "(none: this is the first message)", "dialogue: empty");
	free(d);
	AgentTurn t[2];
	memset(t, 0, sizeof t);
	t[0].user = "hi";
	t[0].reply = "hello";
	t[1].user = "any?";
	t[1].suql = "SELECT id, name FROM items LIMIT 2";
	t[1].digest = "2 rows: Item 1 (id=1); Item 2 (id=2)";
	t[1].limited = 2;
	t[1].rows.count = 2;
	t[1].reply = "two\nitems";
	a.turns = t;
	a.nturns = 2;
	d = agent_dialogue(&a);
	CHECK_STR(d, "(1 earlier turn left out)\n\nUser: any?\nSUQL: SELECT id, name FROM items "
	             "LIMIT 2\nResult: 2 rows: Item 1 (id=1); Item 2 (id=2) (cut at the default "
	             "LIMIT; there may be more)\nAgent: two items",
	          "dialogue: the last turns, with query, digest and reply");
	free(d);
}

int main(void)
{
	test_prepare();
	test_extract();
	test_read_parse();

	SuqlErr err = {0};
	Engine *e = engine_open(":memory:", NULL, &err);
	sqlite3 *db = engine_db(e);
	const char *setup =
		"CREATE TABLE items (id INTEGER, name TEXT, price REAL, kind ENUM('a', 'b'), "
		"tags TEXT[], notes FREE_TEXT);"
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25) "
		"INSERT INTO items SELECT i, 'Item ' || i, i * 1.5, 'a', json_array('x', "
		"CASE WHEN i % 2 THEN 'y' ELSE 'x' END), 'Some notes.' FROM n;"
		"CREATE TABLE items2 (item_id INTEGER, title TEXT, price REAL);"
		"INSERT INTO items2 VALUES (7, 'Alpha', 1), (9, 'Beta', 2);";
	size_t used = 0, off = 0, len = strlen(setup);
	int ok = 1;
	while (off < len && ok) {
		ok = engine_exec(e, setup + off, len - off, &used, NULL, &err) == SUQL_OK && used > 0;
		off += used;
	}
	CHECK(ok, "setup");
	if (ok) {
		test_rows(db);
		test_digest(db);
		test_schema(engine_store(e));
	}
	test_dialogue();
	engine_close(e);
	err_clear(&err);
	return unit_done();
}
