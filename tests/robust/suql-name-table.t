# Issue 27, item 3: suql's own tables are suql's. A user's table named suql_enum_map, with
# suql-like columns plus one of its own, lost that column and its rows on a plain SELECT
# that compared an ENUM column (suql rebuilt it as an old mapping table). suql reports it at
# open, asks for it to be renamed, never rebuilds or writes it, fails the statement that
# needs the table, and plain SQL goes on.
@@ db demo
@@ gen
sqlite3 "$DB" "CREATE TABLE suql_enum_map (tbl TEXT, col TEXT, literal TEXT, vals TEXT, options TEXT, model TEXT, note TEXT); INSERT INTO suql_enum_map VALUES ('restaurants', 'price', 'pricey', '[\"cheap\"]', '', 'offline-lexical-2', 'mine');"
@@ args -c "SELECT count(*) AS n FROM restaurants WHERE price = 'pricey';" -c ":enum forget" -c "SELECT note FROM suql_enum_map;" $DB
@@ status 1
@@ stderr count 1 warning: the table suql_enum_map is named like suql's own but suql did not make it
@@ stderr has error: -c:1: cannot classify the ENUM literals of this statement: the table suql_enum_map is named like suql's own
@@ stderr has rename it (ALTER TABLE suql_enum_map RENAME TO another_name)
@@ stdout has | mine |
@@ unchanged
