#!/bin/sh
# What the PostgreSQL backend used to refuse, run on both backends: each statement runs on
# a SQLite database and on the same rows in a PostgreSQL server of the suite's own
# (tests/pg.sh), against build/llmserver, and must give the same rows (for a data change:
# the same table afterwards) and the same number of requests at the server (counted,
# never timed).
#   - a semantic top-k (ORDER BY free text with LIMIT): candidates ranked by BM25, scored
#     in waves, the walk stopping once k have the best value;
#   - a cascade (llm.cascade_target): a sample judged by the main model, a learned proxy
#     deciding the rest outside its thresholds;
#   - free text in UPDATE and DELETE: the same values evaluated, one call each, the same
#     rows changed; all or nothing on PostgreSQL when a reply cannot be read;
#   - CREATE TABLE ... AS with free text: WITH NO DATA, then INSERT ... SELECT with the
#     values bound, in one transaction;
# Skipped, saying why, when no server can be started.
set -u
. "$(dirname "$0")/../lib.sh"
. tests/pg.sh
T=$SUQL_TMP/pgops
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres ops: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi
OK_PREFIX="pg ops: "
trap 'stop_server; pg_stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
lines() { if [ -f "$LOG" ]; then wc -l <"$LOG" | tr -d ' '; else echo 0; fi; }

# run DB SQL [options...]: rows as CSV in $T/rows, -v output in $T/err, exit status in
# $st, requests the server received in $req
run() {
	db=$1 sql=$2
	shift 2
	before=$(lines)
	"$prog" -v --set times=off --csv --no-headers --no-cache --llm-url "$URL" --model m \
		"$@" "$db" -c "$sql" >"$T/rows" 2>"$T/err"
	st=$?
	req=$(($(lines) - before))
}
# both NAME DB SQL [options...]: on DB and on PostgreSQL, the same rows, status, requests
# and error or warning lines; WANT_ROWS / WANT_REQ, when set, are checked too; with TIES=1
# the rows are compared sorted (rows that tie in ORDER BY come in either database's order)
both() {
	name=$1 db=$2 sql=$3
	shift 3
	run "$db" "$sql" "$@"
	[ -n "${TIES:-}" ] && sort -o "$T/rows" "$T/rows"
	cp "$T/rows" "$T/r_s"; cp "$T/err" "$T/err_s"; st_s=$st; req_s=$req
	grep -E '^(error|warning)' "$T/err" >"$T/e_s"
	run "$SUQL_PG" "$sql" "$@"
	[ -n "${TIES:-}" ] && sort -o "$T/rows" "$T/rows"
	grep -E '^(error|warning)' "$T/err" >"$T/e_p"
	rows=$(paste -sd ';' - <"$T/rows")
	if ! cmp -s "$T/r_s" "$T/rows" || [ "$st_s" != "$st" ] || [ "$req_s" != "$req" ] ||
	   ! cmp -s "$T/e_s" "$T/e_p"; then
		notok "$name" "status $st_s / $st, requests $req_s / $req" \
			"$(diff "$T/r_s" "$T/rows" | head -6)" "$(diff "$T/e_s" "$T/e_p" | head -4)" \
			"$(grep -m3 -E '^(error|warning)' "$T/err")"
	elif [ -n "${WANT_ROWS:-}" ] && [ "$rows" != "$WANT_ROWS" ]; then
		notok "$name: the rows" "got:  $rows" "want: $WANT_ROWS"
	elif [ -n "${WANT_REQ:-}" ] && [ "$req" != "$WANT_REQ" ]; then
		notok "$name: the requests" "got:  $req" "want: $WANT_REQ"
	else
		ok "$name: same rows, $req request(s) on both"
	fi
	WANT_ROWS="" WANT_REQ="" TIES=""
}

