# Issue 12, item 4: the queries a chat model writes are bounded by default: in time (a
# five-way cross join that counts: chat.timeout), rows (an endless CTE under a huge LIMIT:
# chat.max_rows, kept with a warning) and value size (randomblob(100000000) wrote 1 GB:
# chat.max_value). Each failure goes back to the model, whose correction runs.
@@ db demo
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 100000000\"}"},
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT name FROM restaurants LIMIT 1\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants a, restaurants b, restaurants c, restaurants d, restaurants e\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT length(randomblob(100000000)) AS n\"}"},
 {"match": "Task: answer the user", "content": "Done."}
]
@@ args --chat $DB
@@ stdin
:set chat.timeout 1
:set chat.max_rows 3
count every combination of five restaurants
make a very big value
@@ status 0
@@ stdout has the query failed: stopped at the time limit of 1 s (:set chat.timeout SECONDS changes it)
@@ stdout has (3 rows)
@@ stderr has warning: stopped after 3 rows, the most shown here (:set chat.max_rows N changes it)
@@ stdout has the query failed: a value is longer than 1000000 bytes, the most allowed here (:set chat.max_value BYTES changes it)
@@ stdout bytes 20000
@@ unchanged
