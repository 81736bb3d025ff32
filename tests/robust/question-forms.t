# Issue 12, item 1: every way of writing a question that is no text: a constant NULL
# (CAST(NULL AS TEXT)), a blob, NULL under IN, NULL in the result columns (exit 3 before,
# "the model failed"), an empty text, a number, and an expression of literals. Each is
# refused at its caret; the script goes on, and a good question after them runs.
@@ db demo
@@ stdin
SELECT name FROM restaurants WHERE answer(reviews, CAST(NULL AS TEXT)) = 'Yes' LIMIT 1;
SELECT name FROM restaurants WHERE answer(reviews, x'00') = 'Yes' LIMIT 1;
SELECT name FROM restaurants WHERE answer(reviews, NULL) IN ('Yes', 'No') LIMIT 1;
SELECT answer(reviews, NULL) FROM restaurants LIMIT 1;
SELECT name FROM restaurants WHERE answer(reviews, '   ') = 'Yes';
SELECT answer(reviews, 3) FROM restaurants LIMIT 1;
SELECT name FROM restaurants WHERE answer(reviews, NULL || 'x') = 'Yes';
SELECT count(*) AS ok FROM restaurants WHERE answer(reviews, 'is ' || 'it quiet?') = 'Yes';
@@ status 1
@@ stderr count 4 the question of answer() is NULL
@@ stderr has stdin:1:52: the question of answer() is NULL
@@ stderr has stdin:2:52: the question of answer() is a blob, not text
@@ stderr has stdin:3:52: the question of answer() is NULL
@@ stderr has stdin:4:24: the question of answer() is NULL
@@ stderr has stdin:5:52: the question of answer() is empty
@@ stderr has stdin:6:24: the question of answer() is a number, not text
@@ stderr has stdin:7:52: the question of answer() is NULL
@@ stdout has | ok |
@@ unchanged
