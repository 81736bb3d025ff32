# :set llm.offline_note off: a script answered by the offline backend says nothing about it
# (offline-note.t shows the note).
@@ args --csv --no-cache $DB
@@ stdin
:set llm.offline_note off
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT);
INSERT INTO r VALUES (1, 'Luigi', 'Romantic and candlelit.'), (2, 'Wok', 'Loud and bright.');
SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';
@@ stdout
name
Luigi
@@ stderr
@@ status 0
