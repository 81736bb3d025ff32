#!/bin/sh
# The layers of src/: src/README.md gives each folder a level, and a file may include only
# headers of its own folder or of a folder on a lower level. This suite fails on an include
# that goes up or sideways, on one that does not name its folder, and on a folder the table
# does not list (or a row naming no folder). By construction, then, the only include cycles
# are inside one folder.
. "$(dirname "$0")/../lib.sh"
cd "$SUQL_TOP" || exit 2
tmp=$SUQL_TMP/layers
mkdir -p "$tmp"

# "| `engine/` | 3 | ..." -> "engine 3"
sed -n 's/^| `\([a-z_]*\)\/` | \([0-9][0-9]*\) |.*/\1 \2/p' src/README.md >"$tmp/levels"
if [ -s "$tmp/levels" ]; then
	echo "ok layers: src/README.md gives the levels ($(wc -l <"$tmp/levels") folders)"
else
	echo "not ok layers: src/README.md gives the levels"
	echo "# no '| \`folder/\` | level |' rows found"
	exit 0
fi

bad=""
for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	grep -q "^$d " "$tmp/levels" || bad="$bad $d"
done
while read -r d _; do
	[ -d "src/$d" ] || bad="$bad ($d: no such folder)"
done <"$tmp/levels"
if [ -z "$bad" ]; then
	echo "ok layers: every folder of src/ has a level, every level a folder"
else
	echo "not ok layers: every folder of src/ has a level, every level a folder"
	echo "# not in the table:$bad"
fi

# every project include, as "file folder header"
for f in src/*/*.[ch]; do
	sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		echo "$f ${f#src/} $h"
	done
done | awk '{split($2, a, "/"); print $1, a[1], $3}' >"$tmp/includes"

awk -v levels="$tmp/levels" '
	BEGIN { while ((getline l < levels) > 0) { split(l, p, " "); lv[p[1]] = p[2] } }
	{
		file = $1; mine = $2; h = $3
		n = split(h, q, "/")
		if (n != 2) { print file ": #include \"" h "\" does not name its folder"; next }
		if (!(q[1] in lv)) { print file ": #include \"" h "\": no folder " q[1] " in the table"; next }
		if (q[1] != mine && lv[q[1]] >= lv[mine])
			print file ": #include \"" h "\": " mine " (level " lv[mine] ") may not include " \
			      q[1] " (level " lv[q[1]] ")"
	}' "$tmp/includes" >"$tmp/bad"
if [ -s "$tmp/bad" ]; then
	echo "not ok layers: every include goes down the levels and names its folder"
	sed 's/^/# /' "$tmp/bad" | head -n 40
else
	echo "ok layers: every include goes down the levels and names its folder ($(wc -l <"$tmp/includes") includes)"
fi

# the headers named exist (a stale include would otherwise pass the test above)
missing=""
while read -r file _ h; do
	[ -f "src/$h" ] || [ -f "build/$h" ] || missing="$missing $file:$h"
done <"$tmp/includes"
if [ -z "$missing" ]; then
	echo "ok layers: every included header exists"
else
	echo "not ok layers: every included header exists"
	echo "# missing:$missing"
fi

# The engine's phases: every function a file of src/engine/ exports lives in the file its
# prefix names (exec_walk_block in exec_walk.c, plan_show in plan_show.c, bind_resolve in
# bind.c): the longest file name that prefixes the function's name is its file's.
obj=$SUQL_BUILD/obj/engine
case $obj in /*) ;; *) obj=$SUQL_TOP/$obj ;; esac
if ! command -v nm >/dev/null 2>&1 || [ ! -d "$obj" ]; then
	echo "skip layers: engine functions in the files their prefixes name: no nm or no objects"
else
	stems=$(for c in src/engine/*.c; do basename "$c" .c; done)
	for c in src/engine/*.c; do
		me=$(basename "$c" .c)
		[ -f "$obj/$me.o" ] || continue
		nm -g --defined-only "$obj/$me.o" | awk '$2 == "T" { print $3 }' | while read -r sym; do
			best=""
			for s in $stems; do
				case $sym in "$s" | "$s"_*) [ ${#s} -gt ${#best} ] && best=$s ;; esac
			done
			[ -n "$best" ] && [ "$best" != "$me" ] && echo "$me.c defines $sym, which belongs in $best.c"
		done
	done >"$tmp/prefix"
	if [ -s "$tmp/prefix" ]; then
		echo "not ok layers: engine functions in the files their prefixes name"
		sed 's/^/# /' "$tmp/prefix" | head -n 20
	else
		echo "ok layers: engine functions in the files their prefixes name"
	fi
fi

# The storage seam: the files outside store/ that still call SQLite directly are exactly
# those src/README.md lists (so routing one through store.h means taking it off the list,
# and a new direct caller has to say why).
sed '/^<!-- backend tests -->/,/^<!-- backend tests -->/d' src/README.md |
	sed -n 's/^- `\([a-z_0-9]*\/[a-z_0-9]*\.c\)`:.*/\1/p' | sort >"$tmp/seam.listed"
