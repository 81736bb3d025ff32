#!/bin/sh
# The REPL at a real (pseudo-)terminal: tmux runs suql in a detached session, keys are sent
# with send-keys and the screen is read with capture-pane. Every step waits for the text it
# expects (polling, with a generous limit) instead of sleeping a fixed time, so it works on a
# slow or sanitized build and with no terminal attached (CI).
#
# Covered: banner and prompt, a statement typed over two lines (continuation prompt),
# plain SQL shown as sqlite3 shows it (no parsed/result frame) and free text with its plan
# wrapped to the window, meta-commands, sqlite3 and psql habits (.tables, \d, help),
# a wrong statement, tab completion (commands, tables, every setting, a setting's values,
# file names and column names with blanks, inside a quote), the pager, Ctrl-C during a long
# statement (the REPL survives and answers the next one), Ctrl-C at the prompt, the history
# file (keys and a URL's password are stored masked), Ctrl-D at the continuation prompt (a note,
# then leaving with status 0), psql's \x and \watch (stopped by Ctrl-C); at 80 columns, text
# broken at blanks (the parsed statement, errors, :help set), the compact display, :chart.
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
PAGER="cat >'$dir/paged'" SUQL_HISTORY='$dir/history' '$prog' '$dir/term.db'
echo "suql exited with status \$?"
exec sleep 600
EOF
chmod +x "$dir/run.sh"

