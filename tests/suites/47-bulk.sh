#!/bin/sh
# Bulk mode (llm.bulk, :bulk; doc/bulk.md) against build/llmserver's batch interface: a
# statement is submitted as a batch and shows no rows; each line of the batch is a
# request the statement sends without bulk mode (the same batched prompt, as many lines as
# requests); :bulk status shows it in progress, then completed; :bulk resume, in another
# suql process, gives the rows a run without bulk mode gives, and the cache then answers
# the statement with no request. The cost: the same tokens as the interactive run, at half
# its price (at most 0.55 of it, at gpt-4o-mini's built-in price, for two statements);
# EXPLAIN shows batch prices and the lines, no concurrency; budget counts the lines. The
# output is checked: an answer that cannot be read for one candidate is asked again (in a
# second batch) and never a value; an id that comes twice is used for nothing (asked
# again); ids never sent are dropped, not counted, not priced; a file of garbage is an
# error that keeps nothing. An endpoint without /batches is a clear error and nothing is
# lost; the offline backend and LIMIT run as usual and say why; a cancelled batch resumes
# to an error. The request log names the batch in the rows of the requests it carried and
# of the answers it gave. (47-bulk-once.sh: claims, and a write that commits once.)
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/bulk
mkdir -p "$T"
export XDG_STATE_HOME=$T/state
has() { name=$1 file=$2 text=$3; if grep -qF -- "$text" "$file"; then ok "$name"; else notok "$name" "no '$text' in:" "$(cat "$file")"; fi; }
hasnt() { name=$1 file=$2 text=$3; if grep -qF -- "$text" "$file"; then notok "$name" "'$text' in:" "$(cat "$file")"; else ok "$name"; fi; }

trap 'stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
batched() { curl -s "${URL%/v1}/batchstats" | sed 's/.*"batched": *\([0-9]*\).*/\1/'; }
chat_requests() { grep -c '"path":"/v1/chat/completions"' "$LOG" 2>/dev/null || true; }
uploads() { grep -c '"path":"/v1/files"' "$LOG" 2>/dev/null || true; }

DB=$T/d.db
# a demo database of the suite's own (build/demo.db is the user's)
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB"
Q="SELECT name FROM restaurants WHERE rating >= 4.5 AND answer(reviews, 'is it romantic?') = 'Yes' ORDER BY name;"
NCAND=$("$prog" -c "SELECT count(*) FROM restaurants WHERE rating >= 4.5 AND reviews IS NOT NULL" --csv --no-header "$DB" 2>/dev/null)
run() {   # run NAME CACHEDIR [options...] (stdin: the script): NAME.out, NAME.err, NAME.rc
	n=$1 c=$2; shift 2
	XDG_CACHE_HOME=$c SUQL_LLM_URL=$URL SUQL_MODEL=${MODEL:-m1} "$prog" "$@" "$DB" >"$T/$n.out" 2>"$T/$n.err"
	echo $? >"$T/$n.rc"
}

# --- the reference: the same statement without bulk mode, on the same server, with a
# small batch so that it takes several requests
start_server main --batch-polls 2
echo "$Q" | run ref "$T/ref" --set batch=4
NREQ=$(chat_requests)
if [ -s "$T/ref.out" ] && [ "$(cat "$T/ref.rc")" = 0 ] && [ "$NREQ" -gt 1 ]; then ok "reference run has rows ($NREQ requests)"; else notok "reference run has rows" "$(cat "$T/ref.err")"; fi

# --- submit: no rows, a batch of the reference's requests
C=$T/bulk
before=$(chat_requests)
echo "$Q" | run sub "$C" --set llm.bulk=on --set batch=4
if [ ! -s "$T/sub.out" ]; then ok "submit: no rows"; else notok "submit: no rows" "$(cat "$T/sub.out")"; fi
has "submit: a line a request of the interactive run" "$T/sub.err" "submitted batch 1 (batch_1): $NREQ requests"
has "submit: exit status 0" "$T/sub.rc" "0"
if [ "$(chat_requests)" = "$before" ]; then ok "submit: no model request outside the batch"; else notok "submit: no model request outside the batch"; fi

# --- status: in progress, then completed (each suql is a new process)
echo ":bulk status" | run st1 "$C"
has "status: in progress" "$T/st1.out" "batch 1 (batch_1): in_progress"
echo ":bulk status" | run st2 "$C"
has "status: completed" "$T/st2.out" "batch 1 (batch_1): completed, $NREQ of $NREQ requests done ($NCAND answers asked)"
has "status: names the statement" "$T/st2.out" "statement: $Q"

