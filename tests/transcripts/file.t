# -f runs a script file; errors name the file and the line; -c and -f run in the order given.
@@ file script.sql
SELECT 'from the file';

SELECT x;
@@ args -c "SELECT 'first'" -f script.sql -c "SELECT 'last'"
@@ stdout
+---------+
| 'first' |
+---------+
| first   |
+---------+
(1 row)
+-----------------+
| 'from the file' |
+-----------------+
| from the file   |
+-----------------+
(1 row)
+--------+
| 'last' |
+--------+
| last   |
+--------+
(1 row)
@@ stderr
error: script.sql:3:8: no such column: x
  SELECT x;
         ^
@@ status 1
