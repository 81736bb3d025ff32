# tests/lib.sh: the start the suites share, sourced as . "$(dirname "$0")/../lib.sh".
# tests/run passes SUQL_TOP, SUQL_PROG, SUQL_BUILD and SUQL_TMP; a suite run alone gets
# them here (a scratch directory of its own, removed on exit unless the suite sets its own
# EXIT trap, which must then remove it when own_tmp is 1). prog is the program's absolute
# path.
set -u
: "${SUQL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${SUQL_PROG:=suql}"
: "${SUQL_BUILD:=$SUQL_TOP/build}"
own_tmp=""
if [ -z "${SUQL_TMP:-}" ]; then
	SUQL_TMP=$(mktemp -d)
	own_tmp=1
	trap 'rm -rf "$SUQL_TMP"' EXIT
fi
prog=$SUQL_PROG
case $prog in /*) ;; *) prog=$SUQL_TOP/$prog ;; esac
