#!/bin/sh
# Each operator's quality over a noisy model (doc/eval.md, "Over a noisy model"):
# build/llmserver in automatic mode with --noise P answers wrong on a share P of values
# (chosen by a hash of the value and --noise-seed, the same way in every request), at
# P = 0, 5% and 10%. For each operator, three results are compared:
#   truth   the noise-free answer: the naive plan (:set optimize off, every value asked
#           alone, every pair judged) against the server without noise;
#   model   what a perfect pipeline gets from the noisy model: the naive plan against the
#           noisy server (each value asked once, its answer used as it is);
#   suql    the default plan against the noisy server.
# "model wrong" is how many of the operator's values (rows' verdicts, pairs, groups,
# objects, scores) the model got wrong; "beyond the model" is how far suql's result is
# from the model's own, the error an operator adds (0: none). A LIMIT without ORDER BY,
# and a top-k among ties, may return any rows the model passes: for those, beyond counts
# the rows the model does not pass (or whose score is below the model's k-th).
#
# Operators: a filter with LIMIT, a filter, count(*), a semantic top-k (a 1-5 score, ORDER
# BY ... LIMIT 10), answer_agg() per group, an average of scores per group, extract(),
# a self-join of the demo's reviews (batched pairs, by a hash of the pair), the factored
# self-join of 40 reviews (tests/engine/price-reviews.sql, --factor) against the same join
# judged pairwise (join_factor off), the same two with the noise kept to the classes
# (--noise-scope classes: pairs judged right, values put in wrong classes; over several
# seeds, the share of them in which the check found values in a wrong class), a cascade
# (llm.cascade_target 0.95 over SUQL_NOISE_GEN generated restaurants, against a model
# whose verdicts follow the words of the text) and a filter with llm.min_confidence 0.9
# against --logprobs calibrated (a wrong verdict at 0.6, a right one at 0.99).
#   SUQL_NOISE_LEVELS="0 0.05 0.1"   SUQL_NOISE_SEED=1   SUQL_NOISE_JOIN_SEEDS="1 2 3 4 5 6 7 8"
#   SUQL_NOISE_GEN=1000 (empty: no cascade)
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
T=${SUQL_TMP:-/tmp}/noisebench
rm -rf "$T"
mkdir -p "$T"
LEVELS=${SUQL_NOISE_LEVELS-"0 0.05 0.1"}
SEED=${SUQL_NOISE_SEED:-1}
JSEEDS=${SUQL_NOISE_JOIN_SEEDS:-"1 2 3 4 5 6 7 8"}
GEN=${SUQL_NOISE_GEN-1000}
FACTOR="What does the review say of the price?:cheap,fair,expensive"

SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null' EXIT
start() {   # start OPTIONS...: build/llmserver on a free port; URL its base URL
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	rm -f "$T/port"
	"$B/llmserver" --port-file "$T/port" "$@" 2>>"$T/server.err" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	URL="http://127.0.0.1:$(cat "$T/port")/v1"
}
# q OUT DB SQL [OPTIONS...]: the rows (CSV) into OUT, the counters into OUT.err
q() {
	_o=$1 _db=$2 _sql=$3
	shift 3
	"$P" -v --csv --no-headers --set times=off --set budget=0 --no-cache --llm-url "$URL" \
		--model m --set llm.unreadable=warn "$@" "$_db" -c "$_sql" >"$_o" 2>"$_o.err" ||
		{ echo "failed ($_o): $_sql" >&2; tail -n 3 "$_o.err" >&2; }
}
calls() { sed -n 's/^  llm calls: \([0-9][0-9]*\).*/\1/p' "$1.err" | head -n 1; }
# pr TRUTH GOT: precision and recall of GOT's lines against TRUTH's, in percent
pr() {
	awk 'FNR == NR { t[$0] = 1; nt++; next } { ns++; if ($0 in t) tp++ }
		END { printf "P %s R %s", ns ? sprintf("%.1f", 100 * tp / ns) : "-",
		      nt ? sprintf("%.1f", 100 * tp / nt) : "-" }' "$1" "$2"
}
# prec TRUTH GOT: precision alone (a LIMIT)
prec() { awk 'FNR == NR { t[$0] = 1; next } { ns++; if ($0 in t) tp++ }
	END { printf "P %s", ns ? sprintf("%.1f", 100 * tp / ns) : "-" }' "$1" "$2"; }
# differ A B: lines in one of A and B only
differ() { sort "$1" >"$T/da"; sort "$2" >"$T/db"; comm -3 "$T/da" "$T/db" | wc -l | tr -d ' '; }
# outside A B: lines of B not in A
outside() { sort -u "$1" >"$T/da"; sort -u "$2" >"$T/db"; comm -13 "$T/da" "$T/db" | wc -l | tr -d ' '; }
nlines() { wc -l <"$1" | tr -d ' '; }
dist() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a - b : b - a) }'; }
# row OPERATOR NOISE ...: a line of the table, kept with its operator's place (op, set
# before each) and the noise level's (lv) so that each operator's levels come together
row() { printf '%03d %03d | %s | %s | %s | %s | %s | %s | %s |\n' "$op" "$lv" "$@" >>"$T/table"; }
pct() { awk -v p="$1" 'BEGIN { printf "%g%%", p * 100 }'; }

