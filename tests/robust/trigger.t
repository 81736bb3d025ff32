# Issue 12, item 9: CREATE TRIGGER with answer() in its body was accepted and then broke
# every INSERT ("no such function: answer"). It is refused at CREATE, with a caret, and
# the table takes rows as before.
@@ db demo
@@ setup
CREATE TABLE log (x);
@@ stdin
CREATE TRIGGER tr AFTER INSERT ON restaurants BEGIN INSERT INTO log VALUES (answer(new.reviews, 'is it good?')); END;
CREATE TRIGGER tr2 AFTER UPDATE ON restaurants BEGIN INSERT INTO log SELECT summary(new.reviews); END;
SELECT count(*) AS triggers FROM sqlite_schema WHERE type = 'trigger';
@@ status 1
@@ stderr has error: stdin:1:77: a trigger cannot call answer() or summary()
@@ stderr has error: stdin:2:77: a trigger cannot call answer() or summary()
@@ stdout has |        0 |
@@ unchanged
