/* The free-text executor from the inside and through engine_exec: the memo, passages,
   three-valued judging of a unit's tree, settings, the plan's units (DNF, the cap), the
   budget's status, read-only mode with the engine's own writes (ENUM map, projection
   table), statements that are not SELECT, and views. Offline backend, no cache. */
#include "engine/exec_int.h"
#include "unit.h"

#include <stdlib.h>

typedef struct Cap {
	SBuf plan, counters, rows, warn;
} Cap;

static void c_plan(void *ctx, const char *t) { sb_puts(&((Cap *)ctx)->plan, t); }
static void c_counters(void *ctx, const char *t) { sb_puts(&((Cap *)ctx)->counters, t); }
static void c_warn(void *ctx, const char *t) { sb_printf(&((Cap *)ctx)->warn, "%s\n", t); }
static int c_row(void *ctx, const Row *st)
{
	Cap *c = ctx;
	for (int i = 0; i < row_count(st); i++) {
		size_t n;
		const char *v = row_text(st, i, &n);
		sb_printf(&c->rows, "%s%s", i ? "|" : "", v ? v : "NULL");
	}
	sb_putc(&c->rows, '\n');
	return 0;
}

static void cap_reset(Cap *c)
{
	sb_free(&c->plan);
	sb_free(&c->counters);
	sb_free(&c->rows);
	sb_free(&c->warn);
}

static SuqlStatus run(Engine *e, Cap *c, const char *sql, SuqlErr *err)
{
	cap_reset(c);
	EngineSink s = {c, NULL, c_plan, NULL, c_row, c_counters, c_warn, NULL, 0, NULL, 0};
	size_t used = 0, len = strlen(sql), off = 0;
	SuqlStatus st = SUQL_OK;
	while (off < len && st == SUQL_OK) {
		st = engine_exec(e, sql + off, len - off, &used, &s, err);
		if (!used)
			break;
		off += used;
	}
	return st;
}

static long counter(const Cap *c, const char *label)
{
	const char *p = strstr(sb_str(&c->counters), label);
	return p ? strtol(p + strlen(label), NULL, 10) : -1;
}

static void test_memo(void)
{
	Memo *m = memo_new();
	char buf[32];
	for (int i = 0; i < 10000; i++) {
		snprintf(buf, sizeof buf, "value %d", i);
		memo_put(m, i % 3, buf, strlen(buf))->verdict = i % 2;
	}
	int ok = memo_count(m) == 10000;
	for (int i = 0; i < 10000 && ok; i++) {
		snprintf(buf, sizeof buf, "value %d", i);
		MemoVal *v = memo_get(m, i % 3, buf, strlen(buf));
		ok = v && v->verdict == i % 2 && !memo_get(m, (i + 1) % 3, buf, strlen(buf));
	}
	CHECK(ok, "memo: 10,000 entries, keyed by signature and value");
	MemoVal *v = memo_put(m, 0, "", 0);
	CHECK(v->verdict == -1 && memo_get(m, 0, "", 0) == v, "memo: an empty value is a key too");
	memo_free(m);
}

static void test_passages(void)
{
	Exec ex;
	memset(&ex, 0, sizeof ex);
	ex.set.passage_tokens = 20;   /* 80 bytes */
	Sig s = {0};
	s.kind = FT_VERIFY;
	s.question = "is there parking?";
	s.list = 1;
	const char *v = "[\"The pasta was fine.\", \"Parking is easy, a big lot behind.\", "
	                "\"A very long review about nothing at all that goes on and on and on and "
	                "on without end.\"]";
	char **p;
	size_t n = exec_llm_passages(&ex, &s, v, strlen(v), &p);
	CHECK(n == 2 && strstr(p[0], "Parking") && strstr(p[1], "pasta"),
	      "passages: the matching one first, what does not fit is left out");
	text_strv_free(p, n);
	s.list = 0;
	n = exec_llm_passages(&ex, &s, v, strlen(v), &p);
	CHECK(n >= 1 && p[0][0] == '[' && strlen(p[0]) <= 80,
	      "passages: one text (not a list) is cut, not split into elements");
	text_strv_free(p, n);
	n = exec_llm_passages(&ex, &s, "", 0, &p);
	CHECK(n == 0, "passages: an empty text has none");
	/* a text that fits the budget is shown as written, whatever the question matches */
	s.list = 1;
	ex.set.passage_tokens = 40;   /* 160 bytes: all three fit */
	n = exec_llm_passages(&ex, &s, v, strlen(v), &p);
	CHECK(n == 3 && strstr(p[0], "pasta") && strstr(p[1], "Parking") && strstr(p[2], "long"),
	      "passages: a text within the budget keeps its own order");
	text_strv_free(p, n);
	const char *sent = "[\"We came for lunch.\", \"The parking lot is tiny.\", "
	                   "\"Dessert was good.\"]";
	ex.set.passage_tokens = 0;   /* no budget: everything, in order */
	n = exec_llm_passages(&ex, &s, sent, strlen(sent), &p);
	CHECK(n == 3 && strstr(p[0], "lunch") && strstr(p[1], "parking") && strstr(p[2], "Dessert"),
	      "passages: without a budget, the text in its own order");
	text_strv_free(p, n);
}

