#!/bin/sh
# extract() and the aggregates over free text (answer_agg(), summary_agg()) against
# build/llmserver, by rows, by the requests the server received (counted, never timed) and
# by the reduce tree the plan announces.
#   - extract(t, 'spec'): typed objects, several texts to a request; a reply that does not fit
#     the spec is asked again, then NULL with a warning, never cached; cached per field set;
#     lazy under LIMIT; usable with ->> in WHERE; quotes kept only when the text holds them.
#   - answer_agg()/summary_agg(): small groups share one request; a large group is reduced
#     (chunks' partial answers, then one answer over them) in the calls the plan announced;
#     HAVING, ORDER BY, a whole table and a subquery; the budget is checked against the tree.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/agg
mkdir -p "$T"
check() {   # check NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:  $2" "want: $3" "$(cat "$T/err")"; fi
}
has() {   # has NAME FILE TEXT: FILE holds TEXT (fixed string)
	if grep -qF -- "$3" "$2"; then ok "$1"; else notok "$1" "no '$3' in:" "$(cat "$2")"; fi
}
trap 'kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
SPID=""
MARK=0
mark() { MARK=$(lines); }
requests() { echo $(($(lines) - MARK)); }
logged() { tail -n +$((MARK + 1)) "$T/log"; }
# q DB SQL [options]: rows as CSV ("; " between rows in $T/rows), the plan and counters in
# $T/err (-v), against the server
q() {
	db=$1 sql=$2
	shift 2
	"$prog" -v --set times=off --csv --no-headers --llm-url "$URL" --model m "$@" "$db" \
		-c "$sql" >"$T/out" 2>"$T/err"
	st=$?
	paste -sd ';' - <"$T/out" >"$T/rows"
	return $st
}
server() {   # server RULES: (re)start the server with a rules file
	[ -n "$SPID" ] && { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }
	rm -f "$T/log"
	llmserver_start "$T" "$1"
	MARK=0
}

# ---- extract()
db=$T/x.db
"$prog" --bail "$db" >/dev/null <tests/agg/extract.sql
server tests/agg/extract.json
spec="noise text, kids bool: welcomes children, wait int"
mark
q "$db" "SELECT id, extract(review, '$spec') FROM t ORDER BY id;" --no-cache --set llm.unreadable=warn
check "extract: typed objects, null where the text does not say, NULL for a reply that does not fit" "$(cat "$T/rows")" \
	'1,"{""noise"":""quiet"",""kids"":true,""wait"":10}";2,"{""noise"":""loud"",""kids"":false,""wait"":20}";3,"{""noise"":null,""kids"":null,""wait"":null}";4,;5,'
