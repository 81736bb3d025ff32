#!/bin/sh
# Plain SQL at the sqlite3 shell's speed: a sqllogictest-style script of many small
# statements (CREATE TABLE, indexes, INSERTs, SELECTs with WHERE on indexed columns,
# count/max/sum over ranges, a join, UPDATEs, DELETEs), each in autocommit mode, run on a
# database file (in memory-backed storage, /dev/shm, where there is one) by both programs
# given the same text: `suql --json DB < script` against `sqlite3 -json DB < script`, and
# the same with CSV. Figures, for each output mode:
#   - CPU time (user + system, from /usr/bin/time) of BENCH_PLAIN_RUNS runs (5) of each,
#     the two programs run in pairs, each on a fresh file, which of them goes first
#     alternating: the median of the times, and the median of the pairs' ratios (a pair
#     runs close together, so it sees about the same load on a shared machine);
#   - instructions (valgrind --tool=callgrind, reproducible on a loaded machine) over a
#     script of BENCH_PLAIN_SMALL statements (20000), when valgrind is installed.
# The script comes from awk with a fixed seed (its own generator, so any awk prints the
# same one). BENCH_PLAIN_N sets the statements of the timed script (200000). Nothing is
# asserted; doc/speed.md has the figures and what they measure.
set -u
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
N=${BENCH_PLAIN_N:-200000}
SMALL=${BENCH_PLAIN_SMALL:-20000}
RUNS=${BENCH_PLAIN_RUNS:-5}
T=${SUQL_TMP:-/tmp}/plain
mkdir -p "$T"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	D=$(mktemp -d /dev/shm/suql-plain.XXXXXX)
else
	D=$T
fi
trap 'rm -rf "$D"' EXIT INT TERM
command -v sqlite3 >/dev/null 2>&1 || { echo "plain SQL: not measured (no sqlite3 shell)"; exit 0; }
[ -x /usr/bin/time ] || { echo "plain SQL: not measured (no /usr/bin/time)"; exit 0; }

# gen N: the script, on stdout
gen() {
	awk -v N="$1" '
	function rnd(n) { seed = (seed * 16807) % 2147483647; return int(seed / 256) % n }
	BEGIN {
		seed = 20240901
		print "CREATE TABLE t1 (a INTEGER PRIMARY KEY, b INTEGER, c INTEGER, d TEXT, e REAL);"
		print "CREATE INDEX t1_b ON t1 (b);"
		print "CREATE INDEX t1_ce ON t1 (c, e);"
		print "CREATE TABLE t2 (k INTEGER, v TEXT);"
		print "CREATE INDEX t2_k ON t2 (k);"
		rows = 0
		for (i = 5; i < N; i++) {
			r = rnd(100)
			if (r < 40 || rows < 50) {
				rows++
				if (rnd(4) == 0)
					printf "INSERT INTO t2 VALUES (%d, %cv%d%c);\n", rnd(1000), 39, rnd(100000), 39
				else
					printf "INSERT INTO t1 (b, c, d, e) VALUES (%d, %d, %ctext %d of row%c, %d.%d);\n", rnd(5000), rnd(200), 39, rnd(100000), 39, rnd(1000), rnd(100)
			} else if (r < 60) {
				printf "SELECT a, b, c, d, e FROM t1 WHERE b = %d;\n", rnd(5000)
			} else if (r < 68) {
				x = rnd(5000)
				printf "SELECT count(*), max(e) FROM t1 WHERE b BETWEEN %d AND %d;\n", x, x + rnd(20)
			} else if (r < 74) {
				x = rnd(200)
				printf "SELECT c, count(*), sum(e) FROM t1 WHERE c >= %d AND c < %d GROUP BY c ORDER BY c;\n", x, x + 2
			} else if (r < 80) {
				printf "SELECT t2.v, t1.d FROM t2 JOIN t1 ON t1.b = t2.k WHERE t2.k = %d;\n", rnd(1000)
			} else if (r < 86) {
				printf "SELECT max(a), min(d) FROM t1 WHERE c = %d AND e > %d;\n", rnd(200), rnd(1000)
			} else if (r < 95) {
				printf "UPDATE t1 SET e = e + 1, d = %cchanged %d%c WHERE b = %d;\n", 39, rnd(1000), 39, rnd(5000)
			} else if (r < 98) {
				printf "DELETE FROM t2 WHERE k = %d;\n", rnd(1000)
			} else {
				x = rnd(rows + 1)
				printf "SELECT CASE WHEN b > 2500 THEN %chigh%c ELSE %clow%c END, count(*) FROM t1 WHERE a BETWEEN %d AND %d GROUP BY 1 ORDER BY 1;\n", 39, 39, 39, 39, x, x + 50
			}
		}
	}'
}
gen "$N" >"$T/big.sql"
gen "$SMALL" >"$T/small.sql"

