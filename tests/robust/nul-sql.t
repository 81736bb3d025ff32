# Already held, kept so: a NUL byte in a statement is an error at its place, status 1.
@@ db demo
@@ gen
printf 'SELECT 1\0002;\n' >nul.sql
@@ args -f nul.sql $DB
@@ status 1
@@ stderr has nul.sql:1:9: unexpected NUL byte
@@ unchanged
