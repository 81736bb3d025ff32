# --prompts DIR overrides the chat prompts file by file: here the respond step's wording
# (with its placeholders filled) while the other steps keep the built-in files.
@@ file prompts/chat_respond.txt
[system]
Answer in one short line. (a custom prompt)
[user]
Q: {{utterance}}
Query: {{query}}
Count: {{count}}
Rows: {{rows}}
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE location = 'Redwood City'\"}"},
 {"match": "a custom prompt", "content": "Five restaurants in Redwood City."}
]
@@ args --chat --prompts prompts $DB
@@ stdin
what is in Redwood City?
@@ stdout
parsed:
  SELECT id, name FROM restaurants WHERE location = 'Redwood City' LIMIT 5
result:
+-----+--------------------+
| id  | name               |
+-----+--------------------+
| 108 | Broadway Brewhouse |
| 109 | Orsolina's Kitchen |
| 110 | Redwood Dim Sum    |
| 111 | Sol de Mexico      |
| 112 | Tea Leaf Lounge    |
+-----+--------------------+
(5 rows)
reply:
  Five restaurants in Redwood City.
@@ stderr
@@ status 0
@@ requests
parse
@@ request other 1
+ system: Answer in one short line. (a custom prompt)
+ Q: what is in Redwood City?
+ Query: SELECT id, name FROM restaurants WHERE location = 'Redwood City' LIMIT 5
+ Count: 5 rows
+ {"id":
- Task: answer the user
