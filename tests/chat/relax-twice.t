# With chat.relax 2 (as the HybridQA pipeline uses it) a search that finds nothing is relaxed
# up to twice: the second relax request lists the less strict query already tried, and the
# second relaxed query's rows are the turn's result. A relaxed query the model repeats is not
# run again, and ends the tries.
@@ rules
[
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.9\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE name = 'Chez Nobody'\"}"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.7"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%'"},
 {"match": "Task: loosen", "times": 1,
  "content": "SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%'"},
 {"match": "Task: answer the user", "content": "I relaxed the search twice: Sushi Zen Menlo."},
 {"match": "Task: tell the user", "content": "Nothing matched."}
]
@@ args --chat --set chat.relax=2 $DB
@@ stdin
the very best place in Menlo Park
is there a place called Chez Nobody?
@@ stdout
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.9 LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
relaxed:
  nothing matched, so I relaxed the search:
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.7 LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
relaxed:
  nothing matched, so I relaxed the search:
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.4 LIMIT 5
result:
+-----+-----------------+
| id  | name            |
+-----+-----------------+
| 103 | Sushi Zen Menlo |
+-----+-----------------+
(1 row)
reply:
  I relaxed the search twice: Sushi Zen Menlo.
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
  Nothing matched.
@@ stderr
@@ status 0
@@ requests
parse relax relax respond parse relax relax empty
@@ request relax 1
- tried already
@@ request relax 2
+ Less strict queries tried already, which found nothing either:
+ SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND rating >= 4.7 LIMIT 5
@@ request respond 1
+ Sushi Zen Menlo
@@ request empty 1
+ A less strict query found nothing either: SELECT id, name FROM restaurants WHERE name LIKE '%Nobody%' LIMIT 5
