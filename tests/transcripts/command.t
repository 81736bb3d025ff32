# -c runs its text and exits without reading stdin; it may be repeated and runs in order;
# a -c may hold several statements, or a meta-command; errors are located in "-c".
@@ args -c 'CREATE TABLE t(a); INSERT INTO t VALUES (7);' -c ':mode csv' -c 'SELECT a FROM t; SELECT b FROM t;' $DB
@@ stdin
SELECT 'stdin is not read';
@@ stdout
a
7
@@ stderr
error: -c:1:25: no such column: b
  SELECT b FROM t;
         ^
hint: did you mean a?
@@ status 1
