# Issue 12, item 9: a file that is not SQLite opened without complaint and every statement
# then failed. The header is read at open: status 2, a clear message, the file untouched.
@@ gen
printf 'this is a text file, not a database; it is long enough to have a header\n' >notes.db
cp notes.db notes.orig
@@ args -c "SELECT 1;" notes.db
@@ status 2
@@ stderr has error: cannot open database notes.db: file is not a database
@@ check
cmp notes.db notes.orig
