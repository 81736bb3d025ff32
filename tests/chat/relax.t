# A search that finds nothing is relaxed once (chat.relax is on by default): the model is
# asked for a less strict query, shown as such; its rows go to the respond step with a note
# that the search was relaxed. A second search whose relaxed form finds nothing either ends
# with the no-results instruction, which mentions both queries and carries no rows. A
# relaxed query that cannot run is noted and the turn answers from the empty result.
@@ rules
[
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.8\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE name = 'Chez Nobody'\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE phone_number = '555-9999'\"}"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%'"},
 {"match": "Task: loosen", "times": 1, "content": "DELETE FROM restaurants"},
 {"match": "Task: answer the user",
  "content": "I searched for restaurants in Menlo Park rated 4.8 or better and found none, so I relaxed the search to 4.4 or better: Sushi Zen Menlo (4.5)."},
 {"match": "Task: tell the user",
  "content": "I searched for a restaurant called Chez Nobody, and for names containing Nobody, but found none."}
]
@@ stdin
the best restaurant in Menlo Park
is there a place called Chez Nobody?
who has the number 555-9999?
@@ stdout
parsed:
  SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.8 LIMIT 5
result:
+----+------+--------+
| id | name | rating |
+----+------+--------+
+----+------+--------+
(0 rows)
relaxed:
  nothing matched, so I relaxed the search:
parsed:
  SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4 LIMIT 5
result:
+-----+-----------------+--------+
| id  | name            | rating |
+-----+-----------------+--------+
| 103 | Sushi Zen Menlo |    4.5 |
+-----+-----------------+--------+
(1 row)
reply:
  I searched for restaurants in Menlo Park rated 4.8 or better and found none, so I relaxed the search to 4.4 or better: Sushi Zen Menlo (4.5).
parsed:
  SELECT id, name FROM restaurants WHERE name = 'Chez Nobody' LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
relaxed:
  nothing matched, so I relaxed the search:
parsed:
  SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%' LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
reply:
  I searched for a restaurant called Chez Nobody, and for names containing Nobody, but found none.
parsed:
  SELECT id, name FROM restaurants WHERE phone_number = '555-9999' LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
note:
  the less strict query the model wrote cannot run (line 1, column 1: only a SELECT query may run here, and this is a DELETE statement
    DELETE FROM restaurants
    ^
  hint: write one SELECT query (WITH ... SELECT is fine); nothing may change the database)
reply:
  I searched for a restaurant called Chez Nobody, and for names containing Nobody, but found none.
@@ stderr
@@ status 0
@@ requests
parse relax respond
parse relax empty
parse relax empty
@@ request relax 1
+ Task: loosen a query that found nothing.
+ The query that found nothing:
+ SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.8 LIMIT 5
+ location: one of 'Palo Alto'
@@ request respond 1
+ SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4 LIMIT 5
+ Nothing matched the first query (SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.8 LIMIT 5)
+ {"id":103,"name":"Sushi Zen Menlo","rating":4.5}
@@ request parse 2
+ SUQL (found nothing): SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.8 LIMIT 5
+ SUQL: SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4 LIMIT 5
+ Result: 1 row: Sushi Zen Menlo (id=103)
@@ request empty 1
+ SELECT id, name FROM restaurants WHERE name = 'Chez Nobody' LIMIT 5
+ A less strict query found nothing either: SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%' LIMIT 5
- "name":
@@ unchanged
