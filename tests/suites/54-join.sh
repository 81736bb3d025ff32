#!/bin/sh
# Semantic joins, matches(left, right, 'question'), where a case file cannot say it: under
# a LIMIT without ORDER BY the join asks left values in waves and stops once the LIMIT has
# its rows, any of the rows pairwise judging gives. Against build/llmserver judging by a
# hash of the pair. The rewrite against pairwise judging, pruning, filters reaching the
# sides, the cache and unreadable replies are cases in tests/engine/cases/join.case (suite
# 58 runs them on SQLite and PostgreSQL).
OK_PREFIX="join: "
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/join
mkdir -p "$T"

SPID=""
start() {   # start NAME RULES [llmserver options]: sets URL, LOG
	name=$1
	shift
	stop
	mkdir -p "$T/srv-$name"
	LOG=$T/srv-$name/log
	llmserver_start "$T/srv-$name" "$@"
}
stop() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }
trap 'stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

# q SQL [options]: rows (CSV, one line, ';' between rows) in $T/rows, everything else in
# $T/err; status in $st
q() {
	sql=$1
	shift
	XDG_CACHE_HOME=$T/xdg "$prog" --csv --no-headers -v --set times=off --set budget=0 \
		--llm-url "$URL" --model m "$@" "$T/db" -c "$sql" >"$T/out" 2>"$T/err"
	st=$?
	r=$(paste -sd ';' - <"$T/out")
	echo "${r:--}" >"$T/rows"
}
num() {   # num LABEL: the first number after "LABEL: " in the counters
	sed -n "s/^  $1: \([0-9][0-9]*\).*/\1/p" "$T/err" | head -1
}

# 12 firms (one named twice), 30 brands
"$prog" --bail "$T/db" <"$SUQL_TOP/tests/engine/firms.sql" >/dev/null
echo '[]' >"$T/none.json"
J="SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') ORDER BY f.id, b.id;"

# verdicts by a hash of the pair (about 40% match)
start hash "$T/none.json" --yes-rate 0.4
q "$J" --no-cache --set optimize=off
hpw=$(cat "$T/rows")
# under a LIMIT without ORDER BY the join asks left values in waves and stops once the
# LIMIT has its rows: any 4 of the pairwise rows, fewer calls than all 11 left values
q "SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') LIMIT 4;" --no-cache --concurrency 2
lz_calls=$(num "llm calls")
bad=$(tr ';' '\n' <"$T/rows" | while IFS= read -r r; do printf '%s\n' "$hpw" | tr ';' '\n' | grep -qxF -- "$r" || echo "$r"; done)
check "lazy join: 4 rows, each one pairwise judging passes" "$(tr ';' '\n' <"$T/rows" | wc -l | tr -d ' ')/$bad" "4/"
if [ -n "$lz_calls" ] && [ "$lz_calls" -lt 11 ]; then ok "lazy join: fewer calls than every left value ($lz_calls of 11)"; else notok "lazy join: fewer calls than every left value" "$lz_calls" "$(cat "$T/err")"; fi
grep -q "walk: lazy, stops once 4 rows passed (LIMIT)" "$T/err" && grep -q "join 1: .*; stopped after [0-9]* of 11 left values, the LIMIT's rows found" "$T/err" &&
	ok "lazy join: the plan and the counters say so" || notok "lazy join: the plan and the counters say so" "$(grep -A8 'join 1' "$T/err")"
stop