# ---- a semantic top-k: 60 reviews (tests/engine/topk.sql, with its scripted scores
# tests/engine/topk-rules.json); three speak of romance and are scored 5, one 4, one 1,
# the rest 2
top=$T/top.db
"$prog" --bail "$top" >/dev/null <"$SUQL_TOP/tests/engine/topk.sql"
cp "$SUQL_TOP/tests/engine/topk-rules.json" "$T/top.json"
if ! pg_load_demo "$top"; then
	notok "the databases load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
start_server top --rules "$T/top.json"
R="answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int"
TIES=1 WANT_ROWS="Place 17,5;Place 38,5;Place 52,5" WANT_REQ=3 \
	both "top-k: one request at a time, the three ranked first are the 5s" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 3;" --set batch=1 --concurrency 1
grep -q 'semantic top-k: 3 of 60 candidates scored in 3 waves (stopped: the top k had the best value)' "$T/err" &&
	ok "top-k: the counters say so on PostgreSQL" || notok "top-k: the counters say so on PostgreSQL" "$(cat "$T/err")"
TIES=1 WANT_REQ=8 both "top-k: 8 in flight" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 3;" --set batch=1
TIES=1 WANT_REQ=60 both "top-k: LIMIT 4, the best value too rare: every candidate scored" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 4;" --set batch=1
WANT_ROWS="Place 9" both "top-k: ASC NULLS LAST finds the lowest" "$top" \
	"SELECT name FROM r ORDER BY $R ASC NULLS LAST LIMIT 1;" --set batch=1
both "top-k: a structured filter first" "$top" \
	"SELECT name FROM r WHERE id > 20 ORDER BY $R DESC LIMIT 2;" --set batch=1 --concurrency 1
TIES=1 both "top-k: batched, 4 to a request" "$top" \
	"SELECT id FROM r ORDER BY $R DESC LIMIT 3;" --set batch=4 --concurrency 1
stop_server

# ---- a cascade (llm.cascade_target): 600 generated restaurants, a main model whose
# verdicts follow the words; the sample (a shuffle of the candidates, in the order SQLite
# lists them: the integer primary key's), the proxy's thresholds and the candidates left
# to the main model are the same on both, so are the requests
gdb=$T/gen.db
"$SUQL_BUILD/gen" -n 600 --db "$gdb" --quiet >/dev/null 2>"$T/gen.err" || notok "gen" "$(cat "$T/gen.err")"
if ! pg_load_demo "$gdb"; then
	notok "the generated restaurants load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
start_server cascade --yes-words kid,child,famil
CQ="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;"
both "cascade: a learned proxy in front of the main model" "$gdb" "$CQ" \
	--set budget=0 --set llm.cascade_target=0.95 --set llm.cascade_sample=100
judges() { grep -o 'judges: learned proxy [0-9]* .*main model [0-9]*' "$1"; }
j_s=$(judges "$T/err_s") j_p=$(judges "$T/err")
if [ -n "$j_p" ] && [ "$j_s" = "$j_p" ]; then ok "cascade: ... the same split between the judges ($j_p)"
else notok "cascade: ... the same split between the judges" "SQLite: $j_s" "PostgreSQL: $j_p"; fi
grep -q "cascade, conjunct 1: a learned proxy in front of the main model" "$T/err" &&
	ok "cascade: the plan names the cascade on PostgreSQL" || notok "cascade: the plan names the cascade on PostgreSQL" "$(head -20 "$T/err")"
both "cascade: a structured filter and a sample of 50" "$gdb" \
	"SELECT id FROM restaurants WHERE rating >= 3 AND answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;" \
	--set budget=0 --set llm.cascade_target=0.9 --set llm.cascade_sample=50
j_s=$(judges "$T/err_s") j_p=$(judges "$T/err")
if [ -n "$j_p" ] && [ "$j_s" = "$j_p" ]; then ok "cascade: ... the same split between the judges ($j_p)"
else notok "cascade: ... the same split between the judges" "SQLite: $j_s" "PostgreSQL: $j_p"; fi
stop_server

