#!/bin/sh
# suql on PostgreSQL, what a case file cannot say, against a server the suite starts itself
# (tests/pg.sh: initdb and pg_ctl into a temporary directory, a Unix socket, stopped at the
# end) holding the demo restaurants; skipped, saying why, when no server can be started.
# Connecting: --pg with the PG* variables and with a libpq conninfo string (a case always
# names its database by a URI, with its environment fixed), an unreachable server (no
# fixture) and a database in LATIN1 (a fixture is loaded in UTF-8); and read-only mode (READ ONLY, statement_timeout), a unit test of the engine run
# against this server. The rest of suql on PostgreSQL is data: the cases of
# tests/engine/cases/*.case (postgres.case, equiv.case and the others), which suite 58 runs
# on both backends.
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
T=$SUQL_TMP/pg
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi
demo=$T/demo.db
sh tests/demo-db.sh "$demo"
pg_load_demo "$demo" || { echo "not ok pg: the demo loads into PostgreSQL"; sed 's/^/# /' "$PG_DIR/load.log" | head; exit 0; }
echo "ok pg: a server of the suite's own started, the demo loaded"

# --- connecting
out=$(PGHOST=$PG_HOST PGPORT=$PG_PORT PGUSER=suql PGDATABASE=$PG_DBNAME "$SUQL_PROG" --offline --pg "" --csv --no-headers "SELECT current_database(), count(*) FROM restaurants" 2>&1)
[ "$out" = "$PG_DBNAME,112" ] && ok "pg: --pg with the PG* variables" || notok "pg: --pg with the PG* variables" "$out"
out=$("$SUQL_PROG" --offline --pg "host=$PG_HOST port=$PG_PORT user=suql dbname=$PG_DBNAME" --json -c "SELECT name, cuisines FROM restaurants WHERE id = 1" 2>&1)
case $out in *'"name":"Hoshi Sushi"'*'{sushi,japanese}'*) ok "pg: --pg CONNINFO, JSON output, a native array" ;; *) notok "pg: --pg CONNINFO, JSON" "$out" ;; esac
out=$("$SUQL_PROG" --offline "postgresql://nobody@/nodb?host=$T/none" -c "SELECT 1" 2>&1); rc=$?
case $out in *"cannot connect to PostgreSQL"*"PGHOST"*) [ $rc -ne 0 ] && ok "pg: an unreachable server: what to check, non-zero status" ;;
*) notok "pg: an unreachable server" "$out" ;; esac
# a database in another encoding: the connection asks for UTF-8, so its texts reach the
# model, the final statement's look-up and the terminal as UTF-8
PG_DB=postgres pg_psql -q -c "CREATE DATABASE ${PG_DBNAME}_latin ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null 2>&1
out=$(printf '%s\n' "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note FREE_TEXT);" \
	"INSERT INTO t VALUES (1, 'Café Zoë', 'A calm café, romantic and quiet.'), (2, 'Bar', 'Loud bar.');" \
	"SELECT name FROM t WHERE answer(note, 'is it romantic?') = 'Yes';" |
	"$SUQL_PROG" --offline --csv --no-headers "$(printf '%s' "$SUQL_PG" | sed "s|/$PG_DBNAME?|/${PG_DBNAME}_latin?|")" 2>&1)
[ "$out" = "Café Zoë" ] && ok "pg: a LATIN1 database: its texts come as UTF-8, judged and looked up" ||
	notok "pg: a LATIN1 database" "$out"

# a refusal of the operator table is placed at what it is about: the occurrence, with its
# line, column and caret (on the second line here), nothing asked (a correlated subquery
# over a subquery in FROM, whose rows are known only as the database reads them)
out=$(printf '%s\n' "SELECT name," "  (SELECT count(*) FROM (SELECT * FROM restaurants) AS r2 WHERE r2.location = r.location AND answer(r2.reviews, 'is it quiet?') = 'Yes')" "FROM restaurants AS r WHERE id <= 2;" |
	"$SUQL_PROG" --offline --no-cache "$SUQL_PG" 2>&1)
case $out in *"stdin:2:94: not supported on PostgreSQL yet: free text evaluated row by row"*"(the filter walk operator)"*"                                                                                             ^~~~"*)
	case $out in *"llm calls"*) notok "pg: a refusal asks nothing" "$out" ;; *) ok "pg: a refusal is placed at the occurrence it is about (line 2, column 94, a caret)" ;; esac ;;
*) notok "pg: a refusal placed at its occurrence" "$out" ;; esac

# --- read-only mode (the chat agent's statements): READ ONLY, statement_timeout (a unit test
# of the engine, run here against this server)
SUQL_PG=$SUQL_PG "$SUQL_BUILD/unit/test_pg" 2>&1
pg_stop
