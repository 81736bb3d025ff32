#!/bin/sh
# The front end on hostile input: random bytes, unterminated strings, names and comments,
# 10,000 nested parentheses, a 10 MB string literal, a 100,000-term expression. Each must
# end with a clear error (or a translation), never a crash; under `make SAN=...` the same
# runs under the sanitizers.
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
