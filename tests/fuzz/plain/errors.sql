CREATE TABLE t (a, b);
SELECT * FROM nowhere;
SELECT 1 +;
SELECT a::TEXT, b FROM t WHERE b ILIKE 'x%';
SELECT "a", [b] FROM t WHERE a = ?;
INSERT INTO t VALUES (3, 'three')