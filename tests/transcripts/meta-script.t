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
  show or set the output mode: table, box, csv, json, line, markdown, html,
  column, list, tabs, insert, quote (insert TABLE: the table its INSERT
  statements name, "table" when none is given)
Settings (:set KEY VALUE, or suql --set KEY=VALUE):
  mode MODE (default table)
      output mode: table, box, csv, json, line, markdown, html, column, list,
      tabs, insert, quote (insert TABLE: the table its statements name)
  headers on|off (default on)
      column names above table, box and csv output
  nullvalue TEXT (default NULL)
      how table, box, line, markdown and html modes show NULL; list, tabs and
      column show it as nothing until it is set, as the sqlite3 shell does
  expanded on|off|auto (default off)
      expanded display (psql's \x): on, table, box and column show each row as
      line mode does, a value a line; auto, only a result wider than the
      terminal
  echo on|off (default off)
      write each statement and meta-command, as read, before it runs (where
      results go, as the sqlite3 shell's .echo; also --echo)
  explain on|off|auto|rows (default auto at a terminal, else off)
      show each statement's parsed SUQL and plan; auto: only for statements with
      free text, so plain SQL looks as in sqlite3; rows: on, and after the
      counters one line per candidate the walk examined (:why N tells more)
  stats on|off (default on at a terminal, else off)
      show the counters of statements with free text
  show full|compact|rows (default full)
      how much is shown around a statement's rows: full, the parsed SUQL, plan
      and counters as explain and stats say; compact, one line of plan (the
      calls expected and at worst, the dollars) and one of counters (calls,
      tokens, dollars, time); rows, the rows alone, with errors, warnings and
      notes
  timer on|off (default off)
      show how long each statement took
  ascii on|off (default off)
      draw tables at a terminal and :chart's bars with ASCII characters alone
      (+-| lines, # bars; also --ascii); charts are ASCII in a locale that is
      not UTF-8 anyway
  pager on|off (default on)
      at a terminal, show results taller than the screen through $PAGER (less -S
      when PAGER is not set)
  timeout SECONDS (0 to 1000000; default 0)
      stop any statement (or :import) that runs longer, with an error; 0: no
      limit (also --timeout)
  max_width N (0 to 1000000; default 1000)
      the most display columns a line of a table or box cell shows, the rest
      elided with an ellipsis (~ in ASCII tables); 0: no limit (csv, json and
      line modes always show values whole)
  fetch_count N (0 to 1000000000; default 10000)
      rows held before they are shown: past N, table, box, column and markdown
      show the rows in tables of N, each as wide as its rows need; 0: hold them
      all
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
