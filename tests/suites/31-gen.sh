#!/bin/sh
# The scale generator (build/gen): the same seed gives the same bytes, a larger run starts
# with a smaller one, --db imports and indexes in one command with the SUQL types recorded,
# and the truth table agrees with the wording of the reviews (spot checks per attribute).
OK_PREFIX="gen: "
. "$(dirname "$0")/../lib.sh"
set -u
gen="$SUQL_BUILD/gen"
t="$SUQL_TMP/gen"
mkdir -p "$t"


"$gen" -n 300 --seed 7 --out "$t/a" --quiet && "$gen" -n 300 --seed 7 --out "$t/b" --quiet \
	&& "$gen" -n 300 --seed 8 --out "$t/c" --quiet && "$gen" -n 100 --seed 7 --out "$t/d" --quiet \
	|| notok "runs" "gen exited with $?"
if cmp -s "$t/a/restaurants.jsonl" "$t/b/restaurants.jsonl" && cmp -s "$t/a/restaurant_truth.jsonl" "$t/b/restaurant_truth.jsonl"; then
	ok "the same seed gives the same bytes"
else
	notok "the same seed gives the same bytes"
fi
if cmp -s "$t/a/restaurants.jsonl" "$t/c/restaurants.jsonl"; then
	notok "another seed gives other restaurants"
else
	ok "another seed gives other restaurants"
fi
if head -n 100 "$t/a/restaurants.jsonl" | cmp -s - "$t/d/restaurants.jsonl"; then
	ok "the first 100 of 300 are the 100 of a smaller run"
else
	notok "the first 100 of 300 are the 100 of a smaller run"
fi
n=$(wc -l < "$t/a/restaurants.jsonl")
[ "$n" -eq 300 ] && ok "one line per restaurant" || notok "one line per restaurant" "got $n lines"

db="$t/gen.db"
mkdir -p "$t/tmp"
if TMPDIR="$t/tmp" "$gen" -n 1500 --seed 5 --db "$db" --quiet; then ok "--db imports and indexes"; else notok "--db imports and indexes"; fi
left=$(ls -A "$t/tmp")
[ -z "$left" ] && ok "the temporary files are removed" || notok "the temporary files are removed" "left in \$TMPDIR: $left"

q() { sqlite3 "$db" "$1"; }
check() {   # NAME SQL WANT
	got=$(q "$2" 2>&1)
	if [ "$got" = "$3" ]; then ok "$1"; else notok "$1" "query: $2" "got: $got, want: $3"; fi
}
check "1500 restaurants and 1500 truth rows" \
	"SELECT (SELECT count(*) FROM restaurants) || ' ' || (SELECT count(*) FROM restaurant_truth)" "1500 1500"
check "the truth is marked as evaluation labels (chat does not see it)" \
	"SELECT group_concat(tbl) FROM suql_table_props WHERE prop = 'labels' AND value = 'on'" "restaurant_truth"
check "SUQL types are in the catalog" \
	"SELECT group_concat(col || ' ' || type, ', ') FROM (SELECT col, type FROM suql_catalog WHERE tbl = 'restaurants' ORDER BY col)" \
	"cuisines ENUM[], popular_dishes FREE_TEXT[], price ENUM('cheap','moderate','expensive','luxury'), reviews FREE_TEXT[]"
check "5 to 8 reviews each" \
	"SELECT count(*) FROM restaurants WHERE json_array_length(reviews) NOT BETWEEN 5 AND 8" 0
check "every review is one passage (none is longer than the chunk size)" \
	"SELECT npassages = (SELECT sum(json_array_length(reviews)) FROM restaurants) FROM suql_index WHERE col = 'reviews'" 1
check "the review and dish indexes are current" \
	"SELECT count(*) || ' ' || (SELECT count(*) FROM suql_index_dirty) FROM suql_index" "2 0"
check "prices within the enum, ratings 2.5 to 4.7" \
	"SELECT count(*) FROM restaurants WHERE price NOT IN ('cheap','moderate','expensive','luxury') OR rating NOT BETWEEN 2.5 AND 4.7" 0
check "evidence kinds are clear, weak, negated or none" \
	"SELECT count(*) FROM restaurant_truth WHERE romantic_ev NOT IN ('clear','weak','negated','none') OR kids_ev NOT IN ('clear','weak','negated','none')" 0
check "vegan restaurants are vegan" \
	"SELECT count(*) FROM restaurants JOIN restaurant_truth USING (id) WHERE cuisines LIKE '%\"vegan\"%' AND vegan = 0" 0

