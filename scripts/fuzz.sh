#!/bin/sh
# libFuzzer over the SUQL front end (`make fuzz`, FUZZ_SECONDS=60 by default).
# Installs clang when missing, builds tools/fuzz_parse.c with every src/*.c but main.c
# under -fsanitize=fuzzer,address,undefined into build-fuzz/, seeds a corpus from the
# sqllogictest and SQL corpora statements (../shared/data, when present), and runs.
# Crashes are written to build-fuzz/crash-*; the corpus grows in build-fuzz/corpus.
set -eu
cd "$(dirname "$0")/.."
: "${FUZZ_SECONDS:=60}"
: "${SUQL_BUILD:=build}"
out=build-fuzz
command -v clang >/dev/null 2>&1 || sh scripts/deps.sh clang
mkdir -p "$out/corpus" "$out/seeds"
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -Isrc -I$SUQL_BUILD
 $(pkg-config --cflags sqlite3 libcurl jansson 2>/dev/null)
 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
libs="$(pkg-config --libs sqlite3 libcurl jansson 2>/dev/null) $(pkg-config --libs libedit 2>/dev/null) -lstemmer -lm -lpthread"
srcs=$(ls src/*.c | grep -v '^src/main.c$')
if [ ! -f "$SUQL_BUILD/prompts_gen.c" ]; then
	echo "fuzz: run make first ($SUQL_BUILD/prompts_gen.c is missing)" >&2
	exit 1
fi
# shellcheck disable=SC2086
clang $cflags -o "$out/fuzz_parse" tools/fuzz_parse.c $srcs "$SUQL_BUILD/prompts_gen.c" $libs
shared=${SUQL_SHARED:-../shared}
if [ -z "$(ls "$out/seeds" 2>/dev/null | head -n 1)" ]; then
	# seeds: the golden inputs (SUQL forms), our SQLite forms, and the statements of the
	# sqllogictest and SQL corpora when ../shared/data is there
	sed -n 's/^>>> //p' tests/golden/*.txt >"$out/golden-inputs.sql"
	data=""
	if [ -d "$shared/data" ]; then
		data="$(find "$shared/data/sqllogictest/test" -name '*.test' | sort)
		      $shared/data/sql-corpora/spider/spider_dev.sql
		      $(ls "$shared"/data/sql-corpora/sqlfluff-sqlite/*.sql)"
	fi
	# shellcheck disable=SC2086
	"$SUQL_BUILD/corpora" seeds "$out/seeds" "$out/golden-inputs.sql" \
		tests/golden/sqlite_forms.sql $data
fi
echo "fuzz: running for $FUZZ_SECONDS seconds" >&2
cd "$out"
# FUZZ_FLAGS adds libFuzzer options, e.g. "-fork=1 -ignore_crashes=1" for a long run
# shellcheck disable=SC2086
exec ./fuzz_parse -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 ${FUZZ_FLAGS:-} corpus seeds
