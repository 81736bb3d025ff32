#!/bin/sh
# Real SQL corpora through the front end: every statement parses (unless SQLite itself
# calls it a syntax error), parse(print_suql(tree)) gives the same tree, and the
# translation prepares in SQLite exactly when the original does: Spider's dev queries
# against empty tables built from its schemas, sqlfluff's SQLite fixtures in order on a
# scratch database, and the round trip over every sqllogictest statement. Spider queries
# also run on a few sample rows per table: same column names and rows both ways.
# our own file of SQLite forms runs whether or not the shared data is there
rc=0
"$SUQL_BUILD/corpora" sqlfluff tests/golden/sqlite_forms.sql >"$SUQL_TMP/forms.out" 2>&1 || rc=1
sed 's/^ok sqlfluff-sqlite/ok sqlite forms (tests\/golden\/sqlite_forms.sql)/;
     s/^not ok sqlfluff-sqlite/not ok sqlite forms/' "$SUQL_TMP/forms.out"
d="$SUQL_SHARED/data"
if [ ! -d "$d/sql-corpora" ] || [ ! -d "$d/sqllogictest" ]; then
	echo "skip corpora: ../shared/data not found"
	exit $rc
fi
"$SUQL_BUILD/corpora" spider "$d/sql-corpora/spider/spider_dev.sql" \
	"$d/sql-corpora/spider/spider_tables.json" || rc=1
"$SUQL_BUILD/corpora" sqlfluff $(ls "$d"/sql-corpora/sqlfluff-sqlite/*.sql | sort) || rc=1
"$SUQL_BUILD/corpora" roundtrip $(find "$d/sqllogictest/test" -name '*.test' | sort) || rc=1
exit $rc
