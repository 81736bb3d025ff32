# Issue 27, item 2: a database file is data, not code. A trigger planted on suql's own
# table suql_enum_map ran when a plain SELECT stored its ENUM mapping, and deleted 102 of
# the 112 restaurants. suql says at open that it will not write through it, the mapping
# serves the statement only, a statement that would fire the trigger is refused, no trigger
# can be made on suql's tables, and every row is still there.
@@ db demo
@@ gen
sqlite3 "$DB" "CREATE TABLE suql_enum_map (tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, literal TEXT NOT NULL, vals TEXT NOT NULL, options TEXT NOT NULL, model TEXT NOT NULL, PRIMARY KEY (tbl, col, literal, model)); CREATE TRIGGER evil AFTER INSERT ON suql_enum_map BEGIN DELETE FROM restaurants WHERE id > 10; END; CREATE TRIGGER evil2 AFTER INSERT ON suql_catalog BEGIN DELETE FROM restaurants; END;"
@@ args -c "SELECT count(*) AS n FROM restaurants WHERE price = 'pricey';" -c "INSERT INTO suql_enum_map VALUES ('a', 'b', 'c', '[]', '', 'm');" -c "CREATE TABLE t2 (a FREE_TEXT);" -c "CREATE TRIGGER t3 AFTER DELETE ON suql_table_props BEGIN DELETE FROM restaurants; END;" -c "SELECT count(*) AS rows_left FROM restaurants;" $DB
@@ status 1
@@ stderr count 1 warning: the database has a trigger on suql's own table suql_enum_map ("evil")
@@ stderr count 1 warning: the database has a trigger on suql's own table suql_catalog ("evil2")
@@ stderr has warning: the ENUM mapping of 'pricey' for restaurants.price was not stored: the database has a trigger on suql's own table suql_enum_map ("evil")
@@ stderr has drop it (DROP TRIGGER "evil")
@@ stderr has refused: this statement would run the trigger "evil"
@@ stderr has error: -c:1: the database has a trigger on suql's own table suql_catalog ("evil2")
@@ stderr has refused: suql's own tables (suql_*) take no triggers
@@ stdout has | rows_left |
@@ stdout has |       112 |
@@ check
[ "$(sqlite3 test.db 'SELECT count(*) FROM restaurants')" = 112 ]
[ "$(sqlite3 test.db 'SELECT count(*) FROM suql_enum_map')" = 0 ]
[ "$(sqlite3 test.db "SELECT count(*) FROM sqlite_schema WHERE name IN ('t2', 't3')")" = 0 ]
