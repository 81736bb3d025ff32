#!/bin/sh
# Results never depend on the optimizer: the statement of every case of
# tests/engine/cases/equiv.case (read by tests/engine/case.sh, the cases' one reader; suite
# 58 runs them on SQLite and PostgreSQL) runs on the demo database optimized and naive
# (:set optimize off), with the offline backend and no cache, and both must return the
# same rows: in the same order when the statement has ORDER BY, as multisets otherwise. A
# case with a LIMIT and no ORDER BY may return any qualifying rows (the naive plan reads
# them in the table's order, the optimized one by relevance; suite 58 holds the rows a case
# names to both backends): there each optimized row must be a row of the statement
# without its LIMIT, and their number must be what LIMIT and OFFSET leave of those. Each
# optimized run also keeps within its plan: the calls it made are at most the worst case
# the plan announced (the number the budget is checked against).
set -u
. tests/engine/case.sh
db=$SUQL_TMP/equiv.db
sh tests/demo-db.sh "$db" || { echo "not ok equiv: the demo database builds"; exit 0; }
out=$SUQL_TMP/equiv
mkdir -p "$out"

run() {   # run MODE SQL > rows
	"$SUQL_PROG" --offline --no-cache --csv --no-headers --set budget=0 --set "optimize=$1" "$db" -c "$2" \
		2>"$out/err"
}

n=0
case_parse tests/engine/cases/equiv.case "$out/cases" ||
	{ echo "not ok equiv: tests/engine/cases/equiv.case reads"; exit 0; }
for c in "$out/cases"/[0-9]*; do
	line=$(cat "$c/sql")
	n=$((n + 1))
	any=0
	grep -qiE ' limit [0-9]+( offset [0-9]+)?;$' "$c/sql" && ! grep -qi 'order by' "$c/sql" && any=1
	name="equiv $n: $(printf '%s' "$line" | cut -c1-70)"
	"$SUQL_PROG" -v --offline --no-cache --csv --set budget=0 "$db" -c "$line" >"$out/v" 2>&1
	worst=$(sed -n 's/^ *worst case: \([0-9]*\) LLM call.*/\1/p' "$out/v" | awk '{ s += $1 } END { print s + 0 }')
	made=$(sed -n 's/^ *llm calls: \([0-9]*\).*/\1/p' "$out/v" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$made" -le "$worst" ]; then
		echo "ok $name: within its worst case ($made <= $worst)"
	else
		echo "not ok $name: within its worst case"
		echo "# $made LLM calls, the plan's worst case $worst"
	fi
	run on "$line" >"$out/on"; st_on=$?
	err_on=$(cat "$out/err")
	run off "$line" >"$out/off"; st_off=$?
	err_off=$(cat "$out/err")
	if [ "$st_on" -ne 0 ] || [ "$st_off" -ne 0 ]; then
		echo "not ok $name"
		echo "# status optimized $st_on ($err_on), naive $st_off ($err_off)"
		continue
	fi
	if [ $any -eq 1 ]; then
		full=$(printf '%s' "$line" | sed -E 's/ LIMIT ([0-9]+)( OFFSET ([0-9]+))?;$/;/')
		lim=$(printf '%s' "$line" | sed -E 's/.* LIMIT ([0-9]+)( OFFSET ([0-9]+))?;$/\1/')
		off=$(printf '%s' "$line" | sed -E 's/.* LIMIT ([0-9]+)( OFFSET ([0-9]+))?;$/\3/')
		off=${off:-0}
		run off "$full" | sort >"$out/all"
		total=$(wc -l <"$out/all")
		want=$((total - off))
		[ "$want" -lt 0 ] && want=0
		[ "$want" -gt "$lim" ] && want=$lim
		got=$(wc -l <"$out/on")
		bad=$(sort "$out/on" | comm -23 - "$out/all" | head -3)
		if [ "$got" -eq "$want" ] && [ -z "$bad" ] && [ "$(wc -l <"$out/off")" -eq "$want" ]; then
			echo "ok $name"
		else
			echo "not ok $name"
			echo "# $got rows (naive $(wc -l <"$out/off")), want $want of $total qualifying"
			[ -n "$bad" ] && echo "# rows that do not qualify: $bad"
		fi
		continue
	fi
	case $line in
	*"ORDER BY"*) cmp -s "$out/on" "$out/off" ;;
	*) [ "$(sort "$out/on")" = "$(sort "$out/off")" ] ;;
	esac
	if [ $? -eq 0 ]; then
		echo "ok $name"
	else
		echo "not ok $name"
		diff "$out/on" "$out/off" | head -10 | sed 's/^/# /'
	fi
done
[ $n -ge 50 ] && echo "ok equiv: the corpus has $n statements (at least 50)" ||
	echo "not ok equiv: the corpus has only $n statements"
