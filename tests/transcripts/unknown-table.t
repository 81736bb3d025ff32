# Unknown tables and columns are errors that name them; other statements still run.
@@ stdin
CREATE TABLE t(a);
SELECT * FROM missing;
SELECT nope FROM t;
INSERT INTO t VALUES (1);
SELECT a FROM t;
@@ stdout
+---+
| a |
+---+
| 1 |
+---+
(1 row)
@@ stderr
error: stdin:2:15: no such table: missing
  SELECT * FROM missing;
                ^~~~~~~
error: stdin:3:8: no such column: nope
  SELECT nope FROM t;
         ^~~~
@@ status 1
