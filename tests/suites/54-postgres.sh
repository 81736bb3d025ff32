#!/bin/sh
# suql on PostgreSQL, against a server the suite starts itself (tests/pg.sh: initdb and
# pg_ctl into a temporary directory, a Unix socket, stopped at the end), holding the demo
# restaurants. Skipped, saying why, when no server can be started.
#  - connecting: URI, --pg CONNINFO, PG* variables; the banner, :tables, :schema (SUQL
#    types from suql.catalog), output modes; errors placed in the statement;
#  - the final step binds the verified rows ($1), never pastes them; chat statements run
#    READ ONLY; :index makes GIN indexes that the ranking's expression matches.
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
T=$SUQL_TMP/pg
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi
demo=$T/demo.db
sh tests/demo-db.sh "$demo"
pg_load_demo "$demo" || { echo "not ok pg: the demo loads into PostgreSQL"; sed 's/^/# /' "$PG_DIR/load.log" | head; exit 0; }
echo "ok pg: a server of the suite's own started, the demo loaded"


# --- connecting
out=$(echo ':tables' | "$SUQL_PROG" --offline "$SUQL_PG" 2>&1)
[ "$out" = "$(printf 'restaurant_labels\nrestaurants')" ] && ok "pg: :tables lists the tables (suql's schema hidden)" ||
	notok "pg: :tables" "$out"
out=$(echo ':schema restaurants' | "$SUQL_PROG" --offline "$SUQL_PG" 2>&1)
case $out in *"reviews FREE_TEXT[]"*"price ENUM('cheap'"*) ;; *"price ENUM('cheap'"*"reviews FREE_TEXT[]"*) ok "pg: :schema shows the SUQL types kept in suql.catalog" ;;
*) notok "pg: :schema shows SUQL types" "$out" ;; esac
case $out in *"reviews FREE_TEXT[]"*) ok "pg: :schema names FREE_TEXT[]" ;; *) notok "pg: :schema names FREE_TEXT[]" "$out" ;; esac
out=$(PGHOST=$PG_DIR PGPORT=$PG_PORT PGUSER=suql PGDATABASE=suql_test "$SUQL_PROG" --offline --pg "" --csv --no-headers "SELECT current_database(), count(*) FROM restaurants" 2>&1)
[ "$out" = "suql_test,112" ] && ok "pg: --pg with the PG* variables" || notok "pg: --pg with the PG* variables" "$out"
out=$("$SUQL_PROG" --offline --pg "host=$PG_DIR port=$PG_PORT user=suql dbname=suql_test" --json -c "SELECT name, cuisines FROM restaurants WHERE id = 1" 2>&1)
case $out in *'"name":"Hoshi Sushi"'*'{sushi,japanese}'*) ok "pg: --pg CONNINFO, JSON output, a native array" ;; *) notok "pg: --pg CONNINFO, JSON" "$out" ;; esac
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c "SELECT nosuch FROM restaurants" 2>&1)
case $out in *"-c:1:8: column \"nosuch\" does not exist"*"^"*) ok "pg: a server error is placed in the statement with a caret" ;;
*) notok "pg: a server error is placed" "$out" ;; esac
out=$("$SUQL_PROG" --offline "postgresql://nobody@/nodb?host=$T/none" -c "SELECT 1" 2>&1); rc=$?
case $out in *"cannot connect to PostgreSQL"*"PGHOST"*) [ $rc -ne 0 ] && ok "pg: an unreachable server: what to check, non-zero status" ;;
*) notok "pg: an unreachable server" "$out" ;; esac
# the role here is named suql, so "$user" in the default search_path is suql's own schema,
# where the user's tables then go: they are listed, suql's own are not
out=$(printf 'CREATE TABLE mine (a int);\nCREATE TABLE mine2 AS SELECT 1 AS b;\n:tables\n:schema mine2\n' |
	"$SUQL_PROG" --offline "$SUQL_PG" 2>&1)
case $out in *"mine"*"mine2"*"restaurants"*"CREATE TABLE mine2"*)
	case $out in *catalog*|*table_props*) notok "pg: role suql: suql's own tables listed" "$out" ;;
	*) ok "pg: a role named suql: its tables in the schema suql are listed, suql's own are not" ;; esac ;;
