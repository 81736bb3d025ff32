# -v --json with explain rows: after the rows of a statement with free text comes its record,
# one JSON object {"record": ...} on stdout: each candidate examined with its key, label,
# verdict, request and the passages shown, each row returned with the values it depends on
# (here a summary as well as the filter). The per-row section goes to stderr with the other
# sections; a statement without free text adds nothing.
@@ args -v --json --set explain=rows --offline --no-cache --set times=off $DB
@@ stdin
CREATE TABLE inns (name TEXT, notes FREE_TEXT[]);
INSERT INTO inns VALUES ('Harbour Inn', '["Sea view from every room.","Breakfast is early."]'), ('Mill House', '["No view, faces the car park."]'), ('Cliff Lodge', '["A view of the cliffs."]');
SELECT name, summary(notes) AS s FROM inns WHERE answer(notes, 'is there a view?') = 'Yes' LIMIT 1;
SELECT count(*) AS n FROM inns;
@@ stdout
[
{"name":"Harbour Inn","s":"Sea view from every room. Breakfast is early."}
]
{"record":{"statement":"SELECT name, summary(notes) AS s FROM inns WHERE answer(notes, 'is there a view?') = 'Yes' LIMIT 1","candidates":[{"block":1,"conjunct":1,"position":1,"key":[1],"label":"Harbour Inn","in_result":true,"predicates":[{"what":"answer(notes, 'is there a view?') = 'Yes'","verdict":"yes","reply":"yes","evidence":"Sea view from every room.","cached":false,"request":1,"wave":1,"call_candidates":3,"passages":["Sea view from every room.","Breakfast is early."]}]},{"block":1,"conjunct":1,"position":2,"key":[3],"label":"Cliff Lodge","in_result":false,"predicates":[{"what":"answer(notes, 'is there a view?') = 'Yes'","verdict":"yes","reply":"yes","evidence":"A view of the cliffs.","cached":false,"request":1,"wave":1,"call_candidates":3,"passages":["A view of the cliffs."]}]},{"block":1,"conjunct":1,"position":3,"key":[2],"label":"Mill House","in_result":false,"predicates":[{"what":"answer(notes, 'is there a view?') = 'Yes'","verdict":"no","reply":"no","evidence":"No view, faces the car park.","cached":false,"request":1,"wave":1,"call_candidates":3,"passages":["No view, faces the car park."]}]}],"conjuncts":[{"block":1,"conjunct":1,"candidates":3,"examined":3,"not_examined":0,"why":"","structured_filter":0}],"rows":[{"row":1,"key":[1],"values":[{"what":"answer(notes, 'is there a view?') = 'Yes'","verdict":"yes","reply":"yes","evidence":"Sea view from every room.","cached":false,"request":1,"wave":1,"call_candidates":3,"passages":["Sea view from every room.","Breakfast is early."]},{"what":"summary(notes)","value":"Sea view from every room. Breakfast is early.","reply":"Sea view from every room. Breakfast is early.","evidence":null,"cached":false,"request":2,"wave":2,"call_candidates":1,"passages":["Sea view from every room.","Breakfast is early."]}]}]}}
[
{"n":3}
]
@@ stderr
parsed:
  CREATE TABLE inns (name TEXT, notes FREE_TEXT[])
parsed:
  INSERT INTO inns VALUES ('Harbour Inn', '["Sea view from every room.","Breakfast is early."]'), ('Mill House', '["No view, faces the car park."]'), ('Cliff Lodge', '["A view of the cliffs."]')
parsed:
  SELECT name, summary(notes) AS s FROM inns WHERE answer(notes, 'is there a view?') = 'Yes' LIMIT 1
plan:
  optimize on: batch 32 (at most 8000 tokens a call), concurrency 8, passages up to 500 tokens a candidate
  block 1 (the statement): 3 rows in FROM
    where: 1 conjunct in DNF
    conjunct 1: 3 rows pass its structured part
      sqlite: SELECT inns.rowid AS suql_id0 FROM inns
      free text, tried in this order:
        1. answer(notes, 'is there a view?') = 'Yes'
    walk: lazy, stops once 1 row passed (LIMIT); candidates by relevance (BM25 of their passages for the question); waves sized from the pass rate
    result column summary(notes): projection last, on the returned rows only (at most 1)
  sqlite: SELECT name, suql_summary(0, notes) AS s FROM inns WHERE suql_atom(1, notes, 'is there a view?') LIMIT 1
  expected: at most 2 LLM calls (verify 1, summary 1) while at least 1 candidate in 50 passes (the walk stops at the LIMIT)
  worst case: 3 LLM calls (verify 2, summary 1), if too few candidates pass; budget 1000
  floor: 2 LLM calls, the fewest any plan needs at these estimates (filter walk 2)
counters:
  conjunct 1: 3 candidates after the structured filter; 3 judged: 2 passed, 1 failed (more than the 1 the LIMIT needs: the candidates of a call are judged together)
  conjunct 1: candidates ranked by BM25 over the index of inns.notes
  projection last: 1 row kept, 1 value
  rows returned: 1
  llm calls: 2 (verify 1, summary 1), carrying 4 candidates in 2 waves
  cache hits: 0
  requests: 2, answered here by the offline backend (nothing is sent)
  speculative: 2 candidates judged after the result was complete, in calls that were needed anyway
  tokens: 0 in, 0 out (the offline backend uses none)
  floor: 2 calls, 1.0x the floor of 2
  backend: offline (lexical, no language model)
candidates:
  block 1, conjunct 1: 3 candidates, 3 examined, in the order examined
    q1 = answer(notes, 'is there a view?') = 'Yes'
    1. key 1 Harbour Inn | wave 1 | request 1 | q1 yes | in the result | "Sea view from every room."
    2. key 3 Cliff Lodge | wave 1 | request 1 | q1 yes | not in the result | "A view of the cliffs."
    3. key 2 Mill House | wave 1 | request 1 | q1 no | not in the result | "No view, faces the car park."
    not examined: 0 candidates; 0 rows of FROM removed by the structured filter
parsed:
  SELECT count(*) AS n FROM inns
@@ status 0