# ---- free text in UPDATE and DELETE: SQLite calls its functions per row, on demand (one
# call per value); PostgreSQL evaluates the same values first (the WHERE's conjuncts left
# to right, each where those before it are not false; SET and RETURNING for the rows the
# WHERE keeps), then runs the statement with them bound as arrays. Each statement runs on
# a fresh copy of the table on both; the table afterwards must be the same.
ddb=$T/dml.db
"$prog" --bail "$ddb" >/dev/null <<'SQL'
CREATE TABLE d (id INTEGER PRIMARY KEY, name TEXT, city TEXT, review FREE_TEXT, note TEXT);
INSERT INTO d VALUES (1, 'A', 'Alto', 'Great for kids, a play corner.', NULL),
 (2, 'B', 'Alto', 'Quiet wine bar.', NULL), (3, 'C', 'Bay', 'Kids menu and high chairs.', NULL),
 (4, 'D', 'Bay', 'Loud club.', NULL), (5, 'E', 'Alto', NULL, NULL),
 (6, 'F', 'Cove', 'Great for kids, a play corner.', NULL);
CREATE TABLE c (city TEXT, kids TEXT);
INSERT INTO c VALUES ('Alto', 'yes'), ('Bay', 'no');
SQL
cat >"$T/dml.json" <<'EOF2'
[{"match": "Loud", "content": "somewhere around five"},
 {"match": "Quiet", "content": "3"},
 {"match": "kids", "content": "7"},
 {"match": "Kids", "content": "8"}]
EOF2
cp "$ddb" "$T/dml0.db"
pg_fresh() {   # the tables of dml0.db, anew in PostgreSQL
	pg_psql -c "DROP TABLE IF EXISTS d, c; DELETE FROM suql.catalog WHERE tbl IN ('d', 'c')" >/dev/null 2>&1
	pg_load_demo "$T/dml0.db"
}
table() { "$prog" --csv "$1" -c "SELECT * FROM d ORDER BY id; SELECT * FROM c ORDER BY city;" 2>&1; }
# dml NAME SQL [options...]: both on fresh tables, then the same tables afterwards
notes() { "$prog" --csv --no-headers "$1" -c "SELECT id, note FROM d ORDER BY id" 2>&1 | paste -sd ';' -; }
dml() {
	dname=$1 dsql=$2
	shift 2
	cp "$T/dml0.db" "$ddb"
	if ! pg_fresh; then notok "$dname: the tables load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"; return; fi
	want_table=${WANT_TABLE:-}
	WANT_TABLE=""
	both "$dname" "$ddb" "$dsql" "$@"
	check "$dname: ... the same tables afterwards" "$(table "$SUQL_PG")" "$(table "$ddb")"
	[ -n "$want_table" ] && check "$dname: ... the notes" "$(notes "$SUQL_PG")" "$want_table"
}
start_server dml --yes-words kid
K="answer(review, 'is it good for kids?') = 'Yes'"
WANT_REQ=2 WANT_TABLE="1,kids;2,;3,;4,;5,;6," \
	dml "update: a structured conjunct first: only its rows are asked about" \
	"UPDATE d SET note = 'kids' WHERE city = 'Alto' AND $K;"
grep -qF "WHERE city = 'Alto' AND ((\$1::jsonb ->> " "$T/err" &&
	ok "update: the plan shows the statement with the values bound as a parameter" ||
	notok "update: the plan shows the statement with the values bound" "$(cat "$T/err")"
WANT_REQ=4 WANT_TABLE="1,kids;2,;3,;4,;5,;6," \
	dml "update: free text first: every row with a text is asked about (a repeated text once)" \
	"UPDATE d SET note = 'kids' WHERE $K AND city = 'Alto';"
WANT_REQ=2 WANT_TABLE="1,kids;2,;3,;4,;5,;6," \
	dml "update: free text first, the integer primary key's range after: only that range (SQLite scans its rowids)" \
	"UPDATE d SET note = 'kids' WHERE $K AND id <= 2;"