check "extract: 4 texts in 1 request, and 1 re-ask of the reply that did not fit" "$(requests)" 2
has "extract: ... with a warning" "$T/err" "could not read the model's reply for 1 value, even when asked again"
has "extract: the plan counts extract calls" "$T/err" "worst case: 1 LLM call (extract 1)"
logged | head -1 >"$T/req1"
has "extract: the texts go as a JSON list of strings, last" "$T/req1" '### Texts (a JSON list of strings)\\n[\\n \\\"XA: a quiet room'
has "extract: the fields go as JSON" "$T/req1" '\\\"name\\\": \\\"kids\\\",\\n  \\\"type\\\": \\\"bool\\\",\\n  \\\"description\\\": \\\"welcomes children\\\"'
has "extract: the request carries the reply's JSON schema" "$T/req1" '\"response_format\":{\"type\":\"json_schema\"'
# ->> in WHERE and ORDER BY
mark
q "$db" "SELECT id FROM t WHERE extract(review, '$spec')->>'kids' = 1 OR extract(review, '$spec')->>'wait' > 15 ORDER BY extract(review, '$spec')->>'wait' DESC;" --no-cache --set llm.unreadable=warn
check "extract: ->> in WHERE and ORDER BY" "$(cat "$T/rows")" "2;1"
# lazy under LIMIT: only the rows returned are asked about
mark
q "$db" "SELECT id, extract(review, 'wait int') FROM t ORDER BY id LIMIT 2;" --no-cache
check "extract: LIMIT 2 asks about 2 texts, in 1 request" "$(requests)" 1
if logged | grep -q 'XC:'; then notok "extract: ... not the third"; else ok "extract: ... not the third"; fi
# the cache: per field set (spacing and type words' case do not matter), never an unreadable reply
X=$T/xdg
mark
XDG_CACHE_HOME=$X q "$db" "SELECT id, extract(review, '$spec') FROM t ORDER BY id;" --set llm.unreadable=warn
XDG_CACHE_HOME=$X q "$db" "SELECT id, extract(review, 'noise TEXT,kids bool:welcomes children ,  wait int') FROM t ORDER BY id;" --set llm.unreadable=warn
check "extract: the same fields again: only the unreadable one is asked again (2 more requests, 4 in all)" "$(requests)" 4
mark
XDG_CACHE_HOME=$X q "$db" "SELECT id, extract(review, 'noise text') FROM t WHERE id = 1;"
check "extract: other fields are another question" "$(requests)" 1
# quotes: kept when the text holds them word for word, else null
mark
q "$db" "SELECT extract(review, 'wait int, kids bool') FROM t WHERE id = 2;" --no-cache --set extract_quotes=on
check "extract: quotes checked against the text" "$(cat "$T/rows")" '"{""wait"":20,""kids"":false,""_quotes"":{""wait"":""a twenty minute wait"",""kids"":null}}"'
has "extract: ... asked for in the prompt" "$T/log" 'The key \\\"_quotes\\\" holds an object'
# errors at the spec
"$prog" --offline "$db" -c "SELECT extract(review, 'wait minutes') FROM t;" >"$T/out" 2>"$T/err"
has "extract: a spec without a type is an error at the spec" "$T/err" "the spec of extract() gives the field 'wait' no type"
"$prog" --offline "$db" -c "SELECT extract(review, 'a int, A text') FROM t;" >"$T/out" 2>"$T/err"
has "extract: a field named twice is an error" "$T/err" "names the field 'A' twice"
# offline: an extractive answer, labelled offline
"$prog" -v --set times=off --csv --no-headers --offline --no-cache "$db" \
	-c "SELECT extract(review, 'wait int: minutes waited') FROM t WHERE id = 1;" >"$T/out" 2>"$T/err"
check "extract: offline, the number the text gives" "$(cat "$T/out")" '"{""wait"":10}"'
has "extract: ... labelled offline" "$T/err" "backend: offline (lexical, no language model)"

