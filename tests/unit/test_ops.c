/* The operator table (op_int.h, op.c): every row has a name, a slot and the entries its
   kind of row needs, in the order the plan and the counters have always come in, and its
   SQL functions named once (what op_sql_word answers); and, through
   engine_exec with the offline backend, which rows apply to a statement of each operator
   (read from the running statement as its plan is shown), what each would refuse on
   PostgreSQL, and that SQLite refuses none. */
#include "engine/op_int.h"
#include "unit.h"

#include <stdlib.h>

static const char *const order[] = {"ENUM", "semantic join", "aggregate", "sample", "filter walk",
                                    "top-k", "cascade", "extract", "bm25", NULL};

static void test_rows(void)
{
	int n = 0, named = 1, applies = 1, shown = 1, planned = 1, unique = 1, slots = 1;
	int inner = 1, funcs = 1, bound = 1;
	for (int i = 0; op_table[i]; i++, n++) {
		const EngineOp *op = op_table[i];
		named &= op->name && *op->name;
		applies &= op->applies != NULL;
		for (int k = 0; k < i && op->name; k++) {
			unique &= strcmp(op_table[k]->name, op->name) != 0;
			slots &= op_table[k]->slot != op->slot;
		}
		slots &= op->slot < OP_NSLOTS && op_row(op->slot) == op;
		/* the plan says what each operator the pipeline runs does */
		if (op->run || op->after)
			shown &= op->show != NULL;
		/* what an operator plans it runs */
		planned &= !op->plan || op->run || op->after;
		/* an operator inside the walk (its hooks) is run by the walk, not by the pipeline */
		if (op->walk_unit || op->ahead)
			inner &= !op->run && !op->after && !op->plan;
		/* its SQL functions: lower case, numbers of arguments that make sense, recognized */
		for (const OpFunc *f = op->funcs; f && f->name; f++) {
			for (const char *c = f->name; *c; c++)
				funcs &= !(*c >= 'A' && *c <= 'Z');
			funcs &= f->min_args >= 0 && f->min_args <= f->max_args;
			bound &= op->bind != NULL;
		}
		bound &= !op->forms || op->bind != NULL;
	}
	CHECK(n == 9, "ops: the table has its nine operators");
	CHECK(named && unique, "ops: every row has a name of its own");
	CHECK(slots, "ops: every row has a slot of its own in Exec.opstate");
	CHECK(applies, "ops: every row says when it applies");
	CHECK(shown, "ops: every row the pipeline runs shows its lines in the plan");
	CHECK(planned, "ops: a row that plans also runs");
	CHECK(inner, "ops: a row with hooks in the walk has no plan or run of its own");
	CHECK(funcs, "ops: every SQL function is named in lower case, with its numbers of "
	      "arguments");
	CHECK(bound, "ops: a row with SQL functions or forms of its own has the binder's entry");
	int same = 1;
	for (int i = 0; order[i] || op_table[i]; i++)
		same &= order[i] && op_table[i] && strcmp(order[i], op_table[i]->name) == 0;
	CHECK(same, "ops: the table's order is the plan's and the counters' (doc/architecture.md)");
	/* the names of the operators' SQL functions, spelled once in the rows, are the words
	   the fast path of plain SQL and completion read */
	const char *want[] = {"matches", "answer_agg", "summary_agg", "answer", "summary",
	                      "extract", "bm25", NULL};
	int all = 1, k = 0;
	for (; want[k]; k++)
		all &= op_sql_name(k) && strcmp(op_sql_name(k), want[k]) == 0;
	all &= op_sql_name(k) == NULL;
	CHECK(all, "ops: the SQL functions, in the table's order");
	CHECK(op_sql_word("answer_agg", 10) && op_sql_word("BM25", 4) && op_sql_word("Matches", 7) &&
	      !op_sql_word("answer_ag", 9) && !op_sql_word("select", 6) && !op_sql_word("bm2", 3) &&
	      !op_sql_word("summary_aggs", 12), "ops: op_sql_word knows the names in any case, and "
	      "only them");
	Exec ex;
	memset(&ex, 0, sizeof ex);
	int none = 1;
	for (int i = 0; op_table[i]; i++)
		none &= !op_applies(op_table[i], &ex);
	CHECK(none, "ops: nothing applies to a statement with nothing bound");
}

