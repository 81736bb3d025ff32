#!/bin/sh
# The LLM client from the outside, through build/llmcall and build/llmserver: the key never
# appears in any output, error message or the cache file; a second process is answered from
# the cache file (zero requests in the server's log); identical calls are sent once; -n
# calls go out concurrently; Ctrl-C stops a run; the environment and config file are read;
# the offline backend is used and labelled when nothing is configured.
. "$(dirname "$0")/../lib.sh"
set -u
B=$SUQL_BUILD
T=$SUQL_TMP/llmcli
mkdir -p "$T"
KEY=sk-suite-SECRET-9e8d7c6b5a41
fails=0

check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "command: $*"; fi; }

trap 'stop_server' EXIT
nreq() { if [ -f "$LOG" ]; then wc -l <"$LOG" | tr -d ' '; else echo 0; fi; }
has_key() { grep -q -- "$KEY" "$@" 2>/dev/null; }

# --- offline when nothing is configured
out=$("$B/llmcall" --no-cache --describe verify -q 'Is it quiet?' -e Yes -p "It wasn't loud at all." 2>&1)
case $out in
*'label: offline (lexical, no language model)'*'"verdict":1'*) ok "llmcall: offline by default, labelled" ;;
*) notok "llmcall: offline by default, labelled" "$out" ;;
esac

# --- key in the environment, never in any output
start_server main --key "$KEY"
export SUQL_LLM_URL="$URL" SUQL_LLM_KEY="$KEY" SUQL_MODEL=m1
C="$T/cache.db"
"$B/llmcall" --cache "$C" --describe --stats verify -q 'Is it quiet?' -e Yes \
	-p 'Calm room.' --item -p 'Loud bar.' >"$T/o1" 2>"$T/e1"
check "llmcall: verify through the server" grep -q '"status":"done"' "$T/o1"
check "describe: the key is masked" grep -q 'sk-…5a41' "$T/o1"
if has_key "$T/o1" "$T/e1" "$C" "$C-wal"; then notok "key: not in output or cache file"; else ok "key: not in output or cache file"; fi
check "server: got the key in Authorization" grep -q "\"authorization\":\"Bearer $KEY\"" "$LOG"

# --- a second process: answered from the cache file, no request
before=$(nreq)
"$B/llmcall" --cache "$C" --stats verify -q 'Is it quiet?' -e Yes \
	-p 'Calm room.' --item -p 'Loud bar.' >"$T/o2" 2>&1
after=$(nreq)
check "cache: no request the second time" [ "$before" = "$after" ]
check "cache: counted as a cache hit, not a call" grep -q 'session: calls=0 cache_hits=1 ' "$T/o2"
"$B/llmcall" --cache "$C" --cache-info >"$T/o3" 2>&1
check "cache: :cache report has entries and path" sh -c "grep -q 'entries      2' '$T/o3' && grep -q '$C' '$T/o3'"
"$B/llmcall" --cache "$C" --cache-clear --cache-info >"$T/o4" 2>&1
check "cache: cleared" grep -q 'entries      0' "$T/o4"

# --- identical calls in one run: sent once
before=$(nreq)
"$B/llmcall" --no-cache --stats -n 5 --same --quiet answer -q 'What is it?' -p 'A small cafe.' >"$T/o5" 2>&1
after=$(nreq)
check "dedupe: 5 identical calls, 1 request" [ $((after - before)) -eq 1 ]
check "dedupe: 1 call and 4 hits" grep -q 'statement: calls=1 cache_hits=4 ' "$T/o5"
stop_server

# --- a wrong key: the error names the fix and hides the key
start_server wrongkey --key sk-some-other-key-123456789
SUQL_LLM_URL="$URL" "$B/llmcall" --no-cache summary -p 'Some text.' >"$T/o6" 2>"$T/e6"
rc=$?
check "401: exit status 3" [ $rc -eq 3 ]
check "401: message names the fix" grep -q 'rejected the API key (HTTP 401 from .*): set SUQL_LLM_KEY or OPENAI_API_KEY, or :set llm.key' "$T/e6"
if has_key "$T/o6" "$T/e6"; then notok "401: key not in the messages"; else ok "401: key not in the messages"; fi
stop_server

