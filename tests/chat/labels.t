# The demo's restaurant_labels holds the answers the reviews are checked against: chat mode
# does not show it to the model (it is marked with :labels), and a query that reads it
# anyway is refused, before and after the repair round. The failed turn's queries are kept
# by :history and :save. Naming it in chat.tables does not show it either.
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id FROM restaurant_labels WHERE romantic = 1\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT r.name FROM restaurants r JOIN restaurant_labels l USING (id) WHERE l.romantic = 1\"}"},
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants\"}"},
 {"match": "Task: answer the user", "content": "There are 112 restaurants."}
]
@@ stdin
which restaurants are romantic?
:history
:save turns.jsonl
:set chat.tables restaurants,restaurant_labels
how many restaurants?
@@ stdout
parsed:
  SELECT r.name FROM restaurants AS r JOIN restaurant_labels AS l USING (id) WHERE l.romantic = 1 LIMIT 5
retry:
  the query failed: refused: restaurant_labels holds evaluation labels, which statements here may not read (:labels restaurant_labels off allows it)
  asking the model to correct it
parsed:
  SELECT id FROM restaurant_labels WHERE romantic = 1 LIMIT 5
1.  you:   which restaurants are romantic?
    tried: SELECT id FROM restaurant_labels WHERE romantic = 1
    error: refused: restaurant_labels holds evaluation labels, which statements here may not read (:labels restaurant_labels off allows it)
parsed:
  SELECT count(*) FROM restaurants LIMIT 5
result:
+----------+
| count(*) |
+----------+
|      112 |
+----------+
(1 row)
reply:
  There are 112 restaurants.
@@ stderr
error: stdin:1: no query that runs came out of this turn, so there is no answer; the corrected query failed too: refused: restaurant_labels holds evaluation labels, which statements here may not read (:labels restaurant_labels off allows it)
@@ status 1
@@ requests
parse repair
parse respond
@@ request parse 1
+ CREATE TABLE restaurants
- restaurant_labels
@@ request parse 2
+ CREATE TABLE restaurants
- CREATE TABLE restaurant_labels
@@ check
[ "$(jsonl turns.jsonl "SELECT json_extract(j, '$.tried') FROM turns")" = "SELECT id FROM restaurant_labels WHERE romantic = 1" ]
