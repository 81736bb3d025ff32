# The language forms of the PostgreSQL dialect that SQLite computes alone: && (lists with
# an element in common, ENUM[] literals classified as for @>), INTERVAL arithmetic on dates
# and times, and bm25(column, 'query') through the retrieval index (no model asked).
@@ args --offline --no-cache $DB
@@ stdin
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, tags TEXT[], cuisines ENUM('thai', 'cafe', 'coffee & tea', 'pizza')[], opened TEXT, reviews FREE_TEXT[]);
INSERT INTO r VALUES (1, 'Luigi', '["quiet","cheap"]', '["pizza"]', '2024-01-31', '["A quiet corner table, candlelit and calm.", "Parking is easy."]'), (2, 'Wok', '["loud"]', '["thai"]', '2023-12-15', '["Very loud, no quiet corner anywhere."]'), (3, 'Bean', NULL, '["cafe","coffee & tea"]', '2024-02-29', '["Great espresso.", "Nothing else to say."]'), (4, 'Empty', '[]', '[]', NULL, NULL);
SELECT id, tags && ARRAY['quiet', 'loud'] AS either, tags && ARRAY['dear'] AS dear, ARRAY['cheap'] && tags AS cheap FROM r ORDER BY id;
SELECT name FROM r WHERE cuisines && ARRAY['coffee', 'pizza'] ORDER BY id;
SELECT name, opened + INTERVAL '1 month' AS m, opened - '2 weeks'::interval AS w, opened::timestamp + INTERVAL '90 minutes' AS t, INTERVAL '1 year' + opened AS y FROM r ORDER BY id;
SELECT name FROM r WHERE opened >= date('2024-03-01') - INTERVAL '1 day' ORDER BY id;
SELECT name, round(bm25(reviews, 'quiet corner'), 3) > 0 AS matched, bm25(reviews, 'quiet corner') IS NULL AS no_text FROM r ORDER BY bm25(reviews, 'quiet corner') DESC, id;
SELECT x.name FROM r AS x WHERE bm25(x.reviews, 'espresso') > 0;
SELECT bm25(name, 1.0) FROM r;
SELECT bm25(n, 'quiet') FROM (SELECT reviews AS n FROM r);
SELECT opened + INTERVAL 'a while' FROM r;
@@ stdout
+----+--------+------+-------+
| id | either | dear | cheap |
+----+--------+------+-------+
|  1 |      1 |    0 |     1 |
|  2 |      1 |    0 |     0 |
|  3 |      0 |    0 |     0 |
|  4 |      0 |    0 |     0 |
+----+--------+------+-------+
(4 rows)
+-------+
| name  |
+-------+
| Luigi |
| Bean  |
+-------+
(2 rows)
+-------+------------+------------+---------------------+------------+
| name  | m          | w          | t                   | y          |
+-------+------------+------------+---------------------+------------+
| Luigi | 2024-03-02 | 2024-01-17 | 2024-01-31 01:30:00 | 2025-01-31 |
| Wok   | 2024-01-15 | 2023-12-01 | 2023-12-15 01:30:00 | 2024-12-15 |
| Bean  | 2024-03-29 | 2024-02-15 | 2024-02-29 01:30:00 | 2025-03-01 |
| Empty | NULL       | NULL       | NULL                | NULL       |
+-------+------------+------------+---------------------+------------+
(4 rows)
+------+
| name |
+------+
| Bean |
+------+
(1 row)
+-------+---------+---------+
| name  | matched | no_text |
+-------+---------+---------+
| Wok   |       1 |       0 |
| Luigi |       1 |       0 |
| Bean  |       0 |       0 |
| Empty | NULL    |       1 |
+-------+---------+---------+
(4 rows)
+------+
| name |
+------+
| Bean |
+------+
(1 row)
@@ stderr
error: stdin:9: unable to use function bm25 in the requested context
error: stdin:10:8: bm25() ranks a column of a table with rowids (not of a view, subquery, CTE or unnest)
  SELECT bm25(n, 'quiet') FROM (SELECT reviews AS n FROM r);
         ^~~~~~~~~~~~~~~~
hint: write bm25(table.column, 'words to look for')
error: stdin:11:17: no such column: INTERVAL
  SELECT opened + INTERVAL 'a while' FROM r;
                  ^~~~~~~~
@@ status 1
