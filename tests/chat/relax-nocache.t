# A relax reply that holds no query is never remembered either: after :reset the same turn
# is answered from the cache where the replies were readable (the parse and the no-results
# reply), and the relax request goes to the model again.
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE name = 'Chez Nobody'\"}"},
 {"match": "Task: loosen", "content": "I would not know how to loosen that."},
 {"match": "Task: tell the user", "content": "There is no restaurant called Chez Nobody."}
]
@@ stdin
is there a place called Chez Nobody?
:reset
is there a place called Chez Nobody?
@@ stdout
parsed:
  SELECT id, name FROM restaurants WHERE name = 'Chez Nobody' LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
note:
  the less strict query the model wrote cannot run (line 1, column 1: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'I'
    I would not know how to loosen that.
    ^)
reply:
  There is no restaurant called Chez Nobody.
parsed:
  SELECT id, name FROM restaurants WHERE name = 'Chez Nobody' LIMIT 5
result:
+----+------+
| id | name |
+----+------+
+----+------+
(0 rows)
note:
  the less strict query the model wrote cannot run (line 1, column 1: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'I'
    I would not know how to loosen that.
    ^)
reply:
  There is no restaurant called Chez Nobody.
@@ stderr
@@ status 0
@@ requests
parse relax empty
relax
