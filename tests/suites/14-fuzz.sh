#!/bin/sh
# Every fuzz target (tools/fuzz_*.c) built and run for ten seconds each (scripts/fuzz.sh;
# `make fuzz` runs longer). One line per target: ok when the run found nothing. Skipped,
# with the reason, where clang or libFuzzer is not installed.
out="$SUQL_TMP/fuzz.out"
FUZZ_SECONDS=${SUQL_FUZZ_SECONDS:-10} sh "$SUQL_TOP/scripts/fuzz.sh" --skip-unavailable >"$out" 2>"$out.err"
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
