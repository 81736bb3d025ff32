#!/bin/sh
# Semantic joins, matches(left, right, 'question'): the rewrite (one batched request per
# distinct left value, BM25 pruning past join_candidates) against pairwise judging (naive
# mode: one call a pair), on small tables and build/llmserver, whose verdict on each pair
# is known (a list of matching pairs, or a hash of the pair). Rows are compared; calls are
# counted from suql's counters and from the server's log. Unreadable replies: asked again,
# split, unknown (NULL, a warning, exit status 3), never cached.
OK_PREFIX="join: "
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/join
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

# q SQL [options]: rows (CSV, one line, ';' between rows) in $T/rows, everything else in
# $T/err; status in $st
q() {
	sql=$1
	shift
	XDG_CACHE_HOME=$T/xdg "$prog" --csv --no-headers -v --set times=off --set budget=0 \
		--llm-url "$URL" --model m "$@" "$T/db" -c "$sql" >"$T/out" 2>"$T/err"
	st=$?
	r=$(paste -sd ';' - <"$T/out")
	echo "${r:--}" >"$T/rows"
}
num() {   # num LABEL: the first number after "LABEL: " in the counters
	sed -n "s/^  $1: \([0-9][0-9]*\).*/\1/p" "$T/err" | head -1
}

# 12 firms (one named twice), 30 brands; the pairs that match share a word
"$prog" --bail "$T/db" <"$SUQL_TOP/tests/engine/firms.sql" >/dev/null
cp "$SUQL_TOP/tests/engine/firms-pairs.tsv" "$T/pairs"
echo '[]' >"$T/none.json"
J="SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') ORDER BY f.id, b.id;"

# --- the rewrite against pairwise, verdicts from the list of pairs
start pairs "$T/none.json" --pairs "$T/pairs"
q "$J" --no-cache --set optimize=off
pw_rows=$(cat "$T/rows") pw_calls=$(num "llm calls") pw_log=$(nlog)
q "$J" --no-cache
rw_calls=$(num "llm calls")
check "pairwise: one call per distinct pair (11 names x 30 labels)" "$pw_calls" 330
check "pairwise: the server saw as many requests" "$pw_log" 330
check "rewrite: the same rows as pairwise" "$(cat "$T/rows")" "$pw_rows"
check "rewrite: 15 rows (Acme Corp twice)" "$(tr ';' '\n' <"$T/rows" | wc -l | tr -d ' ')" 15
check "rewrite: one call per distinct left value" "$rw_calls" 11
check "rewrite: the server saw 11 more requests" "$(nlog)" 341
grep -q "expected: 11 LLM calls carrying 330 pairs, against 330 pairwise (11 x 30): 30x fewer" "$T/err" &&
	ok "plan: expected calls against pairwise" || notok "plan: expected calls against pairwise" "$(grep -A4 'join 1' "$T/err")"
grep -q "join 1: 330 pairs asked in 11 calls (0 cache hits, 11 requests): 13 matched, 317 did not; pairwise: 330" "$T/err" &&
	ok "counters: pairs asked, calls, matches" || notok "counters: pairs asked, calls, matches" "$(grep 'join 1' "$T/err")"

# --- BM25 pruning past join_candidates: only pairs that share words are asked
q "$J" --no-cache --set join_candidates=4
check "pruned: the same rows as pairwise" "$(cat "$T/rows")" "$pw_rows"
check "pruned: still one call per left value that shares a word with a label" "$(num "llm calls")" 10
grep -q "BM25 keeps the best 4 right values" "$T/err" && ok "pruned: the plan says so" ||
	notok "pruned: the plan says so" "$(grep -A5 'join 1' "$T/err")"
asked=$(sed -n 's/^  join 1: \([0-9]*\) pairs asked.*/\1/p' "$T/err")
if [ -n "$asked" ] && [ "$asked" -le 40 ]; then ok "pruned: at most 4 pairs per left value asked ($asked)"; else notok "pruned: at most 4 pairs per left value asked" "$asked"; fi
grep -q "join 1: $asked pairs asked.*; $((330 - asked)) never asked (join_candidates 4 kept the pairs sharing most words" "$T/err" &&
	ok "pruned: the counters say how many pairs were never asked ($((330 - asked)))" ||
	notok "pruned: the counters say how many pairs were never asked" "$(grep 'join 1' "$T/err")"

# --- WHERE, LEFT JOIN, the batch size
q "SELECT f.name, b.label FROM firms f, brands b WHERE matches(f.name, b.label, 'does the firm make this brand?') ORDER BY f.id, b.id;" --no-cache
check "WHERE form: the same rows" "$(cat "$T/rows")" "$pw_rows"
check "WHERE form: rewritten too" "$(num "llm calls")" 11
q "SELECT f.id, b.label FROM firms f LEFT JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') WHERE b.label IS NULL ORDER BY f.id;" --no-cache
check "LEFT JOIN: firms without a match keep their row" "$(cat "$T/rows")" "12,;13,"
q "$J" --no-cache --set batch=8 --set join_factor=off   # 44 calls: a factor attempt would pay
check "batch 8: four calls per left value" "$(num "llm calls")" 44
check "batch 8: the same rows" "$(cat "$T/rows")" "$pw_rows"

