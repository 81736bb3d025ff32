#!/bin/sh
# sqllogictest through suql: every record of every file under
# $SUQL_SHARED/data/sqllogictest/test runs through suql's parse -> translate -> SQLite path
# and through plain SQLite; a record stock SQLite passes must pass through suql, and both
# paths must give the same rows. build/slt prints one ok/not ok line per file.
dir="$SUQL_SHARED/data/sqllogictest/test"
if [ ! -d "$dir" ]; then
	echo "skip sqllogictest: ../shared/data not found"
	exit 0
fi
files=$(find "$dir" -name '*.test' | sort)
exec "$SUQL_BUILD/slt" $files
