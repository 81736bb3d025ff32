#!/bin/sh
# The request log (issue 39, item 1; src/llm/llm_log.c): every request to the model and its
# reply, one row each in $XDG_STATE_HOME/suql/log.db, checked against build/llmserver's own
# log of the requests it received:
#
#   1. a free-text statement: `:log -n 1 --json` holds the prompt the server received (its
#      body's messages, equal as JSON), the reply the server's rule gave, the model, the
#      endpoint's origin, HTTP 200 and the tokens the server reported; one row per request
#      the server logged, in order, each with the body's messages;
#   2. the same statement from the cache: no request, a row per candidate marked cached
#      (cache_hit 1), each with the prompt the first run sent for that candidate (batch 1:
#      the same messages) and the answer kept;
#   3. failures: a server that answers HTTP 500 then 200: the error row (status error, HTTP
#      500, the cause) and the retry's row (reason retry);
#   4. the offline backend: its calls logged as offline (no endpoint, no request), the
#      task it was given as the prompt;
#   5. llm.log off writes nothing (no file in a fresh folder; no row more in a used one);
#   6. the cap: llm.log_max keeps the newest rows within it, the oldest dropped, the
#      running total (log_total) equal to the rows' bytes;
#   7. three suql processes writing one log at once: every row of each is there;
#   8. :log's blocks: the reply cut to a readable length and a control sequence in it
#      shown, not sent (no ESC byte); :log clear; :llm test logged as kind test;
#   9. a chat turn's requests logged with their kind (parse, respond) and the turn's line.
# No run of a secret reaches the file: tests/suites/22-secrets-echo.sh checks it.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/log
mkdir -p "$T"
DB=$T/demo.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB" || { notok "demo database"; exit 1; }
export XDG_CACHE_HOME="$T/cache" XDG_STATE_HOME="$T/state"
LOGDB=$T/state/suql/log.db
trap 'stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "skip log: needs the sqlite3 shell and python3"
	exit 0
fi
q() { sqlite3 "$LOGDB" "$1"; }

# --- 1. a statement against the server
cat >"$T/rules.json" <<'EOF'
[{"match": "only twelve seats", "content": "yes"},
 {"match": "is it quiet", "content": "no"}]
EOF
start_server one --rules "$T/rules.json"
SQL="SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' AND id <= 4 ORDER BY id;"
"$prog" --csv --no-headers --no-cache --set batch=1 --concurrency 1 --llm-url "$URL" \
	--model m "$DB" -c "$SQL" -c ':log -n 1 --json' >"$T/one.out" 2>"$T/one.err"
st=$?
sent=$(wc -l <"$LOG" | tr -d ' ')
python3 - "$T/one.out" "$LOG" "$URL" >"$T/one.check" 2>&1 <<'EOF'
import json, sys
out, log, url = sys.argv[1:]
entry = json.loads(open(out).read().strip().splitlines()[-1])
reqs = [json.loads(l) for l in open(log)]
last = json.loads(reqs[-1]["body"])
problems = []
def want(what, got, exp):
    if got != exp:
        problems.append("%s: %r, not %r" % (what, got, exp))