# --- verdicts by a hash of the pair (about 40% match): many matches, no shared words
start hash "$T/none.json" --yes-rate 0.4
q "$J" --no-cache --set optimize=off
hpw=$(cat "$T/rows")
q "$J" --no-cache
check "hash verdicts: the rewrite returns the pairwise rows" "$(cat "$T/rows")" "$hpw"
n=$(tr ';' '\n' <"$T/rows" | wc -l | tr -d ' ')
if [ "$n" -gt 60 ]; then ok "hash verdicts: many pairs match ($n)"; else notok "hash verdicts: many pairs match" "$n"; fi
# under a LIMIT without ORDER BY the join asks left values in waves and stops once the
# LIMIT has its rows: any 4 of the pairwise rows, fewer calls than all 11 left values
q "SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') LIMIT 4;" --no-cache --concurrency 2
lz_calls=$(num "llm calls")
bad=$(tr ';' '\n' <"$T/rows" | while IFS= read -r r; do printf '%s\n' "$hpw" | tr ';' '\n' | grep -qxF -- "$r" || echo "$r"; done)
check "lazy join: 4 rows, each one pairwise judging passes" "$(tr ';' '\n' <"$T/rows" | wc -l | tr -d ' ')/$bad" "4/"
if [ -n "$lz_calls" ] && [ "$lz_calls" -lt 11 ]; then ok "lazy join: fewer calls than every left value ($lz_calls of 11)"; else notok "lazy join: fewer calls than every left value" "$lz_calls" "$(cat "$T/err")"; fi
grep -q "walk: lazy, stops once 4 rows passed (LIMIT)" "$T/err" && grep -q "join 1: .*; stopped after [0-9]* of 11 left values, the LIMIT's rows found" "$T/err" &&
	ok "lazy join: the plan and the counters say so" || notok "lazy join: the plan and the counters say so" "$(grep -A8 'join 1' "$T/err")"
# not with an ORDER BY (the rows must be the first in its order) or an aggregate
q "SELECT f.name, b.label FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') ORDER BY f.id, b.id LIMIT 4;" --no-cache
check "ORDER BY ... LIMIT: every left value asked, the first 4 pairwise rows" "$(num "llm calls")/$(cat "$T/rows")" "11/$(printf '%s\n' "$hpw" | tr ';' '\n' | head -n 4 | paste -sd ';' -)"
q "SELECT count(*) FROM firms f JOIN brands b ON matches(f.name, b.label, 'does the firm make this brand?') LIMIT 1;" --no-cache
check "count(*) ... LIMIT 1: every left value asked, the pairwise count" "$(num "llm calls")/$(cat "$T/rows")" "11/$n"

# --- filters reach the sides, and pairs the structured conditions exclude are never asked
# (a self-join over pairs a.id < b.id: 282 of the 360 pairs of 12 left and 30 right values)
SJ="SELECT a.id, b.id FROM brands a JOIN brands b ON a.id < b.id WHERE a.id <= 12 AND matches(a.label, b.label, 'the same company?') ORDER BY a.id, b.id;"
q "$SJ" --no-cache --set optimize=off
sjpw=$(cat "$T/rows")
before=$(nlog)
q "$SJ" --no-cache
check "self-join: the rewrite returns the pairwise rows" "$(cat "$T/rows")" "$sjpw"
grep -q "left: 12 distinct values: .*a.id <= 12" "$T/err" && grep -q "pairs: 282 of 360 occur in rows" "$T/err" &&
	ok "self-join: the WHERE reaches the left side; the plan says 78 pairs are never asked" ||
	notok "self-join: the WHERE reaches the left side; 78 pairs never asked" "$(grep -A6 'join 1' "$T/err")"
grep -q "join 1: 282 pairs asked in 12 calls.*; 78 excluded by the structured conditions" "$T/err" &&
	ok "self-join: 282 pairs asked, 78 excluded, in the counters" ||
	notok "self-join: 282 pairs asked, 78 excluded" "$(grep 'join 1' "$T/err")"
check "self-join: the server saw one request per left value" "$(( $(nlog) - before ))" 12
# the same with matches() in the ON: its plain conjuncts still exclude the 78 pairs
SJON="SELECT a.id, b.id FROM brands a JOIN brands b ON a.id < b.id AND matches(a.label, b.label, 'the same company?') WHERE a.id <= 12 ORDER BY a.id, b.id;"
q "$SJON" --no-cache
check "self-join, matches() in ON: the pairwise rows" "$(cat "$T/rows")" "$sjpw"
grep -q "join 1: 282 pairs asked in 12 calls.*; 78 excluded by the structured conditions" "$T/err" &&
	ok "self-join, matches() in ON: 282 pairs asked, 78 excluded" ||
	notok "self-join, matches() in ON: 282 pairs asked, 78 excluded" "$(grep 'join 1' "$T/err")"
