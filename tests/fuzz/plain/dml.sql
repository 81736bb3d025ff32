CREATE TABLE t (a INTEGER, b TEXT);
INSERT INTO t VALUES (1, 'x;y'), (2, 'it''s');
BEGIN;
UPDATE t SET b = 'z' -- a comment; here
  WHERE a = 2;
COMMIT;
/* block; */ SELECT a, b AS "b;" FROM t ORDER BY a;
