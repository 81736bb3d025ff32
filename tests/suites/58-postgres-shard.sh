#!/bin/sh
# A table sharded over three PostgreSQL servers (tests/pg.sh): the main server holds the
# demo's restaurants and the firms of the join suites as tables partitioned by hash of
# their id, whose two partitions are postgres_fdw foreign tables on two more servers of
# the suite's own (Unix sockets only). Such a table has no primary key in pg_index
# (Postgres allows no unique index over foreign partitions) and its ctid repeats across
# partitions, so its rows are identified by the key declared in suql.table_props. Each
# statement runs on SQLite and on the sharded tables against build/llmserver in auto mode
# (its verdicts a hash of each text, its matches the list of firms-pairs.tsv) and must
# give the same rows and the same number of requests at the server: free-text filters,
# ORDER BY LIMIT walks, a join on meaning (matches()), ENUM classification. The plan
# names the identity; a foreign table without a key, or a sharded table without a
# declared one, is refused by name with nothing asked; a table without a key keeps its
# ctid. Skipped, saying why, when the servers cannot be started.
set -u
. "$(dirname "$0")/../lib.sh"
. tests/pg.sh
# servers of its own: it reads the main server's log, and starts the shards beside it
PG_OWN=1
T=$SUQL_TMP/pgshard
mkdir -p "$T"
if ! pg_start || ! pg_shards_start; then
	echo "skip postgres shard: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi

db=$T/demo.db
sh tests/demo-db.sh "$db"
"$prog" --bail "$db" <"$SUQL_TOP/tests/engine/firms.sql" >/dev/null
if ! pg_load_demo "$db"; then
	notok "pg shard: the tables load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
for t in restaurants firms; do
	if ! pg_shard_table "$t" id; then
		notok "pg shard: $t sharded over two servers" "$(head -5 "$PG_DIR/shard.log")"
		exit 0
	fi
done
got=$(pg_psql -tA -c "SELECT count(*), count(DISTINCT tableoid), count(DISTINCT ctid) < count(*) FROM restaurants")
got1=$(pg_shard_psql 1 -tA -c "SELECT count(*) FROM restaurants_shard")
got2=$(pg_shard_psql 2 -tA -c "SELECT count(*) FROM restaurants_shard")
[ "$got" = "112|2|t" ] && [ $((got1 + got2)) = 112 ] && [ "$got1" -gt 0 ] && [ "$got2" -gt 0 ] &&
	ok "pg shard: restaurants is split over two servers ($got1 + $got2 rows), its ctids repeat across them" ||
	notok "pg shard: restaurants split" "main: $got" "shards: $got1 $got2"

SPID=""
trap 'stop_server; pg_stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
n=0 same=0
# both NAME SQL [options...]: on SQLite and on the sharded tables, the same rows, status
# and requests (rows sorted when the statement has no ORDER BY); WANT_REQ, when set, too
both() {
	name=$1 sql=$2
	shift 2
	n=$((n + 1))
	run "$db" "$sql" "$@"
	st_s=$st req_s=$req
	case $sql in *"ORDER BY"*) cp "$T/rows" "$T/r_s" ;; *) sort "$T/rows" >"$T/r_s" ;; esac
	run "$SUQL_PG" "$sql" "$@"
	case $sql in *"ORDER BY"*) cp "$T/rows" "$T/r_p" ;; *) sort "$T/rows" >"$T/r_p" ;; esac
	if ! cmp -s "$T/r_s" "$T/r_p" || [ "$st_s" != "$st" ] || [ "$req_s" != "$req" ]; then
		notok "pg shard: $name" "status $st_s / $st, requests $req_s / $req" \
			"$(diff "$T/r_s" "$T/r_p" | head -6)" "$(grep -m3 -E '^(error|warning)' "$T/err")"
	elif [ -n "${WANT_REQ:-}" ] && [ "$req" != "$WANT_REQ" ]; then
		notok "pg shard: $name: the requests" "got:  $req" "want: $WANT_REQ"
	elif [ ! -s "$T/r_p" ] && [ -z "${EMPTY_OK:-}" ]; then
		notok "pg shard: $name: no rows (nothing compared)"
	else
		same=$((same + 1))
		ok "pg shard: $name: same $(wc -l <"$T/r_p" | tr -d ' ') row(s), $req request(s) on both"
	fi
	WANT_REQ="" EMPTY_OK=""
}

cat >"$T/rules.json" <<'RULES'
[{"match": "spendy", "content": "[\"expensive\"]"}]
RULES
# the firms' pairs, and owners of restaurants
{ cat "$SUQL_TOP/tests/engine/firms-pairs.tsv"; printf '%s\n' 'Acme Corp	Kaiten Go' \
	'Initech	Bamboo House' 'Initech	The Green Fork' 'Globex Industries	Trattoria Lucca'; } >"$T/pairs"
llmserver_start "$T" "$T/rules.json" --pairs "$T/pairs"

# --- free-text filters: candidates listed by the declared key, judged, their values bound
both "a filter over every row" \
	"SELECT id, name FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;" --no-cache
