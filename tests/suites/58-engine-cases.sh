#!/bin/sh
# The engine's cases as data: every case of tests/engine/cases/*.case (the format and its
# runner are tests/engine/case.sh; doc/testing.md describes them) on SQLite, and on
# PostgreSQL when a server of the suite's own starts (tests/pg.sh), its fixture databases
# loaded there once each. A case asserts its rows, its counters (calls counted, never
# timed), its plan's lines and, when it runs against build/llmserver, the requests the
# server logged; run on both backends it must cost the same calls on both. A case that
# PostgreSQL refuses says so in its file (@@ refused postgres: ...), one line to drop when
# it runs there. SUQL_CASES=FILE... runs only those files.
#
# suql-parts: the runner (tests/run) runs it in parts side by side, SUQL_PART naming one:
# "runner" (the check of the case runner itself) or a case file's name without .case; a
# part of each case file keeps its cases in file order, on fixtures of its own.
if [ "${SUQL_PART:-}" = list ]; then
	echo runner
	for f in "$(dirname "$0")"/../engine/cases/*.case; do basename "$f" .case; done
	exit 0
fi
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
. tests/engine/case.sh
T=$SUQL_TMP/cases
mkdir -p "$T"
OK_PREFIX="cases: "

# the runner itself: a file of cases that must each fail (a wrong row, a wrong count of
# calls, a plan line missing, one present, a refusal that does not come, a server's log
# that disagrees, a case that says nothing of its rows, an output unlike another case's,
# a message other than those said, a row not among another case's, a request without a
# line said of it, a line in the server's log said not to be) fails each, on SQLite
cat >"$T/wrong.case" <<'EOF'
@@ case a wrong row
@@ sql
SELECT count(*) FROM restaurants;
@@ rows
111

@@ case a wrong count of calls
@@ args --no-cache --set batch=4
@@ sql
SELECT id FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes';
@@ rowcount 64
@@ counters
llm calls = 27

@@ case a plan line missing
@@ sql
SELECT 1;
@@ rows
1
@@ contains
no such line

@@ case a line present
@@ sql
SELECT count(*) FROM restaurants;
@@ rows
112
@@ absent
restaurants

@@ case a refusal that does not come
@@ sql
SELECT 1;
@@ refused sqlite: not supported
@@ rows
1

@@ case a server's log that disagrees
@@ server
@@ log 5
@@ args --no-cache
@@ sql
SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' LIMIT 1;
@@ rowcount 1

@@ case says nothing of its rows
@@ sql
SELECT 1;

@@ case an output that differs from another case's
@@ sql
SELECT 2;
@@ output-as a plan line missing

@@ case a message that is not the one said
@@ sql
SELECT 1;
SELECT nosuch;
@@ status 1
@@ rows
1
@@ messages
no such table

@@ case a row not among another case's
@@ sql
SELECT 3;
@@ rows-in a plan line missing

@@ case a request without a line said of it
@@ server
@@ args --no-cache
@@ sql
SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' AND id = 1;
@@ rowcount 1
@@ request 1
is it romantic?

@@ case a line in the server's log said not to be
@@ args --no-cache
@@ file wrong.json
[{"content": "no"}]
@@ server --rules $FILES/wrong.json
@@ sql
SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' AND id = 1;
@@ rowcount 0
@@ unlogged
is it quiet?
EOF
part=${SUQL_PART:-}
case $part in
'' | runner)
f0=$fails
case_file "$T/wrong.case" sqlite >"$T/wrong.out" 2>&1
fails=$f0
n=$(grep -c '^not ok' "$T/wrong.out")
if [ "$n" = 12 ] && ! grep -q '^ok' "$T/wrong.out"; then
	ok "the runner fails each of 12 wrong cases"
else
	notok "the runner fails each of 12 wrong cases" "$n failed" "$(grep '^ok' "$T/wrong.out")"
fi
;;
*) SUQL_CASES=tests/engine/cases/$part.case ;;
esac
[ "$part" = runner ] && exit "$fails"

backends="sqlite postgres"
if ! pg_start; then
	echo "skip cases on PostgreSQL: $PG_SKIP"
	backends=sqlite
fi
for f in ${SUQL_CASES:-tests/engine/cases/*.case}; do
	# shellcheck disable=SC2086
	case_file "$f" $backends
done
stop_server
[ "$backends" = sqlite ] || pg_stop
