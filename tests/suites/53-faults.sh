#!/bin/sh
# The fault matrix: each case of tests/llm/faults.cases runs one statement against
# build/llmserver misbehaving as the case says, on a database of its own, and checks
#   - the rows, the exit status and the messages (a warning or an error);
#   - suql's count of requests ("requests: N sent") against the server's log, and the
#     number the case expects (and other counters, where the case says);
#   - that nothing from a bad reply was cached or stored: the statement run again with the
#     same cache against a good model returns what a fresh run returns;
#   - that the database is unchanged (the table, and the ENUM mappings the case expects).
OK_PREFIX="faults: "
. "$(dirname "$0")/../lib.sh"
set -u
B=$SUQL_BUILD
T=$SUQL_TMP/faults
mkdir -p "$T"

SPID=""
start_server() {   # start_server RULES-FILE [more llmserver options]: sets URL, LOG
	rm -f "$T/port" "$T/server.log"
	"$B/llmserver" --port-file "$T/port" --log "$T/server.log" --yes-rate 1 --rules "$@" \
		2>"$T/server.err" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	URL="http://127.0.0.1:$(cat "$T/port")/v1"
}
stop_server() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }
trap 'stop_server' EXIT
nlog() { if [ -f "$T/server.log" ]; then wc -l <"$T/server.log" | tr -d ' '; else echo 0; fi; }

# the database every case starts from
"$SUQL_PROG" --bail "$T/base.db" >/dev/null <<'SQL'
CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT,
                price ENUM('cheap', 'moderate', 'expensive'));
INSERT INTO t VALUES (1, 'Quiet and calm; we waited 10 minutes for a table.', 'cheap'),
                     (2, 'Loud music every night, but no wait at all.', 'moderate'),
                     (3, 'A peaceful patio; we waited 25 minutes.', 'cheap');
SQL
echo '[]' >"$T/good.json"

statement() {
	case $1 in
	verify) echo "SELECT id FROM t WHERE answer(review, 'is it quiet?') = 'Yes' ORDER BY id;" ;;
	typed) echo "SELECT id, answer(review, 'how many minutes did they wait?')::int FROM t ORDER BY id;" ;;
	enum) echo "SELECT id FROM t WHERE price = 'cheapest' ORDER BY id;" ;;
	choice) echo "SELECT id, answer(review, 'how long was the wait?', ARRAY['short', 'long']) FROM t ORDER BY id;" ;;
	esac
}

# run DB CACHE SQL [options]: suql with counters, rows in $T/rows, counters in $T/counters,
# the rest of stderr in $T/err
run() {
	db=$1 cache=$2 sql=$3
	shift 3
	XDG_CACHE_HOME=$cache "$SUQL_PROG" --csv --no-headers --set stats=on --set times=off \
		--concurrency 1 --set llm.retries=2 --set llm.backoff=10ms \
		--llm-url "$URL" --model m "$@" "$db" -c "$sql" >"$T/out" 2>"$T/all"
	st=$?
	r=$(paste -sd ';' - <"$T/out")
	echo "${r:--}" >"$T/rows"
	# in a script the counters go to stderr, as a section of indented lines
	sed -n '/^counters:$/,/^[^ ]/{/^counters:$/p;/^  /p}' "$T/all" >"$T/counters"
	sed '/^counters:$/,/^[^ ]/{/^counters:$/d;/^  /d}' "$T/all" >"$T/err"
	return $st
}
snapshot() {   # the user's table and the ENUM mappings
	sqlite3 "$1" "SELECT * FROM t ORDER BY id" 2>&1
	sqlite3 "$1" "SELECT count(*) FROM sqlite_schema WHERE name = 'suql_enum_map'" | grep -q 1 &&
		sqlite3 "$1" "SELECT tbl, col, literal, vals, model FROM suql_enum_map ORDER BY 1, 2, 3, 5"
}

