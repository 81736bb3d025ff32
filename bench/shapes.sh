#!/bin/sh
# The shapes of query that users and other systems ask of tables with reviews: filters with
# a LIMIT, counts and ratios, self-joins asking about pairs of texts, and per-row 1-5 scores
# averaged per group, each in several wordings, under the default settings against the
# naive plan (:set optimize off: SQLite calls each function row by row, or pair by pair).
# pairs-3 (ten pairs of reviews of one sentiment, LIMIT 10) runs against a second server
# that factors the question (--factor: a review mixed when it holds "but", else plain), on
# the demo only (naive, it asks each of the pairs: 6,216 on the demo).
# Over the demo's 112 restaurants and generated ones (build/gen), against build/llmserver
# in automatic mode: each candidate's answer comes from a hash of its text (and a pair's
# from a hash of the two), the same whether it is asked alone or in a batch, so a plan
# that loses no row returns exactly the naive plan's rows. For each query: whether the
# rows are the same, the LLM calls and the tokens (in/out, as the server counted them) of
# each plan, and how many times fewer the default plan needed. "rows" is yes when the rows
# are the naive plan's, "any" for a LIMIT without ORDER BY when they are as many rows as
# asked that the naive plan passes (either plan may pick any of them), no otherwise.
#   SUQL_BENCH_SIZES="1000"   generated sizes after the demo (empty: the demo only)
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/shapesbench
rm -rf "$T"
mkdir -p "$T"
SIZES=${SUQL_BENCH_SIZES-1000}

"$B/llmserver" --port-file "$T/port" >/dev/null 2>"$T/server.err" &
spid=$!
# the factoring stand-in: a review is "mixed" when it holds "but", else "plain", and two
# reviews have the same sentiment when they are of one class (--factor)
"$B/llmserver" --port-file "$T/fport" --factor "Is the review mixed or plain?:but,a" \
	>/dev/null 2>"$T/fserver.err" &
fpid=$!
trap 'kill $spid $fpid 2>/dev/null' EXIT
i=0
while { [ ! -s "$T/port" ] || [ ! -s "$T/fport" ]; } && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
url0="http://127.0.0.1:$(cat "$T/port")/v1"
furl="http://127.0.0.1:$(cat "$T/fport")/v1"

# name, then the statement; '' in a wording is SQL's quote
cat >"$T/queries" <<'EOF'
filter-1	SELECT name FROM restaurants WHERE answer(reviews, 'would you take a date here?') = 'Yes' LIMIT 3;
filter-2	SELECT name, rating FROM restaurants WHERE rating >= 4 AND answer(reviews, 'do the reviews mention live music?') = 'Yes' ORDER BY rating DESC, id LIMIT 5;
filter-3	SELECT name FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is the staff described as rude?') = 'No' LIMIT 2;
filter-4	SELECT name FROM restaurants WHERE answer(reviews, 'can you hear each other talk?') = 'Yes' AND answer(reviews, 'is it cheap for what you get?') = 'Yes' LIMIT 4;
count-1	SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it good for large groups?') = 'Yes';
count-2	SELECT location, round(avg(answer(reviews, 'would a vegetarian eat well here?') = 'Yes'), 3) AS share FROM restaurants GROUP BY location ORDER BY location;
count-3	SELECT round(count(*) FILTER (WHERE answer(reviews, 'is the food too salty?') = 'Yes') * 1.0 / count(*), 3) AS ratio FROM restaurants WHERE price IN ('cheap', 'moderate');
pairs-1	SELECT a.name, b.name FROM restaurants a JOIN restaurants b ON a.location = b.location AND a.id < b.id AND matches(a.reviews, b.reviews, 'do the two reviews agree about the price?') WHERE a.location = 'Cupertino' ORDER BY 1, 2;
pairs-2	SELECT a.name, b.name FROM restaurants a, restaurants b WHERE a.location = 'Menlo Park' AND b.location = 'Menlo Park' AND a.id < b.id AND matches(a.popular_dishes, b.popular_dishes, 'could one kitchen cook both menus?') ORDER BY 1, 2;
pairs-3	SELECT a.id, b.id FROM restaurants a JOIN restaurants b ON a.id < b.id AND matches(a.reviews, b.reviews, 'do the two reviews have the same sentiment?') LIMIT 10;
score-1	SELECT location, round(avg(answer(reviews, 'on a scale of 1 to 5, how good is the service?')::int), 2) AS service FROM restaurants GROUP BY location ORDER BY location;
score-2	SELECT price, round(avg(answer(reviews, 'rate the ambience from 1 (poor) to 5 (excellent)')::int), 2) AS ambience FROM restaurants GROUP BY price ORDER BY price;
EOF