*) notok "pg: role suql: tables listed" "$out" ;; esac
pg_psql -c "DROP TABLE mine; DROP TABLE mine2" >/dev/null 2>&1
# --- :import: read and checked as for SQLite, then one COPY in a transaction
cat >"$T/imp.csv" <<'CSV'
id,name,tags,review
1,Alpha,"[""a"",""b""]","A long review with many words about the food, the staff and the atmosphere of the place, which was lovely and calm in the evening."
2,"Beta ""x""",[],"Another long review, with a tab	and a backslash \ and quotes ""here"", about the noise, the wait of forty minutes and the parking."
3,Gamma,"[""c""]",
CSV
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/imp.csv things" 2>&1)
got=$(pg_psql -tA -F'|' -c "SELECT id, name, array_length(tags, 1), tags[2], review IS NULL, position(E'\t' in coalesce(review, '')) > 0, position('\\' in coalesce(review, '')) > 0 FROM things ORDER BY id")
want=$(printf '1|Alpha|2|b|f|f|f\n2|Beta "x"|||f|t|t\n3|Gamma|1||t|f|f')
[ "$got" = "$want" ] && ok "pg: :import sends the rows by COPY: lists as arrays, tabs, backslashes, quotes and NULL kept" ||
	notok "pg: :import by COPY" "$out" "got: $got" "want: $want"
types=$(pg_psql -tA -c "SELECT string_agg(col || '=' || type, ',' ORDER BY col) FROM suql.catalog WHERE tbl = 'things'")
[ "$types" = "review=FREE_TEXT,tags=TEXT[]" ] && ok "pg: ... and records its SUQL types in suql.catalog" || notok "pg: import types" "$types"
printf 'id,n\n1,2\n2,x\n' >"$T/bad.csv"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/bad.csv bad --types n=INTEGER" 2>&1)
case $out in *"bad.csv:3:3: 'x' is not an INTEGER"*)
	[ "$(pg_psql -tA -c "SELECT to_regclass('bad') IS NULL")" = t ] &&
		ok "pg: a bad value: the error at its place in the file, and no table made" ;;
*) notok "pg: import error" "$out" ;; esac
# into a table that exists: checked against its columns and types as on SQLite, appended
# by one COPY naming the file's columns; any error leaves the table as it was
cat >"$T/more.csv" <<'CSV'
name,id,tags
Delta,4,"[""d"",""e""]"
"Eps, ilon",5,[]
CSV
pgrows() { pg_psql -tA -F'|' -c "SELECT id, name, coalesce(cardinality(tags), -1), coalesce(tags[2], '-'), CASE WHEN review IS NULL THEN 'null' ELSE 'set' END FROM things ORDER BY id"; }
before=$(pg_psql -tA -c "SELECT count(*) FROM things")
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/more.csv things" 2>&1)
after=$(pg_psql -tA -c "SELECT count(*) FROM things")
got=$(pgrows | tail -2)
want=$(printf '4|Delta|2|e|null\n5|Eps, ilon|0|-|null')
[ "$before" = 3 ] && [ "$after" = 5 ] && [ "$got" = "$want" ] &&
	ok "pg: :import into a table that exists appends the rows (a list read back as an array)" ||
	notok "pg: :import appends" "$out" "before $before after $after" "got: $got" "want: $want"
types=$(pg_psql -tA -c "SELECT string_agg(col || '=' || type, ',' ORDER BY col) FROM suql.catalog WHERE tbl = 'things'")
[ "$types" = "review=FREE_TEXT,tags=TEXT[]" ] && ok "pg: ... and its SUQL types stay" || notok "pg: append types" "$types"
sq=$T/imp.db
"$SUQL_PROG" --offline "$sq" -c ":import $T/imp.csv things" >/dev/null 2>&1
"$SUQL_PROG" --offline "$sq" -c ":import $T/more.csv things" >/dev/null 2>&1
sgot=$("$SUQL_PROG" --offline --csv --no-headers "$sq" -c "SELECT id || '|' || name || '|' || coalesce(json_array_length(tags), -1) || '|' || coalesce(tags ->> '\$[1]', '-') || '|' || CASE WHEN review IS NULL THEN 'null' ELSE 'set' END FROM things ORDER BY id" 2>&1 | sed 's/^"//; s/"$//; s/""/"/g')
pall=$(pgrows)
[ "$sgot" = "$pall" ] && ok "pg: ... the same rows as the same two files imported on SQLite" ||
	notok "pg: append same as SQLite" "sqlite: $sgot" "pg: $pall"
printf 'id,name,colour\n6,Zeta,red\n' >"$T/extra.csv"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/extra.csv things" 2>&1); rc=$?
sout=$("$SUQL_PROG" --offline "$sq" -c ":import $T/extra.csv things" 2>&1)
case $out in *"extra.csv:1:9: table things has no column 'colour'"*)
	[ $rc -ne 0 ] && [ "$out" = "$sout" ] && [ "$(pg_psql -tA -c "SELECT count(*) FROM things")" = 5 ] &&
		ok "pg: a column the table lacks: SQLite's message, the table unchanged" ||
		notok "pg: a column the table lacks" "$out" "sqlite: $sout" ;;
