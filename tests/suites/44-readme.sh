#!/bin/sh
# The README's script examples must print what the README shows. Every command line shown
# as `$ COMMAND` in an indented block of README.md is taken in README order and run in one
# scratch directory where ./suql is the program under test and the demo database path the
# README uses holds a fresh copy of the demo database (tests/demo-db.sh), with a home
# directory of its own; /tmp/ in a command stands for a scratch directory, and its path
# (and the home's, shown as /home/me) reads back as the README writes it. The output (standard output and standard error as
# one stream, as a terminal interleaves them) must be the text under the command, except:
#     a line that is only `...`   stands for any number of lines (none included);
#     a `time:` counter line      is compared without its figures.
# `$ cat FILE` writes FILE from the text shown (a file under ~ lasts for its block only);
# `$ export ...` holds for the rest of its block. Not compared, each with a skip line:
# commands that need the test server started by hand (port 8099), and terminal sessions
# (`suql>` lines), which are replayed through standard input for their effects only
# (tests/suites/41-terminal.sh tries the REPL itself at a terminal). The example of an
# endpoint with nothing listening expects nothing on 127.0.0.1:9 (the discard port).
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
awk -v d="$items" '
	function flush_blanks() { while (blanks > 0) { if (n_inblock > 0 && !incmd) print "" > (d "/" n ".exp"); blanks-- } }
	/^    / || /^\t/ {
		if (!inblock) { block++; inblock = 1; blanks = 0; n_inblock = 0 }
		flush_blanks()
		line = $0; sub(/^(    |\t)/, "", line)
		if (incmd) {
			printf "\n%s", line > (d "/" n ".cmd")
			if (gsub(/"/, "\"", line) % 2 == 1) incmd = 0
			if (!incmd) close(d "/" n ".cmd")
			next
		}
		if (line ~ /^\$ /) {
			n++; n_inblock++
			cmd = substr(line, 3)
			printf "%s", cmd > (d "/" n ".cmd")
			printf "" > (d "/" n ".exp")
			print NR, block > (d "/" n ".where")
			close(d "/" n ".where")
			incmd = (gsub(/"/, "\"", cmd) % 2 == 1)
			if (!incmd) close(d "/" n ".cmd")
			next
		}
		if (n_inblock > 0) print line > (d "/" n ".exp")
		next
	}
	/^[ \t]*$/ { if (inblock) blanks++; next }
	{ inblock = 0; blanks = 0; incmd = 0 }
	END { print n > (d "/count") }
' "$readme"

# to_readme FILE: the paths of this run written as the README writes them
to_readme() {
	sed -e "s|$work/home|/home/me|g" -e "s|$work/tmp/|/tmp/|g" -e "s|$work/||g" "$1"
}
# from_readme: the README's paths made into this run's (stdin to stdout)
from_readme() {
	sed -e "s|/tmp/|$work/tmp/|g" -e "s|~/|$work/home/|g" -e "s|/home/me|$work/home|g"
}

# matches EXPECTED ACTUAL: whether ACTUAL is EXPECTED, `...` lines standing for any lines
matches() {
	awk '
		function norm(s) { if (s ~ /^ *time: /) gsub(/[0-9][0-9.]*/, "N", s); return s }
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
	if grep -q '^suql> ' "$items/$k.exp"; then
		sed -n 's/^suql> //p; s/^ \.\.\.> //p' "$items/$k.exp" | from_readme >"$dir/stdin"
		(cd "$work" && . "$env_file" && eval "$cmd") <"$dir/stdin" >/dev/null 2>&1
		printf 'skip readme: line %s (%s): a terminal session, replayed through stdin for its effects only\n' \
			"$line" "$short"
		continue
	fi
	(cd "$work" && . "$env_file" && eval "{ $cmd
}" </dev/null 2>&1) >"$dir/raw"
	to_readme "$dir/raw" >"$dir/got"
	if [ -n "${SUQL_SHOW:-}" ]; then
		printf '== line %s: $ %s\n' "$line" "$(cat "$items/$k.cmd")"
		cat "$dir/got"
	fi
	if matches "$items/$k.exp" "$dir/got"; then
		printf 'ok readme: line %s: %s\n' "$line" "$short"
	else
		printf 'not ok readme: line %s: %s\n' "$line" "$short"
		echo "# (- README, + what it prints now; a line '...' in the README stands for any lines)"
		diff -u "$items/$k.exp" "$dir/got" | sed '1,2d; s/^/# /' | head -n 40
	fi
done
