#!/bin/sh
# Chat mode at a real (pseudo-)terminal, through tmux as in 41-terminal.sh, with
# build/llmserver playing the model: :chat changes the prompt to "chat> " and says how to
# leave; a greeting is answered; a question shows its query, its rows and the reply; Ctrl-C
# while the model is thinking stops the turn and the session stays in chat mode; :sql brings
# back "suql> "; on a narrow terminal the reply is wrapped. Without a model, :chat explains
# how to configure one and the prompt stays "suql> ". While the model works, a status line
# says how far it got (and goes when it is done or stopped); the reply streams in as the
# model writes it, control characters made visible, and Ctrl-C in the middle ends its line.
. "$(dirname "$0")/../lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	echo "skip chat terminal: tmux is not installed (scripts/deps.sh installs it)"
	exit 0
fi
build=$SUQL_BUILD
case $build in /*) ;; *) build=$SUQL_TOP/$build ;; esac
dir=$SUQL_TMP/chat-terminal
mkdir -p "$dir"
sock=$dir/tmux.sock
export TERM="${TERM:-xterm}"
[ "$TERM" = dumb ] && TERM=xterm
limit=${SUQL_TERM_WAIT:-30}
unset SUQL_LLM_URL SUQL_LLM_KEY SUQL_MODEL OPENAI_API_KEY OPENAI_BASE_URL

sh tests/demo-db.sh "$dir/demo.db"
cat >"$dir/rules.json" <<'EOF'
[
 {"match": "slow question", "delay_ms": 60000, "content": "{\"database\": true, \"suql\": \"SELECT 1\"}"},
 {"match": "is it slow to serve", "delay_ms": 60000, "content": "yes"},
 {"match": "Task: answer the user", "regex": "tell me slowly", "stream_hold_after": 6,
  "content": "Here is the first part \u0007 of the answer, and the rest comes much later."},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Hello there, ask me about restaurants.\"}"},
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT id, name FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto'\"}"},
 {"match": "Task: answer the user",
  "content": "I searched for Italian restaurants in Palo Alto and found four."}
]
EOF
SPID=""
"$build/llmserver" --port-file "$dir/port" --log "$dir/log" --rules "$dir/rules.json" \
	2>"$dir/server.err" &
SPID=$!

. "$SUQL_TOP/tests/tmux.sh"
cleanup() {
	t kill-server >/dev/null 2>&1
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	[ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"
}
trap cleanup EXIT

poll test -s "$dir/port"
url="http://127.0.0.1:$(cat "$dir/port")/v1"

cat >"$dir/run.sh" <<EOF
#!/bin/sh
trap : INT
SUQL_HISTORY= XDG_CACHE_HOME='$dir/cache' SUQL_LLM_URL='$url' SUQL_MODEL=test-model '$prog' '$dir/demo.db'
echo "suql exited with status \$?"
exec sleep 600
EOF
cat >"$dir/offline.sh" <<EOF
#!/bin/sh
SUQL_HISTORY= '$prog' '$dir/demo.db'
exec sleep 600
EOF
chmod +x "$dir/run.sh" "$dir/offline.sh"

screen() { tmux_screen "$1"; }
on_screen() { [ "$(screen "$1" | grep -cF -- "$2")" -ge "${3:-1}" ]; }
wait_for() { poll on_screen "$@"; }
type_line() { tmux_type "$1" "$2"; }

fails=0
check() {
	name=$1
	shift
	if "$@"; then
		echo "ok chat terminal: $name"
	else
		echo "not ok chat terminal: $name"
		screen chat | tail -n 25 | sed 's/^/# | /'
		fails=$((fails + 1))
	fi
}

t -f /dev/null new-session -d -s chat -x 140 -y 60 "$dir/run.sh" || {
	echo "not ok chat terminal: tmux could not start a session"
	exit 1
}
if ! wait_for chat "suql> "; then
	echo "not ok chat terminal: suql starts"
	screen chat | tail -n 10 | sed 's/^/# | /'
	exit 1
fi
type_line chat ":chat"
check "the note on entering chat mode" wait_for chat "ask in plain words; :sql goes back to SUQL"
check "the chat prompt" wait_for chat "chat> "
type_line chat "hello"
check "a greeting is answered" wait_for chat "Hello there, ask me about restaurants."
type_line chat "any italian places in palo alto?"
check "the query is shown" wait_for chat "AND location = 'Palo Alto' LIMIT 5"
check "its rows are shown" wait_for chat "Trattoria Lucca"
check "the reply follows" wait_for chat "I searched for Italian restaurants in Palo Alto and found four."

# Ctrl-C while the model is thinking: the server holds this request for a minute
type_line chat "a slow question"
poll sh -c "grep -q 'slow question' '$dir/log' 2>/dev/null"
check "a status line while the model works" wait_for chat "model calls: 0 done, 1 in flight"
stopped=1
for attempt in 1 2 3; do
	t send-keys -t chat C-c
	if wait_for chat "error: interrupted"; then
		stopped=0
		break
	fi
done
check "Ctrl-C stops a turn waiting for the model" [ "$stopped" = 0 ]
type_line chat "hello again"
check "still in chat mode after Ctrl-C" wait_for chat "I searched for Italian restaurants in Palo Alto and found four." 2

check "the status line is gone after Ctrl-C" sh -c "! tmux -S '$sock' capture-pane -p -t chat | grep -q 'in flight'"

# the reply streams: the server sends six words and holds the rest
type_line chat "tell me slowly"
check "the reply shows as it comes" wait_for chat "  Here is the first part ^G"
check "before the model has finished" sh -c "! tmux -S '$sock' capture-pane -p -J -t chat -S - | grep -q 'much later'"
t send-keys -t chat C-c
check "Ctrl-C in the middle of a reply: the error on a line of its own" wait_for chat "error: interrupted" 2
check "the reply's line ended with the ^C" wait_for chat "  Here is the first part ^G^C"
type_line chat "hello again"
check "still in chat mode after a stopped reply" wait_for chat "I searched for Italian restaurants in Palo Alto and found four." 3

type_line chat ":sql"
type_line chat "SELECT 'back in SUQL' AS mode;"
check ":sql goes back to SUQL statements" wait_for chat "back in SUQL" 2

# a statement with free text on a slow endpoint: the status line counts the walk, and
# after Ctrl-C the counters start on a line of their own (not after the ^C)
type_line chat "SELECT name FROM restaurants WHERE answer(reviews, 'is it slow to serve?') = 'Yes' LIMIT 1;"
check "the status line counts candidates and calls" wait_for chat "judged 0 of 112 candidates; model calls: 0 done,"
t send-keys -t chat C-c
check "after Ctrl-C the counters start a line" sh -c "sleep 0; for i in \$(seq 1 $((limit * 10))); do tmux -S '$sock' capture-pane -p -J -t chat -S - | grep -qx 'counters:' && exit 0; sleep 0.1; done; exit 1"
check "and the statement ends interrupted" wait_for chat "error: interrupted" 3

# a narrow terminal: the reply is wrapped at blanks, each line indented under "reply:"
t new-session -d -s narrow -x 44 -y 40 "$dir/run.sh"
wait_for narrow "suql> "
type_line narrow ":chat"
wait_for narrow "chat> "
type_line narrow "any italian places in palo alto?"
check "the reply is wrapped to the terminal" wait_for narrow "  I searched for Italian restaurants in"
check "and goes on, indented" wait_for narrow "  Palo Alto and found four."

t new-session -d -s offline -x 140 -y 30 "$dir/offline.sh"
wait_for offline "suql> "
type_line offline ":chat"
offline_hint() {
	on_screen offline "chat mode needs a language model" &&
	[ "$(screen offline | tail -n 1)" = "suql> " ]
}
check "without a model: the hint, and the prompt stays suql>" poll offline_hint

[ "$fails" = 0 ]
