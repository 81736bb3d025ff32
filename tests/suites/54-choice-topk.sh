#!/bin/sh
# Constrained answers and semantic top-k against build/llmserver, by rows and by the
# requests the server received (counted, never timed).
#   - answer(t, q, ARRAY[...]): the prompt offers the values; a reply is one of them (as
#     offered), none (NULL), or unreadable (asked again, then NULL and a warning, never
#     cached); usable in GROUP BY; an ENUM column compared with answer(t, q) offers the
#     column's values.
#   - ORDER BY a free-text score LIMIT k: retrieval orders the candidates, the walk scores
#     them in waves and stops once no candidate left can enter the top k; the same rows as
#     scoring every candidate (optimize off), with fewer requests, in the same run.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/choice
mkdir -p "$T"
check() {   # check NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:  $2" "want: $3" "$(cat "$T/err")"; fi
}
trap 'kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
SPID=""
# the server's log since the last mark: its requests, and their lines
MARK=0
lines() { if [ -f "$T/log" ]; then wc -l <"$T/log" | tr -d ' '; else echo 0; fi; }
mark() { MARK=$(lines); }
requests() { echo $(($(lines) - MARK)); }
logged() { tail -n +$((MARK + 1)) "$T/log"; }
# q DB SQL [options]: rows as CSV in $T/out (";" between rows in $T/rows), stderr in $T/err
q() {
	db=$1 sql=$2
	shift 2
	"$prog" --csv --no-headers --no-cache --llm-url "$URL" --model m "$@" "$db" -c "$sql" \
		>"$T/out" 2>"$T/err"
	st=$?
	paste -sd ';' - <"$T/out" >"$T/rows"
	return $st
}

# ---- constrained answers
db=$T/choice.db
"$prog" --bail "$db" >/dev/null <<'SQL'
CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT, price ENUM('cheap', 'moderate', 'expensive'));
INSERT INTO t VALUES (1, 'TAG-cheap: bowls for eight dollars.', 'cheap'),
                     (2, 'TAG-dear: the tasting menu is a splurge.', 'cheap'),
                     (3, 'TAG-cheap: a bargain lunch.', 'moderate'),
                     (4, 'TAG-none: we only had coffee.', 'cheap'),
                     (5, 'TAG-hedge: hard to say.', 'expensive'),
                     (6, 'TAG-dear: pricey wine list.', 'expensive');
SQL
cat >"$T/rules.json" <<'EOF'
[{"match": "TAG-cheap", "content": "Cheap."},
 {"match": "TAG-dear", "content": "expensive"},
 {"match": "TAG-none", "content": "none of them"},
 {"match": "TAG-hedge", "content": "somewhere between cheap and moderate"}]
EOF
rm -f "$T/log"
llmserver_start "$T" "$T/rules.json"
mark
q "$db" "SELECT answer(review, 'how expensive is it?', ARRAY['cheap', 'moderate', 'expensive']) AS p, count(*) FROM t GROUP BY p ORDER BY p;" \
	--set batch=1 --set llm.unreadable=warn
st=$?
check "choice: GROUP BY a constrained answer" "$(cat "$T/rows")" ",2;cheap,2;expensive,2"
check "choice: ... exit status 0 with llm.unreadable warn" "$st" 0
check "choice: ... 6 first asks and 1 re-ask of the reply that hedged" "$(requests)" 7
logged | grep -qF 'written as given: [\\n\\\"cheap\\\",\\n\\\"moderate\\\",\\n\\\"expensive\\\"\\n]' &&
	ok "choice: the prompt offers the values" || notok "choice: the prompt offers the values" "$(logged | head -c 600)"
grep -q "could not read the model's reply for 1 value, even when asked again (one said 'somewhere between cheap and moderate')" "$T/err" &&
	ok "choice: the hedge is unknown, with a warning" || notok "choice: the hedge is unknown, with a warning" "$(cat "$T/err")"
# an ENUM column compared with answer(): the column's values are offered
mark
q "$db" "SELECT id FROM t WHERE price = answer(review, 'how expensive is it?') ORDER BY id;" \
	--set batch=1 --set llm.unreadable=warn
check "choice: enum_col = answer(...) keeps the rows whose answer is their price" "$(cat "$T/rows")" "1;6"
logged | grep -qF 'written as given: [\\n\\\"cheap\\\",\\n\\\"moderate\\\",\\n\\\"expensive\\\"\\n]' &&
	ok "choice: ... offering the column's values" || notok "choice: ... offering the column's values" "$(logged | head -c 600)"
kill "$SPID"
wait "$SPID" 2>/dev/null
# the offline backend answers constrained questions too, labelled offline
"$prog" --csv --no-headers --no-cache --offline -v "$db" \
	-c "SELECT id, answer(review, 'is it a splurge?', ARRAY['Yes', 'No']) FROM t WHERE id IN (2, 4) ORDER BY id;" >"$T/out" 2>"$T/err"
check "choice: offline, yes/no options" "$(paste -sd ';' - <"$T/out")" "2,Yes;4,"
grep -q 'backend: offline (lexical, no language model)' "$T/err" &&
	ok "choice: ... labelled offline" || notok "choice: ... labelled offline" "$(cat "$T/err")"

