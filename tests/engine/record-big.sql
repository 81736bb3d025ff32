-- 1200 rows, every third one quiet: more candidates than the per-row record keeps
-- (tests/engine/cases/record.case). Read by suql from stdin.
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, notes FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
INSERT INTO t SELECT i, 'Row ' || i, CASE i % 3 WHEN 0 THEN 'A quiet room.' ELSE 'A loud room ' || i || '.' END FROM n;