static void test_kleene(void)
{
	/* NOT a0 OR (a1 AND s0) */
	Unit u;
	memset(&u, 0, sizeof u);
	TNode nodes[6];
	memset(nodes, 0, sizeof nodes);
	int k_or[2] = {1, 3}, k_not[1] = {2}, k_and[2] = {4, 5};
	nodes[0].kind = TN_OR, nodes[0].kids = k_or, nodes[0].nkids = 2;
	nodes[1].kind = TN_NOT, nodes[1].kids = k_not, nodes[1].nkids = 1;
	nodes[2].kind = TN_ATOM, nodes[2].occ = 0;
	nodes[3].kind = TN_AND, nodes[3].kids = k_and, nodes[3].nkids = 2;
	nodes[4].kind = TN_ATOM, nodes[4].occ = 1;
	nodes[5].kind = TN_SQL, nodes[5].col = 0;
	u.nodes = nodes;
	u.nnodes = 6;
	signed char sqlv[1], av[2];
	int next;
	sqlv[0] = 0, av[0] = -2, av[1] = -2;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 3 && next == 0,
	      "kleene: a1 AND false is false, so only a0 is needed");
	av[0] = 0;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 1, "kleene: NOT false OR ... is true");
	av[0] = 1;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 0, "kleene: NOT true OR (? AND false) is false");
	sqlv[0] = -1, av[0] = 1, av[1] = -2;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 3 && next == 1,
	      "kleene: with a NULL leaf, a1 still decides between false and NULL");
	av[1] = 1;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 2, "kleene: true AND NULL is NULL");
	av[1] = -1;
	CHECK(plan_unit_eval(&u, sqlv, av, &next) == 2, "kleene: an unknown answer is NULL");
}

