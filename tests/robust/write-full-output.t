# Issue 27, item 1: :output FILE and :once FILE on a full device reported success. Each
# statement whose results were lost is an error naming the file (the script's status is 1);
# the session goes on, and results sent back to the standard output arrive.
@@ db demo
@@ stdin
:output /dev/full
SELECT * FROM restaurants;
:output
SELECT 'back' AS here;
:once /dev/full
SELECT name FROM restaurants LIMIT 3;
SELECT 'after once' AS here;
@@ status 1
@@ stderr has error: stdin:2: cannot write to /dev/full: No space left on device (output lost)
@@ stderr has error: stdin:6: cannot write to /dev/full: No space left on device (output lost)
@@ stderr count 2 cannot write
@@ stdout has | back |
@@ stdout has | after once |
@@ unchanged
