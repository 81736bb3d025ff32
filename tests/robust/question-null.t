# Issue 12, item 1: a question that is NULL crashed (exit 139, a read before the signature
# table). It is a user error with a caret at the question, status 1, nothing changed.
@@ db demo
@@ args -c "SELECT name FROM restaurants WHERE answer(reviews, NULL) = 'Yes' LIMIT 1;" $DB
@@ status 1
@@ stderr has error: -c:1:52: the question of answer() is NULL
@@ stderr has                                                      ^~~~
@@ stderr has hint: a question is a text
@@ unchanged