# --- many calls at once
start_server conc --delay 200
SUQL_LLM_URL="$URL" "$B/llmcall" --no-cache --concurrency 64 -n 96 --quiet --stats \
	verify -q 'Is it quiet?' -e Yes -p 'A calm place.' >"$T/o7" 2>&1
max=$(sed 's/.*"max_inflight":\([0-9]*\).*/\1/' "$LOG" | sort -n | tail -n 1)
check "concurrency: 96 calls, 64 in flight at once" [ "$max" = 64 ]
check "concurrency: all 96 answered" grep -q 'statement: calls=96 cache_hits=0 cancelled=0 failed=0' "$T/o7"
stop_server

# --- Ctrl-C stops a run against a server that never answers
printf '[{"fault": "hang"}]\n' >"$T/hang.rules"
start_server hang --rules "$T/hang.rules"
SUQL_LLM_URL="$URL" "$B/llmcall" --no-cache --timeout 60000 summary -p 'Text.' >"$T/o8" 2>"$T/e8" &
cpid=$!
i=0
while [ "$(nreq)" -lt 1 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $cpid
wait $cpid
rc=$?
check "interrupt: llmcall stops with status 130" [ $rc -eq 130 ]
check "interrupt: the call is cancelled" grep -q '"status":"cancelled"' "$T/o8"
stop_server

# --- the config file, below the environment
unset SUQL_LLM_URL SUQL_LLM_KEY SUQL_MODEL
mkdir -p "$XDG_CONFIG_HOME/suql"
printf 'url = http://127.0.0.1:9/v1  # nothing listens here\nmodel = file-model\nkey = %s\nconcurrency = 5\n' "$KEY" \
	>"$XDG_CONFIG_HOME/suql/config"
"$B/llmcall" --no-cache --describe >"$T/o9" 2>&1
check "config file: URL, model, concurrency" sh -c "grep -q 'url          http://127.0.0.1:9/v1 (from config file)' '$T/o9' && grep -q 'model        file-model' '$T/o9' && grep -q 'concurrency  5' '$T/o9'"
if has_key "$T/o9"; then notok "config file: key masked"; else ok "config file: key masked"; fi
SUQL_MODEL=env-model "$B/llmcall" --no-cache --describe >"$T/o10" 2>&1
check "config file: the environment wins" grep -q 'model        env-model (from SUQL_MODEL)' "$T/o10"
"$B/llmcall" --no-cache --model opt-model --describe >"$T/o11" 2>&1
check "config file: an option wins" grep -q 'model        opt-model (from option)' "$T/o11"
rm -f "$XDG_CONFIG_HOME/suql/config"

# --- the test server documents itself
check "llmserver --help lists --rules and --yes-rate" sh -c "'$B/llmserver' --help | grep -q -- '--rules' && '$B/llmserver' --help | grep -q -- '--yes-rate'"

# --- :llm models, :llm test, :llm probe (through the program, against the test server)
S=$SUQL_TOP/${SUQL_PROG:-suql}
case $S in "$SUQL_TOP//"*) S=${SUQL_PROG} ;; esac
start_server models --models small,big --key "$KEY"
SUQL_LLM_KEY=$KEY "$S" --no-cache --llm-url "$URL" --model small -c ':llm models' >"$T/m1" 2>&1
check ":llm models lists the endpoint's models, the one in use marked" sh -c \
	"[ \"\$(cat '$T/m1')\" = \"\$(printf 'small  (in use)\nbig')\" ]"
n0=$(nreq)
SUQL_LLM_KEY=$KEY "$S" --no-cache --llm-url "$URL" --model small -c ':llm test' >"$T/m2" 2>&1
check ":llm test: the model that answered, tokens, JSON schema, log-probabilities, streaming" sh -c \
	"grep -q '^model: small asked, small answered\$' '$T/m2' && grep -q '^tokens: [0-9]* in, [0-9]* out' '$T/m2' &&
	 grep -q '^JSON schema (response_format): yes\$' '$T/m2' && grep -q '^log-probabilities: ' '$T/m2' &&
	 grep -q '^streaming: yes\$' '$T/m2' && [ \$(( \$(wc -l <'$LOG') - $n0 )) = 4 ]"