int main(void)
{
	test_memo();
	test_passages();
	test_kleene();

	SuqlErr err = {0};
	LlmConfig cfg = {0};
	cfg.offline = 1;
	cfg.no_cache = 1;
	Llm *llm = llm_open(&cfg, &err);
	Engine *e = engine_open(":memory:", llm, &err);
	Cap c = {0};
	CHECK(run(e, &c, "CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, price ENUM('cheap', "
	          "'moderate', 'expensive'), tags ENUM[], reviews FREE_TEXT[]);"
	          "INSERT INTO r VALUES (1, 'Luigi', 'cheap', '[\"italian\",\"pizza\"]', "
	          "'[\"Romantic and candlelit.\", \"Parking is easy.\"]');"
	          "INSERT INTO r VALUES (2, 'Wok', 'moderate', '[\"chinese\"]', "
	          "'[\"Not romantic at all, very loud.\", \"No parking anywhere.\"]');"
	          "INSERT INTO r VALUES (3, 'Bistro', 'expensive', '[\"french\",\"cafe\"]', "
	          "'[\"A romantic evening for two.\", \"Street parking only.\"]');", &err) ==
	      SUQL_OK, "setup");

	/* settings */
	SBuf s = SBUF_INIT;
	engine_settings(e, &s);
	CHECK(strstr(sb_str(&s), "optimize = on\nbatch = 32\nbatch_tokens = 8000\nbudget = 1000\n") != NULL,
	      "settings: defaults listed as key = value");
	sb_free(&s);
	CHECK(engine_set(e, "batch", "0", &err) == SUQL_USAGE && strstr(err.msg, "1 to 256"),
	      "settings: batch out of range");
	CHECK(engine_set(e, "optimize", "maybe", &err) == SUQL_USAGE, "settings: optimize on|off|passage");
	CHECK(engine_set(e, "nope", "1", &err) == SUQL_USAGE, "settings: unknown key");
	CHECK(engine_set(e, "times", "off", &err) == SUQL_OK, "settings: times off");

	/* the same rows both ways */
	const char *q = "SELECT id FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id;";
	CHECK(run(e, &c, q, &err) == SUQL_OK && strcmp(sb_str(&c.rows), "1\n3\n") == 0,
	      "verify: the romantic ones");
	engine_set(e, "optimize", "off", &err);
	CHECK(run(e, &c, q, &err) == SUQL_OK && strcmp(sb_str(&c.rows), "1\n3\n") == 0 &&
	      strstr(sb_str(&c.plan), "optimize off (naive)"), "verify: naive mode, same rows");
	engine_set(e, "optimize", "on", &err);

	/* DNF: two conjuncts, and the cap */
	q = "SELECT id FROM r WHERE (answer(reviews, 'is it romantic?') = 'Yes' OR price = 'cheap') "
	    "AND (answer(reviews, 'is parking easy?') = 'Yes' OR id = 3) ORDER BY id;";
	CHECK(run(e, &c, q, &err) == SUQL_OK && strstr(sb_str(&c.plan), "where: 4 conjuncts in DNF"),
	      "dnf: (a or s) and (b or t) is four conjuncts");
	SBuf rows = SBUF_INIT;
	sb_puts(&rows, sb_str(&c.rows));
	engine_set(e, "dnf_cap", "3", &err);
	CHECK(run(e, &c, q, &err) == SUQL_OK && strstr(sb_str(&c.plan), "more than 3 conjuncts") &&
	      strcmp(sb_str(&c.rows), sb_str(&rows)) == 0, "dnf: past the cap, the tree, same rows");
	engine_set(e, "dnf_cap", "64", &err);
	sb_free(&rows);

	/* budget */
	engine_set(e, "budget", "1", &err);
	engine_set(e, "batch", "1", &err);
	CHECK(run(e, &c, "SELECT id FROM r WHERE answer(reviews, 'is it quiet?') = 'Yes';", &err) ==
	      SUQL_BUDGET && strstr(err.msg, "up to 3 LLM calls") && c.counters.len == 0,
	      "budget: refused with SUQL_BUDGET, nothing counted");
	engine_set(e, "budget", "1000", &err);

	/* ENUM '=' */
	CHECK(run(e, &c, "SELECT id FROM r WHERE price = 'Cheap';", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "1\n") == 0 && counter(&c, "llm calls: ") == 1,
	      "enum: 'Cheap' is classified as cheap");
	CHECK(run(e, &c, "SELECT id FROM r WHERE 'coffee' = ANY (tags) ORDER BY id;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "3\n") == 0, "enum: an open ENUM[] permits its stored values");
	CHECK(run(e, &c, "SELECT id FROM r WHERE price <> 'xyzzy' ORDER BY id;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "1\n2\n3\n") == 0, "enum: a literal that means nothing, under <>");

	/* projection last, and a statement that is not a SELECT */
	CHECK(run(e, &c, "SELECT name, summary(reviews) AS s FROM r ORDER BY id DESC LIMIT 1;", &err) ==
	      SUQL_OK && strncmp(sb_str(&c.rows), "Bistro|A romantic", 17) == 0 &&
	      counter(&c, "projection last: ") == 1, "projection last: the row and its summary");
	CHECK(run(e, &c, "CREATE TABLE romantic AS SELECT id FROM r WHERE answer(reviews, "
	          "'is it romantic?') = 'Yes';", &err) == SUQL_OK &&
	      run(e, &c, "SELECT count(*) FROM romantic;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "2\n") == 0, "CREATE TABLE AS with free text");
	CHECK(run(e, &c, "UPDATE r SET name = name || '!' WHERE answer(reviews, 'is parking easy?') "
	          "= 'Yes';", &err) == SUQL_OK &&
	      run(e, &c, "SELECT name FROM r WHERE name LIKE '%!' ORDER BY id;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "Luigi!\nBistro!\n") == 0, "UPDATE with free text in WHERE");

	/* a view keeps self-contained functions */
	CHECK(run(e, &c, "CREATE VIEW rv AS SELECT id FROM r WHERE answer(reviews, 'is it romantic?') "
	          "= 'Yes';", &err) == SUQL_OK &&
	      run(e, &c, "SELECT id FROM rv ORDER BY id;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "1\n3\n") == 0, "a view with free text");

	/* the binder's table facts follow the database: a column added, and a table made again
	   after a ROLLBACK brought the schema cookie back (same cookie, other table) */
	CHECK(run(e, &c, "ALTER TABLE r ADD COLUMN note TEXT; UPDATE r SET note = 'Quiet and "
	          "calm.' WHERE id = 2; SELECT id FROM r WHERE answer(note, 'is it quiet?') = 'Yes';",
	          &err) == SUQL_OK && strcmp(sb_str(&c.rows), "2\n") == 0,
	      "table facts: a column added since the last statement is seen");
	CHECK(run(e, &c, "BEGIN; CREATE TABLE w (id INTEGER PRIMARY KEY, t TEXT); SELECT id FROM w "
	          "WHERE answer(t, 'is it quiet?') = 'Yes'; ROLLBACK; BEGIN; CREATE TABLE w (id TEXT "
	          "PRIMARY KEY, t TEXT) WITHOUT ROWID; SELECT id FROM w WHERE answer(t, 'is it "
	          "quiet?') = 'Yes'; COMMIT;", &err) == SUQL_OK && c.rows.len == 0,
	      "table facts: a table made again after a ROLLBACK is not read by an old rowid");

	CHECK(run(e, &c, "CREATE TABLE wr (id INTEGER PRIMARY KEY, without_rowid_note TEXT, t TEXT); "
	          "INSERT INTO wr VALUES (1, 'a', 'Quiet.'), (2, 'b', 'Loud.'); SELECT id FROM wr "
	          "WHERE answer(t, 'is it quiet?') = 'Yes' LIMIT 1;", &err) == SUQL_OK &&
	      strstr(sb_str(&c.plan), "SELECT wr.rowid AS suql_id0 FROM wr") &&
	      strcmp(sb_str(&c.rows), "1\n") == 0,
	      "table facts: a column named without_rowid_... leaves a rowid table fetched by rowid");

	/* a correlated subquery over the same table under an alias: r.id is the outer row */
	CHECK(run(e, &c, "SELECT id, (SELECT count(*) FROM r AS d WHERE d.id < r.id AND "
	          "answer(d.reviews, 'is it romantic?') = 'Yes') FROM r ORDER BY id;", &err) ==
	      SUQL_OK && strcmp(sb_str(&c.rows), "1|0\n2|1\n3|1\n") == 0,
	      "binder: t.x names the outer t, not an inner t AS d");

	/* read-only: the user's statement is judged, not the engine's own work */
	engine_set_readonly(e, 1);
	CHECK(run(e, &c, "SELECT id FROM r WHERE price = 'pricey' ORDER BY id;", &err) == SUQL_OK &&
	      strcmp(sb_str(&c.rows), "3\n") == 0, "read-only: ENUM classified and stored");
	CHECK(run(e, &c, "SELECT id, summary(reviews) FROM r ORDER BY id LIMIT 2;", &err) == SUQL_OK &&
	      counter(&c, "rows returned: ") == 2, "read-only: projection last uses its temp table");
	CHECK(run(e, &c, "DELETE FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';", &err) ==
	      SUQL_ERROR && strstr(err.msg, "refused") &&
	      run(e, &c, "SELECT count(*) FROM r;", &err) == SUQL_OK && strcmp(sb_str(&c.rows), "3\n") == 0,
	      "read-only: a DELETE with free text is refused, the rows stay");
	engine_set_readonly(e, 0);

	/* errors point at the user's text */
	CHECK(run(e, &c, "SELECT nme FROM r WHERE answer(reviews, 'q') = 'Yes';", &err) == SUQL_ERROR &&
	      strstr(err.msg, "line 1, column 8: no such column: nme"), "errors: at the user's column");

	cap_reset(&c);
	engine_close(e);
	llm_close(llm);
	err_clear(&err);
	return unit_done();
}
