# tests/engine/case.sh: the reader and runner of engine case files (tests/engine/cases/
# *.case), sourced by a suite after tests/lib.sh (it uses ok, notok, start_server, T and
# prog) and, for PostgreSQL, tests/pg.sh. One case is one statement (or a script of
# statements and meta-commands) run by suql -v with its CSV rows (no headers) and its
# plan and counters; it says where it runs, with what, and what must come out.
# doc/testing.md describes the format with an example:
#
#   @@ case NAME                 starts a case; NAME is unique in its file
#   @@ db FIXTURE [COPY]         the database (default demo): demo (tests/demo-db.sh),
#                                rareN (tests/engine/rare-db.sh, N rows), genN (build/gen's
#                                N restaurants), or WORD (tests/engine/WORD.sh PROG DB,
#                                else tests/engine/WORD.sql through suql); built once per
#                                run, and loaded once into PostgreSQL (a database of its
#                                own); cases on one fixture see each other's writes. With
#                                COPY (a word), a copy of FIXTURE of that name: the cases
#                                naming one COPY share it, no other case sees it
#   @@ backend sqlite postgres   where it runs (default both)
#   @@ args OPTIONS...           suql's options (words split at blanks; quotes keep
#                                blanks in a word, as in the shell)
#   @@ server OPTIONS...         against build/llmserver started with OPTIONS (a fresh
#                                server and log for the run) instead of --offline; its
#                                URL reads $URL in what the run printed (its port varies)
#   @@ cache NAME                cases with one NAME share a cache home (per backend; it
#                                also holds the key that signs ENUM mappings); cases
#                                without it share one of their own. Their servers are one
#                                endpoint too (as @@ endpoint NAME), unless a case names
#                                another
#   @@ endpoint NAME             cases with one NAME (per backend) have their servers listen
#                                on one port: one endpoint, whose answers kept in a cache,
#                                an ENUM mapping or embedding vectors the next case finds
#                                (keys name the endpoint); each case's server is still a
#                                fresh one, with the case's own options
#   @@ file NAME                 the lines up to the next @@, as written (a comment goes
#                                above it), are the file NAME in a folder of the case
#                                file's own, which $FILES names in args, server and sql
#                                (every case sees every file), and in what the run printed
#   @@ sql [BACKEND]             the statement, the lines up to the next @@ (but for
#                                comments); it may be several statements and meta-commands,
#                                a script run by -c (on BACKEND: this one instead of the
#                                unnamed one)
#   @@ rows [BACKEND]            the rows, CSV (all the run printed on stdout), compared
#                                sorted unless the SQL says ORDER BY
#   @@ rows-as CASE [BACKEND]    the rows of an earlier case of the file on the same backend
#                                (on SQLite when it did not run on this one)
#   @@ rows-in CASE [BACKEND]    each row is one of the rows of an earlier case (found as
#                                for rows-as): a LIMIT without ORDER BY, any rows it keeps
#   @@ rowcount N [BACKEND]      any N rows
#   @@ output-as CASE [except TEXT]  everything the run printed (rows, plan, counters) is
#                                what an earlier case printed on the same backend, but
#                                for the lines holding TEXT
#   @@ alike                     lines of TEXT: everything the run printed on PostgreSQL is
#                                what it printed on SQLite, but for the lines holding one
#                                of the TEXTs (an empty block: every line)
#   @@ counters [BACKEND]        lines LABEL OP N (OP one of = <= >= < >): the first
#                                integer after LABEL in the first line of the counters -v
#                                shows (from "counters:" on) holding both, compared
#                                (0 when the run shows counters but no LABEL)
#   @@ contains [BACKEND]        lines each found in the output (rows, plan, counters,
#                                messages), as fixed text
#   @@ absent [BACKEND]          lines found nowhere in it
#   @@ line [BACKEND]            lines each equal to a whole line of it
#   @@ messages [BACKEND]        lines each found in the messages (what suql wrote on
#                                stderr outside the sections -v prints: a heading line
#                                "WORD:" and the indented lines under it), every line of
#                                which holds one of them (an empty block: no message)
#   @@ logged [BACKEND]          lines each found in build/llmserver's log of the run (the
#                                requests as JSON: a quote in a prompt is \\\", a newline \\n)
#   @@ unlogged [BACKEND]        lines found nowhere in that log
#   @@ request N [BACKEND]       lines each found in the N-th request of that log
#   @@ status N [BACKEND]        the exit status (default 0)
#   @@ log N [BACKEND]           build/llmserver's request count (default: the counter
#                                "requests", when the run shows one)
#   @@ differ REASON             the calls may differ between the backends, for REASON
#   @@ refused BACKEND: TEXT     on BACKEND the statement is refused (non-zero status) with
#                                TEXT in its message, and nothing else is checked there
#
# In rows, counters, contains, absent, line, messages, logged, unlogged, request and alike
# blocks blank lines and lines starting with "# " are skipped (so a row cannot be empty);
# an sql block is taken as written, up to the next directive, but for its lines starting
# with "# " (no statement does); a file block is taken as written. Every case shows its
# rows (rows, rows-as, rows-in or rowcount). When a case runs on both backends its "llm
# calls" must be the same on both, unless it says why not (differ). Each run of a case
# prints one ok or not ok line; alike, when the case ran on both, one more.

