#!/bin/sh
# Transcript tests: each tests/transcripts/NAME.t runs suql once in batch mode and gives the
# exact stdout, stderr and exit status it must produce. A .t file is a few sections, each
# starting with a line "@@ ...":
#
#     # what the test is about (lines before the first section are comments)
#     @@ file script.sql        a file created in the test's directory (optional, repeatable)
#     ...its lines...
#     @@ args --csv -f script.sql   the arguments, in sh syntax (optional)
#     @@ stdin                  what suql reads on stdin (optional: /dev/null)
#     ...
#     @@ stdout                 what it must print
#     ...
#     @@ stderr
#     ...
#     @@ status 0               its exit status
#
# suql runs in a fresh directory; in args, $DB is a database path there (not yet created)
# and $TMP the directory itself. In the outputs, that directory's path reads as $TMP.
#
# Re-record the expected outputs after an intended change (then read the diff!):
#     SUQL_RECORD=1 sh tests/suites/40-transcripts.sh [NAME...]
# which rewrites the @@ stdout, @@ stderr and @@ status sections from real runs.
. "$(dirname "$0")/../lib.sh"
dir=$SUQL_TOP/tests/transcripts
unset COLUMNS   # what is written off a terminal (:chart's width) never depends on the caller's
work=$SUQL_TMP/transcripts
record=${SUQL_RECORD:-}

run_case() {       # run_case FILE.t
	t=$1
	name=$(basename "$t" .t)
	case_dir=$work/$name
	rm -rf "$case_dir"
	mkdir -p "$case_dir/run"
	: >"$case_dir/args"
	awk -v d="$case_dir" '
		function out(f) { sec = f; printf "" > (d "/" f) }
		/^@@ file / { sub(/^@@ file /, ""); out("run/" $0); next }
		/^@@ args( |$)/ { sub(/^@@ args ?/, ""); print > (d "/args"); sec = ""; next }
		/^@@ status / { sub(/^@@ status /, ""); print > (d "/exp.status"); sec = ""; next }
		/^@@ stdin$/ { out("in"); next }
		/^@@ stdout$/ { out("exp.out"); next }
		/^@@ stderr$/ { out("exp.err"); next }
		/^@@/ { print "bad section line: " $0 > "/dev/stderr"; exit 1 }
		sec != "" { print > (d "/" sec) }
	' "$t" || { echo "not ok transcript $name"; echo "# cannot read $t"; return; }
	[ -f "$case_dir/in" ] || cp /dev/null "$case_dir/in"
	for f in exp.out exp.err; do [ -f "$case_dir/$f" ] || : >"$case_dir/$f"; done
	[ -f "$case_dir/exp.status" ] || echo 0 >"$case_dir/exp.status"

	args=$(cat "$case_dir/args")
	(
		cd "$case_dir/run" || exit 99
		TMP=$case_dir/run DB=$case_dir/run/test.db
		eval "set -- $args"
		exec "$prog" "$@"
	) <"$case_dir/in" >"$case_dir/out.raw" 2>"$case_dir/err.raw"
	echo $? >"$case_dir/status"
	for f in out err; do
		sed "s|$case_dir/run|\$TMP|g" "$case_dir/$f.raw" >"$case_dir/$f"
	done

	if [ -n "$record" ]; then
		awk '/^@@ (stdout|stderr)$/ || /^@@ status / { exit } { print }' "$t" >"$case_dir/new"
		{
			echo "@@ stdout"; cat "$case_dir/out"
			echo "@@ stderr"; cat "$case_dir/err"
			echo "@@ status $(cat "$case_dir/status")"
		} >>"$case_dir/new"
		if cmp -s "$case_dir/new" "$t"; then
			echo "ok transcript $name (unchanged)"
		else
			cp "$case_dir/new" "$t"
			echo "ok transcript $name (recorded)"
		fi
		return
	fi

	bad=""
	if ! cmp -s "$case_dir/exp.out" "$case_dir/out"; then
		bad="$bad stdout"
	fi
	if ! cmp -s "$case_dir/exp.err" "$case_dir/err"; then
		bad="$bad stderr"
	fi
	if [ "$(cat "$case_dir/exp.status")" != "$(cat "$case_dir/status")" ]; then
		bad="$bad status"
	fi
	if [ -z "$bad" ]; then
		echo "ok transcript $name"
		return
	fi
	echo "not ok transcript $name:$bad differ (- expected, + got; re-record: SUQL_RECORD=1 sh $0 $name)"
	echo "# args: $args"
	for f in out err; do
		diff -u "$case_dir/exp.$f" "$case_dir/$f" | sed '1,2d; s/^/# std'"$f"' /'
	done
	echo "# status: expected $(cat "$case_dir/exp.status"), got $(cat "$case_dir/status")"
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
[ "$found" = 1 ] || echo "not ok transcripts: none found in $dir"