grep -l 'sqlite3_[a-z_0-9]*(' src/*/*.c | sed 's|^src/||' | grep -v '^store/' | sort >"$tmp/seam.calls"
if cmp -s "$tmp/seam.listed" "$tmp/seam.calls"; then
	echo "ok layers: src/README.md lists the files that reach SQLite around the seam ($(wc -l <"$tmp/seam.calls"))"
else
	echo "not ok layers: src/README.md lists the files that reach SQLite around the seam"
	echo "# - listed, + calls SQLite directly"
	diff "$tmp/seam.listed" "$tmp/seam.calls" | grep '^[<>]' | sed 's/^</-/; s/^>/+/; s/^/# /'
fi

# One file per backend row: PostgreSQL's code in the engine is in PostgreSQL's own files
# (exec_pg*.c, dialect_pg.c), each backend's rows of the tables (Backend, Dialect) in
# its files. No other object of the engine defines a function or data named after it
# ("pg" in the name) or calls a function of PostgreSQL's files; the rows themselves (data)
# are listed where a database picks its backend (engine.c). Fed a function of that name
# and a call of PostgreSQL's, the check must fail.
pgfile='^(exec_pg[a-z_]*|dialect_pg)\.o$'
if ! command -v nm >/dev/null 2>&1 || [ ! -d "$obj" ]; then
	echo "skip layers: PostgreSQL's code in its own files: no nm or no objects"
else
	for o in "$obj"/*.o; do
		nm "$o" | awk -v f="$(basename "$o")" '$1 == "U" { print "U", f, $2 }
		                                        $2 ~ /^[TtDdRrBb]$/ { print $2, f, $3 }'
	done >"$tmp/pgsyms"
	pgcheck() {
		awk -v pgfile="$pgfile" '
			$1 == "T" && $2 ~ pgfile { pgdef[$3] = $2 }
			$1 == "U" { use[++n] = $2 " " $3; next }
			$2 !~ pgfile && tolower($3) ~ /pg/ { print $2 " defines " $3 ", a name of PostgreSQL'"'"'s" }
			END {
				for (i = 1; i <= n; i++) {
					split(use[i], a, " ")
					if (a[1] !~ pgfile && (a[2] in pgdef))
						print a[1] " calls " a[2] " of " pgdef[a[2]]
				}
			}' "$1" | sort
	}
	pgcheck "$tmp/pgsyms" >"$tmp/pgout"
	if [ -s "$tmp/pgout" ]; then
		echo "not ok layers: PostgreSQL's code in its own files (one file per backend row)"
		sed 's/^/# /' "$tmp/pgout" | head -n 20
	else
		echo "ok layers: PostgreSQL's code in its own files (one file per backend row)"
	fi
	pgfn=$(awk -v pgfile="$pgfile" '$1 == "T" && $2 ~ pgfile { print $3; exit }' "$tmp/pgsyms")
	{ cat "$tmp/pgsyms"; echo "t exec_walk.o pg_synthetic_helper";
	  echo "U exec_statement.o $pgfn"; } >"$tmp/pgsyms.bad"
	pgcheck "$tmp/pgsyms.bad" >"$tmp/pgout.bad"
	if [ -n "$pgfn" ] && grep -q '^exec_walk.o defines pg_synthetic_helper' "$tmp/pgout.bad" &&
	   grep -q "^exec_statement.o calls $pgfn " "$tmp/pgout.bad"; then
		echo "ok layers: the check fails on a PostgreSQL name and call outside its files"
	else
		echo "not ok layers: the check fails on a PostgreSQL name and call outside its files"
		sed 's/^/# /' "$tmp/pgout.bad" | head -n 5
	fi
fi

# "Is this SQLite?": a file that asks whether the database is SQLite (store_sqlite() and
# engine_db() answer NULL for another backend) rather than asking the backend's row is
# one of those src/README.md lists (between its "<!-- backend tests -->" marks), and
# every file listed still asks; SQLite's own files (store_sqlite.c, which defines the
# question, exec_sqlite.c, dialect_sqlite.c) and engine.c, which defines engine_db,
# are not counted. The pattern must find a question of its own writing.
ask='\(store_sqlite\|engine_db\)([^)]*)'
sed -n '/^<!-- backend tests -->/,/^<!-- backend tests -->/p' src/README.md |
	sed -n 's/^- `\([a-z_0-9]*\/[a-z_0-9]*\.c\)`:.*/\1/p' | sort >"$tmp/asks.listed"
