#!/bin/sh
# The SUQL queries of the seeds run, with sensible results where the offline backend can
# decide: the records of tests/engine/seeds.txt (their format is described there).
set -u
demo=$SUQL_TMP/seeds-demo.db
oly=$SUQL_TMP/seeds-olympics.db
sh tests/demo-db.sh "$demo" || { echo "not ok seeds: the demo database builds"; exit 0; }
rm -f "$oly"
"$SUQL_PROG" --bail "$oly" <tests/engine/olympics.sql >/dev/null 2>&1 ||
	{ echo "not ok seeds: tests/engine/olympics.sql loads"; exit 0; }
echo "ok seeds: tests/engine/olympics.sql loads"
out=$SUQL_TMP/seeds.out

check() {
	[ -n "$sql" ] || return
	case $db in olympics) file=$oly ;; *) file=$demo ;; esac
	"$SUQL_PROG" --offline --no-cache --csv --no-headers "$file" -c "$sql" >"$out" 2>"$out.err"
	st=$?
	fail=""
	[ $st -eq 0 ] || fail="status $st: $(cat "$out.err")"
	got=$(wc -l <"$out")
	[ -z "$fail" ] && [ -n "$rows" ] && [ "$got" -ne "$rows" ] && fail="$got rows, want $rows"
	if [ -z "$fail" ]; then
		printf '%s\n' "$match" | while IFS= read -r m; do
			[ -z "$m" ] || grep -Eq "$m" "$out" || echo "does not match /$m/"
		done >"$out.why"
		printf '%s\n' "$nomatch" | while IFS= read -r m; do
			[ -z "$m" ] || ! grep -Eq "$m" "$out" || echo "matches /$m/"
		done >>"$out.why"
		[ -s "$out.why" ] && fail=$(head -3 "$out.why" | tr '\n' ';')
	fi
	if [ -z "$fail" ]; then
		echo "ok seeds: $name"
	else
		echo "not ok seeds: $name"
		echo "# $fail"
		head -3 "$out" | cut -c1-200 | sed 's/^/# got: /'
	fi
	name="" db="" sql="" rows="" match="" nomatch=""
}

name="" db="" sql="" rows="" match="" nomatch=""
nl='
'
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*) ;;
	'') check ;;
	name:*) name=${line#name: } ;;
	db:*) db=${line#db: } ;;
	sql:*) sql=${line#sql: } ;;
	rows:*) rows=${line#rows: } ;;
	match:*) match="$match${match:+$nl}${line#match: }" ;;
	nomatch:*) nomatch="$nomatch${nomatch:+$nl}${line#nomatch: }" ;;
	esac
done <tests/engine/seeds.txt
check
