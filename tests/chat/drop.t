# A model that writes to the database is refused, and the database is unchanged: DROP TABLE
# and UPDATE are not SELECT queries, so the agent refuses them before they run and asks for
# a correction; when the correction writes too, the turn fails and says why. A correction
# that reads runs. Everything the agent runs is also read-only in the engine.
@@ rules
[
 {"match": "could not be used", "times": 1, "content": "UPDATE restaurants SET price = 'cheap'"},
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants\"}"},
 {"match": "Task: write one SUQL", "times": 1, "content": "DROP TABLE restaurants"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"WITH r AS (SELECT id FROM restaurants) DELETE FROM restaurants WHERE id IN (SELECT id FROM r)\"}"},
 {"match": "Task: answer the user", "content": "I counted the restaurants: there are 112."}
]
@@ stdin
remove every restaurant from the list
how many restaurants are there?
@@ stdout
retry:
  the query failed: line 1, column 1: only a SELECT query may run here, and this is a DROP TABLE statement
    DROP TABLE restaurants
    ^
  hint: write one SELECT query (WITH ... SELECT is fine); nothing may change the database
  asking the model to correct it
retry:
  the query failed: line 1, column 1: only a SELECT query may run here, and this is a DELETE statement
    WITH r AS (SELECT id FROM restaurants) DELETE FROM restaurants WHERE id IN (SELECT id FROM r)
    ^
  hint: write one SELECT query (WITH ... SELECT is fine); nothing may change the database
  asking the model to correct it
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
  I counted the restaurants: there are 112.
@@ stderr
error: stdin:1: no query that runs came out of this turn, so there is no answer; the corrected query failed too: line 1, column 1: only a SELECT query may run here, and this is an UPDATE statement
  UPDATE restaurants SET price = 'cheap'
  ^
hint: write one SELECT query (WITH ... SELECT is fine); nothing may change the database
@@ status 1
@@ requests
parse repair
parse repair respond
@@ request repair 1
+ assistant: DROP TABLE restaurants
+ Your last reply could not be used. What you wrote:
+ only a SELECT query may run here, and this is a DROP TABLE statement
@@ request repair 2
+ only a SELECT query may run here, and this is a DELETE statement
@@ request parse 2
+ User: remove every restaurant from the list
+ Failed: line 1, column 1: only a SELECT query may run here, and this is an UPDATE statement
@@ unchanged
