# Issue 12, item 1: a question computed per row is checked when it is read: a row whose
# question is NULL stops the statement with the error at the question (status 1, never a
# crash); a question that is text for every row runs.
@@ db demo
@@ stdin
SELECT name FROM restaurants WHERE answer(reviews, CASE WHEN rating > 9 THEN 'q?' END) = 'Yes' LIMIT 1;
SELECT count(*) AS n FROM restaurants WHERE answer(reviews, 'is ' || name || ' quiet?') = 'Yes';
@@ status 1
@@ stderr has stdin:1:52: the question of answer() is NULL
@@ stdout has | n |
@@ unchanged
