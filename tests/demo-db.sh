#!/bin/sh
# tests/demo-db.sh DEST: a database of the demo's restaurants, built afresh at DEST from
# fixtures/demo/*.sql by the program under test ($SUQL_PROG). Tests use it, never the
# demo database make builds for the user: that one is the user's, and a session (the
# README tour, say) writes ENUM mappings, tables and index entries into it.
set -eu
top=${SUQL_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
prog=${SUQL_PROG:-$top/suql}
case $prog in /*) ;; *) prog=$top/$prog ;; esac
dest=$1
rm -f "$dest" "$dest-journal" "$dest-wal"
cat "$top"/fixtures/demo/*.sql | "$prog" --bail "$dest" >/dev/null
