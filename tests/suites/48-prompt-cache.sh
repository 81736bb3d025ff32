#!/bin/sh
# The provider's prompt cache (doc/llm.md, "How requests are made"; llm.prompt_cache_key),
# against build/llmserver --prompt-cache openai, which reports as cached the longest prefix
# a prompt shares with an earlier one:
#   a repeated statement   run again with suql's own cache off, it sends byte-identical
#                          requests, each carrying the same key; the endpoint reports most
#                          of its input as cached and it costs less (cached input at the
#                          cached rate)
#   the key                "suql-" and 16 hex digits, one for every request of a statement;
#                          the same whatever rows the statement reads, another for another
#                          question
#   where it goes          not with llm.prompt_cache_key off, nor to an endpoint in
#                          llama.cpp's or Ollama's dialect; with json_object too
#   a refusal              an endpoint that refuses the field (HTTP 400, naming it or not)
#                          is asked again without it, once (one request in flight): the
#                          next statement of the session sends none, and :llm says why
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/pcache
mkdir -p "$T"
OK_PREFIX="prompt cache: "
trap 'stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

DB=$T/d.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB"
FULL="SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it good for large groups?') = 'Yes'"
export XDG_CACHE_HOME=$T/cache

# logged FROM LOG: the request bodies from line FROM of LOG on, one a line, as sent
logged() { tail -n +"$1" "$2" | jq -r .body; }
# keys FROM LOG: each request's prompt_cache_key ("none" when it has none), one a line
keys() { logged "$1" "$2" | jq -r '.prompt_cache_key // "none"'; }
loglines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
# suq [options...] SQL: suql -v against the server at $URL, gpt-4o-mini's prices, no cache
suq() {
	_sql=$1
	shift
	"$prog" -v --set times=off --csv --no-headers --set budget=0 --no-cache --llm-url "$URL" \
		--model gpt-4o-mini "$@" "$DB" -c "$_sql"
}
counter() { sed -n "s/^  $1: \([0-9][0-9]*\).*/\1/p" "$2" | head -n 1; }
cached_of() { sed -n 's/^  tokens: .*(\([0-9][0-9]*\) of them from the endpoint.s prompt cache).*/\1/p' "$1" | head -n 1; }
usd_of() { sed -n 's/^  cost: \$\([0-9.]*\) .*/\1/p' "$1" | head -n 1; }

if ! command -v jq >/dev/null 2>&1; then
	echo "skip ${OK_PREFIX}every check: jq is not installed"
	exit 0
fi

# --- a repeated statement
start_server s1 --prompt-cache openai
suq "$FULL;" >"$T/r1.rows" 2>"$T/r1.err"
n1=$(loglines "$LOG")
suq "$FULL;" >"$T/r2.rows" 2>"$T/r2.err"
n2=$(loglines "$LOG")
req1=$(counter requests "$T/r1.err")
req2=$(counter requests "$T/r2.err")
check "a repeated statement: the same rows and requests, each counted as the server saw it" \
	"$(cat "$T/r2.rows"):$req2:$n2" "$(cat "$T/r1.rows"):$req1:$((2 * req1))"
logged 1 "$LOG" | head -n "$n1" | sort >"$T/b1"
logged $((n1 + 1)) "$LOG" | sort >"$T/b2"
if [ "$req1" -gt 1 ] && cmp -s "$T/b1" "$T/b2"; then
	ok "a repeated statement sends byte-identical requests ($req1 of them)"
else
	notok "a repeated statement sends byte-identical requests ($req1 of them)" "$(diff "$T/b1" "$T/b2" | head -n 4)"
fi
keys 1 "$LOG" | sort | uniq -c >"$T/k1"
if [ "$(wc -l <"$T/k1" | tr -d ' ')" = 1 ] && grep -Eq "^ *$n2 suql-[0-9a-f]{16}\$" "$T/k1"; then
	ok "every request carries the one key of the statement, suql- and 16 hex digits"
else
	notok "every request carries the one key of the statement, suql- and 16 hex digits" "$(cat "$T/k1")"
fi
c1=$(cached_of "$T/r1.err")
c2=$(cached_of "$T/r2.err")
tin2=$(counter tokens "$T/r2.err")
u1=$(usd_of "$T/r1.err")
u2=$(usd_of "$T/r2.err")
if [ -n "$c2" ] && [ -n "$tin2" ] && [ $((c2 * 10)) -ge $((tin2 * 8)) ] && [ "${c1:-0}" -lt "$c2" ] &&
	awk -v a="$u1" -v b="$u2" 'BEGIN { exit !(b > 0 && b < a) }'; then
	ok "the repeat: $c2 of its $tin2 input tokens from the endpoint's prompt cache, \$$u2 against \$$u1"
else
	notok "the repeat: most of its input from the endpoint's prompt cache, and it costs less" \
		"first: ${c1:-0} cached, \$$u1; repeat: ${c2:-0} of $tin2 cached, \$$u2" "$(grep -e tokens -e cost: "$T/r2.err")"
