#!/bin/sh
# Hostile input, in two parts.
#
# 1. The front end alone (build/suqlc): random bytes, unterminated strings, names and
#    comments, 10,000 nested parentheses, a 10 MB string literal, a 100,000-term
#    expression. Each must end with a clear error (or a translation), never a crash.
#
# 2. The program, case by case: each tests/robust/NAME.t runs suql once and asserts its
#    exit status, what its output must and must not hold, and (with @@ unchanged) that the
#    database is the same afterwards. Every run has a guard: a run still going after 60 s is
#    killed and fails the case as a hang (the bound is generous; no case measures time).
#    A .t file is sections starting "@@":
#
#     # what the case is about (lines before the first section)
#     @@ db demo|empty|none   $DB: a copy of the demo database (built afresh by tests/demo-db.sh
#                             once per run, never the user's demo database), a new database made by suql, or
#                             a path with no file (the default)
#     @@ gen                  sh lines run first in the run directory (big inputs, other
#                             processes); $DB, $TMP, $SUQL (the program) and $BUILD are set
#     @@ setup                SUQL run on $DB before the case (its state is "before")
#     @@ rules                llmserver rules (doc/llm.md): a model at SUQL_LLM_URL
#     @@ env                  VAR=VALUE lines for suql
#     @@ pre                  sh lines run just before suql starts, in its shell (ulimit)
#     @@ args ...             suql's arguments in sh syntax (default: $DB)
#     @@ stdin                suql's standard input (default: none)
#     @@ interrupt SECONDS    send one SIGINT (Ctrl-C) that long after the start
#     @@ status N             the exit status (default 0)
#     @@ stdout has TEXT      TEXT (printf %b escapes, e.g. \033) is in the output; also
#     @@ stdout lacks TEXT    "stderr has", "stderr lacks"
#     @@ stderr count N TEXT  TEXT is on exactly N lines of stderr
#     @@ stdout bytes N       the output is at most N bytes
#     @@ unchanged            the database's dump is the same after as before (leaving out
#                             the retrieval index, built on first use)
#     @@ check                sh lines run after, in the run directory; each must succeed
#     @@ skip-san             not under sanitizers (a memory limit that ASan's shadow breaks)
# Under `make SAN=...` the same runs under the sanitizers.
. "$(dirname "$0")/../lib.sh"
c="$SUQL_BUILD/suqlc"
t="$SUQL_TMP/robust"
mkdir -p "$t"

check() {   # check NAME FILE PATTERN: suqlc exits 0 and prints PATTERN
	name=$1 file=$2 pat=$3
	"$c" "$file" >"$t/out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "not ok $name"
		echo "# suqlc exited with status $rc"
		head -c 300 "$t/out" | sed 's/^/# /'
	elif ! grep -q -- "$pat" "$t/out"; then
		echo "not ok $name"
		echo "# expected: $pat"
		head -c 300 "$t/out" | sed 's/^/# /'
	else
		echo "ok $name"
	fi
}

i=0
while [ $i -lt 20 ]; do
	head -c $((i * 97 + 13)) /dev/urandom >"$t/rand$i"
	"$c" "$t/rand$i" >/dev/null 2>&1 || { echo "not ok random bytes ($i)"; i=99; }
	i=$((i + 1))
done
[ $i -eq 20 ] && echo "ok random bytes: 20 inputs, no crash"

printf "SELECT 'never closed" >"$t/s1"
check "unterminated string" "$t/s1" "incomplete input: unterminated string"
printf 'SELECT "never closed' >"$t/s2"
check "unterminated quoted name" "$t/s2" "incomplete input: unterminated quoted name"
printf 'SELECT [never closed' >"$t/s3"
check "unterminated bracket name" "$t/s3" "incomplete input: unterminated quoted name"
printf 'SELECT 1 /* never closed' >"$t/s4"
check "unterminated comment (accepted, as SQLite does)" "$t/s4" "suql: SELECT 1;"
printf 'SELECT (((1' >"$t/s5"
check "input ends inside parentheses" "$t/s5" "incomplete input"

awk 'BEGIN { printf "SELECT "; for (i = 0; i < 10000; i++) printf "("; printf "1";
             for (i = 0; i < 10000; i++) printf ")"; print ";" }' >"$t/deep"