# ---- the databases
demo=$T/demo.db
SUQL_PROG=$P sh tests/demo-db.sh "$demo" 2>/dev/null || { echo "the demo database did not build"; exit 1; }
prdb=$T/reviews.db
"$P" --bail "$prdb" <tests/engine/price-reviews.sql >/dev/null || exit 1
gendb=""
if [ -n "$GEN" ]; then
	gendb=$T/gen$GEN.db
	"$B/gen" -n "$GEN" --db "$gendb" --quiet || gendb=""
fi

LIMIT_Q="SELECT id FROM restaurants WHERE answer(reviews, 'would you take a date here?') = 'Yes' LIMIT 10;"
LIMIT_ALL="SELECT id FROM restaurants WHERE answer(reviews, 'would you take a date here?') = 'Yes';"
FILTER="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for large groups?') = 'Yes' ORDER BY id;"
COUNT="SELECT count(*) FROM restaurants WHERE answer(reviews, 'is it cheap for what you get?') = 'Yes';"
TOPK="SELECT id, answer(reviews, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int AS romance FROM restaurants ORDER BY romance DESC LIMIT 10;"
SCORES="SELECT id, answer(reviews, 'how romantic is it?', ARRAY[1, 2, 3, 4, 5])::int FROM restaurants ORDER BY id;"
AGG="SELECT location, price, answer_agg(reviews, 'how is parking?', ARRAY['easy', 'hard', 'mixed']) FROM restaurants GROUP BY location, price ORDER BY location, price;"
AVG="SELECT location, round(avg(answer(reviews, 'on a scale of 1 to 5, how good is the service?')::int), 2) FROM restaurants GROUP BY location ORDER BY location;"
EXTRACT="SELECT id, extract(reviews, 'kids bool, wait int') FROM restaurants ORDER BY id;"
PAIRS="SELECT a.id, b.id FROM restaurants a JOIN restaurants b ON a.location = b.location AND a.id < b.id AND matches(a.reviews, b.reviews, 'do the two reviews agree about the price?') WHERE a.location = 'Cupertino' ORDER BY 1, 2;"
JOIN="SELECT a.id, b.id FROM reviews a JOIN reviews b ON a.id < b.id AND matches(a.body, b.body, 'do the two reviews share an opinion of the price?') ORDER BY a.id, b.id;"
KIDS="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;"

# run LEVEL: every statement at noise LEVEL, into $T/LEVEL/
run() {
	d=$T/$1
	mkdir -p "$d"
	start --noise "$1" --noise-seed "$SEED" --logprobs calibrated
	q "$d/limit.on" "$demo" "$LIMIT_Q"
	q "$d/limit.off" "$demo" "$LIMIT_ALL" --set optimize=off
	q "$d/filter.on" "$demo" "$FILTER"
	q "$d/filter.off" "$demo" "$FILTER" --set optimize=off
	q "$d/conf.on" "$demo" "$FILTER" --set llm.min_confidence=0.9
	q "$d/count.on" "$demo" "$COUNT"
	q "$d/count.off" "$demo" "$COUNT" --set optimize=off
	q "$d/topk.on" "$demo" "$TOPK"
	q "$d/topk.off" "$demo" "$TOPK" --set optimize=off
	q "$d/scores.off" "$demo" "$SCORES" --set optimize=off
	q "$d/agg.on" "$demo" "$AGG"
	q "$d/agg.off" "$demo" "$AGG" --set optimize=off
	q "$d/avg.on" "$demo" "$AVG"
	q "$d/avg.off" "$demo" "$AVG" --set optimize=off
	q "$d/extract.on" "$demo" "$EXTRACT"
	q "$d/extract.off" "$demo" "$EXTRACT" --set optimize=off
	q "$d/pairs.on" "$demo" "$PAIRS"
	q "$d/pairs.off" "$demo" "$PAIRS" --set optimize=off
	start --noise "$1" --noise-seed "$SEED" --factor "$FACTOR"
	q "$d/join.on" "$prdb" "$JOIN"
	q "$d/join.pw" "$prdb" "$JOIN" --set join_factor=off
	q "$d/join.off" "$prdb" "$JOIN" --set optimize=off
	for s in $JSEEDS; do
		start --noise "$1" --noise-seed "$s" --factor "$FACTOR" --noise-scope classes
		q "$d/cjoin$s.on" "$prdb" "$JOIN"
		q "$d/cjoin$s.pw" "$prdb" "$JOIN" --set join_factor=off
	done
	if [ -n "$gendb" ]; then
		start --noise "$1" --noise-seed "$SEED" --yes-words kid,child,famil
		q "$d/cascade.on" "$gendb" "$KIDS" --set llm.cascade_target=0.95
		q "$d/cascade.off" "$gendb" "$KIDS"
	fi
}

