#!/bin/sh
# Semantic joins, matches(left, right, 'question'), on both backends: join.case's firms
# and brands on SQLite and the same rows in a PostgreSQL server of the suite's own
# (tests/pg.sh), against build/llmserver answering from the list of matching pairs. Each
# statement must give the same rows and the same number of requests at the server
# (counted, never timed): the ON and WHERE forms, a self-join with a.id < b.id (the pairs
# the structured conditions exclude are not asked), a LEFT JOIN, a lazy LIMIT (waves of
# left values, counted in Postgres after each), BM25 pruning and a smaller batch. What
# PostgreSQL does not run (a join judged pair by pair) is refused by name, nothing asked.
# Skipped, saying why, when no server can be started.
set -u
. "$(dirname "$0")/../lib.sh"
. tests/pg.sh
T=$SUQL_TMP/pgjoin
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres join: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi

db=$T/j.db
{ cat "$SUQL_TOP/tests/engine/firms.sql" "$SUQL_TOP/tests/engine/price-reviews.sql"
  echo "CREATE TABLE notes (id INTEGER PRIMARY KEY, note FREE_TEXT);"; } | "$prog" --bail "$db" >/dev/null
if ! pg_load_demo "$db"; then
	notok "pg join: the tables load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
{ cat "$SUQL_TOP/tests/engine/firms-pairs.tsv"; printf '%s' 'Acme Corp	Tyrell Corp
Globex Industries	Initech
'; } >"$T/pairs"
echo '[]' >"$T/none.json"

SPID=""
trap 'stop_server; pg_stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
stop_server() { [ -n "$SPID" ] && { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }; SPID=""; }
n=0 same=0
# both NAME SQL [options...]: on SQLite and on PostgreSQL, the same rows, status, requests
# and error or warning lines; WANT_ROWS/WANT_REQ, when set, are checked too
both() {
	name=$1 sql=$2
	shift 2
	n=$((n + 1))
	run "$db" "$sql" "$@"
	cp "$T/rows" "$T/r_s"; cp "$T/err" "$T/err_s"; st_s=$st; req_s=$req
	grep -E '^(error|warning)' "$T/err" >"$T/e_s"
	run "$SUQL_PG" "$sql" "$@"
	grep -E '^(error|warning)' "$T/err" >"$T/e_p"
	rows=$(paste -sd ';' - <"$T/rows")
	if [ -n "${ANY_ROWS:-}" ]; then   # LIMIT without ORDER BY: any rows that pass, as many
		sort "$T/r_s" >"$T/r_s.sorted"; mv "$T/r_s.sorted" "$T/r_s"
		grep -Fxq -f "$T/rows" "$T/all" 2>/dev/null && [ "$(wc -l <"$T/rows")" = "$(wc -l <"$T/r_s")" ] &&
			cp "$T/r_s" "$T/rows"
	fi
	if ! cmp -s "$T/r_s" "$T/rows" || [ "$st_s" != "$st" ] || [ "$req_s" != "$req" ] ||
	   ! cmp -s "$T/e_s" "$T/e_p"; then
		notok "pg join: $name" "status $st_s / $st, requests $req_s / $req" \
			"$(diff "$T/r_s" "$T/rows" | head -6)" "$(diff "$T/e_s" "$T/e_p" | head -4)" "$(grep -m3 -E '^(error|warning)' "$T/err")"
	elif [ -n "${WANT_ROWS:-}" ] && [ "$rows" != "$WANT_ROWS" ]; then
		notok "pg join: $name: the rows" "got:  $rows" "want: $WANT_ROWS"
	elif [ -n "${WANT_REQ:-}" ] && [ "$req" != "$WANT_REQ" ]; then
		notok "pg join: $name: the requests" "got:  $req" "want: $WANT_REQ"
	else
		same=$((same + 1))
		ok "pg join: $name: same rows, $req request(s) on both"
	fi
	WANT_ROWS="" WANT_REQ="" ANY_ROWS=""
}

llmserver_start "$T" "$T/none.json" --pairs "$T/pairs"
Q="'does the firm make this brand?'"
J="SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) ORDER BY f.id, b.id;"
WANT_REQ=11 both "ON: one request per distinct left value (11 names x 30 labels)" "$J" --no-cache
[ "$(paste -sd ';' - <"$T/rows" | tr ';' '\n' | wc -l | tr -d ' ')" = 15 ] &&
	ok "pg join: ON: 15 rows (Acme Corp twice)" || notok "pg join: ON: 15 rows" "$(cat "$T/rows")"
grep -qF ") IN (SELECT * FROM unnest(\$1::text[], \$2::text[])) THEN true WHEN (" "$T/err" &&
	ok "pg join: the plan shows the pair looked up among the matched pairs, bound as arrays" ||
	notok "pg join: the plan shows the look-up" "$(grep -i postgres "$T/err")"
grep -q "join 1: 330 pairs asked in 11 calls (0 cache hits, 11 requests): 13 matched, 317 did not; pairwise: 330" "$T/err" &&
	ok "pg join: the counters, as on SQLite" || notok "pg join: the counters" "$(grep 'join 1' "$T/err")"
WANT_REQ=11 both "WHERE form" \
	"SELECT f.name, b.label FROM firms f, brands b WHERE matches(f.name, b.label, $Q) ORDER BY f.id, b.id;" --no-cache
WANT_ROWS="12,;13," both "LEFT JOIN: firms without a match keep their row" \
	"SELECT f.id, b.label FROM firms f LEFT JOIN brands b ON matches(f.name, b.label, $Q) WHERE b.label IS NULL ORDER BY f.id;" --no-cache
both "ON with a structured condition: the other side's filter carried" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON b.id <= 12 AND matches(f.name, b.label, $Q) WHERE f.id > 2 ORDER BY f.id, b.id;" --no-cache
both "self-join with a.id < b.id: the excluded pairs are not asked" \
	"SELECT a.name, b.name FROM firms a, firms b WHERE a.id < b.id AND matches(a.name, b.name, 'are these the same company?') ORDER BY a.id, b.id;" --no-cache
grep -q "excluded by the structured conditions" "$T/err" &&
	ok "pg join: self-join: the counters count the excluded pairs" || notok "pg join: self-join excluded" "$(grep 'join 1' "$T/err")"
run "$db" "$J" --no-cache
cp "$T/rows" "$T/all"   # every row of the join: a LIMIT's rows must be among them
ANY_ROWS=1 both "LIMIT: lazy waves of left values, counted in Postgres" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) LIMIT 3;" --no-cache --set concurrency=2
grep -q "stopped after" "$T/err" && ok "pg join: LIMIT: the walk stopped early on PostgreSQL" ||
	notok "pg join: LIMIT stopped early" "$(grep 'join 1' "$T/err")"
