# Issue 27, item 2: a mapping planted in the file ('affordable' -> luxury, in the name of
# the model in use) was trusted as if the model had made it. A mapping carries the mark
# of the suql that made it (a keyed hash, the key beside the LLM cache); one without it is
# classified again and replaced, and the new one is used from then on.
@@ db demo
@@ gen
sqlite3 "$DB" "CREATE TABLE suql_enum_map (tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, literal TEXT NOT NULL, vals TEXT NOT NULL, options TEXT NOT NULL, model TEXT NOT NULL, PRIMARY KEY (tbl, col, literal, model)); INSERT INTO suql_enum_map VALUES ('restaurants', 'price', 'affordable', '[\"luxury\"]', '4:6f254f0706420b41', 'offline-lexical-2');"
@@ args -v -c "SELECT count(*) AS n FROM restaurants WHERE price = 'affordable';" -c "SELECT count(*) AS n FROM restaurants WHERE price = 'affordable';" $DB
@@ status 0
@@ stderr has 'affordable' -> {'cheap'} (classified now by offline-lexical-2; the stored mapping has no record that suql made it here, and is not used)
@@ stderr has 'affordable' -> {'cheap'} (from suql_enum_map, made by offline-lexical-2)
@@ stderr lacks luxury
@@ check
[ "$(sqlite3 test.db "SELECT vals FROM suql_enum_map WHERE literal = 'affordable'")" = '["cheap"]' ]