# in_top SCORES ROWS K: how many of a top-k's rows (id,score lines) have, in the table of
# scores SCORES, a score of at least its K-th best
in_top() {
	_kth=$(cut -d, -f2 "$1" | sort -rn | sed -n "$3p")
	awk -F, -v kth="$_kth" 'FNR == NR { s[$1] = $2; next } { if (s[$1] >= kth) good++ }
		END { print good + 0 }' "$1" "$2"
}
# mean absolute difference of the second columns, matched by the first
mad() { awk -F, 'FNR == NR { t[$1] = $2; next } { d = $2 - t[$1]; s += d < 0 ? -d : d; n++ }
	END { printf "%.2f", n ? s / n : 0 }' "$1" "$2"; }

run 0
for p in $LEVELS; do [ "$p" = 0 ] || run "$p"; done
z=$T/0
echo "noise seed $SEED; the factored join's classes-only rows over seeds: $JSEEDS"
echo
echo "| operator | noise | model wrong | suql | model alone | beyond the model | calls (suql / naive) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
: >"$T/table"
lv=0
for p in $LEVELS; do
	d=$T/$p
	lv=$((lv + 1))
	op=0
	n=$(nlines "$z/scores.off")
	w=$(differ "$z/limit.off" "$d/limit.off")
	op=$((op + 1))
	row "filter, LIMIT 10" "$(pct "$p")" "$w of $n rows" "$(prec "$z/limit.off" "$d/limit.on") ($(nlines "$d/limit.on") rows)" \
		"$(prec "$z/limit.off" "$d/limit.off")" "$(outside "$d/limit.off" "$d/limit.on") rows the model fails" \
		"$(calls "$d/limit.on") / $(calls "$d/limit.off")"
	w=$(differ "$z/filter.off" "$d/filter.off")
	op=$((op + 1))
	row filter "$(pct "$p")" "$w of $n rows" "$(pr "$z/filter.off" "$d/filter.on")" "$(pr "$z/filter.off" "$d/filter.off")" \
		"$(differ "$d/filter.off" "$d/filter.on") rows" "$(calls "$d/filter.on") / $(calls "$d/filter.off")"
	op=$((op + 1))
	row "filter, llm.min_confidence 0.9" "$(pct "$p")" "$w of $n rows" "$(pr "$z/filter.off" "$d/conf.on")" "$(pr "$z/filter.off" "$d/filter.off")" \
		"$(outside "$d/filter.off" "$d/conf.on") rows the model fails, $(outside "$d/conf.on" "$d/filter.off") it passes left out as unsure" \
		"$(calls "$d/conf.on") / $(calls "$d/filter.off")"
	t=$(cat "$z/count.off") m=$(cat "$d/count.off") s=$(cat "$d/count.on")
	op=$((op + 1))
	row "count(*)" "$(pct "$p")" "count off by $(dist "$m" "$t")" "$s (truth $t)" "$m" \
		"$(dist "$s" "$m")" "$(calls "$d/count.on") / $(calls "$d/count.off")"
	op=$((op + 1))
	row "top-k (LIMIT 10 of a 1-5 score)" "$(pct "$p")" "$(differ "$z/scores.off" "$d/scores.off" | awk '{ print $1 / 2 }') of $n scores" \
		"$(in_top "$z/scores.off" "$d/topk.on" 10) of 10 in the true top" "$(in_top "$z/scores.off" "$d/topk.off" 10) of 10" \
		"$((10 - $(in_top "$d/scores.off" "$d/topk.on" 10))) rows below the model's top" "$(calls "$d/topk.on") / $(calls "$d/topk.off")"
	g=$(nlines "$z/agg.off")
	op=$((op + 1))
	row "answer_agg() per group" "$(pct "$p")" "$(differ "$z/agg.off" "$d/agg.off" | awk '{ print $1 / 2 }') of $g groups" \
		"$((g - $(differ "$z/agg.off" "$d/agg.on" | awk '{ print $1 / 2 }'))) of $g right" \
		"$((g - $(differ "$z/agg.off" "$d/agg.off" | awk '{ print $1 / 2 }'))) of $g" \
		"$(differ "$d/agg.off" "$d/agg.on" | awk '{ print $1 / 2 }') groups" "$(calls "$d/agg.on") / $(calls "$d/agg.off")"
	op=$((op + 1))
	row "avg() of scores per group" "$(pct "$p")" "mean error $(mad "$z/avg.off" "$d/avg.off")" "mean error $(mad "$z/avg.off" "$d/avg.on")" \
		"mean error $(mad "$z/avg.off" "$d/avg.off")" "mean difference $(mad "$d/avg.off" "$d/avg.on")" "$(calls "$d/avg.on") / $(calls "$d/avg.off")"
	op=$((op + 1))
	row "extract()" "$(pct "$p")" "$(differ "$z/extract.off" "$d/extract.off" | awk '{ print $1 / 2 }') of $n objects" \
		"$((n - $(differ "$z/extract.off" "$d/extract.on" | awk '{ print $1 / 2 }'))) of $n right" \
		"$((n - $(differ "$z/extract.off" "$d/extract.off" | awk '{ print $1 / 2 }'))) of $n" \
		"$(differ "$d/extract.off" "$d/extract.on" | awk '{ print $1 / 2 }') objects" "$(calls "$d/extract.on") / $(calls "$d/extract.off")"
	op=$((op + 1))
	row "self-join, batched pairs (demo)" "$(pct "$p")" "$(differ "$z/pairs.off" "$d/pairs.off") pairs" \
		"$(pr "$z/pairs.off" "$d/pairs.on")" "$(pr "$z/pairs.off" "$d/pairs.off")" \
		"$(differ "$d/pairs.off" "$d/pairs.on") pairs" "$(calls "$d/pairs.on") / $(calls "$d/pairs.off")"
	op=$((op + 1))
	row "self-join, factored (40 reviews)" "$(pct "$p")" "$(differ "$z/join.off" "$d/join.off") of 780 pairs" \
		"$(pr "$z/join.off" "$d/join.on")" "$(pr "$z/join.off" "$d/join.off")" \
		"$(differ "$d/join.off" "$d/join.on") pairs" "$(calls "$d/join.on") / $(calls "$d/join.off")"
	op=$((op + 1))
	row "... judged pairwise (join_factor off)" "$(pct "$p")" "$(differ "$z/join.off" "$d/join.off") of 780 pairs" \
		"$(pr "$z/join.off" "$d/join.pw")" "$(pr "$z/join.off" "$d/join.off")" \
		"$(differ "$d/join.off" "$d/join.pw") pairs" "$(calls "$d/join.pw") / $(calls "$d/join.off")"
	# classes-only noise, over the seeds: summed rows, how often the check found a value wrong
	cat /dev/null >"$T/cj.on"
	cat /dev/null >"$T/cj.pw"
	cat /dev/null >"$T/cj.z"
	caught=0 ns=0 beyond=0 c_on=0 c_pw=0
	for s in $JSEEDS; do
		ns=$((ns + 1))
		sed "s/^/$s:/" "$d/cjoin$s.on" >>"$T/cj.on"
		sed "s/^/$s:/" "$d/cjoin$s.pw" >>"$T/cj.pw"
		sed "s/^/$s:/" "$z/join.off" >>"$T/cj.z"
		grep -q "disagreed" "$d/cjoin$s.on.err" && caught=$((caught + 1))
		beyond=$((beyond + $(differ "$d/cjoin$s.pw" "$d/cjoin$s.on")))
		c_on=$((c_on + $(calls "$d/cjoin$s.on"))) c_pw=$((c_pw + $(calls "$d/cjoin$s.pw")))
	done
	if [ "$p" != 0 ]; then
		op=$((op + 1))
		row "self-join, factored, classes wrong ($ns seeds)" "$(pct "$p")" "0 pairs (the classes only)" \
			"$(pr "$T/cj.z" "$T/cj.on"); the check found wrong values $caught of $ns times" "$(pr "$T/cj.z" "$T/cj.pw") (pairwise)" \
			"$beyond pairs" "$c_on / $c_pw pairwise, summed"
	fi
	if [ -n "$gendb" ]; then
		op=$((op + 1))
		row "cascade, target 0.95 ($GEN rows)" "$(pct "$p")" "$(differ "$z/cascade.off" "$d/cascade.off") of $GEN rows" \
			"$(pr "$z/cascade.off" "$d/cascade.on")" "$(pr "$z/cascade.off" "$d/cascade.off")" \
			"$(differ "$d/cascade.off" "$d/cascade.on") rows" "$(calls "$d/cascade.on") / $(calls "$d/cascade.off") (without the cascade)"
	fi
done
sort -k1,1n -k2,2n "$T/table" | cut -c9-
