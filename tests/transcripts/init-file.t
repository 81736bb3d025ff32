# -init FILE runs FILE at start, before the -c commands: meta-commands and SQL, as the
# init file ($XDG_CONFIG_HOME/suql/init.suql or ~/.suqlrc) would; the command line's
# display options win over the file's (--json over its :mode csv). An error in the file is
# reported with its name and line, and the rest goes on.
@@ file start.suql
:mode csv
-- greetings for every session
CREATE TEMP TABLE greet (word TEXT);
INSERT INTO greet VALUES ('hello'), ('hi');
SELEC 1;
@@ args -init start.suql -c "SELECT word FROM greet ORDER BY word" -c ":mode" --json
@@ stdout
[
{"word":"hello"},
{"word":"hi"}
]
mode = json
@@ stderr
error: start.suql:5:1: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'SELEC'
  SELEC 1;
  ^~~~~
@@ status 1
