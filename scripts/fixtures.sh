#!/bin/sh
# `make fixtures`: build the databases of the real datasets in $SUQL_SHARED/data (the
# checkout's ../shared/data), through build/mkfixtures:
#   $SUQL_BUILD/clothing.db   Women's E-Commerce Clothing Reviews: reviews and products
#   $SUQL_BUILD/hybridqa.db   the HybridQA tables, one table each, with their _Info passages
# The data is read where it is and never copied into the checkout. Without it, say so and
# succeed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
: "${SUQL_BUILD:=build}"
shared=${SUQL_SHARED:-$(cd "$top/.." && pwd)/shared}
data="$shared/data"
if [ ! -d "$data" ]; then
	echo "skipped: ../shared/data not found"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/suql-fixtures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

zip="$data/womens-clothing-reviews/womens-clothing-reviews.csv.zip"
if [ -f "$zip" ]; then
	unzip -p "$zip" > "$tmp/clothing.csv"
	"$SUQL_BUILD/mkfixtures" clothing "$tmp/clothing.csv" "$SUQL_BUILD/clothing.db"
	echo "built $SUQL_BUILD/clothing.db"
else
	echo "skipped clothing: $zip not found"
fi

if [ -d "$data/hybridqa-tables/tables" ]; then
	"$SUQL_BUILD/mkfixtures" hybridqa "$data/hybridqa-tables" "$SUQL_BUILD/hybridqa.db"
	echo "built $SUQL_BUILD/hybridqa.db"
else
	echo "skipped hybridqa: $data/hybridqa-tables not found"
fi
