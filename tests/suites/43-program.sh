#!/bin/sh
# Program behaviour whose output is not fixed text (times, versions) or that needs more than
# one run, so it does not fit a transcript: --version, --help, :timer, -f - (stdin),
# --help-man with an unknown section, and that batch output never carries colour.
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/program
mkdir -p "$tmp"

t() {              # t NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok program: $name"
	else
		echo "not ok program: $name"
		sed 's/^/# /' "$tmp/out" | head -n 20
	fi
}

t "--version names the program and SQLite" sh -c \
	"'$prog' --version | grep -Eq '^suql [0-9]+\.[0-9]+\.[0-9]+ \(SQLite 3\.[0-9.]+\)$'"
t "--help exits 0 and lists the options" sh -c \
	"'$prog' --help >'$tmp/help' && grep -q -- '--bail' '$tmp/help' && grep -q '^Usage: suql' '$tmp/help'"
t "--help-man with an unknown section is a usage error" sh -c \
	"'$prog' --help-man nonsense 2>'$tmp/err'; [ \$? = 2 ] &&
	 grep -q \"^error: --help-man: no section 'nonsense'\" '$tmp/err'"
t ":timer on reports a time after the result" sh -c \
	"printf ':timer on\nSELECT 1;\n' | '$prog' 2>&1 | tail -n 1 | grep -Eq '^time: [0-9]+\.[0-9]{3} ms$'"
t "-f - reads stdin" sh -c \
	"echo 'SELECT 40 + 2 AS x;' | '$prog' --csv -f - | tr '\n' ' ' | grep -qx 'x 42 '"
t "stdin after -c is not read" sh -c \
	"[ \"\$(echo 'SELECT 1;' | '$prog' --csv -c 'SELECT 2 AS y')\" = \"\$(printf 'y\n2')\" ]"
t "no colour in batch output" sh -c \
	"printf 'SELECT NULL AS n;\n' | '$prog' | grep -q NULL && ! printf 'SELECT NULL AS n;\n' | '$prog' | grep -q \"\$(printf '\\033')\""
t "the exit status of a failing -c is 1" sh -c \
	"'$prog' -c 'SELECT * FROM nowhere' 2>'$tmp/err'; [ \$? = 1 ] &&
	 grep -q '^error: -c:1:15: no such table: nowhere' '$tmp/err'"
