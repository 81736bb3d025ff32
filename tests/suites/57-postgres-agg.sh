#!/bin/sh
# extract() and the aggregates over free text (answer_agg(), summary_agg()) on both
# backends: each statement runs on its SQLite database and on the same rows in a
# PostgreSQL server of the suite's own (tests/pg.sh), against build/llmserver, and must
# give the same rows and the same number of requests at the server (counted, never
# timed). The statements are suite 57-extract-agg's (with its rules files) and the
# README's over the demo (the server's auto mode answers the aggregates; the offline
# backend answers extract() there, its calls read from the counters). An unreadable reply
# is NULL with a warning and is not cached, on PostgreSQL as on SQLite.
# Skipped, saying why, when no server can be started.
set -u
. "$(dirname "$0")/../lib.sh"
. tests/pg.sh
T=$SUQL_TMP/pgagg
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres agg: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi
ok() { echo "ok $1"; }
notok() { echo "not ok $1"; shift; for l in "$@"; do printf '%s\n' "$l" | cut -c1-600 | sed 's/^/# /'; done; }

demo=$T/demo.db
sh tests/demo-db.sh "$demo"
adb=$T/a.db
xdb=$T/x.db
"$prog" --bail "$adb" >/dev/null <tests/agg/cities.sql
"$prog" --bail "$xdb" >/dev/null <tests/agg/extract.sql
if ! pg_load_demo "$demo" || ! pg_load_demo "$adb" || ! pg_load_demo "$xdb"; then
	notok "pg agg: the databases load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi

SPID=""
trap 'stop_server; pg_stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
stop_server() { [ -n "$SPID" ] && { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }; SPID=""; }
server() {   # server [RULES]: (re)start build/llmserver, with a rules file or in auto mode
	stop_server
	rm -f "$T/log"
	if [ $# -gt 0 ]; then
		llmserver_start "$T" "$1"
	else
		rm -f "$T/port"
		"$SUQL_BUILD/llmserver" --port-file "$T/port" --log "$T/log" 2>"$T/server.err" &
		SPID=$!
		i=0
		while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
		URL="http://127.0.0.1:$(cat "$T/port")/v1"
	fi
}
calls() { sed -n 's/^ *llm calls: \([0-9]*\).*/\1/p' "$1" | head -1; }

# run DB SQL [options...]: rows as CSV in $T/rows, -v output in $T/err, exit status in $st,
# requests the server received in $req (or, --offline, the calls the counters show)
run() {
	db=$1 sql=$2
	shift 2
	before=$(lines)
	case " $* " in
	*" --offline "*) "$prog" -v --set times=off --csv --no-headers "$@" "$db" -c "$sql" >"$T/rows" 2>"$T/err" ;;
	*) "$prog" -v --set times=off --csv --no-headers --llm-url "$URL" --model m "$@" "$db" -c "$sql" >"$T/rows" 2>"$T/err" ;;
	esac
	st=$?
	case " $* " in
	*" --offline "*) req=$(calls "$T/err") ;;
	*) req=$(($(lines) - before)) ;;
	esac
}
n=0 same=0
# both NAME DB SQL [options...]: on DB and on PostgreSQL, the same rows, status, requests
# and error or warning lines; WANT_ROWS/WANT_REQ, when set, are checked too
both() {
	name=$1 db=$2 sql=$3
	shift 3
	n=$((n + 1))
	run "$db" "$sql" "$@"
	cp "$T/rows" "$T/r_s"; st_s=$st; req_s=$req
	grep -E '^(error|warning)' "$T/err" >"$T/e_s"
	run "$SUQL_PG" "$sql" "$@"
	grep -E '^(error|warning)' "$T/err" >"$T/e_p"
	rows=$(paste -sd ';' - <"$T/rows")
	if ! cmp -s "$T/r_s" "$T/rows" || [ "$st_s" != "$st" ] || [ "$req_s" != "$req" ] ||
	   ! cmp -s "$T/e_s" "$T/e_p"; then
		notok "pg agg: $name" "status $st_s / $st, requests $req_s / $req" \
			"$(diff "$T/r_s" "$T/rows" | head -6)" "$(diff "$T/e_s" "$T/e_p" | head -4)" "$(grep -m3 -E '^(error|warning)' "$T/err")"
	elif [ -n "${WANT_ROWS:-}" ] && [ "$rows" != "$WANT_ROWS" ]; then
		notok "pg agg: $name: the rows" "got:  $rows" "want: $WANT_ROWS"
	elif [ -n "${WANT_REQ:-}" ] && [ "$req" != "$WANT_REQ" ]; then
		notok "pg agg: $name: the requests" "got:  $req" "want: $WANT_REQ"
	else
		same=$((same + 1))
		ok "pg agg: $name: same rows, $req request(s) on both"
	fi
	WANT_ROWS="" WANT_REQ=""
}

