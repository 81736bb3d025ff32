# Issue 27, item 5: one huge cell made every row of a table as wide as it (a 10 MB value
# made 1.17 GB of table output). A line of a table cell shows at most max_width columns
# (1000), the rest elided; CSV (here through :once) keeps the value whole, and
# :set max_width 0 takes the cap off (the table to whole.txt holds the whole value).
@@ db empty
@@ setup
CREATE TABLE t (id INTEGER, v TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50) INSERT INTO t SELECT i, CASE WHEN i = 7 THEN printf('%.*c', 1000000, 'x') ELSE 'short' END FROM c;
@@ args -c "SELECT id, v FROM t;" -c ":mode csv" -c ":once full.csv" -c "SELECT v FROM t WHERE id = 7;" -c ":mode table" -c ":set max_width 0" -c ":once whole.txt" -c "SELECT length(v) AS n, v FROM t WHERE id = 7;" $DB
@@ stdout has xxx~ |
@@ stdout has | short
@@ stdout has (50 rows)
@@ stdout bytes 200000
@@ check
[ "$(wc -c <full.csv)" -ge 1000000 ]
[ "$(wc -c <whole.txt)" -ge 5000000 ]
