# Issue 12, item 1, from a chat model's reply: a query whose question is NULL is refused
# like a typed one (no crash), the model is asked to correct it, and its correction runs.
@@ db demo
@@ rules
[
 {"match": "could not be used",
  "content": "{\"database\": true, \"suql\": \"SELECT name FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' LIMIT 1\"}"},
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT name FROM restaurants WHERE answer(reviews, NULL) = 'Yes' LIMIT 1\"}"},
 {"match": "Task: answer the user", "content": "Here is a quiet one."},
 {"match": "Task: tell the user", "content": "Nothing found."}
]
@@ args --chat $DB
@@ stdin
which restaurant is quiet?
@@ status 0
@@ stdout has the question of answer() is NULL
@@ stdout has asking the model to correct it
@@ unchanged
