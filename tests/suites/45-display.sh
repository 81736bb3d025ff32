#!/bin/sh
# The display that reads well, and :chart, where a transcript cannot say it:
#   - :set show compact states the figures the full display states: the plan's calls
#     expected and at worst and their dollars, the counters' calls, tokens and dollars, each
#     read from a run of the same statement shown in full against build/llmserver (priced),
#     and the calls are the requests the server logged;
#   - a chat turn in compact shows the query, its rows and reply, and a line of the
#     turn's counters; in rows none of them;
#   - durations from a second on are in seconds (a server that takes 1.1 s a reply), in
#     the counters, the compact line and :timer's;
#   - every example of :help FUNCTION runs over the demo database;
#   - :chart keeps 10,000 rows of a longer result, says so, and counts those;
#   - a locale that is not UTF-8 draws '#', a UTF-8 one eighth blocks;
#   - the html mode's SVG is well-formed XML with a hostile label escaped (xmllint).
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/display
mkdir -p "$T"
DB=$T/demo.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB" || { notok "demo database"; exit 1; }
trap 'stop_server; [ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"' EXIT

# the figure after a label in a file: num FILE REGEX (the first number after the match)
num() { grep -m1 -E "$2" "$1" | sed -E "s/.*$2([0-9][0-9.]*).*/\1/"; }

# ---- compact against full, priced ----
start_server priced --yes-rate 0.5
sql="SELECT name FROM restaurants WHERE answer(reviews, 'is it good for a birthday?') = 'Yes' AND rating >= 4 LIMIT 3;"
opts="--no-cache --llm-url $URL --model m -s llm.price_in=0.15 -s llm.price_out=0.6 -s times=off"
# shellcheck disable=SC2086 # the options, split
"$prog" -v $opts -c "$sql" "$DB" >"$T/full.out" 2>"$T/full.err"
before=$(wc -l <"$T/priced.log")
# shellcheck disable=SC2086
"$prog" -v $opts -s show=compact -c "$sql" "$DB" >"$T/compact.out" 2>"$T/compact.err"
sent=$(($(wc -l <"$T/priced.log") - before))
check "compact: the same rows" "$(cat "$T/compact.out")" "$(cat "$T/full.out")"
check "compact: two lines of plan and counters, nothing else" \
	"$(sed 's/:.*//' "$T/compact.err" | tr '\n' ' ')" "plan counters "
exp=$(num "$T/full.err" '^  expected: at most ')
worst=$(num "$T/full.err" '^  worst case: ')
usd_e=$(grep -m1 '^  cost (' "$T/full.err" | sed -E 's/.*: expected about (\$[0-9.]*), at most (\$[0-9.]*) .*/\1/')
usd_w=$(grep -m1 '^  cost (' "$T/full.err" | sed -E 's/.*: expected about (\$[0-9.]*), at most (\$[0-9.]*) .*/\2/')
check "compact: the plan's figures are the full plan's" "$(grep '^plan: ' "$T/compact.err")" \
	"plan: $exp LLM calls expected, at most $worst; about $usd_e, at most $usd_w"
calls=$(num "$T/full.err" '^  llm calls: ')
tin=$(num "$T/full.err" '^  tokens: ')
tout=$(grep -m1 '^  tokens: ' "$T/full.err" | sed -E 's/.*, ([0-9]+) out.*/\1/')
usd=$(grep -m1 '^  cost: ' "$T/full.err" | sed -E 's/^  cost: (\$[0-9.]*).*/\1/')
check "compact: the counters' figures are the full counters'" "$(grep '^counters: ' "$T/compact.err")" \
	"counters: $calls LLM calls, $tin tokens in, $tout out, $usd"
check "compact: its calls are the requests the server received" "$calls" "$sent"
stop_server

# ---- a chat turn: a line of its counters in compact, none in rows ----
start_server chat --rules "$SUQL_TOP/fixtures/chat/demo-rules.json" --yes-word candlelit
turn() { printf ':chat\nany romantic Italian places in Palo Alto?\n' |
	"$prog" -v --no-cache -s times=off --llm-url "$URL" --model test-model "$@" "$DB"; }
turn >"$T/chat-full.out" 2>"$T/chat-full.err"
turn -s show=compact >"$T/chat-compact.out" 2>"$T/chat-compact.err"
turn -s show=rows >"$T/chat-rows.out" 2>"$T/chat-rows.err"
stop_server
check "chat, compact: the query, its rows and the reply as in full" \
	"$(cat "$T/chat-compact.out")" "$(cat "$T/chat-full.out")"
check "chat, compact: a line of plan, of counters and of the turn's counters" \
	"$(sed 's/:.*//' "$T/chat-compact.err" | tr '\n' ' ')" "plan counters chat "
check "chat, compact: the turn's counters are the full display's, on a line" \
	"$(grep '^chat: ' "$T/chat-compact.err")" \
	"chat: $(sed -n '/^chat:$/,$p' "$T/chat-full.err" | sed '1d; s/^  //' | sed -n '1h; 1!H; ${x; s/\n/; /g; p}')"