# --- resume in another process: the reference's rows, one batched request a line
echo ":bulk resume" | run res "$C" --set llm.price_in=1 --set llm.price_out=2
if cmp -s "$T/ref.out" "$T/res.out"; then ok "resume: the rows of a run without bulk mode"; else notok "resume: the rows of a run without bulk mode" "$(diff "$T/ref.out" "$T/res.out")" "$(cat "$T/res.err")"; fi
has "resume: a reply a line fetched" "$T/res.err" "batch 1: $NREQ replies fetched"
has "resume: every candidate's answer read" "$T/res.err" "batch 1: $NCAND answers read from its replies"
has "resume: cost at batch prices" "$T/res.err" "at batch prices (half of \$"
# the request log: the requests collected for the batch, named by its id once it was made,
# and the answers its replies gave, with their tokens (no request of their own)
if command -v sqlite3 >/dev/null 2>&1; then
	check "log: the requests collected, then answered by the batch, each named by it" \
		"$(sqlite3 "$XDG_STATE_HOME/suql/log.db" "SELECT status, count(*), group_concat(DISTINCT bulk), count(reason), min(tokens_in) > 0 FROM log WHERE status IN ('collected', 'batch') GROUP BY status ORDER BY status")" \
		"batch|$NCAND|batch_1|0|1
collected|$NREQ|batch_1|0|0"
fi
b=$(batched)
if [ "$b" = "$NREQ" ]; then ok "server: one batched request a line ($NREQ)"; else notok "server: one batched request a line ($NREQ)" "batched: $b"; fi
after=$(chat_requests)
if [ "$before" = "$after" ]; then ok "resume: no model request outside the batch"; else notok "resume: no model request outside the batch" "$before -> $after"; fi
echo "$Q" | run again "$C"
if cmp -s "$T/ref.out" "$T/again.out" && [ "$(chat_requests)" = "$after" ]; then ok "cache: filled by the batch"; else notok "cache: filled by the batch" "$(cat "$T/again.err")"; fi
echo ":bulk resume" | run res2 "$C"
has "resume twice: says it was" "$T/res2.err" "was resumed already"
echo ":bulk list" | run list "$C"
has "list: the batch" "$T/list.out" "1  batch batch_1  resumed  $NREQ requests ($NCAND answers)"

# --- a cache file whose batch tables were made before (no owner, token or units): its
# tables get the new columns, and its jobs are listed
if command -v sqlite3 >/dev/null 2>&1; then
	mkdir -p "$T/old/suql"
	sqlite3 "$T/old/suql/cache.db" "CREATE TABLE llm_bulk(seq INTEGER PRIMARY KEY, batch TEXT NOT NULL, statement TEXT NOT NULL, database TEXT NOT NULL, status TEXT NOT NULL, output_file TEXT, error TEXT, created INTEGER NOT NULL, polled INTEGER NOT NULL DEFAULT 0, requests INTEGER NOT NULL, completed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, previous INTEGER NOT NULL DEFAULT 0); CREATE TABLE llm_bulk_reply(seq INTEGER NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY(seq, key)) WITHOUT ROWID; INSERT INTO llm_bulk(batch, statement, database, status, created, requests) VALUES ('batch_old', 'SELECT 1', 'x.db', 'resumed', 0, 15);"
	echo ":bulk list" | run old "$T/old"
	has "older cache file: its jobs listed" "$T/old.out" "1  batch batch_old  resumed  15 requests"
	check "older cache file: its table brought up to date" "$(sqlite3 "$T/old/suql/cache.db" "SELECT count(*) FROM pragma_table_info('llm_bulk') WHERE name IN ('owner', 'claimed', 'token', 'units', 'endpoint', 'model')")" "6"
fi

# --- LIMIT and the offline backend: as usual, with the reason
echo "SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' ORDER BY name LIMIT 2;" | run lim "$C" --set llm.bulk=on
has "LIMIT: bulk not used, and why" "$T/lim.err" "bulk not used: the statement has LIMIT"
if [ "$(grep -c . "$T/lim.out")" -gt 0 ]; then ok "LIMIT: rows as usual"; else notok "LIMIT: rows as usual" "$(cat "$T/lim.err")"; fi
echo "$Q" | "$prog" --offline --set llm.bulk=on "$DB" >"$T/off.out" 2>"$T/off.err"
has "offline: bulk not used, and why" "$T/off.err" "bulk not used: bulk mode needs an endpoint"
if [ -s "$T/off.out" ]; then ok "offline: rows as usual"; else notok "offline: rows as usual" "$(cat "$T/off.err")"; fi
echo "$Q" | run nocache "$C" --no-cache --set llm.bulk=on
has "no cache: bulk not used, and why" "$T/nocache.err" "bulk mode needs the cache"

