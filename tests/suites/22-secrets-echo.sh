#!/bin/sh
# No secret on screen (issue 35, item 8): an endpoint that echoes the request's headers or
# body back (build/llmserver's echo rules) in its errors and replies, whole, cut at every
# offset, JSON-escaped once and twice, as a detail, as raw text and as a model's reply,
# while suql runs with a password in the endpoint's URL (sent as a Basic credential) and,
# in a second session, with an API key (sent as Bearer). Everything suql writes (stdout and
# stderr, with -v; :llm, :set, :llm test) is searched for every run of 8 characters of the
# password, of the credentials user:password, of the Base64 of the credentials at each of
# its 3 alignments (and as the header carries it, padded), and of the key and its Base64:
# none may appear. The echoes must have reached the screen (the server's header names are
# there), or the test would prove nothing. The request log (llm.log) keeps every request's
# prompt and every reply and error, the echoes among them, and one statement more puts the
# key and the password in the data itself (so in a prompt): no run of a secret may be in
# the log's files either (log.db and its WAL, byte by byte), and every request the server
# received must be a row of it.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/secrets-echo
mkdir -p "$T"
export XDG_CACHE_HOME="$T/cache"
USER_=alice
PASS_RAW='S3cr3t-P%40ss-Word-42'
PASS='S3cr3t-P@ss-Word-42'
KEY=sk-echo-Zq81xKpL0v9Wm3Rt5Yb7Nc2Dh4Jf6Gs
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

# --- the forms no run of which may be shown, one a line
secret_runs "$USER_" "$PASS" "$PASS_RAW" "$KEY" >"$T/runs"

# --- the rules: every request gets the next one (times 1), then the auto answers
{
	printf '['
	sep=""
	for as in message json detail text; do
		for e in headers request; do
			printf '%s{"status": 400, "echo": "%s", "echo_as": "%s", "times": 1}' "$sep" "$e" "$as"
			sep=", "
		done
	done
	# cut at every offset of the header lines, a short window at a time
	i=0
	while [ $i -le 260 ]; do
		printf ', {"status": 400, "echo": "headers", "echo_skip": %d, "echo_max": 37, "times": 1}' $i
		printf ', {"status": 400, "echo": "headers", "echo_as": "json", "echo_skip": %d, "echo_max": 23, "times": 1}' $i
		i=$((i + 3))
	done
	for as in content content; do
		printf ', {"status": 200, "echo": "headers", "echo_as": "%s", "times": 1}' "$as"
	done
	printf ', {"status": 200, "echo": "headers", "echo_as": "content", "echo_skip": 40, "times": 1}'
	printf ', {"status": 503, "echo": "headers", "echo_as": "text", "times": 1}'
} >"$T/rules.json"
nrules=$(grep -o '"times": 1' "$T/rules.json" | wc -l | tr -d ' ')
# then :llm test's request: the echo as the model's reply, cut where the credential is
printf ', {"status": 200, "echo": "headers", "echo_as": "content", "echo_skip": 30, "times": 1}]\n' \
	>>"$T/rules.json"

# a script: :llm and :set first, then one statement a request (each its own question, so
# none is answered from memory), :llm test last
script() {
	echo ':llm'
	echo ':set'
	n=0
	while [ $n -lt "$nrules" ]; do
		echo "SELECT answer('The patio is quiet, number $n.', 'is it quiet $n?') AS a;"
		n=$((n + 1))
	done
	echo ':llm test'
}
script >"$T/script.sql"

# session NAME URL [KEY]: the script through suql at URL, all it wrote in $T/NAME.out
session() {
	_n=$1 _u=$2 _k=${3:-}
	start_server "$_n" --rules "$T/rules.json"
	PIDS="$PIDS $SPID"
	_port=$(cat "$T/$_n.port")
	_url=$(printf '%s' "$_u" | sed "s/PORT/$_port/")
	XDG_STATE_HOME=$T/state-$_n SUQL_LLM_KEY=$_k "$prog" -v --set times=off --no-cache \
		--set llm.retries=0 --llm-url "$_url" --model m "$T/db" <"$T/script.sql" \
		>"$T/$_n.out" 2>&1
	echo "exit $?" >>"$T/$_n.out"
	# the session's secret in the data itself, so in the prompt sent (the user's own text,
	# shown as typed; not searched on screen): masked in the log
	if [ -n "$_k" ]; then _data="Key $_k."; else _data="Page $_url/x, pair $USER_:$PASS."; fi
	XDG_STATE_HOME=$T/state-$_n SUQL_LLM_KEY=$_k "$prog" --no-cache --llm-url "$_url" \
		--model m "$T/db" -c "SELECT answer('$_data', 'is it here?') AS a;" \
		>"$T/$_n.data.out" 2>&1
	stop_server
	sent=$(wc -l <"$T/$_n.log" | tr -d ' ')
}

