# As with the sqlite3 shell, words after the DATABASE are SQL, run in order like -c (and
# then the program exits without reading stdin); sqlite3's one-dash options work too.
@@ args -csv -header $DB "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)" "SELECT sum(a) AS total FROM t" "SELEC 3"
@@ stdin
SELECT 'never read';
@@ stdout
total
3
@@ stderr
error: -c:1:1: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'SELEC'
  SELEC 3
  ^~~~~
@@ status 1
