#!/bin/sh
# The record of what came from where (:set explain rows, :why, --json -v), checked against
# build/llmserver's log of the requests it received: a loopback model whose verdict for
# each candidate is known (each review holds a word of its own that a rule answers), one
# candidate per request and one request in flight, so the server's N-th request is suql's
# request N. Every per-row line must name the request whose body holds that candidate's
# text and the verdict the rule gave; :why must show passages that were in that request;
# the record costs no request of its own; a candidate answered from the cache says so.
OK_PREFIX="record: "
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/record
mkdir -p "$T"

db=$T/places.db
rm -f "$db"
"$prog" "$db" >/dev/null 2>&1 <<'EOF'
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT, reviews FREE_TEXT[]);
INSERT INTO places VALUES
 (1, 'Alpha Bistro', '["Candlelit alpha tables, a romantic and calm room.", "Parking is easy."]'),
 (2, 'Bravo Diner', '["Bright bravo lights, not romantic at all.", "Fast service."]'),
 (3, 'Charlie Cafe', '["A charlie corner, romantic with soft music."]'),
 (4, 'Delta Grill', '["Loud delta sports bar, nothing romantic."]'),
 (5, 'Echo Room', '["An echo of a romantic dinner spot with a view."]'),
 (6, 'Foxtrot Pub', '["A foxtrot pub with darts, romantic it is not."]');
EOF
# the verdict of each candidate, by the word only its text holds
cat >"$T/rules.json" <<'EOF'
[{"match": "alpha", "content": "yes"}, {"match": "bravo", "content": "no"},
 {"match": "charlie", "content": "yes"}, {"match": "delta", "content": "no"},
 {"match": "echo", "content": "yes"}, {"match": "foxtrot", "content": "no"}]
EOF
word_of() {   # the word of a label
	case $1 in Alpha*) echo alpha ;; Bravo*) echo bravo ;; Charlie*) echo charlie ;;
	Delta*) echo delta ;; Echo*) echo echo ;; Foxtrot*) echo foxtrot ;; esac
}
verdict_of() {
	case $1 in alpha | charlie | echo) echo yes ;; *) echo no ;; esac
}

q="SELECT name FROM places WHERE answer(reviews, 'is it romantic?') = 'Yes' LIMIT 2;"
llmserver_start "$T" "$T/rules.json"
run() {   # run [options...]: the query, with the per-row section; stdin holds more lines
	"$prog" -v --set explain=rows --set times=off --llm-url "$URL" --model m --set batch=1 \
		--concurrency 1 "$@" "$db" >"$T/out" 2>"$T/err"
}
printf '%s\n:why 1\n:why key=2\n' "$q" | run --no-cache
st=$?
nreq=$(wc -l <"$T/log")
lines=$(grep -c '^    [0-9][0-9]*\. key ' "$T/err")
if [ $st -eq 0 ] && [ "$lines" -ge 2 ] && [ "$lines" -eq "$nreq" ]; then
	ok "one line per candidate examined, as many as the server's requests ($nreq)"
else
	notok "one line per candidate examined, as many as the server's requests" "status $st, $lines lines, $nreq requests" "$(cat "$T/err")"
fi
# each line: its request's body holds the candidate's word, and the verdict is the rule's
bad=""
grep '^    [0-9][0-9]*\. key ' "$T/err" >"$T/lines"
while IFS= read -r l; do
	label=$(printf '%s\n' "$l" | sed 's/^    [0-9]*\. key [0-9]* \([A-Za-z]* [A-Za-z]*\) |.*/\1/')
	r=$(printf '%s\n' "$l" | sed -n 's/.* | request \([0-9]*\) | .*/\1/p')
	v=$(printf '%s\n' "$l" | sed -n 's/.* | q1 \([a-z]*\) | .*/\1/p')
	w=$(word_of "$label")
	[ -n "$w" ] && [ -n "$r" ] && sed -n "${r}p" "$T/log" | grep -q "$w" &&
		[ "$v" = "$(verdict_of "$w")" ] || bad="$bad
$l (request '$r', word '$w', verdict '$v')"
done <"$T/lines"
if [ -z "$bad" ]; then
	ok "each line names the request that carried the candidate, and the verdict it got"
else
	notok "each line names the request that carried the candidate, and the verdict it got" "$bad"
fi
# the rows in the result are the lines that say so
inres=$(grep ' | in the result' "$T/lines" | sed 's/^    [0-9]*\. key [0-9]* \([A-Za-z]* [A-Za-z]*\) |.*/\1/' | sort)
got=$(grep -v '^(' "$T/out" | grep -E '^\| (Alpha|Bravo|Charlie|Delta|Echo|Foxtrot)' | sed 's/^| \([A-Za-z]* [A-Za-z]*\) *|$/\1/' | sort)
if [ -n "$inres" ] && [ "$inres" = "$got" ]; then
	ok "the lines in the result are the rows returned"
else
	notok "the lines in the result are the rows returned" "lines: $inres" "rows: $got"
fi
# :why 1: the passages shown are the text of the request it names
r=$(sed -n 's/^  cost: request \([0-9]*\),.*/\1/p' "$T/out" | head -1)
sed -n '/^row 1 of the result/,/^candidate /p' "$T/out" | sed -n 's/^    [0-9]*\. //p' >"$T/psg"
bad=""
while IFS= read -r p; do
	sed -n "${r}p" "$T/log" | grep -qF "$p" || bad="$bad
'$p' is not in request $r"
done <"$T/psg"
if [ -n "$r" ] && [ -s "$T/psg" ] && [ -z "$bad" ] && grep -q '^  reply: yes$' "$T/out"; then
	ok ":why 1 shows the reply and the exact passages of request $r"
