#!/bin/sh
# The README's script examples must print what the README shows. Every command line shown
# as `$ COMMAND` in an indented block of README.md is taken in README order and run in one
# scratch directory where ./suql is the program under test and the demo database path the
# README uses holds a fresh copy of the demo database (tests/demo-db.sh), with a home
# directory of its own; /tmp/ in a command stands for a scratch directory, and its path
# (and the home's, shown as /home/me) reads back as the README writes it. The output (standard output and standard error as
# one stream, as a terminal interleaves them) must be the text under the command, except:
#     a line that is only `...`   stands for any number of lines (none included);
#     a `time:` counter line      is compared without its figures, and so are a
#                                 request's time `(... in 4 ms)` and the time that
#                                 ends a compact `counters:` line (`..., 4.8 ms`).
# `$ cat FILE` writes FILE from the text shown (a file under ~ lasts for its block only);
# `$ export ...` holds for the rest of its block. Terminal sessions (`suql>` lines, in the
# block of their command and in the blocks after it that begin at a prompt) are typed into
# suql at a tmux terminal and the screen is compared in the same way (see session below);
# without tmux they are replayed through standard input for their effects only, with a skip
# line. A command or session whose block has a line `<!-- server: ARGS -->` above it runs
# against build/llmserver started with ARGS on a free port, shown as 127.0.0.1:8099; one that
# names port 8099 without it is skipped (the server must be started by hand). The example of
# an endpoint with nothing listening expects nothing on 127.0.0.1:9 (the discard port).
#
# To see what every example prints now: SUQL_SHOW=1 sh tests/suites/44-readme.sh
. "$(dirname "$0")/../lib.sh"
readme=$SUQL_TOP/README.md
dir=$SUQL_TMP/readme
work=$dir/run
items=$dir/items
rm -rf "$dir"
mkdir -p "$work/build" "$work/tmp" "$work/home" "$items"
ln -s "$prog" "$work/suql"
# the README's ~ and its defaults (cache, config, history), never the user's
export HOME=$work/home
unset XDG_CONFIG_HOME XDG_CACHE_HOME XDG_STATE_HOME SUQL_HISTORY SUQL_LLM_URL SUQL_LLM_KEY \
	SUQL_MODEL SUQL_EMBED_MODEL OPENAI_API_KEY OPENAI_BASE_URL PAGER COLUMNS NO_COLOR SUQL_TRACE_SQL
if ! SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$work/build"/demo.db 2>"$dir/err"; then
	echo "not ok readme: the demo database builds"
	sed 's/^/# /' "$dir/err"
	exit 0
fi

# Split the README into items: N.cmd (the command), N.exp (the text under it), N.where
# ("LINE BLOCK"). A block is a run of lines indented by four spaces (blank lines inside
# it included); a command whose double quotes are not closed goes on on the next line.
# A terminal session goes on in the blocks after it that begin at a prompt (`suql> `,
# `chat> `), until the next `$` command: their lines are added to its N.exp. Such a block
# with no session open starts one of its own (`./suql build/demo.db`, N.implicit: the
# banner is not shown). A line `<!-- server: ARGS -->` above a block starts build/llmserver
# with ARGS for the next command or session (N.server): its 127.0.0.1:8099 is that server.
awk -v d="$items" '
	function server_for(i) { if (server != "") { print server > (d "/" i ".server"); close(d "/" i ".server"); server = "" } }
	function flush_blanks() { while (blanks > 0) { if (cur > 0 && !incmd) print "" > (d "/" cur ".exp"); blanks-- } }
	/^    / || /^\t/ {
		line = $0; sub(/^(    |\t)/, "", line)
		if (!inblock) {
			block++; inblock = 1; blanks = 0; cur = 0
			if (line ~ /^(suql|chat)> /) {
				if (sess > 0) cur = sess
				else {
					n++; cur = sess = n
					printf "./suql build/demo.db" > (d "/" n ".cmd"); close(d "/" n ".cmd")
					printf "" > (d "/" n ".implicit"); close(d "/" n ".implicit")
					printf "" > (d "/" n ".exp")
					print NR, block > (d "/" n ".where"); close(d "/" n ".where")
					server_for(n)
				}
			}
		}
		flush_blanks()
		if (incmd) {
			printf "\n%s", line > (d "/" n ".cmd")
			if (gsub(/"/, "\"", line) % 2 == 1) incmd = 0
			if (!incmd) close(d "/" n ".cmd")
			next
		}
		if (line ~ /^\$ /) {
			n++; cur = n; sess = 0
			cmd = substr(line, 3)
			printf "%s", cmd > (d "/" n ".cmd")
			printf "" > (d "/" n ".exp")
			print NR, block > (d "/" n ".where")
			close(d "/" n ".where")
			server_for(n)
			incmd = (gsub(/"/, "\"", cmd) % 2 == 1)
			if (!incmd) close(d "/" n ".cmd")
			next
		}
		if (cur > 0) {
			print line > (d "/" cur ".exp")
			if (line ~ /^(suql|chat)> /) sess = cur
		}
		next
	}
	/^<!-- server: .* -->$/ { server = substr($0, 14, length($0) - 17) }
	/^[ \t]*$/ { if (inblock) blanks++; next }
	{ inblock = 0; blanks = 0; incmd = 0 }
	END { print n > (d "/count") }