grep -l "$ask" src/*/*.c | sed 's|^src/||' |
	grep -v '^store/store_sqlite\.c$\|^engine/exec_sqlite\.c$\|^engine/dialect_sqlite\.c$\|^engine/engine\.c$' |
	sort >"$tmp/asks.found"
printf '%s\n' '	int n = engine_db(e) ? 1 : 0;' '	sqlite3 *d = engine_db_handle(e);' >"$tmp/asks.fed"
if [ "$(grep -c "$ask" "$tmp/asks.fed")" != 1 ]; then
	echo "not ok layers: the files that ask which backend holds the database are listed"
	echo "# the pattern did not find exactly the one question it was fed"
elif cmp -s "$tmp/asks.listed" "$tmp/asks.found"; then
	echo "ok layers: the files that ask which backend holds the database are listed ($(wc -l <"$tmp/asks.found"))"
else
	echo "not ok layers: the files that ask which backend holds the database are listed"
	echo "# - listed, + asks"
	diff "$tmp/asks.listed" "$tmp/asks.found" | grep '^[<>]' | sed 's/^</-/; s/^>/+/; s/^/# /'
fi

# The engine's groups: src/README.md's table (between its "<!-- engine groups -->" marks)
# puts each file of src/engine/ in a group with a level. A function a file calls (from the
# objects: what one leaves undefined and another defines) and a header it includes belong
# to its own group or a lower one; tests/engine_groups.awk says which do not. The checker
# is then fed an upward call and an upward include of its own, which it must report.
sed -n '/^<!-- engine groups -->/,/^<!-- engine groups -->/p' src/README.md |
	awk -F'|' '$3 ~ /^ *[0-9]+ *$/ {
		g = $2; gsub(/ /, "", g); l = $3; gsub(/ /, "", l)
		n = split($4, w, "`")
		for (i = 2; i <= n; i += 2) print w[i], g, l
	}' >"$tmp/groups"
ls src/engine | grep '\.[ch]$' >"$tmp/files"
for f in src/engine/*.[ch]; do
	sed -n 's/^[ 	]*#[ 	]*include[ 	]*"engine\/\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		echo "${f##*/} $h"
	done
