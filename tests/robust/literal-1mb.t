# Already held, kept so: a 1 MB string literal runs (stored and read back whole).
@@ db empty
@@ gen
awk 'BEGIN { printf "CREATE TABLE t (v TEXT);\nINSERT INTO t VALUES ('"'"'"; for (i = 0; i < 100000; i++) printf "0123456789"; print "'"'"');\nSELECT length(v) AS n FROM t;" }' >big.sql
@@ args -f big.sql $DB
@@ status 0
@@ stdout has | 1000000 |
