#!/bin/sh
# What a session spends and what a plan says it will, read by a script (doc/llm.md,
# "Prices and the session's spend"), against build/llmserver, whose token counts are the
# bytes sent over 4 (and, with its options, a prompt cache's tokens and hidden reasoning
# tokens):
#   :cost         nothing spent says so; after statements its requests, tokens and dollars
#                 are the sums of the statements' counters (dollars from the tokens at the
#                 price, cached input at the cached rate) and the server's log; two
#                 endpoints under one model are two rows; requests cancelled in flight are
#                 "may be billed", as many as the server saw but never answered
#   cached input  priced at the cached rate (OpenAI's and Anthropic's fields)
#   reasoning     the counters show the hidden tokens; the worst case's allowance
#                 (llm.reasoning_tokens) keeps it above what was spent, and without it the
#                 worst case falls below
#   EXPLAIN       under --json and :mode json: one JSON object that parses, whose calls,
#                 tokens, dollars and lines are the text plan's
#   prices        a malformed or negative price is refused and changes nothing
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/cost
mkdir -p "$T"
OK_PREFIX="cost: "
trap 'stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

# JSON through jq, else python3; none: the checks that read JSON are skipped.
if command -v jq >/dev/null 2>&1; then
	jtool=jq
elif command -v python3 >/dev/null 2>&1; then
	jtool=python3
else
	jtool=""
fi
# jparses FILE: FILE holds exactly one JSON value
jparses() {
	case $jtool in
	jq) [ "$(jq -s length <"$1" 2>/dev/null)" = 1 ] ;;
	python3) python3 -c 'import json,sys; json.loads(sys.stdin.read())' <"$1" 2>/dev/null ;;
	*) return 1 ;;
	esac
}
# jget FILE PATH: the value at PATH (a.b.c, a list's items as numbers) as text; null as null
jget() {
	case $jtool in
	jq) jq -r ".$(echo "$2" | sed 's/\.\([0-9][0-9]*\)/[\1]/g') | if type == \"array\" then .[] else . end" <"$1" ;;
	python3) python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
for x in (v if isinstance(v, list) else [v]):
    if isinstance(x, float) and x.is_integer():
        x = int(x)   # as jq writes it
    print("null" if x is None else json.dumps(x) if not isinstance(x, str) else x)
' "$2" <"$1" ;;
	esac
}
# same A B: two numbers equal within a billionth of a dollar
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'; }
# money X: dollars as the counters and the plan print them
money() { awk -v x="$1" 'BEGIN { printf(x >= 1 ? "$%.2f" : x >= 0.01 ? "$%.3f" : "$%.5f", x) }'; }
loglines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
skip_json() { echo "skip $OK_PREFIX$1: neither jq nor python3 is installed"; }

DB=$T/d.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB"
FULL="SELECT count(*) FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes'"
LIM="SELECT id FROM restaurants WHERE answer(reviews, 'is the service good?') = 'Yes' LIMIT 3"
SUM="SELECT id, answer(reviews, 'what is the best dish?') FROM restaurants WHERE id <= 3"
export XDG_CACHE_HOME=$T/cache

# --- nothing spent
"$prog" -c ':cost' >"$T/n1" 2>&1
check "nothing spent, said so" "$(cat "$T/n1")" "nothing spent this session: no request has gone to a model"
printf '%s;\n:cost\n' "$FULL" | "$prog" --offline "$DB" >"$T/n2" 2>&1
if grep -q "^nothing spent this session: no request has gone to a model (the offline backend answered [1-9][0-9]* calls, at no cost)\$" "$T/n2"; then
	ok "offline: nothing spent, and the offline calls said"
else
	notok "offline: nothing spent, and the offline calls said" "$(cat "$T/n2")"
fi
if [ -n "$jtool" ]; then
	"$prog" --json -c ':cost' >"$T/n3" 2>&1
	if jparses "$T/n3" && [ "$(jget "$T/n3" cost.total.requests)" = 0 ] && [ "$(jget "$T/n3" cost.total.usd)" = 0 ]; then
		ok ":cost under --json: one object, nothing spent"
	else
		notok ":cost under --json: one object, nothing spent" "$(cat "$T/n3")"
	fi
else
	skip_json ":cost under --json"
fi

