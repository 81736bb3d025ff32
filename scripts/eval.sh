#!/bin/sh
# `make eval`: run the benchmarks shipped in fixtures/eval/ with whatever language model is
# configured (the offline backend when none is; the same variables and config file as suql
# itself) and print each one's table. Each benchmark runs on a fresh copy of its database in
# $SUQL_BUILD/eval/ and writes a new report there. Every way the backend can run is used
# (EVAL_WAYS, default all: suql, linearize, and chat when a model is configured), without the
# cache so that calls and tokens are what the run cost (EVAL_FLAGS, default --no-cache).
# clothing and HybridQA need ../shared/data (their databases come from scripts/fixtures.sh);
# without it they are skipped with a message.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
: "${SUQL_BUILD:=build}"
: "${SUQL_PROG:=suql}"
: "${EVAL_WAYS:=all}"
EVAL_FLAGS=${EVAL_FLAGS---no-cache}
shared=${SUQL_SHARED:-$(cd "$top/.." && pwd)/shared}
out=$SUQL_BUILD/eval
mkdir -p "$out"
status=0

run() {   # run NAME DATABASE
	cp "$2" "$out/$1.db"
	rm -f "$out/$1.report.jsonl"
	echo
	# shellcheck disable=SC2086
	"./$SUQL_PROG" --eval "fixtures/eval/$1.jsonl" --way "$EVAL_WAYS" \
		--report "$out/$1.report.jsonl" $EVAL_FLAGS "$out/$1.db"
	st=$?
	[ "$st" -gt "$status" ] && status=$st
	rm -f "$out/$1.db"
}

# the demo's restaurants built afresh from fixtures/demo/ (build/demo.db is the user's: the
# README tour writes ENUM mappings and tables into it, which would change the figures)
SUQL_PROG=$SUQL_PROG sh tests/demo-db.sh "$out/demo-fresh.db" || exit 2
run restaurants "$out/demo-fresh.db"
rm -f "$out/demo-fresh.db"
if [ ! -d "$shared/data" ]; then
	echo
	echo "clothing, hybridqa: skipped: ../shared/data not found"
	exit "$status"
fi
if [ ! -f "$SUQL_BUILD/clothing.db" ] || [ ! -f "$SUQL_BUILD/hybridqa.db" ]; then
	SUQL_BUILD=$SUQL_BUILD SUQL_PROG=$SUQL_PROG sh scripts/fixtures.sh >/dev/null || exit 2
fi
for b in clothing hybridqa; do
	if [ -f "$SUQL_BUILD/$b.db" ]; then
		run "$b" "$SUQL_BUILD/$b.db"
	else
		echo
		echo "$b: skipped: $SUQL_BUILD/$b.db could not be built"
	fi
done
exit "$status"