*) notok "pg: a column the table lacks" "$out" ;; esac
printf 'id,name\n6,Zeta\nseven,Eta\n8,Theta\n' >"$T/badmid.csv"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/badmid.csv things" 2>&1); rc=$?
sout=$("$SUQL_PROG" --offline "$sq" -c ":import $T/badmid.csv things" 2>&1)
case $out in *"badmid.csv:3:1: 'seven' is not an INTEGER"*)
	[ $rc -ne 0 ] && [ "$out" = "$sout" ] && [ "$(pg_psql -tA -c "SELECT count(*) FROM things")" = 5 ] &&
		ok "pg: a bad value mid-file: SQLite's message, no row of the file stored" ||
		notok "pg: a bad value mid-file" "$out" "sqlite: $sout" ;;
*) notok "pg: a bad value mid-file" "$out" ;; esac
# a value only the server refuses (the column is an integer of 4 bytes): rolled back too
pg_psql -q -c "CREATE TABLE small (id serial PRIMARY KEY, n integer, note text)"
printf 'n,note\n1,"a\tb"\n99999999999,x\n' >"$T/big.csv"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/big.csv small" 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(pg_psql -tA -c "SELECT count(*) FROM small")" = 0 ] &&
	ok "pg: a value the server refuses: the COPY rolled back, the table unchanged" || notok "pg: server refusal" "$out"
printf 'note,n\nfirst,1\nsecond,\n' >"$T/small.csv"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/small.csv small" 2>&1)
got=$(pg_psql -tA -F'|' -c "SELECT count(DISTINCT id), string_agg(coalesce(n, -1) || ':' || note, ',' ORDER BY id) FROM small")
[ "$got" = "2|1:first,-1:second" ] &&
	ok "pg: the columns the file lacks get their defaults (a serial key)" || notok "pg: defaults" "$out" "got: $got"
printf '{"note": "third", "n": 3}\n{"note": "fourth"}\n' >"$T/small.jsonl"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/small.jsonl small" 2>&1)
got=$(pg_psql -tA -c "SELECT count(DISTINCT id) || ' ' || string_agg(coalesce(n, -1) || ':' || note, ',' ORDER BY id) FROM small")
[ "$got" = "4 1:first,-1:second,3:third,-1:fourth" ] &&
	ok "pg: a JSONL file appends too (a key a record lacks is NULL)" || notok "pg: JSONL append" "$out" "got: $got"
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/small.csv small --types note=FREE_TEXT" 2>&1)
t=$(pg_psql -tA -c "SELECT type FROM suql.catalog WHERE tbl = 'small' AND col = 'note'")
out2=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/small.csv small --types note=TEXT[]" 2>&1); rc=$?
case $out2 in *"--types: column note of small is text on PostgreSQL, and TEXT[] is stored as text[]"*)
	[ "$t" = FREE_TEXT ] && [ $rc -ne 0 ] && [ "$(pg_psql -tA -c "SELECT count(*) FROM small")" = 6 ] &&
		ok "pg: --types on a table that exists records a SUQL type its column can hold, refuses one it cannot" ||
		notok "pg: --types on append" "$out" "$t" "$out2" ;;
*) notok "pg: --types on append" "$out" "$out2" ;; esac
out=$(printf 'BEGIN;\n:import %s small\nROLLBACK;\n' "$T/small.csv" | "$SUQL_PROG" --offline "$SUQL_PG" 2>&1)
[ "$(pg_psql -tA -c "SELECT count(*) FROM small")" = 6 ] &&
	ok "pg: inside the user's transaction, the append is rolled back with it" || notok "pg: append in a transaction" "$out"

# --- equivalence with SQLite: rows and calls
# q DB SQL: rows (CSV) in $T/rows, counters in $T/v, status returned
q() {
	"$SUQL_PROG" -v --offline --no-cache --csv --no-headers --set budget=0 --set times=off "$1" -c "$2" >"$T/rows" 2>"$T/v"
}
calls() { sed -n 's/^ *llm calls: \([0-9]*\).*/\1/p' "$T/v" | head -1; }
# --- the final step binds the verified rows
q "$SUQL_PG" "SELECT id FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' AND location = 'Palo Alto' ORDER BY id"
grep -q 'restaurants.id = ANY(\$1::bigint\[\])' "$T/v" && grep -q '^  row identity: restaurants.id (primary key)$' "$T/v" &&
	ok "pg: the plan shows the final SQL with the rows bound as \$1, by the primary key" ||
	notok "pg: the final SQL binds \$1" "$(cat "$T/v")"
grep -q "ORDER BY id" "$T/v" && ! grep -q "suql_atom\|'(0," "$T/v" &&
	ok "pg: no verified row is pasted into the SQL" || notok "pg: no row pasted" "$(cat "$T/v")"

# --- read-only: what the chat agent runs (read-only mode) cannot write
pg_psql -c "CREATE TABLE notes (n int)" >/dev/null 2>&1
rc_ro=0
"$SUQL_PROG" --offline --readonly "$SUQL_PG" -c "INSERT INTO notes VALUES (1)" >"$T/ro" 2>&1 || rc_ro=$?
cnt=$(pg_psql -tA -c "SELECT count(*) FROM notes")
[ "$cnt" = 0 ] && ok "pg: --readonly leaves the database unchanged" || notok "pg: --readonly" "$(cat "$T/ro") count $cnt"

