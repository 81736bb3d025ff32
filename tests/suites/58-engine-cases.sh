#!/bin/sh
# The engine's cases as data: every case of tests/engine/cases/*.case (the format and its
# runner are tests/engine/case.sh; doc/testing.md describes them) on SQLite, and on
# PostgreSQL when a server of the suite's own starts (tests/pg.sh), its fixture databases
# loaded there once each. A case asserts its rows, its counters (calls counted, never
# timed), its plan's lines and, when it runs against build/llmserver, the requests the
# server logged; run on both backends it must cost the same calls on both. A case that
# PostgreSQL refuses says so in its file (@@ refused postgres: ...), one line to drop when
# it runs there. SUQL_CASES=FILE... runs only those files.
. "$(dirname "$0")/../lib.sh"
set -u
. tests/pg.sh
. tests/engine/case.sh
T=$SUQL_TMP/cases
mkdir -p "$T"
OK_PREFIX="cases: "

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
