# A script answered by the offline backend though no endpoint was chosen says so on standard
# error, once a run, after the first statement it answered (plain SQL before it says
# nothing); --offline (every other transcript) or :set llm.offline_note off (offline-note-off.t)
# keeps it quiet.
@@ args --csv --no-cache $DB
@@ stdin
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT);
INSERT INTO r VALUES (1, 'Luigi', 'Romantic and candlelit.'), (2, 'Wok', 'Loud and bright.');
SELECT count(*) FROM r;
SELECT name FROM r WHERE answer(reviews, 'is it romantic?') = 'Yes';
SELECT name FROM r WHERE answer(reviews, 'is it loud?') = 'Yes';
@@ stdout
count(*)
2
name
Luigi
name
Wok
@@ stderr
note: answered by the offline backend (lexical, no language model): configure an endpoint (--llm-url and --model, or the config file) for a model's answers; --offline or :set llm.offline_note off hides this note
@@ status 0
