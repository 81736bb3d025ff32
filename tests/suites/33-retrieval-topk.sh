#!/bin/sh
# Top-k retrieval through the impact lists (src/retrieve/retrieve_topk.c) gives exactly the
# rows and scores of scoring every matching passage: on a generated table, for the
# generator's questions at several limits, and again after rows were inserted, updated and
# deleted behind the index's back (the sqlite3 shell). build/retbench --check ranks both
# ways and says whether they agree and how many rankings the lists settled.
OK_PREFIX="topk: "
. "$(dirname "$0")/../lib.sh"
set -u
t="$SUQL_TMP/topk"
mkdir -p "$t"
db="$t/r.db"

if ! "$SUQL_BUILD/gen" -n 3000 --seed 3 --db "$db" --quiet; then
	notok "generate 3000 restaurants" "gen exited with $?"
	exit 0
fi
questions="is this restaurant romantic?|is it good for kids?|is parking easy?|does this restaurant have a happy hour?|does it have good vegan options?|is there outdoor seating?|is there a long wait?"
# four, five and six content words (the lists alone settle 1 of their 12 rankings here)
longer="are the vegan options good for kids?|great food, friendly staff, good service|good place for a date with great wine and dessert"

# check NAME [QUESTIONS]: every question ($questions unless given) at limits 1, 5, 20 and
# 64 ranks the same both ways; prints how many rankings the lists settled into $t/settled
check() {
	name=$1 bad="" settled=0 all=0
	old=$IFS
	IFS='|'
	for q in ${2:-$questions}; do
		IFS=$old
		for k in 1 5 20 64; do
			out=$("$SUQL_BUILD/retbench" "$db" restaurants --limit "$k" --repeat 0 --check "reviews:$q" 2>&1)
			case $out in
			*"check: same"*) ;;
			*) bad="$bad
$q (limit $k): $out" ;;
			esac
			case $out in *"settled by the impact lists 1 of 1"*) settled=$((settled + 1)) ;; esac
			all=$((all + 1))
		done
		IFS='|'
	done
	IFS=$old
	echo "$settled" >"$t/settled"
	if [ -z "$bad" ]; then
		ok "$name: the same rows and scores as scoring every passage ($settled of $all settled by the lists)"
	else
		notok "$name: the same rows and scores as scoring every passage" "$bad"
	fi
}

# the kept word counts are FTS5's own (fts5vocab; idf is computed from them on both paths)
dfcheck() {
	bad=$(sqlite3 "$db" "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, suql_fts_1, row);
		SELECT count(*) FROM temp.v FULL JOIN suql_df_1 AS d USING (term)
		WHERE v.doc IS NOT d.df AND NOT (v.doc IS NULL AND d.df = 0)")
	words=$(sqlite3 "$db" "SELECT count(*) FROM suql_df_1")
	[ "$bad" = 0 ] && [ "$words" -gt 500 ] && ok "$1: every word's passage count is FTS5's ($words words)" ||
		notok "$1: every word's passage count is FTS5's" "$bad of $words differ"
}
check "as built"
dfcheck "as built"
n=$(cat "$t/settled")
# the one-word question (romantic: 'restaurant' names the table) is always settled; the
# others whenever their best passages are among the shortest holding each word, or hold at
# least two of the words (the AND scan): all 28 on this table (the lists alone and the
# two-word AND scan settled 26: the three-word vegan question at 20 and 64 was scanned)
[ "$n" -eq 28 ] && ok "the lists settle every ranking as built ($n of 28)" ||
	notok "the lists settle every ranking as built" "settled $n of 28"
check "as built, longer questions" "$longer"
n=$(cat "$t/settled")
[ "$n" -eq 12 ] && ok "the lists and one AND scan settle every longer question ($n of 12)" ||
	notok "the lists and one AND scan settle every longer question" "settled $n of 12"
settled() {   # NAME QUESTION: settled by the lists at limit 20
	got=$("$SUQL_BUILD/retbench" "$db" restaurants --limit 20 --repeat 0 --check "reviews:$2" | tail -1)
	case $got in
	*"settled by the impact lists 1 of 1"*) ok "$1 is settled by the lists" ;;
	*) notok "$1 is settled by the lists" "$got" ;;
	esac
}
settled "a one-word question" "is this restaurant romantic?"
settled "a two-word question whose best passages hold both words at length (the AND scan)" \
	"is it good for kids?"
settled "a three-word question whose best passages hold two or three of the words (the AND scan)" \
	"does it have good vegan options?"

# Changes the index learns of through its triggers: a new row whose one short review puts it
# first, a row of the current top 5 deleted, others rewritten (short romantic reviews, and
# reviews without the word), and some with repeated words (the tf >= 3 stratum).
top=$("$SUQL_BUILD/retbench" "$db" restaurants --limit 5 --repeat 0 --check "reviews:is this restaurant romantic?" >/dev/null;
	sqlite3 "$db" "SELECT rid FROM suql_imp_1 WHERE term = 'romant' ORDER BY s DESC, dl, rid LIMIT 1")
sqlite3 "$db" "
INSERT INTO restaurants(id, name, reviews) VALUES (9001, 'New', '[\"Romantic.\"]');
INSERT INTO restaurants(id, name, reviews) VALUES (9002, 'Newer', '[\"Romantic romantic romantic romantic, so romantic.\"]');
DELETE FROM restaurants WHERE id = $top;
UPDATE restaurants SET reviews = '[\"So romantic.\", \"Great for kids, good parking.\"]' WHERE id % 97 = 0;
UPDATE restaurants SET reviews = '[\"Nothing to say.\"]' WHERE id % 89 = 0;
UPDATE restaurants SET reviews = '[\"Kids kids kids, good good good, happy hour happy hour.\"]' WHERE id % 83 = 0;
" || notok "changing rows" "sqlite3 exited with $?"
check "after inserts, updates and deletes"
check "after inserts, updates and deletes, longer questions" "$longer"
dfcheck "after inserts, updates and deletes"
check "after inserts, updates and deletes, longer questions" "$longer"
first=$("$SUQL_BUILD/retbench" "$db" restaurants --limit 1 --repeat 0 --check "reviews:is this restaurant romantic?" | tail -1)
best=$(sqlite3 "$db" "SELECT rid FROM suql_imp_1 WHERE term = 'romant' AND s = 3 LIMIT 1")
[ "$best" = 9002 ] && ok "a new passage with the word five times enters the tf >= 3 list" ||
	notok "a new passage with the word five times enters the tf >= 3 list" "got: $best"
gone=$(sqlite3 "$db" "SELECT count(*) FROM suql_imp_1 WHERE rid = $top")
[ "$gone" = 0 ] && ok "a deleted row leaves the lists" || notok "a deleted row leaves the lists" "$gone postings of row $top left"
stale=$(sqlite3 "$db" "SELECT count(*) FROM suql_imp_1 WHERE pid NOT IN (SELECT pid FROM suql_psg_1)")
[ "$stale" = 0 ] && ok "the lists name only passages that exist" || notok "the lists name only passages that exist" "$stale stale"
case $first in
*"check: same"*) ok "the new short review ranks as the scan ranks it" ;;
*) notok "the new short review ranks as the scan ranks it" "$first" ;;
esac
