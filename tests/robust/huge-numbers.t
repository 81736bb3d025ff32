# Already held, kept so: numbers past every range run as SQLite reads them.
@@ db demo
@@ args -c "SELECT 1e999 AS inf, -9223372036854775808 AS min, 99999999999999999999999999 AS big, 9223372036854775807 + 1 AS over;" $DB
@@ status 0
@@ stdout has Inf
@@ stdout has -9223372036854775808
@@ stdout has 1.0e+26
@@ unchanged
