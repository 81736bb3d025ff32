# Syntax errors: the script's name, the line and column of the mistake (counted in the
# whole script, here on lines 3 and 6), the source line and a caret; the script goes on and
# the exit status is 1.
@@ stdin
SELECT 1;
-- a comment
SELEC 2;
SELECT 3; SELECT
  4,
  FROM nowhere;
SELECT 'still running';
@@ stdout
+---+
| 1 |
+---+
| 1 |
+---+
(1 row)
+---+
| 3 |
+---+
| 3 |
+---+
(1 row)
+-----------------+
| 'still running' |
+-----------------+
| still running   |
+-----------------+
(1 row)
@@ stderr
error: stdin:3:1: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'SELEC'
  SELEC 2;
  ^~~~~
error: stdin:6:3: expected a result column before FROM
    FROM nowhere;
    ^~~~
hint: name the columns to select, or write *
@@ status 1
