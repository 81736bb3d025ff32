# The chat settings (:set chat.*), :history before and after :reset, and :reset itself: the
# next turn starts with no dialogue. :sql goes back to SUQL statements, :chat into chat mode
# again. The question asked again after :reset makes the very same requests, so the client
# answers them from its cache: the server sees one turn.
@@ rules
[
 {"match": "Task: decide whether", "content": "{\"database\": true}"},
 {"match": "Task: write one SUQL", "content": "SELECT id, name FROM restaurants WHERE location = 'Cupertino'"},
 {"match": "Task: answer the user", "content": "Here are some restaurants in Cupertino."}
]
@@ args --chat $DB
@@ stdin
:history
:set chat.limit 3
:set chat.limit
:set chat.relax off
:set chat.context 4
:set chat.tables restaurants
:set chat.relax
:set chat.tables
:set chat.limit lots
:set chat.colour blue
anything in Cupertino?
:history
:reset
:history
:sql
SELECT count(*) FROM restaurants WHERE location = 'Cupertino';
:chat
anything in Cupertino?
:save turns.jsonl
@@ stdout
no conversation yet
chat.limit = 3
chat.relax = off
chat.tables = restaurants
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Cupertino' LIMIT 3
result:
+----+-----------------+
| id | name            |
+----+-----------------+
| 49 | Shanghai Garden |
| 50 | Little Sichuan  |
| 51 | Sundubu Corner  |
+----+-----------------+
(3 rows)
reply:
  Here are some restaurants in Cupertino.
1.  you:   anything in Cupertino?
    suql:  SELECT id, name FROM restaurants WHERE location = 'Cupertino' LIMIT 3
    rows:  3
    reply: Here are some restaurants in Cupertino.
no conversation yet
+----------+
| count(*) |
+----------+
|       14 |
+----------+
(1 row)
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Cupertino' LIMIT 3
result:
+----+-----------------+
| id | name            |
+----+-----------------+
| 49 | Shanghai Garden |
| 50 | Little Sichuan  |
| 51 | Sundubu Corner  |
+----+-----------------+
(3 rows)
reply:
  Here are some restaurants in Cupertino.
@@ stderr
error: stdin:9: chat.limit takes a number of rows from 0 (no default LIMIT) to 100000, not 'lots'
error: stdin:10: unknown setting 'chat.colour' (chat.limit, chat.relax, chat.context, chat.result_bytes, chat.tables, chat.timeout, chat.max_rows, chat.max_value)
@@ status 1
@@ requests
route parse respond
@@ request parse 1
+ (none: this is the first message)
+ suql adds LIMIT 3 to a query without one
- CREATE TABLE restaurant_labels
@@ check
[ "$(jsonl turns.jsonl "SELECT count(*) || ' ' || json_extract(j, '$.row_count') FROM turns")" = "1 3" ]