# --- cancel
C3=$T/cancel
echo "$Q" | run csub "$C3" --set llm.bulk=on
echo ":bulk cancel" | run can "$C3"
has "cancel: cancelled" "$T/can.out" "cancelled"
echo ":bulk resume" | run cres "$C3"
has "cancel: resume says the batch ended without replies" "$T/cres.err" "ended cancelled without replies"

# --- budget counts the lines: over it, refused before anything is uploaded; within it,
# submitted
up=$(uploads)
echo "$Q" | run bud "$T/bud" --set llm.bulk=on --set batch=4 --set budget=$((NREQ - 1))
has "budget: a batch over it refused" "$T/bud.err" "more than the budget of $((NREQ - 1))"
if [ "$(uploads)" = "$up" ]; then ok "budget: nothing uploaded"; else notok "budget: nothing uploaded" "$(cat "$T/bud.err")"; fi
if [ "$(cat "$T/bud.rc")" != 0 ]; then ok "budget: exit status not 0"; else notok "budget: exit status not 0"; fi
echo "$Q" | run bud2 "$T/bud2" --set llm.bulk=on --set batch=4 --set budget=$((NREQ + 4))
has "budget: a batch within it submitted" "$T/bud2.err" "requests; :bulk status"
# --- a job remembers its endpoint: :bulk status, resume and cancel at another endpoint (or
# for another model) refuse, name both and say how to switch back, and ask that endpoint
# nothing; :bulk list shows each job's endpoint; at its own endpoint the job resumes; a job
# kept before jobs recorded their endpoint is asked of the current one, with a note
stop_server
start_server epa --batch-polls 2
URL_A=$URL PID_A=$SPID LOG_A=$LOG
start_server epb --batch-polls 2
URL_B=$URL LOG_B=$LOG
CE=$T/endpoint
echo "$Q" | URL=$URL_A run esub "$CE" --set llm.bulk=on --set batch=4
has "endpoint: submitted at A" "$T/esub.err" "submitted batch 1 (batch_1): $NREQ requests"
for verb in status resume cancel; do
	echo ":bulk $verb" | URL=$URL_B run "eb_$verb" "$CE"
	has "endpoint: :bulk $verb at another endpoint refused, naming both" "$T/eb_$verb.err" "batch 1 was submitted to m1 at $URL_A, and the endpoint now is m1 at $URL_B, which never issued it"
	has "endpoint: :bulk $verb says how to switch back" "$T/eb_$verb.err" "switch back with :set llm.url $URL_A, then :bulk $verb 1"
	if [ "$(cat "$T/eb_$verb.rc")" != 0 ]; then ok "endpoint: :bulk $verb refused: exit status not 0"; else notok "endpoint: :bulk $verb refused: exit status not 0"; fi
done
if grep -q '"path":"/v1/batches' "$LOG_B"; then notok "endpoint: nothing asked of the other endpoint" "$(grep batches "$LOG_B")"; else ok "endpoint: nothing asked of the other endpoint"; fi
echo ":bulk status" | URL=$URL_A MODEL=m2 run em "$CE"
has "endpoint: another model refused, with how to switch back" "$T/em.err" "batch 1 was submitted for m1 at $URL_A, and the model now is m2: nothing was asked; switch back with :set llm.model m1, then :bulk status 1"
echo ":bulk list" | URL=$URL_B run elist "$CE"
has "endpoint: :bulk list shows the job's endpoint" "$T/elist.out" "1  batch batch_1  in_progress  $NREQ requests ($NCAND answers)  m1 at $URL_A"
echo ":bulk status" | URL=$URL_A run est "$CE"
echo ":bulk resume" | URL=$URL_A run eres "$CE"
if cmp -s "$T/ref.out" "$T/eres.out"; then ok "endpoint: at its own endpoint the job resumes"; else notok "endpoint: at its own endpoint the job resumes" "$(cat "$T/eres.err")"; fi
# a job kept before jobs recorded their endpoint (the columns as an older file has them)
if command -v sqlite3 >/dev/null 2>&1; then
	echo "SELECT name FROM restaurants WHERE rating >= 4.5 AND answer(reviews, 'is it loud?') = 'Yes';" | URL=$URL_A run esub2 "$CE" --set llm.bulk=on
	sqlite3 "$CE/suql/cache.db" "UPDATE llm_bulk SET endpoint = NULL, model = NULL WHERE seq = 2"
	echo ":bulk status 2" | URL=$URL_A run eold "$CE"
	has "endpoint: an older job is used as before, with a note" "$T/eold.err" "note: batch 2 was kept before jobs recorded their endpoint: it is asked of the current one (m1 at $URL_A)"
	has "endpoint: an older job's status read from the current endpoint" "$T/eold.out" "batch 2 (batch_2): in_progress"
	echo ":bulk list" | URL=$URL_A run eold2 "$CE"
	has "endpoint: :bulk list lists an older job" "$T/eold2.out" "2  batch batch_2  in_progress  1 request"
	has "endpoint: :bulk list says an older job's endpoint is not recorded" "$T/eold2.out" "(endpoint not recorded)"