# --- inside the user's own transaction: a free-text query and a DDL run in it, and a
# ROLLBACK takes the DDL (and its catalog rows) back
out=$(printf '%s\n' "BEGIN;" \
	"CREATE TABLE tx_t (id int, body FREE_TEXT);" \
	"SELECT count(*) FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' AND location = 'Palo Alto';" \
	"ROLLBACK;" | "$SUQL_PROG" --offline --no-cache --csv --no-headers "$SUQL_PG" 2>&1)
left=$(pg_psql -tA -c "SELECT to_regclass('tx_t') IS NULL AND NOT EXISTS (SELECT 1 FROM suql.catalog WHERE tbl = 'tx_t')")
case $out in [0-9]*) [ "$left" = t ] && ok "pg: in the user's transaction: the query runs in it, ROLLBACK undoes the DDL and its catalog rows" ||
	notok "pg: user's transaction" "$out" "left: $left" ;;
*) notok "pg: user's transaction" "$out" ;; esac

# --- read-only mode (the chat agent's statements): READ ONLY, statement_timeout (a unit test
# of the engine, run here against this server)
SUQL_PG=$SUQL_PG "$SUQL_BUILD/unit/test_pg" 2>&1

out=$("$SUQL_PROG" --offline --no-cache --set optimize=off "$SUQL_PG" -c "SELECT id FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes'" 2>&1)
case $out in *"not supported on PostgreSQL yet: optimize off"*) ok "pg: optimize off is refused by name, not ignored" ;;
*) notok "pg: optimize off refused" "$out" ;; esac

# --- the operators SQLite has and PostgreSQL not yet: refused by name, nothing run
while IFS='|' read -r what sql; do
	out=$(printf '%b\n' "$sql" | "$SUQL_PROG" --offline --no-cache "$SUQL_PG" 2>&1)
	case $out in *"not supported on PostgreSQL yet: $what"*) ok "pg: $what is refused by name" ;;
	*) notok "pg: $what refused" "$out" ;; esac
