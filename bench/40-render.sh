#!/bin/sh
# Output speed: how fast suql writes a 200,000-row result (an integer, a real, a short and a
# longer text, a NULL every seventh row) in each output mode, to /dev/null, and how much
# memory it holds at its peak. CSV, JSON and line stream their rows; with -v too, since
# counters come only for statements with free text, and rows wait behind them only when
# they share a stream (the sections go to stderr when stdout is not a terminal): the -v
# runs show that -v costs nothing here.
set -u
prog=${SUQL_PROG:-suql}
case $prog in /*) ;; *) prog=./$prog ;; esac
rows=${BENCH_ROWS:-200000}
q="WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $rows)
SELECT i, i * 0.5 AS half, 'name ' || i AS name,
       CASE WHEN i % 7 = 0 THEN NULL ELSE printf('%.*c', 40 + i % 30, 'x') END AS text
  FROM c;"
ms() { date +%s%N | cut -c1-13; }
printf '%-22s %10s %12s %10s\n' mode ms rows/s peak-KiB
for m in table box csv json line csv:-v json:-v; do
	mode=${m%%:*}
	extra=""
	case $m in *:-v) extra=-v ;; esac
	t0=$(ms)
	peak=$( { /usr/bin/time -f '%M' "$prog" --mode "$mode" $extra -c "$q" >/dev/null; } 2>&1 |
		tail -n 1)
	case $peak in *[!0-9]*|"") echo "$mode: suql failed: $peak"; exit 1 ;; esac
	t1=$(ms)
	d=$((t1 - t0))
	[ "$d" -gt 0 ] || d=1
	printf '%-22s %10d %12d %10s\n' "$mode $extra" "$d" $((rows * 1000 / d)) "$peak"
done
