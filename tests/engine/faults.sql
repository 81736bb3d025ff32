-- Three reviews with a price of ENUM type: the database every case of
-- tests/engine/cases/faults.case starts from (a copy of its own each), read by suql from
-- stdin.
CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT,
                price ENUM('cheap', 'moderate', 'expensive'));
INSERT INTO t VALUES (1, 'Quiet and calm; we waited 10 minutes for a table.', 'cheap'),
                     (2, 'Loud music every night, but no wait at all.', 'moderate'),
                     (3, 'A peaceful patio; we waited 25 minutes.', 'cheap');
