# Already held, kept so: 10,000 nested parentheses end with a clear error, status 1.
@@ db demo
@@ gen
awk 'BEGIN { printf "SELECT "; for (i = 0; i < 10000; i++) printf "("; printf "1";
             for (i = 0; i < 10000; i++) printf ")"; print ";" }' >deep.sql
@@ args -f deep.sql $DB
@@ status 1
@@ stderr has deep.sql:1:507: the statement nests too deeply (more than 1000 levels)
@@ stderr bytes 2000
@@ unchanged