check "10,000 nested parentheses" "$t/deep" "nests too deeply (more than 1000 levels)"
awk 'BEGIN { printf "SELECT "; for (i = 0; i < 10000; i++) printf "NOT "; print "1;" }' >"$t/nots"
check "10,000 nested NOTs" "$t/nots" "nests too deeply"
awk 'BEGIN { printf "SELECT 1"; for (i = 0; i < 100000; i++) printf " + 1"; print ";" }' >"$t/long"
check "100,000-term expression" "$t/long" "too deep"
awk 'BEGIN { printf "SELECT * FROM t WHERE x IN (0"; for (i = 1; i < 100000; i++) printf ", %d", i;
             print ");" }' >"$t/list"
check "100,000-element IN list" "$t/list" "suql: SELECT"
awk 'BEGIN { printf "SELECT '"'"'"; s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
             for (i = 0; i < 100000; i++) printf "%s", s; print "'"'"';" }' >"$t/big"
check "10 MB string literal" "$t/big" "suql: SELECT 'xxxx"
printf 'SELECT 1\0002;' >"$t/nul"
check "a NUL byte" "$t/nul" "unexpected NUL byte"

# ---- part 2: the program, case by case (tests/robust/*.t) ----

build=$SUQL_BUILD
case $build in /*) ;; *) build=$SUQL_TOP/$build ;; esac
san=0
case $build in */build-san*) san=1 ;; esac
GUARD=${SUQL_ROBUST_GUARD:-60}
SPID=""
stop_server() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }
trap 'stop_server; [ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"' EXIT

dump() {   # the database's content, as text (nothing when there is no file), leaving out
	# the retrieval index, which suql builds on first use
	if [ -f "$1" ]; then
		sqlite3 "$1" .dump | grep -Ev 'suql_(index|psg_|fts_|txt_|trg_|imp_|rest_|df_)|sqlite_sequence|^PRAGMA writable_schema'
	fi
}

guard() {   # guard PID SECONDS: kill PID if it still runs after SECONDS
	(
		n=0
		while [ $n -lt $(($2 * 10)) ]; do
			sleep 0.1
			kill -0 "$1" 2>/dev/null || exit 0
			n=$((n + 1))
		done
		kill -9 "$1" 2>/dev/null
	) &
}

