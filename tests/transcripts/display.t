# :set show: full shows -v's sections whole (on standard error in a script); compact one line
# of plan (the calls expected and at worst) and one of counters (calls, tokens, time: here
# with times off), no parsed statement; rows the rows alone. EXPLAIN shows its whole plan
# whatever show says. :help NAME for a SUQL function (with an example) and for a setting;
# :help set lays each setting out as a line of name, values and default, and its
# description under it.
@@ args -v --offline --set times=off
@@ stdin
CREATE TABLE r (name TEXT, reviews FREE_TEXT);
INSERT INTO r VALUES ('Ann', 'a quiet romantic place, candles and all'), ('Bo', 'loud and cheap'), ('Cy', 'romantic view of the bay');
:set show compact
SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes' LIMIT 1;
SELECT name FROM r WHERE answer(reviews, 'is it quiet?') = 'Yes';
:set show rows
SELECT name FROM r WHERE answer(reviews, 'is it loud?') = 'Yes';
:set show compact
EXPLAIN SELECT name FROM r WHERE answer(reviews, 'is it cheap?') = 'Yes';
:set show sometimes
:help answer
:help =
:help show
:help nosuch
@@ stdout
+------+
| name |
+------+
| Ann  |
+------+
(1 row)
+------+
| name |
+------+
| Ann  |
+------+
(1 row)
+------+
| name |
+------+
| Bo   |
+------+
(1 row)
parsed:
  SELECT name FROM r WHERE answer(reviews, 'is it cheap?') = 'Yes'
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 3 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 3 rows pass its structured part
      sqlite: SELECT r.rowid AS suql_id0 FROM r
      free text, tried in this order:
        1. answer(reviews, 'is it cheap?') = 'Yes'
    walk: every candidate, in batches
  sqlite: SELECT name FROM r WHERE suql_atom(0, reviews, 'is it cheap?')
  worst case: 1 LLM call (verify 1); budget 1000
  floor: 1 LLM call, the fewest any plan needs at these estimates (filter walk 1)
  EXPLAIN: nothing ran and no model was asked (EXPLAIN QUERY PLAN shows SQLite's plan of the statement)
answer(text, 'question')
answer(text, 'question', ARRAY['value', ...])
answer(text, 'question')::TYPE
  Asks the model the question of each value of a free-text column (or any text)
  and gives its answer: compared with 'Yes' in WHERE it keeps the rows whose
  text says yes, judged in batches, lazily under a LIMIT. With ARRAY[...] the
  answer is one of the values allowed (or NULL); with ::int, ::real, ::date or
  CAST(... AS INTEGER) a value of that type, or NULL when the model gives none.
Example:
    SELECT name FROM restaurants
      WHERE answer(reviews, 'is it romantic?') = 'Yes' LIMIT 3;
enum_column = 'literal'
'literal' = ANY (enum_list_column)
enum_list_column @> ARRAY['literal', ...]   (also <@, &&, IN)
  On an ENUM column, a literal that is not one of its values is first classified
  into the values it means (one call per column and literal, kept in the
  database; :enum lists them), and the comparison becomes a list of those:
  'coffee' finds 'cafe' and 'coffee & tea'.
Example:
    SELECT name, cuisines FROM restaurants
      WHERE 'coffee' = ANY (cuisines) LIMIT 3;
:set show full|compact|rows
  show full|compact|rows (default full)
      how much is shown around a statement's rows: full, the parsed SUQL, plan
      and counters as explain and stats say; compact, one line of plan (the
      calls expected and at worst, the dollars) and one of counters (calls,
      tokens, dollars, time); rows, the rows alone, with errors, warnings and
      notes
@@ stderr
parsed:
  CREATE TABLE r (name TEXT, reviews FREE_TEXT)
parsed:
  INSERT INTO r VALUES ('Ann', 'a quiet romantic place, candles and all'), ('Bo', 'loud and cheap'), ('Cy', 'romantic view of the bay')
plan: 1 LLM call expected, at most 2
counters: 1 LLM call, 0 tokens in, 0 out
plan: at most 1 LLM call
counters: 1 LLM call, 0 tokens in, 0 out
error: stdin:10: show takes full, compact or rows, not 'sometimes'
error: stdin:14: no meta-command, SUQL function or setting 'nosuch' (:help lists the meta-commands, :help functions the functions, :help set the settings)
@@ status 1
