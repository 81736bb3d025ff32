# tests/pg.sh: a PostgreSQL server of the tests' own, for the suites that run suql on
# PostgreSQL (sourced: . tests/pg.sh). pg_start makes a cluster in a new temporary
# directory (initdb, trust authentication, user suql) and starts it with pg_ctl, listening
# only on a Unix socket in that directory (no TCP port is taken; the port number only
# names the socket, so any number is free); as root the server runs as an unprivileged
# user (postgres, else nobody) through runuser. It sets SUQL_PG to a URI suql connects
# with and PG_DIR; pg_stop stops the server and removes the directory (pg_start arranges
# it at exit too). When the server cannot be started pg_start returns 1 with PG_SKIP
# saying why, and the suite prints "skipped: ...".
# One server for a whole run: tests/run starts it (pg_run_start) and exports
# SUQL_PG_SHARED ("DIR PORT": its socket's folder and number); pg_start in a suite then
# makes a database of its own on it (PG_DBNAME, named after the suite's process) instead of
# a cluster, and pg_stop drops it, so suites and the parts of one run side by side. A suite
# that needs a server of its own (it reads the server's log, or starts servers beside it)
# sets PG_OWN=1 before pg_start. PG_HOST is the socket's folder, PG_DIR the suite's scratch
# folder (in a cluster of its own, the cluster's folder too).
# pg_load_demo DB loads the tables of the SQLite database DB (made by tests/demo-db.sh)
# into the server's database with their SUQL types: JSON arrays become text[], the catalog
# rows go into suql.catalog (several databases may be loaded, with tables of other names;
# a database without suql_catalog loads as plain tables).

PG_DIR=""
PG_HOST=""
PG_DBNAME=suql_test
PG_SHARED_USED=""
PG_SKIP=""
PG_AS=""
PG_USER=""
SUQL_PG=""

pg_bin() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	d=$(dirname "$(command -v initdb 2>/dev/null || echo /none/initdb)")
	[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	return 1
}

# pg_server DIR PORT: a cluster in DIR/data (initdb, trust, user suql) started on a Unix
# socket in DIR only, run as $PG_AS; 1 with PG_SKIP saying why when it does not start.
pg_server() {
	_dir=$1 _port=$2
	if ! $PG_AS "$PG_BIN/initdb" -D "$_dir/data" -U suql -A trust -E UTF8 --locale=C \
		--no-sync >"$_dir/initdb.log" 2>&1; then
		PG_SKIP="initdb failed: $(tail -1 "$_dir/initdb.log")"
		return 1
	fi
	if ! $PG_AS "$PG_BIN/pg_ctl" -D "$_dir/data" -l "$_dir/server.log" -w -t 60 \
		-o "-k $_dir -p $_port -c listen_addresses= -c fsync=off -c full_page_writes=off" \
		start >/dev/null 2>&1; then
		PG_SKIP="the server did not start: $(tail -2 "$_dir/server.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	psql -q -h "$_dir" -p "$_port" -U suql -d postgres -c "CREATE DATABASE suql_test" \
		>/dev/null 2>&1 || { PG_SKIP="CREATE DATABASE failed"; return 1; }
}

# pg_tmpdir: a new directory the server's user may own (as root: chowned to it)
pg_tmpdir() {
	_t=$(mktemp -d "${TMPDIR:-/tmp}/suql-pg.XXXXXX") || return 1
	if [ -n "$PG_USER" ]; then
		chmod 755 "$_t"
		chown "$PG_USER" "$_t"
	fi
	echo "$_t"
}