# --- bad prices: refused, nothing changed
printf ':set llm.price_in 2\n:set llm.price_in abc\n:set llm.price_in -3\n:set llm.price_cached_in -1e3\n:set llm.reasoning_tokens -5\n:set llm.price_in\n:set llm.price_cached_in\n' |
	"$prog" >"$T/p1" 2>"$T/p2"
st=$?
if [ "$(grep -c "is a number of dollars per million tokens, 0 or more (-1 or auto: the built-in list's), not '" "$T/p2")" = 3 ] &&
	grep -q "^error: stdin:2: llm.price_in is a number of dollars per million tokens, 0 or more (-1 or auto: the built-in list's), not 'abc'\$" "$T/p2" &&
	grep -q "llm.reasoning_tokens is a whole number of tokens from 0 to 1000000, or auto, not '-5'" "$T/p2" &&
	[ "$(cat "$T/p1")" = "$(printf 'llm.price_in = 2\nllm.price_cached_in = -1')" ] && [ $st != 0 ]; then
	ok "a malformed or negative price is refused with what to write, and changes nothing"
else
	notok "a malformed or negative price is refused with what to write, and changes nothing" "status $st" "$(cat "$T/p1" "$T/p2")"
fi
"$prog" --set llm.price_out=-2 -c 'SELECT 1' >"$T/p3" 2>&1
st=$?
if [ $st != 0 ] && grep -q "llm.price_out is a number of dollars per million tokens, 0 or more" "$T/p3" && ! grep -q '^1$' "$T/p3"; then
	ok "--set with a negative price: an error before anything runs"
else
	notok "--set with a negative price: an error before anything runs" "status $st" "$(cat "$T/p3")"
fi

# --- :cost after statements: the sums of their counters, and the server's log
start_server s1 --prompt-cache openai --reasoning 40
printf '%s;\n%s;\n%s;\n:mode json\n:cost\n:mode table\n:cost\n' "$FULL" "$LIM" "$SUM" |
	"$prog" -v --set times=off --csv --no-cache --llm-url "$URL" --model gpt-4o-mini "$DB" \
	>"$T/s1.out" 2>"$T/s1.err"
st=$?
grep '^{"cost"' "$T/s1.out" >"$T/s1.json"
# each statement's counters: tokens in, cached, out, reasoning, the dollars printed, requests
awk '
	/^  requests: [0-9]+ sent/ { req = $2 }
	/^  tokens: / {
		line = $0; cin = 0; rsn = 0
		if (match(line, /\(([0-9]+) of them from the endpoint.s prompt cache\)/)) { s = substr(line, RSTART + 1); split(s, w, " "); cin = w[1] }
		if (match(line, /\(([0-9]+) of them hidden reasoning\)/)) { s = substr(line, RSTART + 1); split(s, w, " "); rsn = w[1] }
		tin = $2; sub(/.*, /, "", line); split(line, w, " "); tout = w[1]
	}
	/^  cost: \$/ { print req, tin, cin, tout, rsn, $2 }
' "$T/s1.err" >"$T/s1.stmts"
nst=$(wc -l <"$T/s1.stmts" | tr -d ' ')
check "three statements, each with its counters' dollars" "$nst:$st" "3:0"
bad=""
while read -r req tin cin tout rsn usd; do
	want=$(awk -v i="$tin" -v c="$cin" -v o="$tout" 'BEGIN { printf "%.12f", ((i - c) * 0.15 + c * 0.075 + o * 0.6) / 1e6 }')
	[ "$(money "$want")" = "$usd" ] || bad="$bad; counters say $usd for $tin in ($cin cached), $tout out: want $(money "$want")"
	[ "$rsn" = $((req * 40)) ] || bad="$bad; $rsn reasoning tokens for $req requests, want $((req * 40))"
done <"$T/s1.stmts"
if [ -z "$bad" ] && [ "$(awk '{ c += $3 } END { print (c > 0) }' "$T/s1.stmts")" = 1 ]; then
	ok "each statement's dollars: its tokens at gpt-4o-mini's price, cached input at the cached rate; its reasoning tokens shown"
else
	notok "each statement's dollars: its tokens at gpt-4o-mini's price, cached input at the cached rate; its reasoning tokens shown" "$bad" "$(cat "$T/s1.stmts")"
fi
if [ -n "$jtool" ] && jparses "$T/s1.json"; then
	exact=$(awk '{ s += (($2 - $3) * 0.15 + $3 * 0.075 + $4 * 0.6) / 1e6 } END { printf "%.12f", s }' "$T/s1.stmts")
	flat=$(awk '{ s += ($2 * 0.15 + $4 * 0.6) / 1e6 } END { printf "%.12f", s }' "$T/s1.stmts")
	shown=$(awk '{ x = $6; sub(/^\$/, "", x); s += x; n++ } END { printf "%.12f %d", s, n }' "$T/s1.stmts")
	total=$(jget "$T/s1.json" cost.total.usd)
	if same "$total" "$exact" && ! same "$total" "$flat" &&
		awk -v t="$total" -v s="${shown% *}" -v n="${shown#* }" 'BEGIN { d = t - s; if (d < 0) d = -d; exit !(d <= n * 0.5e-5) }'; then
		ok ":cost's dollars are the sum of the statements' counters' dollars (cached input at the cached rate, not the input price)"
	else
		notok ":cost's dollars are the sum of the statements' counters' dollars (cached input at the cached rate, not the input price)" "total $total, from the counters' tokens $exact (all at the input price $flat), printed $shown"
	fi
	sums=$(awk '{ r += $1; i += $2; c += $3; o += $4; z += $5 } END { print r, i, c, o, z }' "$T/s1.stmts")
	got="$(jget "$T/s1.json" cost.total.requests) $(jget "$T/s1.json" cost.total.tokens_in) $(jget "$T/s1.json" cost.total.tokens_cached) $(jget "$T/s1.json" cost.total.tokens_out) $(jget "$T/s1.json" cost.total.tokens_reasoning)"
	check ":cost's requests and tokens (cached, reasoning) are the sums of the counters'" "$got" "$sums"
	check ":cost's requests are the server's" "$(jget "$T/s1.json" cost.total.requests)" "$(loglines "$LOG")"
	check ":cost names the model and its price's source" "$(jget "$T/s1.json" cost.models.0.model) / $(jget "$T/s1.json" cost.models.0.price.from)" "gpt-4o-mini / the built-in price list of $(sed -n 's/^#define LLM_PRICE_LIST_DATE "\(.*\)"$/\1/p' "$SUQL_TOP/src/llm/llm.h")"
else
	skip_json ":cost under :mode json"
fi
t=$(awk '/^total: /' "$T/s1.out")
case $t in
"total: $(awk '{ r += $1 } END { print r }' "$T/s1.stmts") requests, "*"of them from the endpoint's prompt cache"*"of them reasoning"*": \$"*) ok ":cost as text: the total's requests, cached and reasoning tokens, dollars" ;;
*) notok ":cost as text: the total's requests, cached and reasoning tokens, dollars" "$(cat "$T/s1.out")" ;;
esac
stop_server

