# tests/pg.sh: a PostgreSQL server of the tests' own, for the suites that run suql on
# PostgreSQL (sourced: . tests/pg.sh). pg_start makes a cluster in a new temporary
# directory (initdb, trust authentication, user suql) and starts it with pg_ctl, listening
# only on a Unix socket in that directory (no TCP port is taken; the port number only
# names the socket, so any number is free); as root the server runs as an unprivileged
# user (postgres, else nobody) through runuser. It sets SUQL_PG to a URI suql connects
# with and PG_DIR; pg_stop stops the server and removes the directory (pg_start arranges
# it at exit too). When the server cannot be started pg_start returns 1 with PG_SKIP
# saying why, and the suite prints "skipped: ...".
# pg_load_demo DB loads the tables of the SQLite database DB (made by tests/demo-db.sh)
# into the server's database with their SUQL types: JSON arrays become text[], the catalog
# rows go into suql.catalog (several databases may be loaded, with tables of other names;
# a database without suql_catalog loads as plain tables).

PG_DIR=""
PG_SKIP=""
PG_AS=""
SUQL_PG=""

pg_bin() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	d=$(dirname "$(command -v initdb 2>/dev/null || echo /none/initdb)")
	[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	return 1
}

pg_start() {
	PG_BIN=$(pg_bin) || { PG_SKIP="PostgreSQL's server (initdb, pg_ctl) is not installed; scripts/deps.sh installs postgresql"; return 1; }
	command -v psql >/dev/null 2>&1 || { PG_SKIP="psql is not installed (postgresql-client)"; return 1; }
	PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/suql-pg.XXXXXX") || { PG_SKIP="no temporary directory"; return 1; }
	if [ "$(id -u)" = 0 ]; then
		user=""
		for u in postgres nobody; do
			id "$u" >/dev/null 2>&1 && { user=$u; break; }
		done
		if [ -z "$user" ] || ! command -v runuser >/dev/null 2>&1; then
			PG_SKIP="running as root without an unprivileged user and runuser to run the server as"
			rm -rf "$PG_DIR"
			return 1
		fi
		chmod 755 "$PG_DIR"
		chown "$user" "$PG_DIR"
		PG_AS="runuser -u $user --"
	fi
	trap pg_stop EXIT
	port=$((20000 + $$ % 20000))
	if ! $PG_AS "$PG_BIN/initdb" -D "$PG_DIR/data" -U suql -A trust -E UTF8 --locale=C \
		--no-sync >"$PG_DIR/initdb.log" 2>&1; then
		PG_SKIP="initdb failed: $(tail -1 "$PG_DIR/initdb.log")"
		return 1
	fi
	if ! $PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-k $PG_DIR -p $port -c listen_addresses= -c fsync=off -c full_page_writes=off" \
		start >/dev/null 2>&1; then
		PG_SKIP="the server did not start: $(tail -2 "$PG_DIR/server.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	PG_PORT=$port
	psql -q -h "$PG_DIR" -p "$port" -U suql -d postgres -c "CREATE DATABASE suql_test" \
		>/dev/null 2>&1 || { PG_SKIP="CREATE DATABASE failed"; return 1; }
	SUQL_PG="postgresql://suql@/suql_test?host=$PG_DIR&port=$port"
	return 0
}

pg_stop() {
	if [ -n "$PG_DIR" ] && [ -d "$PG_DIR/data" ]; then
		$PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	fi
	[ -n "$PG_DIR" ] && rm -rf "$PG_DIR"
	PG_DIR=""
}

pg_psql() {   # pg_psql SQL: run SQL in the test database (or in $PG_DB)
	psql -q -X -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U suql -d "${PG_DB:-suql_test}" "$@"
}

# The Postgres type of a column: its SQLite declared type (REAL as double precision), a
# list (the catalog says T[]) as text[] (integer[] for INTEGER[]).
pg_load_demo() {
	db=$1
	tables=$(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'suql\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
	sql=$PG_DIR/load.sql
	: >"$sql"
	# a database of plain SQL tables has no catalog: none of its columns has a SUQL type
	catalog=suql_catalog
	[ -n "$(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE name = 'suql_catalog'")" ] ||
		catalog="(SELECT '' AS tbl, '' AS col, '' AS type, NULL AS enum_values WHERE 0)"
	for t in $tables; do
		# name|declared type|SUQL type (or empty)|primary key position
		sqlite3 "$db" "SELECT p.name, p.type, coalesce(c.type, ''), p.pk FROM pragma_table_info('$t') p LEFT JOIN $catalog c ON c.tbl = '$t' COLLATE NOCASE AND c.col = p.name COLLATE NOCASE ORDER BY p.cid" >"$PG_DIR/cols"
		cols=""; stage=""; conv=""; pk=""
		while IFS='|' read -r name type suql pkpos; do
			stage="$stage${stage:+, }\"$name\" text"
			pgtype=$type
			case $suql in
			*"[]") case $suql in INTEGER*) pgtype="integer[]" ;; *) pgtype="text[]" ;; esac ;;
			?*) pgtype=text ;;
			esac
			[ -z "$pgtype" ] && pgtype=text
			# SQLite's REAL is 8 bytes: Postgres's real is 4
			case $pgtype in REAL|real) pgtype="double precision" ;; esac
			case $pgtype in
			*"[]") expr="CASE WHEN \"$name\" IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(\"$name\"::jsonb))::$pgtype END" ;;
			*) expr="\"$name\"::$pgtype" ;;
			esac
			cols="$cols${cols:+, }\"$name\" $pgtype"
			conv="$conv${conv:+, }$expr"
			[ "$pkpos" != 0 ] && pk="$pk${pk:+, }\"$name\""
		done <"$PG_DIR/cols"
		[ -n "$pk" ] && cols="$cols, PRIMARY KEY ($pk)"
		sqlite3 -csv "$db" "SELECT * FROM \"$t\" ORDER BY rowid" >"$PG_DIR/$t.csv"
		{
			echo "CREATE TEMP TABLE stage_$t ($stage);"
			printf '%s\n' "\\copy stage_$t FROM '$PG_DIR/$t.csv' WITH (FORMAT csv)"
			echo "CREATE TABLE \"$t\" ($cols);"
			echo "INSERT INTO \"$t\" SELECT $conv FROM stage_$t;"
		} >>"$sql"
	done
	{
		echo "CREATE SCHEMA IF NOT EXISTS suql;"
		echo "CREATE TABLE IF NOT EXISTS suql.catalog(tbl TEXT NOT NULL, col TEXT NOT NULL, type TEXT NOT NULL, enum_values TEXT, PRIMARY KEY(tbl, col));"
	} >>"$sql"
	sqlite3 -csv "$db" "SELECT tbl, col, type, enum_values FROM $catalog" >"$PG_DIR/catalog.csv"
	printf '%s\n' "\\copy suql.catalog FROM '$PG_DIR/catalog.csv' WITH (FORMAT csv)" >>"$sql"
	echo "ANALYZE;" >>"$sql"
	pg_psql -f "$sql" >"$PG_DIR/load.log" 2>&1
}