WANT_REQ=4 dml "delete: under OR" "DELETE FROM d WHERE $K OR city = 'Cove';"
WANT_REQ=4 WANT_TABLE="1,Yes;2,No;3,Yes;4,No;5,;6," \
	dml "update: SET a constrained answer, for the rows WHERE keeps" \
	"UPDATE d SET note = answer(review, 'is it good for kids?', ARRAY['Yes', 'No']) WHERE id <= 4;"
WANT_ROWS='1,"Great for kids, a play corner.";2,Quiet wine bar.;5,' WANT_REQ=2 \
	dml "update: SET summary() with RETURNING" \
	"UPDATE d SET note = summary(review) WHERE city = 'Alto' RETURNING id, note;" --set batch=1
WANT_REQ=6 WANT_TABLE='1,"Great for kids, a play corner.";2,;3,Kids menu and high chairs.;4,;5,;6,' \
	dml "update: free text in SET and WHERE (4 verdicts, then 2 summaries)" \
	"UPDATE d SET note = summary(review) WHERE city <> 'Cove' AND $K;"
WANT_REQ=4 dml "update ... FROM another table" \
	"UPDATE d SET note = c.kids FROM c WHERE c.city = d.city AND $K;"
WANT_REQ=0 dml "delete: over the budget: refused before any call" \
	"DELETE FROM d WHERE $K;" --set budget=3
cp "$T/dml0.db" "$ddb"
pg_fresh
run "$SUQL_PG" "UPDATE d SET id = summary(review) WHERE $K;"
grep -q 'error: -c:1:14: column "id" is of type integer but expression is of type text' "$T/err" &&
	check "update: a type error in SET: placed in the statement before any call" "$st,$req" 1,0 ||
	notok "update: a type error in SET: placed in the statement" "$(cat "$T/err")"
stop_server
# an unreadable reply (asked again, then unknown): with llm.unreadable warn, NULL on both;
# by default PostgreSQL changes nothing (all or nothing: the statement does not run)
start_server dml2 --rules "$T/dml.json"
L="answer(review, 'how loud, 1 to 10?')::int"
WANT_REQ=5 WANT_TABLE="1,7;2,3;3,8;4,;5,;6," \
	dml "update: an unreadable reply, llm.unreadable warn: NULL there" \
	"UPDATE d SET note = $L WHERE id <= 4;" --set llm.unreadable=warn
cp "$T/dml0.db" "$ddb"
pg_fresh
run "$SUQL_PG" "UPDATE d SET note = $L WHERE id <= 4;"
check "update: an unreadable reply, by default: exit status 3 on PostgreSQL" "$st" 3
grep -q "could not be read (see the warning): nothing was changed" "$T/err" &&
	ok "update: ... the error says nothing was changed" || notok "update: ... the error says nothing was changed" "$(cat "$T/err")"
check "update: ... the same requests (4 asks, 1 asked again)" "$req" 5
check "update: ... and the table is as it was" "$(table "$SUQL_PG")" "$(table "$T/dml0.db")"
stop_server

# ---- CREATE TABLE ... AS with free text: Postgres binds no parameters there, so the
# table is created WITH NO DATA and filled by INSERT ... SELECT with the values bound, in
# one transaction
cols() { "$prog" --csv "$1" -c "SELECT * FROM $2 ORDER BY 1" 2>&1; }
# ctas NAME TABLE SQL [options...]: both on fresh tables, then TABLE the same on both
ctas() {
	cname=$1 ctab=$2 csql=$3
	shift 3
	cp "$T/dml0.db" "$ddb"
	if ! pg_fresh; then notok "$cname: the tables load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"; return; fi
	pg_psql -c "DROP TABLE IF EXISTS $ctab" >/dev/null 2>&1
	want_table=${WANT_TABLE:-}
	WANT_TABLE=""
	both "$cname" "$ddb" "$csql" "$@"
	check "$cname: ... the same table made" "$(cols "$SUQL_PG" "$ctab")" "$(cols "$ddb" "$ctab")"
	[ -n "$want_table" ] && check "$cname: ... its rows" "$(cols "$SUQL_PG" "$ctab" | sed 1d | paste -sd ';' -)" "$want_table"
}
start_server ctas --yes-words kid
WANT_REQ=1 WANT_TABLE="1,A;3,C" \
	ctas "create table as: a free-text WHERE" kids \
	"CREATE TABLE kids AS SELECT id, name FROM d WHERE city <> 'Cove' AND $K;"