# --- Anthropic's cached field, priced at llm.price_cached_in
start_server s2 --prompt-cache anthropic
printf '%s;\n%s;\n' "$FULL" "$LIM" |
	"$prog" -v --set times=off --csv --no-cache --llm-url "$URL" --model m --set llm.price_in=1 \
	--set llm.price_out=4 --set llm.price_cached_in=0.25 "$DB" >"$T/s2.out" 2>"$T/s2.err"
awk '/^  tokens: / { line = $0; cin = 0
		if (match(line, /\(([0-9]+) of them from the endpoint.s prompt cache\)/)) { s = substr(line, RSTART + 1); split(s, w, " "); cin = w[1] }
		tin = $2; sub(/.*, /, "", line); split(line, w, " "); tout = w[1] }
	/^  cost: \$/ { print tin, cin, tout, $2 }' "$T/s2.err" >"$T/s2.stmts"
bad=""
while read -r tin cin tout usd; do
	want=$(money "$(awk -v i="$tin" -v c="$cin" -v o="$tout" 'BEGIN { printf "%.12f", ((i - c) * 1 + c * 0.25 + o * 4) / 1e6 }')")
	[ "$want" = "$usd" ] || bad="$bad; $usd for $tin in ($cin cached), $tout out: want $want"
done <"$T/s2.stmts"
if [ -z "$bad" ] && [ "$(wc -l <"$T/s2.stmts" | tr -d ' ')" = 2 ] && [ "$(awk '{ c += $2 } END { print (c > 0) }' "$T/s2.stmts")" = 1 ] &&
	grep -q 'the [0-9]* cached input tokens at \$0.25 a million' "$T/s2.err"; then
	ok "cache_read_input_tokens: cached input at llm.price_cached_in"
