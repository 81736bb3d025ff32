-- Two tables of 42 names, 7 starting with each of the letters A to F, none on both sides
-- (a left name ends in a, a right one in o). Used by tests/engine/cases/join-check.case:
-- "do the two names start with the same letter?" factors by the first letter.
CREATE TABLE lefts (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE rights (id INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 41)
INSERT INTO lefts SELECT i + 1, char(65 + i % 6) || substr('aeiou', i / 6 % 5 + 1, 1) ||
  substr('lmnrst', i / 6 % 6 + 1, 1) || 'a' FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 41)
INSERT INTO rights SELECT i + 1, char(65 + (i * 5) % 6) || substr('uoiea', i / 6 % 5 + 1, 1) ||
  substr('tsrnml', i / 6 % 6 + 1, 1) || 'o' FROM n;