done <<'EOF_CASES'
a semantic join judged pair by pair (matches() 1: its block is correlated|SELECT r.name, (SELECT count(*) FROM restaurants b WHERE matches(r.name, b.name, 'the same place?')) FROM restaurants r LIMIT 1;
free text evaluated row by row|SELECT name, (SELECT count(*) FROM restaurants AS r2 WHERE r2.location = r.location AND answer(r2.reviews, 'is it quiet?') = 'Yes') FROM restaurants AS r WHERE id <= 2;
free text over a function in FROM other than unnest()|SELECT k FROM restaurants AS r, json_each(r.cuisines) AS k WHERE r.id <= 2 AND answer(k, 'is it Asian?') = 'Yes';
free text in a statement other than SELECT|CREATE VIEW kidsafe AS SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes';
EXPLAIN QUERY PLAN of a statement with free text|EXPLAIN QUERY PLAN SELECT id FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes';
EOF_CASES

# --- EXPLAIN of a statement with free text or an ENUM literal to classify: suql's plan,
# as on SQLite, and nothing asked (no request at the loopback server, no mapping kept)
start_server yes
maps=$(pg_psql -tA -c "SELECT count(*) FROM suql.enum_map" 2>/dev/null || echo 0)
for sql in "EXPLAIN SELECT name FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is it romantic?') = 'Yes' LIMIT 2;" \
           "EXPLAIN SELECT location, count(*) FROM restaurants WHERE price = 'affordable' AND answer(reviews, 'is it quiet?') = 'Yes' GROUP BY location;" \
           "EXPLAIN UPDATE restaurants SET name = summary(reviews) WHERE location = 'Palo Alto' AND answer(reviews, 'is it quiet?') = 'Yes';"; do
	for db in "$demo" "$SUQL_PG"; do
		SUQL_LLM_URL=$URL SUQL_MODEL=m "$SUQL_PROG" -v --no-cache "$db" -c "$sql" >"$T/x_out" 2>&1
		grep -E '^  (expected|worst case|block [0-9]+ [^:]*):|^    (walk|where|expression|conjunct [0-9]+: [0-9]+ rows|  free text|    [0-9]+\. )|^  enum:|^    .affordable' "$T/x_out" >"$T/x_$([ "$db" = "$demo" ] && echo s || echo p)"
		grep -q "EXPLAIN: nothing ran and no model was asked" "$T/x_out" || notok "pg: EXPLAIN says nothing ran" "$(cat "$T/x_out")"
	done
	if [ -s "$T/x_p" ] && cmp -s "$T/x_s" "$T/x_p"; then
		ok "pg: EXPLAIN shows the plan, its estimate and walk as SQLite's: $(head -c 60 "$T/x_p" | tr '\n' ' ')"
	else
		notok "pg: EXPLAIN as SQLite's" "$(diff "$T/x_s" "$T/x_p" | head -10)"
	fi
done
n=$(grep -c . "$LOG" 2>/dev/null); n=${n:-0}
[ "$n" = 0 ] && ok "pg: ... and no request reached the model" || notok "pg: EXPLAIN asked the model" "$n requests"
after=$(pg_psql -tA -c "SELECT count(*) FROM suql.enum_map" 2>/dev/null || echo 0)
[ "$maps" = "$after" ] && ok "pg: ... and no ENUM mapping was kept" || notok "pg: EXPLAIN kept a mapping" "$maps -> $after"
stop_server

# --- bm25() on PostgreSQL: the server's full-text relevance (ts_rank_cd of the column's
# to_tsvector against the query's words, any of them), not FTS5's BM25: the numbers differ
# from SQLite's, so what is checked is which rows score above 0 and that the best rows
# hold the words. bm_check TAG DOC: DOC is the text expression the plan must show
bm() { "$SUQL_PROG" --offline --no-cache --csv --no-headers "$SUQL_PG" -c "$1" 2>&1; }
bm_check() {
	tag=$1 doc=$2
	readme=$(grep -m1 '^ *\$ \./suql -c ".*bm25(' README.md | sed 's/^ *\$ \.\/suql -c "\(.*\)" build\/demo\.db$/\1/')
	out=$("$SUQL_PROG" --offline --no-cache "$SUQL_PG" -c "$readme" 2>&1)
	top=$(bm "$readme" | cut -d, -f1)
	held=$(pg_psql -tA -c "SELECT name FROM restaurants WHERE array_to_string(reviews, ' ') ~* '(quiet|corner|tabl)'")
	bad=$(printf '%s\n' "$top" | grep -vxF "$held")
	case $out in *relevance*"(3 rows)"*) [ -z "$bad" ] && [ "$(printf '%s\n' "$top" | wc -l)" = 3 ] &&
		ok "pg: bm25 ($tag): the README's example runs, its 3 rows hold the query's words" ||
		notok "pg: bm25 ($tag): README example rows" "$out" "not holding the words: $bad" ;;
	*) notok "pg: bm25 ($tag): the README's example runs" "$readme" "$out" ;; esac
	got=$(bm "SELECT id FROM restaurants WHERE bm25(reviews, 'quiet corner table') > 0 ORDER BY id")
	want=$(pg_psql -tA -c "SELECT id FROM restaurants WHERE to_tsvector('english', array_to_string(reviews, ' ')) @@ to_tsquery('english', 'quiet | corner | table') ORDER BY id")
	words=$(pg_psql -tA -c "SELECT id FROM restaurants WHERE array_to_string(reviews, ' ') ~* '(quiet|corner|tabl)' ORDER BY id")
	[ -n "$got" ] && [ "$got" = "$want" ] && [ -z "$(printf '%s\n' "$got" | grep -vxF "$words")" ] &&
		[ "$(printf '%s\n' "$got" | wc -l)" -lt 112 ] &&
		ok "pg: bm25 ($tag): the rows scoring above 0 are those whose reviews hold a query word ($(printf '%s\n' "$got" | wc -l) rows)" ||
		notok "pg: bm25 ($tag): rows above 0" "got: $(echo $got)" "want: $(echo $want)"
	got=$(bm "SELECT id FROM restaurants ORDER BY bm25(reviews, 'sushi') DESC, id LIMIT 3")
	bad=$(printf '%s\n' "$got" | grep -vxF "$(pg_psql -tA -c "SELECT id FROM restaurants WHERE array_to_string(reviews, ' ') ~* 'sushi'")")
	[ "$(printf '%s\n' "$got" | wc -l)" = 3 ] && [ -z "$bad" ] &&
		ok "pg: bm25 ($tag): ORDER BY bm25(...) DESC LIMIT 3 returns rows holding the word" ||
		notok "pg: bm25 ($tag): ORDER BY bm25 DESC LIMIT 3" "$got"
	a=$(bm "SELECT count(*) FROM restaurants WHERE bm25(reviews, 'it''s quiet & cozy | !loud (corner):*') > 0")
	b=$(bm "SELECT count(*) FROM restaurants WHERE bm25(reviews, 'it s quiet cozy loud corner') > 0")
	case $a in [1-9]*) [ "$a" = "$b" ] && ok "pg: bm25 ($tag): quotes and tsquery operators in the query are words, not syntax ($a rows)" ||
		notok "pg: bm25 ($tag): operators as data" "$a" "$b" ;;
	*) notok "pg: bm25 ($tag): operators as data" "$a" ;; esac
	out=$("$SUQL_PROG" --offline --no-cache --csv "$SUQL_PG" -c "SELECT id, bm25(name, 'sushi') FROM restaurants WHERE id = 1" 2>&1)
	out=$out$("$SUQL_PROG" -v --offline --no-cache "$SUQL_PG" -c "SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' ORDER BY bm25(reviews, 'sushi') DESC LIMIT 1" 2>&1)
	case $out in "id,\"bm25(name, 'sushi')\""*"1,0."[0-9]*"ts_rank_cd(to_tsvector(CAST('english' AS regconfig), $doc(reviews))"*"plainto_tsquery(CAST('english' AS regconfig), 'sushi')"*)
		ok "pg: bm25 ($tag): printed as ts_rank_cd over $doc(column), the column named as written" ;;
	*) notok "pg: bm25 ($tag): printed as ts_rank_cd over $doc" "$out" ;; esac
}
bm_check "no index" to_json
# --- :why on both backends: the README's example statement (a plain AND of verify atoms:
# the three steps) and the same with OR (the general path), :why N, :why LABEL and :why
# key=K, and :why group of answer_agg(). The output must be the same but for the row key's
# wording: a row of a table with an integer primary key is known by that key on
# PostgreSQL ("restaurants id 15"), by its rowid on SQLite ("restaurants rowid 15"), the
# same number. The README's statement with LIMIT and no ORDER BY is run as written too:
# there Postgres ranks the candidates by ts_rank_cd and SQLite by BM25 (doc/postgres.md),
# so other rows may pass first; :why must tell the same about a row both return.
why_same() {   # why_same NAME STATEMENTS
	printf '%b\n' "$2" | "$SUQL_PROG" --offline --no-cache "$demo" >"$T/why_s" 2>&1
	printf '%b\n' "$2" | "$SUQL_PROG" --offline --no-cache "$SUQL_PG" 2>&1 |
		sed '/^row [0-9]* of the result, key /s/ id \([0-9]\)/ rowid \1/g' >"$T/why_p"
	if grep -q 'error' "$T/why_p" || ! grep -q '^row 1 of the result' "$T/why_p"; then
		notok "pg: :why $1" "$(grep -m3 'error' "$T/why_p")"
	elif cmp -s "$T/why_s" "$T/why_p"; then
		ok "pg: :why $1: the same as on SQLite"
	else
		notok "pg: :why $1 the same as on SQLite" "$(diff "$T/why_s" "$T/why_p" | head -8)"
	fi
}
# (name only: a rating of 4 prints 4 from SQLite and 4.0 from Postgres's numeric)
why_same "of the README's statement, all rows (three steps)" "SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' AND rating >= 4 ORDER BY id;\n:why 1\n:why Kaminari\n:why key=70\n:why 3"
why_same "of a join (three steps: each table's primary key)" "SELECT a.name, b.name FROM restaurants a, restaurants b WHERE a.id < 4 AND b.id = a.id + 1 AND answer(a.reviews, 'is it romantic?') = 'Yes' ORDER BY a.id;\n:why 1\n:why key=1"
why_same "of a join with OR (the general path)" "SELECT a.name, b.name FROM restaurants a, restaurants b WHERE a.id < 4 AND b.id = a.id + 1 AND (answer(a.reviews, 'is it romantic?') = 'Yes' OR b.id = 3) ORDER BY a.id;\n:why 1\n:why 2"
why_same "with OR (the general path)" "SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' OR rating >= 4.8 ORDER BY id;\n:why 1\n:why Kaminari\n:why key=70\n:why 2"
out=$(printf '%b\n' "SELECT location, answer_agg(reviews, 'what do people like?') FROM restaurants WHERE id <= 12 GROUP BY location;\n:why group\n:why group 1" | "$SUQL_PROG" --offline --no-cache "$demo" 2>&1)
outp=$(printf '%b\n' "SELECT location, answer_agg(reviews, 'what do people like?') FROM restaurants WHERE id <= 12 GROUP BY location;\n:why group\n:why group 1" | "$SUQL_PROG" --offline --no-cache "$SUQL_PG" 2>&1)
case $outp in *"group 1: answer_agg(reviews"*"passages used"*)
	[ "$out" = "$outp" ] && ok "pg: :why group N, the same as on SQLite" ||
		notok "pg: :why group the same" "$(printf '%s\n' "$out" >"$T/g_s"; printf '%s\n' "$outp" >"$T/g_p"; diff "$T/g_s" "$T/g_p" | head -6)" ;;
