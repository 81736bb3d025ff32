#!/bin/sh
# Bulk mode's jobs run once (doc/bulk.md, "Every job runs once"): :bulk resume claims its
# job first, and a write statement commits together with its job's mark in the user's
# database (suql_bulk_done). Two resumes of an INSERT ... SELECT job at once: the second is
# told the job is taken (by whom, with its status), and each row is stored once. A resume
# killed (SIGKILL) at each point leaves the write done entirely or not at all, and the next
# resume completes it exactly once:
#   fetch      while it fetches the output (build/llmserver --batch-delay holds it)
#   fetched    its replies kept, waiting for the database (another process holds its lock)
#   writing    its transaction open with the mark in it, waiting for the cache file
#   committed  the write and the mark committed, waiting to mark the job resumed
# The points are reached by holding SQLite's own locks from a sqlite3 process (the user's
# database, then the cache file) and watching the state each file shows: no hook in suql.
# On PostgreSQL (skipped when no server starts): the write and its mark (suql.bulk_done)
# commit together, and a job whose write committed before does not run again.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/bulk-once
mkdir -p "$T"
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "ok # skip: no sqlite3 command to hold the files' locks"
	exit 0
fi
trap 'unhold 7; unhold 8; stop_server; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
has() { name=$1 file=$2 text=$3; if grep -qF -- "$text" "$file"; then ok "$name"; else notok "$name" "no '$text' in:" "$(cat "$file")"; fi; }

# waitfor CONDITION: until the shell text CONDITION holds (evaluated each time), at most 60 s
waitfor() { _w=0; until eval "$1"; do sleep 0.05; _w=$((_w + 1)); [ $_w -lt 1200 ] || return 1; done; }
# hold FD FILE: a sqlite3 process holds FILE's write lock (BEGIN IMMEDIATE) until unhold FD;
# it says so itself (a file it touches once BEGIN IMMEDIATE returned)
hold() {
	rm -f "$T/fifo$1" "$T/held$1"
	mkfifo "$T/fifo$1"
	sqlite3 "$2" <"$T/fifo$1" >/dev/null 2>&1 7>&- 8>&- &
	eval "HOLDER$1=$!"
	eval "exec $1>\"\$T/fifo$1\""
	printf '.timeout 60000\nBEGIN IMMEDIATE;\n.shell touch %s\n' "$T/held$1" >&"$1"
	waitfor "[ -f \"\$T/held$1\" ]"
}
unhold() {
	eval "_p=\${HOLDER$1:-}"
	[ -n "$_p" ] || return 0
	echo "ROLLBACK;" >&"$1" 2>/dev/null
	eval "exec $1>&-"
	wait "$_p" 2>/dev/null
	eval "HOLDER$1="
}
# locked FILE: another connection holds FILE's write lock
locked() { ! sqlite3 -cmd ".timeout 0" "$1" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; }
status() { sqlite3 "$1/suql/cache.db" "SELECT status FROM llm_bulk ORDER BY seq DESC LIMIT 1" 2>/dev/null; }
owner() { sqlite3 "$1/suql/cache.db" "SELECT coalesce(owner, '') FROM llm_bulk ORDER BY seq DESC LIMIT 1" 2>/dev/null; }
rows() { sqlite3 "$1" "SELECT count(*) FROM picks" 2>/dev/null; }
distinct() { sqlite3 "$1" "SELECT count(DISTINCT name) FROM picks" 2>/dev/null; }
marks() { sqlite3 "$1" "SELECT count(*) FROM suql_bulk_done" 2>/dev/null || echo 0; }
fetches() { grep -c '/content"' "$LOG" 2>/dev/null || true; }

SRC=$T/src.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$SRC"
"$prog" "$SRC" -c "CREATE TABLE picks(name TEXT)" >/dev/null 2>&1
INS="INSERT INTO picks SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes';"

# the output file is held 1.5 s before it is sent, so that a resume can be caught fetching
start_server once --batch-polls 0 --batch-delay 1500
suql() {   # suql CASE [options...] (stdin: the script): the case's database and cache
	_c=$1; shift
	XDG_CACHE_HOME=$T/$_c.cache SUQL_LLM_URL=$URL SUQL_MODEL=m1 "$prog" "$@" "$T/$_c.db"
}
# bg CASE [options...]: :bulk resume in the background, $R its process (suql itself)
echo ":bulk resume" >"$T/resume.sql"
bg() {
	_c=$1; shift
	XDG_CACHE_HOME=$T/$_c.cache SUQL_LLM_URL=$URL SUQL_MODEL=m1 "$prog" "$@" "$T/$_c.db" \
		<"$T/resume.sql" >/dev/null 2>"$T/$_c.bg" 7>&- 8>&- &
	R=$!
}
# the rows the INSERT stores, asked without bulk mode
cp "$SRC" "$T/ref.db"
WANT=$(echo "SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes';" | suql ref --csv --no-header 2>/dev/null)
if [ "${WANT:-0}" -gt 0 ]; then ok "reference: $WANT rows"; else notok "reference: rows" "$WANT"; fi

