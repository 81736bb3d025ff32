# Issue 27, item 1: results written to a full device were reported as success (exit 0).
# CSV to /dev/full: a non-zero exit and an error naming the standard output; the next
# statement still runs (and fails the same way), nothing is lost without a word.
@@ db demo
@@ pre
exec >/dev/full
@@ args --csv -c "SELECT * FROM restaurants;" -c "SELECT 1;" $DB
@@ status 1
@@ stderr count 2 error: -c:1: cannot write to standard output: No space left on device
@@ unchanged