fi
stop_server
kill "$PID_A" 2>/dev/null && wait "$PID_A" 2>/dev/null

# --- the cost: bulk against interactive at gpt-4o-mini's built-in price, for the count
# over the 112 rows and a projection; the batch's tokens are the interactive run's
start_server cost --batch-polls 0
cost_case() {   # cost_case NAME SQL
	cn=$1 cq=$2
	echo "$cq" | MODEL=gpt-4o-mini run "$cn.i" "$T/$cn.ci" -v
	echo "$cq" | MODEL=gpt-4o-mini run "$cn.s" "$T/$cn.cb" --set llm.bulk=on
	echo ":bulk resume" | MODEL=gpt-4o-mini run "$cn.r" "$T/$cn.cb"
	ti=$(sed -n 's/^  tokens: \([0-9]*\) in, \([0-9]*\) out.*/\1 \2/p' "$T/$cn.i.err")
	tb=$(sed -n 's/.*at batch prices (half of .*; \([0-9]*\) tokens in, \([0-9]*\) out)$/\1 \2/p' "$T/$cn.r.err")
	check "cost $cn: the batch carries the interactive run's tokens" "$tb" "$ti"
	# dollars a million tokens: 0.15 in, 0.6 out; the batch at half
	r=$(echo "$ti $tb" | awk '{i = $1 * 0.15 + $2 * 0.6; b = 0.5 * ($3 * 0.15 + $4 * 0.6); if (i > 0) printf "%.3f", b / i}')
	if [ -n "$r" ] && awk "BEGIN { exit !($r <= 0.55) }"; then ok "cost $cn: bulk is $r of interactive (at most 0.55)"; else notok "cost $cn: bulk at most 0.55 of interactive" "ratio: $r" "$(cat "$T/$cn.r.err")"; fi
	ci=$(sed -n 's/^  cost: \$\([0-9.]*\) at gpt-4o-mini.*/\1/p' "$T/$cn.i.err")
	cb=$(sed -n 's/^cost: \$\([0-9.]*\) at batch prices.*/\1/p' "$T/$cn.r.err")
	if [ -n "$ci" ] && [ -n "$cb" ] && awk "BEGIN { exit !($cb <= 0.55 * $ci) }"; then ok "cost $cn: the stated dollars agree (\$$cb against \$$ci)"; else notok "cost $cn: the stated dollars agree" "interactive: $ci" "bulk: $cb"; fi
}
cost_case count "SELECT count(*) FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes';"
cost_case dish "SELECT name, answer(reviews, 'what is the signature dish?') FROM restaurants WHERE rating >= 4;"