want("prompt", entry["prompt"], last["messages"])
want("reply", entry["reply"], "no")
want("kind", entry["kind"], "verify")
want("model", entry["model"], "m")
want("endpoint", entry["endpoint"], url)
want("http", entry["http"], 200)
want("status", entry["status"], "ok")
want("cache_hit", entry["cache_hit"], 0)
want("items", entry["items"], 1)
# the server reports the request's bytes / 4 + 1 as its prompt tokens
want("tokens_in", entry["tokens_in"], len(reqs[-1]["body"].encode()) // 4 + 1)
want("sql", entry["sql"], "SELECT id FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' AND id <= 4 ORDER BY id;")
print("; ".join(problems) if problems else "ok")
EOF
check "one statement: :log -n 1 --json holds the prompt the server received and its reply" \
	"$st $(cat "$T/one.check")" "0 ok"
# every request the server logged is a row, in order, with its body's messages
python3 - "$LOGDB" "$LOG" >"$T/all.check" 2>&1 <<'EOF'
import json, sqlite3, sys
db, log = sys.argv[1:]
rows = sqlite3.connect(db).execute(
    "SELECT prompt, reply, reason FROM log WHERE backend = 'http' ORDER BY id").fetchall()
reqs = [json.loads(json.loads(l)["body"])["messages"] for l in open(log)]
got = [json.loads(r[0]) for r in rows]
print("ok" if got == reqs and all(r[2] == "first" for r in rows) else
      "%d rows, %d requests; equal: %s" % (len(rows), len(reqs), got == reqs))
EOF
check "one statement: each of its $sent requests is a row, in order, with the messages sent" \
	"$(cat "$T/all.check")" "ok"
check "one statement: a row per candidate, each reply the server's" \
	"$(q "SELECT group_concat(reply, ',') FROM (SELECT reply FROM log WHERE statement = 1 ORDER BY reply)")" \
	"no,no,no,yes"

# --- 2. the cache answers: no request, a row per candidate, marked
rm -rf "$T/cache"
"$prog" --csv --no-headers --set batch=1 --concurrency 1 --llm-url "$URL" --model m "$DB" \
	-c "$SQL" >/dev/null 2>&1
before=$(wc -l <"$LOG" | tr -d ' ')
n0=$(q "SELECT max(id) FROM log")
"$prog" --csv --no-headers --set batch=1 --concurrency 1 --llm-url "$URL" --model m "$DB" \
	-c "$SQL" >"$T/cached.rows" 2>&1
after=$(wc -l <"$LOG" | tr -d ' ')
check "cache: the second run sends nothing" "$((after - before))" 0
check "cache: a row per candidate, status cached, cache_hit 1, no reason, no tokens" \
	"$(q "SELECT count(*), group_concat(DISTINCT status), sum(cache_hit), count(reason), sum(tokens_in) FROM log WHERE id > $n0")" \
	"4|cached|4|0|0"
check "cache: each cached row's prompt is the one its candidate was first sent with" \
	"$(q "SELECT count(*) FROM log c JOIN log f ON f.prompt = c.prompt AND f.cache_hit = 0 AND f.id <= $n0 AND f.id > $n0 - 4 WHERE c.id > $n0")" 4
check "cache: each cached row's reply is the answer kept" \
	"$(q "SELECT count(*) FROM log WHERE id > $n0 AND json_extract(reply, '\$.text') IN ('yes', 'no')")" 4
stop_server

# --- 3. a failure, then the retry
echo '[{"status": 500, "times": 1}, {"content": "yes"}]' >"$T/fail.json"
start_server fail --rules "$T/fail.json"
n0=$(q "SELECT max(id) FROM log")
"$prog" --csv --no-headers --no-cache --set llm.backoff=0 --llm-url "$URL" --model m "$DB" \
	-c "SELECT answer('A quiet room.', 'is it quiet?') AS a;" >/dev/null 2>&1
check "failure: the HTTP 500 is a row (status error, the cause), the retry another" \
	"$(q "SELECT group_concat(status || ' ' || coalesce(http, '-') || ' ' || reason || ' ' || coalesce(error, '-'), ' | ') FROM (SELECT * FROM log WHERE id > $n0 ORDER BY id)")" \
	"error 500 first HTTP 500: asked again | ok 200 retry -"
stop_server

# --- 4. the offline backend
n0=$(q "SELECT max(id) FROM log")
"$prog" --offline --no-cache "$DB" -c "SELECT answer(reviews, 'is there a patio?') FROM restaurants WHERE id = 3;" >/dev/null 2>&1
check "offline: logged as offline, no endpoint, no request, the task as its prompt" \
	"$(q "SELECT backend, model, endpoint IS NULL, reason IS NULL, status, json_extract(prompt, '\$.question'), json_array_length(prompt, '\$.texts') FROM log WHERE id > $n0")" \
	"offline|offline-lexical-2|1|1|ok|is there a patio?|1"

# --- 5. llm.log off
XDG_STATE_HOME=$T/off "$prog" --offline --no-cache --set llm.log=off "$DB" \
	-c "SELECT answer(reviews, 'is there a patio?') FROM restaurants WHERE id = 3;" >/dev/null 2>&1
[ ! -e "$T/off/suql/log.db" ] && ok "llm.log off: no file is made" ||
	notok "llm.log off: no file is made" "$(ls -la "$T/off/suql")"
n0=$(q "SELECT count(*) FROM log")
"$prog" --offline --no-cache "$DB" -c ':set llm.log off' \
	-c "SELECT answer(reviews, 'is there a patio?') FROM restaurants WHERE id = 4;" >/dev/null 2>&1
check "llm.log off: no row more in a log in use" "$(q "SELECT count(*) FROM log")" "$n0"

# --- 6. the cap: 0.02 MB (20971 bytes); 40 offline rows of one review each, about 1.5 KB each
CAP=$T/capstate
i=0
while [ $i -lt 8 ]; do
	XDG_STATE_HOME=$CAP "$prog" --offline --no-cache --set batch=1 --set llm.log_max=0.02 "$DB" \
		-c "SELECT answer(reviews, 'is there a patio?') FROM restaurants WHERE id BETWEEN $((i * 5 + 1)) AND $((i * 5 + 5));" >/dev/null 2>&1
	i=$((i + 1))
done
cq() { sqlite3 "$CAP/suql/log.db" "$1"; }
r=$(cq "SELECT count(*), min(id), max(id), sum(bytes) <= 20971, (SELECT bytes FROM log_total) = sum(bytes) FROM log")
n=${r%%|*}
case $r in
*"|40|1|1") [ "$n" -lt 40 ] && [ "$n" -gt 2 ] && ok "cap: the newest $n of 40 rows kept within 0.02 MB, the oldest dropped" ||
	notok "cap: the newest rows kept" "$r" ;;