# case_parse FILE DIR: the cases of FILE, one folder DIR/NNN each (in file order) holding
# a file per directive (name, db, backend, args, server, cache, sql[.BACKEND], status,
# log, rows[.BACKEND], rowsas[.BACKEND], rowcount[.BACKEND], counters[.BACKEND], ...,
# request.N[.BACKEND], refused.BACKEND), and the files of @@ file in DIR/files; prints
# nothing, fails on a directive it does not know
case_parse() {
	rm -rf "$2"
	mkdir -p "$2/files"
	awk -v dir="$2" -v file="$1" '
	function bad(m) { printf "%s:%d: %s\n", file, NR, m > "/dev/stderr"; exit 1 }
	function put(f, s) { print s >> (cur "/" f); close(cur "/" f) }
	function open_blk(f) { blk = f; printf "" > (cur "/" blk); close(cur "/" blk) }
	/^@@ / {
		n = split(substr($0, 4), w, " ")
		d = w[1]; rest = substr($0, 4 + length(d) + 1); sub(/^ +/, "", rest)
		blk = ""; fout = ""
		if (d == "case") {
			if (rest == "") bad("a case without a name")
			if (rest in seen) bad("case " rest " twice")
			seen[rest] = 1
			k++; cur = sprintf("%s/%03d", dir, k)
			system("mkdir -p \"" cur "\"")
			put("name", rest)
			next
		}
		if (d == "file") {
			if (rest !~ /^[A-Za-z0-9._-]+$/) bad("a file name of letters, digits, dots, dashes: " rest)
			if (rest in files) bad("file " rest " twice")
			files[rest] = 1
			fout = dir "/files/" rest; printf "" > fout; close(fout)
			next
		}
		if (cur == "") bad("@@ " d " before any @@ case")
		q = (n >= 2 && w[2] != "") ? "." w[2] : ""
		if (d == "sql") { open_blk("sql" q); next }
		if (d == "rows" || d == "counters" || d == "contains" || d == "absent" || d == "line" ||
		    d == "messages" || d == "logged" || d == "unlogged") { open_blk(d q); next }
		if (d == "alike") { open_blk(d); next }
		if (d == "request") {
			if (w[2] !~ /^[1-9][0-9]*$/) bad("@@ request N: N a request number")
			open_blk("request." w[2] (n >= 3 ? "." w[3] : "")); next
		}
		if (d == "rows-as" || d == "rows-in" || d == "rowcount") {
			f = (d == "rows-as") ? "rowsas" : (d == "rows-in") ? "rowsin" : "rowcount"
			# a last word naming a backend is the backend, the rest the case or number
			b = (n >= 3 && (w[n] == "sqlite" || w[n] == "postgres")) ? w[n] : ""
			t = rest; if (b != "") sub(/ +[^ ]+$/, "", t)
			put(f (b != "" ? "." b : ""), t); next
		}
		if (d == "output-as") {
			t = rest; sub(/ except .*/, "", t); put("outputas", t)
			if (index(rest, " except ")) put("except", substr(rest, index(rest, " except ") + 8))
			next
		}
		if (d == "refused") {
			b = w[2]; sub(/:$/, "", b)
			t = rest; sub(/^[^:]*: */, "", t)
			put("refused." b, t); next
		}
		if ((d == "status" || d == "log") && n == 3 && (w[3] == "sqlite" || w[3] == "postgres")) {
			put(d "." w[3], w[2]); next
		}
		if (d == "db" || d == "backend" || d == "args" || d == "server" || d == "cache" ||
		    d == "endpoint" || d == "status" || d == "log" || d == "differ") { put(d, rest); next }
		bad("unknown directive @@ " d)
	}
	fout != "" { print >> fout; close(fout); next }
	blk ~ /^sql/ && $0 !~ /^# / { put(blk, $0); next }
	blk != "" && ($0 ~ /^[ \t]*$/ || $0 ~ /^# /) { next }
	blk != "" { put(blk, $0); next }
	$0 ~ /^[ \t]*$/ || $0 ~ /^#/ { next }
	{ bad("text outside a block: " $0) }
	' "$1"
}

# case_fixture DB: the SQLite file of the database DB names (FIXTURE [COPY]), built on
# first use; FIXTURE as built stays in $T/fixtures/FIXTURE.built.db, which each COPY (and
# FIXTURE's own file, which the cases on it write to) starts from
case_fixture() {
	_n=${1%% *}
	_f=$T/fixtures/$(echo "$1" | tr ' ' '.').db
	_b=$T/fixtures/$_n.built.db
	if [ ! -f "$_b" ]; then
		mkdir -p "$T/fixtures"
		case $_n in
		demo) sh tests/demo-db.sh "$_b" ;;
		rare[0-9]*) sh tests/engine/rare-db.sh "$prog" "$_b" "${_n#rare}" ;;
		gen[0-9]*) "$SUQL_BUILD/gen" -n "${_n#gen}" --db "$_b" --quiet >/dev/null 2>&1 ;;
		*) if [ -f "tests/engine/$_n.sh" ]; then sh "tests/engine/$_n.sh" "$prog" "$_b"
		   else "$prog" "$_b" >/dev/null 2>&1 <"tests/engine/$_n.sql"; fi ;;
		esac
	fi
	[ -f "$_f" ] || cp "$_b" "$_f"
	echo "$_f"
}