*) notok "pg: :why group N" "$outp" ;; esac
readme=$(sed -n "s/^ *\$ printf \"\(SELECT name, rating FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' AND rating >= 4 LIMIT 3;\)\\\\n:why 1.*/\1/p" README.md)
if [ -z "$readme" ]; then
	notok "pg: the README's :why example is found"
else
	sawhy() { printf '%s\n:why Saffron\n' "$readme" | "$SUQL_PROG" --offline --no-cache "$1" 2>&1 |
		sed -n '/^row [0-9]* of the result/,$p' | grep -v '^row \|^  cost: \|^  wave: '; }
	a=$(sawhy "$demo"); b=$(sawhy "$SUQL_PG")
	case $b in *"answer(reviews, 'is it romantic?') = 'Yes': yes"*"decided by: Lovely for a romantic evening."*)
		[ "$a" = "$b" ] && ok "pg: :why of the README's statement as written: the same evidence for a row both return (the request and wave may differ: the ranking does)" ||
			notok "pg: :why README statement" "$a" "$b" ;;
	*) notok "pg: :why README statement" "$b" ;; esac
fi

# --- more shapes on both backends: a constrained answer in WHERE, free text in a CASE of
# the result columns, a typed answer in ORDER BY without LIMIT
while IFS= read -r line; do
	q "$demo" "$line"; cp "$T/rows" "$T/x_s"; calls_s=$(calls)
	q "$SUQL_PG" "$line"; calls_p=$(calls)
	cmp -s "$T/x_s" "$T/rows" && [ -n "$calls_p" ] && [ "$calls_s" = "$calls_p" ] &&
		ok "pg: same rows and $calls_p calls: $(printf '%s' "$line" | cut -c1-70)" ||
		notok "pg: $line" "calls '$calls_s' '$calls_p'" "$(diff "$T/x_s" "$T/rows" | head -4)" "$(grep -m2 'error' "$T/v")"