# ---- answer_agg(), summary_agg()
adb=$T/a.db
"$prog" --bail "$adb" >/dev/null <tests/agg/cities.sql
server tests/agg/agg.json
Q="answer_agg(review, 'is parking easy or hard?', ARRAY['easy', 'hard', 'mixed'])"
mark
q "$adb" "SELECT city, $Q FROM r WHERE city <> 'Dale' GROUP BY city ORDER BY city;" --no-cache
check "agg: one value per group" "$(cat "$T/rows")" "Alto,easy;Bay,hard;Cove,mixed"
check "agg: three small groups share 1 request" "$(requests)" 1
has "agg: the plan announces it" "$T/err" "3 small groups (one request's worth each): 1 request, as many groups to a request as fit"
has "agg: ... and the cost" "$T/err" "worst case: 1 LLM call (aggregate 1)"
has "agg: the prompt offers the answers" "$T/log" 'one of the values of this JSON list, written as given'
has "agg: ... the values as a JSON list" "$T/log" '[\\n\\\"easy\\\",\\n\\\"hard\\\",\\n\\\"mixed\\\"\\n]'
# HAVING, ORDER BY, the whole table, a subquery
mark
q "$adb" "SELECT city FROM r WHERE city <> 'Dale' GROUP BY city HAVING $Q <> 'easy' ORDER BY $Q DESC;" --no-cache
check "agg: HAVING and ORDER BY" "$(cat "$T/rows")" "Cove;Bay"
check "agg: ... still 1 request" "$(requests)" 1
mark
q "$adb" "SELECT $Q FROM r WHERE city = 'Bay';" --no-cache
check "agg: over a whole (filtered) table" "$(cat "$T/rows")" "hard"
q "$adb" "SELECT $Q FROM (SELECT review FROM r WHERE city = 'Cove');" --no-cache
check "agg: over a subquery" "$(cat "$T/rows")" "mixed"
q "$adb" "SELECT summary_agg(review) FROM r WHERE city <> 'Dale' GROUP BY city ORDER BY city;" --no-cache
check "agg: summary_agg, one summary per group" "$(cat "$T/rows")" "Alto lots.;Bay street only.;Cove garage."
# a large group: its passages cut into chunks of one request, each chunk's partial answer,
# then one answer over them, in exactly the calls the plan announced
mark
q "$adb" "SELECT city, $Q FROM r WHERE city IN ('Bay', 'Dale') GROUP BY city ORDER BY city;" --no-cache --set batch_tokens=64
has "agg: the plan shows the tree" "$T/err" "1 large group reduced: 3 chunk calls (partial answers), 2 calls over partial answers, then 1 final call over them (2 levels of reduce)"
has "agg: ... its shape" "$T/err" "-> 3 chunks -> 1 answer: 6 calls"
has "agg: ... and its calls" "$T/err" "calls: 7 at most, for 2 groups"
check "agg: the large group's answer comes from its partial answers" "$(cat "$T/rows")" "Bay,hard;Dale,hard"
check "agg: ... in the 7 calls announced" "$(requests)" 7
logged | grep -c 'street parking only' >"$T/mid"
check "agg: the middle level reads the chunks' partial answers (2 calls)" "$(cat "$T/mid")" 2
has "agg: the counters say what was sent" "$T/err" "sent 1 request for small groups, 3 chunk calls, 2 middle and 1 final reduce call"
# :why group N: the group's answer, the partial answers it was reduced from, the passages
printf '%s\n:why group\n:why group 2\n' "SELECT city, $Q FROM r WHERE city IN ('Bay', 'Dale') GROUP BY city ORDER BY city;" |
	"$prog" --no-cache --llm-url "$URL" --model m --set batch_tokens=64 "$adb" >"$T/why" 2>&1
has "agg: :why group lists the groups" "$T/why" "over 2 texts: 'hard'"
has "agg: :why group 2 shows the partial answers it was reduced from" "$T/why" "reduced from 3 chunks; the partial answers it was answered from (2):"
has "agg: ... and the passages used" "$T/why" "passages used: 3 of 3"
has "agg: ... each of them" "$T/why" "- PD2 The tiny lot has four spaces"
# the budget is checked against the tree, before any call
mark
q "$adb" "SELECT city, $Q FROM r WHERE city IN ('Bay', 'Dale') GROUP BY city;" --no-cache --set batch_tokens=64 --set budget=4
has "agg: over the budget: refused" "$T/err" "more than the budget of 4"
check "agg: ... before any call" "$(requests)" 0
# an unreadable reply: asked again, then NULL with a warning
mark
q "$adb" "SELECT city, answer_agg(review, 'how is the noise?', ARRAY['quiet', 'loud']) FROM r WHERE city = 'Alto' GROUP BY city;" --no-cache --set llm.unreadable=warn
check "agg: a reply that is none of the answers: NULL" "$(cat "$T/rows")" "Alto,"
check "agg: ... after asking again" "$(requests)" 2
has "agg: ... with a warning" "$T/err" "could not read the model's reply for 1 value"
# offline: among the answers, labelled offline
"$prog" -v --set times=off --csv --no-headers --offline --no-cache "$adb" \
	-c "SELECT city, answer_agg(review, 'is parking easy?', ARRAY['Yes', 'No']) FROM r GROUP BY city ORDER BY city;" >"$T/out" 2>"$T/err"
if sed 's/^[^,]*,//' "$T/out" | grep -qvxE 'Yes|No|'; then notok "agg: offline answers among the answers" "$(cat "$T/out")"; else ok "agg: offline answers among the answers"; fi
has "agg: ... labelled offline" "$T/err" "backend: offline (lexical, no language model)"
"$prog" "$adb" -c "SELECT answer_agg(review, city) FROM r;" >"$T/out" 2>"$T/err"
has "agg: the question must be a literal" "$T/err" "the question of answer_agg() must be a literal text"
