# One repair round: a query with a syntax error, and one that names a column that does not
# exist, are shown to the model with the exact error, and the corrected queries run.
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Menlo Park'\"}"},
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' ORDER BY rating DESC\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name, stars FROM restaurants WHERE location = 'Menlo Park' ORDER BY stars DESC\"}"},
 {"match": "Task: answer the user", "times": 1,
  "content": "I searched for restaurants in Menlo Park and found seven."},
 {"match": "Task: answer the user", "times": 1,
  "content": "I looked up the ratings of the restaurants in Menlo Park."}
]
@@ stdin
what is there in Menlo Park?
and their ratings, best first?
@@ stdout
retry:
  the query failed: line 1, column 67: incomplete input: expected an expression
    SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND
                                                                      ^
  asking the model to correct it
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Menlo Park' LIMIT 5
result:
+-----+----------------------+
| id  | name                 |
+-----+----------------------+
| 101 | Trattoria Santa Cruz |
| 102 | Menlo Grill          |
| 103 | Sushi Zen Menlo      |
| 104 | Cafe Fontana         |
| 105 | Mandarin Corner      |
+-----+----------------------+
(5 rows)
reply:
  I searched for restaurants in Menlo Park and found seven.
parsed:
  SELECT id, name, stars FROM restaurants WHERE location = 'Menlo Park' ORDER BY stars DESC LIMIT 5
retry:
  the query failed: line 1, column 18: no such column: stars
    SELECT id, name, stars FROM restaurants WHERE location = 'Menlo Park' ORDER BY stars DESC LIMIT 5
                     ^~~~~
  asking the model to correct it
parsed:
  SELECT id, name, rating FROM restaurants WHERE location = 'Menlo Park' ORDER BY rating DESC LIMIT 5
result:
+-----+-----------------------+--------+
| id  | name                  | rating |
+-----+-----------------------+--------+
| 103 | Sushi Zen Menlo       |    4.5 |
| 104 | Cafe Fontana          |    4.3 |
| 101 | Trattoria Santa Cruz  |    4.2 |
| 102 | Menlo Grill           |    4.1 |
| 107 | Bangkok Cuisine Menlo |    4.1 |
+-----+-----------------------+--------+
(5 rows)
reply:
  I looked up the ratings of the restaurants in Menlo Park.
@@ stderr
@@ status 0
@@ requests
parse repair respond
parse repair respond
@@ request repair 1
+ SELECT id, name FROM restaurants WHERE location = 'Menlo Park' AND
+ What went wrong:
+ line 1, column
@@ request repair 2
+ assistant: {"database": true, "suql": "SELECT id, name, stars FROM restaurants WHERE location = 'Menlo Park' ORDER BY stars DESC"}
+ no such column: stars
@@ request respond 1
+ WHERE location = 'Menlo Park' LIMIT 5
+ "name":
@@ request respond 2
+ ORDER BY rating DESC LIMIT 5
@@ check
true