check "chat, rows: the query, its rows and the reply alone" \
	"$(cat "$T/chat-rows.out" "$T/chat-rows.err")" "$(cat "$T/chat-full.out")"

# ---- durations past a second ----
start_server slow --yes-rate 0.5 --delay 1100
# shellcheck disable=SC2086
"$prog" -v --no-cache --llm-url "$URL" --model m -s timer=on -c "$sql" "$DB" >/dev/null 2>"$T/slow.err"
# shellcheck disable=SC2086
"$prog" -v --no-cache --llm-url "$URL" --model m -s show=compact -c "$sql" "$DB" >/dev/null 2>"$T/slow2.err"
stop_server
if grep -Eq '^  time: [0-9]+\.[0-9] s waiting for the model, [0-9]+\.[0-9] s in all$' "$T/slow.err"; then
	ok "durations: the counters' time in seconds past one"
else
	notok "durations: the counters' time in seconds past one" "$(grep time: "$T/slow.err")"
fi
if grep -Eq '^time: [0-9]+\.[0-9]{3} s$' "$T/slow.err"; then
	ok "durations: :timer's in seconds past one"
else
	notok "durations: :timer's in seconds past one" "$(grep time: "$T/slow.err")"
fi
if grep -Eq '^counters: .*, [0-9]+\.[0-9] s$' "$T/slow2.err"; then
	ok "durations: the compact counters' in seconds past one"
else
	notok "durations: the compact counters' in seconds past one" "$(cat "$T/slow2.err")"
fi

# ---- every function's example runs ----
"$prog" -c ":help functions" >"$T/functions"
n=0
for f in answer summary extract answer_agg summary_agg matches bm25 =; do
	"$prog" -c ":help $f" | sed -n '/^Example:$/,$p' | sed 1d >"$T/example.sql"
	if [ -s "$T/example.sql" ] &&
		"$prog" --offline --csv -f "$T/example.sql" "$DB" >"$T/example.out" 2>"$T/example.err" &&
		[ -s "$T/example.out" ] && [ ! -s "$T/example.err" ]; then
		ok "help: the example of $f runs over the demo database"
	else
		notok "help: the example of $f runs over the demo database" "$(cat "$T/example.sql" "$T/example.err")"
	fi
	n=$((n + 1))
done
check "help: :help functions lists each of them" "$(grep -c '^  [^ ]' "$T/functions")" "$n"

# ---- the rows kept for :chart ----
"$prog" --ascii -c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10005) SELECT x FROM c;" \
	-c ":chart hist x 10" ":memory:" >"$T/kept.out" 2>"$T/kept.err"
check "chart: a longer result is kept to 10,000 rows, and said so" "$(cat "$T/kept.err")" \
	"note: 10000 rows kept of 10005: the chart counts those"
total=$(sed -n '/^x  *count$/,$p' "$T/kept.out" | sed 1d | awk '{ s += $NF } END { print s }')
check "chart: the histogram counts the rows kept" "$total" 10000

# ---- the locale ----
q="SELECT 'a' AS k, 3 AS v UNION ALL SELECT 'b', 1;"
LC_ALL=C "$prog" -c "$q" -c ":chart" ":memory:" | tail -n 2 >"$T/c.out"
check "chart: in a locale that is not UTF-8, # bars" "$(cat "$T/c.out")" \
	"$(printf 'a %s 3\nb %s 1' "$(printf '%76s' '' | tr ' ' '#')" "$(printf '%25s' '' | tr ' ' '#')")"
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
	LC_ALL=C.UTF-8 "$prog" -c "$q" -c ":chart" ":memory:" | tail -n 1 >"$T/u.out"
	# 1 of 3 over 76 characters: 25 and a third (3 eighths: U+258D)
	check "chart: in a UTF-8 locale, eighth blocks" "$(cat "$T/u.out")" \
		"b $(printf '%25s' '' | sed 's/ /█/g')▍ 1"
	LC_ALL=C.UTF-8 "$prog" --ascii -c "$q" -c ":chart" ":memory:" | tail -n 1 >"$T/a.out"
	check "chart: --ascii, # bars in a UTF-8 locale too" "$(cat "$T/a.out")" \
		"b $(printf '%25s' '' | tr ' ' '#') 1"
else
	echo "skip display: the UTF-8 locale's chart: no C.UTF-8 locale here"
fi

# ---- the SVG ----
if command -v xmllint >/dev/null 2>&1; then
	"$prog" --html -c "SELECT '</svg><script>alert(1)</script>&' || char(27) AS label, -2 AS v UNION ALL SELECT 'ok', 5;" \
		-c ":chart" ":memory:" | sed -n '/^<svg/,$p' >"$T/chart.svg"
	if xmllint --noout "$T/chart.svg" 2>"$T/xml.err" && ! grep -q '<script' "$T/chart.svg"; then
		ok "svg: well-formed, a hostile label escaped"
	else
		notok "svg: well-formed, a hostile label escaped" "$(cat "$T/xml.err" "$T/chart.svg")"
	fi
else
	echo "skip display: the SVG's check: xmllint is not installed"
fi

[ "$fails" = 0 ]
