# An error and the place its hint names are both counted in the whole script: the '(' that
# is never closed is on line 4 (not line 1 of the statement), the CASE that needs an END on
# line 6, and on a line holding two statements the second one's columns count from the
# line's start. A question that turns out NULL as the statement runs is placed the same way.
@@ stdin
SELECT 1;
SELECT 2;

SELECT a FROM t WHERE (b = 1 AND (c = 2);
SELECT 3; SELECT
  CASE WHEN 1 THEN 2 ELSE 3;
SELECT 4; SELECT (1 + (2;
CREATE TABLE r (name TEXT, reviews FREE_TEXT);
INSERT INTO r VALUES ('A', 'quiet and cosy');

SELECT name FROM r WHERE answer(reviews, NULL) = 'Yes';
@@ stdout
+---+
| 1 |
+---+
| 1 |
+---+
(1 row)
+---+
| 2 |
+---+
| 2 |
+---+
(1 row)
+---+
| 3 |
+---+
| 3 |
+---+
(1 row)
+---+
| 4 |
+---+
| 4 |
+---+
(1 row)
@@ stderr
error: stdin:4:41: missing ')' to close '('
  SELECT a FROM t WHERE (b = 1 AND (c = 2);
                                          ^
hint: the '(' at line 4, column 23 is never closed
error: stdin:6:28: expected END, found ';'
    CASE WHEN 1 THEN 2 ELSE 3;
                             ^
hint: the CASE at line 6, column 3 needs an END
error: stdin:7:25: missing ')' to close '('
  SELECT (1 + (2;
                ^
hint: the '(' at line 7, column 23 is never closed
error: stdin:11:42: the question of answer() is NULL
  SELECT name FROM r WHERE answer(reviews, NULL) = 'Yes';
                                           ^~~~
hint: a question is a text, such as answer(reviews, 'is it quiet?')
@@ status 1
