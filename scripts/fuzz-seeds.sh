# scripts/fuzz-seeds.sh: the seeds of each fuzz target, shared by scripts/fuzz.sh (libFuzzer,
# `make fuzz`) and the fuzz suite of `make check` (tests/suites/14-fuzz.sh, the targets
# under a plain driver). Sourced; it needs $out (a scratch folder) and $SUQL_BUILD.
# fuzz_seed NAME DIR fills DIR with the target's seeds, once: the files under
# tests/fuzz/NAME/, and for the built-in targets the golden SQL and the SQL corpora
# (parse) or the importer's test files (csv, json).
shared=${SUQL_SHARED:-../shared}
fuzz_seed() {   # fuzz_seed NAME DIR: fill DIR with the target's seeds, once
	sname=$1 sdir=$2
	[ -n "$(ls "$sdir" 2>/dev/null | head -n 1)" ] && return 0
	mkdir -p "$sdir"
	[ -d "tests/fuzz/$sname" ] && cp tests/fuzz/"$sname"/* "$sdir"/ 2>/dev/null
	case $sname in
	parse)
		# the golden inputs (SUQL forms), our SQLite forms, and the statements of the
		# sqllogictest and SQL corpora when ../shared/data is there
		sed -n 's/^>>> //p' tests/golden/*.txt >"$out/golden-inputs.sql"
		data=""
		if [ -d "$shared/data" ]; then
			data="$(find "$shared/data/sqllogictest/test" -name '*.test' | sort)
			      $shared/data/sql-corpora/spider/spider_dev.sql
			      $(ls "$shared"/data/sql-corpora/sqlfluff-sqlite/*.sql)"
		fi
		if [ -x "$SUQL_BUILD/corpora" ]; then
			# shellcheck disable=SC2086
			"$SUQL_BUILD/corpora" seeds "$sdir" "$out/golden-inputs.sql" \
				tests/golden/sqlite_forms.sql $data >/dev/null 2>&1
		else
			cp "$out/golden-inputs.sql" tests/golden/sqlite_forms.sql "$sdir"/
		fi ;;
	csv)
		# the first byte of an input picks the import's options (tools/fuzz_import.h):
		# 0 is a plain .csv, 1 a ';' separator
		for f in tests/import/*/*.csv tests/import/*/*.tsv; do
			[ -f "$f" ] && { printf '\000'; cat "$f"; } >"$sdir/$(echo "$f" | tr / _)"
		done ;;
	json)
		# 0 is a .json file, 128 (octal 200) a .jsonl file
		for f in tests/import/*/*.json; do
			[ -f "$f" ] && { printf '\000'; cat "$f"; } >"$sdir/$(echo "$f" | tr / _)"
		done
		for f in tests/import/*/*.jsonl; do
			[ -f "$f" ] && { printf '\200'; cat "$f"; } >"$sdir/$(echo "$f" | tr / _)"
		done ;;
	esac
	return 0
}

