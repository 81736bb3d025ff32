# Issue 26, item 2: texts stored in the database that are not UTF-8 (Latin-1 'Caf\xe9 ...')
# are sent with U+FFFD for the invalid byte, each asked as itself: only the romantic one
# passes (before, jansson refused the text, the message was left out and both candidates
# shared one request and one answer), and a warning names each such text.
@@ db empty
@@ setup
CREATE TABLE r (id INTEGER, review FREE_TEXT); INSERT INTO r VALUES (1, CAST(X'436166e920526f6d613a2061207665727920726f6d616e7469632063616e646c656c69742064696e6e65722e' AS TEXT)), (2, CAST(X'436166e92042727569743a206c6f75642c206e6f69737920616e64206e6f7420726f6d616e74696320617420616c6c2e' AS TEXT));
@@ rules
[{"match": "Roma: a very romantic", "content": "yes"}, {"match": "is it romantic", "content": "no"}]
@@ args --csv --set batch=1 $DB
@@ stdin
SELECT id FROM r WHERE answer(review, 'is it romantic?') = 'Yes';
@@ status 0
@@ stdout has 1
@@ stdout lacks 2
@@ stderr has a text that is not valid UTF-8 ('Caf\0357\0277\0275 Roma: a very romantic
@@ stderr has a text that is not valid UTF-8 ('Caf\0357\0277\0275 Bruit: loud
@@ unchanged
