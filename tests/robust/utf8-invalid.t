# Already held, kept so: invalid UTF-8 in the data is shown as U+FFFD, in a query and in a
# free-text question over it, never a crash.
@@ db empty
@@ gen
printf 'CREATE TABLE t (v FREE_TEXT);\nINSERT INTO t VALUES (CAST(x'"'"'6869ff80c3'"'"' AS TEXT));\n' >s.sql
"$SUQL" -f s.sql "$DB"
@@ args -c "SELECT v FROM t;" -c "SELECT answer(v, 'what does it say?') AS a FROM t;" $DB
@@ status 0
@@ stdout has | hi\357\277\275\357\277\275\357\277\275 |
@@ unchanged
