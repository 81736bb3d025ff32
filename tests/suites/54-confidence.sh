#!/bin/sh
# A verdict's confidence, from the log-probabilities an endpoint returns (llm.logprobs,
# llm.min_confidence), against build/llmserver: in auto mode it judges yes for the texts
# holding alpha or charlie, and with --logprobs give it gives each yes/no word at 0.97,
# or at 0.55 for a text holding charlie (--unsure-words). Checked: the request asks for
# them only when it should; :why, the per-row record and --json -v show the confidence;
# llm.min_confidence turns the unsure verdict into unknown without changing the calls; a
# cached verdict keeps its confidence; an endpoint that refuses them is asked again
# without and remembered; a reply without them, or with a malformed block, gives no
# confidence, and the output is then byte for byte what it is with llm.logprobs off.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/confidence
mkdir -p "$T"
ok() { echo "ok confidence: $1"; }
notok() { echo "not ok confidence: $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() {   # check NAME COND-STATUS DETAIL...
	name=$1 st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else notok "$name" "$@"; fi
}

db=$T/places.db
rm -f "$db"
"$prog" "$db" >/dev/null 2>&1 <<'EOF'
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT[]);
INSERT INTO places VALUES
 (1, 'Alpha Bistro', '["Candlelit alpha tables, a romantic and calm room."]'),
 (2, 'Bravo Diner', '["Bright bravo lights, not romantic at all."]'),
 (3, 'Charlie Cafe', '["A charlie corner, romantic with soft music."]'),
 (4, 'Delta Grill', '["Loud delta sports bar, nothing romantic."]');
EOF
echo '[]' >"$T/rules.json"
q="SELECT name FROM places WHERE answer(reviews, 'is it romantic?') = 'Yes';"
p="SELECT name, answer(reviews, 'is it romantic?') = 'Yes' AS r FROM places;"
SPID=""
start() {   # start [server options]: a fresh server and log (the last one stopped)
	if [ -n "$SPID" ]; then
		kill "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
	fi
	rm -f "$T/log"
	llmserver_start "$T" "$T/rules.json" --yes-words alpha,charlie "$@"
}
run() {   # run NAME [options...]: stdin to suql, out and err in T/NAME.out, T/NAME.err
	n=$1
	shift
	"$prog" -v --set explain=rows --set times=off --llm-url "$URL" --model m "$@" "$db" \
		>"$T/$n.out" 2>"$T/$n.err"
}
has() { grep -qF -- "$2" "$T/$1"; }

# ---- an endpoint that gives log-probabilities ----
start --logprobs give --unsure-words charlie
printf '%s\n:why 1\n:why 2\n:why key=2\n' "$q" | run on --no-cache --set llm.logprobs=on
st=$?
has on.out "answer(reviews, 'is it romantic?') = 'Yes': yes (confidence 0.97)" &&
	has on.out "answer(reviews, 'is it romantic?') = 'Yes': yes (confidence 0.55)" &&
	has on.out "answer(reviews, 'is it romantic?') = 'Yes': no (confidence 0.97)"
check ":why shows each verdict's confidence" $? "status $st" "$(cat "$T/on.out")"
has on.err "key 3 Charlie Cafe | wave 1 | request 1 | q1 yes (0.55) | in the result" &&
	has on.err "key 2 Bravo Diner | wave 1 | request 1 | q1 no (0.97) | not in the result"
check "the per-row record shows each verdict's confidence" $? "$(cat "$T/on.err")"
grep -qF '\"logprobs\":true,\"top_logprobs\":5' "$T/log"
check "llm.logprobs on: the request asks for them" $? "$(cat "$T/log")"
on_requests=$(wc -l <"$T/log")

# --json -v: the record's verdicts carry them too
printf '%s\n' "$q" | "$prog" --json -v --set explain=rows --llm-url "$URL" --model m --no-cache \
	--set llm.logprobs=on "$db" >"$T/json.out" 2>"$T/json.err"
grep -q '"verdict":"yes","reply":"yes","evidence":null,"confidence":0\.55' "$T/json.out"
check "--json -v: the record's verdicts carry their confidence" $? "$(cat "$T/json.out")"

# the default (auto, llm.min_confidence 0) asks nothing more: requests as before
bodies() { sed -n 's/.*"body":\(".*"\),"inflight".*/\1/p' "$T/log"; }
start --logprobs give --unsure-words charlie
printf '%s\n' "$q" | run auto --no-cache
bodies >"$T/log.auto"
start --logprobs give --unsure-words charlie
printf '%s\n' "$q" | run off --no-cache --set llm.logprobs=off
bodies >"$T/log.off"
[ -s "$T/log.off" ] && cmp -s "$T/log.auto" "$T/log.off" && ! grep -q logprobs "$T/log" &&
	! has auto.err "(0.97)" && ! has auto.out confidence && cmp -s "$T/auto.out" "$T/off.out"
check "llm.logprobs auto without llm.min_confidence: requests and output as with off" $? \
	"$(diff "$T/log.auto" "$T/log.off" | cut -c1-300)" "$(diff "$T/auto.out" "$T/off.out")"

