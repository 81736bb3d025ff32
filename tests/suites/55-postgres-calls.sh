#!/bin/sh
# Suite 52's statements on PostgreSQL, where a case file cannot say it: the statements,
# rows and calls of suite 52 run on both backends as the cases of tests/engine/cases/
# (calls.case, server.case; suite 58 runs them, and each that PostgreSQL does not run yet
# names its refusal there). Here: Ctrl-C while calls are in flight on PostgreSQL stops the
# statement, the rest not asked. Skipped, saying why, when no server can be started.
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
T=$SUQL_TMP/pgcalls
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres calls: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi

demo=$T/demo.db
sh tests/demo-db.sh "$demo"
if ! pg_load_demo "$demo"; then
	notok "pg calls: the database loads into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi

# Ctrl-C while calls are in flight: the statement stops, the rest is not asked
start_server slow --delay 2000
"$SUQL_PROG" --no-cache --llm-url "$URL" --model m --concurrency 2 --set batch=1 "$SUQL_PG" \
	-c "SELECT id FROM restaurants WHERE NOT (answer(reviews, 'is it quiet?') = 'Yes');" >"$T/out" 2>"$T/err" &
qpid=$!
i=0
while [ ! -s "$LOG" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $qpid
wait $qpid
st=$?
k=$(wc -l <"$LOG")
if [ $st -eq 130 ] && grep -q "interrupted" "$T/err" && [ "$k" -le 2 ]; then
	ok "pg calls: interrupt: Ctrl-C during a call stops the statement ($k requests of 112)"
else
	notok "pg calls: interrupt: Ctrl-C during a call stops the statement" "status $st, $k requests" "$(cat "$T/err")"
fi
stop_server
pg_stop
