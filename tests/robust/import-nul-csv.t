# Issue 12, item 7: a CSV field x<NUL>y was stored as x after "imported 1 row". A NUL byte
# is refused at its file:line:column (shown as the symbol for NUL), nothing is imported.
@@ db demo
@@ gen
printf 'a,b\nx\000y,2\n' >nul.csv
@@ args -c ":import nul.csv t" $DB
@@ status 1
@@ stderr has error: -c:1: nul.csv:2:2: a NUL byte: suql imports text, and SQLite would cut the value short here
@@ stderr has   x\342\220\200y,2
@@ stderr has    ^
@@ unchanged
