# -v --json: the parsed SUQL, the plan and the counters go to stderr when stdout is not a
# terminal, so stdout is the JSON alone; list columns (ENUM[], FREE_TEXT[], TEXT[]) come out
# as JSON arrays, not as strings holding JSON.
@@ args -v --json --offline --no-cache --set times=off $DB
@@ stdin
CREATE TABLE shop (name TEXT, tags TEXT[], kinds ENUM[], notes FREE_TEXT[]);
INSERT INTO shop VALUES ('Corner Cafe', '["wifi","quiet"]', '["cafe"]', '["Quiet room, good wifi.","The staff is kind."]'), ('Loud Bar', '[]', '["bar"]', '["Very loud music every night."]');
SELECT name, tags, kinds, notes FROM shop WHERE answer(notes, 'is it quiet?') = 'Yes';
SELECT name, tags FROM shop ORDER BY name;
@@ stdout
[
{"name":"Corner Cafe","tags":["wifi","quiet"],"kinds":["cafe"],"notes":["Quiet room, good wifi.","The staff is kind."]}
]
[
{"name":"Corner Cafe","tags":["wifi","quiet"]},
{"name":"Loud Bar","tags":[]}
]
@@ stderr
parsed:
  CREATE TABLE shop (name TEXT, tags TEXT[], kinds ENUM[], notes FREE_TEXT[])
parsed:
  INSERT INTO shop VALUES ('Corner Cafe', '["wifi","quiet"]', '["cafe"]', '["Quiet room, good wifi.","The staff is kind."]'), ('Loud Bar', '[]', '["bar"]', '["Very loud music every night."]')
parsed:
  SELECT name, tags, kinds, notes FROM shop WHERE answer(notes, 'is it quiet?') = 'Yes'
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 2 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 2 rows pass its structured part
      sqlite: SELECT shop.rowid AS suql_id0 FROM shop
      free text, tried in this order:
        1. answer(notes, 'is it quiet?') = 'Yes'
    walk: every candidate, in batches
  sqlite: SELECT name, tags, kinds, notes FROM shop WHERE suql_atom(0, notes, 'is it quiet?')
  worst case: 1 LLM call (verify 1); budget 1000
  floor: 1 LLM call, the fewest any plan needs at these estimates (filter walk 1)
counters:
  conjunct 1: 2 candidates after the structured filter; 2 judged: 1 passed, 1 failed
  rows returned: 1
  llm calls: 1 (verify 1), carrying 2 candidates in 1 wave
  cache hits: 0
  requests: 1, answered here by the offline backend (nothing is sent)
  tokens: 0 in, 0 out (the offline backend uses none)
  floor: 1 call, 1.0x the floor of 1
  backend: offline (lexical, no language model)
parsed:
  SELECT name, tags FROM shop ORDER BY name
@@ status 0
