#!/bin/sh
# Semantic joins: matches(f.name, b.label, 'question') over N firms x N brands, rewritten
# (one batched request per distinct left value, BM25 keeping join_candidates (set to 32 here) right values
# per left value) against pairwise judging (naive mode: one call per pair), against
# build/llmserver answering from a list of the pairs that match (--pairs), so the rows
# pairwise judging returns are known.
#
# The data: firm i is "<word i> Holdings"; brand j is "<word k> <product>" for k one of the
# first N/2 words (each twice) and j a number of its own, and a third of the brands are "<word k> Group" as well, so
# that BM25 has shared and generic words to sort out. A firm matches a brand of its word
# unless the brand's number is a multiple of 3 (the model has to judge: the word alone is
# not enough).
#
# Pairwise judging is run at the sizes up to SUQL_BENCH_PAIRWISE_MAX pairs (default 10000)
# and otherwise counted (N x N calls: naive mode asks each distinct pair once); its rows are
# the pairs of the list in every case, which the pairwise runs confirm.
#   SUQL_BENCH_JOIN_SIZES="100 1000"
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/joinbench
mkdir -p "$T"
SIZES=${SUQL_BENCH_JOIN_SIZES:-"100 1000"}
PWMAX=${SUQL_BENCH_PAIRWISE_MAX:-10000}
Q="SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'is this brand one of the firm''s products?') ORDER BY 1, 2;"

SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null' EXIT
printf '%-11s %-9s %10s %10s %8s %10s %s\n' "size" "way" "LLM calls" "pairs" "ratio" "rows" "same rows"
for n in $SIZES; do
	db=$T/join$n.db
	rm -f "$db"
	"$P" --bail "$db" >/dev/null <<SQL
CREATE TABLE w (i INTEGER PRIMARY KEY, word TEXT);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
INSERT INTO w SELECT i, char(98 + (i * 7) % 19, 97 + (i * 3) % 5, 107 + (i * 11) % 13,
  101 + i % 4, 108 + (i / 4) % 13, 97 + (i / 52) % 21, 114 + (i / 1092) % 7) FROM k;
CREATE TABLE firms (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO firms SELECT i, word || ' Holdings' FROM w;
CREATE TABLE brands (id INTEGER PRIMARY KEY, label TEXT, owner INTEGER);
INSERT INTO brands SELECT w.i, (SELECT word FROM w AS o WHERE o.i = 1 + (w.i - 1) % max(1, $n / 2)) ||
  CASE w.i % 3 WHEN 0 THEN ' Group ' ELSE ' ' END ||
  CASE w.i % 5 WHEN 0 THEN 'Rockets' WHEN 1 THEN 'Soap' WHEN 2 THEN 'Tea' WHEN 3 THEN 'Shoes' ELSE 'Lamps' END || ' ' || w.i,
  1 + (w.i - 1) % max(1, $n / 2) FROM w;
SQL
	sqlite3 -separator '	' "$db" "SELECT f.name, b.label FROM firms f JOIN brands b ON b.owner = f.id AND b.id % 3 <> 0" >"$T/pairs$n"
	sqlite3 -separator , "$db" "SELECT f.name, b.label FROM firms f JOIN brands b ON b.owner = f.id AND b.id % 3 <> 0 ORDER BY 1, 2" >"$T/want$n"
	nl=$(sqlite3 "$db" "SELECT count(DISTINCT name) FROM firms")
	nr=$(sqlite3 "$db" "SELECT count(DISTINCT label) FROM brands")
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -f "$T/port"
	"$B/llmserver" --port-file "$T/port" --pairs "$T/pairs$n" 2>"$T/srv.err" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	URL="http://127.0.0.1:$(cat "$T/port")/v1"
	for way in rewrite pairwise; do
		pw=$((nl * nr))
		if [ $way = pairwise ] && [ $pw -gt "$PWMAX" ]; then
			printf '%-11s %-9s %10s %10s %8s %10s %s\n' "${n}x$n" "$way" "$pw" "$pw" "1x" \
				"$(wc -l <"$T/want$n" | tr -d ' ')" "(counted: N x N, not run)"
			continue
		fi
		opt=on
		[ $way = pairwise ] && opt=off
		"$P" -v --csv --no-headers --set times=off --set budget=0 --no-cache --set "optimize=$opt" --set join_candidates=32 \
			--llm-url "$URL" --model bench "$db" -c "$Q" >"$T/rows" 2>"$T/err" ||
			{ echo "failed ($way, $n):" >&2; tail -5 "$T/err" >&2; }
		calls=$(sed -n 's/^  llm calls: \([0-9]*\).*/\1/p' "$T/err")
		pairs=$(sed -n 's/^  join 1: \([0-9]*\) pairs asked.*/\1/p' "$T/err")
		[ -z "$pairs" ] && pairs=$calls
		same=no
		cmp -s "$T/rows" "$T/want$n" && same=yes
		ratio=$(awk -v a="$pw" -v b="${calls:-0}" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }')
		printf '%-11s %-9s %10s %10s %8s %10s %s\n' "${n}x$n" "$way" "$calls" "$pairs" "$ratio" \
			"$(wc -l <"$T/rows" | tr -d ' ')" "$same"
	done
done
