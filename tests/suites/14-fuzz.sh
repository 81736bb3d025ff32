#!/bin/sh
# Every fuzz target (tools/fuzz_*.c) run on this build under the plain driver
# (tests/fuzzdrive.c, linked by the Makefile into $SUQL_BUILD/fuzzcheck/): each target's
# seeds (scripts/fuzz-seeds.sh, as `make fuzz` seeds libFuzzer), then a fixed number of
# inputs mutated from them with a fixed seed, the same inputs on every machine. A target's
# properties abort on a violation, so a run that ends in a signal or a non-zero status is
# a finding, its input kept in the suite's folder and named. Under `make SAN=...` the
# targets are built with the sanitizers and the same runs catch what they catch.
# Coverage-guided search, with libFuzzer, ASan and UBSan, is `make fuzz` (scripts/fuzz.sh):
# it rebuilds the library with clang, which the suite leaves out to keep `make check` fast.
# One line per target: ok when the run found nothing.
. "$(dirname "$0")/../lib.sh"
set -u
out=$SUQL_TMP/fuzz
mkdir -p "$out"
cd "$SUQL_TOP" || exit 2
. scripts/fuzz-seeds.sh

# Inputs per target: about a second or two each on this machine (fuzz_plain runs every
# input through a database twice, fuzz_prompt builds and compares requests in five
# dialects, so they get fewer). SUQL_FUZZ_RUNS scales them all (a number of inputs for
# the targets that take the default).
runs_for() {
	case $1 in
	plain) echo 1500 ;;
	prompt) echo 5000 ;;
	logprobs) echo 20000 ;;
	parse | csv | json) echo 8000 ;;
	*) echo "${SUQL_FUZZ_RUNS:-100000}" ;;
	esac
}

n=0
for bin in "$SUQL_BUILD"/fuzzcheck/fuzz_*; do
	case $bin in *.d) continue ;; esac
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	n=$((n + 1))
	dir=$out/$name
	mkdir -p "$dir"
	fuzz_seed "$name" "$dir/seeds"
	"$bin" -runs="$(runs_for "$name")" -seed=1 -max_len=4096 -artifact_prefix="$dir/" \
		"$dir/seeds" >"$dir/log" 2>&1
	rc=$?
	line=$(grep '^fuzz_' "$dir/log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$line" ]; then
		ok "$line"
	else
		kept=$(ls "$dir"/crash-* 2>/dev/null | head -n 1)
		notok "fuzz_$name: status $rc${kept:+, input kept in $kept}" "$(tail -n 8 "$dir/log")"
	fi
done
[ "$n" -gt 0 ] || notok "fuzz: no target under $SUQL_BUILD/fuzzcheck (make all builds them)"
# the driver reports a target that dies: fed a target that aborts on one byte, it must fail
cat >"$out/abort.c" <<'EOF'
#include <stdint.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i] == '!')
			abort();
	return 0;
}
EOF
mkdir -p "$out/abort-seeds"
printf 'hello world' >"$out/abort-seeds/a"
if ${CC:-cc} -o "$out/abort" "$out/abort.c" tests/fuzzdrive.c 2>"$out/abort.err"; then
	if "$out/abort" -runs=20000 -seed=1 -artifact_prefix="$out/abort-" "$out/abort-seeds" \
		>"$out/abort.log" 2>&1; then
		notok "the driver reports a target that dies" "it exited 0"
	elif grep -q '!' "$out/abort-crash-1" 2>/dev/null; then
		ok "the driver reports a target that dies, and keeps the input that did it"
	else
		notok "the driver reports a target that dies" "no input kept: $(cat "$out/abort.log")"
	fi
else
	notok "the driver builds" "$(cat "$out/abort.err")"
fi
exit "$fails"