# ---- answer_agg(), summary_agg() (suite 57's cities and rules)
server tests/agg/agg.json
Q="answer_agg(review, 'is parking easy or hard?', ARRAY['easy', 'hard', 'mixed'])"
WANT_ROWS="Alto,easy;Bay,hard;Cove,mixed" WANT_REQ=1 \
	both "agg: one value per group, small groups share 1 request" "$adb" \
	"SELECT city, $Q FROM r WHERE city <> 'Dale' GROUP BY city ORDER BY city;" --no-cache
grep -qF "postgresql, the values suql evaluates bound as parameters: SELECT city, (\$1::jsonb ->> string_agg(" "$T/err" &&
	ok "pg agg: the plan shows the group's answer read by its texts from the bound arrays" ||
	notok "pg agg: the plan shows the look-up" "$(grep postgresql "$T/err")"
grep -qF "3 small groups (one request's worth each): 1 request" "$T/err" &&
	ok "pg agg: the plan announces the groups, as on SQLite" || notok "pg agg: the plan announces the groups" "$(cat "$T/err")"
WANT_ROWS="Cove;Bay" WANT_REQ=1 \
	both "agg: HAVING and ORDER BY" "$adb" \
	"SELECT city FROM r WHERE city <> 'Dale' GROUP BY city HAVING $Q <> 'easy' ORDER BY $Q DESC;" --no-cache
WANT_ROWS="hard" both "agg: over a whole (filtered) table" "$adb" "SELECT $Q FROM r WHERE city = 'Bay';" --no-cache
WANT_ROWS="mixed" both "agg: over a subquery" "$adb" "SELECT $Q FROM (SELECT review FROM r WHERE city = 'Cove') AS s;" --no-cache
WANT_ROWS="Alto,Alto lots.;Bay,Bay street only.;Cove,Cove garage." \
	both "agg: summary_agg, one summary per group" "$adb" \
	"SELECT city, summary_agg(review) FROM r WHERE city <> 'Dale' GROUP BY city ORDER BY city;" --no-cache
WANT_ROWS="Bay,hard;Dale,hard" WANT_REQ=7 \
	both "agg: a large group reduced (chunks, partial answers, one answer over them)" "$adb" \
	"SELECT city, $Q FROM r WHERE city IN ('Bay', 'Dale') GROUP BY city ORDER BY city;" --no-cache --set batch_tokens=64
grep -qF "sent 1 request for small groups, 3 chunk calls, 2 middle and 1 final reduce call" "$T/err" &&
	ok "pg agg: ... the counters say what was sent, as on SQLite" || notok "pg agg: the reduce counters" "$(cat "$T/err")"
WANT_REQ=0 both "agg: over the budget: refused before any call" "$adb" \
	"SELECT city, $Q FROM r WHERE city IN ('Bay', 'Dale') GROUP BY city;" --no-cache --set batch_tokens=64 --set budget=4
# an unreadable reply: asked again, then NULL with a warning, and never cached
NQ="SELECT city, answer_agg(review, 'how is the noise?', ARRAY['quiet', 'loud']) FROM r WHERE city = 'Alto' GROUP BY city;"
WANT_ROWS="Alto," WANT_REQ=2 \
	both "agg: an unreadable reply: NULL after asking again" "$adb" "$NQ" --no-cache --set llm.unreadable=warn
for db in "$adb" "$SUQL_PG"; do
	k=$(printf '%s' "$db" | cksum | cut -d' ' -f1)
	XDG_CACHE_HOME=$T/xdg-agg-$k run "$db" "$NQ" --set llm.unreadable=warn
	XDG_CACHE_HOME=$T/xdg-agg-$k run "$db" "$NQ" --set llm.unreadable=warn
	echo "$req" >"$T/again-$k"