# spot checks: ATTR EV VALUE SQL-CONDITION-ON-reviews (must hold for every such restaurant)
spot() {
	cnt=$(q "SELECT count(*) FROM restaurants JOIN restaurant_truth USING (id) WHERE $1_ev = '$2' AND $1 = $3")
	bad=$(q "SELECT count(*) FROM restaurants JOIN restaurant_truth USING (id) WHERE $1_ev = '$2' AND $1 = $3 AND NOT ($4)")
	if [ "$cnt" -gt 5 ] && [ "$bad" -eq 0 ]; then
		ok "truth agrees with wording: $1 = $3 ($2, $cnt restaurants)"
	else
		notok "truth agrees with wording: $1 = $3 ($2)" "$cnt restaurants, $bad do not match: $4"
	fi
}
absent() {
	cnt=$(q "SELECT count(*) FROM restaurant_truth WHERE $1_ev = 'none'")
	bad=$(q "SELECT count(*) FROM restaurants JOIN restaurant_truth USING (id) WHERE $1_ev = 'none' AND ($2)")
	if [ "$cnt" -gt 5 ] && [ "$bad" -eq 0 ]; then
		ok "no evidence means no wording: $1 ($cnt restaurants)"
	else
		notok "no evidence means no wording: $1" "$cnt restaurants, $bad mention it: $2"
	fi
}
R=reviews
spot romantic clear 1 "$R LIKE '%romantic%' OR $R LIKE '%date%' OR $R LIKE '%candle%' OR $R LIKE '%intimate%'"
spot romantic clear 0 "$R LIKE '%not romantic%' OR $R LIKE '%not a date%' OR $R LIKE '%too loud%' OR $R LIKE '%not the place to take a date%'"
spot kids clear 1 "$R LIKE '%kid%' OR $R LIKE '%famil%'"
spot kids clear 0 "$R LIKE '%not a place for kids%' OR $R LIKE '%no kids menu%' OR $R LIKE '%adults only%' OR $R LIKE '%not kid friendly%'"
spot parking clear 1 "$R LIKE '%parking%'"
spot parking clear 0 "$R LIKE '%nightmare%' OR $R LIKE '%impossible to park%' OR $R LIKE '%looking for parking%' OR $R LIKE '%no parking%'"
spot long_wait clear 1 "$R LIKE '%wait%' OR $R LIKE '%queued%' OR $R LIKE '%long line%'"
spot long_wait clear 0 "$R LIKE '%right away%' OR $R LIKE '%no wait%' OR $R LIKE '%walked right in%'"
spot long_wait negated 0 "$R LIKE '%never had to wait%' OR $R LIKE '%didn''t wait%' OR $R LIKE '%never waited%'"
spot happy_hour clear 1 "$R LIKE '%happy hour%'"
spot happy_hour clear 0 "$R LIKE '%no happy hour%' OR $R LIKE '%don''t do happy hour%'"
spot vegan clear 1 "$R LIKE '%vegan%'"
spot vegan clear 0 "$R LIKE '%nothing vegan%' OR $R LIKE '%no vegan%' OR $R LIKE '%not a single vegan%'"
spot outdoor clear 1 "$R LIKE '%outdoor%' OR $R LIKE '%patio%' OR $R LIKE '%outside%'"
spot outdoor clear 0 "$R LIKE '%no outdoor%' OR $R LIKE '%indoor seating only%' OR $R LIKE '%no patio%'"
absent romantic "$R LIKE '%romantic%' OR $R LIKE '%date night%'"
absent kids "$R LIKE '%kid%' OR $R LIKE '%famil%'"
absent parking "$R LIKE '%parking%'"
absent long_wait "$R LIKE '%wait%' OR $R LIKE '%queue%'"
absent happy_hour "$R LIKE '%happy hour%'"
absent vegan "replace($R, 'I''m not vegan but my sister is', '') LIKE '%vegan%'"
absent outdoor "$R LIKE '%patio%' OR $R LIKE '%outdoor%'"
check "typos occur" "SELECT count(*) > 0 FROM restaurants WHERE reviews LIKE '%excelent%' OR reviews LIKE '%fantasitc%' OR reviews LIKE '%delicous%' OR reviews LIKE '%delicuous%' OR reviews LIKE '%perfecly%' OR reviews LIKE '%excellnet%' OR reviews LIKE '%deliciuos%' OR reviews LIKE '%fantastc%'" 1
exit 0
