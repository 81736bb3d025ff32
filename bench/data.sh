#!/bin/sh
# Data benchmark: for 10k, 100k and 1M synthetic restaurants (build/gen, seed 1), the time
# to generate, import and index them, and the latency of ranking the top 20 rows
# (build/retbench) for one question and for two, over all rows and over 100 candidates.
# SUQL_BENCH_SIZES overrides the sizes ("10000 100000"). Needs about 4 GB of disk in
# $TMPDIR for the 1M database.
set -u
: "${SUQL_BUILD:=build}"
sizes=${SUQL_BENCH_SIZES:-"10000 100000 1000000"}
dir=$(mktemp -d "${TMPDIR:-/tmp}/suql-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
q1="reviews:is this restaurant romantic?"
q2="reviews:is it good for kids?"
echo "machine: $(nproc) cores, $(uname -sr); times are wall clock"
for n in $sizes; do
	db="$dir/r$n.db"
	echo "== $n restaurants"
	if ! "$SUQL_BUILD/gen" -n "$n" --seed 1 --db "$db" 2>"$dir/log"; then
		cat "$dir/log"
		exit 1
	fi
	sed 's/^gen: /  /' "$dir/log"
	awk '/ in [0-9.]+ s/ { for (i = 1; i < NF; i++) if ($i == "in") t += $(i + 1) }
	     END { printf "  total: %.1f s\n", t }' "$dir/log"
	echo "  database: $(( $(wc -c < "$db") / 1000000 )) MB"
	printf '  '; "$SUQL_BUILD/retbench" "$db" restaurants "$q1"
	printf '  '; "$SUQL_BUILD/retbench" "$db" restaurants "$q1" "$q2"
	printf '  '; "$SUQL_BUILD/retbench" "$db" restaurants --candidates 100 "$q1"
	printf '  '; "$SUQL_BUILD/retbench" "$db" restaurants --candidates 100 "$q1" "$q2"
	rm -f "$db"
done
