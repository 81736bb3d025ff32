-- Six places, each review holding a word of its own (alpha, bravo, ... foxtrot) that a
-- rule of tests/engine/cases/record.case answers: the database of that file. Read by
-- suql from stdin.
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT[]);
INSERT INTO places VALUES
 (1, 'Alpha Bistro', '["Candlelit alpha tables, a romantic and calm room.", "Parking is easy."]'),
 (2, 'Bravo Diner', '["Bright bravo lights, not romantic at all.", "Fast service."]'),
 (3, 'Charlie Cafe', '["A charlie corner, romantic with soft music."]'),
 (4, 'Delta Grill', '["Loud delta sports bar, nothing romantic."]'),
 (5, 'Echo Room', '["An echo of a romantic dinner spot with a view."]'),
 (6, 'Foxtrot Pub', '["A foxtrot pub with darts, romantic it is not."]');
