# Meta-commands in a script: each takes one line where a statement would start, may be
# shortened while unambiguous, and reports its own errors with the script line. :output
# writes a script that :read then runs.
@@ file more.sql
SELECT 'read from more.sql' AS r;
:tables
@@ stdin
CREATE TABLE b(x INTEGER, y TEXT);
CREATE TABLE a(id INTEGER PRIMARY KEY, "odd name" TEXT);
CREATE VIEW v AS SELECT x FROM b;
:tables
:schema
:sch b
:schema missing
:mode
:mode json
:mo
:mode nonsense
:e
:nonsense
:help mode
:set headers maybe
:set no.such.key 1
:read more.sql
:read missing.sql
:output gen.sql
:mode csv
:headers off
SELECT 'SELECT 42 AS generated;';
:output
:mode table
:headers on
:read gen.sql
:quit
SELECT 'not reached';
@@ stdout
a
b
v
CREATE TABLE a (
  id INTEGER PRIMARY KEY,
  "odd name" TEXT
);

CREATE TABLE b (
  x INTEGER,
  y TEXT
);

CREATE VIEW v AS SELECT x FROM b;
CREATE TABLE b (
  x INTEGER,
  y TEXT
);
mode = table
mode = json
:mode [MODE [TABLE]]
  show or set the output mode: table, box, csv, json, line, markdown, html, column, list, tabs, insert, quote (insert TABLE: the table its INSERT statements name, "table" when none is given)
Settings (:set KEY VALUE, or suql --set KEY=VALUE):
  mode        MODE             output mode: table, box, csv, json, line,
                               markdown, html, column, list, tabs, insert, quote
                               (insert TABLE: the table its statements name)
                               (default table)
  headers     on|off           column names above table, box and csv output
                               (default on)
  nullvalue   TEXT             how table, box, line, markdown and html modes
                               show NULL; list, tabs and column show it as
                               nothing until it is set, as the sqlite3 shell
                               does (default NULL)
  expanded    on|off|auto      expanded display (psql's \x): on, table, box and
                               column show each row as line mode does, a value a
                               line; auto, only a result wider than the terminal
                               (default off)
  echo        on|off           write each statement and meta-command, as read,
                               before it runs (where results go, as the sqlite3
                               shell's .echo; also --echo) (default off)
  explain     on|off|auto|rows show each statement's parsed SUQL and plan; auto:
                               only for statements with free text, so plain SQL
                               looks as in sqlite3; rows: on, and after the
                               counters one line per candidate the walk examined
                               (:why N tells more) (default auto at a terminal,
                               else off)
  stats       on|off           show the counters of statements with free text
                               (default on at a terminal, else off)
  timer       on|off           show how long each statement took (default off)
  pager       on|off           at a terminal, show results taller than the
                               screen through $PAGER (less -S when PAGER is not
                               set) (default on)
  timeout     SECONDS          stop any statement (or :import) that runs longer,
                               with an error; 0: no limit (also --timeout) (0 to
                               1000000; default 0)
  max_width   N                the most display columns a line of a table or box
                               cell shows, the rest elided with an ellipsis (~
                               in ASCII tables); 0: no limit (csv, json and line
                               modes always show values whole) (0 to 1000000;
                               default 1000)
  fetch_count N                rows held before they are shown: past N, table,
                               box, column and markdown show the rows in tables
                               of N, each as wide as its rows need; 0: hold them
                               all (0 to 1000000000; default 10000)
The engine's, the chat agent's and the LLM client's: :help set.
[
{"r":"read from more.sql"}
]
a
b
v
+-----------+
| generated |
+-----------+
|        42 |
+-----------+
(1 row)
@@ stderr
error: stdin:7: no such table: missing
error: stdin:11: unknown mode 'nonsense' (table, box, csv, json, line, markdown, html, column, list, tabs, insert, quote)
error: stdin:12: ':e' could be :exit, :explain, :edit, :echo, :enum
error: stdin:13: unknown meta-command ':nonsense' (:help lists them)
error: stdin:15: headers takes on or off, not 'maybe'
error: stdin:16: unknown setting 'no.such.key'
error: stdin:18: cannot read missing.sql: No such file or directory
@@ status 1
