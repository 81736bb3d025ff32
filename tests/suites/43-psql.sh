#!/bin/sh
# psql's habits that need more than one fixed transcript: -v in every form (a variable
# after it, the old --explain before a database, as the last word, glued), that no word
# that reads as NAME=VALUE ever becomes a database file, ON_ERROR_STOP from -v, --variable,
# --set and \set stopping a script at its first error, :'NAME' keeping a value data,
# \watch stopped by a count and by Ctrl-C (SIGINT), \e through an $EDITOR that edits the
# file (and one that fails), -V, the hint after -m MODEL, and \l and \conninfo on
# PostgreSQL when a server of the tests' own starts (tests/pg.sh).
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/psql
mkdir -p "$tmp/cwd"
cd "$tmp/cwd" || exit 1
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$tmp/demo.db" >/dev/null 2>&1 ||
	{ echo "not ok psql: the demo database builds"; exit 0; }
db=$tmp/demo.db

files() { ls -A "$tmp/cwd" | tr '\n' ' '; }

# ---- -v ----
out=$("$prog" -v ON_ERROR_STOP=1 -c "SELECT 41 + 1;" "$db" 2>"$tmp/err"); st=$?
check "psql: -v ON_ERROR_STOP=1 -c SQL DB prints 42, exits 0, makes no file" \
	"$st|$(echo "$out" | grep -c '|     42 |')|$(cat "$tmp/err")|$(files)" "0|1||"
out=$("$prog" -vON_ERROR_STOP=1 --csv -c "SELECT 41 + 1 AS x;" "$db" 2>&1); st=$?
check "psql: -vNAME=VALUE glued" "$st|$out|$(files)" "0|$(printf 'x\n42')|"
out=$("$prog" -v "$db" --csv -c "SELECT count(*) AS n FROM restaurants;" 2>"$tmp/err"); st=$?
check "psql: -v DB keeps -v's meaning (--explain) and opens DB" \
	"$st|$out|$(grep -c '^parsed:' "$tmp/err")" "0|$(printf 'n\n112')|1"
out=$("$prog" --csv -c "SELECT 7 AS n;" -v 2>"$tmp/err"); st=$?
check "psql: -v as the last word is --explain" "$st|$out|$(grep -c '^parsed:' "$tmp/err")|$(files)" \
	"0|$(printf 'n\n7')|1|"
out=$("$prog" -v -c "SELECT 8 AS n;" --csv 2>"$tmp/err"); st=$?
check "psql: -v before another option is --explain" "$st|$out|$(grep -c '^parsed:' "$tmp/err")" \
	"0|$(printf 'n\n8')|1"
out=$("$prog" -v x=5 --csv -c "SELECT :x + 1 AS n;" 2>&1); st=$?
check "psql: -v NAME=VALUE before -c: the variable, interpolated" "$st|$out" "0|$(printf 'n\n6')"
"$prog" ON_ERROR_STOP=1 -c "SELECT 1;" >"$tmp/out" 2>&1; st=$?
check "psql: a database argument NAME=VALUE that is no file is refused, never created" \
	"$st|$(grep -c "looks like a psql variable" "$tmp/out")|$(files)" "2|1|"
: >"$tmp/cwd/x=1"
"$prog" --csv x=1 -c "SELECT 2 AS n;" >"$tmp/out" 2>&1; st=$?
check "psql: ... but an existing file of that name opens" "$st|$(cat "$tmp/out")" "0|$(printf 'n\n2')"
rm -f "$tmp/cwd/x=1"
"$prog" --set on_error_stop=1 -c "SELECT 1;" >"$tmp/out" 2>&1; st=$?
check "psql: --set of a lower-case name that is no setting: an error naming -v" \
	"$st|$(grep -c -- "-v on_error_stop=VALUE" "$tmp/out")" "2|1"