# pg_as: who runs the server (as root: an unprivileged user through runuser); 1 with
# PG_SKIP when PostgreSQL's programs are missing
pg_as() {
	PG_BIN=$(pg_bin) || { PG_SKIP="PostgreSQL's server (initdb, pg_ctl) is not installed; scripts/deps.sh installs postgresql"; return 1; }
	command -v psql >/dev/null 2>&1 || { PG_SKIP="psql is not installed (postgresql-client)"; return 1; }
	PG_USER=""
	PG_AS=""
	if [ "$(id -u)" = 0 ]; then
		for u in postgres nobody; do
			id "$u" >/dev/null 2>&1 && { PG_USER=$u; break; }
		done
		if [ -z "$PG_USER" ] || ! command -v runuser >/dev/null 2>&1; then
			PG_SKIP="running as root without an unprivileged user and runuser to run the server as"
			return 1
		fi
		PG_AS="runuser -u $PG_USER --"
	fi
	return 0
}

pg_start() {
	pg_as || return 1
	if [ -n "${SUQL_PG_SHARED:-}" ] && [ -z "${PG_OWN:-}" ]; then
		PG_HOST=${SUQL_PG_SHARED% *}
		PG_PORT=${SUQL_PG_SHARED##* }
		PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/suql-pgw.XXXXXX") || { PG_SKIP="no temporary directory"; return 1; }
		PG_DBNAME=suql_$$
		PG_SHARED_USED=1
		trap pg_stop EXIT
		psql -q -X -h "$PG_HOST" -p "$PG_PORT" -U suql -d postgres \
			-c "CREATE DATABASE $PG_DBNAME" >/dev/null 2>&1 ||
			{ PG_SKIP="CREATE DATABASE $PG_DBNAME failed on the run's server"; return 1; }
	else
		PG_DIR=$(pg_tmpdir) || { PG_SKIP="no temporary directory"; return 1; }
		PG_HOST=$PG_DIR
		PG_DBNAME=suql_test
		trap pg_stop EXIT
		port=$((20000 + $$ % 20000))
		pg_server "$PG_DIR" "$port" || return 1
		PG_PORT=$port
	fi
	SUQL_PG="postgresql://suql@/$PG_DBNAME?host=$PG_HOST&port=$PG_PORT"
	return 0
}

# pg_run_start DIR: the run's one server, in DIR (made by the caller); prints "DIR PORT"
# for SUQL_PG_SHARED, or fails with PG_SKIP saying why
pg_run_start() {
	pg_as || return 1
	if [ -n "$PG_USER" ]; then
		chmod 755 "$1"
		chown "$PG_USER" "$1"
	fi
	pg_server "$1" "$((20000 + $$ % 20000))" || return 1
	echo "$1 $((20000 + $$ % 20000))"
}

# pg_run_stop DIR: stops the run's server
pg_run_stop() {
	pg_as >/dev/null 2>&1 || return 0
	[ -d "$1/data" ] && $PG_AS "$PG_BIN/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1
	return 0
}

# pg_shards_start: two more servers (after pg_start), the shards, in directories and on
# sockets of their own (PG_SHARD_DIRS; the port is the main server's); pg_stop stops them
# too. 1 with PG_SKIP when they cannot start or postgres_fdw is not installed.
PG_SHARD_DIRS=""
pg_shards_start() {
	[ -f "$("$PG_BIN/pg_config" --sharedir 2>/dev/null || echo /none)/extension/postgres_fdw.control" ] ||
		ls /usr/share/postgresql/*/extension/postgres_fdw.control >/dev/null 2>&1 ||
		{ PG_SKIP="postgres_fdw is not installed"; return 1; }
	for _i in 1 2; do
		_d=$(pg_tmpdir) || { PG_SKIP="no temporary directory"; return 1; }
		PG_SHARD_DIRS="$PG_SHARD_DIRS $_d"
		pg_server "$_d" "$PG_PORT" || return 1
	done
	return 0
}

# pg_shard_psql N SQL...: psql on shard N (1 or 2)
pg_shard_psql() {
	_n=$1
	shift
	_d=$(echo $PG_SHARD_DIRS | cut -d' ' -f"$_n")
	psql -q -X -v ON_ERROR_STOP=1 -h "$_d" -p "$PG_PORT" -U suql -d suql_test "$@"
}

# pg_shard_table T KEY: table T (loaded by pg_load_demo, with KEY an integer column)
# becomes a table partitioned by hash of KEY into two partitions that are postgres_fdw
# foreign tables, one on each shard: each shard gets a table t_shard of T's columns (KEY
# its primary key) holding its rows, the main server a foreign server per shard and a
# user mapping. The rows are those T held; T's catalog rows stay. A partitioned table
# with foreign partitions cannot have a unique index, so it has no primary key in
# pg_index: a row of suql.table_props (prop row_key) declares KEY as its row identity.
pg_shard_table() {
	_t=$1 _k=$2
	_cols=$(pg_psql -At -c "SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = '\"$_t\"'::regclass AND attnum > 0 AND NOT attisdropped") || return 1
	_i=0
	for _d in $PG_SHARD_DIRS; do
		pg_shard_psql $((_i + 1)) -c "CREATE TABLE \"${_t}_shard\" ($_cols, PRIMARY KEY (\"$_k\"))" || return 1
		pg_psql -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS postgres_fdw" \
			-c "CREATE SERVER IF NOT EXISTS shard$_i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$_d', port '$PG_PORT', dbname 'suql_test')" \
			-c "CREATE USER MAPPING IF NOT EXISTS FOR suql SERVER shard$_i OPTIONS (user 'suql')" || return 1
		_i=$((_i + 1))
	done
	{
		echo "BEGIN;"
		echo "ALTER TABLE public.\"$_t\" RENAME TO \"${_t}_local\";"
		echo "CREATE TABLE public.\"$_t\" ($_cols) PARTITION BY HASH (\"$_k\");"
		_i=0
		for _d in $PG_SHARD_DIRS; do
			echo "CREATE FOREIGN TABLE public.\"${_t}_p$_i\" PARTITION OF public.\"$_t\" FOR VALUES WITH (MODULUS 2, REMAINDER $_i) SERVER shard$_i OPTIONS (schema_name 'public', table_name '${_t}_shard');"
			_i=$((_i + 1))
		done
		echo "INSERT INTO public.\"$_t\" SELECT * FROM public.\"${_t}_local\" ORDER BY \"$_k\";"
		echo "DROP TABLE public.\"${_t}_local\";"
		echo "CREATE SCHEMA IF NOT EXISTS suql;"
		echo "CREATE TABLE IF NOT EXISTS suql.table_props(tbl TEXT NOT NULL, prop TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(tbl, prop));"
		echo "INSERT INTO suql.table_props VALUES ('$_t', 'row_key', '$_k');"
		echo "COMMIT;"
		echo "ANALYZE public.\"$_t\";"
	} >"$PG_DIR/shard.sql"
	pg_psql -f "$PG_DIR/shard.sql" >"$PG_DIR/shard.log" 2>&1
}

pg_stop() {
	if [ -n "$PG_SHARED_USED" ]; then
		# the suite's databases on the run's server: its own and those named after it
		for _db in $(psql -At -X -h "$PG_HOST" -p "$PG_PORT" -U suql -d postgres -c \
			"SELECT datname FROM pg_database WHERE datname = '$PG_DBNAME' OR datname LIKE '${PG_DBNAME}\\_%'" 2>/dev/null); do
			psql -q -X -h "$PG_HOST" -p "$PG_PORT" -U suql -d postgres \
				-c "DROP DATABASE IF EXISTS \"$_db\" WITH (FORCE)" >/dev/null 2>&1
		done
		PG_SHARED_USED=""
		[ -n "$PG_DIR" ] && rm -rf "$PG_DIR"
		PG_DIR=""
	fi
	for _d in $PG_DIR $PG_SHARD_DIRS; do
		[ -d "$_d/data" ] && $PG_AS "$PG_BIN/pg_ctl" -D "$_d/data" -m immediate -w stop >/dev/null 2>&1
		rm -rf "$_d"
	done
	PG_DIR=""
	PG_SHARD_DIRS=""
}

pg_psql() {   # pg_psql SQL: run SQL in the test database (or in $PG_DB)
	psql -q -X -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U suql -d "${PG_DB:-$PG_DBNAME}" "$@"
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
