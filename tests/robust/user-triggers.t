# Issue 27, item 2: what suql does against planted triggers leaves the user's own schema
# working as the sqlite3 shell runs it: an FTS5 table kept in step by a trigger on the
# user's table (SQLite's own pattern, which trusted_schema=OFF would refuse), a view over
# it, and a trigger that logs inserts.
@@ db empty
@@ gen
sqlite3 "$DB" "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE log (id INTEGER); CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id'); CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(rowid, body) VALUES (new.id, new.body); INSERT INTO log VALUES (new.id); END; CREATE VIEW quiet AS SELECT rowid AS id FROM notes_fts WHERE notes_fts MATCH 'quiet';"
@@ args -c "INSERT INTO notes (body) VALUES ('a quiet corner'), ('a loud bar');" -c "SELECT count(*) AS q FROM quiet;" -c "SELECT count(*) AS logged FROM log;" $DB
@@ status 0
@@ stderr lacks unsafe
@@ stdout has | q |
@@ stdout has | 1 |
@@ stdout has | logged |
@@ check
[ "$(sqlite3 test.db 'SELECT count(*) FROM log')" = 2 ]
[ "$(sqlite3 test.db "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'loud'")" = 1 ]
