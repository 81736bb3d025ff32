#!/bin/sh
# The free-text executor at scale: the workload bench/engine-queries.sql over 1k, 10k and
# 100k generated restaurants (build/gen --db), against build/llmserver in auto mode, in
# three modes: optimized (the default), naive (:set optimize off: per-row functions inside
# SQLite) and the per-passage baseline (:set optimize passage: the top 20 x LIMIT passages
# of the candidates, one call per passage and question; LIMIT statements only).
#
# Calls and tokens of every run are counted against a server that answers at once (it
# decides exactly as the slow one: from a hash of each candidate's text). Wall time is
# measured against a server that answers after SUQL_BENCH_DELAY ms (default 20), except
# where a run would take too long: naive mode is measured at the smallest size only, and
# elsewhere given as calls x delay (it makes one call at a time); passage runs of more than
# SUQL_BENCH_CAP calls are given as calls x delay / concurrency. Estimates are marked "~".
#   SUQL_BENCH_SIZES="1000 10000 100000"   SUQL_BENCH_DELAY=20   SUQL_BENCH_CAP=4000
#   SUQL_BENCH_MODES="on off passage"      SUQL_BENCH_BATCH= (empty: the engine's default)
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/enginebench
mkdir -p "$T"
SIZES=${SUQL_BENCH_SIZES:-"1000 10000 100000"}
DELAY=${SUQL_BENCH_DELAY:-20}
CAP=${SUQL_BENCH_CAP:-4000}
MODES=${SUQL_BENCH_MODES:-"on off passage"}
BATCH=${SUQL_BENCH_BATCH:-}
CONC=8

start() {   # start NAME DELAY: prints the URL
	rm -f "$T/$1.port"
	"$B/llmserver" --port-file "$T/$1.port" --delay "$2" >"$T/$1.log" 2>"$T/$1.err" &
	echo $! >"$T/$1.pid"
	i=0
	while [ ! -s "$T/$1.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	echo "http://127.0.0.1:$(cat "$T/$1.port")/v1"
}
fast=$(start fast 0)
slow=$(start slow "$DELAY")
trap 'kill $(cat "$T/fast.pid" "$T/slow.pid") 2>/dev/null' EXIT

now() { date +%s.%N; }
# run URL DB MODE SQL: counters (on stderr, as stdout is not a terminal) into $T/out; prints
# the seconds it took
run() {
	t0=$(now)
	"$P" -v --set times=off --set budget=0 --no-cache --concurrency $CONC --llm-url "$1" \
		--model bench ${BATCH:+--set "batch=$BATCH"} --set "optimize=$3" "$2" -c "$4" >/dev/null 2>"$T/out" ||
		{ echo "failed: $4" >&2; cat "$T/out" >&2; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
field() { sed -n "s/^  $1: \([0-9][0-9]*\).*/\1/p" "$T/out" | head -1; }
tokens() { sed -n 's/^  tokens: \([0-9]*\) in, \([0-9]*\) out/\1 \2/p' "$T/out"; }

grep -v '^#' bench/engine-queries.sql | grep -v '^$' >"$T/queries"
nq=$(wc -l <"$T/queries")
small=$(echo $SIZES | cut -d' ' -f1)
: >"$T/rows"
for n in $SIZES; do
	db=$T/gen$n.db
	[ -f "$db" ] || "$B/gen" -n "$n" --db "$db" --quiet || exit 1
	i=0
	while IFS= read -r sql; do
		i=$((i + 1))
		lim=0
		case $sql in *" LIMIT "*) lim=1 ;; esac
		for mode in $MODES; do
			[ $mode = passage ] && [ $lim -eq 0 ] && continue
			run "$fast" "$db" "$mode" "$sql" >/dev/null
			calls=$(field "llm calls"); calls=${calls:-0}
			set -- $(tokens); tin=${1:-0}; tout=${2:-0}
			if [ $mode = off ] && [ "$n" != "$small" ]; then
				wall="~$(awk -v c="$calls" -v d="$DELAY" 'BEGIN { printf "%.3f", c * d / 1000 }')"
			elif [ $mode != on ] && [ "$calls" -gt "$CAP" ]; then
				wall="~$(awk -v c="$calls" -v d="$DELAY" -v k=$CONC -v m=$mode \
					'BEGIN { printf "%.3f", c * d / 1000 / (m == "off" ? 1 : k) }')"
			else
				wall=$(run "$slow" "$db" "$mode" "$sql")
			fi
			echo "$n $i $lim $mode $calls $tin $tout $wall" >>"$T/rows"
		done
	done <"$T/queries"
done

echo "workload: $nq statements (bench/engine-queries.sql); llmserver answers after $DELAY ms;"
echo "concurrency $CONC, batch ${BATCH:-default}; ~ marks a time computed from the calls"
echo
echo "all statements, optimized against naive:"
printf '%-8s %-9s %9s %12s %10s %9s\n' rows mode calls "tokens in" "wall s" "calls x"
ran() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }
for n in $SIZES; do
	for mode in on off; do
		ran $mode || continue
		awk -v n=$n -v m=$mode '$1 == n && $4 == m {
			c += $5; t += $6; w = $8; if (w ~ /^~/) { est = 1; sub(/^~/, "", w) } s += w }
			END { printf "%-8s %-9s %9d %12d %9s%.1f", n, (m == "on" ? "optimized" : "naive"), c, t,
			      (est ? "~" : " "), s }' "$T/rows"
		if [ $mode = off ] && ran on; then
			awk -v n=$n '$1 == n && $4 == "on" { a += $5 } $1 == n && $4 == "off" { b += $5 }
				END { printf " %8.1f\n", (a ? b / a : 0) }' "$T/rows"
		else
			echo
		fi
	done
done
echo
echo "LIMIT statements only, optimized against the per-passage baseline and naive:"
printf '%-8s %-9s %9s %12s %10s\n' rows mode calls "tokens in" "wall s"
for n in $SIZES; do
	for mode in on passage off; do
		ran $mode || continue
		awk -v n=$n -v m=$mode '$1 == n && $4 == m && $3 == 1 {
			c += $5; t += $6; w = $8; if (w ~ /^~/) { est = 1; sub(/^~/, "", w) } s += w }
			END {
				name = "passage"
				if (m == "on") name = "optimized"
				if (m == "off") name = "naive"
				printf "%-8s %-9s %9d %12d %9s%.1f\n", n, name, c, t, (est ? "~" : " "), s
			}' "$T/rows"
	done
done
echo
echo "calls per statement (optimized / naive / passage), by size:"
awk -v sizes="$SIZES" -v modes=" $MODES " '{ k = $2; v[k, $1, $4] = $5; lim[k] = $3; if (k > nk) nk = k }
	function shown(x, m, ok) { return (ok && index(modes, " " m " ")) ? x + 0 : "-" }
	END {
		ns = split(sizes, sz, " ")
		for (k = 1; k <= nk; k++) {
			printf "%2d %s", k, (lim[k] ? "LIMIT" : "     ")
			for (i = 1; i <= ns; i++)
				printf "  %7s: %6s / %6s / %6s", sz[i], shown(v[k, sz[i], "on"], "on", 1),
				       shown(v[k, sz[i], "off"], "off", 1),
				       shown(v[k, sz[i], "passage"], "passage", lim[k])
			printf "\n"
		}
	}' "$T/rows"