# submit CASE: a fresh database and cache with the INSERT submitted as batch 1
submit() {
	cp "$SRC" "$T/$1.db"
	rm -rf "$T/$1.cache"
	echo "$INS" | suql "$1" --set llm.bulk=on >/dev/null 2>"$T/$1.sub"
	has "$1: submitted" "$T/$1.sub" "submitted batch 1 (batch_"
}
# settled CASE POINT: the database holds the write and its mark both, or neither
settled() {
	r=$(rows "$T/$1.db") m=$(marks "$T/$1.db")
	if { [ "$r" = 0 ] && [ "$m" = 0 ]; } || { [ "$r" = "$WANT" ] && [ "$m" = 1 ]; }; then
		ok "$1: killed $2, the database holds both or neither ($r rows, $m mark)"
	else
		notok "$1: killed $2, the database holds both or neither" "rows $r, marks $m"
	fi
}
# completes CASE: the next resume completes the job exactly once
completes() {
	echo ":bulk resume" | suql "$1" >/dev/null 2>"$T/$1.next"
	check "$1: the next resume stores each row once" "$(rows "$T/$1.db") $(distinct "$T/$1.db") $(marks "$T/$1.db")" "$WANT $WANT 1"
	check "$1: the job is resumed" "$(status "$T/$1.cache")" "resumed"
	echo ":bulk resume" | suql "$1" >/dev/null 2>"$T/$1.again"
	has "$1: a resume after that runs nothing" "$T/$1.again" "was resumed already"
	check "$1: still each row once" "$(rows "$T/$1.db")" "$WANT"
}

# --- two resumes at once
submit two
f=$(fetches)
bg two
R1=$R
waitfor '[ "$(fetches)" -gt "$f" ]'   # the first has claimed the job, and is fetching
echo ":bulk resume" | suql two >/dev/null 2>"$T/two.r2"
echo $? >"$T/two.rc2"
wait $R1
has "two at once: the second is told the job is taken, by whom" "$T/two.r2" "batch 1 is taken: process $R1"
has "two at once: with its status" "$T/two.r2" "(status completed)"
if [ "$(cat "$T/two.rc2")" != 0 ]; then ok "two at once: the second exits non-zero"; else notok "two at once: the second exits non-zero"; fi
check "two at once: each row stored once" "$(rows "$T/two.db") $(distinct "$T/two.db") $(marks "$T/two.db")" "$WANT $WANT 1"
check "two at once: the claim given back" "$(owner "$T/two.cache")" ""

# --- killed while it fetches
submit fetch
f=$(fetches)
bg fetch
waitfor '[ "$(fetches)" -gt "$f" ]'
kill -9 $R; wait $R 2>/dev/null
settled fetch "while fetching"
check "fetch: the replies were not kept" "$(status "$T/fetch.cache")" "completed"
completes fetch

# --- killed with its replies kept, waiting for the database
submit fetched
hold 7 "$T/fetched.db"
bg fetched --set busy_timeout=60
waitfor '[ "$(status "$T/fetched.cache")" = running ]'
kill -9 $R; wait $R 2>/dev/null
unhold 7
settled fetched "before its transaction"
completes fetched

# --- killed inside its transaction (the mark written, the rows not yet)
submit writing
hold 7 "$T/writing.db"
bg writing --set busy_timeout=60
waitfor '[ "$(status "$T/writing.cache")" = running ]'
hold 8 "$T/writing.cache/suql/cache.db"
unhold 7
waitfor 'locked "$T/writing.db"'   # its transaction is open; it waits for the cache file
kill -9 $R; wait $R 2>/dev/null
if [ -s "$T/writing.db-journal" ]; then ok "writing: its transaction was open when it was killed (a hot journal)"; else notok "writing: its transaction was open when it was killed (a hot journal)"; fi
unhold 8
check "writing: killed inside its transaction, nothing stored" "$(rows "$T/writing.db") $(marks "$T/writing.db")" "0 0"
completes writing

