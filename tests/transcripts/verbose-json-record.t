# -v --json with explain rows: after the rows of a statement with free text comes its record,
# one JSON object {"record": ...} on stdout: each candidate examined with its key, label,
# verdict, request and the passages shown, each row returned with the values it depends on.
# The per-row section goes to stderr with the other sections.
@@ args -v --json --set explain=rows --offline --no-cache --set times=off $DB
@@ stdin
CREATE TABLE shop (name TEXT, tags TEXT[], kinds ENUM[], notes FREE_TEXT[]);
INSERT INTO shop VALUES ('Corner Cafe', '["wifi","quiet"]', '["cafe"]', '["Quiet room, good wifi.","The staff is kind."]'), ('Loud Bar', '[]', '["bar"]', '["Very loud music every night."]');
SELECT name, tags, kinds, notes FROM shop WHERE answer(notes, 'is it quiet?') = 'Yes';
SELECT name, tags FROM shop ORDER BY name;
@@ stdout
[
{"name":"Corner Cafe","tags":["wifi","quiet"],"kinds":["cafe"],"notes":["Quiet room, good wifi.","The staff is kind."]}
]
{"record":{"statement":"SELECT name, tags, kinds, notes FROM shop WHERE answer(notes, 'is it quiet?') = 'Yes'","candidates":[{"block":1,"conjunct":1,"position":1,"key":[1],"label":"Corner Cafe","in_result":true,"predicates":[{"what":"answer(notes, 'is it quiet?') = 'Yes'","verdict":"yes","reply":"yes","cached":false,"request":1,"wave":1,"call_candidates":2,"passages":["Quiet room, good wifi.","The staff is kind."]}]},{"block":1,"conjunct":1,"position":2,"key":[2],"label":"Loud Bar","in_result":false,"predicates":[{"what":"answer(notes, 'is it quiet?') = 'Yes'","verdict":"no","reply":"no","cached":false,"request":1,"wave":1,"call_candidates":2,"passages":["Very loud music every night."]}]}],"conjuncts":[{"block":1,"conjunct":1,"candidates":2,"examined":2,"not_examined":0,"why":"","structured_filter":0}],"rows":[{"row":1,"key":[1],"values":[{"what":"answer(notes, 'is it quiet?') = 'Yes'","verdict":"yes","reply":"yes","cached":false,"request":1,"wave":1,"call_candidates":2,"passages":["Quiet room, good wifi.","The staff is kind."]}]}]}}
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
counters:
  conjunct 1: 2 candidates after the structured filter; 2 judged: 1 passed, 1 failed
  rows returned: 1
  llm calls: 1 (verify 1), carrying 2 candidates in 1 wave
  cache hits: 0
  requests: 1, answered here by the offline backend (nothing is sent)
  tokens: 0 in, 0 out (the offline backend uses none)
  backend: offline (lexical, no language model)
candidates:
  block 1, conjunct 1: 2 candidates, 2 examined, in the order examined
    q1 = answer(notes, 'is it quiet?') = 'Yes'
    1. key 1 Corner Cafe | wave 1 | request 1 | q1 yes | in the result | "Quiet room, good wifi."
    2. key 2 Loud Bar | wave 1 | request 1 | q1 no | not in the result | "Very loud music every night."
    not examined: 0 candidates; 0 rows of FROM removed by the structured filter
parsed:
  SELECT name, tags FROM shop ORDER BY name
@@ status 0