median() { sort -n | awk -v f="${1:-%.2f}" '{ v[NR] = $1 } END { printf f, v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
# cpu NAME PROGRAM ARGS...: one run on a fresh file; "user sys" appended to $T/NAME
cpu() {
	name=$1
	shift
	rm -f "$D/p.db" "$D/p.db-journal"
	if ! /usr/bin/time -o "$T/time" -f '%U %S' "$@" "$D/p.db" <"$T/big.sql" >/dev/null 2>"$T/err"; then
		echo "plain SQL: $* failed:" >&2
		head -n 5 "$T/err" >&2
		exit 1
	fi
	tail -n 1 "$T/time" >>"$T/$name"
}
echo "plain SQL: $N statements ($(grep -c '^INSERT' "$T/big.sql") INSERTs, $(grep -c '^SELECT' "$T/big.sql") SELECTs, $(grep -c '^UPDATE' "$T/big.sql") UPDATEs), autocommit, a file in $D"
for mode in json csv; do
	: >"$T/suql.$mode"
	: >"$T/sqlite.$mode"
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ $((i % 2)) = 0 ]; then
			cpu "suql.$mode" "$P" "--$mode"
			cpu "sqlite.$mode" sqlite3 "-$mode"
		else
			cpu "sqlite.$mode" sqlite3 "-$mode"
			cpu "suql.$mode" "$P" "--$mode"
		fi
		i=$((i + 1))
	done
	su=$(awk '{ print $1 + $2 }' "$T/suql.$mode" | median)
	sq=$(awk '{ print $1 + $2 }' "$T/sqlite.$mode" | median)
	uu=$(awk '{ print $1 }' "$T/suql.$mode" | median)
	uq=$(awk '{ print $1 }' "$T/sqlite.$mode" | median)
	pr=$(paste "$T/suql.$mode" "$T/sqlite.$mode" | awk '{ print ($1 + $2) / ($3 + $4) }' | median %.3f)
	printf '%s: CPU time (user+sys) suql / sqlite3 %s (%s s / %s s, medians of %d; user %s s / %s s); median of the pairs %s; goal <= 1.05\n' \
		"$mode" "$(ratio "$su" "$sq")" "$su" "$sq" "$RUNS" "$uu" "$uq" "$pr"
	printf '%s: every run, user sys: suql %s; sqlite3 %s\n' "$mode" \
		"$(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$T/suql.$mode")" \
		"$(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$T/sqlite.$mode")"
done
if command -v valgrind >/dev/null 2>&1; then
	# instr PROGRAM ARGS...: the instructions one run of the small script takes
	instr() {
		rm -f "$D/p.db" "$D/p.db-journal"
		valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$@" "$D/p.db" \
			<"$T/small.sql" >/dev/null 2>"$T/cg.err"
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$T/cg.err" | tail -n 1
	}
	for mode in json csv; do
		a=$(instr "$P" "--$mode")
		b=$(instr sqlite3 "-$mode")
		if [ -z "$a" ] || [ -z "$b" ]; then
			echo "instructions: valgrind counted nothing (see $T/cg.err)" >&2
			exit 1
		fi
		printf '%s: instructions (callgrind, %d statements) suql / sqlite3 %s (%s / %s; %s more a statement)\n' \
			"$mode" "$SMALL" "$(ratio "$a" "$b")" "$a" "$b" \
			"$(awk -v a="$a" -v b="$b" -v n="$SMALL" 'BEGIN { printf "%d", (a - b) / n }')"
	done
else
	echo "instructions: not counted (valgrind is not installed)"
fi
