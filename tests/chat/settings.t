# The chat settings (:set chat.*), :history before and after :reset, and :reset itself: the
# next turn starts with no dialogue. :sql goes back to SUQL statements, :chat into chat mode
# again. The question asked again after :reset makes the very same requests, so the client
# answers them from its cache: the server sees one turn. chat.relax takes a number of tries
# up to 2; chat.examples reads a file of examples into the parse prompt.
@@ file examples.txt
User: Which places have a quiet patio?
SUQL: SELECT id, name FROM restaurants WHERE answer(reviews, 'is the patio quiet?') = 'Yes'
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Cupertino'\"}"},
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
:set chat.relax 2
:set chat.relax
:set chat.relax 3
:set chat.examples nowhere.txt
:set chat.examples examples.txt
:set chat.examples
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
chat.relax = 2
chat.examples = examples.txt
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
error: stdin:10: unknown setting 'chat.colour' (chat.limit, chat.relax, chat.context, chat.result_bytes, chat.tables, chat.examples, chat.timeout, chat.max_rows, chat.max_value)
error: stdin:13: chat.relax takes on, off or a number of tries from 0 to 2, not '3'
error: stdin:14: chat.examples: cannot read nowhere.txt: No such file or directory
@@ status 1
@@ requests
parse respond
@@ request parse 1
+ (none: this is the first message)
+ suql adds LIMIT 3 to a query without one
+ Examples written for this database:
+ SUQL: SELECT id, name FROM restaurants WHERE answer(reviews, 'is the patio quiet?') = 'Yes'
- CREATE TABLE restaurant_labels
@@ check
[ "$(jsonl turns.jsonl "SELECT count(*) || ' ' || json_extract(j, '$.row_count') FROM turns")" = "1 3" ]
