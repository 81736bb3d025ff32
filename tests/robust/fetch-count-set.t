# Issue 12, item 9: :set fetch_count N shows the rows in tables of N, each as wide as its
# rows need, with the count of all rows under the last; 0 holds them all (one table).
@@ db demo
@@ stdin
:set fetch_count 2
SELECT id FROM restaurants WHERE id IN (1, 2, 3, 100, 101) ORDER BY id;
:set fetch_count 0
SELECT id FROM restaurants WHERE id IN (1, 2, 3) ORDER BY id;
@@ status 0
@@ stdout count 4 | id
@@ stdout count 1 (5 rows)
@@ stdout count 1 (3 rows)
@@ unchanged