grep -q '^  row identity: restaurants.id (declared in suql.table_props)$' "$T/err" &&
	grep -qF 'SELECT restaurants.id AS suql_id0' "$T/err" &&
	ok "pg shard: the plan names the key (declared in suql.table_props) and lists the candidates by it" ||
	notok "pg shard: the plan names the key" "$(grep -A1 -i 'identity\|verified' "$T/err")"
both "a filter and structured conjuncts" \
	"SELECT id FROM restaurants WHERE location = 'Palo Alto' AND rating >= 4 AND answer(reviews, 'is there outdoor seating?') = 'Yes' ORDER BY id;" --no-cache --set batch=4
both "two free-text conditions" \
	"SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' AND answer(reviews, 'is the service fast?') = 'Yes' ORDER BY rating DESC, id;" --no-cache --set batch=8
both "under OR: candidates numbered by the key" \
	"SELECT id FROM restaurants WHERE answer(reviews, 'is it vegan friendly?') = 'Yes' OR price = 'luxury' ORDER BY id;" --no-cache
grep -qF 'SELECT restaurants.id AS suql_id0' "$T/err" &&
	ok "pg shard: candidates under OR listed by their key, not a ctid number" ||
	notok "pg shard: candidates under OR" "$(grep -m2 'postgresql:' "$T/err")"

# --- LIMIT walks: lazy, in ORDER BY order, stopping when the LIMIT has its rows
both "ORDER BY LIMIT: a lazy walk" \
	"SELECT id, name FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id LIMIT 3;" --no-cache --set batch=2 --concurrency 1
grep -q "walk: lazy, stops once 3 rows passed (LIMIT); candidates in the query's ORDER BY order" "$T/err" &&
	ok "pg shard: the walk stops at the LIMIT" || notok "pg shard: lazy walk" "$(grep -i lazy "$T/err")"
both "ORDER BY rating LIMIT: candidates in that order, then by the key" \
	"SELECT id FROM restaurants WHERE rating >= 4.5 AND answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY rating DESC, id LIMIT 4;" --no-cache --set batch=1 --concurrency 1
# the statements the main server receives are logged for this one (the final statement's
# keep rule is printed only when it runs)
pg_psql -c "ALTER DATABASE suql_test SET log_statement = 'all'"
both "LIMIT under OR: the walk keeps to the rows it passed by their key" \
	"SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' OR answer(reviews, 'is the service fast?') = 'Yes' ORDER BY id LIMIT 5;" --no-cache --set batch=2 --concurrency 1
pg_psql -c "ALTER DATABASE suql_test RESET log_statement"
grep -qE ' AND "restaurants"\."id" = ANY\(\$[0-9]+::bigint\[\]\)' "$PG_DIR/server.log" &&
	! grep -q 'ctid' "$PG_DIR/server.log" &&
	ok "pg shard: the final statement keeps to the walked rows by key (bigint[]), no ctid sent" ||
	notok "pg shard: keep by key" "$(grep -m3 'ANY' "$PG_DIR/server.log")"

# --- projection last, on the rows the shards return
both "summary() of the rows returned" \
	"SELECT id, summary(reviews) FROM restaurants WHERE location = 'Redwood City' ORDER BY id LIMIT 2;" --no-cache

# --- ENUM classification: the mapping kept on the main server, the rows on the shards
# ('spendy' is classified as expensive by the server's rule; no review has the word)
WANT_REQ=1 both "ENUM: a literal classified" "SELECT id FROM restaurants WHERE price = 'spendy' ORDER BY id;" --no-cache
WANT_REQ=0 both "ENUM: ... then read from the map" "SELECT id FROM restaurants WHERE price = 'spendy' ORDER BY id;" --no-cache
both "ENUM: ... with a free-text filter" \
	"SELECT id FROM restaurants WHERE price = 'spendy' AND answer(reviews, 'is it quiet?') = 'Yes' ORDER BY id;" --no-cache
WANT_REQ=1 EMPTY_OK=1 both "ENUM: a list's literal classified" \
	"SELECT count(*) FROM restaurants WHERE 'coffee' = ANY (cuisines);" --no-cache
WANT_REQ=0 both "ENUM: ... then read from the map" \
	"SELECT count(*) FROM restaurants WHERE 'coffee' = ANY (cuisines);" --no-cache

# --- a join on meaning: the sharded firms against the brands of the main server
Q="'does the firm make this brand?'"
WANT_REQ=11 both "join: matches(), one request per distinct left value" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) ORDER BY f.id, b.id;" --no-cache
both "join: with a free-text filter on the sharded side (identity of two tables)" \
	"SELECT f.id, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) WHERE answer(f.name, 'is it a real firm?') = 'Yes' ORDER BY f.id, b.id;" --no-cache
both "join: LIMIT, ORDER BY" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) ORDER BY f.id, b.id LIMIT 3;" --no-cache
both "join: the sharded restaurants against the firms (both sides sharded)" \
	"SELECT r.id, f.id FROM restaurants r JOIN firms f ON matches(f.name, r.name, 'is this firm the owner of the restaurant?') WHERE r.location = 'Palo Alto' ORDER BY r.id, f.id;" --no-cache

