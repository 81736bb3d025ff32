#!/bin/sh
# Plain SQL on a database file against the sqlite3 shell: the sqllogictest scripts, each run
# on a fresh database file (not in memory), with CSV and JSON output, median of 3 runs of
# all the scripts, both programs in the same run. A statement on a file takes the file's
# locks; suql's fast path must take no more of them than sqlite3 (doc/speed.md). Also
# counts, for one script, the lock calls (fcntl) and file checks (newfstatat) each program
# makes per statement, when strace is installed. Times are wall clock; nothing is asserted.
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/plainfile
d="${SUQL_SHARED:-../shared}/data/sqllogictest/test"
command -v sqlite3 >/dev/null 2>&1 || { echo "plain SQL on a file: not measured (no sqlite3 shell)"; exit 0; }
[ -d "$d" ] || { echo "plain SQL on a file: not measured: $d not found"; exit 0; }
rm -rf "$T"
mkdir -p "$T"
n=0
for f in $(find "$d" -name '*.test' | sort); do
	n=$((n + 1))
	"$B/slt" --script "$f" >"$T/slt$n.sql"
done
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.4f", v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
runall() {   # runall MODE PROGRAM...: every script on a fresh file, the seconds it took
	mode=$1
	shift
	t0=$(now)
	for s in "$T"/slt*.sql; do
		rm -f "$T/f.db" "$T/f.db-journal"
		"$@" "-$mode" "$T/f.db" <"$s" >/dev/null 2>&1
	done
	since "$t0"
}
for mode in csv json; do
	: >"$T/$mode.suql"
	: >"$T/$mode.sqlite"
	for i in 1 2 3; do
		runall "$mode" "$P" >>"$T/$mode.suql"; echo >>"$T/$mode.suql"
		runall "$mode" sqlite3 >>"$T/$mode.sqlite"; echo >>"$T/$mode.sqlite"
	done
	a=$(median <"$T/$mode.suql") b=$(median <"$T/$mode.sqlite")
	printf 'sqllogictest scripts (%d files) on a file, %s: suql / sqlite3 %s (%s s / %s s, median of 3; goal <= 1.05)\n' \
		"$n" "$mode" "$(ratio "$a" "$b")" "$a" "$b"
done
if command -v strace >/dev/null 2>&1; then
	# one script's statements, the calls each program makes per statement
	s="$T/slt1.sql"
	k=$(grep -c ';' "$s")
	for prog in "$P" sqlite3; do
		rm -f "$T/f.db" "$T/f.db-journal"
		strace -f -c -o "$T/strace" "$prog" -csv "$T/f.db" <"$s" >/dev/null 2>&1
		fc=$(awk '$NF == "fcntl" { print $4 }' "$T/strace")
		st=$(awk '$NF == "newfstatat" { print $4 }' "$T/strace")
		printf '%s: %s fcntl, %s newfstatat over %d statements of %s\n' \
			"$(basename "$prog")" "${fc:-0}" "${st:-0}" "$k" "$(basename "$s")"
	done
fi
