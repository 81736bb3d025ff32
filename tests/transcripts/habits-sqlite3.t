# The sqlite3 shell's dot-commands at the start of input: the output modes column, list,
# tabs, quote and insert [TABLE] (written as sqlite3 writes them), markdown padded, .print
# (sqlite3's quoting: "..." takes escapes, '...' does not), .echo (each statement and
# command, as read, before it runs), .timeout MS (busy_timeout counts seconds) and
# .databases.
@@ stdin
CREATE TABLE pets (name TEXT, kind TEXT, age INTEGER);
INSERT INTO pets VALUES ('Tom', 'cat', 3), ('Rex', 'dog', NULL), ('O''Malley', 'cat', 7.5);
.mode column
SELECT * FROM pets;
.mode list
SELECT * FROM pets;
.mode tabs
.headers off
SELECT * FROM pets;
.headers on
.mode quote
SELECT * FROM pets;
.mode insert pets_copy
SELECT * FROM pets;
.mode markdown
SELECT * FROM pets;
.print "two\tcolumns" 'no\tescape' bare\x
.echo on
SELECT 1 AS one;
.print echoed too
.echo off
SELECT 2 AS two;
.timeout 1500
.timeout
.mode list
.databases
@@ args $DB
@@ stdout
name      kind  age
--------  ----  ---
Tom       cat   3  
Rex       dog      
O'Malley  cat   7.5
name|kind|age
Tom|cat|3
Rex|dog|
O'Malley|cat|7.5
Tom	cat	3
Rex	dog	
O'Malley	cat	7.5
'name','kind','age'
'Tom','cat',3
'Rex','dog',NULL
'O''Malley','cat',7.5
INSERT INTO pets_copy(name,kind,age) VALUES('Tom','cat',3);
INSERT INTO pets_copy(name,kind,age) VALUES('Rex','dog',NULL);
INSERT INTO pets_copy(name,kind,age) VALUES('O''Malley','cat',7.5);
|   name   | kind | age  |
|----------|------|------|
| Tom      | cat  | 3    |
| Rex      | dog  | NULL |
| O'Malley | cat  | 7.5  |
two	columns no\tescape barex
SELECT 1 AS one;
| one |
|-----|
| 1   |
.print echoed too
echoed too
.echo off
| two |
|-----|
| 2   |
busy_timeout = 1.5
name|file
main|$TMP/test.db
@@ stderr
@@ status 0
