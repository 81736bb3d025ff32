-- 40 reviews, each of one opinion of the price (cheap, fair or expensive), 2 (13 and 27)
-- of none. Used by tests/engine/cases/join-factor.case and suite 57-postgres-join.
CREATE TABLE reviews (id INTEGER PRIMARY KEY, body TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO reviews (body) SELECT 'Review ' || i || ': ' ||
  CASE WHEN i IN (13, 27) THEN 'the staff were friendly'
       WHEN i % 3 = 0 THEN 'quite cheap for what you get'
       WHEN i % 3 = 1 THEN 'a fair price overall'
       ELSE 'rather expensive, I thought' END FROM n;
