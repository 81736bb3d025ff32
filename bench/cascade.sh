#!/bin/sh
# The learned proxy (llm.cascade_target): a free-text filter over every row of a table of
# N generated restaurants (build/gen, no LIMIT), judged by build/llmserver as the main
# model, with and without the cascade, in the same run. Reports the candidates the main
# model judged (the requests' candidates, from the counters), and the precision and recall
# of the cascade's rows against the main model's alone.
#
# Two main models: one whose verdicts follow the words of the text (yes when a review
# mentions kids, children or families: --yes-words), which a classifier on words can
# learn, and one that decides by a hash of the text, which nothing can learn: there the
# cascade must give up and cost what the walk costs without it. Then the first kind again
# with a proxy model (llm.proxy) instead of the learned proxy: a model "small" on the same
# server that is wrong on a tenth of the texts in each of its two wordings (--flip).
#   SUQL_BENCH_CASCADE_N=10000   SUQL_BENCH_CASCADE_TARGET=0.95
set -u
B=${SUQL_BUILD:-build}
P=${SUQL_PROG:-suql}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
T=${SUQL_TMP:-/tmp}/cascadebench
mkdir -p "$T"
N=${SUQL_BENCH_CASCADE_N:-10000}
TARGET=${SUQL_BENCH_CASCADE_TARGET:-0.95}
db=$T/r$N.db
[ -f "$db" ] || "$B/gen" -n "$N" --db "$db" --quiet >/dev/null || exit 1
Q="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;"

SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null' EXIT
start() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -f "$T/port"
	"$B/llmserver" --port-file "$T/port" "$@" 2>"$T/srv.err" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	URL="http://127.0.0.1:$(cat "$T/port")/v1"
}
run() {   # run OUT [options]: rows in OUT.rows, counters in OUT.err
	out=$1
	shift
	"$P" -v --csv --no-headers --set times=off --set budget=0 --no-cache --llm-url "$URL" \
		--model bench "$@" "$db" -c "$Q" >"$out.rows" 2>"$out.err" ||
		{ echo "failed:" >&2; tail -5 "$out.err" >&2; }
}
# the candidates the main model judged: the judges line when there is one, else all carried
items() {
	j=$(sed -n 's/^  conjunct 1: judges: .*, main model \([0-9]*\) .*/\1/p' "$1.err")
	[ -n "$j" ] && { echo "$j"; return; }
	sed -n 's/^  llm calls: \([0-9]*\).*carrying \([0-9]*\) candidate.*/\2/p' "$1.err"
}
calls() { sed -n 's/^  llm calls: \([0-9]*\).*/\1/p' "$1.err"; }

printf '%-12s %-22s %10s %10s %9s %9s %9s\n' "main model" "way" "to main" "calls" "fewer" "precision" "recall"
for model in words hash proxy; do
	case $model in
	words) start --yes-words kid,child,famil ;;
	hash) start --yes-rate 0.3 ;;
	proxy) start --yes-words kid,child,famil --flip small:0.1 ;;
	esac
	run "$T/$model-off"
	if [ $model = proxy ]; then
		run "$T/$model-on" --set "llm.cascade_target=$TARGET" --set llm.proxy=small
	else
		run "$T/$model-on" --set "llm.cascade_target=$TARGET"
	fi
	base=$(items "$T/$model-off")
	for way in off on; do
		f=$T/$model-$way
		got=$(items "$f")
		pr=$(awk -v f="$f.rows" -v g="$T/$model-off.rows" 'BEGIN {
			while ((getline l < g) > 0) { want[l] = 1; nw++ }
			close(g)
			while ((getline l < f) > 0) { n++; if (l in want) tp++ }
			printf "%.3f %.3f", n ? tp / n : 1, nw ? tp / nw : 1 }')
		label="without cascade"
		[ $way = on ] && label="cascade $TARGET"
		printf '%-12s %-22s %10s %10s %9s %9s %9s\n' "$model" "$label" "$got" "$(calls "$f")" \
			"$(awk -v a="$base" -v b="$got" 'BEGIN { if (b > 0) printf "%.1fx", a / b }')" $pr
	done
	grep -E "cascade:|judges:" "$T/$model-on.err" | sed 's/^ */    /'
done
