#!/bin/sh
# Chat mode, through scripted conversations: each tests/chat/NAME.t starts build/llmserver
# with a rules file that plays the model (the rules match the step each prompt names, and
# "times": 1 rules answer in turn), runs suql in batch mode on a copy of the demo database
# with the conversation on stdin (one turn a line), and checks what suql printed, the
# requests the server received (which steps, in which order, and what their messages said),
# the database afterwards, and files such as a :save. A .t file is sections starting "@@":
#
#     # comments (lines before the first section)
#     @@ rules                the server's rules (JSON); without them no server runs and no
#     [...]                   model is configured
#     @@ rules-file PATH      the rules of a file of the tree instead (such as the shipped
#                             fixtures/chat/demo-rules.json)
#     @@ server --key K       more llmserver options
#     @@ db demo              demo (built afresh by tests/demo-db.sh, the default), empty, clothing or
#                             hybridqa (build/*.db from `make fixtures`; skipped when absent)
#     @@ setup                SUQL run on $DB before the conversation
#     @@ file NAME            a file in the run directory (repeatable)
#     @@ env                  VAR=VALUE lines for suql, after SUQL_LLM_URL=$URL and
#                             SUQL_MODEL=test-model
#     @@ args --chat $DB      suql's arguments in sh syntax (the default); $DB, $TMP, $URL
#     @@ stdin / @@ stdout / @@ stderr / @@ status N     as in tests/transcripts
#     @@ requests             one line a turn: the steps the server was asked, in order
#     parse respond           (parse, repair, relax, respond, empty, short; other requests,
#                             such as the engine's own, are left out)
#     @@ request parse 2      checks on the messages of the 2nd parse request: lines
#     + TEXT                  "+ TEXT" (must appear) and "- TEXT" (must not)
#     @@ unchanged            the user tables are the same after the conversation as before
#     @@ check                sh lines run in the run directory; each must succeed. The
#                             function `jsonl FILE SQL` runs SQL over the view turns(j), one
#                             row per JSON line of FILE, and prints the result; `trips LOG
#                             GAP` counts the sequential round trips in the server's log
#                             (../log): requests that arrive more than GAP ms after the one
#                             before start a new one (with `@@ server --delay MS` above GAP).
#
# In stdout and stderr, the run directory reads as $TMP and the server's URL as $URL.
# Re-record stdout, stderr and status after an intended change (then read the diff!):
#     SUQL_RECORD=1 sh tests/suites/60-chat.sh [NAME...]
. "$(dirname "$0")/../lib.sh"
build=$SUQL_BUILD
case $build in /*) ;; *) build=$SUQL_TOP/$build ;; esac
dir=$SUQL_TOP/tests/chat
work=$SUQL_TMP/chat
record=${SUQL_RECORD:-}
mkdir -p "$work"
demo_db=$work/demo-template.db
sh "$SUQL_TOP/tests/demo-db.sh" "$demo_db" || { echo "not ok chat: the demo database builds"; exit 0; }
unset SUQL_LLM_URL SUQL_LLM_KEY SUQL_MODEL OPENAI_API_KEY OPENAI_BASE_URL

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "skip chat: the sqlite3 shell is not installed (scripts/deps.sh installs it)"
	exit 0
fi

SPID=""
stop_server() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=""; }
trap 'stop_server; [ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"' EXIT

# The messages of line N of the server's log, decoded: "role: content" per message.
messages() {   # messages LOG N
	sed -n "${2}p" "$1" >"$case_dir/req.json"
	(cd "$case_dir" && sqlite3 :memory: "SELECT group_concat(json_extract(value, '\$.role') ||
		': ' || json_extract(value, '\$.content'), char(10)) FROM json_each(json_extract(
		json_extract(readfile('req.json'), '\$.body'), '\$.messages'))")
}

# The step a request is, from the task its prompt names.
step_of() {
	case $1 in
	*"could not be used"*) echo repair ;;
	*"Task: write one SUQL"*) echo parse ;;
	*"Task: loosen"*) echo relax ;;
	*"Task: answer the user"*) echo respond ;;
	*"Task: tell the user"*) echo empty ;;
	*"Task: extract the short answer"*) echo short ;;
	*) echo other ;;
	esac
}

jsonl() {   # jsonl FILE SQL: SQL over turns(j), one row per line of FILE
	sqlite3 :memory: "CREATE TABLE turns(j); INSERT INTO turns SELECT value FROM json_each(
		'[' || replace(rtrim(CAST(readfile('$1') AS TEXT), char(10)), char(10), ',') || ']');
		$2"
}

trips() {   # trips LOG GAP: sequential round trips in a server log (as bench/table.sh)
	sed -n 's/.*"t_ms": *\([0-9.]*\).*/\1/p' "$1" | sort -n |
		awk -v gap="$2" 'NR == 1 || $1 - prev > gap { n++ } { prev = $1 } END { print n + 0 }'
}

user_tables() {   # the user tables' contents, for @@ unchanged
	sqlite3 "$1" .dump | grep -v 'suql_'
}