"$prog" -v ON_ERROR_STOP=maybe -c "SELECT 1;" >"$tmp/out" 2>&1; st=$?
check "psql: ON_ERROR_STOP takes a boolean" "$st|$(cat "$tmp/out")" \
	"2|error: -v ON_ERROR_STOP: ON_ERROR_STOP takes on or off (also true, false, yes, no, 1, 0), not 'maybe'"

# ---- ON_ERROR_STOP ----
printf 'SELECT 1 AS n;\nSELECT nope;\nSELECT 2 AS n;\n' >"$tmp/script.sql"
for how in "-v ON_ERROR_STOP=1" "--variable ON_ERROR_STOP=on" "--set ON_ERROR_STOP=1" \
	"-c \\set#ON_ERROR_STOP#on" "--bail"; do
	args=$(echo "$how" | tr '#' ' ')
	# shellcheck disable=SC2086
	case $how in
	-c*) out=$("$prog" --csv --no-headers "$db" -c "\\set ON_ERROR_STOP on" -f "$tmp/script.sql" 2>"$tmp/err") ;;
	*) out=$("$prog" --csv --no-headers $args "$db" -f "$tmp/script.sql" 2>"$tmp/err") ;;
	esac
	st=$?
	check "psql: $args stops the script at its first error" \
		"$st|$(echo $out)|$(grep -c '^error:' "$tmp/err")" "1|1|1"
done
out=$("$prog" --csv --no-headers "$db" -f "$tmp/script.sql" 2>/dev/null); st=$?
check "psql: without it the script goes on" "$st|$(echo $out)" "1|1 2"
out=$("$prog" --csv --no-headers -v ON_ERROR_STOP=1 "$db" -c "\\set ON_ERROR_STOP off" \
	-f "$tmp/script.sql" 2>/dev/null); st=$?
check "psql: \\set ON_ERROR_STOP off lets it go on" "$st|$(echo $out)" "1|1 2"
out=$("$prog" --csv --no-headers -v ON_ERROR_STOP=1 "$db" -c "\\unset ON_ERROR_STOP" \
	-f "$tmp/script.sql" 2>/dev/null); st=$?
check "psql: \\unset ON_ERROR_STOP too" "$st|$(echo $out)" "1|1 2"

# ---- variables stay data where the statement says so ----
out=$("$prog" --csv --no-headers -v "v=it's; DROP TABLE restaurants; --" "$db" \
	-c "SELECT :'v' AS v, (SELECT count(*) FROM restaurants) AS n;" 2>&1)
check "psql: :'NAME' is a string literal, whatever the value holds" "$out" \
	"it's; DROP TABLE restaurants; --,112"
out=$("$prog" --csv --no-headers -v v=9 "$db" \
	-c "SELECT ':v', '1'::int, /* :v */ :v -- :v" -c "SELECT :missing IS NULL;" 2>&1)
check "psql: no interpolation in strings and comments, :: is a cast, an unset name is a parameter" \
	"$(echo $out)" ":v,1,9 1"

# ---- \watch ----
out=$("$prog" --csv --no-headers "$db" -c "SELECT 41 + 1;" -c "\\watch 0.01 c=3" 2>&1); st=$?
check "psql: \\watch N c=3 runs the last statement three times more" "$st|$(echo $out)" \
	"0|42 42 42 42"
