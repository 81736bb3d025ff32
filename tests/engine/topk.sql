-- Semantic top-k: 60 reviews; three speak of romance and are scored 5 by build/llmserver's
-- rules (tests/engine/topk-rules.json), one 4, one 1, the rest 2. Used by
-- tests/engine/cases/choice-topk.case and suite 58-postgres-ops.
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, review FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO r SELECT i, 'Place ' || i, 'Lunch spot number ' || i || ', quick service and fair prices.' FROM n;
UPDATE r SET review = 'S5 A romantic dinner by candlelight, very romantic (' || id || ').' WHERE id IN (17, 38, 52);
UPDATE r SET review = 'S4 Somewhat romantic on a quiet night.' WHERE id = 44;
UPDATE r SET review = 'S1 Loud and bright, the opposite of romantic.' WHERE id = 9;