else
	notok "cache_read_input_tokens: cached input at llm.price_cached_in" "$bad" "$(cat "$T/s2.stmts")" "$(grep cost "$T/s2.err")"
fi
stop_server

# --- a reasoning model: the worst case allows its hidden tokens
start_server s3 --reasoning 300
run3() {   # run3 NAME [options]: the full scan with the plan and counters
	n=$1; shift
	"$prog" -v --set times=off --csv --no-cache --llm-url "$URL" --model gpt-5-mini "$@" "$DB" -c "$FULL" >"$T/$n.out" 2>"$T/$n.err"
}
worst_out() { sed -n 's/^  cost (.*at most [0-9]* \(tokens \)\{0,1\}in, \([0-9]*\) out.*/\2/p' "$1"; }
spent() { sed -n 's/^  tokens: [0-9]* in.*, \([0-9]*\) out.*/\1/p' "$1"; }
run3 r1
run3 r2 --set llm.reasoning_tokens=0
w1=$(worst_out "$T/r1.err") s1=$(spent "$T/r1.err") w2=$(worst_out "$T/r2.err") s2=$(spent "$T/r2.err")
n1=$(sed -n 's/^  requests: \([0-9]*\) sent.*/\1/p' "$T/r1.err")
if [ -n "$w1" ] && [ -n "$s1" ] && [ "$w1" -ge "$s1" ] && grep -q "(with 4096 hidden reasoning tokens a call, llm.reasoning_tokens)" "$T/r1.err" &&
	grep -q "^  tokens: .* out ($((n1 * 300)) of them hidden reasoning)" "$T/r1.err"; then
	ok "gpt-5-mini: the worst case allows 4096 hidden tokens a call and stays above what was spent ($w1 >= $s1 out); the counters show the reasoning tokens"
else
	notok "gpt-5-mini: the worst case allows 4096 hidden tokens a call and stays above what was spent" "worst $w1, spent $s1" "$(cat "$T/r1.err")"
fi
if [ -n "$w2" ] && [ -n "$s2" ] && [ "$w2" -lt "$s2" ]; then
	ok "without the allowance (llm.reasoning_tokens 0) the worst case falls below what a reasoning model spends ($w2 < $s2 out)"
else
	notok "without the allowance (llm.reasoning_tokens 0) the worst case falls below what a reasoning model spends" "worst $w2, spent $s2"
fi
stop_server

