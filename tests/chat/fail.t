# When the corrected query fails too, the turn says so plainly, with the error, and no
# answer is asked for (no respond request). The REPL stays in chat mode, and the next turn
# sees the failure in the dialogue. A repair reply that answers without a query is not
# taken after a query that failed: the turn fails, and no answer is made up.
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT title FROM books\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT title FROM novels\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants\"}"},
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": false, \"reply\": \"There are about a hundred.\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT nme FROM restaurants\"}"},
 {"match": "Task: answer the user", "content": "There are 112 restaurants."}
]
@@ stdin
which novels do you have?
how many restaurants then?
and their names?
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
parsed:
  SELECT nme FROM restaurants LIMIT 5
retry:
  the query failed: line 1, column 8: no such column: nme
    SELECT nme FROM restaurants LIMIT 5
           ^~~
  hint: did you mean name?
  asking the model to correct it
@@ stderr
error: stdin:1: no query that runs came out of this turn, so there is no answer; the corrected query failed too: line 1, column 19: no such table: books
  SELECT title FROM books LIMIT 5
                    ^~~~~
error: stdin:3: no query that runs came out of this turn, so there is no answer; the model's second reply could not be used either: the reply answers without a query; after a query that failed, only a corrected query is taken; the model wrote: "{"database": false, "reply": "There are about a hundred."}"
@@ status 1
@@ requests
parse repair
parse respond
parse repair
@@ request repair 1
+ no such table: novels
@@ request parse 2
+ User: which novels do you have?
+ Failed: line 1, column 19: no such table: books
