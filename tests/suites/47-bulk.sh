#!/bin/sh
# Bulk mode (llm.bulk, :bulk; doc/bulk.md) against build/llmserver's batch interface: a
# statement is submitted as a batch and shows no rows; :bulk status shows it in progress,
# then completed; :bulk resume, in another suql process, gives the rows a run without bulk
# mode gives, the server having answered one batched request per candidate, and the cache
# then answers the statement with no request; a batch whose output holds an unreadable
# reply leaves that candidate unanswered (asked again in a second batch); an endpoint
# without /batches is a clear error and nothing is lost; the offline backend and LIMIT run
# as usual and say why; a cancelled batch resumes to an error; the cost is shown at batch
# prices. The request log names the batch in the rows of the requests it carried and of
# the answers it gave.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/bulk
mkdir -p "$T"
export XDG_STATE_HOME=$T/state
B=$SUQL_BUILD
case $B in /*) ;; *) B=$SUQL_TOP/$B ;; esac
has() { name=$1 file=$2 text=$3; if grep -qF -- "$text" "$file"; then ok "$name"; else notok "$name" "no '$text' in:" "$(cat "$file")"; fi; }
hasnt() { name=$1 file=$2 text=$3; if grep -qF -- "$text" "$file"; then notok "$name" "'$text' in:" "$(cat "$file")"; else ok "$name"; fi; }

trap 'stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
batched() { curl -s "${URL%/v1}/batchstats" | sed 's/.*"batched": *\([0-9]*\).*/\1/'; }
chat_requests() { grep -c '"path":"/v1/chat/completions"' "$LOG" 2>/dev/null || true; }

DB=$T/d.db
# a demo database of the suite's own (build/demo.db is the user's)
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB"
Q="SELECT name FROM restaurants WHERE rating >= 4.5 AND answer(reviews, 'is it romantic?') = 'Yes' ORDER BY name;"
NCAND=$("$prog" -c "SELECT count(*) FROM restaurants WHERE rating >= 4.5 AND reviews IS NOT NULL" --csv --no-header "$DB" 2>/dev/null)
run() {   # run NAME CACHEDIR [options...] (stdin: the script): NAME.out, NAME.err, NAME.rc
	n=$1 c=$2; shift 2
	XDG_CACHE_HOME=$c SUQL_LLM_URL=$URL SUQL_MODEL=m1 "$prog" "$@" "$DB" >"$T/$n.out" 2>"$T/$n.err"
	echo $? >"$T/$n.rc"
}

# --- the reference: the same statement without bulk mode, on the same server
start_server main --batch-polls 2
echo "$Q" | run ref "$T/ref"
if [ -s "$T/ref.out" ] && [ "$(cat "$T/ref.rc")" = 0 ]; then ok "reference run has rows"; else notok "reference run has rows" "$(cat "$T/ref.err")"; fi

# --- submit: no rows, a batch
C=$T/bulk
before=$(chat_requests)
echo "$Q" | run sub "$C" --set llm.bulk=on
if [ ! -s "$T/sub.out" ]; then ok "submit: no rows"; else notok "submit: no rows" "$(cat "$T/sub.out")"; fi
has "submit: says so" "$T/sub.err" "submitted batch 1 (batch_1): $NCAND requests"
has "submit: exit status 0" "$T/sub.rc" "0"
if [ "$(chat_requests)" = "$before" ]; then ok "submit: no model request outside the batch"; else notok "submit: no model request outside the batch"; fi

# --- status: in progress, then completed (each suql is a new process)
echo ":bulk status" | run st1 "$C"
has "status: in progress" "$T/st1.out" "batch 1 (batch_1): in_progress"
echo ":bulk status" | run st2 "$C"
has "status: completed" "$T/st2.out" "batch 1 (batch_1): completed, $NCAND of $NCAND requests done"
has "status: names the statement" "$T/st2.out" "statement: $Q"

# --- resume in another process: the reference's rows, one batched request a candidate
echo ":bulk resume" | run res "$C" --set llm.price_in=1 --set llm.price_out=2
if cmp -s "$T/ref.out" "$T/res.out"; then ok "resume: the rows of a run without bulk mode"; else notok "resume: the rows of a run without bulk mode" "$(diff "$T/ref.out" "$T/res.out")" "$(cat "$T/res.err")"; fi
has "resume: answers read" "$T/res.err" "batch 1: $NCAND answers read from its replies"
has "resume: cost at batch prices" "$T/res.err" "at batch prices (half of \$"
# the request log: the requests collected for the batch, named by its id once it was made,
# and the answers its replies gave, with their tokens (no request of their own)
if command -v sqlite3 >/dev/null 2>&1; then
	check "log: the requests collected, then answered by the batch, each named by it" \
		"$(sqlite3 "$XDG_STATE_HOME/suql/log.db" "SELECT status, count(*), group_concat(DISTINCT bulk), count(reason), min(tokens_in) > 0 FROM log WHERE status IN ('collected', 'batch') GROUP BY status ORDER BY status")" \
		"batch|$NCAND|batch_1|0|1
collected|$NCAND|batch_1|0|0"
fi
b=$(batched)
if [ "$b" = "$NCAND" ]; then ok "server: one batched request a candidate ($NCAND)"; else notok "server: one batched request a candidate ($NCAND)" "batched: $b"; fi
after=$(chat_requests)
if [ "$before" = "$after" ]; then ok "resume: no model request outside the batch"; else notok "resume: no model request outside the batch" "$before -> $after"; fi
echo "$Q" | run again "$C"
if cmp -s "$T/ref.out" "$T/again.out" && [ "$(chat_requests)" = "$after" ]; then ok "cache: filled by the batch"; else notok "cache: filled by the batch" "$(cat "$T/again.err")"; fi
echo ":bulk resume" | run res2 "$C"
has "resume twice: says it was" "$T/res2.err" "was resumed already"
echo ":bulk list" | run list "$C"
has "list: the batch" "$T/list.out" "1  batch batch_1  resumed  $NCAND requests"

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
stop_server

# --- an unreadable reply in the output: not a value, not cached, asked in the next batch
start_server corrupt --batch-polls 0 --batch-corrupt 3
C2=$T/corrupt
echo "$Q" | run csub "$C2" --set llm.bulk=on
echo ":bulk resume" | run cr1 "$C2"
has "unreadable: said" "$T/cr1.err" "1 reply could not be read (not kept: asked again)"
has "unreadable: asked again in a second batch" "$T/cr1.err" "submitted batch 2 (batch_2): 1 request"
if [ ! -s "$T/cr1.out" ]; then ok "unreadable: no rows while an answer is missing"; else notok "unreadable: no rows while an answer is missing" "$(cat "$T/cr1.out")"; fi
echo ":bulk resume" | run cr2 "$C2"
if cmp -s "$T/ref.out" "$T/cr2.out"; then ok "unreadable: the second batch completes the rows"; else notok "unreadable: the second batch completes the rows" "$(diff "$T/ref.out" "$T/cr2.out")" "$(cat "$T/cr2.err")"; fi
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

[ $fails -eq 0 ]