*) notok "cap: the newest rows kept within llm.log_max (count|min|max|within|total agrees)" "$r" ;;
esac
check "cap: the rows kept are the newest, in a row" "$(cq "SELECT max(id) - min(id) + 1 = count(*) FROM log")" 1
# rows deleted with plain SQL are counted out of the total too
cq "DELETE FROM log WHERE id = (SELECT min(id) FROM log)"
check "cap: log_total follows rows deleted with plain SQL" \
	"$(cq "SELECT (SELECT bytes FROM log_total) = sum(bytes) FROM log")" 1

# --- 7. three processes at once, one log: each 4 statements of 28 candidates in calls of
# 4, so 7 rows a statement, written as each statement ends
BOTH=$T/both
mkdir -p "$BOTH"
job() {
	XDG_STATE_HOME=$BOTH "$prog" --offline --no-cache --set batch=4 "$DB" \
		-c "SELECT answer(reviews, 'is there a $1?') FROM restaurants WHERE id <= 28;" \
		-c "SELECT answer(reviews, 'is there a $1?') FROM restaurants WHERE id BETWEEN 29 AND 56;" \
		-c "SELECT answer(reviews, 'is there a $1?') FROM restaurants WHERE id BETWEEN 57 AND 84;" \
		-c "SELECT answer(reviews, 'is there a $1?') FROM restaurants WHERE id > 84;" >/dev/null 2>&1
}
job patio & P1=$!
job garden & P2=$!
job terrace & P3=$!
wait $P1; s1=$?
wait $P2; s2=$?
wait $P3; s3=$?
bq() { sqlite3 "$BOTH/suql/log.db" "$1"; }
check "three processes: all ran" "$s1 $s2 $s3" "0 0 0"
check "three processes: every row of each is in the log (3 sessions, 12 statements, 84 rows, 336 candidates)" \
	"$(bq "SELECT count(DISTINCT session), count(DISTINCT session || ' ' || statement), count(*), sum(items) FROM log")" "3|12|84|336"
check "three processes: the file is sound" "$(bq "PRAGMA integrity_check")" ok
check "three processes: WAL" "$(bq "PRAGMA journal_mode")" wal

# --- 8. :log's blocks, :log clear, :llm test
printf '[{"match": "is it loud", "content": "\\u001b]0;owned\\u0007%s"}]\n' \
	"$(printf 'very loud %.0s' $(seq 60))" >"$T/esc.json"
start_server esc --rules "$T/esc.json"
"$prog" --no-cache --llm-url "$URL" --model m "$DB" \
	-c "SELECT answer('A loud room.', 'is it loud?') AS a;" -c ':log -n 1' >"$T/esc.out" 2>&1
if grep -F -q '  reply:    ^[]0;owned^Gvery loud very loud' "$T/esc.out" &&
	grep -q '^  reply:    .* ([0-9]* characters more)$' "$T/esc.out" &&
	! grep -q "$(printf '\033')" "$T/esc.out" && grep -q '^  prompt:   system: ' "$T/esc.out" &&
	grep -q '^  request:  first (HTTP 200 in [0-9]* ms), 1 candidate$' "$T/esc.out"; then
	ok ":log: the reply cut and its control sequence shown, not sent"
else
	notok ":log: the reply cut and its control sequence shown" "$(cat -v "$T/esc.out" | tail -12)"
fi
"$prog" --llm-url "$URL" --model m "$DB" -c ':llm test' -c ':log -n 4 --json' >"$T/test.out" 2>&1
check ":llm test: its 4 requests logged as kind test" \
	"$(grep -c '"kind":"test","backend":"http".*"sql":":llm test"' "$T/test.out")" 4
stop_server
total=$(q "SELECT count(*) FROM log")
"$prog" "$DB" -c ':log clear' -c ':log' >"$T/clear.out" 2>&1
check ":log clear: every entry gone" "$(cat "$T/clear.out") $(q "SELECT count(*) FROM log")" \
	"request log cleared ($total entries)
the request log is empty ($LOGDB) 0"

# --- 9. a chat turn
cat >"$T/chat.json" <<'EOF'
[{"match": "Task: write one SUQL", "content": "{\"database\": true, \"suql\": \"SELECT count(*) FROM restaurants\"}"},
 {"match": "Task: answer the user", "content": "There are 112."}]
EOF
start_server chat --rules "$T/chat.json"
echo 'how many restaurants?' | "$prog" --chat --llm-url "$URL" --model m "$DB" >/dev/null 2>&1
check "chat: the turn's requests, kind and line" \
	"$(q "SELECT group_concat(kind || ' ' || chat || ' ' || (sql IS NULL), ', ') FROM (SELECT * FROM log ORDER BY id)")" \
	"parse how many restaurants? 1, respond how many restaurants? 1"
stop_server
[ "$fails" -eq 0 ]
