-- The tables of the sample's cases (cases/sample.case), read by suql from stdin.
-- visits: 20,000 rows, generated here; a visit is quiet when (id * 7919) % 10 < 3, 6,000
-- of them (2,000 in each city), each text its own (its id in it) so that no two
-- candidates share an answer. The offline backend answers 'is it quiet?' from the words:
-- Yes for "quiet", No for "loud" (an opposite). price is id % 50.
CREATE TABLE visits (id INTEGER PRIMARY KEY, city TEXT, price INTEGER, review FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO visits SELECT i,
  CASE i % 3 WHEN 0 THEN 'Ashby' WHEN 1 THEN 'Berwick' ELSE 'Corran' END, i % 50,
  'Visit ' || i || ': ' || CASE WHEN (i * 7919) % 10 < 3 THEN 'the room was quiet.'
                                ELSE 'the room was loud.' END
FROM n;
-- small: five rows, fewer than any sample, so the result is exact: three quiet (one with
-- no price), one loud, one without a text.
CREATE TABLE small (id INTEGER PRIMARY KEY, price INTEGER, review FREE_TEXT);
INSERT INTO small VALUES (1, 10, 'A quiet room.'), (2, 20, 'A loud bar.'),
  (3, 30, 'A quiet corner.'), (4, 40, NULL), (5, NULL, 'Quiet.');
-- murmurs: 40 rows, 13 quiet, 25 loud, and 2 whose replies the case's server cannot make
-- readable (their texts hold "Mumble").
CREATE TABLE murmurs (id INTEGER PRIMARY KEY, review FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO murmurs SELECT i, 'Night ' || i || ': ' ||
  CASE WHEN i IN (7, 23) THEN 'Mumble.' WHEN i % 3 = 0 THEN 'it was quiet.'
       ELSE 'it was loud.' END
FROM n;