# found NAME: the runs of the forms the session's output holds
found() { grep -o -F -f "$T/runs" "$T/$1.out" | sort -u | head -5; }

# logged NAME: the request log of the session holds a row per request the server received,
# the echoes among them, and no run of a secret in any byte of its files
logged() {
	_db=$T/state-$1/suql/log.db
	_rows=$(sqlite3 "$_db" "SELECT count(*) FROM log WHERE backend = 'http' AND status <> 'cached'" 2>&1)
	_echo=$(sqlite3 "$_db" "SELECT count(*) FROM log WHERE reply LIKE '%user-agent%'" 2>&1)
	check "$1: the request log has a row per request the server received ($sent)" "$_rows" "$sent"
	[ "$_echo" -gt 0 ] 2>/dev/null && ok "$1: the echoes are in the log ($_echo replies)" ||
		notok "$1: the echoes are in the log" "$_echo"
	_leaks=$(cat "$_db" "$_db-wal" 2>/dev/null | grep -a -o -F -f "$T/runs" | sort -u | head -5)
	if [ -z "$_leaks" ]; then
		ok "$1: no run of 8 characters of a secret or its Base64 in the log's $(cat "$_db" "$_db-wal" 2>/dev/null | wc -c | tr -d ' ') bytes"
	else
		notok "$1: no run of a secret in the request log" "found: $(echo $_leaks)"
	fi
}
if ! command -v sqlite3 >/dev/null 2>&1; then
	logged() { echo "skip $1: the request log (needs the sqlite3 shell)"; }
fi

session basic "http://$USER_:$PASS_RAW@127.0.0.1:PORT/v1"
# the credentials reached the server as a Basic header, and its echoes reached the screen
auth=$(grep -o '"authorization":"Basic [^"]*"' "$T/basic.log" | head -1)
want="\"authorization\":\"Basic $(printf '%s' "$USER_:$PASS" | base64 -w0)\""
check "basic: the server got the credentials as a Basic header" "$auth" "$want"
if [ "$sent" -gt "$nrules" ] && grep -q 'user-agent' "$T/basic.out" && grep -q '\*\*\*' "$T/basic.out"; then
	ok "basic: $sent requests, their echoes shown (masked)"
else
	notok "basic: the echoes reached the screen" "$sent requests" "$(head -20 "$T/basic.out")"
fi
leaks=$(found basic)
if [ -z "$leaks" ]; then
	ok "basic: no run of 8 characters of the password, the credentials or their Base64 (3 alignments) in $(wc -c <"$T/basic.out" | tr -d ' ') bytes of output"
else
	notok "basic: no run of a secret shown" "found: $(echo $leaks)" "$(grep -n -F -f "$T/runs" "$T/basic.out" | head -5)"
fi
grep -q "http://$USER_:\*\*\*@127.0.0.1\|url .*http://127.0.0.1" "$T/basic.out" &&
	ok "basic: the URL is shown without its password" || notok "basic: the URL shown" "$(grep -n 'url' "$T/basic.out" | head -3)"
logged basic

session bearer "http://127.0.0.1:PORT/v1" "$KEY"
auth=$(grep -o '"authorization":"Bearer [^"]*"' "$T/bearer.log" | head -1)
check "bearer: the server got the key" "$auth" "\"authorization\":\"Bearer $KEY\""
if [ "$sent" -gt "$nrules" ] && grep -q 'user-agent' "$T/bearer.out"; then
	ok "bearer: $sent requests, their echoes shown"
else
	notok "bearer: the echoes reached the screen" "$sent requests" "$(head -20 "$T/bearer.out")"
fi
leaks=$(found bearer)
if [ -z "$leaks" ]; then
	ok "bearer: no run of 8 characters of the key or its Base64 in $(wc -c <"$T/bearer.out" | tr -d ' ') bytes of output"
else
	notok "bearer: no run of a secret shown" "found: $(echo $leaks)" "$(grep -n -F -f "$T/runs" "$T/bearer.out" | head -5)"
fi
logged bearer
[ "$fails" -eq 0 ]
