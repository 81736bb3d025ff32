# A database that cannot be opened is a system error: exit status 2.
@@ args -c 'SELECT 1' no/such/dir/x.db
@@ stdout
@@ stderr
error: cannot open database no/such/dir/x.db: unable to open database file
@@ status 2
