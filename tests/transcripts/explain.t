# -v shows what the engine reports about each statement (parsed SUQL, plan, counters) as
# labelled sections before the result, on stderr when stdout is not a terminal (so that
# stdout holds only the results). Re-record when the engine's reports change.
@@ args -v
@@ stdin
SELECT 1 AS one;
@@ stdout
+-----+
| one |
+-----+
|   1 |
+-----+
(1 row)
@@ stderr
parsed:
  SELECT 1 AS one
@@ status 0
