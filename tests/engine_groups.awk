# tests/engine_groups.awk: the checker behind the engine's groups in tests/suites/44-layers.sh.
#
#   awk -f tests/engine_groups.awk GROUPS FILES EDGES INCLUDES
#
# GROUPS: "file group level" per file a group names (src/README.md's table of the engine's
# groups); FILES: the files of src/engine/, one a line; EDGES: "caller.c callee.c symbol",
# a function of callee.c that caller.c's object leaves undefined; INCLUDES: "file header",
# an include of src/engine/ naming another file of src/engine/. Every name is a basename.
#
# It prints one line per fault, each starting with "fault ": a file in no group or in two, a
# group's file that does not exist, a call from a lower group to a higher one, an include of
# a higher group's header by a lower group's file. And lines starting with "stat ": how many
# calls go up, and how many units (.c files) the largest call cycle holds (the units that
# all reach one another; 1 when there is no cycle between units), how many circles there
# are (strongly connected components of more than one unit) and each one's files.
#
# With -v max_circle=N, a circle of more than N files is a fault; with -v max_circles=N,
# more than N circles are.
function level(f) { return (f in lv) ? lv[f] : -1 }
FILENAME == ARGV[1] {
	if ($1 in grp && grp[$1] != $2)
		print "fault " $1 " is in two groups, " grp[$1] " and " $2
	grp[$1] = $2; lv[$1] = $3
	next
}
FILENAME == ARGV[2] { exists[$1] = 1; next }
FILENAME == ARGV[3] {
	if (!($1 in lv) || !($2 in lv))
		next   # reported below, as a file in no group
	if (level($1) < level($2)) {
		print "fault " $1 " (" grp[$1] ", level " lv[$1] ") calls " $3 " of " $2 \
		      " (" grp[$2] ", level " lv[$2] ")"
		up++
	}
	if (!(($1, $2) in adj)) {
		adj[$1, $2] = 1
		out[$1] = out[$1] " " $2
	}
	units[$1] = 1; units[$2] = 1
	next
}
{
	if (($1 in lv) && ($2 in lv) && level($1) < level($2))
		print "fault " $1 " (" grp[$1] ", level " lv[$1] ") includes " $2 " (" grp[$2] \
		      ", level " lv[$2] ")"
}
END {
	for (f in exists)
		if (!(f in grp))
			print "fault " f " is in no group"
	for (f in grp)
		if (!(f in exists))
			print "fault " f ": named in a group, no such file"
	# reach[a, b]: b is reachable from a (depth-first from each unit; a few dozen of them)
	for (a in units) {
		n = 0
		stack[++n] = a
		while (n > 0) {
			u = stack[n--]
			k = split(out[u], next_, " ")
			for (i = 1; i <= k; i++) {
				v = next_[i]
				if (!((a, v) in reach)) {
					reach[a, v] = 1
					stack[++n] = v
				}
			}
		}
	}
	# the circles: the strongly connected components of more than one unit (each unit's
	# fellows are the units it reaches that reach it back), named by their files in order
	big = 1
	ncirc = 0
	for (a in units) {
		if (a in placed)
			continue
		c = 1
		m[1] = a
		for (b in units)
			if (b != a && (a, b) in reach && (b, a) in reach)
				m[++c] = b
		for (i = 1; i <= c; i++)
			placed[m[i]] = 1
		if (c > big)
			big = c
		if (c < 2)
			continue
		# the names sorted (insertion sort: a circle is a few files)
		for (i = 2; i <= c; i++)
			for (k = i; k > 1 && m[k - 1] > m[k]; k--) {
				t = m[k]; m[k] = m[k - 1]; m[k - 1] = t
			}
		names = m[1]
		for (i = 2; i <= c; i++)
			names = names " " m[i]
		circ[++ncirc] = c " " names
		if (max_circle != "" && c > max_circle + 0)
			print "fault a call circle of " c " files (at most " max_circle "): " names
	}
	if (max_circles != "" && ncirc > max_circles + 0)
		print "fault " ncirc " call circles (at most " max_circles ")"
	for (i = 1; i <= ncirc; i++)
		print "stat circle " circ[i]
	print "stat up " (up + 0)
	print "stat cycle " big
	print "stat circles " ncirc
}
