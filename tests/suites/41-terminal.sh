#!/bin/sh
# The REPL at a real (pseudo-)terminal: tmux runs suql in a detached session, keys are sent
# with send-keys and the screen is read with capture-pane. Every step waits for the text it
# expects (polling, with a generous limit) instead of sleeping a fixed time, so it works on a
# slow or sanitized build and with no terminal attached (CI).
#
# Covered: banner and prompt, a statement typed over two lines (continuation prompt),
# meta-commands, a wrong statement, tab completion, Ctrl-C during a long statement (the
# REPL survives and answers the next one), Ctrl-C at the prompt, the history file (a line
# holding a key is never stored), Ctrl-D leaving with status 0.
. "$(dirname "$0")/../lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	echo "skip terminal: tmux is not installed (scripts/deps.sh installs it)"
	exit 0
fi
dir=$SUQL_TMP/terminal
mkdir -p "$dir"
sock=$dir/tmux.sock
export TERM="${TERM:-xterm}"
[ "$TERM" = dumb ] && TERM=xterm
limit=${SUQL_TERM_WAIT:-30}   # seconds to wait for any one expected text

# The wrapper outlives suql to report its exit status; Ctrl-C reaches the whole foreground
# process group, so the wrapper must not die of it (a trap, unlike an ignored signal, is not
# inherited by suql).
cat >"$dir/run.sh" <<EOF
#!/bin/sh
trap : INT
SUQL_HISTORY='$dir/history' '$prog' '$dir/term.db'
echo "suql exited with status \$?"
exec sleep 600
EOF
chmod +x "$dir/run.sh"

