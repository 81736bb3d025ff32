# Issue 27, item 1: a reader that goes away early (head) with SIGPIPE ignored: suql stops
# quietly, as sqlite3 does (no error, no "output lost"), and does not run on.
@@ db demo
@@ gen
mkfifo pipe
@@ pre
trap '' PIPE
(head -c 1 <pipe >/dev/null) &
exec >pipe
@@ args --csv -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000000) SELECT x FROM c;" -c "SELECT 'never' AS shown;" $DB
@@ status 0
@@ stderr lacks error
@@ unchanged
