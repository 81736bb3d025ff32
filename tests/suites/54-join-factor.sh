#!/bin/sh
# Semantic joins that factor (join_factor, exec_factor.c): a pair question settled by one
# property of each side is asked once as a factorization, each side's values classified in
# batches, a sample of pairs judged directly, and the pairs decided by comparing. Against
# build/llmserver --factor, whose verdicts on pairs follow the same property (so both forms
# agree): the rows equal pairwise judging's, at a fraction of the calls. A wrong
# factorization (the server proposes "different" where pairs match when the same) is caught
# by the sample and the pairs are judged; join_factor off gives the old plan; an unreadable
# factorization is judged pairwise and never cached.
OK_PREFIX="join-factor: "
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/join-factor
mkdir -p "$T"

SPID=""
start() {   # start NAME RULES [llmserver options]: sets URL, LOG
	name=$1
	shift
	stop
	mkdir -p "$T/srv-$name"
	LOG=$T/srv-$name/log
	llmserver_start "$T/srv-$name" "$@"
}
stop() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }
trap 'stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
nlog() { if [ -f "$LOG" ]; then wc -l <"$LOG" | tr -d ' '; else echo 0; fi; }

q() {   # q SQL [options]: rows in $T/rows (';' between them), the rest in $T/err
	sql=$1
	shift
	XDG_CACHE_HOME=$T/xdg "$prog" --csv --no-headers -v --set times=off --set budget=0 \
		--llm-url "$URL" --model m "$@" "$T/db" -c "$sql" >"$T/out" 2>"$T/err"
	st=$?
	r=$(paste -sd ';' - <"$T/out")
	echo "${r:--}" >"$T/rows"
}
num() { sed -n "s/^  $1: \([0-9][0-9]*\).*/\1/p" "$T/err" | head -1; }
nrows() { tr ';' '\n' <"$T/rows" | grep -c .; }

