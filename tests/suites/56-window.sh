#!/bin/sh
# A LIMIT walk reads its candidates a window at a time (setting window), holding only the
# candidates it reached, counted by the "candidates read" line of -v (never timed): in the
# ORDER BY's order a 1% predicate needs a few hundred candidates judged, and the windows
# (64, 64, 128, 256) hold at most twice what was judged, not the 3000. Offline, on
# tests/engine/rare-db.sh's rows. That every window gives the same candidates, waves and
# calls, and the reads of the other walks, are cases in tests/engine/cases/window.case
# (suite 58 runs them on SQLite and PostgreSQL).
. "$(dirname "$0")/../lib.sh"
set -u
T=$SUQL_TMP/window
mkdir -p "$T"

rare=$T/rare.db
sh tests/engine/rare-db.sh "$SUQL_PROG" "$rare" 3000
zq="answer(reviews, 'does someone play the zither?') = 'Yes'"
"$SUQL_PROG" -v --offline --no-cache --set times=off --set explain=rows --set window=64 \
	"$rare" -c "SELECT name FROM places WHERE $zq ORDER BY rating DESC LIMIT 5;" >"$T/out" 2>&1
h=$(sed -n 's/^  conjunct 1: \([0-9]*\) of the candidates read.*/\1/p' "$T/out")
j=$(sed -n 's/^  conjunct 1: 3000 candidates after the structured filter; \([0-9]*\) judged.*/\1/p' "$T/out")
if [ -n "$h" ] && [ -n "$j" ] && [ "$h" -ge "$j" ] && [ "$h" -le $((2 * j)) ] && [ "$h" -lt 3000 ]; then
	ok "window: ORDER BY ... LIMIT 5 reads at most twice the candidates it judged ($h for $j)"
else
	notok "window: ORDER BY ... LIMIT 5 reads at most twice the candidates it judged" "read '$h', judged '$j'"
fi
