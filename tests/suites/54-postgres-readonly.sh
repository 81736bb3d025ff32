#!/bin/sh
# PostgreSQL's --readonly holds against SQL (issue 35, item 7), against a server of the
# suite's own (tests/pg.sh). Each attempt to write runs through suql --readonly as a script,
# and psql then counts what it could have changed: the rows of a table, a table it could
# have made, the large objects, the session's read-only setting. Every attempt the issue
# lists (BEGIN READ WRITE, START TRANSACTION READ WRITE, set_config of
# default_transaction_read_only followed by a DELETE or a CREATE TABLE) and the others
# read-only mode refuses (SET, RESET, SET SESSION CHARACTERISTICS, SET TRANSACTION, DO,
# CALL, COPY ... PROGRAM, lo_import, server files, calls in subqueries, CTEs and defaults,
# quoted names, escape and dollar-quoted strings, ANALYZE) leaves all of it as it was and
# ends non-zero; the refusals say why, with a caret. The second wall: a function of the
# database that turns the setting off (no statement names set_config) is caught after the
# statement, rolled back, and the setting is on again. Reading still works: a query, a
# transaction of queries, a free-text query.
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
T=$SUQL_TMP/pg-readonly
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres read-only: $PG_SKIP"
	exit 0
fi
pg_psql -c "CREATE TABLE ro_t (a int, note text);
CREATE FUNCTION sneaky() RETURNS text LANGUAGE sql AS \$\$
	SELECT set_config('default_transaction_read_only', 'off', false) \$\$;
CREATE FUNCTION wipe() RETURNS int LANGUAGE plpgsql AS \$\$
	BEGIN DELETE FROM ro_t; RETURN 0; END \$\$;
CREATE PROCEDURE wipe_p() LANGUAGE sql AS \$\$ DELETE FROM ro_t \$\$;" >/dev/null ||
	{ notok "read-only: the fixture"; exit 1; }
reset_t() {
	pg_psql -c "DELETE FROM ro_t; INSERT INTO ro_t VALUES (1, 'quiet and calm'), (2, 'loud'), (3, 'a calm patio');
DROP TABLE IF EXISTS ro_new;" >/dev/null 2>&1
}
state() {   # rows of ro_t, whether ro_new exists, large objects
	pg_psql -At -c "SELECT (SELECT count(*) FROM ro_t) || ',' || (to_regclass('ro_new') IS NOT NULL)
	                || ',' || (SELECT count(*) FROM pg_largeobject_metadata)"
}
reset_t
before=$(state)
[ "$before" = "3,false,0" ] || notok "read-only: the table before" "$before"

# attempt NAME SCRIPT: the script under --readonly; the state must be as before and the
# exit status non-zero; the output in $T/out
n=0
attempt() {
	_name=$1 _sql=$2
	n=$((n + 1))
	reset_t
	"$SUQL_PROG" --offline --readonly "$SUQL_PG" -c "$_sql" >"$T/out" 2>&1
	_st=$?
	_after=$(state)
	if [ "$_after" = "$before" ] && [ "$_st" -ne 0 ]; then
		ok "read-only: $_name: nothing written (status $_st)"
	else
		notok "read-only: $_name: nothing written" "rows,new table,large objects: $_after (before $before); status $_st" "$(head -12 "$T/out")"
	fi
}
# has TEXT: the last attempt's output holds TEXT
has() {
	if grep -qF -- "$2" "$T/out"; then ok "read-only: $1"; else notok "read-only: $1" "want: $2" "$(head -12 "$T/out")"; fi
}

attempt "BEGIN READ WRITE; DELETE; COMMIT" "BEGIN READ WRITE; DELETE FROM ro_t; COMMIT;"
has "... refused at READ WRITE, with a caret" "refuses a transaction that may write (READ WRITE)"
has "... the caret under READ WRITE" "      ^~~~~~~~~~"
attempt "BEGIN ISOLATION LEVEL ..., READ WRITE (a comment between)" \
	"BEGIN ISOLATION LEVEL READ COMMITTED, READ /* x */ WRITE; DELETE FROM ro_t; COMMIT;"