both "ORDER BY and LIMIT: every left value asked" "$J LIMIT 3" --no-cache
both "count(*) of the pairs" \
	"SELECT count(*) FROM firms f JOIN brands b ON matches(f.name, b.label, $Q);" --no-cache
both "NOT matches(): an unasked pair is no match, a NULL side NULL" \
	"SELECT count(*) FROM firms f, brands b WHERE b.id <= 3 AND NOT matches(f.name, b.label, $Q);" --no-cache
both "BM25 pruning (join_candidates 4)" "$J" --no-cache --set join_candidates=4
both "batch 8, no factorization" "$J" --no-cache --set batch=8 --set join_factor=off
both "with another free-text condition" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) WHERE answer(f.name, 'is it a real firm?') = 'Yes' ORDER BY f.id, b.id;" --no-cache
both "another free-text condition, ORDER BY and LIMIT (the walk's candidates read the verdicts)" \
	"SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) WHERE answer(f.name, 'is it a real firm?') = 'Yes' ORDER BY f.id, b.id LIMIT 2;" --no-cache
pg_psql -c "CREATE VIEW fv AS SELECT * FROM firms WHERE id <= 6" >/dev/null 2>&1
"$prog" "$db" -c "CREATE VIEW fv AS SELECT * FROM firms WHERE id <= 6" >/dev/null 2>&1
both "a side over a view (no ctid: listed in the server's order)" \
	"SELECT f.name, b.label FROM fv f JOIN brands b ON matches(f.name, b.label, $Q) ORDER BY f.id, b.id;" --no-cache
both "a join inside a subquery in FROM" \
	"SELECT s.label FROM (SELECT f.id, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) WHERE f.id IN (1, 7)) AS s ORDER BY s.label;" --no-cache
both "GROUP BY over the pairs matched" \
	"SELECT f.name, count(*) FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) GROUP BY f.name ORDER BY f.name;" --no-cache
