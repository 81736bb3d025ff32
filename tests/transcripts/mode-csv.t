# CSV: a header row, fields quoted when they hold a comma, a quote or a line break, an empty
# string quoted ("") while NULL is an empty field, numbers as SQLite prints them, blobs as
# X'..', LF line ends; --no-headers drops the header row.
@@ args --csv
@@ stdin
CREATE TABLE t(a, b, c);
INSERT INTO t VALUES ('plain', 'comma, here', 'quote "q"');
INSERT INTO t VALUES ('', NULL, 'line
break');
INSERT INTO t VALUES (42, 1.5, x'DEAD');
INSERT INTO t VALUES ('ünï', ' lead and trail ', 'a;b');
SELECT * FROM t;
SELECT 1 AS "odd, name";
:headers off
SELECT 'no header' AS h;
@@ stdout
a,b,c
plain,"comma, here","quote ""q"""
"",,"line
break"
42,1.5,X'DEAD'
ünï, lead and trail ,a;b
"odd, name"
1
no header
@@ stderr
@@ status 0
