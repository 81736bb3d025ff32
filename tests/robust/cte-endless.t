# Issue 12, item 2: free text over an endless recursive CTE never returned: planning ran
# SELECT count(*) FROM c. Counts are bounded now; a FROM that cannot be counted is
# evaluated per row, so LIMIT 3 stops it as it does without free text.
@@ db demo
@@ args -v -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE answer('the food is good', 'is it good?') = 'Yes' LIMIT 3;" $DB
@@ status 0
@@ stderr has too many rows in FROM to count before running (or endless)
@@ stdout has (3 rows)
@@ unchanged
