# Already held, kept so: 40,000 columns (in CREATE TABLE, in a SELECT, in an imported CSV
# header) are refused with SQLite's reason, status 1, nothing created.
@@ db demo
@@ gen
awk 'BEGIN { printf "CREATE TABLE wide (c0"; for (i = 1; i < 40000; i++) printf ", c%d", i; print ");" }' >create.sql
awk 'BEGIN { printf "SELECT 0"; for (i = 1; i < 40000; i++) printf ", %d", i; print ";" }' >select.sql
awk 'BEGIN { printf "c0"; for (i = 1; i < 40000; i++) printf ",c%d", i; print ""; printf "0"; for (i = 1; i < 40000; i++) printf ",%d", i; print "" }' >wide.csv
@@ args -f create.sql -f select.sql -c ":import wide.csv wide" $DB
@@ status 1
@@ stderr count 3 too many columns
@@ stderr has error: -c:1: wide.csv: cannot create table wide: too many columns on wide
@@ stderr bytes 3000
@@ unchanged