attempt "START TRANSACTION READ WRITE; DELETE; COMMIT" "START TRANSACTION READ WRITE; DELETE FROM ro_t; COMMIT;"
attempt "set_config(default_transaction_read_only, off); DELETE" \
	"SELECT set_config('default_transaction_read_only', 'off', false); DELETE FROM ro_t;"
has "... set_config refused where it is called" "refuses set_config(): it changes the server's settings"
attempt "set_config(default_transaction_read_only, off); CREATE TABLE" \
	"SELECT set_config('default_transaction_read_only', 'off', false); CREATE TABLE ro_new (a int);"
attempt "set_config(transaction_read_only, off, local); DELETE" \
	"SELECT set_config('transaction_read_only', 'off', true); DELETE FROM ro_t;"
attempt "set_config in a subquery" \
	"SELECT x FROM (SELECT set_config('default_transaction_read_only', 'off', false) AS x) s; DELETE FROM ro_t;"
attempt "set_config in a CTE" \
	"WITH c AS (SELECT set_config('default_transaction_read_only', 'off', false)) SELECT * FROM c; CREATE TABLE ro_new (a int);"
attempt "set_config in WHERE, as a quoted name" \
	"SELECT a FROM ro_t WHERE \"set_config\"('default_transaction_read_only', 'off', false) = 'off'; DELETE FROM ro_t;"
attempt "set_config in FROM, schema-qualified" \
	"SELECT * FROM pg_catalog.set_config('default_transaction_read_only', 'off', false); DELETE FROM ro_t;"
attempt "SET default_transaction_read_only = off; DELETE" "SET default_transaction_read_only = off; DELETE FROM ro_t;"
attempt "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE" \
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE FROM ro_t;"
attempt "RESET default_transaction_read_only; DELETE" "RESET default_transaction_read_only; DELETE FROM ro_t;"
attempt "BEGIN; SET TRANSACTION READ WRITE; DELETE; COMMIT" \
	"BEGIN; SET TRANSACTION READ WRITE; DELETE FROM ro_t; COMMIT;"
attempt "BEGIN; DELETE; COMMIT (the user's transaction is read-only)" "BEGIN; DELETE FROM ro_t; COMMIT;"
has "... the server refuses the DELETE" "cannot execute DELETE in a read-only transaction"
attempt "DO block" "DO \$\$BEGIN DELETE FROM ro_t; END\$\$;"
attempt "CALL a procedure that deletes" "CALL wipe_p();"
attempt "a function that deletes" "SELECT wipe();"
attempt "COPY ... FROM PROGRAM" "COPY ro_t FROM PROGRAM 'echo 9';"
attempt "COPY ... FROM a server file" "COPY ro_t FROM '/etc/hostname';"
attempt "lo_import" "SELECT lo_import('/etc/hostname');"
has "... lo_import refused" "refuses lo_import(): it reads or writes the server's files"
attempt "lo_import in a column default" "CREATE TABLE ro_new (a oid DEFAULT lo_import('/etc/hostname'));"
attempt "pg_read_file, then a DELETE" "SELECT pg_read_file('PG_VERSION'); DELETE FROM ro_t;"
has "... pg_read_file refused" "refuses pg_read_file(): it reads or writes the server's files"
# PostgreSQL reads E'\'' as one quote, suql's lexer reads on: to PostgreSQL the line calls
# lo_import, to suql's lexer that call is inside strings
attempt "an escape string hiding a call from suql's lexer" \
	"SELECT E'\\'', lo_import(',1,') -- ';
DELETE FROM ro_t;"
has "... refused as an escape string" "refuses an escape string (E'...')"
attempt "a dollar-quoted string" "SELECT \$q\$ x \$q\$; DELETE FROM ro_t;"
attempt "ANALYZE" "ANALYZE ro_t;"
# the second wall: a function of the database turns the setting off, no statement names it
attempt "a function that turns the setting off (the second wall), then a DELETE" \
	"SELECT sneaky(); DELETE FROM ro_t; CREATE TABLE ro_new (a int);"