# a LEFT JOIN's ON with a plain part: the rows pairwise judging gives (no pair listing: a
# WHERE may keep the rows a failed match null-extends)
LJON="SELECT a.id, b.id FROM brands a LEFT JOIN brands b ON a.id < b.id AND b.id <= 20 AND matches(a.label, b.label, 'the same company?') WHERE a.id <= 12 ORDER BY a.id, b.id;"
q "$LJON" --no-cache --set optimize=off
ljpw=$(cat "$T/rows")
q "$LJON" --no-cache
check "LEFT JOIN, matches() in ON: the pairwise rows" "$(cat "$T/rows")" "$ljpw"
# equality carries a filter to the other side: f.id = b.id AND f.id = 3 lists one value each
q "SELECT f.name, b.label FROM firms f JOIN brands b ON f.id = b.id WHERE f.id = 3 AND matches(f.name, b.label, 'the same company?');" --no-cache
grep -q "right: 1 distinct value: .*b.id = 3" "$T/err" && grep -q "left: 1 distinct value" "$T/err" &&
	ok "implied equality: f.id = b.id AND f.id = 3 restricts both sides" ||
	notok "implied equality: f.id = b.id AND f.id = 3 restricts both sides" "$(grep -A3 'join 1' "$T/err")"
# an outer join's ON is no filter of its sides; its WHERE still is
q "SELECT f.id, b.label FROM firms f LEFT JOIN brands b ON b.id < 5 AND matches(f.name, b.label, 'does the firm make this brand?') WHERE f.id <= 3 ORDER BY f.id, b.id;" --no-cache
lj=$(cat "$T/rows")
q "SELECT f.id, b.label FROM firms f LEFT JOIN brands b ON b.id < 5 AND matches(f.name, b.label, 'does the firm make this brand?') WHERE f.id <= 3 ORDER BY f.id, b.id;" --no-cache --set optimize=off
check "LEFT JOIN with filters: the pairwise rows" "$lj" "$(cat "$T/rows")"

# --- the cache: the rewrite's answers are kept per pair, and pairwise finds them
q "$J"
q "$J" --set optimize=off
check "cache: pairwise after the rewrite makes no call" "$(num "llm calls")" 0

# --- unreadable replies: asked again, then split into single pairs
cat >"$T/twice.json" <<'EOF'
[{"match": "### Left value\\n\\\"Hooli\\\"\\n\\n### Candidates", "content": "Maybe.", "times": 2}]
EOF
start twice "$T/twice.json" --pairs "$T/pairs"
q "$J" --no-cache
check "unreadable twice: the same rows, from single pairs" "$(cat "$T/rows")" "$pw_rows"
check "unreadable twice: exit status 0" "$st" 0
grep -q "1 re-ask after an unreadable reply, 30 candidates asked alone" "$T/err" &&
	ok "unreadable twice: one re-ask, then 30 pairs alone" ||
	notok "unreadable twice: one re-ask, then 30 pairs alone" "$(grep requests "$T/err")"
cat >"$T/never.json" <<'EOF'
[{"match": "### Left value\\n\\\"Vandelay", "content": "Maybe."}]
EOF
start never "$T/never.json" --pairs "$T/pairs"
rm -rf "$T/xdg"
q "$J"
check "never readable: exit status 3" "$st" 3
grep -q "could not read the model's reply for 30 candidates" "$T/err" &&
	ok "never readable: a warning names the 30 pairs" || notok "never readable: a warning names the 30 pairs" "$(grep -i warn "$T/err")"
case $(cat "$T/rows") in *Vandelay*) notok "never readable: no row from an unknown pair" ;; *) ok "never readable: no row from an unknown pair" ;; esac
before=$(nlog)
q "$J"
after=$(nlog)
if [ $((after - before)) -ge 32 ]; then ok "never readable: not cached (asked again: $((after - before)) requests)"; else notok "never readable: not cached" "$((after - before)) requests"; fi

# --- not rewritten, and errors
q "SELECT a.name FROM firms a JOIN firms b ON matches(a.name || b.name, 'x', 'same?') LIMIT 1;" --no-cache
grep -q "pair by pair, as SQLite meets each pair" "$T/err" && ok "a side reading two items: pair by pair" ||
	notok "a side reading two items: pair by pair" "$(grep -A2 'join 1' "$T/err")"
q "SELECT 1 FROM firms f JOIN brands b ON matches(f.name, b.label, b.label);"
grep -q "the question of matches() must be a literal text" "$T/err" && [ "$st" -ne 0 ] &&
	ok "a question that is not a literal: an error" || notok "a question that is not a literal: an error" "$(cat "$T/err")"
q "CREATE VIEW v AS SELECT 1 FROM firms f JOIN brands b ON matches(f.name, b.label, 'q?');"
grep -q "cannot be stored" "$T/err" && ok "a view: refused" || notok "a view: refused" "$(cat "$T/err")"
stop
