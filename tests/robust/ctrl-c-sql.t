# Issue 12, item 2: Ctrl-C stops a statement without free text too (SQLite's progress
# handler checks the flag), once.
@@ db demo
@@ args -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;" $DB
@@ interrupt 1
@@ status 130
@@ stderr count 1 interrupted
@@ unchanged
