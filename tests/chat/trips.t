# The round trips of a turn that searches with one verification wave: one parse request
# (it decides that the turn needs the database and writes the query), the query's one
# verify request (the four Italian places of Palo Alto in one batch, answered by the
# server's automatic mode: yes when a review says "romantic"), and one respond request.
# Counted from the server's log: 3 requests, each sent after the one before it came back
# (every reply waits 200 ms, so the gaps between arrivals tell them apart), so at most 3
# sequential round trips. The reply streams, word by word.
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Palo Alto' AND 'italian' = ANY (cuisines) AND answer(reviews, 'is it romantic?') = 'Yes'\"}"},
 {"match": "Task: answer the user",
  "content": "I searched for romantic Italian places in Palo Alto."}
]
@@ server --delay 200 --yes-word romantic
@@ args --chat --set batch=8 $DB
@@ stdin
any romantic Italian places in Palo Alto?
@@ stdout
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Palo Alto' AND 'italian' = ANY (cuisines) AND answer(reviews, 'is it romantic?') = 'Yes' LIMIT 5
result:
+----+------------------+
| id | name             |
+----+------------------+
|  6 | Trattoria Lucca  |
|  7 | Pasta Fresca     |
|  8 | Osteria del Sole |
+----+------------------+
(3 rows)
reply:
  I searched for romantic Italian places in Palo Alto.
@@ stderr
@@ status 0
@@ requests
parse respond
@@ check
[ "$(wc -l <../log)" -eq 3 ]
[ "$(grep -c '\\"stream\\":true' ../log)" -eq 1 ]
[ "$(trips ../log 100)" -le 3 ]
