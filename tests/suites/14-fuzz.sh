#!/bin/sh
# Every fuzz target (tools/fuzz_*.c) built and run the same way on every machine
# (scripts/fuzz.sh with FUZZ_RUNS: its seeds alone, libFuzzer's seed fixed, a fixed number
# of inputs; alike from run to run, not bit for bit, as scripts/fuzz.sh says), so that a
# check here searches where CI's does; `make fuzz` searches further from a growing corpus. The counts give each target about ten seconds
# here (fuzz_plain runs every input twice through a database, fuzz_prompt builds and compares two requests in five dialects, and fuzz_logprobs builds a block of JSON objects for each input, so they get fewer); 120 s is
# only a cap for a slow machine. One line per target: ok when the run found nothing.
# Skipped, with the reason, where clang or libFuzzer is not installed.
out="$SUQL_TMP/fuzz.out"
FUZZ_RUNS=${SUQL_FUZZ_RUNS:-500000} FUZZ_RUNS_parse=50000 FUZZ_RUNS_plain=10000 \
	FUZZ_RUNS_csv=50000 FUZZ_RUNS_json=50000 FUZZ_RUNS_eval=200000 FUZZ_RUNS_cite=200000 FUZZ_RUNS_prompt=5000 FUZZ_RUNS_logprobs=15000 \
	FUZZ_SECONDS=${SUQL_FUZZ_SECONDS:-120} \
	sh "$SUQL_TOP/scripts/fuzz.sh" --skip-unavailable >"$out" 2>"$out.err"
rc=$?
if grep -q '^skip ' "$out"; then
	cat "$out"
	exit 0
fi
n=0
while IFS= read -r line; do
	case $line in
	fuzz_*": "*" 0 findings")
		echo "ok $line"; n=$((n + 1)) ;;
	fuzz_*": "*)
		echo "not ok $line"; n=$((n + 1)) ;;
	*)
		echo "# $line" ;;
	esac
done <"$out"
if [ "$n" -eq 0 ]; then
	echo "not ok fuzz: no target ran (status $rc)"
	sed 's/^/# /' "$out.err" | tail -n 20
fi