WANT_TABLE="1,A" \
	ctas "create table as: a lazy walk (ORDER BY, LIMIT: the rows it passed kept by ctid)" first \
	"CREATE TABLE first AS SELECT id, name FROM d WHERE $K ORDER BY id LIMIT 1;" --set batch=1 --concurrency 1
WANT_TABLE="1,Yes;2,No;3,Yes;4,No" \
	ctas "create table as: free text in ORDER BY and a typed answer ahead" ranked \
	"CREATE TABLE ranked AS SELECT id, CASE WHEN $K THEN 'Yes' ELSE 'No' END AS k FROM d WHERE id <= 4 ORDER BY 2 DESC, 1;"
# a name in mixed case, unquoted: Postgres folds it (kidmix), as the INSERT that fills it must
WANT_TABLE="1,A;3,C" \
	ctas "create table as: a name in mixed case" kidmix \
	"CREATE TABLE KidMix AS SELECT id, name FROM d WHERE city <> 'Cove' AND $K;"
cp "$T/dml0.db" "$ddb"
pg_fresh
"$prog" "$ddb" -c "CREATE TABLE kids (x TEXT);" >/dev/null 2>&1
pg_psql -c "DROP TABLE IF EXISTS kids; CREATE TABLE kids (x text)" >/dev/null 2>&1
both "create table if not exists: the table exists, nothing is added" "$ddb" \
	"CREATE TABLE IF NOT EXISTS kids AS SELECT id, name FROM d WHERE $K;"
check "create table if not exists: ... the table as it was" "$(cols "$SUQL_PG" kids)" "$(cols "$ddb" kids)"
stop_server
start_server ctas2 --rules "$T/dml.json"
WANT_REQ=6 WANT_TABLE="1;3" \
	ctas "create table as: an unreadable reply, llm.unreadable warn: unknown, so not kept" loud \
	"CREATE TABLE loud AS SELECT id FROM d WHERE id <= 4 AND $L > 5;" --set llm.unreadable=warn
cp "$T/dml0.db" "$ddb"
pg_fresh
pg_psql -c "DROP TABLE IF EXISTS loud" >/dev/null 2>&1
run "$SUQL_PG" "CREATE TABLE loud AS SELECT id FROM d WHERE id <= 4 AND $L > 5;"
check "create table as: an unreadable reply, by default: exit status 3, 6 requests as with warn" "$st,$req" 3,6
grep -q "could not be read (see the warning): the table was not created" "$T/err" &&
	ok "create table as: ... the error says the table was not created" || notok "create table as: ... the error says so" "$(cat "$T/err")"
check "create table as: ... and there is none" "$(pg_psql -At -c "SELECT to_regclass('loud') IS NULL")" t
stop_server
# read-only mode: UPDATE and CREATE TABLE ... AS are refused before any call
start_server ro --yes-words kid
cp "$T/dml0.db" "$ddb"
pg_fresh
run "$SUQL_PG" "UPDATE d SET note = 'kids' WHERE $K;" --readonly
check "read-only: UPDATE refused before any call" "$st,$req,$(grep -c 'read-only transaction' "$T/err")" 1,0,1
run "$SUQL_PG" "CREATE TABLE kids AS SELECT id FROM d WHERE $K;" --readonly
check "read-only: CREATE TABLE ... AS refused before any call" "$st,$req,$(grep -c 'read-only transaction' "$T/err")" 1,0,1
stop_server
