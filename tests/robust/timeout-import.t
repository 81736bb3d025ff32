# Issue 27, item 5: :import ignored the statement time limit. Under :set timeout (here
# 0.01 s against 300,000 rows) it stops with the time limit's error, nothing of it is left
# (the table was never made), and the script goes on.
@@ db empty
@@ gen
awk 'BEGIN { print "id,name,note"; for (i = 0; i < 300000; i++) printf "%d,name %d,a note about row %d\n", i, i, i }' >big.csv
@@ stdin
:set timeout 0.01
:import big.csv big
:set timeout 0
SELECT count(*) AS n FROM sqlite_master WHERE name = 'big';
@@ status 1
@@ stderr has error: stdin:2: stopped at the time limit of 0.01 s (:set timeout SECONDS changes it)
@@ stdout has | 0 |
@@ unchanged