# --- EXPLAIN in bulk mode: batch prices, the lines, no concurrency
X="EXPLAIN SELECT count(*) FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes';"
echo "$X" | MODEL=gpt-4o-mini run xn "$T/x"
echo "$X" | MODEL=gpt-4o-mini run xb "$T/x" --set llm.bulk=on
has "EXPLAIN without bulk: a concurrency" "$T/xn.out" "concurrency 8"
hasnt "EXPLAIN in bulk: no concurrency" "$T/xb.out" "concurrency"
has "EXPLAIN in bulk: each call a line" "$T/xb.out" "bulk (each call a line of a batch)"
calls=$(sed -n 's/^  worst case: \([0-9]*\) LLM calls.*/\1/p' "$T/xb.out")
has "EXPLAIN in bulk: the number of lines" "$T/xb.out" "bulk: at most $calls requests, each a line of a batch"
has "EXPLAIN in bulk: batch prices" "$T/xb.out" "at batch prices (0.5 of those: llm.bulk_discount)"
dn=$(sed -n 's/^  cost.*at most \$\([0-9.]*\) at gpt-4o-mini.*/\1/p' "$T/xn.out")
db=$(sed -n 's/^  cost.*at most \$\([0-9.]*\) at gpt-4o-mini.*/\1/p' "$T/xb.out")
if [ -n "$dn" ] && [ -n "$db" ] && awk "BEGIN { d = $db - $dn / 2; exit !(d < 0.00001 && d > -0.00001) }"; then ok "EXPLAIN in bulk: half the dollars (\$$db of \$$dn)"; else notok "EXPLAIN in bulk: half the dollars" "usual: $dn" "bulk: $db"; fi
echo "$X" | MODEL=gpt-4o-mini run xj "$T/x" --set llm.bulk=on --json
has "EXPLAIN --json in bulk: the batch's requests and share" "$T/xj.out" "\"bulk\":{\"requests\":$calls,\"price_share\":0.5}"
# budget_usd compared at batch prices (with what the plan expects, or its worst case when
# it expects nothing less): between the two, refused without bulk only
en=$(sed -n 's/^  cost.*: expected about \$\([0-9.]*\),.*/\1/p' "$T/xn.out")
eb=$(sed -n 's/^  cost.*: expected about \$\([0-9.]*\),.*/\1/p' "$T/xb.out")
mid=$(awk "BEGIN { printf \"%.6f\", (${en:-$dn} + ${eb:-$db}) / 2 }")
echo "$X" | MODEL=gpt-4o-mini run xu "$T/x" --set budget_usd=$mid
echo "$X" | MODEL=gpt-4o-mini run xv "$T/x" --set budget_usd=$mid --set llm.bulk=on
has "budget_usd: over it at the usual price" "$T/xu.out" "over it, refused"
hasnt "budget_usd: within it at batch prices" "$T/xv.out" "over it, refused"
# budget_usd at submission: the batch's worst case (each line's body's bytes / 4 + 1 in,
# its max_tokens out, at batch prices) against it, computed here from the file a batch
# uploads; a budget just below it: nothing submitted, the exit status of a batch over the
# request budget, the figure said; just above it: submitted, and the batch then costs no
# more than the figure
XS=${X#EXPLAIN }
echo "$XS" | MODEL=gpt-4o-mini run uf "$T/uf" --set llm.bulk=on
ub=$(sed -n 's/^submitted batch 1 (\([^)]*\)).*/\1/p' "$T/uf.err")
uin=$(curl -s "${URL}/batches/$ub" | sed 's/.*"input_file_id": *"\([^"]*\)".*/\1/')
curl -s "${URL}/files/$uin/content" >"$T/uf.jsonl"
F=$(LC_ALL=C awk '{ b = substr($0, index($0, "\"body\":") + 7); b = substr(b, 1, length(b) - 1)
	m = b; if (!sub(/.*"max_tokens":/, "", m)) sub(/.*"max_completion_tokens":/, "", m)
	i += int(length(b) / 4) + 1; o += m + 0 }
	END { printf "%.8f", 0.5 * (i * 0.15 + o * 0.6) / 1e6 }' "$T/uf.jsonl")
lines=$(grep -c . "$T/uf.jsonl")
if [ "$lines" -gt 1 ] && awk "BEGIN { exit !($F > 0) }"; then ok "budget_usd at submission: the batch's worst case \$$F ($lines lines)"; else notok "budget_usd at submission: the batch's worst case" "$F" "$(head -c 300 "$T/uf.jsonl")"; fi
below=$(awk "BEGIN { printf \"%.8f\", $F * 0.98 }")
above=$(awk "BEGIN { printf \"%.8f\", $F * 1.02 }")
up=$(uploads)
echo "$XS" | MODEL=gpt-4o-mini run ubelow "$T/ubelow" --set llm.bulk=on --set budget_usd=$below
has "budget_usd just below the batch's worst case: refused" "$T/ubelow.err" "at batch prices ($lines requests:"
has "budget_usd just below: nothing submitted, and how to raise it" "$T/ubelow.err" "nothing was submitted; raise it with :set budget_usd"
if [ "$(uploads)" = "$up" ]; then ok "budget_usd just below: nothing uploaded"; else notok "budget_usd just below: nothing uploaded" "$(cat "$T/ubelow.err")"; fi
check "budget_usd just below: the exit status of a batch over the budget of requests" "$(cat "$T/ubelow.rc")" "$(cat "$T/bud.rc")"
said=$(sed -n 's/.*the batch would cost at most \$\([0-9.]*\) at batch prices.*/\1/p' "$T/ubelow.err")
if [ -n "$said" ] && awk "BEGIN { d = $said - $F; exit !(d < 0.00001 && d > -0.00001) }"; then ok "budget_usd just below: the figure said (\$$said) is the batch's (\$$F)"; else notok "budget_usd just below: the figure said is the batch's" "said: $said" "computed: $F"; fi
echo "$XS" | MODEL=gpt-4o-mini run uabove "$T/uabove" --set llm.bulk=on --set budget_usd=$above
has "budget_usd just above the batch's worst case: submitted, all its lines" "$T/uabove.err" "): $lines requests;"
# far below what the plan expects: the plan refuses, in its own words (not the request
# budget's)
echo "$XS" | MODEL=gpt-4o-mini run ufar "$T/ufar" --set llm.bulk=on --set budget_usd=0.0001
has "budget_usd far below: the plan refuses in its words" "$T/ufar.err" "this statement is expected to cost about"
hasnt "budget_usd far below: not said to be the budget of requests" "$T/ufar.err" "requests to the model"
echo ":bulk resume" | MODEL=gpt-4o-mini run uares "$T/uabove"
cost=$(sed -n 's/^cost: \$\([0-9.]*\) at batch prices.*/\1/p' "$T/uares.err")
if [ -n "$cost" ] && awk "BEGIN { exit !($cost > 0 && $cost <= $F) }"; then ok "budget_usd: the batch cost \$$cost, within its worst case \$$F"; else notok "budget_usd: the batch cost within its worst case" "cost: $cost" "$(cat "$T/uares.err")"; fi
stop_server

# --- an unreadable answer of one candidate: not a value, not cached, asked in the next
# batch (alone: the rest of its line was read)
start_server corrupt --batch-polls 0 --batch-corrupt 1:2
C2=$T/corrupt
echo "$Q" | run csub "$C2" --set llm.bulk=on --set batch=4
echo ":bulk resume" | run cr1 "$C2"
has "unreadable: said" "$T/cr1.err" "1 could not be read (not kept: asked again)"
has "unreadable: the others of its line read" "$T/cr1.err" "batch 1: $((NCAND - 1)) answers read from its replies"
has "unreadable: asked again in a second batch" "$T/cr1.err" "submitted batch 2 (batch_2): 1 request"
if [ ! -s "$T/cr1.out" ]; then ok "unreadable: no rows while an answer is missing"; else notok "unreadable: no rows while an answer is missing" "$(cat "$T/cr1.out")"; fi
echo ":bulk resume" | run cr2 "$C2"
if cmp -s "$T/ref.out" "$T/cr2.out"; then ok "unreadable: the second batch completes the rows"; else notok "unreadable: the second batch completes the rows" "$(diff "$T/ref.out" "$T/cr2.out")" "$(cat "$T/cr2.err")"; fi
stop_server

# --- a whole line in prose: every candidate of it asked again
start_server prose --batch-polls 0 --batch-corrupt 1
C5=$T/prose
echo "$Q" | run psub "$C5" --set llm.bulk=on --set batch=4
echo ":bulk resume" | run pr1 "$C5"
has "prose line: its 4 candidates not read" "$T/pr1.err" "4 could not be read (not kept: asked again)"
has "prose line: asked again as one line" "$T/pr1.err" "submitted batch 2 (batch_2): 1 request"
echo ":bulk resume" | run pr2 "$C5"
if cmp -s "$T/ref.out" "$T/pr2.out"; then ok "prose line: the second batch completes the rows"; else notok "prose line: the second batch completes the rows" "$(cat "$T/pr2.err")"; fi
stop_server

# --- an id that comes twice (the copy with the verdicts turned): neither copy used, its
# answers asked again; the rows are the reference's, not the turned ones
start_server dup --batch-polls 0 --batch-dup 1
C6=$T/dup
echo "$Q" | run dsub "$C6" --set llm.bulk=on --set batch=4
echo ":bulk resume" | run dr1 "$C6"
has "id twice: a warning" "$T/dr1.err" "warning: batch 1: 1 request came back more than once"
has "id twice: asked again in a second batch" "$T/dr1.err" "submitted batch 2 (batch_2): 1 request"
if [ ! -s "$T/dr1.out" ]; then ok "id twice: no rows from either copy"; else notok "id twice: no rows from either copy" "$(cat "$T/dr1.out")"; fi
echo ":bulk resume" | run dr2 "$C6"
if cmp -s "$T/ref.out" "$T/dr2.out"; then ok "id twice: the rows are the reference's"; else notok "id twice: the rows are the reference's" "$(diff "$T/ref.out" "$T/dr2.out")" "$(cat "$T/dr2.err")"; fi
stop_server

# --- ids never sent: dropped, not counted, not priced
start_server foreign --batch-polls 0 --batch-foreign 3
C7=$T/foreign
echo "$Q" | run fsub "$C7" --set llm.bulk=on --set batch=4
echo ":bulk resume" | run fr1 "$C7" --set llm.price_in=1 --set llm.price_out=2
has "foreign ids: a warning" "$T/fr1.err" "warning: batch 1: 3 lines of its output answer a request that was never sent"
has "foreign ids: not counted as replies" "$T/fr1.err" "batch 1: $NREQ replies fetched"
if cmp -s "$T/ref.out" "$T/fr1.out"; then ok "foreign ids: the rows are the reference's"; else notok "foreign ids: the rows are the reference's" "$(cat "$T/fr1.err")"; fi
tf=$(sed -n 's/^cost: .*; \([0-9]* tokens in, [0-9]* out\))$/\1/p' "$T/fr1.err")
tr=$(sed -n 's/^cost: .*; \([0-9]* tokens in, [0-9]* out\))$/\1/p' "$T/res.err")
check "foreign ids: not priced (the tokens of a clean batch)" "$tf" "$tr"
stop_server

# --- an output file of garbage: a clear error, nothing kept, the job as it was
start_server garbage --batch-polls 0 --batch-garbage
C8=$T/garbage
echo "$Q" | run gsub "$C8" --set llm.bulk=on
echo ":bulk resume" | run gr1 "$C8"
has "garbage: a clear error" "$T/gr1.err" "holds no reply suql can use (line 1: the line is not a JSON object): nothing was kept"
if [ "$(cat "$T/gr1.rc")" != 0 ]; then ok "garbage: exit status not 0"; else notok "garbage: exit status not 0"; fi
echo ":bulk list" | run gl "$C8"
has "garbage: the job as it was" "$T/gl.out" "1  batch batch_1  completed"
echo "$Q" | run gq "$C8"
if cmp -s "$T/ref.out" "$T/gq.out"; then ok "garbage: nothing lost, the statement runs as usual"; else notok "garbage: nothing lost, the statement runs as usual" "$(cat "$T/gq.err")"; fi
stop_server

# --- an endpoint without a batch interface
start_server nobatch --no-batch
C4=$T/nobatch
echo "$Q" | run nb "$C4" --set llm.bulk=on
has "no /batches: a clear error" "$T/nb.err" "the endpoint has no batch interface"
if [ "$(cat "$T/nb.rc")" != 0 ]; then ok "no /batches: exit status not 0"; else notok "no /batches: exit status not 0"; fi
echo "$Q" | run nb2 "$C4"
if cmp -s "$T/ref.out" "$T/nb2.out"; then ok "no /batches: nothing lost, the statement runs as usual"; else notok "no /batches: nothing lost, the statement runs as usual" "$(cat "$T/nb2.err")"; fi
stop_server

# --- no secret on screen, in the cache file or in the database, in bulk too: a server that
# echoes the request's headers (the Authorization it got: the URL's credentials as Basic,
# or the key as Bearer) in a batch's output lines (build/llmserver's echo rules applied to
# its lines), whole and cut at many offsets, as the answers of an INSERT ... SELECT. What
# suql writes (with -v), the cache file and the database (dumped) must hold no run of 8
# characters of the password, the credentials, the key or their Base64 at any alignment
# (tests/suites/22-secrets-echo.sh's check); the echoes must have got there (masked).
if command -v sqlite3 >/dev/null 2>&1; then
	S_USER=alice S_PASS_RAW='S3cr3t-P%40ss-Word-42' S_PASS='S3cr3t-P@ss-Word-42'
	S_KEY=sk-echo-Zq81xKpL0v9Wm3Rt5Yb7Nc2Dh4Jf6Gs
	secret_runs "$S_USER" "$S_PASS" "$S_PASS_RAW" "$S_KEY" >"$T/runs"
	# a line a candidate (batch 1): each rule answers the next line, the rest automatic
	{
		printf '[{"status": 200, "echo": "headers", "echo_as": "content", "times": 1}'
		printf ', {"status": 200, "echo": "request", "echo_as": "content", "times": 1}'
		printf ', {"status": 400, "echo": "headers", "echo_as": "message", "times": 1}'
		i=5
		while [ $i -le 90 ]; do
			printf ', {"status": 200, "echo": "headers", "echo_as": "content", "echo_skip": %d, "echo_max": 41, "times": 1}' $i
			i=$((i + 7))
		done
		printf ']\n'
	} >"$T/srules.json"
	# the answers come in batches for the SELECT (a projection: asked of the rows it
	# returns, all in one batch), then the INSERT takes them from the cache
	SQ="SELECT name, answer(reviews, 'what do the guests say?') FROM restaurants WHERE rating >= 4.5 ORDER BY name;"
	SI="INSERT INTO said SELECT name, answer(reviews, 'what do the guests say?') FROM restaurants WHERE rating >= 4.5;"
	secrets_case() {   # secrets_case NAME URL [KEY]: NAME.out (all suql wrote), NAME.dump
		_n=$1 _u=$2 _k=${3:-}
		cp "$DB" "$T/$_n.db"
		"$prog" "$T/$_n.db" -c "CREATE TABLE said(name TEXT, a TEXT)" >/dev/null 2>&1
		start_server "$_n" --batch-polls 0 --rules "$T/srules.json"
		_url=$(printf '%s' "$_u" | sed "s|PORT|${URL#http://127.0.0.1:}|;")
		printf '%s\n' "$SQ" ':bulk status' ':bulk resume' ':bulk resume' ':bulk list' \
			':set llm.bulk off' "$SI" 'SELECT name, a FROM said ORDER BY name;' |
			XDG_CACHE_HOME=$T/$_n.cache SUQL_LLM_URL=$_url SUQL_LLM_KEY=$_k SUQL_MODEL=m1 \
			"$prog" -v --set llm.bulk=on --set batch=1 "$T/$_n.db" >"$T/$_n.out" 2>&1
		echo "exit $?" >>"$T/$_n.out"
		stop_server
		{ sqlite3 "$T/$_n.cache/suql/cache.db" .dump; sqlite3 "$T/$_n.db" .dump; } >"$T/$_n.dump"
		_said=$(sqlite3 "$T/$_n.db" "SELECT count(*) FROM said WHERE a LIKE '%user-agent%'")
		if grep -q 'user-agent' "$T/$_n.out" && grep -q '\*\*\*' "$T/$_n.out" &&
		   [ "${_said:-0}" -gt 0 ] && grep -q 'submitted batch 2' "$T/$_n.out"; then
			ok "secrets $_n: the echoes reached the screen, the cache and the database (masked)"
		else
			notok "secrets $_n: the echoes reached the screen and the files" "$(head -40 "$T/$_n.out")"
		fi
		for _w in out dump; do
			_l=$(grep -o -F -f "$T/runs" "$T/$_n.$_w" | sort -u | head -5)
			if [ -z "$_l" ]; then
				ok "secrets $_n: no run of 8 characters of a secret or its Base64 in the $_w ($(wc -c <"$T/$_n.$_w" | tr -d ' ') bytes)"
			else
				notok "secrets $_n: no run of a secret in the $_w" "found: $(echo $_l)" "$(grep -n -F -f "$T/runs" "$T/$_n.$_w" | head -5)"
			fi
		done
	}
	secrets_case sbasic "http://$S_USER:$S_PASS_RAW@127.0.0.1:PORT"
	auth=$(grep -o '"authorization":"Basic [^"]*"' "$T/sbasic.log" | head -1)
	check "secrets sbasic: the server got the credentials as a Basic header" "$auth" "\"authorization\":\"Basic $(printf '%s' "$S_USER:$S_PASS" | base64 -w0)\""
	secrets_case sbearer "http://127.0.0.1:PORT" "$S_KEY"
	auth=$(grep -o '"authorization":"Bearer [^"]*"' "$T/sbearer.log" | head -1)
	check "secrets sbearer: the server got the key" "$auth" "\"authorization\":\"Bearer $S_KEY\""
fi

[ $fails -eq 0 ]
