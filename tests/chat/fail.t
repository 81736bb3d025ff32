# When the corrected query fails too, the turn says so plainly, with the error, and no
# answer is asked for (no respond request). The REPL stays in chat mode, and the next turn
# sees the failure in the dialogue.
@@ rules
[
 {"match": "Task: decide whether", "content": "{\"database\": true}"},
 {"match": "That query could not run", "times": 1, "content": "SELECT title FROM books"},
 {"match": "Task: write one SUQL", "times": 1, "content": "SELECT title FROM novels"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "SELECT count(*) FROM restaurants"},
 {"match": "Task: answer the user", "content": "There are 112 restaurants."}
]
@@ stdin
which novels do you have?
how many restaurants then?
@@ stdout
parsed:
  SELECT title FROM novels LIMIT 5
retry:
  the query failed: line 1, column 19: no such table: novels
    SELECT title FROM novels LIMIT 5
                      ^~~~~~
  asking the model to correct it
parsed:
  SELECT title FROM books LIMIT 5
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
error: stdin:1: no query that runs came out of this turn, so there is no answer; the corrected query failed too: line 1, column 19: no such table: books
  SELECT title FROM books LIMIT 5
                    ^~~~~
@@ status 1
@@ requests
route parse repair
route parse respond
@@ request repair 1
+ no such table: novels
@@ request parse 2
+ User: which novels do you have?
+ Failed: line 1, column 19: no such table: books
