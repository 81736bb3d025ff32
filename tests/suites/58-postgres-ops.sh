#!/bin/sh
# What the PostgreSQL backend used to refuse, run on both backends: each statement runs on
# a SQLite database and on the same rows in a PostgreSQL server of the suite's own
# (tests/pg.sh), against build/llmserver, and must give the same rows (for a data change:
# the same table afterwards) and the same number of requests at the server (counted,
# never timed).
#   - a semantic top-k (ORDER BY free text with LIMIT): candidates ranked by BM25, scored
#     in waves, the walk stopping once k have the best value;
#   - a cascade (llm.cascade_target): a sample judged by the main model, a learned proxy
#     deciding the rest outside its thresholds;
# Skipped, saying why, when no server can be started.
set -u
. "$(dirname "$0")/../lib.sh"
. tests/pg.sh
T=$SUQL_TMP/pgops
mkdir -p "$T"
if ! pg_start; then
	echo "skip postgres ops: $PG_SKIP"
	echo "skipped: $PG_SKIP" >&2
	exit 0
fi
OK_PREFIX="pg ops: "
trap 'stop_server; pg_stop; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
lines() { if [ -f "$LOG" ]; then wc -l <"$LOG" | tr -d ' '; else echo 0; fi; }

# run DB SQL [options...]: rows as CSV in $T/rows, -v output in $T/err, exit status in
# $st, requests the server received in $req
run() {
	db=$1 sql=$2
	shift 2
	before=$(lines)
	"$prog" -v --set times=off --csv --no-headers --no-cache --llm-url "$URL" --model m \
		"$@" "$db" -c "$sql" >"$T/rows" 2>"$T/err"
	st=$?
	req=$(($(lines) - before))
}
# both NAME DB SQL [options...]: on DB and on PostgreSQL, the same rows, status, requests
# and error or warning lines; WANT_ROWS / WANT_REQ, when set, are checked too; with TIES=1
# the rows are compared sorted (rows that tie in ORDER BY come in either database's order)
both() {
	name=$1 db=$2 sql=$3
	shift 3
	run "$db" "$sql" "$@"
	[ -n "${TIES:-}" ] && sort -o "$T/rows" "$T/rows"
	cp "$T/rows" "$T/r_s"; cp "$T/err" "$T/err_s"; st_s=$st; req_s=$req
	grep -E '^(error|warning)' "$T/err" >"$T/e_s"
	run "$SUQL_PG" "$sql" "$@"
	[ -n "${TIES:-}" ] && sort -o "$T/rows" "$T/rows"
	grep -E '^(error|warning)' "$T/err" >"$T/e_p"
	rows=$(paste -sd ';' - <"$T/rows")
	if ! cmp -s "$T/r_s" "$T/rows" || [ "$st_s" != "$st" ] || [ "$req_s" != "$req" ] ||
	   ! cmp -s "$T/e_s" "$T/e_p"; then
		notok "$name" "status $st_s / $st, requests $req_s / $req" \
			"$(diff "$T/r_s" "$T/rows" | head -6)" "$(diff "$T/e_s" "$T/e_p" | head -4)" \
			"$(grep -m3 -E '^(error|warning)' "$T/err")"
	elif [ -n "${WANT_ROWS:-}" ] && [ "$rows" != "$WANT_ROWS" ]; then
		notok "$name: the rows" "got:  $rows" "want: $WANT_ROWS"
	elif [ -n "${WANT_REQ:-}" ] && [ "$req" != "$WANT_REQ" ]; then
		notok "$name: the requests" "got:  $req" "want: $WANT_REQ"
	else
		ok "$name: same rows, $req request(s) on both"
	fi
	WANT_ROWS="" WANT_REQ="" TIES=""
}

# ---- a semantic top-k: 60 reviews (suite 54-choice-topk's); three speak of romance and
# are scored 5, one 4, one 1, the rest 2
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
if ! pg_load_demo "$top"; then
	notok "the databases load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
start_server top --rules "$T/top.json"
R="answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int"
TIES=1 WANT_ROWS="Place 17,5;Place 38,5;Place 52,5" WANT_REQ=3 \
	both "top-k: one request at a time, the three ranked first are the 5s" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 3;" --set batch=1 --concurrency 1
grep -q 'semantic top-k: 3 of 60 candidates scored in 3 waves (stopped: the top k had the best value)' "$T/err" &&
	ok "top-k: the counters say so on PostgreSQL" || notok "top-k: the counters say so on PostgreSQL" "$(cat "$T/err")"
TIES=1 WANT_REQ=8 both "top-k: 8 in flight" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 3;" --set batch=1
TIES=1 WANT_REQ=60 both "top-k: LIMIT 4, the best value too rare: every candidate scored" "$top" \
	"SELECT name, $R AS romance FROM r ORDER BY romance DESC LIMIT 4;" --set batch=1
WANT_ROWS="Place 9" both "top-k: ASC NULLS LAST finds the lowest" "$top" \
	"SELECT name FROM r ORDER BY $R ASC NULLS LAST LIMIT 1;" --set batch=1
both "top-k: a structured filter first" "$top" \
	"SELECT name FROM r WHERE id > 20 ORDER BY $R DESC LIMIT 2;" --set batch=1 --concurrency 1
TIES=1 both "top-k: batched, 4 to a request" "$top" \
	"SELECT id FROM r ORDER BY $R DESC LIMIT 3;" --set batch=4 --concurrency 1
stop_server

# ---- a cascade (llm.cascade_target): 600 generated restaurants, a main model whose
# verdicts follow the words; the sample (a shuffle of the candidates, in the order SQLite
# lists them: the integer primary key's), the proxy's thresholds and the candidates left
# to the main model are the same on both, so are the requests
gdb=$T/gen.db
"$SUQL_BUILD/gen" -n 600 --db "$gdb" --quiet >/dev/null 2>"$T/gen.err" || notok "gen" "$(cat "$T/gen.err")"
if ! pg_load_demo "$gdb"; then
	notok "the generated restaurants load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
start_server cascade --yes-words kid,child,famil
CQ="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;"
both "cascade: a learned proxy in front of the main model" "$gdb" "$CQ" \
	--set budget=0 --set llm.cascade_target=0.95 --set llm.cascade_sample=100
judges() { grep -o 'judges: learned proxy [0-9]* .*main model [0-9]*' "$1"; }
j_s=$(judges "$T/err_s") j_p=$(judges "$T/err")
if [ -n "$j_p" ] && [ "$j_s" = "$j_p" ]; then ok "cascade: ... the same split between the judges ($j_p)"
else notok "cascade: ... the same split between the judges" "SQLite: $j_s" "PostgreSQL: $j_p"; fi
grep -q "cascade, conjunct 1: a learned proxy in front of the main model" "$T/err" &&
	ok "cascade: the plan names the cascade on PostgreSQL" || notok "cascade: the plan names the cascade on PostgreSQL" "$(head -20 "$T/err")"
both "cascade: a structured filter and a sample of 50" "$gdb" \
	"SELECT id FROM restaurants WHERE rating >= 3 AND answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;" \
	--set budget=0 --set llm.cascade_target=0.9 --set llm.cascade_sample=50
j_s=$(judges "$T/err_s") j_p=$(judges "$T/err")
if [ -n "$j_p" ] && [ "$j_s" = "$j_p" ]; then ok "cascade: ... the same split between the judges ($j_p)"
else notok "cascade: ... the same split between the judges" "SQLite: $j_s" "PostgreSQL: $j_p"; fi
stop_server
