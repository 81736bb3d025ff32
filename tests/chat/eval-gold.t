# suql --eval, chat way, against a scripted model that answers every question with its gold
# answer: exact match 100 and F1 100, and the agent's queries match the gold SUQL by
# execution. Each question goes parse, respond, then the short-answer step; the
# short answer is read without its label and full stop ("Answer: Palo Alto." is Palo Alto).
@@ file qa.jsonl
{"benchmark": "qa", "table": "restaurants"}
{"id": "city", "question": "Which city is Hoshi Sushi in?", "answers": ["Palo Alto"], "suql": "SELECT location FROM restaurants WHERE name = 'Hoshi Sushi'"}
{"id": "count", "question": "How many restaurants are there in Cupertino?", "answers": ["14"], "suql": "SELECT count(*) FROM restaurants WHERE location = 'Cupertino'"}
{"id": "price", "question": "What price range is Kaiten Go in?", "answers": ["moderate", "mid-priced"], "suql": "SELECT price FROM restaurants WHERE name = 'Kaiten Go'"}
@@ rules
[
 {"regex": "Task: write one SUQL.*Hoshi Sushi",
  "content": "{\"database\": true, \"suql\": \"SELECT name, location FROM restaurants WHERE name = 'Hoshi Sushi'\"}"},
 {"regex": "Task: write one SUQL.*How many restaurants are there",
  "content": "{\"database\": true, \"suql\": \"SELECT count(*) AS n FROM restaurants WHERE location = 'Cupertino'\"}"},
 {"regex": "Task: write one SUQL.*Kaiten Go",
  "content": "{\"database\": true, \"suql\": \"SELECT name, price FROM restaurants WHERE name = 'Kaiten Go'\"}"},
 {"match": "Task: answer the user", "content": "Here is what I found."},
 {"regex": "Task: extract the short answer.*Hoshi Sushi", "content": "Answer: Palo Alto."},
 {"regex": "Task: extract the short answer.*How many restaurants are there", "content": "14"},
 {"regex": "Task: extract the short answer.*Kaiten Go", "content": "\"Moderate\""}
]
@@ args --eval qa.jsonl --way chat --concurrency 1 --report report.jsonl --csv -s times=off $DB
@@ stdout
way,split,cases,errors,EM,F1,exec,calls,cached,tok in,tok out,trips
chat,all,3,0,100.0,100.0,100.0,9,0,8377,99,9
@@ stderr
@@ status 0
@@ requests
parse respond short parse respond short parse respond short
@@ request short 1
+ Which city is Hoshi Sushi in?
+ [{"name":"Hoshi Sushi","location":"Palo Alto"}]
+ Here is what I found.
@@ request parse 1
- restaurant_labels
@@ check
[ "$(jsonl report.jsonl "SELECT group_concat(json_extract(j, '$.id') || '=' || json_extract(j, '$.pred') || ':' || json_extract(j, '$.exec_match'), ' ') FROM turns WHERE json_extract(j, '$.way') = 'chat'")" = "city=Palo Alto:1 count=14:1 price=Moderate:1" ]
[ "$(jsonl report.jsonl "SELECT json_extract(j, '$.calls') FROM turns WHERE json_extract(j, '$.id') = 'city'")" = "3" ]
