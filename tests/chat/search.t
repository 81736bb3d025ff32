# A conversation over the demo restaurants: a greeting (no query), a search cut at the
# default LIMIT (chat.limit 2), "is there another one?" (the model sees the previous query
# and its rows and excludes them), "what are their prices?" (the rows just shown), thanks
# (no query), then :history and :save. Each turn makes one parse request (which answers
# the greeting and the thanks itself) and, when it searched, one respond request. The
# prompts carry the schema and the dialogue; the rows reach the respond step. The query
# comes as JSON, or (from a model that ignores the format) fenced or labelled.
@@ rules
[
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Hello! I can look up restaurants for you.\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto'\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "```sql\nSELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' AND id NOT IN (6, 7);\n```"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "SUQL: SELECT id, name, price FROM restaurants WHERE id IN (8, 21)"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": false, \"reply\": \"You're welcome, enjoy your meal!\"}"},
 {"match": "Task: answer the user", "times": 1,
  "content": "I searched for Italian restaurants in Palo Alto. The first two are Trattoria Lucca (4.5) and Pasta Fresca (3.9)."},
 {"match": "Task: answer the user", "times": 1,
  "content": "I searched for other Italian restaurants in Palo Alto. There are two more: Osteria del Sole (4.0) and Caffe Lucia (4.3)."},
 {"match": "Task: answer the user", "times": 1,
  "content": "I looked up the prices of Osteria del Sole and Caffe Lucia: Osteria del Sole is moderate and Caffe Lucia is cheap."}
]
@@ args --chat --set chat.limit=2 $DB
@@ stdin
hello!
any Italian places in Palo Alto?
is there another one?
what are their prices?
thanks
:history
:save out.jsonl
@@ stdout
reply:
  Hello! I can look up restaurants for you.
parsed:
  SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' LIMIT 2
result:
+----+-----------------+--------+
| id | name            | rating |
+----+-----------------+--------+
|  6 | Trattoria Lucca |    4.5 |
|  7 | Pasta Fresca    |    3.9 |
+----+-----------------+--------+
(2 rows)
reply:
  I searched for Italian restaurants in Palo Alto. The first two are Trattoria Lucca (4.5) and Pasta Fresca (3.9).
parsed:
  SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' AND id NOT IN (6, 7) LIMIT 2
result:
+----+------------------+--------+
| id | name             | rating |
+----+------------------+--------+
|  8 | Osteria del Sole |      4 |
| 21 | Caffe Lucia      |    4.3 |
+----+------------------+--------+
(2 rows)
reply:
  I searched for other Italian restaurants in Palo Alto. There are two more: Osteria del Sole (4.0) and Caffe Lucia (4.3).
parsed:
  SELECT id, name, price FROM restaurants WHERE id IN (8, 21) LIMIT 2
result:
+----+------------------+----------+
| id | name             | price    |
+----+------------------+----------+
|  8 | Osteria del Sole | moderate |
| 21 | Caffe Lucia      | cheap    |
+----+------------------+----------+
(2 rows)
reply:
  I looked up the prices of Osteria del Sole and Caffe Lucia: Osteria del Sole is moderate and Caffe Lucia is cheap.
reply:
  You're welcome, enjoy your meal!
1.  you:   hello!
    reply: Hello! I can look up restaurants for you.
2.  you:   any Italian places in Palo Alto?
    suql:  SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' LIMIT 2
    rows:  2
    reply: I searched for Italian restaurants in Palo Alto. The first two are Trattoria Lucca (4.5) and Pasta Fresca (3.9).
3.  you:   is there another one?
    suql:  SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' AND id NOT IN (6, 7) LIMIT 2
    rows:  2
    reply: I searched for other Italian restaurants in Palo Alto. There are two more: Osteria del Sole (4.0) and Caffe Lucia (4.3).
4.  you:   what are their prices?
    suql:  SELECT id, name, price FROM restaurants WHERE id IN (8, 21) LIMIT 2
    rows:  2
    reply: I looked up the prices of Osteria del Sole and Caffe Lucia: Osteria del Sole is moderate and Caffe Lucia is cheap.
5.  you:   thanks
    reply: You're welcome, enjoy your meal!
@@ stderr
@@ status 0
@@ requests
parse
parse respond
parse respond
parse respond
parse
@@ request parse 1
+ Task: write one SUQL query for the newest message, or answer it directly.
+ {"database": false, "reply": "..."}
+ reviews FREE_TEXT[],
+ (none: this is the first message)
+ hello!
@@ request parse 2
+ reviews FREE_TEXT[],
+ popular_dishes FREE_TEXT[],
+ price ENUM('cheap','moderate','expensive','luxury'),
+ cuisines ENUM[],
+ location: one of 'Palo Alto', 'San Francisco'
+ cuisines: values such as
+ answer(guest_reviews, 'is this hotel quiet at night?') = 'Yes'
+ summary(reviews)
+ 'pool' = ANY (amenities)
+ price_band = 'cheap'
+ suql adds LIMIT 2 to a query without one
+ User: hello!
+ Agent: Hello! I can look up restaurants for you.
+ any Italian places in Palo Alto?
@@ request respond 1
+ 'italian' = ANY (cuisines) AND location = 'Palo Alto' LIMIT 2
+ It returned 2 rows:
+ {"id":6,"name":"Trattoria Lucca","rating":4.5}
+ {"id":7,"name":"Pasta Fresca","rating":3.9}
+ The query stopped at 2 rows (the default limit); there may be more matches.
@@ request parse 3
+ SUQL: SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' LIMIT 2
+ Result: 2 rows: Trattoria Lucca (id=6); Pasta Fresca (id=7) (cut at the default LIMIT; there may be more)
+ Agent: I searched for Italian restaurants in Palo Alto. The first two
+ is there another one?
@@ request parse 4
+ AND id NOT IN (6, 7) LIMIT 2
+ Result: 2 rows: Osteria del Sole (id=8); Caffe Lucia (id=21)
+ what are their prices?
@@ request respond 3
+ {"id":8,"name":"Osteria del Sole","price":"moderate"}
+ {"id":21,"name":"Caffe Lucia","price":"cheap"}
- Nothing matched the first query
@@ request parse 5
+ User: what are their prices?
+ SUQL: SELECT id, name, price FROM restaurants WHERE id IN (8, 21) LIMIT 2
@@ check
[ "$(wc -l <out.jsonl)" -eq 5 ]
[ "$(jsonl out.jsonl "SELECT count(*) FROM turns WHERE json_valid(j)")" = 5 ]
[ "$(jsonl out.jsonl "SELECT group_concat(json_extract(j, '$.turn') || ':' || json_extract(j, '$.database'), ' ') FROM turns")" = "1:0 2:1 3:1 4:1 5:0" ]
[ "$(jsonl out.jsonl "SELECT json_extract(j, '$.user') FROM turns WHERE json_extract(j, '$.turn') = 3")" = "is there another one?" ]
[ "$(jsonl out.jsonl "SELECT json_extract(j, '$.row_count') || ' ' || json_extract(j, '$.rows[1].name') FROM turns WHERE json_extract(j, '$.turn') = 3")" = "2 Caffe Lucia" ]
[ "$(jsonl out.jsonl "SELECT json_extract(j, '$.suql') FROM turns WHERE json_extract(j, '$.turn') = 4")" = "SELECT id, name, price FROM restaurants WHERE id IN (8, 21) LIMIT 2" ]
[ "$(jsonl out.jsonl "SELECT json_extract(j, '$.reply') FROM turns WHERE json_extract(j, '$.turn') = 5")" = "You're welcome, enjoy your meal!" ]