done >"$tmp/eincludes"
if [ ! -s "$tmp/groups" ]; then
	echo "not ok layers: src/README.md gives the engine's groups"
	echo "# no rows '| group | level | files | what |' between the <!-- engine groups --> marks"
elif ! command -v nm >/dev/null 2>&1 || [ ! -d "$obj" ]; then
	echo "skip layers: the engine's groups: no nm or no objects"
else
	echo "ok layers: src/README.md gives the engine's groups ($(awk '{print $2}' "$tmp/groups" | sort -u | wc -l) groups, $(wc -l <"$tmp/groups") files)"
	for o in "$obj"/*.o; do
		f=$(basename "$o" .o).c
		nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 } $2 == "T" { print "T", f, $3 }'
	done | awk '
		$1 == "T" { def[$3] = $2; next }
		{ use[++n] = $2 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], a, " ")
				if ((a[2] in def) && def[a[2]] != a[1])
					print a[1], def[a[2]], a[2]
			}
		}' | sort >"$tmp/edges"
	# the circles of calls between files: at most MAX_CIRCLES, none of more than MAX_CIRCLE
	# files (doc/architecture.md says which remain and why)
	circ="-v max_circle=4 -v max_circles=2"
	awk $circ -f tests/engine_groups.awk "$tmp/groups" "$tmp/files" "$tmp/edges" "$tmp/eincludes" \
		>"$tmp/groups.out"
	up=$(sed -n 's/^stat up //p' "$tmp/groups.out")
	cyc=$(sed -n 's/^stat cycle //p' "$tmp/groups.out")
	ncirc=$(sed -n 's/^stat circles //p' "$tmp/groups.out")
	if grep '^fault ' "$tmp/groups.out" | grep -qv 'call circle'; then
		echo "not ok layers: the engine's groups: no call or include goes up"
		grep '^fault ' "$tmp/groups.out" | grep -v 'call circle' | sed 's/^fault /# /' | head -n 40
	else
		echo "ok layers: the engine's groups: no call or include goes up ($(wc -l <"$tmp/edges") calls between files)"
	fi
	if grep '^fault ' "$tmp/groups.out" | grep -q 'call circle'; then
		echo "not ok layers: the engine's call circles: at most 2, none of more than 4 files"
		grep '^fault .*call circle' "$tmp/groups.out" | sed 's/^fault /# /'
		sed -n 's/^stat circle /# circle: /p' "$tmp/groups.out"
	else
		echo "ok layers: the engine's call circles: at most 2, none of more than 4 files ($ncirc, the largest $cyc files)"
	fi
	# the checker fails on a circle of five files, and on three circles
	five=$(awk '$2 == "walk" && $1 ~ /\.c$/ { print $1 }' "$tmp/groups" | head -n 5)
	six=$(awk '$2 == "plan" && $1 ~ /\.c$/ { print $1 }' "$tmp/groups" | head -n 6)
	{
		cat "$tmp/edges"
		set -- $five
		echo "$1 $2 layers_synthetic_c1"; echo "$2 $3 layers_synthetic_c2"
		echo "$3 $4 layers_synthetic_c3"; echo "$4 $5 layers_synthetic_c4"
		echo "$5 $1 layers_synthetic_c5"
		set -- $six
		echo "$1 $2 layers_synthetic_c6"; echo "$2 $1 layers_synthetic_c7"
		echo "$3 $4 layers_synthetic_c8"; echo "$4 $3 layers_synthetic_c9"
		echo "$5 $6 layers_synthetic_c10"; echo "$6 $5 layers_synthetic_c11"
	} >"$tmp/edges.circ"
	awk $circ -f tests/engine_groups.awk "$tmp/groups" "$tmp/files" "$tmp/edges.circ" \
		"$tmp/eincludes" >"$tmp/groups.circ"
	if grep -q '^fault a call circle of [5-9][0-9]* files' "$tmp/groups.circ" &&
	   grep -q '^fault [3-9][0-9]* call circles' "$tmp/groups.circ"; then
		echo "ok layers: the engine's call circles: the check fails on a circle of five files and on three circles"
	else
		echo "not ok layers: the engine's call circles: the check fails on a circle of five files and on three circles"
		echo "# fed the circle $(echo $five) and three of two plan files, it said:"
		grep '^fault\|^stat circle' "$tmp/groups.circ" | sed 's/^/# /' | head -n 10
	fi
	# the checker fails on an upward call and on an upward include
	low=$(sort -k3n "$tmp/groups" | awk '$1 ~ /\.c$/ { print $1; exit }')
	high=$(sort -k3nr "$tmp/groups" | awk '$1 ~ /\.c$/ { print $1; exit }')
	highh=$(sort -k3nr "$tmp/groups" | awk '$1 ~ /\.h$/ { print $1; exit }')
	{ cat "$tmp/edges"; echo "$low $high layers_synthetic_up"; } >"$tmp/edges.bad"
	{ cat "$tmp/eincludes"; echo "$low $highh"; } >"$tmp/eincludes.bad"
	awk -f tests/engine_groups.awk "$tmp/groups" "$tmp/files" "$tmp/edges.bad" \
		"$tmp/eincludes.bad" >"$tmp/groups.bad"
	if grep -q "^fault $low .* calls layers_synthetic_up of $high " "$tmp/groups.bad" &&
	   grep -q "^fault $low .* includes $highh " "$tmp/groups.bad"; then
		echo "ok layers: the engine's groups: the check fails on a call and an include that go up"
	else
		echo "not ok layers: the engine's groups: the check fails on a call and an include that go up"
		echo "# fed $low -> $high and $low including $highh, it said:"
		sed 's/^/# /' "$tmp/groups.bad" | head -n 10
	fi
fi

# The operator table (src/engine/op_int.h, op.c): each operator's row is defined in its own
# file, and op.c lists the rows (the data symbols op.o leaves undefined: the files that
# define them are the operators' files). No other file of the engine calls a function of
# an operator's file by name: the pipeline (exec_statement.c and the backends' rows), the
# binder, the planner and the walk reach the operators only through the table's loops
# (the entry points, engine.c, alone call ENUM's :enum by name). Fed a call of an operator's
# function by the pipeline and by the walk, the check must fail.
if ! command -v nm >/dev/null 2>&1 || [ ! -f "$obj/op.o" ]; then
	echo "skip layers: the operator table: no nm or no objects"
else
	nm "$obj/op.o" | awk '$1 == "U" { print $2 }' | sort -u >"$tmp/opundef"
	for o in "$obj"/*.o; do
		nm --defined-only "$o" | awk -v f="$(basename "$o" .o).c" '$2 ~ /^[DdRrBb]$/ { print $3, f }'
	done | sort -u | join - "$tmp/opundef" 2>/dev/null | awk '{ print $2 }' | sort -u >"$tmp/opfiles"
	for o in "$obj"/*.o; do
		nm -g --defined-only "$o" | awk -v f="$(basename "$o" .o).c" '$2 == "T" { print $3, f }'
	done | sort >"$tmp/opdefs.all"
	awk 'NR == FNR { op[$1] = 1; next } ($2 in op)' "$tmp/opfiles" "$tmp/opdefs.all" >"$tmp/opdefs"
	for o in "$obj"/*.o; do
		nm "$o" | awk -v f="$(basename "$o" .o).c" '$1 == "U" { print f, $2 }'
	done >"$tmp/opcalls"
	byname() {
		awk -v files="$tmp/opfiles" -v defs="$tmp/opdefs" '
			BEGIN {
				while ((getline l < files) > 0) op[l] = 1
				while ((getline l < defs) > 0) { split(l, d, " "); def[d[1]] = d[2] }
			}
			!($1 in op) && $1 != "engine.c" && ($2 in def) {
				print $1 " calls " $2 " of " def[$2] " by name"
			}' "$1"
	}
	byname "$tmp/opcalls" >"$tmp/opbypass"
	n=$(wc -l <"$tmp/opfiles")
	if [ "$n" -lt 8 ]; then
		echo "not ok layers: the operator table: its rows are read from op.o"
		echo "# only $n operators' files: $(tr '\n' ' ' <"$tmp/opfiles")"
	elif [ -s "$tmp/opbypass" ]; then
		echo "not ok layers: only the table reaches the operators (no call of an operator's function by name)"
		sed 's/^/# /' "$tmp/opbypass" | head -n 20
	else
		echo "ok layers: only the table reaches the operators (no call of an operator's function by name; $n operators' files)"
	fi
	# the check fails on the pipeline and the walk calling an operator's function
	fn=$(awk 'NR == 1 { print $1 }' "$tmp/opdefs")
	{ cat "$tmp/opcalls"; echo "exec_statement.c $fn"; echo "exec_walk.c $fn"; } >"$tmp/opcalls.bad"
	byname "$tmp/opcalls.bad" >"$tmp/opbypass.bad"
	if [ -n "$fn" ] && grep -q "^exec_statement.c calls $fn " "$tmp/opbypass.bad" &&
	   grep -q "^exec_walk.c calls $fn " "$tmp/opbypass.bad"; then
		echo "ok layers: the operator table: the check fails on the pipeline and the walk calling an operator by name"
	else
		echo "not ok layers: the operator table: the check fails on the pipeline and the walk calling an operator by name"
		echo "# fed exec_statement.c and exec_walk.c -> '$fn', it said:"
		sed 's/^/# /' "$tmp/opbypass.bad" | head -n 5
	fi
fi

# No function without a caller: every global function an object of the program defines
# (src/*/*.c, and the generated build/obj/*.o) is called from another object (main's
# included), or named by a tool or a test (tools/*.c, tests/*.c, tests/unit/*.c, which
# link the library themselves). A function called only in its own file is static (and
# one called nowhere then fails the build: -Wunused-function). Fed a function of its own
# that nothing calls, the check must report it.
objroot=$SUQL_BUILD/obj
case $objroot in /*) ;; *) objroot=$SUQL_TOP/$objroot ;; esac
if ! command -v nm >/dev/null 2>&1 || [ ! -d "$objroot" ]; then
	echo "skip layers: no function without a caller: no nm or no objects"
else
	for o in "$objroot"/*/*.o "$objroot"/*.o; do
		[ -f "$o" ] || continue
		nm "$o" | awk -v f="${o#"$objroot"/}" '$1 == "U" { print "U", f, $2 } $2 == "T" { print "T", f, $3 }'
	done >"$tmp/syms"
	cat tools/*.c tests/*.c tests/unit/*.c 2>/dev/null | tr -c 'A-Za-z0-9_' '\n' | sort -u >"$tmp/named"
	uncalled() {
		awk 'NR == FNR { named[$1] = 1; next }
		     $1 == "T" { def[$3] = $2; next }
		     { used[$3] = 1 }   # (an object never leaves its own functions undefined)
		     END {
		         for (s in def)
		             if (!(s in named) && !(s in used))
		                 print def[s] " defines " s ", which no other object, tool or test calls"
		     }' "$tmp/named" "$1" | sort
	}
	uncalled "$tmp/syms" >"$tmp/uncalled"
	n=$(awk '$1 == "T"' "$tmp/syms" | wc -l)
	if [ -s "$tmp/uncalled" ]; then
		echo "not ok layers: no function without a caller"
		sed 's/^/# /' "$tmp/uncalled" | head -n 20
	else
		echo "ok layers: no function without a caller ($n functions)"
	fi
	{ cat "$tmp/syms"; echo "T engine/layers_fed.o layers_synthetic_uncalled"; } >"$tmp/syms.bad"
	if uncalled "$tmp/syms.bad" | grep -q ' layers_synthetic_uncalled, '; then
		echo "ok layers: the check fails on a function nothing calls"
	else
		echo "not ok layers: the check fails on a function nothing calls"
	fi
fi
