# Issue 27, item 1: the parsed SUQL, plan and counters (-v, on stderr in a script) written
# to a full device: the results still arrive, and the exit status says something was lost.
@@ db demo
@@ pre
exec 2>/dev/full
@@ args -v -c "SELECT count(*) AS n FROM restaurants;" $DB
@@ status 1
@@ stdout has | 112 |
@@ unchanged
