# suql --eval, linearize way (the papers' baseline): each row of the table is written out as
# a passage ("column: value" lines), the k best passages by BM25 go to the model, which
# answers from them (then the short-answer step) or judges each (sets of rows), through the
# same client and prompts as the engine's answer() and verify calls.
@@ file lin.jsonl
{"benchmark": "lin", "key": "id", "k": 2, "table": "restaurants"}
{"id": "q", "question": "Which city is Hoshi Sushi in?", "answers": ["Palo Alto"]}
{"id": "r", "question": "romantic omakase sushi", "rows": [1, 3, 4]}
@@ rules
[
 {"match": "You answer questions from a text", "content": "Hoshi Sushi is on Hamilton Ave in Palo Alto."},
 {"match": "Task: extract the short answer", "content": "Palo Alto"},
 {"match": "a JSON list of 2 texts", "content": "{\"answers\": [\"yes\", \"no\"]}"}
]
@@ args --eval lin.jsonl --way linearize --concurrency 1 --report report.jsonl --csv -s times=off $DB
@@ stdout
way,split,cases,errors,P,R,F1,P@2,calls,cached,tok in,tok out,trips
linearize,all,1,0,0.0,0.0,0.0,0.0,1,0,695,7,1
way,split,cases,errors,EM,F1,calls,cached,tok in,tok out,trips
linearize,all,1,0,100.0,100.0,2,0,830,15,2
@@ stderr
@@ status 0
@@ requests
short
@@ request other 1
+ name: Hoshi Sushi
+ location: Palo Alto
+ Which city is Hoshi Sushi in?
@@ request short 1
+ Hoshi Sushi is on Hamilton Ave in Palo Alto.
@@ check
[ "$(jsonl report.jsonl "SELECT json_extract(j, '$.pred') FROM turns WHERE json_extract(j, '$.id') = 'q'")" = "Palo Alto" ]
[ "$(jsonl report.jsonl "SELECT json_extract(j, '$.passages') || ' ' || json_extract(j, '$.pred') FROM turns WHERE json_extract(j, '$.id') = 'r'")" = '["103","1"] ["103"]' ]
