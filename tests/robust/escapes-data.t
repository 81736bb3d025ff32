# Issue 12, item 5: text from the data reaches the terminal with its control characters
# shown in every output path: result cells, the parsed SUQL and plan (-v, on stderr in a
# script), error messages that quote a name, warnings, and meta-command listings (:tables,
# :schema).
@@ db empty
@@ gen
printf 'CREATE TABLE "evil\033]0;x\007" (a TEXT, b FREE_TEXT);\nINSERT INTO "evil\033]0;x\007" VALUES ('"'"'\033[2J'"'"', '"'"'the food \033[31m is good'"'"');\n' >setup.sql
"$SUQL" -f setup.sql "$DB"
printf 'SELECT a, b FROM "evil\033]0;x\007";\nSELECT b FROM "evil\033]0;x\007" WHERE answer(b, '"'"'is it \033[2J good?'"'"') = '"'"'Yes'"'"';\nSELECT * FROM "nothere\033[2J";\nSELECT CAST(answer(b, '"'"'when\033[5m?'"'"') AS DATE) FROM "evil\033]0;x\007";\n:tables\n:schema\n' >script.sql
@@ args -v -f script.sql $DB
@@ status 1
@@ stdout has evil^[]0;x^G
@@ stdout has ^[[2J
@@ stderr has is it ^[[2J good?
@@ stderr has no such table: nothere^[[2J
@@ stdout lacks \033
@@ stdout lacks \007
@@ stderr lacks \033
@@ unchanged
