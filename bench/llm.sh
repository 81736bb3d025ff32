#!/bin/sh
# LLM client throughput: calls per second through build/llmcall against build/llmserver
# answering every request after 200 ms, at concurrency 1, 8 and 32. With 200 ms per
# request the ceiling is concurrency x 5 calls per second; the figure shows how close the
# client's multi-handle loop gets. Each run sends distinct calls (-n), with the cache off.
set -u
B=${SUQL_BUILD:-build}
T=${SUQL_TMP:-/tmp}/llmbench
mkdir -p "$T"
rm -f "$T/port"
"$B/llmserver" --port-file "$T/port" --delay 200 &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null' EXIT
i=0
while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
url="http://127.0.0.1:$(cat "$T/port")/v1"

now() { date +%s.%N; }
printf '%-12s %8s %10s %12s %10s\n' concurrency calls seconds calls/second ceiling
for c in 1 8 32; do
	n=$((c * 10))   # about 2 seconds at the ceiling
	t0=$(now)
	"$B/llmcall" --url "$url" --model bench --no-cache --concurrency $c -n $n --quiet \
		verify -q 'Is it quiet?' -e Yes -p 'A calm little room.' >/dev/null 2>"$T/err" ||
		{ echo "llmcall failed:"; cat "$T/err"; exit 1; }
	t1=$(now)
	awk -v c=$c -v n=$n -v a="$t0" -v b="$t1" \
		'BEGIN { s = b - a; printf "%-12d %8d %10.2f %12.1f %10d\n", c, n, s, n / s, c * 5 }'
done
# the same calls again, now from the cache file
t0=$(now)
"$B/llmcall" --url "$url" --model bench --cache "$T/cache.db" --concurrency 32 -n 320 --quiet \
	verify -q 'Is it quiet?' -e Yes -p 'A calm little room.' >/dev/null 2>&1
t1=$(now)
"$B/llmcall" --url "$url" --model bench --cache "$T/cache.db" --concurrency 32 -n 320 --quiet \
	--stats verify -q 'Is it quiet?' -e Yes -p 'A calm little room.' >"$T/cached" 2>&1
t2=$(now)
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "cached: 320 calls answered from the cache file in %.3f s\n", b - a }'
grep '^session:' "$T/cached"
