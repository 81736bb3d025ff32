#!/bin/sh
# The learned proxy (llm.cascade_target): on 3,000 generated restaurants, a filter over
# every row judged by build/llmserver as the main model, with and without the cascade.
# Checks the candidates each judge decided (counters against the server's log), the rows'
# precision and recall against the main model alone, that a model the words do not predict
# makes the cascade give up, and that proxy verdicts are never cached. When it stays off
# (under LIMIT, too few candidates, a target out of range) is tests/engine/cases/
# cascade.case's (suite 58).
OK_PREFIX="cascade: "
. "$(dirname "$0")/../lib.sh"
B=$SUQL_BUILD
T=$SUQL_TMP/cascade
mkdir -p "$T"
at_least() { if [ -n "$2" ] && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a >= b) }'; then ok "$1 ($2)"; else notok "$1" "got '$2', want at least $3"; fi; }
at_most() { if [ -n "$2" ] && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a <= b) }'; then ok "$1 ($2)"; else notok "$1" "got '$2', want at most $3"; fi; }

SPID=""
echo '[]' >"$T/none.json"
start() {   # start NAME [llmserver options]: sets URL, LOG
	name=$1
	shift
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	mkdir -p "$T/$name"
	LOG=$T/$name/log
	llmserver_start "$T/$name" "$T/none.json" "$@"
}
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT
# items LOG: candidates the server was asked about (the strings of a JSON list of candidates,
# one a line, counted by the separators between them; or one)
items() { awk '{ if (index($0, "### Candidates")) { n = gsub(/,\\\\n\\\\\\"/, "&"); t += n + 1 } else t += 1 } END { print t + 0 }' "$1"; }

db=$T/r.db
"$B/gen" -n 3000 --db "$db" --quiet >/dev/null 2>"$T/gen.err" || notok "gen" "$(cat "$T/gen.err")"
Q="SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;"
q() {   # q OUT [options]: rows in OUT.rows, the rest in OUT.err
	out=$1
	shift
	XDG_CACHE_HOME=$T/xdg "$prog" -v --csv --no-headers --set times=off --set budget=0 \
		--llm-url "$URL" --model m "$@" "$db" -c "$Q" >"$out.rows" 2>"$out.err"
}
# agree A B: precision and recall of A's rows against B's
agree() {
	awk -v f="$1.rows" -v g="$2.rows" 'BEGIN {
		while ((getline l < g) > 0) { want[l] = 1; nw++ }
		while ((getline l < f) > 0) { n++; if (l in want) tp++ }
		printf "%.3f %.3f", n ? tp / n : 1, nw ? tp / nw : 1 }'
}
judged() { sed -n "s/^  conjunct 1: judges: learned proxy \([0-9]*\) .*, main model \([0-9]*\) .*/\\$2/p" "$1.err"; }

# --- a main model whose verdicts follow the words of the text
start words --yes-words kid,child,famil
q "$T/off" --no-cache
check "off by default: no cascade in the plan" "$(grep -c cascade "$T/off.err")" 0
check "without the cascade the main model judges all 3000" "$(items "$LOG")" 3000
: >"$LOG"
q "$T/on" --no-cache --set llm.cascade_target=0.95 --set llm.cascade_sample=300
grep -q "cascade, conjunct 1: a learned proxy in front of the main model (target 0.95" "$T/on.err" &&
	ok "the plan names the cascade, its target and sample" || notok "the plan names the cascade" "$(grep -A3 walk "$T/on.err")"
main=$(judged "$T/on" 2) proxy=$(judged "$T/on" 1)
check "the server saw exactly the main model's candidates" "$(items "$LOG")" "$main"
check "each candidate was judged by one of the two" "$((main + proxy))" 3000
at_most "the main model judged at most half of them" "$main" 1500
set -- $(agree "$T/on" "$T/off")
at_least "precision against the main model alone" "$1" 0.9
at_least "recall against the main model alone" "$2" 0.9
grep -q "at 95% confidence at least" "$T/on.err" && ok "the counters state the confidence" ||
	notok "the counters state the confidence" "$(grep cascade "$T/on.err")"
q "$T/on2" --no-cache --set llm.cascade_target=0.95 --set llm.cascade_sample=300
check "the same statement samples and decides the same way" "$(judged "$T/on2" 2),$(cat "$T/on2.rows" | wc -l)" "$main,$(cat "$T/on.rows" | wc -l)"

# --- proxy verdicts are never cached: the walk without cascade asks the model about them
rm -rf "$T/xdg"
q "$T/c1" --set llm.cascade_target=0.95 --set llm.cascade_sample=300
: >"$LOG"
q "$T/c2"
check "after a cascade, the proxy's candidates go to the model (the sample's come from the cache)" \
	"$(items "$LOG")" "$(judged "$T/c1" 1)"

# --- a proxy model (llm.proxy) on the same endpoint, wrong on a tenth of the texts in each
# of its two wordings: where they disagree the chat model decides
start flip --yes-words kid,child,famil --flip small:0.1
q "$T/pm" --no-cache --set llm.cascade_target=0.95 --set llm.cascade_sample=300 --set llm.proxy=small
grep -q "cascade, conjunct 1: the proxy model small in front of the main model" "$T/pm.err" &&
	ok "proxy model: the plan names it" || notok "proxy model: the plan names it" "$(grep cascade "$T/pm.err")"
pmain=$(sed -n 's/^  conjunct 1: judges: proxy model \([0-9]*\) .*, main model \([0-9]*\) .*/\2/p' "$T/pm.err")
pprox=$(sed -n 's/^  conjunct 1: judges: proxy model \([0-9]*\) .*/\1/p' "$T/pm.err")
grep '\\"model\\":\\"m\\"' "$LOG" >"$T/pm-main.log"
grep '\\"model\\":\\"small\\"' "$LOG" >"$T/pm-small.log"
check "proxy model: the chat model was asked exactly its candidates" "$(items "$T/pm-main.log")" "$pmain"
check "proxy model: the proxy model was asked every candidate twice" "$(items "$T/pm-small.log")" 6000
check "proxy model: each candidate decided by one judge" "$((pmain + pprox))" 3000
at_most "proxy model: the chat model judged at most half" "$pmain" 1500
set -- $(agree "$T/pm" "$T/off")
at_least "proxy model: precision against the chat model alone" "$1" 0.9
at_least "proxy model: recall against the chat model alone" "$2" 0.9

# --- a main model that decides by a hash of the text: nothing to learn
start hash --yes-rate 0.3
q "$T/hoff" --no-cache
q "$T/hon" --no-cache --set llm.cascade_target=0.95 --set llm.cascade_sample=300
at_least "unpredictable model: the main model still judges most candidates" "$(judged "$T/hon" 2)" 2400
set -- $(agree "$T/hon" "$T/hoff")
at_least "unpredictable model: precision" "$1" 0.9
at_least "unpredictable model: recall" "$2" 0.9