# --- EXPLAIN under --json: one object, the text plan's figures
# explain NAME OPTIONS...: the text plan (NAME.txt) and the JSON (NAME.json) of $Q
explain() {
	n=$1; shift
	"$prog" --no-cache --llm-url http://127.0.0.1:9/v1 "$@" "$DB" -c "EXPLAIN $Q" >"$T/$n.txt" 2>"$T/$n.terr"
	"$prog" --json --no-cache --llm-url http://127.0.0.1:9/v1 "$@" "$DB" -c "EXPLAIN $Q" >"$T/$n.json" 2>"$T/$n.jerr"
}
# agree NAME LAZY PRICED: the JSON's figures against the text's
agree() {
	n=$1 lazy=$2 priced=$3 bad=""
	jparses "$T/$n.json" || { notok "EXPLAIN --json ($n) parses" "$(cat "$T/$n.json" "$T/$n.jerr")"; return; }
	[ "$(wc -l <"$T/$n.json" | tr -d ' ')" = 1 ] || bad="$bad; not one line"
	costl=$(grep '^  cost (' "$T/$n.txt")
	wc=$(sed -n 's/^  worst case: \([0-9]*\) LLM call.*/\1/p' "$T/$n.txt")
	[ "$(jget "$T/$n.json" explain.calls.worst)" = "$wc" ] || bad="$bad; worst calls $(jget "$T/$n.json" explain.calls.worst), text $wc"
	wt=$(echo "$costl" | sed -n 's/.*at most \([0-9]*\) \(tokens \)\{0,1\}in, \([0-9]*\) out.*/\1 \3/p')
	[ "$(jget "$T/$n.json" explain.tokens.worst.in) $(jget "$T/$n.json" explain.tokens.worst.out)" = "$wt" ] || bad="$bad; worst tokens, text $wt"
	if [ "$lazy" = lazy ]; then
		ec=$(sed -n 's/^  expected: at most \([0-9]*\) LLM call.*/\1/p' "$T/$n.txt")
		[ "$(jget "$T/$n.json" explain.calls.expected)" = "$ec" ] || bad="$bad; expected calls, text $ec"
		et=$(echo "$costl" | sed -n 's/.*: expected about \([0-9]*\) tokens in, \([0-9]*\) out;.*/\1 \2/p')
		[ "$(jget "$T/$n.json" explain.tokens.expected.in) $(jget "$T/$n.json" explain.tokens.expected.out)" = "$et" ] || bad="$bad; expected tokens, text $et"
	fi
	if [ "$priced" = priced ]; then
		w=$(money "$(jget "$T/$n.json" explain.usd.worst)")
		if [ "$lazy" = lazy ]; then
			e=$(money "$(jget "$T/$n.json" explain.usd.expected)")
			case $costl in *": expected about $e, at most $w at "*) ;; *) bad="$bad; dollars $e and $w not in the text" ;; esac
		else
			case $costl in *"at most $w at "*) ;; *) bad="$bad; dollars $w not in the text" ;; esac
		fi
	else
		[ "$(jget "$T/$n.json" explain.usd.worst) $(jget "$T/$n.json" explain.usd.expected)" = "null null" ] || bad="$bad; dollars without a price"
		case $costl in *"no price for"*) ;; *) bad="$bad; the text has a price" ;; esac
	fi
	sed -n '/^plan:$/,$p' "$T/$n.txt" | sed '1d; s/^  //' >"$T/$n.lines"
	jget "$T/$n.json" explain.plan >"$T/$n.jlines"
	cmp -s "$T/$n.lines" "$T/$n.jlines" || bad="$bad; the plan's lines differ: $(diff "$T/$n.lines" "$T/$n.jlines" | head -5)"
	if [ -z "$bad" ]; then
		ok "EXPLAIN --json ($n) parses, one object, with the text plan's calls, tokens, dollars and lines"
	else
		notok "EXPLAIN --json ($n) parses, one object, with the text plan's calls, tokens, dollars and lines" "$bad" "$(cat "$T/$n.json")"
	fi
}
if [ -n "$jtool" ]; then
	Q=$FULL; explain full --model gpt-4o-mini; agree full full priced
	Q=$LIM; explain lazy --model gpt-4o-mini; agree lazy lazy priced
	Q=$LIM; explain reasoning --model o3-mini; agree reasoning lazy priced
	check "EXPLAIN --json: the reasoning allowance" "$(jget "$T/reasoning.json" explain.reasoning_tokens_per_call)" 4096
	Q=$SUM; explain noprice --model small; agree noprice full unpriced
	Q=$FULL; explain budget --model gpt-4o-mini --set budget_usd=0.001; agree budget full priced
	check "EXPLAIN --json: over budget_usd" "$(jget "$T/budget.json" explain.over_budget) $(jget "$T/budget.json" explain.budget.usd)" "true 0.001"
	"$prog" --offline --json "$DB" -c "EXPLAIN $FULL" >"$T/off.json" 2>&1
	if jparses "$T/off.json" && [ "$(jget "$T/off.json" explain.usd.worst) $(jget "$T/off.json" explain.model)" = "0 offline-lexical-2" ]; then
		ok "EXPLAIN --json offline: the offline backend costs nothing"
	else
		notok "EXPLAIN --json offline: the offline backend costs nothing" "$(cat "$T/off.json")"
	fi
	printf ':mode json\nEXPLAIN %s;\n' "$LIM" | "$prog" --no-cache --llm-url http://127.0.0.1:9/v1 --model gpt-4o-mini "$DB" >"$T/mode.json" 2>"$T/mode.err"
	if jparses "$T/mode.json" && cmp -s "$T/mode.json" "$T/lazy.json"; then
		ok ":mode json: EXPLAIN is the same object as under --json"
	else
		notok ":mode json: EXPLAIN is the same object as under --json" "$(cat "$T/mode.json" "$T/mode.err")"
	fi
else
	skip_json "EXPLAIN --json"
