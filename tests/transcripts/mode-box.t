# Box mode: Unicode lines even when the output is not a terminal; headers can be turned off.
@@ args --box
@@ stdin
SELECT 1 AS n, 'δ' AS greek, NULL AS nada;
:headers off
SELECT 22 AS n, 'x' AS greek, 1.5 AS nada;
@@ stdout
┌───┬───────┬──────┐
│ n │ greek │ nada │
├───┼───────┼──────┤
│ 1 │ δ     │ NULL │
└───┴───────┴──────┘
(1 row)
┌────┬───┬─────┐
│ 22 │ x │ 1.5 │
└────┴───┴─────┘
(1 row)
@@ stderr
@@ status 0