# --- killed after its commit, before the job is marked resumed
submit committed
hold 7 "$T/committed.db"
bg committed --set busy_timeout=60
waitfor '[ "$(status "$T/committed.cache")" = running ]'
hold 8 "$T/committed.cache/suql/cache.db"
unhold 7
waitfor '[ "$(rows "$T/committed.db")" = "$WANT" ]'   # committed; it waits to mark the job
kill -9 $R; wait $R 2>/dev/null
unhold 8
check "committed: killed after its commit, both stored" "$(rows "$T/committed.db") $(marks "$T/committed.db")" "$WANT 1"
check "committed: the job not marked yet" "$(status "$T/committed.cache")" "running"
completes committed
has "committed: the next resume says the write was committed before" "$T/committed.next" "its statement's write was committed before"

# --- a write whose rest goes into a next batch (a second condition for the rows that
# passed the first) commits nothing, and no mark, until the batch that completes it
cp "$SRC" "$T/chain.db"
INS2="INSERT INTO picks SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' AND answer(reviews, 'is it quiet?') = 'Yes';"
WANT2=$(echo "SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' AND answer(reviews, 'is it quiet?') = 'Yes';" | suql ref --csv --no-header 2>/dev/null)
echo "$INS2" | suql chain --set llm.bulk=on >/dev/null 2>&1
echo ":bulk resume" | suql chain >/dev/null 2>"$T/chain.r1"
has "chain: the rest goes into a next batch" "$T/chain.r1" "submitted batch 2"
check "chain: nothing committed meanwhile, no mark" "$(rows "$T/chain.db") $(marks "$T/chain.db")" "0 0"
echo ":bulk resume" | suql chain >/dev/null 2>"$T/chain.r2"
check "chain: the second batch completes the write, once" "$(rows "$T/chain.db") $(distinct "$T/chain.db") $(marks "$T/chain.db")" "$WANT2 $WANT2 1"
echo ":bulk resume 1" | suql chain >/dev/null 2>"$T/chain.r3"
has "chain: the first batch was resumed (by its next)" "$T/chain.r3" "was resumed already"

# --- a SELECT job is claimed too, and a resume that stops early gives its claim back
cp "$SRC" "$T/sel.db"
echo "SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes';" | suql sel --set llm.bulk=on >/dev/null 2>&1
echo ":bulk resume" | suql sel --csv --no-header >"$T/sel.out" 2>"$T/sel.err"
check "select: its rows" "$(cat "$T/sel.out")" "$WANT"
check "select: nothing written to the database" "$(marks "$T/sel.db")" "0"
stop_server
start_server slow --batch-polls 3
cp "$SRC" "$T/slow.db"
echo "$INS" | suql slow --set llm.bulk=on >/dev/null 2>&1
echo ":bulk resume" | suql slow >/dev/null 2>"$T/slow.err"
has "not finished: said" "$T/slow.err" "is not finished yet"
check "not finished: the claim given back" "$(owner "$T/slow.cache")" ""
stop_server

# --- PostgreSQL: the mark in suql.bulk_done, committed with the write
. "$SUQL_TOP/tests/pg.sh"
if ! pg_start; then
	echo "ok # skip postgres: $PG_SKIP"
	[ $fails -eq 0 ]
	exit
fi
if ! pg_load_demo "$SRC"; then
	notok "pg: the database loads into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 1
fi
start_server pg --batch-polls 0
pg() { XDG_CACHE_HOME=$T/pg.cache SUQL_LLM_URL=$URL SUQL_MODEL=m1 "$prog" "$@" "$SUQL_PG"; }
pgcount() { pg --csv --no-header -c "SELECT count(*) || ' ' || count(DISTINCT name) FROM picks" 2>&1; }
pg -c "CREATE TABLE picks(name text)" >/dev/null 2>&1
echo "$INS" | pg --set llm.bulk=on >/dev/null 2>"$T/pg.sub"
has "pg: submitted" "$T/pg.sub" "submitted batch 1 (batch_"
echo ":bulk resume" | pg >/dev/null 2>"$T/pg.res"
check "pg: resumed, each row once" "$(pgcount)" "$WANT $WANT"
check "pg: the mark committed with it" "$(pg --csv --no-header -c "SELECT count(*) FROM suql.bulk_done" 2>&1)" "1"
# as if it had been killed after its commit: the job not marked resumed in the cache file
sqlite3 "$T/pg.cache/suql/cache.db" "UPDATE llm_bulk SET status = 'running', owner = NULL"
echo ":bulk resume" | pg >/dev/null 2>"$T/pg.res2"
has "pg: a job whose write committed does not run again" "$T/pg.res2" "its statement's write was committed before"
check "pg: still each row once" "$(pgcount)" "$WANT $WANT"
check "pg: the job is resumed" "$(status "$T/pg.cache")" "resumed"
stop_server
pg_stop

[ $fails -eq 0 ]