done <<'EOF_MORE'
SELECT id FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is parking easy or hard?', ARRAY['easy', 'hard']) = 'easy' ORDER BY id;
SELECT id, CASE WHEN answer(reviews, 'is it good for kids?') = 'Yes' THEN 'kids' ELSE 'adults' END FROM restaurants WHERE location = 'Cupertino' ORDER BY id;
SELECT id FROM restaurants WHERE location = 'San Jose' ORDER BY answer(reviews, 'how many minutes is the wait?')::int DESC NULLS LAST, id;
SELECT r.id, d FROM restaurants AS r, unnest(popular_dishes) AS t(d) WHERE r.id <= 20 AND (answer(d, 'is this a pasta dish?') = 'Yes' OR answer(d, 'is this a noodle dish?') = 'Yes') ORDER BY r.id, d LIMIT 3;
SELECT r.id, one FROM restaurants AS r, unnest(reviews) AS one WHERE r.id <= 30 AND (answer(one, 'does this review mention parking?') = 'Yes' OR answer(one, 'is the wait long?') = 'Yes') ORDER BY r.id, one;
EOF_MORE

# --- a mistake in a statement of the planner's path: placed with a caret, before any call
out=$("$SUQL_PROG" -v --offline --no-cache "$SUQL_PG" -c "SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' OR nosuch = 1" 2>&1)
case $out in *"-c:1:77: column \"nosuch\" does not exist"*"^"*)
	case $out in *"llm calls"*) notok "pg: a mistake is placed before any call" "$out" ;;
	*) ok "pg: a mistake in a statement of the planner's path is placed with a caret, before any call" ;; esac ;;
*) notok "pg: a mistake in the planner's path placed" "$out" ;; esac

# --- INSERT ... SELECT with free text: the same rows inserted, the same calls
for db in "$demo" "$SUQL_PG"; do
	printf '%s\n' "CREATE TABLE kids (id int);" \
		"INSERT INTO kids SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' OR price = 'cheap';" \
		"SELECT count(*), sum(id) FROM kids;" |
		"$SUQL_PROG" -v --offline --no-cache --csv --no-headers --set times=off "$db" >"$T/ins" 2>&1
	grep -E '^[0-9]+,[0-9]+$|llm calls' "$T/ins" >"$T/ins-$([ "$db" = "$demo" ] && echo s || echo p)"
done
cmp -s "$T/ins-s" "$T/ins-p" && grep -q 'llm calls: [1-9]' "$T/ins-p" && grep -q '^[1-9][0-9]*,' "$T/ins-p" &&
	ok "pg: INSERT ... SELECT with free text under OR: the same rows inserted, the same calls" ||
	notok "pg: INSERT ... SELECT" "$(cat "$T/ins-s")" "$(cat "$T/ins-p")"

# --- ENUM classification: the mapping is kept in suql.enum_map (the schema exists: the
# column's ENUM type is declared there), used again without a call; read-only mode
# classifies but stores nothing, and says so
q "$SUQL_PG" "SELECT id FROM restaurants WHERE price = 'posh' ORDER BY id"; c1=$(calls)
q "$SUQL_PG" "SELECT id FROM restaurants WHERE price = 'posh' ORDER BY id"; c2=$(calls)
stored=$(pg_psql -tA -c "SELECT vals FROM suql.enum_map WHERE tbl = 'restaurants' AND col = 'price' AND literal = 'posh'")
[ "$c1" = 1 ] && [ "$c2" = 0 ] && [ -n "$stored" ] &&
	ok "pg: an ENUM literal is classified once (1 call, then 0), its mapping kept in suql.enum_map" ||
	notok "pg: ENUM mapping kept" "calls $c1 then $c2, stored '$stored'"
