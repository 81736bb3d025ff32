# What sqlite3 and psql users type out of habit, at the start of input: the commands with an
# equivalent run it (.tables is :tables, \d NAME is :schema NAME, a trailing ';' is ignored),
# the others say in one line what to type; quit ends the script like :quit (help runs
# :help: the terminal test shows it). Nothing here is left waiting for the end of a
# statement.
@@ stdin
CREATE TABLE pets (name TEXT, kind TEXT);
INSERT INTO pets VALUES ('Tom', 'cat');
.tables
.tables;
\dt
\d pets
.schema pets
.mode csv
.headers off
SELECT * FROM pets;
.dump
\c other.db
.frobnicate
\zz
quit
SELECT 'not run';
@@ stdout
pets
pets
pets
CREATE TABLE pets (
  name TEXT,
  kind TEXT
);
CREATE TABLE pets (
  name TEXT,
  kind TEXT
);
Tom,cat
@@ stderr
error: stdin:11: .dump is not a suql command; the sqlite3 shell writes one: sqlite3 DATABASE .dump (suql's own tables are the suql_* ones)
error: stdin:12: \c is not a suql command; suql works on one database at a time: :open FILE opens another (suql --pg CONNINFO, another PostgreSQL database)
error: stdin:13: .frobnicate is not a suql command; suql's meta-commands start with ':' (:help lists them)
error: stdin:14: \zz is not a suql command; suql's meta-commands start with ':' (:help lists them)
@@ status 1
