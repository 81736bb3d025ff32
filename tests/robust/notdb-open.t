# Issue 12, item 9: :open of a file that is not SQLite fails and keeps the open database.
@@ db demo
@@ gen
printf 'not a database, just text that fills a header or more ..........................\n' >notes.db
@@ args -c ":open notes.db" -c "SELECT count(*) AS n FROM restaurants;" $DB
@@ status 1
@@ stderr has error: -c:1: cannot open database notes.db: file is not a database
@@ stdout has | 112 |
@@ unchanged
