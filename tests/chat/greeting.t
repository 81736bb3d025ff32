# Greetings and general questions are answered without a query, by the parse request
# itself: one request a turn, nothing run. The reply may be JSON or the plain form
# "REPLY: ...". A reply that says neither ({"database": false} with no answer) is no
# verdict: the turn asks again (repair), and takes the answer it gets then. A question
# about the data gets its query from the same single request.
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Good night!\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Hi! Ask me about the restaurants.\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "REPLY: A sichuan peppercorn is a spice that makes your mouth tingle."},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants WHERE location = 'Cupertino'\"}"},
 {"match": "Task: write one SUQL", "times": 1, "content": "{\"database\": false}"},
 {"match": "Task: answer the user", "content": "I counted the restaurants in Cupertino: 14."}
]
@@ stdin
hi there
what is a sichuan peppercorn?
how many are in Cupertino?
good night
@@ stdout
reply:
  Hi! Ask me about the restaurants.
reply:
  A sichuan peppercorn is a spice that makes your mouth tingle.
parsed:
  SELECT count(*) FROM restaurants WHERE location = 'Cupertino' LIMIT 5
result:
+----------+
| count(*) |
+----------+
|       14 |
+----------+
(1 row)
reply:
  I counted the restaurants in Cupertino: 14.
retry:
  the reply could not be read: the reply holds neither a query nor an answer (write {"database": true, "suql": "SELECT ..."}, or {"database": false, "reply": "..."} when the message needs no database); the model wrote: "{"database": false}"
  asking the model again
reply:
  Good night!
@@ stderr
@@ status 0
@@ requests
parse
parse
parse respond
parse repair
@@ request parse 2
+ User: hi there
+ Agent: Hi! Ask me about the restaurants.
+ what is a sichuan peppercorn?
@@ request parse 3
+ Agent: A sichuan peppercorn is a spice that makes your mouth tingle.
@@ request repair 1
+ {"database": false}
+ the reply holds neither a query nor an answer