# run DB MODE SQL [NAME]: rows into $T/rows.NAME, counters into $T/err.NAME (NAME: MODE)
run() {
	k=${4:-$2}
	"$P" -v --csv --set times=off --set budget=0 --no-cache --llm-url "$url" --model bench \
		--set "optimize=$2" "$1" -c "$3" >"$T/rows.$k" 2>"$T/err.$k" ||
		{ echo "failed ($k): $3" >&2; sed 's/^/  /' "$T/err.$k" >&2; }
}
calls() { sed -n 's/^  llm calls: \([0-9][0-9]*\).*/\1/p' "$T/err.$1" | head -n 1; }
tok() { sed -n 's/^  tokens: \([0-9]*\) in, \([0-9]*\) out.*/\1 \2/p' "$T/err.$1" | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else printf "-" }'; }

dbs="demo"
SUQL_PROG=$P sh tests/demo-db.sh "$T/demo.db" 2>/dev/null || { echo "the demo database did not build"; exit 1; }
for n in $SIZES; do
	"$B/gen" -n "$n" --db "$T/gen$n.db" --quiet && dbs="$dbs gen$n"
done

printf '%-8s %-9s %-5s %9s %9s %7s %21s %21s %7s\n' data query rows calls naive fewer \
	"tokens in/out" "naive in/out" fewer
for d in $dbs; do
	db=$T/$d.db
	while IFS='	' read -r name sql; do
		url=$url0
		case $d/$name in
		demo/pairs-3) url=$furl ;;   # against the factoring stand-in
		*/pairs-3) continue ;;   # naive: every pair of 1,000 values, half a million calls
		esac
		run "$db" on "$sql"
		run "$db" off "$sql"
		same=no
		cmp -s "$T/rows.on" "$T/rows.off" && same=yes
		case $sql in
		*"ORDER BY"*) ;;
		*" LIMIT "*)
			# LIMIT without ORDER BY asks for any n passing rows: the default plan's rows must
			# be n rows (or all there are) that the naive plan passes without the LIMIT
			run "$db" off "$(printf '%s' "$sql" | sed 's/ LIMIT [0-9]*;$/;/')" all
			lim=$(printf '%s' "$sql" | sed -n 's/.* LIMIT \([0-9]*\);$/\1/p')
			awk -v lim="$lim" 'FNR == 1 { next } FNR == NR { all[$0] = 1; na++; next }
				{ n++; if (!($0 in all)) bad = 1 }
				END { want = na < lim ? na : lim; exit !(!bad && n == want) }' \
				"$T/rows.all" "$T/rows.on" && same=any ;;
		esac
		set -- $(tok on) 0 0
		tin=$1 tout=$2
		set -- $(tok off) 0 0
		nin=$1 nout=$2
		printf '%-8s %-9s %-5s %9s %9s %7s %21s %21s %7s\n' "$d" "$name" "$same" \
			"$(calls on)" "$(calls off)" "$(ratio "$(calls off)" "$(calls on)")" \
			"$tin/$tout" "$nin/$nout" "$(ratio "$nin" "$tin")"
	done <"$T/queries"
done