/* ---- through the engine ---- */

typedef struct Seen {
	Engine *e;
	char names[256];
	char pg[512];
	int sqlite_refused;
	int plans;
} Seen;

/* the plan is shown while the statement runs: its Exec is the engine's current one */
static void on_plan(void *ctx, const char *text)
{
	(void)text;
	Seen *s = ctx;
	Exec *ex = s->e->cur;
	s->plans++;
	s->names[0] = 0;
	for (int i = 0; ex && op_table[i]; i++)
		if (op_applies(op_table[i], ex)) {
			if (s->names[0])
				strncat(s->names, ", ", sizeof s->names - strlen(s->names) - 1);
			strncat(s->names, op_table[i]->name, sizeof s->names - strlen(s->names) - 1);
		}
	const char *why = ex ? op_refusal(ex, &dialect_pg) : NULL;
	snprintf(s->pg, sizeof s->pg, "%s", why ? why : "");
	s->sqlite_refused |= ex && op_refusal(ex, &dialect_sqlite) != NULL;
}

static int row(void *ctx, const Row *st)
{
	(void)ctx;
	(void)st;
	return 0;
}

static SuqlStatus run(Engine *e, Seen *s, const char *sql, SuqlErr *err)
{
	memset(s, 0, sizeof *s);
	s->e = e;
	EngineSink k = {s, NULL, on_plan, NULL, row, NULL, NULL, NULL, 0, NULL, 0};
	size_t used = 0, len = strlen(sql), off = 0;
	SuqlStatus st = SUQL_OK;
	while (off < len && st == SUQL_OK) {
		st = engine_exec(e, sql + off, len - off, &used, &k, err);
		if (!used)
			break;
		off += used;
	}
	return st;
}

static void expect(Engine *e, const char *sql, const char *names, const char *pg,
                   const char *label)
{
	SuqlErr err = {0};
	Seen s;
	SuqlStatus st = run(e, &s, sql, &err);
	char name[200];
	snprintf(name, sizeof name, "ops: %s: %s", label, names);
	if (st != SUQL_OK || s.plans == 0) {
		CHECK(0, name);
		printf("# %s\n", err.msg ? err.msg : "no plan shown");
	} else {
		CHECK_STR(s.names, names, name);
	}
	snprintf(name, sizeof name, "ops: %s: on PostgreSQL %s", label,
	         *pg ? "refused by its operator" : "no operator refuses");
	CHECK_STR(s.pg, pg, name);
	snprintf(name, sizeof name, "ops: %s: on SQLite no operator refuses", label);
	CHECK(!s.sqlite_refused, name);
	err_clear(&err);
}

/* the first kind of refusal (op_int.h) */
#define ROW "free text evaluated row by row, which needs suql's functions called by the database"

