# Greetings and general questions are answered without the database: one route request
# each, no parse request, no query. The route reply may be JSON or the plain form
# "REPLY: ..."; a reply that says neither counts as needing the database.
@@ rules
[
 {"match": "Task: decide whether", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Hi! Ask me about the restaurants.\"}"},
 {"match": "Task: decide whether", "times": 1,
  "content": "REPLY: A sichuan peppercorn is a spice that makes your mouth tingle."},
 {"match": "Task: decide whether", "times": 1, "content": "Sure, let me look."},
 {"match": "Task: write one SUQL", "content": "SELECT count(*) FROM restaurants WHERE location = 'Cupertino'"},
 {"match": "Task: answer the user", "content": "I counted the restaurants in Cupertino: 14."}
]
@@ stdin
hi there
what is a sichuan peppercorn?
how many are in Cupertino?
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
@@ stderr
@@ status 0
@@ requests
route
route
route parse respond
@@ request route 2
+ User: hi there
+ Agent: Hi! Ask me about the restaurants.
+ what is a sichuan peppercorn?
@@ request route 3
+ Agent: A sichuan peppercorn is a spice that makes your mouth tingle.
