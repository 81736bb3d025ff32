# Issue 12, item 2: the first Ctrl-C stops a statement wherever it is: here SQLite runs an
# endless CTE whose free text is asked per row (the first SIGINT was swallowed by a
# planning count before). A script stopped by Ctrl-C ends with status 130.
@@ db demo
@@ args -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE answer('the food is good', 'is it good?') = 'Yes';" -c "SELECT 'not reached';" $DB
@@ interrupt 1
@@ status 130
@@ stderr has error: -c:1: interrupted
@@ stdout lacks not reached
@@ unchanged
