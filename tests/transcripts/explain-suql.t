# EXPLAIN of a statement with free text or an ENUM literal shows suql's parsed statement and
# its plan with the estimate, where the result goes, and asks no model: the endpoint here
# (port 9, where nothing answers) would fail any call. EXPLAIN QUERY PLAN keeps SQLite's
# meaning, and so does EXPLAIN of plain SQL (the VDBE listing). With a price set, the
# estimate is also in dollars: its tokens read from the texts' lengths where there are
# texts to read (ENUM's classifications have none: a prompt at a fixed size).
@@ args --csv --no-cache --llm-url http://127.0.0.1:9/v1 --model m --set llm.price_in=1 --set llm.price_out=4 --set times=off $DB
@@ stdin
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, price ENUM('cheap', 'dear'), reviews FREE_TEXT[]);
INSERT INTO r VALUES (1, 'Luigi', 'cheap', '["Romantic and candlelit.", "Parking is easy."]'), (2, 'Wok', 'dear', '["Not romantic at all, very loud."]'), (3, 'Bistro', 'dear', '["A romantic evening for two."]');
EXPLAIN SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id LIMIT 1;
EXPLAIN SELECT name FROM r WHERE price IN ('Cheap', 'expensive');
EXPLAIN QUERY PLAN SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';
EXPLAIN SELECT 1;
@@ stdout
parsed:
  SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY id LIMIT 1
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 3 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 3 rows pass its structured part
      sqlite: SELECT r.rowid AS suql_id0 FROM r ORDER BY id
      free text, tried in this order:
        1. answer(reviews, 'is it romantic?') = 'Yes'
    walk: lazy, stops once 1 row passed (LIMIT); candidates in the query's ORDER BY order; waves sized from the pass rate
  sqlite: SELECT name FROM r WHERE suql_atom(0, reviews, 'is it romantic?') ORDER BY id LIMIT 1
  expected: at most 1 LLM call (verify 1) while at least 1 candidate in 50 passes (the walk stops at the LIMIT)
  worst case: 2 LLM calls (verify 2), if too few candidates pass; budget 1000
  cost (from the texts' lengths): expected about 322 tokens in, 10 out; at most 621 in, 144 out: expected about $0.00036, at most $0.00120 at m's price, $1 in and $4 out a million tokens (llm.price_in and llm.price_out)
  floor: 1 LLM call, the fewest any plan needs at these estimates (filter walk 1), about 332 tokens
  EXPLAIN: nothing ran and no model was asked (EXPLAIN QUERY PLAN shows SQLite's plan of the statement)
parsed:
  SELECT name FROM r WHERE price IN ('Cheap', 'expensive')
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  enum: price IN ('Cheap', 'expensive')
    'Cheap' -> not a permitted value: to be classified by m at http://127.0.0.1:9/v1 (1 call)
    'expensive' -> not a permitted value: to be classified by m at http://127.0.0.1:9/v1 (1 call)
  sqlite: SELECT name FROM r WHERE price IN ('Cheap', 'expensive')
  worst case: 2 LLM calls (classify 2); budget 1000
  cost (each candidate at its whole passage allowance): at most 500 tokens in, 120 out: at most $0.00098 at m's price, $1 in and $4 out a million tokens (llm.price_in and llm.price_out)
  floor: 2 LLM calls, the fewest any plan needs at these estimates (ENUM 2), about 620 tokens
  EXPLAIN: nothing ran and no model was asked (EXPLAIN QUERY PLAN shows SQLite's plan of the statement)
id,parent,notused,detail
2,0,0,SCAN r
addr,opcode,p1,p2,p3,p4,p5,comment
0,Init,0,4,0,,0,
1,Integer,1,1,0,,0,
2,ResultRow,1,1,0,,0,
3,Halt,0,0,0,,0,
4,Goto,0,1,0,,0,
@@ stderr
@@ status 0