else
	notok ":why 1 shows the reply and the exact passages of the request" "request '$r'$bad" "$(cat "$T/out")"
fi
if grep -q '^candidate [0-9]* of block 1, conjunct 1, key 2 (Bravo Diner): failed$' "$T/out" &&
   grep -q "^    1. Bright bravo lights, not romantic at all.$" "$T/out"; then
	ok ":why key=2 explains a candidate that failed, with its passages"
else
	notok ":why key=2 explains a candidate that failed, with its passages" "$(cat "$T/out")"
fi
# the record and :why cost nothing: the requests are the walk's
calls=$(sed -n 's/^  llm calls: \([0-9]*\).*/\1/p' "$T/err")
if [ "$calls" = "$nreq" ]; then
	ok "keeping the record and :why sent no request ($calls calls, $nreq requests)"
else
	notok "keeping the record and :why sent no request" "calls $calls, requests $nreq"
fi

# the same with a cache of its own, twice: the first run fills it, the second sends nothing
# and every line says cache
export XDG_CACHE_HOME="$T/cache"
printf '%s\n' "$q" | run
printf '%s\n' "$q" | run
n2=$(wc -l <"$T/log")
grep '^    [0-9][0-9]*\. key ' "$T/err" >"$T/lines2"
if [ "$n2" -eq $((nreq * 2)) ] && [ -s "$T/lines2" ] && ! grep -qv ' | cache | ' "$T/lines2" &&
   grep -q "of the examined answered from the cache" "$T/err"; then
	ok "from the cache: each line says cache, and no request was sent"
else
	notok "from the cache: each line says cache, and no request was sent" "requests $nreq then $n2" "$(cat "$T/err")"
fi

# two candidates a request, answered by the server's automatic mode (a rule's bare "yes"
# does not answer a batch): each line's request holds its candidate's word
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
echo '[]' >"$T/auto.json"
rm -f "$T/log"
llmserver_start "$T" "$T/auto.json"
printf '%s\n' "$q" | run --no-cache --set batch=2
bad=""
grep '^    [0-9][0-9]*\. key ' "$T/err" >"$T/lines3"
while IFS= read -r l; do
	label=$(printf '%s\n' "$l" | sed 's/^    [0-9]*\. key [0-9]* \([A-Za-z]* [A-Za-z]*\) |.*/\1/')
	r=$(printf '%s\n' "$l" | sed -n 's/.* | request \([0-9]*\) | .*/\1/p')
	w=$(word_of "$label")
	[ -n "$r" ] && sed -n "${r}p" "$T/log" | grep -q "$w" || bad="$bad
$l"
done <"$T/lines3"
if [ -s "$T/lines3" ] && [ -z "$bad" ]; then
	ok "batches of two: each line names the request that carried its candidate"
else
	notok "batches of two: each line names the request that carried its candidate" "$bad" "$(cat "$T/err")"
fi
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null

# no model at all, and errors: :why before any statement, past the rows, a plain statement
printf ':why 1\nSELECT 1;\n:why 1\n' | "$prog" --offline "$db" >"$T/out" 2>"$T/err"
if grep -q "the last statement had no free text" "$T/err"; then
	ok ":why without a statement with free text says so"
else
	notok ":why without a statement with free text says so" "$(cat "$T/err")"
fi
printf '%s\n:why 7\n:why key=99\n' "$q" | "$prog" --offline --no-cache "$db" >"$T/out" 2>"$T/err"
if grep -q "the last result has 2 rows: no row 7" "$T/err" &&
   grep -q "no row of the last result and no examined candidate has the key '99'" "$T/err"; then
	ok ":why past the rows, or with an unknown key, is an error that says so"
else
	notok ":why past the rows, or with an unknown key, is an error that says so" "$(cat "$T/err")"
fi

# bounded: a walk over 1,200 candidates keeps 1,000 of them in the record and says so
big=$T/big.db
rm -f "$big"
"$prog" "$big" >/dev/null 2>&1 <<'EOF2'
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, notes FREE_TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
INSERT INTO t SELECT i, 'Row ' || i, CASE i % 3 WHEN 0 THEN 'A quiet room.' ELSE 'A loud room ' || i || '.' END FROM n;
EOF2
"$prog" --offline --no-cache --csv --no-headers --set explain=rows "$big" \
	-c "SELECT count(*) FROM t WHERE answer(notes, 'is it quiet?') = 'Yes';" >"$T/out" 2>"$T/err"
n=$(grep -c '^    [0-9][0-9]*\. key ' "$T/err")
if [ "$n" -eq 1000 ] && grep -q "1200 candidates, 1200 examined" "$T/err" &&
   grep -q "; 200 examined not kept (the record keeps 1000)" "$T/err" && [ "$(cat "$T/out")" = 400 ]; then
	ok "a walk of 1200 candidates keeps 1000 in the record, and says so"
else
	notok "a walk of 1200 candidates keeps 1000 in the record, and says so" "$n lines" "$(tail -3 "$T/err")" "$(cat "$T/out")"
fi

# the offline backend names the sentence that decided: :why shows it, highlighted in the
# passage that holds it
printf '%s\n:why 1\n' "$q" | "$prog" --offline --no-cache "$db" >"$T/out" 2>"$T/err"
ev=$(sed -n 's/^  decided by: //p' "$T/out" | head -1)
if [ -n "$ev" ] && grep -qF ">>$ev<<" "$T/out" && grep -q "^  passages shown ([0-9]*), the sentence that decided between >> and <<:$" "$T/out"; then
	ok ":why names the sentence that decided, highlighted in its passage ($ev)"
else
	notok ":why names the sentence that decided, highlighted in its passage" "$(cat "$T/out" "$T/err")"
fi
