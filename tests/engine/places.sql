-- 1000 places, one of them (537) romantic: the table of the call-count suites
-- (52-engine-calls, 55-postgres-calls), read by suql from stdin.
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT[]);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO places SELECT i, 'Place ' || i,
  json_array('The food was fine and the staff were quick.', 'We came for lunch on a ' ||
             CASE i % 3 WHEN 0 THEN 'Monday' WHEN 1 THEN 'Friday' ELSE 'Sunday' END ||
             ' and sat at table ' || i || '.')
FROM n;
UPDATE places SET reviews = json_array('A romantic place: candlelit tables, very romantic, perfect for a romantic date night.') WHERE id = 537;
