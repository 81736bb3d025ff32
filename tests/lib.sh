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
# the REPL's start-up probe of local ports (:llm probe) never looks at this machine's: a
# test that wants it sets SUQL_PROBE to a server of its own
export SUQL_PROBE=off
prog=$SUQL_PROG
case $prog in /*) ;; *) prog=$SUQL_TOP/$prog ;; esac

# llmserver_start DIR RULES [OPTIONS...]: build/llmserver on a free port with the rules
# file RULES, logging to DIR/log; sets SPID (its pid) and URL (its base URL) once it
# listens. Stop it with kill "$SPID".
llmserver_start() {
	_d=$1 _r=$2
	shift 2
	_b=$SUQL_BUILD
	case $_b in /*) ;; *) _b=$SUQL_TOP/$_b ;; esac
	rm -f "$_d/port"
	"$_b/llmserver" --port-file "$_d/port" --log "$_d/log" --rules "$_r" "$@" \
		2>"$_d/server.err" &
	SPID=$!
	_i=0
	while [ ! -s "$_d/port" ] && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	URL="http://127.0.0.1:$(cat "$_d/port")/v1"
}

# For suites that run one statement against the server llmserver_start started in $T:
# lines: the requests it has logged so far; run DB SQL [options...]: suql -v on DB with
# the model at $URL (model m, no budget), rows as CSV in $T/rows, -v output in $T/err,
# exit status in $st, the requests the server received meanwhile in $req.
lines() { if [ -f "$T/log" ]; then wc -l <"$T/log" | tr -d ' '; else echo 0; fi; }
run() {
	_db=$1 _sql=$2
	shift 2
	_before=$(lines)
	"$prog" -v --set times=off --csv --no-headers --set budget=0 --llm-url "$URL" --model m \
		"$@" "$_db" -c "$_sql" >"$T/rows" 2>"$T/err"
	st=$?
	req=$(($(lines) - _before))
}

# The lines a suite prints: ok NAME; notok NAME [LINE...] ("not ok NAME", then each line as
# a "# " comment, cut at 600 characters, and fails counted); check NAME GOT WANT (ok when
# the two are equal). Each name goes out after the suite's $OK_PREFIX ("join: ", say).
OK_PREFIX=${OK_PREFIX:-}
fails=0
ok() { echo "ok $OK_PREFIX$1"; }
notok() {
	echo "not ok $OK_PREFIX$1"
	shift
	for _l in "$@"; do printf '%s\n' "$_l" | cut -c1-600 | sed 's/^/# /'; done
	fails=$((fails + 1))
}
check() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:  $2" "want: $3"; fi; }

# start_server NAME [llmserver options...]: build/llmserver on a free port, logging to
# $T/NAME.log (T: the suite's scratch folder); sets SPID, URL and LOG once it listens.
# stop_server stops it (nothing when none runs).
SPID=""
start_server() {
	_n=$1
	shift
	_b=$SUQL_BUILD
	case $_b in /*) ;; *) _b=$SUQL_TOP/$_b ;; esac
	rm -f "$T/$_n.port"
	"$_b/llmserver" --port-file "$T/$_n.port" --log "$T/$_n.log" "$@" 2>"$T/$_n.err" &
	SPID=$!
	_i=0
	while [ ! -s "$T/$_n.port" ] && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	URL="http://127.0.0.1:$(cat "$T/$_n.port")/v1"
	LOG="$T/$_n.log"
}
stop_server() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }

# secret_runs USER PASS PASS_RAW KEY: every run of 8 characters of the forms a secret can
# be shown in, one a line (sorted, unique): the password as given and as written in a URL,
# the credentials user:password, their Base64 whole and each run Base64 alone decides at
# each of its 3 alignments, the key and its runs likewise. A test searches what suql wrote
# for any of them (grep -F -f).
secret_runs() {
	{
		printf '%s\n' "$2" "$3" "$1:$2" "$1:$3" "$4"
		printf '%s' "$1:$2" | base64 -w0; echo
		for _k in 0 1 2; do _b64_at "$1:$2" $_k; _b64_at "$2" $_k; _b64_at "$4" $_k; done
	} | awk '{ for (i = 1; i + 7 <= length($0); i++) print substr($0, i, 8) }' | sort -u
}
_b64_at() {   # _b64_at TEXT K: the Base64 characters TEXT alone decides at alignment K
	_s=$1 _k2=$2
	_pad=$(printf '%.*s' "$_k2" QQ)
	_m=$((${#_s} + _k2))
	_b=$(printf '%s%s' "$_pad" "$_s" | base64 -w0)
	case $_k2 in 0) _from=1 ;; 1) _from=3 ;; 2) _from=4 ;; esac
	case $((_m % 3)) in 0) _x=0 ;; 1) _x=1 ;; 2) _x=2 ;; esac
	printf '%s\n' "$_b" | cut -c"$_from"-"$((4 * (_m / 3) + _x))"
}