' "$readme"

# to_readme FILE: the paths of this run written as the README writes them
to_readme() {
	sed -e "s|127\\.0\\.0\\.1:${port:-8099}/|127.0.0.1:8099/|g" -e "s|$work/home|/home/me|g" -e "s|$work/tmp/|/tmp/|g" -e "s|$work/||g" "$1"
}
# from_readme: the README's paths made into this run's (stdin to stdout)
from_readme() {
	sed -e "s|127\\.0\\.0\\.1:8099/|127.0.0.1:${port:-8099}/|g" -e "s|/tmp/|$work/tmp/|g" -e "s|~/|$work/home/|g" -e "s|/home/me|$work/home|g"
}

# matches EXPECTED ACTUAL: whether ACTUAL is EXPECTED, `...` lines standing for any lines
matches() {
	awk '
		function norm(s) {
			if (s ~ /^ *time: /) gsub(/[0-9][0-9.]*/, "N", s)
			if (s ~ /^ *counters: /) sub(/, [0-9][0-9.]* m?s$/, ", N ms", s)
			gsub(/ in [0-9][0-9.]* m?s\)/, " in N ms)", s)
			return s
		}
		FNR == NR { e[ne++] = norm($0); next }
		{ a[na++] = norm($0) }
		END {
			i = 0; j = 0; star = -1; mark = 0
			while (j < na) {
				if (i < ne && e[i] ~ /^ *\.\.\. *$/) { star = i++; mark = j; continue }
				if (i < ne && e[i] == a[j]) { i++; j++; continue }
				if (star < 0) exit 1
				i = star + 1; j = ++mark
			}
			while (i < ne && e[i] ~ /^ *\.\.\. *$/) i++
			exit !(i == ne)
		}
	' "$1" "$2"
}

# compare N LINE SHORT: item N's README text against $dir/got, as one ok or not ok line
compare() {
	if [ -n "${SUQL_SHOW:-}" ]; then
		printf '== line %s: $ %s\n' "$2" "$(cat "$items/$1.cmd")"
		cat "$dir/got"
	fi
	if matches "$items/$1.exp" "$dir/got"; then
		printf 'ok readme: line %s: %s\n' "$2" "$3"
	else
		printf 'not ok readme: line %s: %s\n' "$2" "$3"
		echo "# (- README, + what it prints now; a line '...' in the README stands for any lines)"
		diff -u "$items/$1.exp" "$dir/got" | sed '1,2d; s/^/# /' | head -n 40
	fi
}

# A terminal session is typed into suql at a tmux terminal 100 columns wide (the width the
# README's sessions are shown at), one line at a time, each once suql shows its prompt
# again: `suql> TEXT`, ` ...> TEXT` and `chat> TEXT` are typed, `suql> ^D` is Ctrl-D, and
# a line `^C` is Ctrl-C pressed while the statement typed before it runs. The screen is what
# it printed ($dir/raw), from the banner (or, for a block with no command of its own, from
# its first prompt) to the prompt after the last line typed. The pager is cat, so a long
# result is shown as at a terminal tall enough for it.
have_tmux=""
if command -v tmux >/dev/null 2>&1; then
	have_tmux=1
	sock=$dir/tmux.sock
	limit=${SUQL_TERM_WAIT:-30}
	export TERM="${TERM:-xterm}"
	[ "$TERM" = dumb ] && TERM=xterm
	. "$SUQL_TOP/tests/tmux.sh"
	echo 'set -g history-limit 100000' >"$dir/tmux.conf"