done
n=$((n + 1))
a=$(cat "$T/again-$(printf '%s' "$adb" | cksum | cut -d' ' -f1)")
p=$(cat "$T/again-$(printf '%s' "$SUQL_PG" | cksum | cut -d' ' -f1)")
if [ "$a" = 2 ] && [ "$p" = 2 ]; then
	same=$((same + 1)); ok "pg agg: an unreadable reply is not cached: asked again (2 requests) on both"
else
	notok "pg agg: an unreadable reply is not cached" "requests on a repeat: SQLite $a, PostgreSQL $p"
fi

# ---- extract() (suite 57's table and rules)
server tests/agg/extract.json
spec="noise text, kids bool: welcomes children, wait int"
WANT_ROWS='1,"{""noise"":""quiet"",""kids"":true,""wait"":10}";2,"{""noise"":""loud"",""kids"":false,""wait"":20}";3,"{""noise"":null,""kids"":null,""wait"":null}";4,;5,' WANT_REQ=2 \
	both "extract: typed objects, NULL for a reply that does not fit (asked again)" "$xdb" \
	"SELECT id, extract(review, '$spec') FROM t ORDER BY id;" --no-cache --set llm.unreadable=warn
WANT_ROWS="2,20;1,10" \
	both "extract: ->> in SELECT, WHERE and ORDER BY, numbers compared as numbers" "$xdb" \
	"SELECT id, extract(review, '$spec') ->> 'wait' AS w FROM t WHERE extract(review, '$spec') ->> 'kids' = true OR extract(review, '$spec') ->> 'wait' > 15 ORDER BY extract(review, '$spec') ->> 'wait' DESC;" --no-cache --set llm.unreadable=warn
WANT_REQ=1 both "extract: LIMIT 2 asks about the 2 rows returned" "$xdb" \
	"SELECT id, extract(review, 'wait int') FROM t ORDER BY id LIMIT 2;" --no-cache
for db in "$xdb" "$SUQL_PG"; do
	k=$(printf '%s' "$db" | cksum | cut -d' ' -f1)
	XDG_CACHE_HOME=$T/xdg-x-$k run "$db" "SELECT id, extract(review, '$spec') FROM t ORDER BY id;" --set llm.unreadable=warn
	XDG_CACHE_HOME=$T/xdg-x-$k run "$db" "SELECT id, extract(review, 'noise TEXT,kids bool:welcomes children ,  wait int') FROM t ORDER BY id;" --set llm.unreadable=warn
	echo "$req" >"$T/again-$k"
done
n=$((n + 1))
a=$(cat "$T/again-$(printf '%s' "$xdb" | cksum | cut -d' ' -f1)")
p=$(cat "$T/again-$(printf '%s' "$SUQL_PG" | cksum | cut -d' ' -f1)")
if [ "$a" = 2 ] && [ "$p" = 2 ]; then
	same=$((same + 1)); ok "pg agg: extract: the same fields again: only the unreadable one is asked again (2 requests) on both"
else
	notok "pg agg: extract: the unreadable one is not cached" "requests on a repeat: SQLite $a, PostgreSQL $p"
fi

# ---- the README's statements over the demo
server
both "demo: answer_agg per location" "$demo" \
	"SELECT location, answer_agg(reviews, 'overall, is parking easy or hard here?', ARRAY['easy', 'hard', 'mixed']) AS parking FROM restaurants GROUP BY location ORDER BY location;" --no-cache
both "demo: ... reduced (batch_tokens 1000)" "$demo" \
	"SELECT location, answer_agg(reviews, 'overall, is parking easy or hard here?', ARRAY['easy', 'hard', 'mixed']) AS parking FROM restaurants WHERE location IN ('Palo Alto', 'Cupertino', 'Menlo Park') GROUP BY location ORDER BY location;" --no-cache --set batch_tokens=1000
both "demo: summary_agg(reviews, 'parking') per location" "$demo" \
	"SELECT location, summary_agg(reviews, 'parking') AS parking FROM restaurants WHERE location IN ('Menlo Park', 'Palo Alto') GROUP BY location ORDER BY location;" --no-cache
