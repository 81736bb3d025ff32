# Issue 12, item 4: --timeout SECONDS bounds every statement: an endless one stops with an
# error naming the limit (status 1), and the script goes on with the next statement.
@@ db demo
@@ args --timeout 1 -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;" -c "SELECT 'after' AS next;" $DB
@@ status 1
@@ stderr has error: -c:1: stopped at the time limit of 1 s (:set timeout SECONDS changes it)
@@ stdout has | after |
@@ unchanged
