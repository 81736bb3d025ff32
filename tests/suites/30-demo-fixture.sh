#!/bin/sh
# The demo restaurant database (fixtures/demo/restaurants.sql): it loads, and it holds what the
# demos and the executor's tests rely on: enough restaurants in every city, at least five
# reviews each, well-formed lists, prices within the enum, ground-truth labels for every
# restaurant, and both answers and near misses for the example questions.
set -u
db="$SUQL_TMP/demo-fixture.db"
rm -f "$db"

# suql itself loads the file, recording the SUQL column types in the catalog.
"$SUQL_PROG" --bail "$db" < fixtures/demo/restaurants.sql >/dev/null \
	|| { echo "not ok demo: fixtures/demo/restaurants.sql loads"; exit 0; }
echo "ok demo: fixtures/demo/restaurants.sql loads"

q() { sqlite3 "$db" "$1"; }

# check NAME SQL EXPECTED: the query's single value equals EXPECTED
check() {
	got=$(q "$2" 2>&1)
	if [ "$got" = "$3" ]; then
		echo "ok demo: $1"
	else
		echo "not ok demo: $1"
		echo "# query: $2"
		echo "# got: $got, want: $3"
	fi
}
# atleast NAME SQL N: the query's single value is at least N
atleast() {
	got=$(q "$2" 2>&1)
	if [ "$got" -ge "$3" ] 2>/dev/null; then
		echo "ok demo: $1"
	else
		echo "not ok demo: $1"
		echo "# query: $2"
		echo "# got: $got, want at least $3"
	fi
}

atleast "at least 110 restaurants" "SELECT count(*) FROM restaurants" 110
check "ids are 1..N" "SELECT max(id) = count(*) FROM restaurants" 1
check "restaurant_labels is marked as evaluation labels (chat does not see it)" \
	"SELECT group_concat(tbl) FROM suql_table_props WHERE prop = 'labels' AND value = 'on'" "restaurant_labels"
check "at least 5 reviews each" \
	"SELECT count(*) FROM restaurants WHERE json_array_length(reviews) < 5 OR reviews IS NULL" 0
for col in cuisines popular_dishes reviews; do
	check "$col are JSON arrays of strings" \
		"SELECT count(*) FROM restaurants WHERE NOT json_valid($col) OR json_type($col) <> 'array'
		 OR EXISTS (SELECT 1 FROM json_each($col) WHERE type <> 'text')" 0
done
check "prices within the enum" \
	"SELECT count(*) FROM restaurants WHERE price NOT IN ('cheap','moderate','expensive','luxury')" 0
check "ratings between 1.0 and 5.0, one decimal" \
	"SELECT count(*) FROM restaurants WHERE rating NOT BETWEEN 1 AND 5 OR round(rating, 1) <> rating" 0
for city in "Palo Alto" "San Francisco" "Cupertino" "Sunnyvale" "Mountain View" "San Jose" "Menlo Park"; do
	atleast "city present: $city" "SELECT count(*) FROM restaurants WHERE location = '$city'" 5
done
check "addresses name their city" \
	"SELECT count(*) FROM restaurants WHERE address NOT LIKE '%, ' || location || ', CA 9____'" 0
check "phone numbers are unique and fictional (555-01xx)" \
	"SELECT count(DISTINCT phone_number) = count(*) AND sum(phone_number NOT GLOB '([0-9][0-9][0-9]) 555-01[0-9][0-9]') = 0 FROM restaurants" 1
check "every restaurant has labels" \
	"SELECT count(*) FROM restaurants r LEFT JOIN restaurant_labels l USING (id) WHERE l.id IS NULL" 0
check "labels only for restaurants" \
	"SELECT count(*) FROM restaurant_labels WHERE id NOT IN (SELECT id FROM restaurants)" 0
check "labels are 1, 0 or NULL" \
	"SELECT count(*) FROM restaurant_labels WHERE coalesce(romantic,0) NOT IN (0,1) OR coalesce(kids,0) NOT IN (0,1)
	 OR coalesce(parking,0) NOT IN (0,1) OR coalesce(long_wait,0) NOT IN (0,1) OR coalesce(happy_hour,0) NOT IN (0,1)
	 OR coalesce(vegan,0) NOT IN (0,1) OR coalesce(outdoor,0) NOT IN (0,1)" 0
check "'coffee' can classify into 'coffee & tea' and 'cafe'" \
	"SELECT count(DISTINCT j.value) FROM restaurants, json_each(cuisines) j WHERE j.value IN ('coffee & tea', 'cafe')" 2
for c in sushi japanese italian chinese mexican indian thai vegan burgers pizza seafood korean vietnamese french mediterranean; do
	atleast "cuisine present: $c" "SELECT count(*) FROM restaurants, json_each(cuisines) j WHERE j.value = '$c'" 1
done

# The example questions have answers, and near misses that only the reviews tell apart.
has() { echo "EXISTS (SELECT 1 FROM json_each(cuisines) WHERE value = '$1')"; }
L="restaurants JOIN restaurant_labels USING (id)"
atleast "sushi in Palo Alto rated >= 4.0, good for a first date" \
	"SELECT count(*) FROM $L WHERE $(has sushi) AND location = 'Palo Alto' AND rating >= 4.0 AND romantic = 1" 1
atleast "near miss: sushi in Palo Alto rated >= 4.0, not romantic" \
	"SELECT count(*) FROM $L WHERE $(has sushi) AND location = 'Palo Alto' AND rating >= 4.0 AND romantic = 0" 1
