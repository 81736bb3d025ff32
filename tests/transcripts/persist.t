# A database file keeps what a script wrote; :open switches to another one.
@@ args -c 'CREATE TABLE kept(v); INSERT INTO kept VALUES (1);' -c ':open other.db' -c 'CREATE TABLE other_t(w);' -c ':tables' -c ":open $DB" -c ':tables' -c 'SELECT v FROM kept' $DB
@@ stdout
other_t
kept
+---+
| v |
+---+
| 1 |
+---+
(1 row)
@@ stderr
@@ status 0