fi
# back N: suql shows its Nth prompt and waits at it (or it has left)
back() {
	tmux_screen readme >"$dir/screen"
	grep -q '^\[suql left\]' "$dir/screen" && return 0
	[ "$(grep -c '^\(suql> \|chat> \| \.\.\.> \)' "$dir/screen")" -ge "$1" ] &&
		tail -n 1 "$dir/screen" | grep -q '^\(suql\|chat\| \.\.\.\)> *$'
}
session() {        # session N COMMAND
	t kill-server >/dev/null 2>&1
	cat >"$dir/run.sh" <<EOF
#!/bin/sh
trap : INT
cd '$work' && . '$env_file' && export PAGER=cat && $2
echo '[suql left]'
exec sleep 600
EOF
	chmod +x "$dir/run.sh"
	t -f "$dir/tmux.conf" new-session -d -s readme -x 100 -y 50 "$dir/run.sh"
	# what to do, one line each: "T TEXT" type it and wait for the prompt, "W TEXT" type it
	# and give it a moment to start (Ctrl-C comes next), "C" Ctrl-C, "D" Ctrl-D
	from_readme <"$items/$1.exp" | awk '
		$0 == "^C" { if (p != "") print "W " substr(p, 3); p = ""; print "C"; next }
		$0 == "suql> ^D" { if (p != "") print p; p = ""; print "D"; next }
		/^(suql|chat)> / || /^ \.\.\.> / { if (p != "") print p; p = "T " substr($0, index($0, "> ") + 2) }
		END { if (p != "") print p }' >"$dir/actions"
	seen=1
	poll back 1
	while IFS= read -r a; do
		case $a in
		C) t send-keys -t readme C-c ;;
		D) seen=$((seen + 1)); t send-keys -t readme C-d ;;
		W*) tmux_type readme "${a#W }"; sleep 1; continue ;;
		T*) seen=$((seen + 1)); tmux_type readme "${a#T }" ;;
		esac
		poll back "$seen"
	done <"$dir/actions"
	# the prompt suql waits at after the last line is left out, unless the README shows it
	keep=$(sed '/^ *$/d' "$items/$1.exp" | tail -n 1 | grep -c '^\(suql\|chat\)> *$')
	tmux_screen readme | sed 's/ *$//' | awk -v keep="$keep" -v implicit="$([ -f "$items/$1.implicit" ] && echo 1)" '
		/^\[suql left\]$/ { exit }
		implicit && !on && !/^(suql|chat)> / { next }
		{ on = 1; l[++n] = $0 }
		END { if (!keep && n > 0 && l[n] ~ /^(suql|chat)>$/) n--; for (i = 1; i <= n; i++) print l[i] }' >"$dir/raw"
	t kill-server >/dev/null 2>&1
}

# the test server of an item with N.server, on a free port ($port)
server_pid="" port=""
stop_server() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	server_pid="" port=""
}
start_server() {   # start_server N
	rm -f "$dir/port"
	# shellcheck disable=SC2046 # the README's arguments, split as a shell would
	(cd "$SUQL_TOP" && exec "$SUQL_BUILD/llmserver" --port-file "$dir/port" $(cat "$items/$1.server")) \
		2>"$dir/server.err" &
	server_pid=$!
	i=0
	while [ ! -s "$dir/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$dir/port" 2>/dev/null)
}
trap 'stop_server; [ -z "$have_tmux" ] || t kill-server >/dev/null 2>&1' EXIT

env_file=$dir/env
home_files=$dir/home-files
: >"$env_file"
: >"$home_files"
last_block=""
count=$(cat "$items/count")
[ "$count" -gt 0 ] 2>/dev/null || { echo "not ok readme: no examples found in README.md"; exit 0; }
k=0
while [ $k -lt "$count" ]; do
	k=$((k + 1))
	read -r line block <"$items/$k.where"
	if [ "$block" != "$last_block" ]; then
		: >"$env_file"
		xargs rm -f <"$home_files"
		: >"$home_files"
		last_block=$block
	fi
	stop_server
	[ -f "$items/$k.server" ] && start_server "$k"
	cmd=$(from_readme <"$items/$k.cmd")
	short=$(head -n 1 "$items/$k.cmd" | cut -c 1-70)
	case $cmd in
	"export "*)
		printf '%s\n' "$cmd" >>"$env_file"
		continue ;;
	"cat "*)
		f=${cmd#cat }
		case $f in /*) ;; *) f=$work/$f ;; esac
		mkdir -p "$(dirname "$f")"
		from_readme <"$items/$k.exp" >"$f"
		case $f in "$work/home/"*) echo "$f" >>"$home_files" ;; esac
		continue ;;
	esac
	case $cmd in
	*:8099*)
		printf 'skip readme: line %s (%s): needs build/llmserver started by hand\n' "$line" "$short"
		continue ;;
	esac
	if grep -q '^\(suql\|chat\)> ' "$items/$k.exp"; then
		if [ -z "$port" ] && grep -q ':8099' "$items/$k.exp"; then
			printf 'skip readme: line %s (%s): a session that needs build/llmserver started by hand\n' \
				"$line" "$short"
		elif [ -z "$have_tmux" ]; then
			sed -n 's/^suql> //p; s/^ \.\.\.> //p' "$items/$k.exp" | from_readme >"$dir/stdin"
			(cd "$work" && . "$env_file" && eval "$cmd") <"$dir/stdin" >/dev/null 2>&1
			printf 'skip readme: line %s (%s): a terminal session, replayed through stdin for its effects only (no tmux)\n' \
				"$line" "$short"
		else
			session "$k" "$cmd"
			to_readme "$dir/raw" >"$dir/got"
			compare "$k" "$line" "$short"
		fi
		continue
	fi
	(cd "$work" && . "$env_file" && eval "{ $cmd
}" </dev/null 2>&1) >"$dir/raw"
	to_readme "$dir/raw" >"$dir/got"
	compare "$k" "$line" "$short"
done
