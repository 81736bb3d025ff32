# Line mode: "name = value" with the names right-aligned, a blank line between rows, the
# lines of a multi-line value lined up, NULL as NULL (or as :set nullvalue).
@@ args --line
@@ stdin
SELECT 1 AS id, 'Ann' AS longer_name, NULL AS nada
UNION ALL SELECT 2, 'two
lines', 3.25;
:set nullvalue (null)
SELECT NULL AS n;
@@ stdout
         id = 1
longer_name = Ann
       nada = NULL

         id = 2
longer_name = two
              lines
       nada = 3.25
n = (null)
@@ stderr
@@ status 0
