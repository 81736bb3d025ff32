#!/bin/sh
# The semantic top-k against scoring every candidate: ORDER BY a constrained score
# (1 to 5) LIMIT 10 over the demo database and generated restaurants (build/gen --db),
# against build/llmserver in auto mode (each candidate gets one of the values offered, from
# a hash of its text: one in five gets the best value). For each size: the requests and the
# candidates scored by the top-k walk (batch 32 and batch 1) and by naive mode (:set
# optimize off: every row scored, one call per row), and whether the top scores agree.
#   SUQL_BENCH_TOPK_SIZES="1000 10000"   SUQL_BENCH_TOPK_LIMIT=10
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/topkbench
mkdir -p "$T"
SIZES=${SUQL_BENCH_TOPK_SIZES:-"1000 10000"}
K=${SUQL_BENCH_TOPK_LIMIT:-10}
rm -f "$T/port"
"$B/llmserver" --port-file "$T/port" >/dev/null 2>"$T/server.err" &
spid=$!
trap 'kill $spid 2>/dev/null' EXIT
i=0
while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
url="http://127.0.0.1:$(cat "$T/port")/v1"
sql="SELECT name, answer(reviews, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int AS romance FROM restaurants ORDER BY romance DESC LIMIT $K;"

run() {   # run DB OPTIONS...: "requests scored/candidates" and the scores in $T/scores
	db=$1
	shift
	"$P" -v --csv --no-headers --no-cache --set times=off --set budget=0 --llm-url "$url" \
		--model m "$@" "$db" -c "$sql" >"$T/out" 2>"$T/err"
	cut -d, -f2 "$T/out" | paste -sd ' ' - >"$T/scores"
	req=$(sed -n 's/^  requests: \([0-9]*\).*/\1/p' "$T/err")
	scored=$(sed -n 's/^  semantic top-k: \([0-9]*\) of \([0-9]*\).*/\1\/\2/p' "$T/err")
	echo "$req ${scored:--}"
}

printf '%-8s %-26s %-26s %-12s %s\n' rows "top-k batch 32 (req, scored)" "top-k batch 1 (req, scored)" "naive (req)" "same top scores"
dbs="demo"
for n in $SIZES; do dbs="$dbs $n"; done
for d in $dbs; do
	if [ "$d" = demo ]; then
		db=$T/demo.db
		SUQL_PROG=$P sh tests/demo-db.sh "$db" >/dev/null
	else
		db=$T/gen$d.db
		[ -f "$db" ] || "$B/gen" -n "$d" --db "$db" --quiet >/dev/null 2>&1
	fi
	rows=$(sqlite3 "$db" "SELECT count(*) FROM restaurants")
	k32=$(run "$db")
	s32=$(cat "$T/scores")
	k1=$(run "$db" --set batch=1)
	off=$(run "$db" --set optimize=off)
	soff=$(cat "$T/scores")
	same=no
	[ "$s32" = "$soff" ] && same=yes
	printf '%-8s %-26s %-26s %-12s %s\n' "$rows" "$k32" "$k1" "${off%% *}" "$same"
done
