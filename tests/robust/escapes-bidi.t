# Issue 27, item 5: U+202E (right-to-left override) from the data reached the terminal raw,
# where it turns what follows around ("abc<RLO>gpj.exe" shows as "abcexe.jpg"). It and the
# other invisible format characters (isolates, zero-width space, byte-order mark) are shown
# as <U+XXXX>, in cells and in messages that quote the data; JSON escapes them.
@@ db empty
@@ gen
printf "CREATE TABLE files (name TEXT);\nINSERT INTO files VALUES ('abc' || char(0x202E) || 'gpj.exe'), (char(0x2066) || 'x' || char(0x2069) || char(0x200B) || char(0xFEFF));\n" >setup.sql
"$SUQL" -f setup.sql "$DB"
printf 'SELECT name FROM files;\nSELECT * FROM "no\342\200\256here";\n:mode json\nSELECT name FROM files LIMIT 1;\n' >script.sql
@@ args -f script.sql $DB
@@ status 1
@@ stdout has abc<U+202E>gpj.exe
@@ stdout has <U+2066>x<U+2069><U+200B><U+FEFF>
@@ stdout has "abc\\u202egpj.exe"
@@ stderr has no such table: no<U+202E>here
@@ stdout lacks \0342\0200\0256
@@ stdout lacks \0342\0201\0246
@@ stdout lacks \0357\0273\0277
@@ stderr lacks \0342\0200\0256
@@ unchanged