# ---- llm.min_confidence: the unsure verdict is unknown; the calls are the same ----
start --logprobs give --unsure-words charlie
printf '%s\n:why key=3\n%s\n' "$q" "$p" | run min --no-cache --set llm.min_confidence=0.6
st=$?
sed -n '/^+/,/rows*)$/p' "$T/min.out" >"$T/min.rows"
grep -q 'Alpha Bistro' "$T/min.rows" && ! grep -q 'Charlie Cafe *|$' "$T/min.rows"
check "llm.min_confidence: a verdict below it does not pass" $? "status $st" "$(cat "$T/min.out")"
has min.out "answer(reviews, 'is it romantic?') = 'Yes': unknown (the reply said yes at confidence 0.55, below llm.min_confidence 0.6)"
check "llm.min_confidence: :why says the verdict is unknown, and why" $? "$(cat "$T/min.out")"
grep -q '^| Charlie Cafe | NULL |$' "$T/min.out" && grep -q '^| Alpha Bistro |    1 |$' "$T/min.out"
check "llm.min_confidence: in a result column the verdict is NULL" $? "$(cat "$T/min.out")"
has min.err "q1 unknown (yes 0.55) | not in the result" &&
	has min.err "low confidence: 1 verdict below llm.min_confidence 0.6, taken as unknown" &&
	has min.err "1 unknown (no text, a reply that could not be read, or a verdict of low confidence)"
check "llm.min_confidence: the record and the counters say so" $? "$(cat "$T/min.err")"
grep -qF '\"logprobs\":true' "$T/log"
check "llm.logprobs auto: asked for while llm.min_confidence is set" $? "$(head -c 600 "$T/log")"
min_requests=$(grep -c 'is it romantic' "$T/log")
[ "$min_requests" -eq $((on_requests * 2)) ] && ! has min.err "retry" && ! has min.err "re-ask"
check "llm.min_confidence: no request more (a statement, a call)" $? \
	"$min_requests requests for two statements, $on_requests for one" "$(cat "$T/min.err")"
! has min.err "could not be read (see" && ! has min.err "warning"
check "llm.min_confidence: no warning, and the statement does not fail" $? "$(cat "$T/min.err")"

# ---- the cache keeps the confidence ----
start --logprobs give --unsure-words charlie
printf '%s\n' "$q" | run c1 --set llm.logprobs=on
printf '%s\n:why 2\n' "$q" | run c2 --set llm.logprobs=on
[ "$(wc -l <"$T/log")" -eq "$on_requests" ] &&
	has c2.out "answer(reviews, 'is it romantic?') = 'Yes': yes (confidence 0.55)" &&
	has c2.out "cost: none, from the cache"
check "a cached verdict shows the confidence it was asked with" $? "$(cat "$T/c2.out")"

# ---- an endpoint that refuses them: asked again without, and remembered ----
start --logprobs reject
printf '%s\n%s\n:llm\n' "$q" "$(printf '%s' "$q" | sed 's/romantic/calm/')" |
	run reject --no-cache --set llm.logprobs=on
st=$?
has reject.err "requests: 2 sent (1 first ask, 1 retry after an error)" &&
	has reject.err "requests: 1 sent (1 first ask)" &&
	has reject.out "logprobs     refused by the endpoint (HTTP 400)" &&
	grep -q '^| Charlie Cafe |$' "$T/reject.out" && ! has reject.err "(0.97)"
check "an endpoint that refuses them is asked again without, once" $? "status $st" \
	"$(cat "$T/reject.err")"

# ---- replies without them, or with a malformed block: no confidence, nothing changes ----
for mode in none malformed; do
	if [ $mode = none ]; then start; else start --logprobs $mode; fi
	printf '%s\n:why 1\n%s\n' "$q" "$p" | run "$mode-on" --no-cache --set llm.logprobs=on \
		--set llm.min_confidence=0.99
	printf '%s\n:why 1\n%s\n' "$q" "$p" | run "$mode-off" --no-cache --set llm.logprobs=off
	# all of it, but for the prompt tokens: the server counts them from the request's
	# length, which the two fields asking for log-probabilities add to
	for f in on.out on.err off.out off.err; do
		sed 's/[0-9][0-9]* tokens in/N tokens in/; s/tokens: [0-9][0-9]* in/tokens: N in/' \
			"$T/$mode-$f" >"$T/$mode-$f.n"
	done
	cmp -s "$T/$mode-on.out.n" "$T/$mode-off.out.n" &&
		cmp -s "$T/$mode-on.err.n" "$T/$mode-off.err.n" && ! has "$mode-on.out" confidence &&
		grep -q 'Charlie Cafe | *1 |$' "$T/$mode-on.out"
	check "a reply $( [ $mode = none ] && echo without log-probabilities || echo with a malformed block): output byte for byte as with llm.logprobs off" $? \
		"$(diff "$T/$mode-on.out.n" "$T/$mode-off.out.n")" "$(diff "$T/$mode-on.err.n" "$T/$mode-off.err.n")"
done
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
exit 0
