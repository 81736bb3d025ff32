CREATE TABLE e (c ENUM('red', 'blue'), tags TEXT[]);
INSERT INTO e VALUES ('red', '["a"]');
SELECT c FROM e WHERE c = 'red';
DROP TABLE e;
SELECT 1;
