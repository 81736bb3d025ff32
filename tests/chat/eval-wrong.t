# suql --eval, chat way, against a scripted model whose short answers are all wrong: exact
# match 0 and F1 0. One query does not match its gold SUQL by execution; one turn's query
# cannot run even after the repair, and the case counts as an error with no answer.
@@ file qa.jsonl
{"benchmark": "qa", "table": "restaurants"}
{"id": "city", "question": "Which city is Hoshi Sushi in?", "answers": ["Palo Alto"], "suql": "SELECT location FROM restaurants WHERE name = 'Hoshi Sushi'"}
{"id": "count", "question": "How many restaurants are there in Cupertino?", "answers": ["14"], "suql": "SELECT count(*) FROM restaurants WHERE location = 'Cupertino'"}
{"id": "price", "question": "What price range is Kaiten Go in?", "answers": ["moderate"], "suql": "SELECT price FROM restaurants WHERE name = 'Kaiten Go'"}
@@ rules
[
 {"regex": "Task: write one SUQL.*Hoshi Sushi",
  "content": "{\"database\": true, \"suql\": \"SELECT name, location FROM restaurants WHERE name = 'The Daily Grind'\"}"},
 {"regex": "Task: write one SUQL.*How many restaurants are there",
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants WHERE location = 'Cupertino'\"}"},
 {"regex": "Task: write one SUQL.*Kaiten Go",
  "content": "{\"database\": true, \"suql\": \"SELECT nme FROM restaurants\"}"},
 {"match": "Task: answer the user", "content": "Here is what I found."},
 {"regex": "Task: extract the short answer.*Hoshi Sushi", "content": "Tokyo"},
 {"regex": "Task: extract the short answer.*How many restaurants are there", "content": "forty"},
 {"match": "Task: extract the short answer", "content": "expensive"}
]
@@ args --eval qa.jsonl --way chat --concurrency 1 --report report.jsonl --csv -s times=off $DB
@@ stdout
way,split,cases,errors,EM,F1,exec,calls,cached,tok in,tok out,trips
chat,all,3,1,0.0,0.0,33.3,8,0,9892,94,8
@@ stderr
note: case price (chat) failed: no query that runs came out of this turn, so there is no answer; the corrected query failed too: line 1, column 8: no such column: nme
@@ status 0
@@ requests
parse respond short parse respond short parse repair
@@ check
[ "$(jsonl report.jsonl "SELECT group_concat(json_extract(j, '$.id') || '=' || coalesce(json_extract(j, '$.pred'), 'null') || ':' || json_extract(j, '$.exec_match'), ' ') FROM turns WHERE json_extract(j, '$.way') = 'chat'")" = "city=Tokyo:0 count=forty:1 price=null:0" ]