# 40 reviews, each of one opinion of the price (cheap, fair or expensive), 2 of none
"$prog" --bail "$T/db" >/dev/null <<'SQL'
CREATE TABLE reviews (id INTEGER PRIMARY KEY, body TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO reviews (body) SELECT 'Review ' || i || ': ' ||
  CASE WHEN i IN (13, 27) THEN 'the staff were friendly'
       WHEN i % 3 = 0 THEN 'quite cheap for what you get'
       WHEN i % 3 = 1 THEN 'a fair price overall'
       ELSE 'rather expensive, I thought' END FROM n;
SQL
# every review but 13 and 27 (no opinion of the price): 38 values a side, 703 pairs
Q="SELECT a.id, b.id FROM reviews a JOIN reviews b ON a.id < b.id AND matches(a.body, b.body, 'do the two reviews share an opinion of the price?') WHERE a.id NOT IN (13, 27) AND b.id NOT IN (13, 27) ORDER BY a.id, b.id;"
# all 40: the pairs of the two reviews without a class are judged directly
QALL="SELECT a.id, b.id FROM reviews a JOIN reviews b ON a.id < b.id AND matches(a.body, b.body, 'do the two reviews share an opinion of the price?') ORDER BY a.id, b.id;"
echo '[]' >"$T/none.json"

# --- pairwise (join_factor off) against the factored join, the same verdicts
start factor "$T/none.json" --factor "What does the review say of the price?:cheap,fair,expensive"
q "$Q" --no-cache --set join_factor=off
pw_rows=$(cat "$T/rows") pw_calls=$(num "llm calls") pw_log=$(nlog)
if grep -q "factor" "$T/err"; then notok "off: the old plan, no factor line" "$(grep factor "$T/err")"; else ok "off: the old plan, no factor line"; fi
check "off: one batched call per left value, two for the first four (42)" "$pw_calls" 42
n=$(nrows)
if [ "$n" -gt 200 ]; then ok "pairwise: many pairs match ($n)"; else notok "pairwise: many pairs match" "$n"; fi
q "$Q" --no-cache
fc_calls=$(num "llm calls")
check "factored: the same rows as pairwise" "$(cat "$T/rows")" "$pw_rows"
check "factored: 1 factor call + 2 classification calls + 8 sample pairs = 11 calls" "$fc_calls" 11
check "factored: the server saw 11 requests" "$(( $(nlog) - pw_log ))" 11
grep -q "factor: first ask whether one property of each side settles the question: 1 call, about 2 classifying the 38 + 38 values, 8 sample pairs judged directly: 11 calls if the sample agrees, else 42 more pairwise (53 in all at worst)" "$T/err" &&
	ok "plan: the attempt's cost against pairwise" || notok "plan: the attempt's cost against pairwise" "$(grep -A8 'join 1' "$T/err")"
grep -q "factor: 11 calls (0 cache hits): property 'What does the review say of the price?' (cheap|fair|expensive), a match when the same; 8 of 8 sample pairs agreed; " "$T/err" &&
	ok "counters: the property, the sample's agreement" || notok "counters: the property, the sample's agreement" "$(grep -A2 'join 1' "$T/err")"
grep -q "join 1: 695 pairs decided by the factorization, 8 asked (its sample, and pairs with a value left unclassified); then 0 calls" "$T/err" &&
	ok "counters: pairs decided by the factorization, not asked" || notok "counters: pairs decided by the factorization" "$(grep 'join 1' "$T/err")"
grep -q "llm calls: 11 (.*factor 1" "$T/err" && ok "counters: the factor call counted by kind" ||
	notok "counters: the factor call counted by kind" "$(grep 'llm calls' "$T/err")"

# --- two reviews without a class: their pairs are judged directly
q "$QALL" --no-cache --set join_factor=off
apw=$(cat "$T/rows")
q "$QALL" --no-cache
check "values without a class: the rows of pairwise judging" "$(cat "$T/rows")" "$apw"
grep -q "2 left and 2 right values without a class, their pairs judged" "$T/err" &&
	ok "values without a class: the counters say their pairs were judged" || notok "counters: values without a class" "$(grep -A1 'join 1' "$T/err")"

# --- the cache: the classification and the sample are kept; the factor call too
q "$Q"
q "$Q"
check "cache: the factored join again costs no call" "$(num "llm calls")" 0
check "cache: the same rows" "$(cat "$T/rows")" "$pw_rows"

# --- a wrong factorization: the sample disagrees, every pair is judged
start wrong "$T/none.json" --factor "What does the review say of the price?:cheap,fair,expensive:different"
q "$Q" --no-cache
check "wrong factorization: the rows of pairwise judging" "$(cat "$T/rows")" "$pw_rows"
grep -q "a match when they differ; 0 of 8 sample pairs agreed, so it was not trusted: the pairs were judged" "$T/err" &&
	ok "wrong factorization: the counters say why it was not trusted" || notok "wrong factorization: the counters say why" "$(grep -A2 'join 1' "$T/err")"
c=$(num "llm calls")
check "wrong factorization: the attempt, then every left value (11 + 42)" "$c" 53

# --- a question that does not factor: the server says so
start nofactor "$T/none.json"
q "$Q" --no-cache --set join_factor=off
hpw=$(cat "$T/rows")
q "$Q" --no-cache
check "does not factor: the rows of pairwise judging" "$(cat "$T/rows")" "$hpw"
grep -q "factor: 1 call (0 cache hits): the model says the question is not settled by one property of each side; the pairs were judged" "$T/err" &&
	ok "does not factor: the counters say so" || notok "does not factor: the counters say so" "$(grep -A2 'join 1' "$T/err")"
check "does not factor: one more call than pairwise" "$(num "llm calls")" 43

# --- an unreadable factorization: asked again, then judged pairwise, never cached
cat >"$T/unread.json" <<'EOF'
[{"match": "### Left values", "content": "Perhaps: it depends."}]
EOF
start unread "$T/unread.json" --factor "What does the review say of the price?:cheap,fair,expensive"
rm -rf "$T/xdg"
q "$Q"
check "unreadable: the rows of pairwise judging" "$(cat "$T/rows")" "$pw_rows"
grep -q "factor: 1 call (0 cache hits): the model's factorization could not be read (not kept); the pairs were judged" "$T/err" &&
	ok "unreadable: the counters say so" || notok "unreadable: the counters say so" "$(grep -A2 'join 1' "$T/err")"
before=$(grep -c "### Left values" "$LOG")
q "$Q"
after=$(grep -c "### Left values" "$LOG")
check "unreadable: not cached (asked again, and re-asked: 2 more requests)" "$((after - before))" 2
check "unreadable: pairs from the cache the second time" "$(num "llm calls")" 1

# --- too few pairs to pay: no attempt, the plan as before
q "SELECT a.id, b.id FROM reviews a JOIN reviews b ON a.id < b.id AND matches(a.body, b.body, 'the same opinion of the price?') WHERE a.id <= 3 AND b.id <= 6;" --no-cache
if grep -q "factor" "$T/err"; then notok "few pairs: no factor attempt" "$(grep factor "$T/err")"; else ok "few pairs: no factor attempt"; fi
stop
