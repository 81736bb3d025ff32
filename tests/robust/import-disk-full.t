# Issue 27, item 7: an :import that fills the disk (here: a file-size limit; a full tmpfs
# takes the same path) left a hot journal and the grown file, and the next --readonly open
# failed ("attempt to write a readonly database"). The import fails with the reason, its
# journal is played back and the file shrinks to what it was. (ulimit -f counts 512-byte
# blocks in sh.)
@@ db demo
@@ gen
awk 'BEGIN { print "id,notes"; for (i = 0; i < 100000; i++) printf "%d,some words for row %d of the file to import\n", i, i }' >big.csv
wc -c <"$DB" >size.before
@@ pre
trap '' XFSZ
ulimit -f 4000
@@ args -c ":import big.csv big" $DB
@@ status 1
@@ stderr has disk I/O error
@@ check
# (before anything opens the file read-write, which would play a journal back)
[ ! -e test.db-journal ]
[ "$(wc -c <test.db)" = "$(cat size.before)" ]
"$SUQL" --readonly -c "SELECT count(*) AS n FROM restaurants;" test.db | grep -q '| 112 |'
[ "$(sqlite3 test.db "SELECT count(*) FROM sqlite_schema WHERE name = 'big'")" = 0 ]
