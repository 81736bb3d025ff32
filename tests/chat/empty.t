# A search that finds nothing, with chat.relax off: the reply comes from the separate
# no-results instruction, whose request carries the query but no rows, and no relax step
# is asked for.
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name, rating FROM restaurants WHERE location = 'Redwood City' AND rating >= 4.9\"}"},
 {"match": "Task: tell the user",
  "content": "I searched for restaurants in Redwood City rated 4.9 or better, but found none."},
 {"match": "Task: answer the user", "content": "THIS MUST NOT BE ASKED"}
]
@@ args --chat --set chat.relax=off $DB
@@ stdin
a top rated place in Redwood City?
@@ stdout
parsed:
  SELECT id, name, rating FROM restaurants WHERE location = 'Redwood City' AND rating >= 4.9 LIMIT 5
result:
+----+------+--------+
| id | name | rating |
+----+------+--------+
+----+------+--------+
(0 rows)
reply:
  I searched for restaurants in Redwood City rated 4.9 or better, but found none.
@@ stderr
@@ status 0
@@ requests
parse empty
@@ request empty 1
+ Task: tell the user that the search found nothing.
+ Do not name, describe or suggest any particular result
+ The query that ran and found nothing:
+ SELECT id, name, rating FROM restaurants WHERE location = 'Redwood City' AND rating >= 4.9 LIMIT 5
- "name":
- It returned
- Task: answer the user
