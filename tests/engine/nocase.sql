-- Values DISTINCT takes as one: a NOCASE column of five rows the offline backend finds
-- romantic (four spellings of one value) and thirty it does not. Used by
-- tests/engine/cases/walk.case.
CREATE TABLE t (k TEXT COLLATE NOCASE, reviews FREE_TEXT);
INSERT INTO t VALUES ('paris', 'romantic, romantic, so romantic'), ('PARIS', 'romantic, romantic, so romantic'),
  ('Paris', 'romantic, romantic, so romantic'), ('pAris', 'romantic, romantic, so romantic'),
  ('oslo', 'we came late after a long walk through the town, and the room was romantic enough');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO t SELECT 'town ' || i, 'noisy and dull, a long wait' FROM n;
