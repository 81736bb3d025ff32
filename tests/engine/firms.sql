-- 12 firms (one named twice, and a NULL), 30 brands; the brands a firm makes share a word
-- with it (tests/engine/firms-pairs.tsv lists them). join.case and suite 57-postgres-join.
CREATE TABLE firms (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE brands (id INTEGER PRIMARY KEY, label TEXT);
INSERT INTO firms (name) VALUES ('Acme Corp'), ('Globex Industries'), ('Initech'),
  ('Umbrella Group'), ('Hooli'), ('Vandelay Imports'), ('Stark Industries'),
  ('Wayne Enterprises'), ('Wonka Candy'), ('Tyrell Corp'), ('Acme Corp'), ('Nobody Ltd'),
  (NULL);
INSERT INTO brands (label) VALUES ('ACME Roadrunner Traps'), ('Globex Rockets'),
  ('Initech TPS'), ('Umbrella Pharma'), ('Hooli Phone'), ('Vandelay Latex'),
  ('Stark Armor'), ('Wayne Tech'), ('Wonka Bars'), ('Tyrell Replicants'), ('Acme Anvils'),
  ('Globex Magnets'), ('Plain Water'), ('Generic Soap'), ('Stark Jets'), ('Candy Floss'),
  ('Umbrella Stands'), ('Industries Weekly'), ('Corp News'), ('Blue Sky'), ('Red Fox'),
  ('Green Tea'), ('Yellow Cab'), ('Black Box'), ('White Noise'), ('Grey Area'),
  ('Pink Lemonade'), ('Orange Juice'), ('Purple Rain'), ('Brown Bread');
