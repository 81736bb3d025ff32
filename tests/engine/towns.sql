-- 60 places in five towns, their review texts of several lengths, some naming a happy
-- hour once or twice, some the words apart: a view with free text read by a statement
-- (expanded and planned), and unordered LIMITs ranked alike on both backends. Used by
-- tests/engine/cases/views.case.
CREATE TABLE places (id INTEGER PRIMARY KEY, town TEXT, body FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO places SELECT i,
  CASE i % 5 WHEN 0 THEN 'Avon' WHEN 1 THEN 'Brill' WHEN 2 THEN 'Carlow' WHEN 3 THEN 'Dunmore'
             ELSE 'Elgin' END,
  CASE WHEN i % 7 = 3 THEN 'Happy hour from four to six, half-price drinks. '
       WHEN i % 7 = 5 THEN 'We were happy, though the hour-long wait was not. '
       ELSE '' END ||
  CASE i % 4 WHEN 0 THEN 'The staff were friendly and the room was bright. '
             WHEN 1 THEN 'Quiet corner tables, good coffee, slow service. '
             WHEN 2 THEN 'A long room with a bar along one wall, and a garden behind it where we sat for an evening. '
             ELSE '' END ||
  CASE WHEN i % 11 = 2 THEN 'Their happy hour is the best in town: a happy hour every weekday. '
       WHEN i % 13 = 6 THEN 'No happy hour here. '
       ELSE 'Table ' || i || '. ' END
FROM n;