run_case() {
	t=$1
	name=$(basename "$t" .t)
	case_dir=$work/$name
	rm -rf "$case_dir"
	mkdir -p "$case_dir/run"
	awk -v d="$case_dir" '
		function out(f,  dd) {
			sec = f; dd = f
			if (sub(/\/[^\/]*$/, "", dd)) system("mkdir -p \"" d "/" dd "\"")
			printf "" > (d "/" f)
		}
		/^@@ file / { sub(/^@@ file /, ""); out("run/" $0); next }
		/^@@ args( |$)/ { sub(/^@@ args ?/, ""); print > (d "/args"); sec = ""; next }
		/^@@ server( |$)/ { sub(/^@@ server ?/, ""); print > (d "/server"); sec = ""; next }
		/^@@ rules-file / { sub(/^@@ rules-file /, ""); print > (d "/rules-file"); sec = ""; next }
		/^@@ db / { sub(/^@@ db /, ""); print > (d "/db"); sec = ""; next }
		/^@@ status / { sub(/^@@ status /, ""); print > (d "/exp.status"); sec = ""; next }
		/^@@ request [a-z]+ [0-9]+$/ { nreq++; f = "req." nreq; print $3 " " $4 > (d "/" f ".which"); out(f); next }
		/^@@ (rules|setup|env|stdin|stdout|stderr|requests|check)$/ {
			s = substr($0, 4); if (s == "stdout") s = "exp.out"; if (s == "stderr") s = "exp.err"
			if (s == "requests") s = "exp.steps"; out(s); next }
		/^@@ unchanged$/ { printf "" > (d "/unchanged"); sec = ""; next }
		/^@@/ { print "bad section line: " $0 > "/dev/stderr"; exit 1 }
		sec != "" { print > (d "/" sec) }
	' "$t" || { echo "not ok chat $name"; echo "# cannot read $t"; return; }
	for f in exp.out exp.err; do [ -f "$case_dir/$f" ] || : >"$case_dir/$f"; done
	[ -f "$case_dir/rules-file" ] && cp "$SUQL_TOP/$(cat "$case_dir/rules-file")" "$case_dir/rules"
	[ -f "$case_dir/exp.status" ] || echo 0 >"$case_dir/exp.status"
	[ -f "$case_dir/in" ] || [ ! -f "$case_dir/stdin" ] || mv "$case_dir/stdin" "$case_dir/in"
	[ -f "$case_dir/in" ] || : >"$case_dir/in"
	[ -f "$case_dir/args" ] || echo '--chat $DB' >"$case_dir/args"

	DB=$case_dir/run/test.db
	db=$(cat "$case_dir/db" 2>/dev/null || echo demo)
	case $db in
	demo) cp "$demo_db" "$DB" ;;
	empty) ;;
	clothing|hybridqa)
		if [ ! -f "$build/$db.db" ]; then
			echo "skip chat $name: $build/$db.db not built (make fixtures)"
			return
		fi
		cp "$build/$db.db" "$DB" ;;
	*) echo "not ok chat $name"; echo "# unknown @@ db $db"; return ;;
	esac
	if [ -f "$case_dir/setup" ] && ! "$prog" --bail "$DB" <"$case_dir/setup" >"$case_dir/setup.out" 2>&1; then
		echo "not ok chat $name"; echo "# @@ setup failed:"; sed 's/^/# /' "$case_dir/setup.out"; return
	fi
	[ -f "$case_dir/unchanged" ] && user_tables "$DB" >"$case_dir/before.sql"

	URL=http://127.0.0.1:9/v1
	log=$case_dir/log
	: >"$log"
	if [ -f "$case_dir/rules" ]; then
		# shellcheck disable=SC2046
		llmserver_start "$case_dir" "$case_dir/rules" $(cat "$case_dir/server" 2>/dev/null)
	fi
	args=$(cat "$case_dir/args")
	(
		cd "$case_dir/run" || exit 99
		export XDG_CACHE_HOME="$case_dir/cache"
		if [ -f "$case_dir/rules" ]; then
			export SUQL_LLM_URL="$URL" SUQL_MODEL=test-model
		fi
		if [ -f "$case_dir/env" ]; then
			while IFS= read -r kv; do
				[ -n "$kv" ] && eval "export $kv"
			done <"$case_dir/env"
		fi
		TMP=$case_dir/run
		eval "set -- $args"
		exec "$prog" "$@"
	) <"$case_dir/in" >"$case_dir/out.raw" 2>"$case_dir/err.raw"
	echo $? >"$case_dir/status"
	stop_server
	for f in out err; do
		sed -e "s|$case_dir/run|\$TMP|g" -e "s|$URL|\$URL|g" "$case_dir/$f.raw" >"$case_dir/$f"
	done

	if [ -n "$record" ]; then
		awk '/^@@ (stdout|stderr)$/ || /^@@ status / { skip = 1; next }
		     /^@@/ { skip = 0 } !skip { print }' "$t" >"$case_dir/keep"
		{
			awk '/^@@ (requests|unchanged|check)$/ || /^@@ request / { exit } { print }' "$case_dir/keep"
			echo "@@ stdout"; cat "$case_dir/out"
			echo "@@ stderr"; cat "$case_dir/err"
			echo "@@ status $(cat "$case_dir/status")"
			awk '/^@@ (requests|unchanged|check)$/ || /^@@ request / { p = 1 } p { print }' "$case_dir/keep"
		} >"$case_dir/new"
		if cmp -s "$case_dir/new" "$t"; then
			echo "ok chat $name (unchanged)"
		else
			cp "$case_dir/new" "$t"
			echo "ok chat $name (recorded)"
		fi
		return
	fi

	# what suql printed
	bad=""
	cmp -s "$case_dir/exp.out" "$case_dir/out" || bad="$bad stdout"
	cmp -s "$case_dir/exp.err" "$case_dir/err" || bad="$bad stderr"
	[ "$(cat "$case_dir/exp.status")" = "$(cat "$case_dir/status")" ] || bad="$bad status"
	if [ -z "$bad" ]; then
		echo "ok chat $name: output"
	else
		echo "not ok chat $name: output:$bad differ (- expected, + got; re-record: SUQL_RECORD=1 sh $0 $name)"
		for f in out err; do
			diff -u "$case_dir/exp.$f" "$case_dir/$f" | sed '1,2d; s/^/# std'"$f"' /'
		done
		echo "# status: expected $(cat "$case_dir/exp.status"), got $(cat "$case_dir/status")"
	fi

	# the requests: decode each, name its step
	n=$(wc -l <"$log" | tr -d ' ')
	steps=""
	i=1
	while [ "$i" -le "$n" ]; do
		messages "$log" "$i" >"$case_dir/msg.$i"
		s=$(step_of "$(cat "$case_dir/msg.$i")")
		echo "$s" >"$case_dir/step.$i"
		[ "$s" != other ] && steps="$steps $s"
		i=$((i + 1))
	done
	steps=${steps# }
	if [ -f "$case_dir/exp.steps" ]; then
		want=$(tr -s ' \n' '  ' <"$case_dir/exp.steps" | sed 's/^ //; s/ $//')
		if [ "$want" = "$steps" ]; then
			echo "ok chat $name: requests"
		else
			echo "not ok chat $name: requests"
			echo "# expected: $want"
			echo "# got:      $steps"
		fi
	fi
	k=1
	while [ -f "$case_dir/req.$k.which" ]; do
		set -- $(cat "$case_dir/req.$k.which")
		want_step=$1 want_n=$2
		found="" seen=0 i=1
		while [ "$i" -le "$n" ]; do
			if [ "$(cat "$case_dir/step.$i")" = "$want_step" ]; then
				seen=$((seen + 1))
				[ "$seen" -eq "$want_n" ] && found=$case_dir/msg.$i
			fi
			i=$((i + 1))
		done
		label="chat $name: request $want_step $want_n"
		if [ -z "$found" ]; then
			echo "not ok $label"; echo "# there were only $seen $want_step requests"
		else
			fails=""
			while IFS= read -r line; do
				case $line in
				"+ "*) grep -qF -- "${line#+ }" "$found" || fails="$fails