: >"$tmp/watch"   # there before the loop reads it
"$prog" --csv --no-headers "$db" -c "SELECT 'tick';" -c "\\watch 0.02" >"$tmp/watch" 2>&1 &
wpid=$!
i=0
while [ "$(grep -c tick "$tmp/watch")" -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $wpid
wait $wpid
st=$?
check "psql: \\watch runs until Ctrl-C, which ends the script (130)" \
	"$st|$([ "$(grep -c tick "$tmp/watch")" -ge 3 ] && echo 3+)|$(grep -vc tick "$tmp/watch")" "130|3+|0"
"$prog" "$db" -c "\\watch 1" >"$tmp/out" 2>&1; st=$?
check "psql: \\watch before any statement" "$st|$(cat "$tmp/out")" \
	"1|error: -c:1: :watch runs the last statement again: run one first"
"$prog" "$db" -c "SELECT 1;" -c "\\watch c=0" >"$tmp/out" 2>&1; st=$?
check "psql: \\watch c=0 is refused" "$st|$(grep -c 'COUNT a whole number' "$tmp/out")" "1|1"

# ---- \e ----
cat >"$tmp/ed.sh" <<'EOF'
#!/bin/sh
# an editor that turns 41 into 40, and keeps a copy of what it was given
cp "$1" "$(dirname "$0")/edited"
sed 's/41/40/' "$1" >"$1.new" && mv "$1.new" "$1"
EOF
chmod +x "$tmp/ed.sh"
out=$(EDITOR="$tmp/ed.sh" "$prog" --csv --no-headers "$db" -c "SELECT 41 + 1;" -c "\\e" 2>&1); st=$?
check "psql: \\e gives \$EDITOR the last statement and runs what it saved" \
	"$st|$(echo $out)|$(cat "$tmp/edited")" "0|42 41|SELECT 41 + 1;"
out=$(EDITOR=false "$prog" --csv --no-headers "$db" -c "SELECT 41 + 1;" -c "\\e" 2>&1); st=$?
check "psql: an editor that fails runs nothing" "$st|$(echo $out)" \
	"1|42 error: -c:1: the editor (false) failed (status 1): nothing was run"
printf 'SELECT 41 + 1;\n' >"$tmp/q.sql"
out=$(EDITOR="$tmp/ed.sh" "$prog" --csv --no-headers "$db" -c "\\e $tmp/q.sql" 2>&1); st=$?
check "psql: \\e FILE edits FILE and runs it" "$st|$out|$(cat "$tmp/q.sql")" \
	"0|41|SELECT 40 + 1;"

# ---- -V, -m ----
check "psql: -V is --version" "$("$prog" -V)" "$("$prog" --version)"
"$prog" -m gpt-4o-mini -c "SELECT 1" >"$tmp/out" 2>&1; st=$?
check "psql: -m MODEL names --model" "$st|$(grep -c 'a model is chosen with --model gpt-4o-mini' "$tmp/out")" "2|1"

# ---- \conninfo and \l on SQLite ----
out=$("$prog" "$db" -c "\\conninfo" 2>&1)
case $out in
"connected to the SQLite database file $db (SQLite "*")") ok "psql: conninfo on SQLite names the file" ;;
*) notok "psql: conninfo on SQLite names the file" "$out" ;;
esac
out=$("$prog" -c "\\conninfo" 2>&1)
case $out in
"connected to a SQLite database in memory (SQLite "*"; nothing is saved)") ok "psql: conninfo in memory says so" ;;
*) notok "psql: conninfo in memory says so" "$out" ;;
esac
out=$("$prog" --csv "$db" -c "ATTACH ':memory:' AS scratch" -c ".databases" 2>&1)
check "psql: .databases (and \\l) on SQLite: the attached files" "$out" \
	"$(printf 'name,file\nmain,%s\nscratch,""' "$db")"

# ---- PostgreSQL ----
. "$SUQL_TOP/tests/pg.sh"
if ! pg_start; then
	echo "skip psql: PostgreSQL: $PG_SKIP"
	exit 0
fi
out=$("$prog" --csv --pg "$SUQL_PG" -c "\\l" 2>&1); st=$?
check "psql: \\l on PostgreSQL lists the server's databases" \
	"$st|$(echo "$out" | head -n 1)|$(echo "$out" | grep -c "^$PG_DBNAME,")" "0|Name,Owner,Encoding|1"
out=$("$prog" --pg "$SUQL_PG" --readonly -c "\\conninfo" 2>&1); st=$?
case $out in
"connected to the PostgreSQL database $PG_DBNAME as "*", port "*"(server "*", read-only)")
	check "psql: :conninfo (psql's) on PostgreSQL: database, user, server, read-only" "$st" 0 ;;
*) notok "psql: :conninfo (psql's) on PostgreSQL: database, user, server, read-only" "$out" ;;
esac
pg_stop
exit 0