# ---- semantic top-k: 60 reviews; three speak of romance and are scored 5, one 4, the rest 2
top=$T/top.db
"$prog" --bail "$top" >/dev/null <<'SQL'
CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, review FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO r SELECT i, 'Place ' || i, 'Lunch spot number ' || i || ', quick service and fair prices.' FROM n;
UPDATE r SET review = 'S5 A romantic dinner by candlelight, very romantic (' || id || ').' WHERE id IN (17, 38, 52);
UPDATE r SET review = 'S4 Somewhat romantic on a quiet night.' WHERE id = 44;
UPDATE r SET review = 'S1 Loud and bright, the opposite of romantic.' WHERE id = 9;
SQL
cat >"$T/top.json" <<'EOF2'
[{"match": "S5 A romantic", "content": "5"},
 {"match": "S4 Somewhat", "content": "4"},
 {"match": "S1 Loud", "content": "1"},
 {"match": "Lunch spot", "content": "2"}]
EOF2
SPID=""
rm -f "$T/log"
llmserver_start "$T" "$T/top.json"
MARK=0
topq="SELECT name, answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int AS romance FROM r ORDER BY romance DESC LIMIT 3;"
mark
q "$top" "$topq" --set batch=1 --concurrency 1 -v
cp "$T/err" "$T/plan"
rows_k=$(cat "$T/rows") n_k=$(requests)
mark
q "$top" "$topq" --set batch=1 --concurrency 1 --set optimize=off
rows_all=$(cat "$T/rows") n_all=$(requests)
check "top-k: the same rows as scoring every candidate" "$rows_k" "$rows_all"
check "top-k: ... which are the three scored 5" "$rows_k" "Place 17,5;Place 38,5;Place 52,5"
check "top-k: scoring every candidate (optimize off) asks about all 60" "$n_all" 60
check "top-k: one request at a time, the three ranked first by BM25 are the three 5s: 3 requests" "$n_k" 3
grep -q 'semantic top-k: 3 of 60 candidates scored in 3 waves (stopped: the top k had the best value)' "$T/plan" &&
	ok "top-k: the counters say so" || notok "top-k: the counters say so" "$(cat "$T/plan")"
grep -q 'rule: stop once 3 scored candidates have the best value 5 (from the answers allowed)' "$T/plan" &&
	grep -q 'assumption: the answer is one of its values' "$T/plan" &&
	ok "top-k: the plan states the rule and its assumption" || notok "top-k: the plan states the rule and its assumption" "$(cat "$T/plan")"
# with 8 requests in flight, the first 8 are sent before the first reply stops the walk
mark
q "$top" "$topq" --set batch=1
check "top-k: 8 in flight: the same rows" "$(cat "$T/rows")" "$rows_all"
check "top-k: ... in one group of 8 requests" "$(requests)" 8
# LIMIT 4: only three can have 5, so the walk goes on to the end, and still agrees
topq4="SELECT name, answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int AS romance FROM r ORDER BY romance DESC LIMIT 4;"
mark
q "$top" "$topq4" --set batch=1
rows_k=$(cat "$T/rows") n_k=$(requests)
mark
q "$top" "$topq4" --set batch=1 --set optimize=off
check "top-k: LIMIT 4, when the best value is too rare: the same rows" "$rows_k" "$(cat "$T/rows")"
check "top-k: ... after scoring every candidate" "$n_k" 60
# ASC NULLS LAST: the lowest first; the best value is 1
mark
q "$top" "SELECT name FROM r ORDER BY answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int ASC NULLS LAST LIMIT 1;" --set batch=1
check "top-k: ASC NULLS LAST finds the lowest" "$(cat "$T/rows")" "Place 9"
n_asc=$(requests)
if [ "$n_asc" -lt 60 ]; then ok "top-k: ... before scoring every candidate ($n_asc)"; else notok "top-k: ... before scoring every candidate" "$n_asc requests"; fi
# no best value known (a free number): every candidate is scored, and the plan says why
mark
q "$top" "SELECT name FROM r ORDER BY answer(review, 'how romantic is it, 1 to 5?')::int DESC LIMIT 3;" --set batch=1 -v
grep -q 'semantic top-k: no, every candidate is scored: the answer has no known best value' "$T/err" &&
	ok "top-k: a free number has no best value: the plan says so" || notok "top-k: a free number has no best value: the plan says so" "$(cat "$T/err")"
kill "$SPID"
wait "$SPID" 2>/dev/null
# batches, against the automatic answers (a value offered, by a hash of the text): the top
# scores agree with scoring everything, in far fewer requests
echo '[]' >"$T/auto.json"
llmserver_start "$T" "$T/auto.json"
mark
q "$top" "$topq"
scores_k=$(cut -d, -f2 "$T/out" | paste -sd ';' -) n_k=$(requests)
mark
q "$top" "$topq" --set optimize=off
scores_all=$(cut -d, -f2 "$T/out" | paste -sd ';' -) n_all=$(requests)
check "top-k: batched, the same top scores as scoring everything" "$scores_k" "$scores_all"
if [ "$n_k" -lt "$n_all" ]; then ok "top-k: ... in $n_k requests against $n_all"; else notok "top-k: batched, fewer requests" "$n_k against $n_all"; fi