both "demo: an aggregate after a free-text WHERE (groups read after the walk)" "$demo" \
	"SELECT location, count(*), summary_agg(reviews, 'parking') FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' GROUP BY location ORDER BY location;" --no-cache
stop_server
ex="extract(reviews, 'noise text, kid_friendly bool, wait_minutes int')"
both "demo: extract ->> in SELECT under ORDER BY ... LIMIT" "$demo" \
	"SELECT name, extract(reviews, 'parking text: how parking is, kid_friendly bool, wait_minutes int') ->> 'wait_minutes' AS wait FROM restaurants WHERE location = 'Menlo Park' ORDER BY wait DESC, name LIMIT 2;" --no-cache --offline
both "demo: extract ->> in WHERE and SELECT, LIMIT" "$demo" \
	"SELECT id, name, $ex ->> 'noise' AS noise FROM restaurants WHERE $ex ->> 'wait_minutes' >= 10 AND location = 'Palo Alto' ORDER BY id LIMIT 3;" --no-cache --offline
both "demo: extract as a whole column, LIMIT (projection last)" "$demo" \
	"SELECT id, $ex FROM restaurants WHERE rating >= 4.5 ORDER BY id LIMIT 3;" --no-cache --offline

# what PostgreSQL does not run yet: refused by name (the operator table's aggregate row
# says why), nothing asked
server tests/agg/agg.json
while IFS='|' read -r what sql; do
	before=$(lines)
	out=$("$prog" --no-cache --llm-url "$URL" --model m "$SUQL_PG" -c "$sql" 2>&1)
	case $out in *"not supported on PostgreSQL yet: $what"*"(the aggregate operator); the SQLite backend runs it"*)
		[ "$(lines)" = "$before" ] && ok "pg agg: $what: refused by name, nothing asked" ||
			notok "pg agg: $what: nothing asked" "$(($(lines) - before)) requests" ;;
	*) notok "pg agg: $what refused" "$out" ;; esac
done <<'EOF_CASES'
free text evaluated row by row, which needs suql's functions called by the database: an aggregate over free text in a correlated subquery|SELECT city, (SELECT summary_agg(review) FROM r AS r2 WHERE r2.city = r.city) FROM r GROUP BY city;
EOF_CASES

# INSERT ... SELECT and CREATE TABLE ... AS with an aggregate over free text: the same rows
# written on both. PostgreSQL reads the groups first by a statement of their own and asks
# them together; SQLite meets them one by one as the statement writes (a dry run of a
# write would write), so it may take more requests, never fewer.
for b in s p; do
	[ $b = s ] && db=$adb || db=$SUQL_PG
	run "$db" "CREATE TABLE agg_ctas AS SELECT city, $Q AS parking FROM r WHERE city <> 'Dale' GROUP BY city; CREATE TABLE agg_ins (city TEXT, said TEXT); INSERT INTO agg_ins SELECT city, answer_agg(review, 'is parking easy or hard?', ARRAY['easy', 'hard', 'mixed']) FROM r WHERE city <> 'Dale' GROUP BY city;" --no-cache
	eval "req_$b=\$req st_$b=\$st"
	run "$db" "SELECT a.city, a.parking, i.said FROM agg_ctas a JOIN agg_ins i ON i.city = a.city ORDER BY a.city;"
	cp "$T/rows" "$T/w_$b"
done
rows=$(paste -sd ';' - <"$T/w_p")
if [ "$st_s$st_p" = 00 ] && [ "$rows" = "Alto,easy,easy;Bay,hard,hard;Cove,mixed,mixed" ] && cmp -s "$T/w_s" "$T/w_p" &&
   [ "$req_p" -ge 1 ] && [ "$req_p" -le "$req_s" ]; then
	ok "pg agg: INSERT ... SELECT and CREATE TABLE ... AS write SQLite's rows ($req_p requests; SQLite $req_s)"
else
	notok "pg agg: INSERT and CREATE TABLE AS with an aggregate" "status $st_s/$st_p requests $req_s/$req_p" "$(cat "$T/w_s")" "$(cat "$T/w_p")" "$(grep -m2 error "$T/err")"
fi
stop_server

ok "pg agg: $same of $n statements the same on both backends"
pg_stop
