#!/bin/sh
# Semantic top-k against build/llmserver's automatic answers (a value offered, by a hash of
# the text), batched: the top scores agree with scoring every candidate (optimize off), in
# fewer requests (counted from the server's log, never timed). The rows and requests of
# constrained answers and of top-k against scripted scores are cases in
# tests/engine/cases/choice-topk.case (suite 58 runs them on SQLite and PostgreSQL).
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/choice
mkdir -p "$T"
trap 'kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
SPID=""
# the server's log since the last mark: its requests
MARK=0
mark() { MARK=$(lines); }
requests() { echo $(($(lines) - MARK)); }
# q DB SQL [options]: rows as CSV in $T/out, stderr in $T/err
q() {
	db=$1 sql=$2
	shift 2
	"$prog" --csv --no-headers --no-cache --llm-url "$URL" --model m "$@" "$db" -c "$sql" \
		>"$T/out" 2>"$T/err"
}

# 60 reviews (tests/engine/topk.sql)
top=$T/top.db
"$prog" --bail "$top" >/dev/null <tests/engine/topk.sql
topq="SELECT name, answer(review, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int AS romance FROM r ORDER BY romance DESC LIMIT 3;"
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