if has_key "$T/m1" "$T/m2"; then notok ":llm test and models: key never shown"; else ok ":llm test and models: key never shown"; fi
"$S" --no-cache -c ':llm test' >"$T/m3" 2>&1
check ":llm test offline says how to set an endpoint" grep -q 'needs an endpoint: the offline backend is answering' "$T/m3"
port=${URL#http://127.0.0.1:}; port=${port%/v1}
SUQL_PROBE="127.0.0.1:$port,127.0.0.1:9" "$S" -c ':llm probe' >"$T/m4" 2>&1
check ":llm probe finds the server on a probed port, and offers it" sh -c \
	"[ \"\$(cat '$T/m4')\" = 'a server listens on 127.0.0.1:$port; it is not used unless you choose it: :set llm.url http://127.0.0.1:$port/v1, then :llm models and :set llm.model NAME' ]"
stop_server
SUQL_PROBE="127.0.0.1:9" "$S" -c ':llm probe' >"$T/m6" 2>&1
check ":llm probe with nothing listening says so" grep -q '^no server listens on the probed ports' "$T/m6"

# --- money: the plan's cost line, the counters' dollars, budget_usd refusing before any call
start_server money
Q="CREATE TABLE r (id INTEGER PRIMARY KEY, body FREE_TEXT); INSERT INTO r (body) VALUES ('Warm and cozy.'), ('Cold and loud.'), ('A cozy corner.');"
Q2="SELECT count(*) FROM r WHERE answer(body, 'is it cozy?') = 'Yes'"
"$S" "$T/money.db" -c "$Q" >/dev/null 2>&1
"$S" --no-cache --llm-url "$URL" --model gpt-4o-mini -v --csv "$T/money.db" -c "$Q2" >"$T/c1" 2>&1
check "plan and counters in dollars at the built-in price of gpt-4o-mini" sh -c \
	"grep -q '^  cost (from the texts. lengths): expected about [0-9]* tokens in, [0-9]* out; at most [0-9]* in, [0-9]* out: expected about \\\$[0-9.]*, at most \\\$[0-9.]* at gpt-4o-mini.s price, \\\$0.15 in and \\\$0.6 out a million tokens (the built-in price list of [0-9][0-9-]*)\$' '$T/c1' &&
	 grep -q '^  cost: \\\$[0-9.]* at gpt-4o-mini.s price' '$T/c1'"
"$S" --no-cache --llm-url "$URL" --model small -v --csv "$T/money.db" -c "$Q2" >"$T/c2" 2>&1
check "no price: tokens only, and how to set one" grep -q 'no price for small (:set llm.price_in and llm.price_out' "$T/c2"
n0=$(nreq)
"$S" --no-cache --llm-url "$URL" --model small -s llm.price_in=1000 -s llm.price_out=1000 -s budget_usd=0.01 \
	"$T/money.db" -c "$Q2" >"$T/c3" 2>&1
st=$?
n1=$(nreq)
check "budget_usd: a statement expected to cost more is refused, nothing sent" sh -c \
	"[ $st = 1 ] && grep -q 'expected to cost about \\\$[0-9.]* (at most \\\$[0-9.]*), more than the budget of \\\$0.010' '$T/c3' && [ $n1 = $n0 ]"
"$S" --no-cache --llm-url "$URL" --model small -s budget_usd=0.01 "$T/money.db" -c "$Q2" >"$T/c4" 2>&1
n1=$(nreq)
check "budget_usd without a price is refused with how to set one" sh -c \
	"grep -q 'budget_usd is set, but there is no price for small' '$T/c4' && [ $n1 = $n0 ]"
stop_server
[ $fails -eq 0 ]