# missing: ${line#+ }" ;;
				"- "*) ! grep -qF -- "${line#- }" "$found" || fails="$fails
# present: ${line#- }" ;;
				"") ;;
				*) fails="$fails
# bad check line: $line" ;;
				esac
			done <"$case_dir/req.$k"
			if [ -z "$fails" ]; then
				echo "ok $label"
			else
				echo "not ok $label$fails"
				echo "# the request's messages:"; sed 's/^/#   /' "$found" | head -n 80
			fi
		fi
		k=$((k + 1))
	done

	if [ -f "$case_dir/unchanged" ]; then
		user_tables "$DB" >"$case_dir/after.sql"
		if cmp -s "$case_dir/before.sql" "$case_dir/after.sql" && [ -s "$case_dir/after.sql" ]; then
			echo "ok chat $name: database unchanged"
		else
			echo "not ok chat $name: database unchanged"
			diff "$case_dir/before.sql" "$case_dir/after.sql" | head -n 20 | sed 's/^/# /'
		fi
	fi

	if [ -f "$case_dir/check" ]; then
		while IFS= read -r line; do
			[ -z "$line" ] && continue
			if (cd "$case_dir/run" && eval "$line") >"$case_dir/check.out" 2>&1; then
				echo "ok chat $name: check $line"
			else
				echo "not ok chat $name: check $line"
				sed 's/^/# /' "$case_dir/check.out" | head -n 20
			fi
		done <"$case_dir/check"
	fi
}

found=0
if [ $# -gt 0 ]; then
	for n in "$@"; do
		run_case "$dir/${n%.t}.t"
		found=1
	done
else
	for t in "$dir"/*.t; do
		[ -f "$t" ] || continue
		run_case "$t"
		found=1
	done
fi
[ "$found" = 1 ] || echo "not ok chat: no conversations in $dir"
exit 0