# case_pg DB: the URI of the database DB names in PostgreSQL (database
# ${PG_DBNAME}_FIXTURE[_COPY]),
# loaded on first use from FIXTURE as built; fails when it does not load
case_pg() {
	_d=${PG_DBNAME}_$(echo "$1" | tr -c 'a-z0-9\n' '_')
	if [ ! -f "$T/fixtures/$_d.pg" ]; then
		case_fixture "$1" >/dev/null
		psql -q -X -h "$PG_HOST" -p "$PG_PORT" -U suql -d postgres -c "CREATE DATABASE $_d" \
			>/dev/null 2>&1 || return 1
		PG_DB=$_d pg_load_demo "$T/fixtures/${1%% *}.built.db" || return 1
		: >"$T/fixtures/$_d.pg"
	fi
	echo "postgresql://suql@/$_d?host=$PG_HOST&port=$PG_PORT"
}

# case_text FILE: FILE's text with $FILES made the folder of the case file's files
# (_files, set by case_one)
case_text() {
	sed "s|\\\$FILES|$_files|g" "$1"
}

# case_words FILE: the words of FILE's line, one a line (split at blanks; quotes, ' or ",
# keep blanks in a word; $FILES made the files' folder); nothing when FILE is missing or
# empty
case_words() {
	[ -s "$1" ] && case_text "$1" | xargs -r printf '%s\n'
}

# case_get DIR FILE BACKEND: the path of FILE.BACKEND in DIR, else of FILE, else nothing
case_get() {
	if [ -f "$1/$2.$3" ]; then echo "$1/$2.$3"; elif [ -f "$1/$2" ]; then echo "$1/$2"; fi
}

# case_value LABEL FILE: the first integer after LABEL in the first line of FILE's
# counters (the lines from "counters:" on) that holds LABEL and a number after it
case_value() {
	awk -v l="$1" '/^counters:/ { c = 1 } c && index($0, l) { s = substr($0, index($0, l) + length(l))
		if (match(s, /[0-9]+/)) { print substr(s, RSTART, RLENGTH); exit } }' "$2"
}

# case_sorted SQLFILE: stdin sorted unless the SQL says ORDER BY
case_sorted() {
	if grep -qi 'order by' "$1"; then cat; else LC_ALL=C sort; fi
}

# case_messages FILE: the lines of FILE (suql's stderr) outside the sections -v prints (a
# line "WORD:" and the indented lines under it)
case_messages() {
	awk '/^[A-Za-z][A-Za-z -]*:$/ { s = 1; next } s && /^ / { next } { s = 0; print }' "$1"
}

