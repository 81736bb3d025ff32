#!/bin/sh
# A LIMIT walk reads its candidates a window at a time (setting window): the same
# candidates are examined in the same order, with the same waves and calls, as when every
# candidate is listed first (window=0), and the walk holds only the candidates it reached,
# counted by the "candidates read" line of -v (never timed). Offline backend throughout,
# on tables this suite builds. The reads of a single walk (one window of 64, none when
# every candidate is examined or window=0) are cases in tests/engine/cases/window.case.
. "$(dirname "$0")/../lib.sh"
set -u
T=$SUQL_TMP/window
mkdir -p "$T"


rare=$T/rare.db
sh tests/engine/rare-db.sh "$SUQL_PROG" "$rare" 3000
# the same rows with an index SQLite reads instead of the table for their rowids: the
# candidate statement is not in rowid order, so the walk lists them
cov=$T/cov.db
cp "$rare" "$cov"
"$SUQL_PROG" "$cov" -c "CREATE INDEX by_name ON places (name);" >/dev/null 2>&1

# run DB SQL WINDOW: -v with one line per candidate examined, times off, into $T/out.WINDOW
run() {
	"$SUQL_PROG" -v --offline --no-cache --set times=off --set explain=rows --set window="$3" \
		"$1" -c "$2" >"$T/out.$3" 2>&1
}
zq="answer(reviews, 'does someone play the zither?') = 'Yes'"
n=0
same() {   # same NAME DB SQL: window 0 against 1, 7 and 64, less the line that counts reads
	n=$((n + 1))
	run "$2" "$3" 0
	for w in 1 7 64; do
		run "$2" "$3" $w
		if ! grep -v 'of the candidates read' "$T/out.$w" | diff "$T/out.0" - >"$T/diff" 2>&1; then
			notok "window: $1 (window $w)" "$(head -20 "$T/diff")"
			return
		fi
	done
	if grep -q 'judged: [1-9]' "$T/out.0"; then
		ok "window: $1: same candidates, waves and calls at windows 0, 1, 7, 64"
	else
		notok "window: $1: nothing was judged" "$(head -30 "$T/out.0")"
	fi
}
same "LIMIT 1" "$rare" "SELECT name FROM places WHERE $zq LIMIT 1;"
same "LIMIT 5" "$rare" "SELECT name FROM places WHERE $zq LIMIT 5;"
same "LIMIT 40, more than pass: every candidate, matched ones then the rest" "$rare" \
	"SELECT name FROM places WHERE $zq LIMIT 40;"
same "LIMIT 3 OFFSET 4" "$rare" "SELECT id FROM places WHERE $zq LIMIT 3 OFFSET 4;"
same "a structured filter, fewer matches than the LIMIT: the rest in rowid order" "$rare" \
	"SELECT id FROM places WHERE rating > 4 AND id % 7 <> 3 AND $zq LIMIT 12;"
same "a structured filter first (the candidates' rowids as bits)" "$rare" \
	"SELECT id FROM places WHERE rating > 2 AND id % 7 <> 3 AND $zq LIMIT 12;"
same "two conjuncts, distinct rows across them" "$rare" \
	"SELECT id FROM places WHERE $zq OR answer(reviews, 'is the food fine?') = 'Yes' LIMIT 35;"
same "an index read instead of the table: listed" "$cov" "SELECT name FROM places WHERE $zq LIMIT 5;"
same "ORDER BY rating DESC LIMIT 5: the statement's own order" "$rare" \
	"SELECT name, rating FROM places WHERE $zq ORDER BY rating DESC LIMIT 5;"
same "ORDER BY with a structured filter, two questions" "$rare" \
	"SELECT id FROM places WHERE id % 3 = 1 AND $zq AND answer(reviews, 'is the food fine?') = 'Yes' ORDER BY name LIMIT 4;"
same "ORDER BY, an index read instead of the table" "$cov" \
	"SELECT name FROM places WHERE $zq ORDER BY rating, id DESC LIMIT 25;"

# the bound: what a windowed walk read, against what it examined
held() { sed -n 's/^  conjunct 1: \([0-9]*\) of the candidates read.*/\1/p' "$T/out.$1"; }
run "$cov" "SELECT name FROM places WHERE $zq LIMIT 5;" 64
if ! grep -q 'of the candidates read' "$T/out.64"; then ok "window: not in rowid order: listed"; else notok "window: not in rowid order: listed"; fi
# in the ORDER BY's order the 1% predicate needs a few hundred candidates judged: windows
# of 64, 64, 128, 256 hold at most twice what was judged, not the 3000
run "$rare" "SELECT name FROM places WHERE $zq ORDER BY rating DESC LIMIT 5;" 64
h=$(held 64)
j=$(sed -n 's/^  conjunct 1: 3000 candidates after the structured filter; \([0-9]*\) judged.*/\1/p' "$T/out.64")
if [ -n "$h" ] && [ -n "$j" ] && [ "$h" -ge "$j" ] && [ "$h" -le $((2 * j)) ] && [ "$h" -lt 3000 ]; then
	ok "window: ORDER BY ... LIMIT 5 reads at most twice the candidates it judged ($h for $j)"
else
	notok "window: ORDER BY ... LIMIT 5 reads at most twice the candidates it judged" "read '$h', judged '$j'"
fi
