#!/bin/sh
# Front-end benchmark.
#  1. Statements parsed and translated per second: build/suqlc --bench over every
#     statement of the sqllogictest files (parse, normalised SUQL and SQLite SQL).
#  2. Whole-run wall time of suql against the sqlite3 shell on the same plain-SQL scripts
#     (the sqllogictest records SQLite runs, one script per file, each on a fresh
#     in-memory database), output to /dev/null; BENCH_RUNS runs (default 5), median, and
#     the overhead of suql in percent. Both write CSV: suql's default aligned table must
#     hold every row to measure the columns, which the sqlite3 shell's default list mode
#     does not, so the defaults would compare two different jobs.
set -u
d="$SUQL_SHARED/data/sqllogictest/test"
if [ ! -d "$d" ]; then
	echo "frontend: ../shared/data not found; nothing to measure"
	exit 0
fi
runs=${BENCH_RUNS:-5}
case $SUQL_PROG in /*) prog=$SUQL_PROG ;; *) prog=./$SUQL_PROG ;; esac
t="$SUQL_TMP/frontend"
mkdir -p "$t"
n=0
for f in $(find "$d" -name '*.test' | sort); do
	n=$((n + 1))
	"$SUQL_BUILD/slt" --script "$f" >"$t/script$n.sql"
done
cat "$t"/script*.sql >"$t/all.sql"
echo "scripts: $n files, $(wc -c <"$t/all.sql") bytes, $(grep -c ';$' "$t/all.sql") statements"
echo "-- parse + translate (build/suqlc --bench 3)"
"$SUQL_BUILD/suqlc" --bench 3 "$t/all.sql"
echo "-- parse + SQL printer only, as engine_exec does (build/suqlc --bench-exec 3)"
"$SUQL_BUILD/suqlc" --bench-exec 3 "$t/all.sql" | tee "$t/exec.txt"

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.3f", v[m] }'; }
run_all() {   # run_all PROGRAM...: every script through it, output to /dev/null
	for s in "$t"/script*.sql; do
		"$@" <"$s" >/dev/null 2>&1
	done
}
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "-- whole run: sqlite3 shell not installed; skipped"
	exit 0
fi
: >"$t/suql.times"
: >"$t/sqlite.times"
i=0
while [ $i -lt "$runs" ]; do
	a=$(now); run_all "$prog" --csv; b=$(now)
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }' >>"$t/suql.times"
	a=$(now); run_all sqlite3 -csv; b=$(now)
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }' >>"$t/sqlite.times"
	i=$((i + 1))
done
ms=$(median <"$t/suql.times")
mq=$(median <"$t/sqlite.times")
echo "-- whole run, $runs runs, median wall time"
echo "suql:    ${ms} s ($(tr '\n' ' ' <"$t/suql.times"))"
echo "sqlite3: ${mq} s ($(tr '\n' ' ' <"$t/sqlite.times"))"
awk -v s="$ms" -v q="$mq" 'BEGIN { printf "overhead of suql over the sqlite3 shell: %.1f %%\n", 100 * (s - q) / q }'
# the front end's own share: one pass of parse + SQL printer over the same scripts
fe=$(awk '/^time:/ { print $2 / 3 / 1000 }' "$t/exec.txt")
awk -v f="$fe" -v q="$mq" 'BEGIN { printf "front end (parse + translate, one pass): %.3f s = %.1f %% of the sqlite3 shell time\n", f, 100 * f / q }'
