# A chat answer quotes the evidence of its rows: the answer's prompt carries the passages
# the engine showed the model for each row (from the statement's record), and of the two
# quotations the model writes, the one copied from a passage is kept and the invented one
# is left out, with a note. The reply streams word by word, so the check holds quotations
# back across pieces.
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE id = 66 AND answer(reviews, 'is it romantic?') = 'Yes'\"}"},
 {"match": "Reply with yes or no alone", "content": "yes"},
 {"match": "Task: answer the user",
  "content": "I searched for romantic restaurants. Himalayan Kitchen fits: a reviewer calls it \"a sweet romantic little spot\" and mentions \"candlelit tables by the river\"."}
]
@@ args --chat --no-cache $DB
@@ stdin
somewhere romantic?
@@ stdout
parsed:
  SELECT id, name FROM restaurants WHERE id = 66 AND answer(reviews, 'is it romantic?') = 'Yes' LIMIT 5
result:
+----+-------------------+
| id | name              |
+----+-------------------+
| 66 | Himalayan Kitchen |
+----+-------------------+
(1 row)
reply:
  I searched for romantic restaurants. Himalayan Kitchen fits: a reviewer calls it "a sweet romantic little spot" and mentions .
note:
  1 quotation left out of the reply: not found in what the model was shown
@@ stderr
@@ status 0
@@ requests
parse respond
@@ request respond 1
+ Evidence the rows were chosen on:
+ Row 1 (Himalayan Kitchen):
+ - answer(reviews, 'is it romantic?') = 'Yes': Quiet, warm lighting, prayer flags - a sweet romantic little spot.
- Row 2
@@ unchanged
