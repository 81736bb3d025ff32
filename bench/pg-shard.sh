#!/bin/sh
# The cost of a sharded table against one server: the demo queries of bench/pg-queries.sql
# run on the demo's restaurants in one PostgreSQL server (tests/pg.sh), then on the same
# rows once restaurants is partitioned by hash of its id over two postgres_fdw foreign
# tables on two more local servers (pg_shards_start, pg_shard_table; its row identity the
# key declared in suql.table_props). Offline model, no cache: the time is suql's and the
# servers'. Per statement: the mean wall time of SUQL_BENCH_PG_RUNS runs (default 5) of a
# whole `suql -c` process on each setup, the statements suql sends to the main server
# (log_statement, per run: the same on both), and the statements the two shards receive
# from postgres_fdw (cursors, fetches, transactions); and the mean time a statement when
# the 12 run as one script in one process (the connections to the shards made once).
# Skipped when the servers cannot be started.
set -u
. tests/pg.sh
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
SUQL_PROG=$P
T=${SUQL_TMP:-/tmp}/pgshardbench
RUNS=${SUQL_BENCH_PG_RUNS:-5}
mkdir -p "$T"
pg_start || { echo "skipped: $PG_SKIP"; exit 0; }
pg_shards_start || { echo "skipped: $PG_SKIP"; exit 0; }
sh tests/demo-db.sh "$T/demo.db" || exit 1
pg_load_demo "$T/demo.db" || { echo "the demo did not load into PostgreSQL"; exit 1; }
pg_psql -q -c "ALTER DATABASE suql_test SET log_statement = 'all'"
for i in 1 2; do pg_shard_psql $i -q -c "ALTER DATABASE suql_test SET log_statement = 'all'"; done
# logged statements of a server's log (execute of the extended protocol, simple queries)
nstmt() { cat "$1/server.log" 2>/dev/null | grep -c 'LOG:  \(statement\|execute\)'; }
shards() { s=0; for d in $PG_SHARD_DIRS; do s=$((s + $(nstmt "$d"))); done; echo $s; }
now() { date +%s.%N; }
run() {   # run SQL: mean ms of RUNS runs; per run: statements to main, to the shards
	m0=$(nstmt "$PG_DIR") s0=$(shards)
	t0=$(now)
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$P" -v --offline --no-cache --set times=off --set budget=0 "$SUQL_PG" -c "$1" >/dev/null 2>"$T/out" ||
			{ echo "failed: $1" >&2; head -3 "$T/out" >&2; }
		i=$((i + 1))
	done
	t1=$(now)
	sleep 0.2   # the servers' logs written
	echo "$(( ($(nstmt "$PG_DIR") - m0) / RUNS )) $(( ($(shards) - s0) / RUNS ))" >"$T/stmts"
	awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN { printf "%.1f", (b - a) / n * 1000 }'
}
session() {   # session: mean ms a statement of the 12 run as one script (one connection)
	t0=$(now)
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$P" --offline --no-cache --set budget=0 "$SUQL_PG" <"$T/q" >/dev/null 2>&1
		i=$((i + 1))
	done
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v n="$RUNS" -v k="$(wc -l <"$T/q")" 'BEGIN { printf "%.1f", (b - a) / n / k * 1000 }'
}
grep -v '^#' bench/pg-queries.sql | grep -v '^$' >"$T/q"
k=0
while IFS= read -r sql; do
	k=$((k + 1))
	echo "$k $(run "$sql") $(cat "$T/stmts")" >>"$T/one"
done <"$T/q"
sess_one=$(session)
pg_shard_table restaurants id || { echo "restaurants was not sharded"; head -5 "$PG_DIR/shard.log"; exit 1; }
k=0
while IFS= read -r sql; do
	k=$((k + 1))
	echo "$k $(run "$sql") $(cat "$T/stmts")" >>"$T/two"
done <"$T/q"
sess_two=$(session)
printf '%-3s %-56s %8s %8s %8s %6s %6s %7s\n' "#" "statement" "one" "sharded" "extra" "sent" "sent" "shards"
printf '%-3s %-56s %8s %8s %8s %6s %6s %7s\n' "" "" "ms" "ms" "ms" "one" "shard" "receive"
k=0
while IFS= read -r sql; do
	k=$((k + 1))
	set -- $(sed -n "${k}p" "$T/one") $(sed -n "${k}p" "$T/two")
	printf '%-3s %-56s %8s %8s %8s %6s %6s %7s\n' "$k" "$(printf '%s' "$sql" | cut -c1-56)" "$2" "$6" \
		"$(awk -v a="$2" -v b="$6" 'BEGIN { printf "%+.1f", b - a }')" "$3" "$7" "$8"
done <"$T/q"
paste -d' ' "$T/one" "$T/two" | awk '{ a += $2; b += $6; m += $3; s += $8; n++ }
	END { printf "mean of %d statements: one server %.1f ms, sharded %.1f ms, extra %+.1f ms a statement (a whole process); %.1f statements sent to the main server, %.1f received by the shards a statement\n", n, a / n, b / n, (b - a) / n, m / n, s / n }'
awk -v a="$sess_one" -v b="$sess_two" 'BEGIN { printf "in one session (the 12 as one script, one connection to each server): one server %.1f ms, sharded %.1f ms, extra %+.1f ms a statement\n", a, b, b - a }'
pg_stop