both "summary() of the rows the join returns (projection last)" \
	"SELECT f.name, summary(b.label) FROM firms f JOIN brands b ON matches(f.name, b.label, $Q) WHERE f.id <= 3 ORDER BY f.id, b.id;" --no-cache
both "a side over a CTE and a subquery in FROM" \
	"WITH f AS (SELECT id, name FROM firms WHERE id <= 8) SELECT f.name, b.label FROM f JOIN (SELECT * FROM brands WHERE id <= 15) AS b ON matches(f.name, b.label, $Q) ORDER BY f.id, b.id;" --no-cache

# unreadable replies (every one that shows Vandelay, on either side): asked again, then
# pair by pair, then unknown: no row, not under NOT either, a warning and exit status 3,
# on both
stop_server
rm -f "$T/log"
cat >"$T/never.json" <<'RULES'
[{"match": "Vandelay", "content": "Maybe."}]
RULES
llmserver_start "$T" "$T/never.json" --pairs "$T/pairs"
both "unreadable verdicts: no row, a warning, exit status 3" "$J" --no-cache
[ "$st" = 3 ] && grep -q "could not read the model's reply for 40 candidates" "$T/err" &&
	ok "pg join: unreadable: the warning counts the 40 pairs (30 of Vandelay Imports, 10 of Vandelay Latex), exit status 3" ||
	notok "pg join: unreadable: warning and status" "status $st" "$(grep -i warn "$T/err")"
WANT_ROWS=0 both "unreadable verdicts are NULL: NOT matches() keeps none of them" \
	"SELECT count(*) FROM firms f, brands b WHERE f.name LIKE 'Vandelay%' AND NOT matches(f.name, b.label, $Q);" --no-cache --set llm.unreadable=warn

# a join that factors (tests/engine/price-reviews.sql's reviews): the factor call, the classifying
# calls and the check (38 pairs of several left values a request) asked alike, then the pairs decided put in the memo and looked up
stop_server
rm -f "$T/log"
llmserver_start "$T" "$T/none.json" --factor "What does the review say of the price?:cheap,fair,expensive"
FQ="SELECT a.id, b.id FROM reviews a JOIN reviews b ON a.id < b.id AND matches(a.body, b.body, 'do the two reviews share an opinion of the price?') WHERE a.id NOT IN (13, 27) AND b.id NOT IN (13, 27) ORDER BY a.id, b.id;"
WANT_REQ=6 both "factored self-join of 38 reviews: 1 + 2 classifying + 3 checking requests" "$FQ" --no-cache
grep -q "join 1: 703 pairs decided by the factorization" "$T/err" &&
	ok "pg join: factored: 703 pairs decided by comparing, as on SQLite" || notok "pg join: factored: pairs decided" "$(grep 'join 1' "$T/err")"
WANT_REQ=42 both "the same join with join_factor off: one batched request per left value" "$FQ" --no-cache --set join_factor=off

# what PostgreSQL does not run yet: refused by name, nothing asked
while IFS='@' read -r what sql opts; do
	before=$(lines)
	# shellcheck disable=SC2086
	out=$("$prog" --no-cache --llm-url "$URL" --model m $opts "$SUQL_PG" -c "$sql" 2>&1)
	case $out in *"not supported on PostgreSQL yet: $what"*)
		[ "$(lines)" = "$before" ] && ok "pg join: $what: refused by name, nothing asked" ||
			notok "pg join: $what: nothing asked" "$(($(lines) - before)) requests" ;;
	*) notok "pg join: $what refused" "$out" ;; esac
done <<'EOF_CASES'
free text evaluated row by row, which needs suql's functions called by the database: a semantic join judged pair by pair (matches() 1: a side does not read exactly one table@SELECT f.name FROM firms f, brands b WHERE matches(f.name || b.label, b.label, 'same?');@
free text evaluated row by row, which needs suql's functions called by the database: a semantic join judged pair by pair (matches() 1: its block is correlated with an enclosing query)@SELECT f.name, (SELECT count(*) FROM brands b WHERE matches(f.name, b.label, 'same?')) FROM firms f;@
free text evaluated row by row, which needs suql's functions called by the database: optimize off@SELECT f.name FROM firms f, brands b WHERE matches(f.name, b.label, 'same?');@--set optimize=off
EOF_CASES
stop_server

ok "pg join: $same of $n statements the same on both backends"
pg_stop
