# :set nullvalue changes how table mode shows NULL; --set does the same from the command
# line; CSV keeps NULL as an empty field.
@@ args --set nullvalue=-
@@ stdin
SELECT NULL AS a, 'x' AS b;
:set nullvalue '(none)'
SELECT NULL AS a;
:mode csv
SELECT NULL AS a, '' AS b;
:set nullvalue
@@ stdout
+---+---+
| a | b |
+---+---+
| - | x |
+---+---+
(1 row)
+--------+
| a      |
+--------+
| (none) |
+--------+
(1 row)
a,b
,""
nullvalue = (none)
@@ stderr
@@ status 0