has "... caught after the statement, rolled back, set on again" \
	"a statement turned the server's read-only setting off (default_transaction_read_only)"
attempt "... inside the user's transaction" "BEGIN; SELECT sneaky(); DELETE FROM ro_t; COMMIT; DELETE FROM ro_t;"

# reading still works, and the setting is on after it all
reset_t
out=$("$SUQL_PROG" --offline --readonly --csv --no-headers "$SUQL_PG" -c "SELECT count(*) FROM ro_t;
BEGIN;
SELECT a FROM ro_t WHERE a = 2;
SELECT current_setting('transaction_read_only');
COMMIT;
SELECT current_setting('default_transaction_read_only');" 2>&1)
check "read-only: queries, and a transaction of queries, run (read-only)" "$(echo $out)" "3 2 on on"
pg_psql -c "INSERT INTO suql.catalog VALUES ('ro_t', 'note', 'FREE_TEXT', NULL)" >/dev/null 2>&1 ||
	pg_psql -c "CREATE SCHEMA suql; CREATE TABLE suql.catalog(tbl text NOT NULL, col text NOT NULL,
	            type text NOT NULL, enum_values text, PRIMARY KEY (tbl, col));
	            INSERT INTO suql.catalog VALUES ('ro_t', 'note', 'FREE_TEXT', NULL)" >/dev/null
out=$("$SUQL_PROG" --offline --readonly --csv --no-headers "$SUQL_PG" \
	-c "SELECT a FROM ro_t WHERE answer(note, 'is it calm?') = 'Yes' ORDER BY a;" 2>&1)
check "read-only: a free-text query runs" "$(echo $out)" "1 3"
check "read-only: after everything, the table as it was" "$(state)" "$before"

# the boundary that holds: the role README.md and doc/postgres.md show, made as they show
# (the role's name is the suite's own: a role belongs to the whole server, which other
# suites may share)
R=${PG_DBNAME}_reader
pg_psql -c "CREATE ROLE $R LOGIN PASSWORD 'choose one';
GRANT CONNECT ON DATABASE $PG_DBNAME TO $R;
GRANT USAGE ON SCHEMA public, suql TO $R;
GRANT SELECT ON ALL TABLES IN SCHEMA public, suql TO $R;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
ALTER ROLE $R SET default_transaction_read_only = on;" >/dev/null ||
	notok "read-only: the role of the docs is made as they show"
RURI=$(printf '%s' "$SUQL_PG" | sed "s|postgresql://suql@|postgresql://$R@|")
out=$("$SUQL_PROG" --offline --readonly --csv --no-headers "$RURI" -c "SELECT count(*) FROM ro_t;" 2>&1)
check "read-only: the reader role reads" "$out" "3"
# as that role, even with the setting off and no suql in the way, nothing can be written
out=$(psql -X -q -h "$PG_HOST" -p "$PG_PORT" -U "$R" -d "$PG_DBNAME" \
	-c "SET default_transaction_read_only = off" -c "DELETE FROM ro_t" \
	-c "CREATE TABLE ro_new (a int)" -c "SELECT lo_import('/etc/hostname')" 2>&1)
n_denied=$(printf '%s\n' "$out" | grep -c "permission denied")
if [ "$n_denied" -eq 3 ] && [ "$(state)" = "$before" ]; then
	ok "read-only: the reader role cannot write, whatever it sets (3 writes denied by the server)"
else
	notok "read-only: the reader role cannot write" "$out" "$(state)"
fi
pg_stop
[ -n "${SUQL_PG_SHARED:-}" ] && psql -q -X -h "${SUQL_PG_SHARED% *}" -p "${SUQL_PG_SHARED##* }" \
	-U suql -d postgres -c "DROP ROLE IF EXISTS $R" >/dev/null 2>&1
[ "$fails" -eq 0 ]