# case_find CASEDIR NAME BACKEND EXT: the file EXT of the run of the case NAME in CASEDIR's
# file on BACKEND, else on SQLite (when it did not run on BACKEND); nothing when none
case_find() {
	_r=""
	for _x in "$(dirname "$1")"/*; do
		[ -f "$_x/name" ] && [ "$(cat "$_x/name")" = "$2" ] && _r=$_x
	done
	if [ -n "$_r" ] && [ -f "$_r/$3.$4" ]; then echo "$_r/$3.$4"
	elif [ -n "$_r" ] && [ -f "$_r/sqlite.$4" ]; then echo "$_r/sqlite.$4"; fi
}

# case_earlier FILE DIRECTIVE (while a case runs: $_c, $_bk): the sorted rows of the earlier
# case FILE names, in _r; 1, with the reason added to _why, when no such case ran before
case_earlier() {
	_r=$(case_find "$_c" "$(cat "$1")" "$_bk" sorted)
	[ -n "$_r" ] && return 0
	_why="$_why|$2 $(cat "$1"): no such case run before"
	return 1
}

# case_one DIR BACKEND LABEL: run the case in DIR on BACKEND (sqlite or postgres); its
# outputs stay in DIR/BACKEND.*; prints one ok or not ok line
case_one() {
	_c=$1 _bk=$2 _lab=$3
	_why="" _nlog=""
	_o=$_c/$_bk
	_files=$(dirname "$_c")/files
	_dbl=$(cat "$_c/db" 2>/dev/null || echo demo)
	case $_bk in
	sqlite) _db=$(case_fixture "$_dbl") ;;
	postgres) _db=$(case_pg "$_dbl") ||
		{ notok "$_lab" "the fixture does not load into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"; return; } ;;
	esac
	_sql=$(case_get "$_c" sql "$_bk")
	[ -n "$_sql" ] || { notok "$_lab" "no @@ sql for $_bk"; return; }
	_cache=$T/cache/$_bk-$(cat "$_c/cache" 2>/dev/null || echo shared)
	if [ -f "$_c/server" ]; then
		rm -f "$T/case.log"
		case_words "$_c/server" >"$_o.words"
		set --
		while IFS= read -r _w; do set -- "$@" "$_w"; done <"$_o.words"
		# one endpoint for the cases naming it: the port of its first server
		_ep=$(cat "$_c/endpoint" 2>/dev/null || cat "$_c/cache" 2>/dev/null)
		_pf=$T/port/$_bk-$_ep
		[ -n "$_ep" ] && [ -s "$_pf" ] && set -- "$@" --port "$(cat "$_pf")"
		start_server "case" "$@"
		[ -n "$_ep" ] && mkdir -p "$T/port" && cat "$T/case.port" >"$_pf"
		set -- --llm-url "$URL" --model m
	else
		set -- --offline
	fi
	case_words "$_c/args" >"$_o.words"
	while IFS= read -r _w; do set -- "$@" "$_w"; done <"$_o.words"
	XDG_CACHE_HOME=$_cache "$prog" -v --csv --no-headers --set times=off "$@" \
		"$_db" -c "$(case_text "$_sql")" >"$_o.rows" 2>"$_o.err"
	_st=$?
	_url='@@ no server @@'
	if [ -f "$_c/server" ]; then
		stop_server
		_nlog=$(wc -l <"$LOG")
		cp "$LOG" "$_o.log"
		_url=$URL
	fi
	# the server's port and the files' folder change from run to run: they read $URL and
	# $FILES in what the run printed
	for _x in rows err; do
		sed "s|$_url|\$URL|g; s|$_files|\$FILES|g" "$_o.$_x" >"$_o.x" && mv "$_o.x" "$_o.$_x"
	done
	cat "$_o.rows" "$_o.err" >"$_o.out"
	case_messages "$_o.err" >"$_o.msg"
	case_value "llm calls:" "$_o.out" >"$_o.calls"
	_f=$(case_get "$_c" refused "$_bk")
	if [ -n "$_f" ]; then
		if [ $_st -ne 0 ] && grep -qF "$(cat "$_f")" "$_o.err"; then
			ok "$_lab: refused ($(cat "$_f"))"
		else
			notok "$_lab: refused with '$(cat "$_f")'" "status $_st" "$(head -5 "$_o.err")"
		fi
		rm -f "$_o.calls"
		return
	fi
	_want=$(cat "$(case_get "$_c" status "$_bk")" 2>/dev/null || echo 0)
	[ "$_st" = "$_want" ] || _why="$_why|status $_st, want $_want: $(grep -m2 -E '^(error|warning)' "$_o.err")"
	case_sorted "$_sql" <"$_o.rows" >"$_o.sorted"
	_f=$(case_get "$_c" rows "$_bk")
	if [ -n "$_f" ]; then
		case_sorted "$_sql" <"$_f" | cmp -s - "$_o.sorted" ||
			_why="$_why|rows differ: $(case_sorted "$_sql" <"$_f" | diff - "$_o.sorted" | head -6 | tr '\n' ' ')"
	fi
	_f=$(case_get "$_c" rowsas "$_bk")
	if [ -n "$_f" ] && case_earlier "$_f" rows-as; then
		cmp -s "$_r" "$_o.sorted" ||
			_why="$_why|rows differ from $(cat "$_f")'s: $(diff "$_r" "$_o.sorted" | head -6 | tr '\n' ' ')"
	fi
	_f=$(case_get "$_c" rowsin "$_bk")
	if [ -n "$_f" ] && case_earlier "$_f" rows-in; then
		while IFS= read -r _l; do
			grep -qxF -- "$_l" "$_r" || _why="$_why|not a row of $(cat "$_f"): $_l"
		done <"$_o.sorted"
	fi
	if [ -f "$_c/outputas" ]; then
		_r=$(case_find "$_c" "$(cat "$_c/outputas")" "$_bk" out)
		case $_r in */"$_bk".out) ;; *) _r="" ;; esac
		if [ -z "$_r" ]; then
			_why="$_why|output-as $(cat "$_c/outputas"): no such case run before on $_bk"
		else
			_x=$(cat "$_c/except" 2>/dev/null || echo '@@ nothing @@')
			grep -vF -- "$_x" "$_r" >"$_o.want"
			grep -vF -- "$_x" "$_o.out" | cmp -s "$_o.want" - ||
				_why="$_why|output differs from $(cat "$_c/outputas")'s: $(grep -vF -- "$_x" "$_o.out" | diff "$_o.want" - | head -6 | tr '\n' ' ')"
		fi
	fi
	_f=$(case_get "$_c" rowcount "$_bk")
	if [ -n "$_f" ]; then
		_n=$(wc -l <"$_o.rows")
		[ "$_n" = "$(cat "$_f")" ] || _why="$_why|$_n rows, want $(cat "$_f")"
	fi
	_f=$(case_get "$_c" counters "$_bk")
	if [ -n "$_f" ]; then
		while IFS= read -r _l; do
			_op=$(echo "$_l" | sed -n 's/.* \(<=\|>=\|=\|<\|>\) [0-9][0-9]*$/\1/p')
			_n=${_l##* }
			_k=${_l% "$_op" *}
			_v=$(case_value "$_k" "$_o.out")
			[ -z "$_v" ] && grep -q '^counters:' "$_o.out" && _v=0
			case $_op in
			"=") [ -n "$_v" ] && [ "$_v" -eq "$_n" ] ;;
			"<=") [ -n "$_v" ] && [ "$_v" -le "$_n" ] ;;
			">=") [ -n "$_v" ] && [ "$_v" -ge "$_n" ] ;;
			"<") [ -n "$_v" ] && [ "$_v" -lt "$_n" ] ;;
			">") [ -n "$_v" ] && [ "$_v" -gt "$_n" ] ;;
			*) false ;;
			esac || _why="$_why|$_l: got '$_v'"
		done <"$_f"
	fi
	_f=$(case_get "$_c" contains "$_bk")
	if [ -n "$_f" ]; then
		while IFS= read -r _l; do
			grep -qF -- "$_l" "$_o.out" || _why="$_why|missing: $_l"
		done <"$_f"
	fi
	_f=$(case_get "$_c" absent "$_bk")
	if [ -n "$_f" ]; then
		while IFS= read -r _l; do
			grep -qF -- "$_l" "$_o.out" && _why="$_why|present: $(grep -F -m1 -- "$_l" "$_o.out")"
		done <"$_f"
	fi
	_f=$(case_get "$_c" line "$_bk")
	if [ -n "$_f" ]; then
		while IFS= read -r _l; do
			grep -qxF -- "$_l" "$_o.out" || _why="$_why|no line: $_l"
		done <"$_f"
	fi
	_f=$(case_get "$_c" messages "$_bk")
	if [ -n "$_f" ]; then
		while IFS= read -r _l; do
			grep -qF -- "$_l" "$_o.msg" || _why="$_why|no message: $_l"
		done <"$_f"
		if [ -s "$_f" ]; then
			grep -vF -f "$_f" "$_o.msg" >"$_o.x"
		else
			cp "$_o.msg" "$_o.x"
		fi
		[ -s "$_o.x" ] && _why="$_why|another message: $(head -3 "$_o.x" | tr '\n' ' ')"
	fi
	for _k in logged unlogged request; do
		for _f in "$_c/$_k" "$_c/$_k".*; do
			[ -f "$_f" ] || continue
			case $_k in
			request) _n=${_f##*/request.}; _n=${_n%%.*}
			         [ "$(case_get "$_c" "request.$_n" "$_bk")" = "$_f" ] || continue ;;
			*) [ "$(case_get "$_c" "$_k" "$_bk")" = "$_f" ] || continue ;;
			esac
			[ -f "$_c/server" ] || { _why="$_why|@@ $_k without @@ server"; continue; }
			case $_k in
			request) sed -n "${_n}p" "$_o.log" >"$_o.x" ;;
			*) cp "$_o.log" "$_o.x" ;;
			esac
			while IFS= read -r _l; do
				if [ "$_k" = unlogged ]; then
					grep -qF -- "$_l" "$_o.x" && _why="$_why|in the server's log: $_l"
				else
					grep -qF -- "$_l" "$_o.x" || _why="$_why|not in the server's $([ "$_k" = request ] && echo "request $_n" || echo log): $_l"
				fi
			done <"$_f"
		done
	done
	if [ -f "$_c/server" ]; then
		_want=$(cat "$(case_get "$_c" log "$_bk")" 2>/dev/null || case_value "requests:" "$_o.out")
		[ -z "$_want" ] || [ "$_nlog" = "$_want" ] ||
			_why="$_why|the server logged $_nlog requests, want $_want"
	fi
	if [ -z "$_why" ]; then
		_cv=$(cat "$_o.calls")
		ok "$_lab (${_cv:-no} calls${_nlog:+, $_nlog requests logged})"
	else
		_IFS=$IFS; IFS='|'
		# shellcheck disable=SC2086
		notok "$_lab" ${_why#|}
		IFS=$_IFS
	fi
}