atleast "romantic Italian" "SELECT count(*) FROM $L WHERE $(has italian) AND romantic = 1" 3
atleast "near miss: Italian, explicitly not romantic" "SELECT count(*) FROM $L WHERE $(has italian) AND romantic = 0" 2
atleast "Chinese with short waits" "SELECT count(*) FROM $L WHERE $(has chinese) AND long_wait = 0" 3
atleast "near miss: Chinese with long waits" "SELECT count(*) FROM $L WHERE $(has chinese) AND long_wait = 1" 3
atleast "happy hour" "SELECT count(*) FROM $L WHERE happy_hour = 1" 10
atleast "near miss: no happy hour" "SELECT count(*) FROM $L WHERE happy_hour = 0" 2
atleast "family-friendly with burgers" \
	"SELECT count(*) FROM $L WHERE kids = 1 AND EXISTS (SELECT 1 FROM json_each(popular_dishes) WHERE value LIKE '%burger%')" 3
atleast "near miss: burgers, not for kids" \
	"SELECT count(*) FROM $L WHERE kids = 0 AND EXISTS (SELECT 1 FROM json_each(popular_dishes) WHERE value LIKE '%burger%')" 2
atleast "serves salmon" "SELECT count(*) FROM restaurants WHERE popular_dishes LIKE '%salmon%'" 5
atleast "serves pasta" "SELECT count(*) FROM restaurants WHERE popular_dishes LIKE '%pasta%' OR popular_dishes LIKE '%spaghetti%' OR popular_dishes LIKE '%linguine%'" 3
for a in romantic kids parking long_wait happy_hour vegan outdoor; do
	atleast "$a: both answers occur" "SELECT (sum($a = 1) > 0) + (sum($a = 0) > 0) FROM restaurant_labels" 2
	atleast "$a: some restaurants are unclear" "SELECT sum($a IS NULL) FROM restaurant_labels" 1
done
atleast "negated wording occurs (not romantic, never had to wait)" \
	"SELECT (SELECT count(*) FROM restaurants WHERE reviews LIKE '%not romantic%')
	      + (SELECT count(*) FROM restaurants WHERE reviews LIKE '%never had to wait%') >= 4" 1
check "the labels agree with the reviews: every romantic = 1 restaurant's reviews speak of romance, dates or candles" \
	"SELECT count(*) FROM $L WHERE romantic = 1 AND reviews NOT LIKE '%romantic%' AND reviews NOT LIKE '%date%'
	 AND reviews NOT LIKE '%candle%' AND reviews NOT LIKE '%intimate%'" 0
check "the labels agree with the reviews: every happy_hour = 1 restaurant mentions happy hour" \
	"SELECT count(*) FROM $L WHERE happy_hour = 1 AND reviews NOT LIKE '%happy hour%'" 0
check "the labels agree with the reviews: every vegan = 1 restaurant mentions vegan or plant based food" \
	"SELECT count(*) FROM $L WHERE vegan = 1 AND reviews NOT LIKE '%vegan%' AND reviews NOT LIKE '%plant%based%'" 0

# The SUQL types live in the catalog inside the database.
check "the catalog records reviews as FREE_TEXT[]" \
	"SELECT type FROM suql_catalog WHERE tbl = 'restaurants' AND col = 'reviews'" "FREE_TEXT[]"
check "the catalog records price as a closed ENUM" \
	"SELECT type FROM suql_catalog WHERE tbl = 'restaurants' AND col = 'price'" \
	"ENUM('cheap','moderate','expensive','luxury')"
check "the catalog records cuisines as an open ENUM[]" \
	"SELECT type FROM suql_catalog WHERE tbl = 'restaurants' AND col = 'cuisines'" "ENUM[]"

# The demo database make builds (build/demo.db) is the user's: a session writes ENUM
# mappings, tables and index entries into it, so no test may read it. Every test builds
# its own copy from fixtures/ (tests/demo-db.sh). The readme suite runs the README's
# commands in a folder of its own, whose build/demo.db is such a copy. Fed a line that
# names the user's database, the check must fail.
users_demo() {
	grep -n 'build/demo\.db\|BUILD}\{0,1\}/demo\.db' "$@" 2>/dev/null |
		grep -v '^[^:]*:[0-9]*:[[:space:]]*#' | grep -v 'printf "./suql build/demo.db"'
}
found=$(cd "$SUQL_TOP" && users_demo tests/*.sh tests/run tests/suites/*.sh tests/engine/*.sh \
	tests/engine/cases/*.case tests/robust/*.t tests/chat/*.t tests/unit/*.c \
	tests/transcripts/*.t scripts/fixtures.sh scripts/eval.sh |
	grep -v '^tests/suites/30-demo-fixture\.sh:')
if [ -n "$found" ]; then
	echo "not ok demo: no test reads the user's demo database (build/demo.db)"
	printf '%s\n' "$found" | sed 's/^/# /' | head -n 10
else
	echo "ok demo: no test reads the user's demo database (build/demo.db)"
fi
probe="$SUQL_TMP/demo-probe.sh"
printf 'db=$SUQL_BUILD/demo.db\n' >"$probe"
if [ -n "$(users_demo "$probe")" ]; then
	echo "ok demo: the check fails on a test that names build/demo.db"
else
	echo "not ok demo: the check fails on a test that names build/demo.db"
fi
rm -f "$probe"
exit 0