. "$SUQL_TOP/tests/tmux.sh"
cleanup() {
	t kill-server >/dev/null 2>&1
	[ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"
}
trap cleanup EXIT
screen() { tmux_screen suql; }

# wait_for TEXT [COUNT [GREP-FLAG]]: until COUNT lines (default 1) on screen hold TEXT
# (with -x: are TEXT).
on_screen() { [ "$(screen | grep -cF ${3:-} -- "$1")" -ge "${2:-1}" ]; }
wait_for() { poll on_screen "$@"; }
at_prompt() { [ "$(screen | tail -n 1)" = "suql> " ]; }

type_line() { tmux_type suql "$1"; }

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
check "plain SQL: no parsed/result frame, as in sqlite3" sh -c "! tmux -S '$sock' capture-pane -p -J -t suql -S - | grep -Eq '^(parsed|result):'"

check "colour at a terminal" colours suql

type_line "CREATE TABLE pets(name TEXT, species TEXT);"
type_line ":tables"
check "meta-command" wait_for "pets" 1 -x
type_line ".tables"
check "a habit: .tables runs :tables" wait_for "pets" 2 -x
check "with a note, once, on what suql's meta-commands look like" \
	wait_for "note: suql's meta-commands start with ':' (.tables is :tables; :help lists them)"
type_line "\\d pets"
check "a habit: \\d NAME runs :schema NAME" wait_for "  species TEXT"
type_line "help"
check "a habit: help runs :help" wait_for "Meta-commands (one line, where a statement would start):"
check "the note on habits came once" sh -c "[ \$(tmux -S '$sock' capture-pane -p -J -t suql -S - | grep -c '^note: suql') = 1 ]"
check "habits never leave a statement open" at_prompt

# free text at a terminal: the frame, the plan and the counters, wrapped to the window
type_line "CREATE TABLE notes (body FREE_TEXT, \"Review Text\" TEXT);"
type_line "INSERT INTO notes VALUES ('The cat sleeps in the sun all afternoon long.', 'ok');"
type_line "SELECT count(*) AS cats FROM notes WHERE answer(body, 'is this text about a cat that sleeps?') = 'Yes';"
wait_for "(1 row)" 2
framed() { for l in parsed: plan: counters: result:; do screen | grep -qx "$l" || return 1; done; }
check "free text: parsed, plan, counters and result" framed

type_line "SELECT 1 AS fine; SELEC 2;"
check "wrong statement reported where it was typed" \
	wait_for "error: line 1, column 19: expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...), found 'SELEC'"

poll at_prompt   # type after the prompt is drawn, as a person would
t send-keys -t suql -l -- ":sch"
t send-keys -t suql Tab
check "completion of a meta-command" wait_for ":schema "
t send-keys -t suql -l -- "pe"
t send-keys -t suql Tab
check "completion of a table name" wait_for ":schema pets"
t send-keys -t suql Enter
check "completed command runs" wait_for "CREATE TABLE pets ("

# :set completes every setting of every registry, and then the values of the one named
poll at_prompt
t send-keys -t suql -l -- ":set "
t send-keys -t suql Tab Tab
every_setting() { for k in optimize batch chat.limit llm.model concurrency pager; do screen | grep -qw -- "$k" || return 1; done; }
check "completion of :set offers every setting" poll every_setting
t send-keys -t suql C-u
t send-keys -t suql -l -- ":set mode "
t send-keys -t suql Tab Tab
every_mode() { for k in box csv html json line markdown table; do screen | grep -qw -- "$k" || return 1; done; }
check "completion of :set mode offers the modes" poll every_mode
t send-keys -t suql C-u
# a file name with blanks is quoted, so that :import reads it as one argument
mkdir -p "$dir/my data"
printf 'name,age\nRex,3\nTom,5\n' >"$dir/my data/two words.csv"
t send-keys -t suql -l -- ":import $dir/my"
t send-keys -t suql Tab
check "completion quotes a directory with a blank" wait_for ":import '$dir/my data/"
t send-keys -t suql -l -- "tw"
t send-keys -t suql Tab
check "and closes the quote after the file" wait_for ":import '$dir/my data/two words.csv' "
t send-keys -t suql -l -- "animals"
t send-keys -t suql Enter
check "the completed :import runs" wait_for "imported 2 rows into animals"
poll at_prompt
# a column name with a blank: offered in double quotes, and completed inside a quote
t send-keys -t suql -l -- "SELECT Review"
t send-keys -t suql Tab
check "completion quotes a name with a blank" wait_for 'suql> SELECT "Review Text" '
t send-keys -t suql C-u
t send-keys -t suql -l -- 'SELECT "Revi'
t send-keys -t suql Tab
check "completion inside an open quote" wait_for 'suql> SELECT "Review Text" '
t send-keys -t suql C-u

# a result taller than the window goes through the pager; a short one does not
tall="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c;"
type_line "$tall"
paged() { grep -q '(100 rows)' "$dir/paged" 2>/dev/null; }
poll paged
check "a tall result goes through \$PAGER" grep -q '│  57 │' "$dir/paged"
check "and not to the screen" sh -c "! tmux -S '$sock' capture-pane -p -J -t suql -S - | grep -q '(100 rows)'"
type_line ":pager off"
type_line "$tall"
check ":pager off: the screen gets it" wait_for "(100 rows)"

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

# psql's \x and \watch at a terminal: a line confirms the display change; \watch heads
# each run with the time and stops at Ctrl-C, and the prompt comes back
type_line "\\x"
check "\\x confirms the change, as psql does" wait_for "expanded display is on"
type_line "SELECT 'w' AS watched;"
check "\\x: a value a line" wait_for "watched = w"
type_line "\\x off"
type_line "\\watch 0.2"
check "\\watch heads each run with the time and how often" wait_for "(every 0.2s)" 3
t send-keys -t suql C-c
check "Ctrl-C ends \\watch, the prompt comes back" poll prompt_back
type_line "SELECT 'after watch' AS w;"
check "... and the REPL goes on" wait_for "│ after watch │"

type_line ":set llm.key sk-do-not-store-4242"
type_line ":set llm.key"
type_line ":set llm.url http://user:pw-do-not-store@127.0.0.1:9/v1"
type_line ":set llm.url"
check "the URL is shown without its password" wait_for "llm.url = http://127.0.0.1:9/v1"
check "the key was set (and is shown masked)" wait_for "llm.key = sk-"
t send-keys -t suql -l -- "SELECT 'never ended'"
t send-keys -t suql Enter
wait_for " ...> "
t send-keys -t suql C-d
check "Ctrl-D at ...> says the statement was not run" \
	wait_for "note: the unfinished statement was not run (it has no ';' at its end)"
check "Ctrl-D leaves with status 0" wait_for "suql exited with status 0"
# (libedit writes blanks in its history file as \040, so look for a word without them)
check "history keeps statements" grep -qF "answer;" "$dir/history"
check "history never holds a key" sh -c "! grep -q 'do-not-store' '$dir/history'"
check "history keeps the lines masked" grep -qF 'llm.key\040***' "$dir/history"
check "history keeps a URL's user, not its password" grep -qF 'http://user:***@127.0.0.1:9/v1' "$dir/history"

# a narrow window: plan and counters are wrapped at blanks, continuation lines indented
# under their line (a hanging indent), so no line is wider than the window
printf '#!/bin/sh\nSUQL_HISTORY= exec "%s" "%s"\n' "$prog" "$dir/term.db" >"$dir/narrow.sh"
chmod +x "$dir/narrow.sh"
t new-session -d -s narrow -x 60 -y 60 "$dir/narrow.sh"
t send-keys -t narrow -l -- "SELECT count(*) AS cats FROM notes WHERE answer(body, 'is this text about a cat that sleeps?') = 'Yes'"
t send-keys -t narrow '\;' Enter
narrow_done() { t capture-pane -p -J -t narrow | grep -q "(1 row)"; }
poll narrow_done
narrow_fits() {   # joined lines (a line the terminal wrapped counts as one) within 60 columns
	t capture-pane -p -J -t narrow | sed -n '/^plan:/,/^result:/p' >"$dir/narrow.txt"
	[ -s "$dir/narrow.txt" ] && ! awk 'length($0) > 60 { bad = 1 } END { exit !bad }' "$dir/narrow.txt"
}
check "plan and counters fit a 60-column window" narrow_fits
check "with a hanging indent" awk 'p ~ /^  optimize on:/ && /^      [^ ]/ { ok = 1 } { p = $0 } END { exit !ok }' "$dir/narrow.txt"

# the default pager, less -S, when PAGER is not set
if command -v less >/dev/null 2>&1; then
	printf '#!/bin/sh\nunset PAGER LESS\nSUQL_HISTORY= exec "%s"\n' "$prog" >"$dir/less.sh"
	chmod +x "$dir/less.sh"
	t new-session -d -s less -x 80 -y 24 "$dir/less.sh"
	poll sh -c "tmux -S '$sock' capture-pane -p -t less | grep -q 'suql> '"
	t send-keys -t less -l -- "${tall%?}"
	t send-keys -t less '\;' Enter
	in_less() { [ "$(t capture-pane -p -t less | tail -n 1)" = ":" ]; }
	check "without PAGER, less -S shows a tall result" poll in_less
	t send-keys -t less q
	t send-keys -t less -l -- "SELECT 'after the pager' AS back"
	t send-keys -t less '\;' Enter
	back() { t capture-pane -p -t less | grep -q '│ after the pager │'; }
	check "and the REPL goes on after it" poll back
else
	echo "skip terminal: the default pager: less is not installed"
fi

# An 80-column window over the demo database: everything suql wraps breaks at blanks, so no
# line is wider than the window once the lines the terminal folded are joined (-J), and
# joining suql's own lines again gives back the text: the parsed statement (broken outside
# its quotes), an error (its excerpt cut around the caret, which still points at the
# name), :help set; :set show compact leaves two lines of plan and counters; :chart draws
# a bar a city within the window, in colour.
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$dir/demo.db"
printf '#!/bin/sh\nSUQL_HISTORY= PAGER=cat exec "%s" --offline --set llm.offline_note=off "%s"\n' \
	"$prog" "$dir/demo.db" >"$dir/w80.sh"
chmod +x "$dir/w80.sh"
t new-session -d -s w80 -x 80 -y 200 "$dir/w80.sh"
w80() { t capture-pane -p -J -t w80 -S -; }
w80_prompt() { [ "$(t capture-pane -p -t w80 | awk 'NF { l = $0 } END { print l }' | sed 's/ *$//')" = "suql>" ]; }
w80_type() { poll w80_prompt; t send-keys -t w80 -l -- "$1"; t send-keys -t w80 '\;' Enter; sleep 0.2; poll w80_prompt; }
# fits FROM TO: the joined lines from the line starting FROM to the next starting TO
fits() {
	w80 | awk -v a="$1" -v b="$2" 'index($0, a) == 1 { on = 1; next } on && index($0, b) == 1 { exit } on' >"$dir/w80.part"
	[ -s "$dir/w80.part" ] && ! awk 'length($0) > 80 { bad = 1 } END { exit !bad }' "$dir/w80.part"
}
stmt="SELECT name, rating FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' AND rating >= 4 LIMIT 3"
w80_type "$stmt"
check "80 columns: parsed, plan and counters within the window" fits "parsed:" "result:"
parsed_again() {
	w80 | awk '/^parsed:/ { on = 1; next } /^plan:/ { exit } on' >"$dir/w80.parsed"
	[ "$(sed 's/^ *//' "$dir/w80.parsed" | tr '\n' ' ' | sed 's/ $//')" = "$stmt" ] &&
		[ "$(wc -l <"$dir/w80.parsed")" -ge 2 ] && grep -q "'is it romantic?'" "$dir/w80.parsed"
}
check "80 columns: the parsed statement broken at blanks, outside its quotes" parsed_again
w80_type "SELECT name FROM restaurants WHERE rating > 3 AND location <> 'Nowhere at all' AND name <> 'nothing' AND nosuchcolumn > 1"
check "80 columns: an error within the window" fits "error: line 1, column " "suql>"
caret_under() {
	awk '/\.\.\./ && /nosuchcolumn/ { src = $0; next } src && /\^/ { print index(src, "nosuchcolumn"), index($0, "^"); exit }' "$dir/w80.part" >"$dir/w80.caret"
	read -r a b <"$dir/w80.caret" && [ "$a" -gt 0 ] && [ "$a" = "$b" ]
}
check "80 columns: a long excerpt cut around the caret, which points at the name" caret_under
w80_type ":help set"
check "80 columns: :help set within the window" fits "Settings (:set KEY VALUE" "suql>"
check "80 columns: a setting's values and default on one line" grep -qx "  show full|compact|rows (default full)" "$dir/w80.part"
w80_type ":set show compact"
w80_type "SELECT name FROM restaurants WHERE answer(reviews, 'is the patio nice?') = 'Yes' LIMIT 2"
compact_lines() {
	w80 | awk '/is the patio nice/ { on = 1; next } on && /^┌/ { exit } on' >"$dir/w80.compact"
	[ "$(wc -l <"$dir/w80.compact")" -le 4 ] && grep -q '^plan: [0-9]* LLM calls\{0,1\} expected, at most [0-9]*$' "$dir/w80.compact" &&
		grep -q '^counters: [0-9]* LLM calls\{0,1\}, 0 tokens in, 0 out, [0-9.]* m\{0,1\}s$' "$dir/w80.compact"
}
check "80 columns: show compact leaves a line of plan and one of counters" compact_lines
w80_type "SELECT location, count(*) FROM restaurants GROUP BY location"
w80_type ":chart"
bars() {   # (each block one character, whatever awk's idea of a length: bytes or characters)
	w80 | awk '/^suql> :chart/ { on = 1; next } on && /^suql>/ { exit } on' >"$dir/w80.chart"
	sed -e 's/█/#/g' -e 's/▏/#/g' -e 's/▎/#/g' -e 's/▍/#/g' -e 's/▌/#/g' -e 's/▋/#/g' \
		-e 's/▊/#/g' -e 's/▉/#/g' "$dir/w80.chart" >"$dir/w80.bars"
	[ "$(grep -c '#' "$dir/w80.bars")" = 8 ] && grep -q '^Palo Alto  *#* 24$' "$dir/w80.bars" &&
		! awk 'length($0) > 80 { bad = 1 } END { exit !bad }' "$dir/w80.bars" &&
		awk 'length($0) == 80 { ok = 1 } END { exit !ok }' "$dir/w80.bars"
}
check ":chart: a bar a city, the longest filling the 80 columns" bars
check ":chart: coloured at a terminal" sh -c "tmux -S '$sock' capture-pane -e -p -t w80 | grep -q '$esc\[36m█'"
w80_type ":set ascii on"
w80_type "SELECT 'plain' AS lines"
check ":set ascii on: a table at a terminal in ASCII lines" sh -c "tmux -S '$sock' capture-pane -p -J -t w80 -S - | grep -qx '| plain |'"

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
t send-keys -t plain -l -- ":chart"
t send-keys -t plain Enter
charted() { t capture-pane -p -t plain | grep -q '^NULL *█* 1$'; }
poll charted
check ":chart with NO_COLOR: bars with no escape at all" sh -c "tmux -S '$sock' capture-pane -p -t plain | grep -q '^NULL *█* 1\$' && ! tmux -S '$sock' capture-pane -e -p -t plain | grep -q '$esc\['"

[ "$fails" = 0 ]