fi

# --- the key: from the template and the question, never from the rows
k0=$(keys 1 "$LOG" | head -n 1)
from=$(($(loglines "$LOG") + 1))
suq "SELECT id FROM restaurants WHERE location = 'Cupertino' AND answer(reviews, 'is it good for large groups?') = 'Yes' ORDER BY id;" >/dev/null 2>"$T/r3.err"
suq "SELECT id FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is it good for large groups?') = 'Yes' ORDER BY id;" >/dev/null 2>"$T/r4.err"
mid=$(($(loglines "$LOG") + 1))
suq "SELECT count(*) FROM restaurants WHERE answer(reviews, 'is there a view?') = 'Yes';" >/dev/null 2>"$T/r5.err"
same_q=$(keys "$from" "$LOG" | head -n $((mid - from)) | sort -u)
other_q=$(keys "$mid" "$LOG" | sort -u)
if [ "$same_q" = "$k0" ] && [ $((mid - from)) -ge 2 ] && [ -n "$other_q" ] && [ "$other_q" != "$k0" ] &&
	[ "$(printf '%s\n' "$other_q" | wc -l | tr -d ' ')" = 1 ]; then
	ok "the same key over other rows for the same question, another for another question"
else
	notok "the same key over other rows for the same question, another for another question" \
		"first $k0; other rows: $same_q; other question: $other_q"
fi

# --- where it goes
from=$(($(loglines "$LOG") + 1))
suq "$FULL;" --set llm.prompt_cache_key=off >/dev/null 2>&1
check "llm.prompt_cache_key off: no request carries a key" "$(keys "$from" "$LOG" | sort -u)" "none"
for d in llamacpp ollama; do
	from=$(($(loglines "$LOG") + 1))
	suq "$FULL;" --set llm.schema=$d >/dev/null 2>&1
	check "llm.schema $d: no request carries a key" "$(keys "$from" "$LOG" | sort -u)" "none"
done
from=$(($(loglines "$LOG") + 1))
suq "$FULL;" --set llm.schema=json_object >/dev/null 2>&1
check "llm.schema json_object (OpenAI's dialect): the statement's key" "$(keys "$from" "$LOG" | sort -u)" "$k0"
from=$(($(loglines "$LOG") + 1))
printf ':set llm.prompt_cache_key off\n%s;\n:set llm.prompt_cache_key on\n%s;\n' "$FULL" "$FULL" |
	"$prog" --set times=off --csv --no-cache --llm-url "$URL" --model gpt-4o-mini "$DB" >/dev/null 2>&1
check ":set llm.prompt_cache_key off, then on, in a session" "$(keys "$from" "$LOG" | uniq -c | awk '{ print $1, ($2 == "none" ? "none" : "key") }' | tr '\n' ' ')" "$req1 none $req1 key "
stop_server

# --- an endpoint that refuses the field: naming it (a batch with a schema), or not (one
# candidate, nothing else in the request to blame)
for how in named generic; do
	if [ $how = named ]; then
		msg="Unrecognized request argument supplied: prompt_cache_key"
		SQL2="$FULL;"
		want=$((req1 + 1))
	else
		msg="invalid request"
		SQL2="SELECT id FROM restaurants WHERE id = 1 AND answer(reviews, 'is it good for large groups?') = 'Yes';"
		want=2
	fi
	printf '[{"match": "\\"prompt_cache_key\\"", "status": 400, "json": {"error": {"message": "%s"}}}]\n' "$msg" >"$T/refuse.json"
	rm -f "$T/s2.log"
	start_server s2 --rules "$T/refuse.json"
	# one request in flight at a time: each of those in flight when the refusal came would
	# be asked again once too
	printf '%s\n:llm\n%s\n' "$SQL2" "$SQL2" |
		"$prog" -v --set times=off --csv --no-cache --concurrency 1 --llm-url "$URL" \
		--model gpt-4o-mini "$DB" >"$T/f.out" 2>"$T/f.err"
	st=$?
	sent=$(sed -n 's/^  requests: \([0-9][0-9]*\) sent.*/\1/p' "$T/f.err" | tr '\n' ' ')
	total=$(loglines "$LOG")
	carried=$(keys 1 "$LOG" | grep -vc '^none$')
	half=$((want - 1))
	[ $how = generic ] && half=1
	if [ $st = 0 ] && [ "$sent" = "$want $half " ] && [ "$total" = $((want + half)) ] && [ "$carried" = 1 ] &&
		grep -q "cache key    refused by the endpoint (HTTP 400)" "$T/f.out" && ! grep -Eq "^(error|warning)" "$T/f.err"; then
		ok "refused ($how): asked again without the key once, and the next statement sends none"
	else
		notok "refused ($how): asked again without the key once, and the next statement sends none" \
			"status $st, requests $sent(want $want $half), logged $total, with a key $carried" "$(cat "$T/f.out" "$T/f.err" | head -n 30)"
	fi
	stop_server
done
exit $((fails > 0))