t() { tmux -S "$sock" "$@"; }
cleanup() {
	t kill-server >/dev/null 2>&1
	[ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"
}
trap cleanup EXIT
# the screen and its history, without the blank lines under the cursor
screen() {
	t capture-pane -p -J -t suql -S - 2>/dev/null |
		awk '{ l[NR] = $0 } NF { last = NR } END { for (i = 1; i <= last; i++) print l[i] }'
}

# poll COMMAND...: run it every 0.1 s until it succeeds, at most $limit seconds.
poll() {
	i=0
	while [ "$i" -lt $((limit * 10)) ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_for TEXT [COUNT [GREP-FLAG]]: until COUNT lines (default 1) on screen hold TEXT
# (with -x: are TEXT).
on_screen() { [ "$(screen | grep -cF ${3:-} -- "$1")" -ge "${2:-1}" ]; }
wait_for() { poll on_screen "$@"; }

# type TEXT: send it literally, then Enter. (tmux reads a trailing ';' as a command
# separator, so it goes escaped.)
type_line() {
	case $1 in
	*\;) t send-keys -t suql -l -- "${1%?}"; t send-keys -t suql '\;' ;;
	*) t send-keys -t suql -l -- "$1" ;;
	esac
	t send-keys -t suql Enter
}

# colours SESSION: nonzero unless the screen of SESSION holds a bold or dim escape
esc=$(printf '\033')
colours() { t capture-pane -e -p -t "$1" | grep -q "$esc\[[12]m"; }

fails=0
check() {          # check NAME COMMAND...: ok or not ok, with the screen on failure
	name=$1
	shift
	if "$@"; then
		echo "ok terminal: $name"
	else
		echo "not ok terminal: $name"
		screen | tail -n 25 | sed 's/^/# | /'
		fails=$((fails + 1))
	fi
}

t -f /dev/null new-session -d -s suql -x 120 -y 50 "$dir/run.sh" || {
	echo "not ok terminal: tmux could not start a session"
	exit 1
}

if ! wait_for "database: $dir/term.db"; then
	echo "not ok terminal: suql starts and shows its banner"
	screen | tail -n 10 | sed 's/^/# | /'
	exit 1   # nothing else can pass; do not wait for each step in turn
fi
echo "ok terminal: banner"
check "prompt" wait_for "suql> "

type_line "SELECT 6 *"
check "continuation prompt" wait_for " ...> "
type_line "7 AS answer;"
check "statement over two lines" wait_for "│     42 │"

check "colour at a terminal" colours suql

type_line "CREATE TABLE pets(name TEXT, species TEXT);"
type_line ":tables"
check "meta-command" wait_for "pets" 1 -x

type_line "SELECT 1 AS fine; SELEC 2;"
check "wrong statement reported where it was typed" \
	wait_for "error: line 1, column 19: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'SELEC'"

t send-keys -t suql -l -- ":sch"
t send-keys -t suql Tab
check "completion of a meta-command" wait_for ":schema "
t send-keys -t suql -l -- "pe"
t send-keys -t suql Tab
check "completion of a table name" wait_for ":schema pets"
t send-keys -t suql Enter
check "completed command runs" wait_for "CREATE TABLE pets ("

# Ctrl-C during a long statement: wait until the REPL took the line (the cursor is back at
# column 0 under it), then interrupt; again if the first one came too early.
long="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c;"
type_line "$long"
at_column_0() { [ "$(t display -p -t suql '#{cursor_x}')" = 0 ]; }
poll at_column_0
interrupted=1
for attempt in 1 2 3; do
	t send-keys -t suql C-c
	if wait_for "error: interrupted"; then
		interrupted=0
		break
	fi
done
check "Ctrl-C stops a running statement" [ "$interrupted" = 0 ]

# (typed only once the prompt is back: a Ctrl-C flushes what the terminal holds unread)
prompt_back() { [ "$(screen | tail -n 1 | sed 's/ *$//')" = "suql>" ]; }
poll prompt_back
t send-keys -t suql -l -- "SELECT 'typed but dropped'"
wait_for "typed but dropped"
t send-keys -t suql C-c
check "Ctrl-C at the prompt" wait_for "^C"
type_line "SELECT 'alive' AS still;"
check "the REPL answers after Ctrl-C" wait_for "│ alive │"
check "a dropped line did not run" sh -c "[ \$(tmux -S '$sock' capture-pane -p -J -t suql -S - | grep -c 'typed but dropped') = 1 ]"

type_line ":set llm.key sk-do-not-store-4242"
type_line ":set llm.key"
check "the key was set (and is shown masked)" wait_for "llm.key = sk-"
t send-keys -t suql C-d
check "Ctrl-D leaves with status 0" wait_for "suql exited with status 0"
# (libedit writes blanks in its history file as \040, so look for a word without them)
check "history keeps statements" grep -qF "answer;" "$dir/history"
check "history never holds a key" sh -c "! grep -q 'do-not-store' '$dir/history'"

# NO_COLOR: the same REPL without a single colour; and with no SUQL_HISTORY, the history
# goes to $XDG_STATE_HOME/suql/history, directories created
printf '#!/bin/sh\nunset SUQL_HISTORY\nNO_COLOR=1 XDG_STATE_HOME="%s" exec "%s"\n' \
	"$dir/state/deep" "$prog" >"$dir/nocolor.sh"
chmod +x "$dir/nocolor.sh"
t new-session -d -s plain -x 100 -y 20 "$dir/nocolor.sh"
t send-keys -t plain -l -- "SELECT NULL AS nothing_here, 1 AS n"
t send-keys -t plain '\;' Enter
answered() { t capture-pane -p -t plain | grep -q "(1 row)"; }
poll answered
poll test -s "$dir/state/deep/suql/history"   # written just after the result is shown
check "history under XDG_STATE_HOME" test -s "$dir/state/deep/suql/history"
check "no colour with NO_COLOR" sh -c "! tmux -S '$sock' capture-pane -e -p -t plain | grep -q '$esc\[[12]m' && tmux -S '$sock' capture-pane -p -t plain | grep -q '(1 row)'"

[ "$fails" = 0 ]