static void test_engine(void)
{
	SuqlErr err = {0};
	LlmConfig cfg = {0};
	cfg.offline = 1;
	cfg.no_cache = 1;
	Llm *llm = llm_open(&cfg, &err);
	Engine *e = engine_open(":memory:", llm, &err);
	Seen s;
	CHECK(run(e, &s, "CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, city TEXT, price "
	          "ENUM('cheap', 'moderate', 'expensive'), reviews FREE_TEXT);"
	          "INSERT INTO r VALUES (1, 'Luigi', 'Palo Alto', 'cheap', 'Romantic, candlelit; "
	          "parking is easy.');"
	          "INSERT INTO r VALUES (2, 'Wok', 'Palo Alto', 'moderate', 'Loud, no parking.');"
	          "INSERT INTO r VALUES (3, 'Bistro', 'Menlo Park', 'expensive', 'A romantic "
	          "evening; street parking.');", &err) == SUQL_OK, "ops: setup");
	expect(e, "SELECT id FROM r WHERE price = 'affordable';", "ENUM, filter walk", "",
	       "an ENUM literal");
	expect(e, "SELECT id FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';",
	       "filter walk", "", "a free-text filter");
	expect(e, "SELECT a.id, b.id FROM r a, r b WHERE matches(a.name, b.name, 'the same "
	       "place?');", "semantic join, filter walk", "", "a semantic join");
	expect(e, "SELECT r.name, (SELECT count(*) FROM r AS b WHERE matches(r.name, b.name, "
	       "'the same place?')) FROM r;", "semantic join, filter walk",
	       ROW ": a semantic join judged pair by pair (matches() 1: its block is correlated "
	       "with an enclosing query) (the semantic join operator)", "a join judged pair by pair");
	expect(e, "SELECT city, summary_agg(reviews) FROM r GROUP BY city;",
	       "aggregate, filter walk", "", "an aggregate over free text");
	expect(e, "SELECT city, (SELECT summary_agg(r2.reviews) FROM r AS r2 WHERE r2.city = "
	       "r.city) FROM r;", "aggregate, filter walk",
	       ROW ": an aggregate over free text in a correlated subquery (its groups are met row "
	       "by row) (the aggregate operator)", "an aggregate in a correlated subquery");
	expect(e, "SELECT id FROM r WHERE answer(reviews, name) = 'Yes';", "filter walk",
	       ROW ": a question that is not a literal (each row asks its own) (the filter walk "
	       "operator)", "a question that is not a literal");
	expect(e, "SELECT name, (SELECT count(*) FROM r AS b WHERE b.city = r.city AND "
	       "answer(b.reviews, 'is it quiet?') = 'Yes') FROM r;", "filter walk", "",
	       "free text in a correlated subquery reading only its own rows (evaluated ahead)");
	expect(e, "SELECT name, (SELECT count(*) FROM (SELECT * FROM r) AS b WHERE b.city = "
	       "r.city AND answer(b.reviews || r.name, 'is it quiet?') = 'Yes') FROM r;",
	       "filter walk",
	       ROW ": where SQLite asks it as it reads each row (a correlated subquery, a recursive "
	       "CTE, JOIN ... ON, an argument of another answer(), VALUES, a stored query under a "
	       "LIMIT) (the filter walk operator)",
	       "free text in a correlated subquery over a subquery, reading the row around it");
	expect(e, "UPDATE r SET name = name WHERE id IN (SELECT id FROM r WHERE answer(reviews, "
	       "'is it quiet?') = 'Yes');", "filter walk", "",
	       "UPDATE with free text in an uncorrelated subquery (walked ahead)");
	expect(e, "UPDATE r SET name = name WHERE EXISTS (SELECT 1 FROM r AS b WHERE b.id = r.id "
	       "AND answer(r.reviews, 'is it quiet?') = 'Yes');", "filter walk",
	       ROW ": free text in a subquery or CTE of UPDATE or DELETE that SQLite reads row by "
	       "row (a correlated one, or one under a LIMIT) (the filter walk operator)",
	       "UPDATE with free text in a correlated subquery reading the changed row");
	expect(e, "UPDATE r SET name = name WHERE answer(reviews, 'is it quiet?') = 'Yes';",
	       "filter walk", "", "UPDATE with free text in its own WHERE");
	expect(e, "SELECT id FROM r ORDER BY answer(reviews, 'is it romantic?', ARRAY['Yes', "
	       "'No']) DESC LIMIT 1;", "filter walk, top-k", "", "a semantic top-k");
	expect(e, "SELECT id, extract(reviews, 'parking text') FROM r;", "filter walk, extract",
	       "", "extract()");
	expect(e, "SELECT city, count(*), avg(id) FROM r WHERE answer(reviews, 'is it romantic?') = "
	       "'Yes' GROUP BY city ERROR WITHIN 10% AT CONFIDENCE 95%;", "sample, filter walk",
	       "a sample within a stated error (ERROR WITHIN), which reads its candidates again by "
	       "SQLite's row ids: on PostgreSQL, count without the clause (the sample operator)",
	       "aggregates within a stated error");
	CHECK(engine_set(e, "llm.cascade_target", "0.9", &err) == SUQL_OK, "ops: cascade on");
	expect(e, "SELECT id FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';",
	       "filter walk, cascade", "", "a cascade");
	engine_close(e);
	llm_close(llm);
	err_clear(&err);
}

int main(void)
{
	test_rows();
	test_engine();
	return unit_done();
}