# case_file FILE [BACKEND...]: every case of FILE on each BACKEND it names (of those
# given; default sqlite postgres), then the calls compared across backends
case_file() {
	_file=$1
	shift
	[ $# -gt 0 ] || set -- sqlite postgres
	_dir=$T/cases/$(basename "$_file" .case)
	case_parse "$_file" "$_dir" || { notok "$_file does not read"; return; }
	for _c in "$_dir"/[0-9]*; do
		_name=$(cat "$_c/name")
		_on=$(cat "$_c/backend" 2>/dev/null || echo sqlite postgres)
		if [ ! -f "$_c/outputas" ] && ! ls "$_c" | grep -q '^\(rows\|rowsas\|rowsin\|rowcount\)\(\.\|$\)' &&
		   ! ls "$_c" | grep -q '^refused'; then
			notok "$(basename "$_file" .case): $_name: says nothing of its rows"
			continue
		fi
		for _be in "$@"; do
			case " $_on " in *" $_be "*) ;; *) continue ;; esac
			case_one "$_c" "$_be" "$(basename "$_file" .case): $_name [$_be]"
		done
		if [ ! -f "$_c/differ" ] && [ -s "$_c/sqlite.calls" ] && [ -s "$_c/postgres.calls" ] &&
		   ! cmp -s "$_c/sqlite.calls" "$_c/postgres.calls"; then
			notok "$(basename "$_file" .case): $_name: the same calls on both backends" \
				"SQLite $(cat "$_c/sqlite.calls"), PostgreSQL $(cat "$_c/postgres.calls")"
		fi
		if [ -f "$_c/alike" ] && [ -f "$_c/sqlite.out" ] && [ -f "$_c/postgres.out" ] &&
		   ! ls "$_c" | grep -q '^refused'; then
			for _be in sqlite postgres; do
				if [ -s "$_c/alike" ]; then grep -vF -f "$_c/alike" "$_c/$_be.out"
				else cat "$_c/$_be.out"; fi >"$_c/$_be.alike"
			done
			if cmp -s "$_c/sqlite.alike" "$_c/postgres.alike"; then
				ok "$(basename "$_file" .case): $_name: alike on both backends"
			else
				notok "$(basename "$_file" .case): $_name: alike on both backends" \
					"$(diff "$_c/sqlite.alike" "$_c/postgres.alike" | head -8)"
			fi
		fi
	done
}
