#!/bin/sh
# rare-db.sh PROG DB ROWS: a table `places` of ROWS rows (id, name, rating, reviews
# FREE_TEXT[]) where every hundredth row (id % 100 = 37) has a review naming a zither: a 1%
# predicate for build/llmserver --yes-word zither. Used by tests/suites/52-engine-calls.sh
# and bench/table.sh.
rm -f "$2"
"$1" "$2" >/dev/null 2>&1 <<EOSQL
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, rating REAL, reviews FREE_TEXT[]);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3)
INSERT INTO places SELECT i, 'Place ' || i, (i * 37 % 101) / 20.0,
  json_array('The food was fine and the staff were quick' ||
             CASE WHEN i % 100 = 37 THEN '; a man played the zither all evening.' ELSE '.' END,
             'We came for lunch on a ' || CASE i % 3 WHEN 0 THEN 'Monday' WHEN 1 THEN 'Friday'
             ELSE 'Sunday' END || ' and sat at table ' || i || '.')
FROM n;
EOSQL
