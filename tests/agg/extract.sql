CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT);
INSERT INTO t VALUES (1, 'XA: a quiet room, kids welcome, we waited 10 minutes.'),
                     (2, 'XB: a loud bar, no children allowed, a twenty minute wait.'),
                     (3, 'XC: the soup was fine.'),
                     (4, 'XD: the wait was long.'),
                     (5, NULL);
