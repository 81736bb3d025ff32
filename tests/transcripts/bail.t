# --bail stops at the first failing statement: nothing after it runs; exit status 1.
@@ args --bail
@@ stdin
SELECT 'before';
SELECT * FROM missing;
SELECT 'after';
@@ stdout
+----------+
| 'before' |
+----------+
| before   |
+----------+
(1 row)
@@ stderr
error: stdin:2:15: no such table: missing
  SELECT * FROM missing;
                ^~~~~~~
@@ status 1
