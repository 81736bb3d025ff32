#!/bin/sh
# The real datasets (scripts/fixtures.sh, build/mkfixtures), when ../shared/data is there:
# every clothing review and product, all 40 HybridQA tables, the SUQL types recorded, the
# _Info columns holding passages, and the retrieval indexes built.
. "$(dirname "$0")/../lib.sh"
set -u
data="$SUQL_SHARED/data"
names="clothing: builds|clothing: 23,486 reviews|clothing: 1,206 products|clothing: products hold every review|clothing: SUQL types|clothing: indexes|hybridqa: builds|hybridqa: 40 tables|hybridqa: _Info columns are FREE_TEXT[]|hybridqa: _Info columns hold passages|hybridqa: table descriptions|hybridqa: indexes|fixtures.sh skips without data"
if [ ! -d "$data" ]; then
	echo "$names" | tr '|' '\n' | sed 's/^/skip /; s/$/: ..\/shared\/data not found/'
	exit 0
fi
t="$SUQL_TMP/real"
mkdir -p "$t"
check() {   # NAME DB SQL WANT
	got=$(sqlite3 "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "query: $3" "got: $got" "want: $4"; fi
}

unzip -p "$data/womens-clothing-reviews/womens-clothing-reviews.csv.zip" > "$t/clothing.csv"
c="$t/clothing.db"
if "$SUQL_BUILD/mkfixtures" clothing "$t/clothing.csv" "$c" >/dev/null; then ok "clothing: builds"; else notok "clothing: builds"; fi
check "clothing: 23,486 reviews" "$c" "SELECT count(*) FROM reviews" 23486
check "clothing: 1,206 products" "$c" "SELECT count(*) FROM products" 1206
check "clothing: products hold every review" "$c" \
	"SELECT sum(num_reviews) || ' ' || (SELECT count(*) FROM reviews WHERE title IS NOT NULL OR review_text IS NOT NULL)
	 || ' ' || sum(json_array_length(reviews)) FROM products" "23486 22642 22642"
check "clothing: SUQL types" "$c" \
	"SELECT group_concat(tbl || '.' || col || ' ' || type, ', ') FROM (SELECT * FROM suql_catalog WHERE col IN ('reviews', 'review_text') ORDER BY tbl)" \
	"products.reviews FREE_TEXT[], reviews.review_text FREE_TEXT"
check "clothing: indexes" "$c" "SELECT count(*) FROM suql_index WHERE npassages > 20000" 2

h="$t/hybridqa.db"
if "$SUQL_BUILD/mkfixtures" hybridqa "$data/hybridqa-tables" "$h" >/dev/null; then ok "hybridqa: builds"; else notok "hybridqa: builds"; fi
check "hybridqa: 40 tables" "$h" \
	"SELECT count(*) FROM suql_table_info WHERE tbl IN (SELECT name FROM sqlite_schema WHERE type = 'table')" 40
check "hybridqa: _Info columns are FREE_TEXT[]" "$h" \
	"SELECT count(*) > 60 AND sum(type = 'FREE_TEXT[]') = count(*) FROM suql_catalog WHERE col LIKE '%\_Info' ESCAPE '\\'" 1
check "hybridqa: _Info columns hold passages" "$h" \
	"SELECT count(*) FROM t_2001_brazilian_grand_prix_0 WHERE Driver_Info LIKE '%racing driver%'" 20
check "hybridqa: table descriptions" "$h" \
	"SELECT title || ' | ' || (length(intro) > 100) FROM suql_table_info WHERE tbl = 't_2001_brazilian_grand_prix_0'" \
	"2001 Brazilian Grand Prix | 1"
check "hybridqa: indexes" "$h" "SELECT count(*) >= 60 AND sum(npassages > 0) = count(*) FROM suql_index" 1

out=$(SUQL_SHARED="$t/nowhere" SUQL_BUILD="$t" sh scripts/fixtures.sh)
if [ "$out" = "skipped: ../shared/data not found" ]; then ok "fixtures.sh skips without data"; else notok "fixtures.sh skips without data" "$out"; fi
exit 0