fi

# --- requests cancelled in flight: may be billed, as many as the server saw unanswered
cat >"$T/fail.json" <<'EOF'
[{"match": "Candidates", "times": 1, "delay_ms": 300, "status": 401,
  "body": "{\"error\": {\"message\": \"bad key\"}}"},
 {"match": "Candidates", "delay_ms": 3000, "automatic": true}]
EOF
start_server s4 --rules "$T/fail.json"
printf '%s;\n:cost\n:mode json\n:cost\n' "$FULL" |
	"$prog" -v --set times=off --no-cache --llm-url "$URL" --model gpt-4o-mini "$DB" >"$T/c.out" 2>"$T/c.err"
grep '^{"cost"' "$T/c.out" >"$T/c.json"
seen=$(loglines "$LOG")
mb=$(sed -n 's/^  requests: .* \([0-9]*\) cancelled in flight (sent, reply not awaited), which may be billed up to about \(\$[0-9.]*\)$/\1 \2/p' "$T/c.err")
tb=$(sed -n 's/^    may be billed: \([0-9]*\) requests\{0,1\} cancelled.*: up to about \(\$[0-9.]*\)$/\1 \2/p' "$T/c.out")
if [ -n "$mb" ] && [ "$mb" = "$tb" ]; then
	ok "cancelled in flight: the statement's counters say what may be billed, as :cost does ($mb)"
else
	notok "cancelled in flight: the statement's counters say what may be billed, as :cost does" "counters: $mb, :cost: $tb" "$(cat "$T/c.err")"
fi
if grep -q "^    may be billed: [1-9][0-9]* requests\? cancelled in flight (sent, reply not awaited): about [0-9]* tokens in (their size), at most [0-9]* out (what they asked for): up to about \\$" "$T/c.out"; then
	ok "cancelled in flight: shown as may be billed"
else
	notok "cancelled in flight: shown as may be billed" "$(cat "$T/c.out" "$T/c.err")"
fi
if [ -n "$jtool" ] && jparses "$T/c.json"; then
	m=$(jget "$T/c.json" cost.total.may_be_billed.requests)
	i=$(jget "$T/c.json" cost.total.may_be_billed.tokens_in_about)
	o=$(jget "$T/c.json" cost.total.may_be_billed.tokens_out_at_most)
	u=$(jget "$T/c.json" cost.total.may_be_billed.usd_at_most)
	if [ "$seen" -ge 2 ] && [ "$m" = $((seen - 1)) ] && [ "$(jget "$T/c.json" cost.total.requests)" = "$seen" ] &&
		[ "$i" -gt 0 ] && [ "$o" -gt 0 ] && same "$u" "$(awk -v i="$i" -v o="$o" 'BEGIN { printf "%.12f", (i * 0.15 + o * 0.6) / 1e6 }')" &&
		[ "$(jget "$T/c.json" cost.total.usd)" = 0 ]; then
		ok "cancelled in flight: the requests the server saw but never answered ($m of $seen), priced at most, nothing counted as spent"
	else
		notok "cancelled in flight: the requests the server saw but never answered" "server $seen, may be billed $m, $i in, $o out, \$$u" "$(cat "$T/c.json")"
	fi
else
	skip_json "cancelled in flight as JSON"
fi
stop_server

# --- two endpoints under one model: two rows
start_server e1
U1=$URL L1=$LOG P1=$SPID
SPID=""
start_server e2
U2=$URL L2=$LOG
printf '%s;\n:set llm.url %s\n%s;\n:cost\n:mode json\n:cost\n' "$SUM" "$U2" "$SUM" |
	"$prog" --no-cache --llm-url "$U1" --model m --set llm.price_in=1 --set llm.price_out=4 "$DB" >"$T/e.out" 2>"$T/e.err"
kill "$P1" 2>/dev/null && wait "$P1" 2>/dev/null
if grep -q "^  m at $U1: $(loglines "$L1") requests\?, " "$T/e.out" && grep -q "^  m at $U2: $(loglines "$L2") requests\?, " "$T/e.out"; then
	ok "one model at two endpoints: a row each, with each server's requests"
else
	notok "one model at two endpoints: a row each, with each server's requests" "$(cat "$T/e.out" "$T/e.err")"
fi
stop_server

[ $fails -eq 0 ]
