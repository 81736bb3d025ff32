# Issue 12, item 9: the table mode held every row of an endless query (594 MB, nothing
# printed). Rows are shown in tables of fetch_count (10000 by default), so memory stays
# bounded: under a 400 MB limit the query runs until its time limit, printing as it goes.
@@ db demo
@@ pre
ulimit -v 400000
@@ args --timeout 3 -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, printf('%.200c', 'y') AS pad FROM c;" $DB
@@ skip-san
@@ status 1
@@ stderr has stopped at the time limit of 3 s
@@ stderr lacks out of memory
@@ stdout has | 10000 |
@@ stdout has | 10001 |
@@ unchanged
