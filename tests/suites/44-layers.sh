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
sed -n 's/^- `\([a-z_0-9]*\/[a-z_0-9]*\.c\)`:.*/\1/p' src/README.md | sort >"$tmp/seam.listed"
grep -l 'sqlite3_[a-z_0-9]*(' src/*/*.c | sed 's|^src/||' | grep -v '^store/' | sort >"$tmp/seam.calls"
if cmp -s "$tmp/seam.listed" "$tmp/seam.calls"; then
	echo "ok layers: src/README.md lists the files that reach SQLite around the seam ($(wc -l <"$tmp/seam.calls"))"
else
	echo "not ok layers: src/README.md lists the files that reach SQLite around the seam"
	echo "# - listed, + calls SQLite directly"
	diff "$tmp/seam.listed" "$tmp/seam.calls" | grep '^[<>]' | sed 's/^</-/; s/^>/+/; s/^/# /'
fi
