# The agent on the HybridQA tables (build/hybridqa.db from `make fixtures`; skipped when it
# is not built): each table comes with its description (from suql_table_info), and
# chat.tables narrows what the model is shown.
@@ db hybridqa
@@ args --chat --set chat.tables=t_2001_brazilian_grand_prix_0 $DB
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT Pos, Driver, Constructor FROM t_2001_brazilian_grand_prix_0 WHERE Pos = 1\"}"},
 {"match": "Task: answer the user", "content": "I searched for the winner of the race."}
]
@@ stdin
who won the 2001 Brazilian Grand Prix?
@@ stdout
parsed:
  SELECT Pos, Driver, Constructor FROM t_2001_brazilian_grand_prix_0 WHERE Pos = 1 LIMIT 5
result:
+-----+--------------------+-------------+
| Pos | Driver             | Constructor |
+-----+--------------------+-------------+
|   1 | Michael Schumacher | Ferrari     |
+-----+--------------------+-------------+
(1 row)
reply:
  I searched for the winner of the race.
@@ stderr
@@ status 0
@@ requests
parse respond
@@ request parse 1
+ -- 2001 Brazilian Grand Prix
+ CREATE TABLE t_2001_brazilian_grand_prix_0 (
+ Driver_Info FREE_TEXT[],
- t_129th_ohio_general_assembly_1
@@ request respond 1
+ It returned 1 row:
+ "Pos":1
