# How lines become statements: several on one line, one over several lines, comments
# inside, a ';' inside a string, a final statement without ';', CRLF line ends.
@@ stdin
SELECT 1 AS a; SELECT 2 AS b;
SELECT
  3 AS c -- comment; not the end
  ;
SELECT 'semi;colon' AS d;
SELECT 'crlf' AS e;
SELECT
  'crlf too' AS e2;
SELECT 'no semicolon at the end' AS f
@@ stdout
+---+
| a |
+---+
| 1 |
+---+
(1 row)
+---+
| b |
+---+
| 2 |
+---+
(1 row)
+---+
| c |
+---+
| 3 |
+---+
(1 row)
+------------+
| d          |
+------------+
| semi;colon |
+------------+
(1 row)
+------+
| e    |
+------+
| crlf |
+------+
(1 row)
+----------+
| e2       |
+----------+
| crlf too |
+----------+
(1 row)
+-------------------------+
| f                       |
+-------------------------+
| no semicolon at the end |
+-------------------------+
(1 row)
@@ stderr
@@ status 0
