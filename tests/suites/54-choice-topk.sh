#!/bin/sh
# Constrained answers and semantic top-k against build/llmserver, by rows and by the
# requests the server received (counted, never timed).
#   - answer(t, q, ARRAY[...]): the prompt offers the values; a reply is one of them (as
#     offered), none (NULL), or unreadable (asked again, then NULL and a warning, never
#     cached); usable in GROUP BY; an ENUM column compared with answer(t, q) offers the
#     column's values.
#   - ORDER BY a free-text score LIMIT k: retrieval orders the candidates, the walk scores
#     them in waves and stops once no candidate left can enter the top k; the same rows as
#     scoring every candidate (optimize off), with fewer requests, in the same run.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/choice
mkdir -p "$T"
ok() { echo "ok $1"; }
notok() { echo "not ok $1"; shift; for l in "$@"; do printf '%s\n' "$l" | cut -c1-400 | sed 's/^/# /'; done; }
check() {   # check NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:  $2" "want: $3" "$(cat "$T/err")"; fi
}
trap 'kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
SPID=""
# the server's log since the last mark: its requests, and their lines
MARK=0
lines() { if [ -f "$T/log" ]; then wc -l <"$T/log" | tr -d ' '; else echo 0; fi; }
mark() { MARK=$(lines); }
requests() { echo $(($(lines) - MARK)); }
logged() { tail -n +$((MARK + 1)) "$T/log"; }
# q DB SQL [options]: rows as CSV in $T/out (";" between rows in $T/rows), stderr in $T/err
q() {
	db=$1 sql=$2
	shift 2
	"$prog" --csv --no-headers --no-cache --llm-url "$URL" --model m "$@" "$db" -c "$sql" \
		>"$T/out" 2>"$T/err"
	st=$?
	paste -sd ';' - <"$T/out" >"$T/rows"
	return $st
}

# ---- constrained answers
db=$T/choice.db
"$prog" --bail "$db" >/dev/null <<'SQL'
CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT, price ENUM('cheap', 'moderate', 'expensive'));
INSERT INTO t VALUES (1, 'TAG-cheap: bowls for eight dollars.', 'cheap'),
                     (2, 'TAG-dear: the tasting menu is a splurge.', 'cheap'),
                     (3, 'TAG-cheap: a bargain lunch.', 'moderate'),
                     (4, 'TAG-none: we only had coffee.', 'cheap'),
                     (5, 'TAG-hedge: hard to say.', 'expensive'),
                     (6, 'TAG-dear: pricey wine list.', 'expensive');
SQL
cat >"$T/rules.json" <<'EOF'
[{"match": "TAG-cheap", "content": "Cheap."},
 {"match": "TAG-dear", "content": "expensive"},
 {"match": "TAG-none", "content": "none of them"},
 {"match": "TAG-hedge", "content": "somewhere between cheap and moderate"}]
EOF
rm -f "$T/log"
llmserver_start "$T" "$T/rules.json"
mark
q "$db" "SELECT answer(review, 'how expensive is it?', ARRAY['cheap', 'moderate', 'expensive']) AS p, count(*) FROM t GROUP BY p ORDER BY p;" \
	--set batch=1 --set llm.unreadable=warn
st=$?
check "choice: GROUP BY a constrained answer" "$(cat "$T/rows")" ",2;cheap,2;expensive,2"
check "choice: ... exit status 0 with llm.unreadable warn" "$st" 0
check "choice: ... 6 first asks and 1 re-ask of the reply that hedged" "$(requests)" 7
logged | grep -qF 'written as given: \\\"cheap\\\", \\\"moderate\\\", \\\"expensive\\\"' &&
	ok "choice: the prompt offers the values" || notok "choice: the prompt offers the values" "$(logged | head -c 600)"
grep -q "could not read the model's reply for 1 value, even when asked again (one said 'somewhere between cheap and moderate')" "$T/err" &&
	ok "choice: the hedge is unknown, with a warning" || notok "choice: the hedge is unknown, with a warning" "$(cat "$T/err")"
# an ENUM column compared with answer(): the column's values are offered
mark
q "$db" "SELECT id FROM t WHERE price = answer(review, 'how expensive is it?') ORDER BY id;" \
	--set batch=1 --set llm.unreadable=warn
check "choice: enum_col = answer(...) keeps the rows whose answer is their price" "$(cat "$T/rows")" "1;6"
logged | grep -qF 'written as given: \\\"cheap\\\", \\\"moderate\\\", \\\"expensive\\\"' &&
	ok "choice: ... offering the column's values" || notok "choice: ... offering the column's values" "$(logged | head -c 600)"
kill "$SPID"
wait "$SPID" 2>/dev/null
# the offline backend answers constrained questions too, labelled offline
"$prog" --csv --no-headers --no-cache --offline -v "$db" \
	-c "SELECT id, answer(review, 'is it a splurge?', ARRAY['Yes', 'No']) FROM t WHERE id IN (2, 4) ORDER BY id;" >"$T/out" 2>"$T/err"
check "choice: offline, yes/no options" "$(paste -sd ';' - <"$T/out")" "2,Yes;4,"
grep -q 'backend: offline (lexical, no language model)' "$T/err" &&
	ok "choice: ... labelled offline" || notok "choice: ... labelled offline" "$(cat "$T/err")"