# --- what has no identity: refused by name, nothing asked; without free text it runs
before=$(lines)
out=$("$prog" --no-cache --llm-url "$URL" --model m "$SUQL_PG" -c "SELECT id FROM restaurants_p0 WHERE answer(reviews, 'is it quiet?') = 'Yes'" 2>&1); rc=$?
case $out in *"table restaurants_p0 has no row identity"*"declare a primary key"*"suql.table_props"*)
	[ $rc -ne 0 ] && [ "$(lines)" = "$before" ] &&
		ok "pg shard: a foreign table without a key: refused by name, saying to declare a key, nothing asked" ||
		notok "pg shard: foreign table refused" "status $rc, $(($(lines) - before)) requests" ;;
*) notok "pg shard: a foreign table without a key is refused" "$out" ;; esac
out=$("$prog" --no-cache --csv --no-headers --llm-url "$URL" --model m "$SUQL_PG" -c "SELECT count(*) FROM restaurants_p0" 2>&1)
[ "$out" = "$got1" ] && ok "pg shard: ... a statement without free text on it runs as written" ||
	notok "pg shard: plain statement on a foreign table" "$out" "want: $got1"
pg_psql -c "DELETE FROM suql.table_props WHERE tbl = 'firms' AND prop = 'row_key'"
before=$(lines)
out=$("$prog" --no-cache --llm-url "$URL" --model m "$SUQL_PG" -c "SELECT id FROM firms WHERE answer(name, 'is it a real firm?') = 'Yes'" 2>&1); rc=$?
case $out in *"table firms has no row identity"*"partitioned or foreign"*)
	[ $rc -ne 0 ] && [ "$(lines)" = "$before" ] &&
		ok "pg shard: the sharded table without its declared key: refused, nothing asked" ||
		notok "pg shard: undeclared key refused" "status $rc" ;;
*) notok "pg shard: the sharded table without its declared key is refused" "$out" ;; esac
# a declared row_key that cannot serve (a column of text) is named in the refusal
pg_psql -c "INSERT INTO suql.table_props VALUES ('firms', 'row_key', 'name')"
out=$("$prog" --no-cache --llm-url "$URL" --model m "$SUQL_PG" -c "SELECT id FROM firms WHERE answer(name, 'is it a real firm?') = 'Yes'" 2>&1); rc=$?
case $out in *"table firms has no row identity"*"the row_key declared in suql.table_props, 'name', is not a column of integers"*)
	[ $rc -ne 0 ] && ok "pg shard: a declared row_key of text: refused, and the refusal says why it is not used" ||
		notok "pg shard: row_key of text" "status $rc" ;;
*) notok "pg shard: a declared row_key of text is named in the refusal" "$out" ;; esac
pg_psql -c "DELETE FROM suql.table_props WHERE tbl = 'firms' AND prop = 'row_key'"
pg_psql -c "INSERT INTO suql.table_props VALUES ('firms', 'row_key', 'id')"

# --- a table without a key keeps its ctid; a local partitioned table with a primary key
pg_psql -c "CREATE TABLE notes AS SELECT id AS n, name, reviews FROM restaurants WHERE id <= 20" \
	-c "CREATE TABLE parts (id integer PRIMARY KEY, name text) PARTITION BY RANGE (id)" \
	-c "CREATE TABLE parts_a PARTITION OF parts FOR VALUES FROM (0) TO (10)" \
	-c "CREATE TABLE parts_b PARTITION OF parts FOR VALUES FROM (10) TO (100)" \
	-c "INSERT INTO parts SELECT id, name FROM restaurants WHERE id <= 20"
"$prog" --bail "$db" >/dev/null <<'SQL'
CREATE TABLE notes AS SELECT id AS n, name, reviews FROM restaurants WHERE id <= 20;
CREATE TABLE parts (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO parts SELECT id, name FROM restaurants WHERE id <= 20;
SQL
both "a table without a key: by ctid, as before" \
	"SELECT n FROM notes WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY n;" --no-cache
grep -q '^  row identity: notes.ctid (no key of integers)$' "$T/err" && grep -qF '(notes.ctid::text::point)[1]::bigint) AS suql_id0' "$T/err" &&
	ok "pg shard: ... the plan says ctid, and the candidates are listed by it" ||
	notok "pg shard: ctid identity" "$(grep -A1 -i 'identity\|verified' "$T/err")"
both "a partitioned table with a primary key (ctid repeats in it)" \
	"SELECT id FROM parts WHERE answer(name, 'is it a sushi place?') = 'Yes' ORDER BY id;" --no-cache
grep -q '^  row identity: parts.id (primary key)$' "$T/err" &&
	ok "pg shard: ... its primary key is its identity" || notok "pg shard: primary key identity" "$(grep -i identity "$T/err")"

stop_server
ok "pg shard: $same of $n statements the same on SQLite and on the sharded tables"
pg_stop
