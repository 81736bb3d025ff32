-- Four places, one review each naming a word of its own (alpha, bravo, charlie, delta),
-- two of them romantic: the database of tests/engine/cases/confidence.case, against a
-- server that says yes to the texts holding alpha or charlie. Read by suql from stdin.
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT[]);
INSERT INTO places VALUES
 (1, 'Alpha Bistro', '["Candlelit alpha tables, a romantic and calm room."]'),
 (2, 'Bravo Diner', '["Bright bravo lights, not romantic at all."]'),
 (3, 'Charlie Cafe', '["A charlie corner, romantic with soft music."]'),
 (4, 'Delta Grill', '["Loud delta sports bar, nothing romantic."]');
