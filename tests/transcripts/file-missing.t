# A -f file that cannot be read is a system error: exit status 2, nothing after it runs.
@@ args -c "SELECT 'runs'" -f no-such-file.sql -c "SELECT 'does not run'"
@@ stdout
+--------+
| 'runs' |
+--------+
| runs   |
+--------+
(1 row)
@@ stderr
error: cannot read no-such-file.sql: No such file or directory
@@ status 2
