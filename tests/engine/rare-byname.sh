#!/bin/sh
# rare-byname.sh PROG DB: tests/engine/rare-db.sh's 3,000 rows with an index on name, which
# SQLite reads instead of the table for their rowids: a candidate statement not in rowid
# order. Used by tests/engine/cases/window.case.
sh "$(dirname "$0")/rare-db.sh" "$1" "$2" 3000
"$1" "$2" -c "CREATE INDEX by_name ON places (name);" >/dev/null 2>&1