check_case() {
	name=$1
	[ -n "$name" ] || return 0
	c=$T/case
	rm -rf "$c"
	mkdir -p "$c"
	cp "$T/base.db" "$c/db"
	# the rules, with {{1MB}} made into a megabyte of text
	case $f_rules in
	*'{{1MB}}'*)
		{ printf '%s' "${f_rules%%\{\{1MB\}\}*}"; head -c 1048576 /dev/zero | tr '\0' y
		  printf '%s\n' "${f_rules#*\{\{1MB\}\}}"; } >"$c/rules.json" ;;
	*) printf '%s\n' "$f_rules" >"$c/rules.json" ;;
	esac
	sql=$(statement "$f_sql")
	start_server "$c/rules.json"
	# shellcheck disable=SC2086
	run "$c/db" "$c/cache" "$sql" $f_args
	status=$?
	stop_server
	cp "$T/err" "$c/err"
	cp "$T/counters" "$c/counters"
	sent=$(nlog)
	counted=$(sed -n 's/^  requests: \([0-9]*\) sent.*/\1/p' "$T/counters")
	rows=$(cat "$T/rows")
	bad=""
	[ "$rows" = "$f_rows" ] || bad="$bad|rows: got '$rows', want '$f_rows'"
	[ "$status" = "$f_status" ] || bad="$bad|status: got $status, want $f_status"
	[ "$sent" = "$f_requests" ] || bad="$bad|the server received $sent requests, want $f_requests"
	[ "$counted" = "$sent" ] || bad="$bad|suql counted '$counted' requests, the server $sent"
	[ -z "$f_counters" ] || grep -qF -- "$f_counters" "$c/counters" || bad="$bad|the counters lack: $f_counters"
	if [ -n "$f_stderr" ]; then
		grep -qF -- "$f_stderr" "$c/err" || bad="$bad|stderr lacks: $f_stderr"
	else
		[ -s "$c/err" ] && bad="$bad|stderr is not empty"
	fi
	# the database: the table as it was; ENUM mappings only where the case expects them
	snapshot "$T/base.db" >"$c/before"
	snapshot "$c/db" >"$c/after"
	[ "$(sqlite3 "$c/db" "SELECT * FROM t ORDER BY id")" = "$(sqlite3 "$T/base.db" "SELECT * FROM t ORDER BY id")" ] ||
		bad="$bad|the table changed"
	stored=$(sqlite3 "$c/db" "SELECT count(*) FROM suql_enum_map" 2>/dev/null || echo 0)
	[ "$stored" = "${f_stored:-0}" ] || bad="$bad|ENUM mappings stored: $stored, want ${f_stored:-0}"
	# nothing from a bad reply remembered: again with the same cache and database, against a
	# good model, the rows are a fresh run's (or what the case says)
	start_server "$T/good.json"
	run "$c/db" "$c/cache" "$sql" >/dev/null
	again=$(cat "$T/rows")
	cp "$T/base.db" "$c/fresh.db"
	run "$c/fresh.db" "$c/fresh-cache" "$sql" >/dev/null
	fresh=$(cat "$T/rows")
	stop_server
	want=${f_again:-$fresh}
	[ "$again" = "$want" ] || bad="$bad|run again against a good model: '$again', want '$want' (something bad was remembered)"
	if [ -z "$bad" ]; then
		ok "$name: $f_requests request$([ "$f_requests" = 1 ] || echo s), as counted; status $status"
	else
		# shellcheck disable=SC2046
		IFS='|'
		set -f
		notok "$name" $bad "stderr: $(cat "$c/err")" "counters: $(cat "$c/counters")"
		set +f
		unset IFS
	fi
}

name=""
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*|'') continue ;;
	'== '*)
		check_case "$name"
		name=${line#== }
		f_rules="" f_sql="" f_args="" f_rows="" f_status="" f_stderr="" f_requests=""
		f_stored="" f_again="" f_counters="" ;;
	rules:*) f_rules=${line#rules: } ;;
	sql:*) f_sql=${line#sql: } ;;
	args:*) f_args=${line#args: } ;;
	rows:*) f_rows=${line#rows: } ;;
	status:*) f_status=${line#status: } ;;
	stderr:*) f_stderr=${line#stderr: } ;;
	requests:*) f_requests=${line#requests: } ;;
	stored:*) f_stored=${line#stored: } ;;
	again:*) f_again=${line#again: } ;;
	counters:*) f_counters=${line#counters: } ;;
	*) echo "not ok faults: tests/llm/faults.cases: cannot read: $line" ;;
	esac
done <tests/llm/faults.cases
check_case "$name"
