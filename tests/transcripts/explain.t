# -v shows what the engine reports about each statement (parsed SUQL, plan, counters) as
# labelled sections before the result. Re-record when the engine's reports change.
@@ args -v
@@ stdin
SELECT 1 AS one;
@@ stdout
parsed:
  SELECT 1 AS one
result:
+-----+
| one |
+-----+
|   1 |
+-----+
(1 row)
@@ stderr
@@ status 0
