# psql's backslash commands at the start of input: variables (\set lists them, :NAME,
# :'NAME' and :"NAME" in statements and in \echo, \unset), \x (expanded display: a value a
# line), \pset (suql's display settings in psql's words: format, border, null,
# tuples_only, expanded), \t, \a, \h (the syntax of a statement), \watch with a count, and
# ON_ERROR_STOP set in the script, which stops it at its first error.
@@ stdin
CREATE TABLE pets (name TEXT, kind TEXT, age INTEGER);
INSERT INTO pets VALUES ('Tom', 'cat', 3), ('Rex', 'dog', NULL), ('O''Malley', 'cat', 7);
\set
\set kind cat
\set n 1
\set greeting 'it''s' ' a ' :kind
\set
\echo :greeting, :'kind' and :"kind"; :nope stays
SELECT name FROM pets WHERE kind = :'kind' ORDER BY name LIMIT :n;
\x
SELECT * FROM pets WHERE kind = :'kind' ORDER BY name;
\x off
\pset null (none)
\pset
\pset format unaligned
SELECT * FROM pets ORDER BY name;
\t
SELECT count(*) FROM pets;
\t off
\a
\pset border 0
SELECT * FROM pets ORDER BY name;
\pset border 2
\pset format html5
\h DELETE
\h nothing
SELECT count(*) AS n FROM pets;
\watch 0 c=2
\unset n
\echo :n
\set 9-lives x
\set ON_ERROR_STOP on
SELECT nope FROM pets;
SELECT 'not run';
@@ stdout
greeting = 'it''s a cat'
kind = 'cat'
n = '1'
it's a cat, 'cat' and "cat"; :nope stays
+----------+
| name     |
+----------+
| O'Malley |
+----------+
(1 row)
name = O'Malley
kind = cat
 age = 7

name = Tom
kind = cat
 age = 3
border                   2
expanded                 off
format                   aligned
null                     '(none)'
tuples_only              off
name|kind|age
O'Malley|cat|7
Rex|dog|(none)
Tom|cat|3
3
name      kind  age   
--------  ----  ------
O'Malley  cat   7     
Rex       dog   (none)
Tom       cat   3     
Command:     DELETE
Description: remove rows from a table
Syntax:
[ WITH ... ]
DELETE FROM table_name [ AS alias ]
    [ WHERE condition ]
    [ RETURNING expression [ [ AS ] alias ] [, ...] ]

condition may ask free text: answer ( text, 'question' ) = 'Yes'
+---+
| n |
+---+
| 3 |
+---+
(1 row)
+---+
| n |
+---+
| 3 |
+---+
(1 row)
+---+
| n |
+---+
| 3 |
+---+
(1 row)
:n
@@ stderr
error: stdin:24: \pset: format 'html5' is not one suql has (aligned, unaligned, wrapped, or a mode: table, box, csv, json, line, markdown, html, column, list, tabs, insert, quote)
error: stdin:26: no syntax for 'nothing' (:syntax lists the statements)
error: stdin:31: invalid variable name '9-lives' (letters, digits and underscores)
error: stdin:33:8: no such column: nope
  SELECT nope FROM pets;
         ^~~~
hint: did you mean name?
@@ status 1
