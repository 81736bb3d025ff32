# What -v shows for free text: the plan before any call and the counters after, for an
# optimized statement (lazy under LIMIT, projection last), the same in naive mode, an ENUM
# literal classified, and a statement refused by the budget. Re-record when the display of
# the plan or the counters changes (and read the diff).
@@ args -v --offline --no-cache --set times=off $DB
@@ stdin
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, price ENUM('cheap', 'dear'), reviews FREE_TEXT[]);
INSERT INTO r VALUES (1, 'Luigi', 'cheap', '["Romantic and candlelit.", "Parking is easy."]'), (2, 'Wok', 'dear', '["Not romantic at all, very loud."]'), (3, 'Bistro', 'dear', '["A romantic evening for two."]');
SELECT name, summary(reviews) FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id LIMIT 1;
:set optimize off
SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id;
:set optimize on
SELECT name FROM r WHERE price IN ('Cheap', 'expensive');
:set budget 1
:set batch 1
SELECT name FROM r WHERE answer(reviews, 'is it quiet?') = 'Yes';
@@ stdout
+-------+------------------------------------------+
| name  | summary(reviews)                         |
+-------+------------------------------------------+
| Luigi | Romantic and candlelit. Parking is easy. |
+-------+------------------------------------------+
(1 row)
+--------+
| name   |
+--------+
| Luigi  |
| Bistro |
+--------+
(2 rows)
+-------+
| name  |
+-------+
| Luigi |
+-------+
(1 row)
@@ stderr
parsed:
  CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, price ENUM('cheap', 'dear'), reviews FREE_TEXT[])
parsed:
  INSERT INTO r VALUES (1, 'Luigi', 'cheap', '["Romantic and candlelit.", "Parking is easy."]'), (2, 'Wok', 'dear', '["Not romantic at all, very loud."]'), (3, 'Bistro', 'dear', '["A romantic evening for two."]')
parsed:
  SELECT name, summary(reviews) FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id LIMIT 1
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 3 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 3 rows pass its structured part
      sqlite: SELECT r.rowid AS suql_id0 FROM r ORDER BY id
      free text, tried in this order:
        1. answer(reviews, 'is it romantic?') = 'Yes'
    walk: lazy, stops once 1 row passed (LIMIT); candidates in the query's ORDER BY order; waves sized from the pass rate
    result column summary(reviews): projection last, on the returned rows only (at most 1)
  sqlite: SELECT name, suql_summary(0, reviews) AS "summary(reviews)" FROM r WHERE suql_atom(1, reviews, 'is it romantic?') ORDER BY id LIMIT 1
  expected: at most 2 LLM calls (verify 1, summary 1) while at least 1 candidate in 50 passes (the walk stops at the LIMIT)
  worst case: 3 LLM calls (verify 2, summary 1), if too few candidates pass; budget 1000
  floor: 2 LLM calls, the fewest any plan needs at these estimates (filter walk 2)
counters:
  conjunct 1: 3 candidates after the structured filter; 3 judged: 2 passed, 1 failed (more than the 1 the LIMIT needs: the candidates of a call are judged together)
  projection last: 1 row kept, 1 value
  rows returned: 1
  llm calls: 2 (verify 1, summary 1), carrying 4 candidates in 2 waves
  cache hits: 0
  requests: 2, answered here by the offline backend (nothing is sent)
  speculative: 2 candidates judged after the result was complete, in calls that were needed anyway
  tokens: 0 in, 0 out (the offline backend uses none)
  floor: 2 calls, 1.0x the floor of 2
  backend: offline (lexical, no language model)
parsed:
  SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id
plan:
  optimize off (naive): SQLite calls the free-text functions row by row; each value not seen before in the statement costs one call
  sqlite: SELECT name FROM r WHERE suql_atom(0, reviews, 'is it romantic?') ORDER BY id
  worst case: 3 LLM calls (verify 3); budget 1000
  floor: 1 LLM call, the fewest any plan needs at these estimates (filter walk 1)
counters:
  rows returned: 2
  llm calls: 3 (verify 3), carrying 3 candidates
  cache hits: 0
  requests: 3, answered here by the offline backend (nothing is sent)
  on demand: 3 calls made by the functions row by row
  tokens: 0 in, 0 out (the offline backend uses none)
  floor: 3 calls, 3.0x the floor of 1
  backend: offline (lexical, no language model)
parsed:
  SELECT name FROM r WHERE price IN ('Cheap', 'expensive')
warning: 'expensive' matches none of price's values, as offline-lexical-2 classified it (:enum forget r.price asks again)
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  enum: price IN ('Cheap', 'expensive')
    'Cheap' -> {'cheap'} (classified now)
    'expensive' -> {} (classified now; none of the values fits)
    becomes price IN ('cheap')
  sqlite: SELECT name FROM r WHERE price IN ('cheap')
  worst case: 2 LLM calls (classify 2); budget 1000
  floor: 2 LLM calls, the fewest any plan needs at these estimates (ENUM 2)
counters:
  rows returned: 1
  llm calls: 2 (classify 2)
  cache hits: 0
  requests: 2, answered here by the offline backend (nothing is sent)
  tokens: 0 in, 0 out (the offline backend uses none)
  floor: 2 calls, 1.0x the floor of 2
  backend: offline (lexical, no language model)
parsed:
  SELECT name FROM r WHERE answer(reviews, 'is it quiet?') = 'Yes'
plan:
  optimize on: batch 1 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 3 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 3 rows pass its structured part
      sqlite: SELECT r.rowid AS suql_id0 FROM r
      free text, tried in this order:
        1. answer(reviews, 'is it quiet?') = 'Yes'
    walk: every candidate, in batches
  sqlite: SELECT name FROM r WHERE suql_atom(0, reviews, 'is it quiet?')
  worst case: 3 LLM calls (verify 3); budget 1: over it, refused
  floor: 3 LLM calls, the fewest any plan needs at these estimates (filter walk 3)
error: stdin:10: this statement may need up to 3 LLM calls, more than the budget of 1; raise it with :set budget 3 (or :set budget 0 for no limit), or narrow the query
@@ status 1
