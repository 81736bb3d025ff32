# Table mode off a terminal: ASCII lines, numbers right-aligned, NULL shown as NULL, wide
# characters (CJK) and combining accents aligned by display width, a value with a newline
# spanning two lines, a blob as X'..', and the row count.
@@ stdin
CREATE TABLE t(id INTEGER, name TEXT, price REAL, note TEXT, b BLOB);
INSERT INTO t VALUES (1, 'Alice', 3.5, 'he said "hi", ok', x'00ff');
INSERT INTO t VALUES (2, 'Zoë 日本', NULL, 'two
lines', NULL);
INSERT INTO t VALUES (30, 'e' || char(769) || 'te', -0.25, '', x'');
SELECT * FROM t;
SELECT 1 AS one WHERE 0;
SELECT 'tab' || char(9) || 'bell' || char(7) AS controls;
@@ stdout
+----+----------+-------+------------------+---------+
| id | name     | price | note             | b       |
+----+----------+-------+------------------+---------+
|  1 | Alice    |   3.5 | he said "hi", ok | X'00FF' |
|  2 | Zoë 日本 | NULL  | two              | NULL    |
|    |          |       | lines            |         |
| 30 | éte      | -0.25 |                  | X''     |
+----+----------+-------+------------------+---------+
(3 rows)
+-----+
| one |
+-----+
+-----+
(0 rows)
+------------+
| controls   |
+------------+
| tab bell^G |
+------------+
(1 row)
@@ stderr
@@ status 0