out=$("$SUQL_PROG" -v --offline --no-cache --readonly "$SUQL_PG" -c "SELECT id FROM restaurants WHERE price = 'swanky' ORDER BY id" 2>&1)
left=$(pg_psql -tA -c "SELECT count(*) FROM suql.enum_map WHERE literal = 'swanky'")
case $out in *"was not stored"*) [ "$left" = 0 ] && ok "pg: read-only mode classifies but stores no mapping, with a warning" ||
	notok "pg: read-only ENUM" "$left" ;;
*) notok "pg: read-only ENUM warning" "$out" ;; esac

# --- the budget: refused before any call, as on SQLite
"$SUQL_PROG" --offline --no-cache --set budget=2 "$demo" -c "SELECT id FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes'" >/dev/null 2>"$T/b_s"
"$SUQL_PROG" --offline --no-cache --set budget=2 "$SUQL_PG" -c "SELECT id FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes'" >/dev/null 2>"$T/b_p"
grep -q "more than the budget of 2" "$T/b_p" && cmp -s "$T/b_s" "$T/b_p" &&
	ok "pg: over the budget: refused before any call, with SQLite's words and count" ||
	notok "pg: the budget" "$(cat "$T/b_s" "$T/b_p")"

# --- :index: GIN indexes; the ranking then reads their expression
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":index restaurants" 2>&1)
case $out in *"restaurants.reviews: GIN index"*) ok "pg: :index makes a GIN index per FREE_TEXT column" ;; *) notok "pg: :index" "$out" ;; esac
am=$(pg_psql -tA -c "SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam WHERE c.relname = 'suql_fts_restaurants_reviews'")
[ "$am" = gin ] && ok "pg: ... and Postgres has it, as GIN" || notok "pg: the GIN index exists" "'$am'"
q "$SUQL_PG" "SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' LIMIT 2"
grep -q "ts_rank_cd(to_tsvector('english'::regconfig, suql.doc(reviews))" "$T/v" && [ "$(wc -l <"$T/rows")" = 2 ] &&
	ok "pg: a LIMIT without ORDER BY ranks in Postgres (ts_rank_cd over the index's expression)" ||
	notok "pg: ranking in Postgres" "$(cat "$T/v")"
bm_check ":index" suql.doc
# --- the chat agent's schema: the notes of stored values (one of ..., values such as ...)
# are read from the server as from SQLite, and are the same
for b in s p; do
	start_server "chat_$b"
	[ $b = s ] && db=$demo || db=$SUQL_PG
	echo "any romantic places in Palo Alto?" |
		SUQL_LLM_URL=$URL SUQL_MODEL=m "$SUQL_PROG" --chat "$db" >/dev/null 2>&1
	stop_server
	# the notes of restaurants, up to the blank line after them (other tables follow)
	sed -n 1p "$LOG" | grep -o 'values in restaurants:[^"]*' | sed 's/\\\\n\\\\n.*//; s/\\*$//' >"$T/notes_$b"
done
if grep -q "location: one of 'Palo Alto'" "$T/notes_p" && grep -q "cuisines: values such as" "$T/notes_p" &&
   cmp -s "$T/notes_s" "$T/notes_p"; then
	ok "pg: the chat agent's schema notes the stored values as on SQLite"
else
	notok "pg: chat schema notes" "sqlite: $(cut -c280-900 "$T/notes_s")" "postgres: $(cut -c280-900 "$T/notes_p")"
fi
# --- :import --index (after :index made suql.doc): the rows by COPY, then :index's GIN index of the free-text column
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/imp.csv things_ix --types review=FREE_TEXT --index" 2>&1); rc=$?
idx=$(pg_psql -tA -c "SELECT indexname FROM pg_indexes WHERE tablename = 'things_ix'")
case $out in *"imported 3 rows into things_ix"*"things_ix.review: GIN index suql_fts_things_ix_review"*)
	[ $rc -eq 0 ] && [ "$idx" = "suql_fts_things_ix_review" ] &&
		ok "pg: :import --index imports, then makes the GIN index of the free-text column" ||
		notok "pg: :import --index" "rc $rc" "$out" "indexes: $idx" ;;
*) notok "pg: :import --index" "$out" "indexes: $idx" ;; esac
out=$("$SUQL_PROG" --offline "$SUQL_PG" -c ":import $T/none.csv things_nx --index" 2>&1); rc=$?
n=$(pg_psql -tA -c "SELECT count(*) FROM pg_indexes WHERE tablename = 'things_nx'")
[ $rc -ne 0 ] && [ "$n" = 0 ] && ok "pg: ... a failed import makes no index" || notok "pg: failed import --index" "rc $rc" "$out" "indexes: $n"
pg_stop