run_case() {
	file=$1
	name=$(basename "$file" .t)
	d=$SUQL_TMP/cases/$name
	rm -rf "$d"
	mkdir -p "$d/run"
	awk -v d="$d" '
		function out(f) { sec = f; printf "" > (d "/" f) }
		/^@@ args( |$)/ { sub(/^@@ args ?/, ""); print > (d "/args"); sec = ""; next }
		/^@@ db / { sub(/^@@ db /, ""); print > (d "/db"); sec = ""; next }
		/^@@ status / { sub(/^@@ status /, ""); print > (d "/exp.status"); sec = ""; next }
		/^@@ interrupt / { sub(/^@@ interrupt /, ""); print > (d "/interrupt"); sec = ""; next }
		/^@@ (stdout|stderr) (has|lacks|count|bytes) / { sub(/^@@ /, ""); print >> (d "/asserts");
			sec = ""; next }
		/^@@ (gen|setup|rules|env|pre|stdin|check)$/ { out(substr($0, 4)); next }
		/^@@ (unchanged|skip-san)$/ { printf "" > (d "/" substr($0, 4)); sec = ""; next }
		/^@@/ { print "bad section line: " $0 > "/dev/stderr"; exit 1 }
		sec != "" { print > (d "/" sec) }
	' "$file" || { echo "not ok robust $name"; echo "# cannot read $file"; return; }
	if [ -f "$d/skip-san" ] && [ "$san" = 1 ]; then
		echo "skip robust $name: not under the sanitizers (it limits memory)"
		return
	fi
	[ -f "$d/args" ] || echo '$DB' >"$d/args"
	[ -f "$d/stdin" ] || : >"$d/stdin"
	[ -f "$d/exp.status" ] || echo 0 >"$d/exp.status"
	DB=$d/run/test.db TMP=$d/run SUQL=$prog BUILD=$build
	export DB TMP SUQL BUILD
	case $(cat "$d/db" 2>/dev/null || echo none) in
	demo) cp "$demo_db" "$DB" ;;
	empty) "$prog" -c 'SELECT 1' "$DB" >/dev/null ;;
	none) ;;
	*) echo "not ok robust $name"; echo "# unknown @@ db"; return ;;
	esac
	if [ -f "$d/gen" ] && ! (cd "$d/run" && sh -e "$d/gen") >"$d/gen.out" 2>&1; then
		echo "not ok robust $name"; echo "# @@ gen failed:"; sed 's/^/# /' "$d/gen.out" | head; return
	fi
	if [ -f "$d/setup" ] && ! "$prog" --bail "$DB" <"$d/setup" >"$d/setup.out" 2>&1; then
		echo "not ok robust $name"; echo "# @@ setup failed:"; sed 's/^/# /' "$d/setup.out"; return
	fi
	[ -f "$d/unchanged" ] && dump "$DB" >"$d/before.sql"
	URL=http://127.0.0.1:9/v1
	[ -f "$d/rules" ] && llmserver_start "$d" "$d/rules"

	args=$(cat "$d/args")
	(
		cd "$d/run" || exit 99
		if [ -f "$d/rules" ]; then
			export SUQL_LLM_URL="$URL" SUQL_MODEL=test-model
		fi
		if [ -f "$d/env" ]; then
			while IFS= read -r kv; do
				[ -n "$kv" ] && export "${kv%%=*}=${kv#*=}"
			done <"$d/env"
		fi
		[ -f "$d/pre" ] && . "$d/pre"
		eval "set -- $args"
		exec "$prog" "$@"
	) <"$d/stdin" >"$d/out" 2>"$d/err" &
	pid=$!
	guard "$pid" "$GUARD"
	if [ -f "$d/interrupt" ]; then
		sleep "$(cat "$d/interrupt")"
		kill -INT "$pid" 2>/dev/null
	fi
	wait "$pid"
	status=$?
	stop_server

	bad=""
	if [ "$status" = 137 ]; then
		bad="$bad; did not end within $GUARD s (a hang)"
	elif [ "$status" != "$(cat "$d/exp.status")" ]; then
		bad="$bad; status $status, expected $(cat "$d/exp.status")"
	fi
	if [ -f "$d/asserts" ]; then
		while IFS= read -r a; do
			stream=${a%% *}; rest=${a#* }; op=${rest%% *}; text=${rest#* }
			f=$d/out
			[ "$stream" = stderr ] && f=$d/err
			case $op in
			has) grep -qF -- "$(printf '%b' "$text")" "$f" || bad="$bad; $stream lacks: $text" ;;
			lacks) ! grep -qF -- "$(printf '%b' "$text")" "$f" || bad="$bad; $stream has: $text" ;;
			count)
				want=${text%% *}; pat=${text#* }
				got=$(grep -cF -- "$(printf '%b' "$pat")" "$f")
				[ "$got" = "$want" ] || bad="$bad; $stream: $got lines with '$pat', expected $want" ;;
			bytes)
				got=$(wc -c <"$f")
				[ "$got" -le "$text" ] || bad="$bad; $stream is $got bytes, more than $text" ;;
			esac
		done <"$d/asserts"
	fi
	if [ -f "$d/unchanged" ]; then
		dump "$DB" >"$d/after.sql"
		cmp -s "$d/before.sql" "$d/after.sql" || bad="$bad; the database changed"
	fi
	if [ -f "$d/check" ]; then
		while IFS= read -r line; do
			[ -z "$line" ] && continue
			(cd "$d/run" && eval "$line") >/dev/null 2>&1 || bad="$bad; check failed: $line"
		done <"$d/check"
	fi
	if [ -z "$bad" ]; then
		echo "ok robust $name"
		return
	fi
	echo "not ok robust $name:${bad#;}"
	echo "# args: $args"
	head -c 1500 "$d/out" | sed 's/^/# stdout: /'
	head -c 1500 "$d/err" | sed 's/^/# stderr: /'
}

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "skip robust: the sqlite3 shell is not installed (scripts/deps.sh installs it)"
	exit 0
fi
demo_db=$SUQL_TMP/robust-demo.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$demo_db" ||
	{ echo "not ok robust: the demo database builds"; exit 0; }
for f in "$SUQL_TOP"/tests/robust/*.t; do
	[ -f "$f" ] || continue
	case " ${ROBUST_ONLY:-} " in "  ") ;; *" $(basename "$f" .t) "*) ;; *) continue ;; esac
	run_case "$f"
done
