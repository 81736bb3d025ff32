#!/bin/sh
# libFuzzer over every fuzz target (`make fuzz`; the fuzz suite of `make check` runs a fixed
# number of inputs a target, below). A target is a file tools/fuzz_NAME.c that defines
# LLVMFuzzerTestOneInput; each is built with clang under -fsanitize=fuzzer,address,undefined
# (`make FUZZ=1 fuzzers`, objects in build-fuzz/) and run for FUZZ_SECONDS (60 by default).
#
#   FUZZ_SECONDS=3600 sh scripts/fuzz.sh        an hour per target
#   FUZZ_TARGETS=parse,csv sh scripts/fuzz.sh   some targets only (names without fuzz_)
#   FUZZ_FLAGS="-jobs=2" sh scripts/fuzz.sh     more libFuzzer options
#   FUZZ_RUNS=20000 sh scripts/fuzz.sh          the same start on every machine (check);
#   FUZZ_RUNS_plain=5000 ...                    another count for one target
#
# With FUZZ_RUNS each target starts from its seeds alone (a fresh corpus in
# build-fuzz/NAME/check, not the one earlier runs grew), with libFuzzer's random seed fixed
# (FUZZ_SEED, 1 by default), and stops after that many inputs; FUZZ_SECONDS is then only a
# cap for a slow machine. So `make check` here and on a fresh CI machine search the same
# way from the same place, rather than a long-grown local corpus hiding what a fresh run
# meets. The runs are alike, not identical: the code under test draws on SQLite's
# randomness, so coverage, and the inputs mutated after it, drift a little between runs
# (measured: 9038 to 9631 features over 50000 inputs of fuzz_parse). Searching further is
# what `make fuzz` is for.
#
# Each target keeps its corpus in build-fuzz/NAME/corpus (it grows from run to run) and
# writes what it finds (crash-*, leak-*, timeout-*, oom-*) to build-fuzz/NAME/. Seeds: the
# files under tests/fuzz/NAME/ when that directory exists, and for the built-in targets
# the golden SQL and the SQL corpora (parse), the importer's test files (csv, json).
# For each target one line says what the run did:
#     fuzz_parse: 1234567 executions in 60 s, coverage 5678 edges (9012 features), corpus 345, 0 findings
# The exit status is 1 when any target found something or could not be built, 0 otherwise.
# With --skip-unavailable (the test suite), a machine without clang and libFuzzer prints a
# "skip" line and exits 0.
set -u
cd "$(dirname "$0")/.."
: "${FUZZ_SECONDS:=60}"
: "${SUQL_BUILD:=build}"
skip_ok=0
[ "${1:-}" = "--skip-unavailable" ] && skip_ok=1
out=build-fuzz

unavailable() {
	if [ "$skip_ok" = 1 ]; then
		echo "skip fuzz: $1"
		exit 0
	fi
	echo "fuzz: $1" >&2
	exit 1
}

command -v clang >/dev/null 2>&1 || unavailable "clang is not installed (sh scripts/deps.sh clang libclang-rt-dev)"
mkdir -p "$out"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$out/probe.c"
clang -fsanitize=fuzzer -o "$out/probe" "$out/probe.c" >"$out/probe.log" 2>&1 ||
	unavailable "clang cannot link libFuzzer (install libclang-rt-dev)"

names=""
for f in tools/fuzz_*.c; do
	[ -f "$f" ] || continue
	n=${f#tools/fuzz_}
	n=${n%.c}
	if [ -n "${FUZZ_TARGETS:-}" ]; then
		case ",$(echo "$FUZZ_TARGETS" | tr ' ' ','),"  in *",$n,"*) ;; *) continue ;; esac
	fi
	names="$names $n"
done
[ -n "$names" ] || { echo "fuzz: no target matches '${FUZZ_TARGETS:-}'" >&2; exit 1; }

# shellcheck disable=SC2086
bins=$(for n in $names; do printf ' %s/fuzz_%s' "$out" "$n"; done)
# shellcheck disable=SC2086
if ! make -s FUZZ=1 $bins >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "fuzz: the targets did not build (build-fuzz/build.log)" >&2
	exit 1
fi

. scripts/fuzz-seeds.sh

status=0
for n in $names; do
	dir=$out/$n
	corpus=$dir/corpus seeds=$dir/seeds mode=""
	runs=""
	if [ -n "${FUZZ_RUNS:-}" ]; then
		eval "runs=\${FUZZ_RUNS_$n:-$FUZZ_RUNS}"
		corpus=$dir/check/corpus seeds=$dir/check/seeds
		rm -rf "$dir/check"
		mode="-runs=$runs -seed=${FUZZ_SEED:-1}"
	fi
	mkdir -p "$corpus"
	fuzz_seed "$n" "$seeds"
	before=$(ls "$dir" | grep -c -E '^(crash|leak|timeout|oom|slow-unit)-')
	echo "fuzz_$n: running for $FUZZ_SECONDS s${runs:+ at most}" >&2
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$out/fuzz_$n" -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/" \
		$mode ${FUZZ_FLAGS:-} "$corpus" "$seeds" >"$dir/log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	after=$(ls "$dir" | grep -c -E '^(crash|leak|timeout|oom|slow-unit)-')
	found=$((after - before))
	[ "$rc" -ne 0 ] && [ "$found" -eq 0 ] && found=1
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
	last=$(grep -a -E '^#[0-9]+' "$dir/log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	how=${runs:+ (runs $runs, seed ${FUZZ_SEED:-1})}
	printf 'fuzz_%s: %s executions%s in %s s, coverage %s edges (%s features), corpus %s, %d finding%s\n' \
		"$n" "${execs:-?}" "$how" "$secs" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found" \
		"$([ "$found" -eq 1 ] || echo s)"
	if [ "$found" -gt 0 ]; then
		status=1
		ls -t "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -n 3 |
			sed "s|^|  found: $dir/|"
		grep -a -E 'ERROR|SUMMARY|round trip|does not parse|takes|abort' "$dir/log" | head -n 5 |
			sed 's/^/  /'
	fi
done
exit $status
