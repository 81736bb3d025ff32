#!/bin/sh
# The PostgreSQL backend's overhead against SQLite on the demo queries (bench/pg-queries.sql):
# each statement runs on the SQLite demo and on the same rows in a PostgreSQL server of the
# bench's own (tests/pg.sh, Unix socket), with the offline backend and no cache, so that
# the time is suql's and the database's, not a model's. Per statement: the model calls on
# each backend (they must agree: tests/engine/cases/equiv.case checks it), and the mean
# wall time of SUQL_BENCH_PG_RUNS runs (default 5) of a whole `suql -c` process on each,
# start-up and connection included. Skipped when no server can be started.
set -u
. tests/pg.sh
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
SUQL_PROG=$P
T=${SUQL_TMP:-/tmp}/pgbench
RUNS=${SUQL_BENCH_PG_RUNS:-5}
mkdir -p "$T"
pg_start || { echo "skipped: $PG_SKIP"; exit 0; }
sh tests/demo-db.sh "$T/demo.db" || exit 1
pg_load_demo "$T/demo.db" || { echo "the demo did not load into PostgreSQL"; exit 1; }
now() { date +%s.%N; }
run() {   # run DB SQL: mean seconds of RUNS runs; calls of the last in $T/calls
	t0=$(now)
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$P" -v --offline --no-cache --set times=off --set budget=0 "$1" -c "$2" >/dev/null 2>"$T/out" ||
			{ echo "failed: $2" >&2; head -3 "$T/out" >&2; }
		i=$((i + 1))
	done
	t1=$(now)
	sed -n 's/^ *llm calls: \([0-9]*\).*/\1/p' "$T/out" | head -1 >"$T/calls"
	awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN { printf "%.1f", (b - a) / n * 1000 }'
}
printf '%-3s %-62s %6s %6s %9s %9s %8s\n' "#" "statement" "calls" "calls" "SQLite" "Postgres" "overhead"
printf '%-3s %-62s %6s %6s %9s %9s %8s\n' "" "" "SQLite" "PG" "ms" "ms" "ms"
k=0 sum_s=0 sum_p=0
grep -v '^#' bench/pg-queries.sql | grep -v '^$' >"$T/q"
while IFS= read -r sql; do
	k=$((k + 1))
	ms_s=$(run "$T/demo.db" "$sql"); c_s=$(cat "$T/calls")
	ms_p=$(run "$SUQL_PG" "$sql"); c_p=$(cat "$T/calls")
	printf '%-3s %-62s %6s %6s %9s %9s %8s\n' "$k" "$(printf '%s' "$sql" | cut -c1-62)" \
		"${c_s:--}" "${c_p:--}" "$ms_s" "$ms_p" "$(awk -v a="$ms_s" -v b="$ms_p" 'BEGIN { printf "%+.1f", b - a }')"
	sum_s=$(awk -v a="$sum_s" -v b="$ms_s" 'BEGIN { print a + b }')
	sum_p=$(awk -v a="$sum_p" -v b="$ms_p" 'BEGIN { print a + b }')
done <"$T/q"
awk -v a="$sum_s" -v b="$sum_p" -v k="$k" 'BEGIN { printf "mean of %d statements: SQLite %.1f ms, PostgreSQL %.1f ms, overhead %+.1f ms a statement (a whole process: start, connect, run)\n", k, a / k, b / k, (b - a) / k }'
pg_stop
