#!/bin/sh
# suql --eval from the outside (the scripted-model cases are tests/chat/eval-*.t): the scores
# of row sets and answers on a benchmark whose figures are worked out by hand, per split and
# in total; the report and resuming it; refusals with clear messages (bad files, ways, a
# report of another backend, chat without a model); a failing model stops the run and the
# report keeps what was done; cases run concurrently but never more requests than the
# client's concurrency; and the shipped benchmarks run offline, HybridQA and clothing only
# when ../shared/data is there. Every run is on a copy of a database.
. "$(dirname "$0")/../lib.sh"
B=$SUQL_BUILD
case $B in /*) ;; *) B=$SUQL_TOP/$B ;; esac
T=$SUQL_TMP/eval
mkdir -p "$T"
unset SUQL_LLM_URL SUQL_LLM_KEY SUQL_MODEL OPENAI_API_KEY OPENAI_BASE_URL
export XDG_CACHE_HOME="$T/cache"

same() {   # same NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:" "$2" "want:" "$3"; fi
}
has() {    # has NAME TEXT NEEDLE
	case $2 in *"$3"*) ok "$1" ;; *) notok "$1" "no '$3' in:" "$2" ;; esac
}
jsonl() {   # jsonl FILE SQL: SQL over lines(j), one row per line of FILE
	sqlite3 :memory: "CREATE TABLE lines(j); INSERT INTO lines SELECT value FROM json_each(
		'[' || replace(rtrim(CAST(readfile('$1') AS TEXT), char(10)), char(10), ',') || ']');
		$2"
}
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "skip eval: the sqlite3 shell is not installed (scripts/deps.sh installs it)"
	exit 0
fi

trap 'stop_server; [ -z "$own_tmp" ] || rm -rf "$SUQL_TMP"' EXIT

SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$T/demo.db"
cd "$T" || exit 1

# --- scores worked out by hand (no model call: the SUQL is plain SQL)
# split a: mp predicts 101-107 against {101, 102, 200, 201}: tp 2, fp 5, fn 2, 2 of the first
# 3 right; bad fails (no such table), fn 1. split b: rc predicts 108-112 against {110, 111,
# 112} from gold_sql: tp 3, fp 2, 1 of the first 3 right; none predicts nothing, fn 1.
# answers: "7" is exact; "4.6 stars" against "4.6" has F1 2/3.
cat >rows.jsonl <<'EOF'
{"benchmark": "hand", "key": "id", "k": 3, "table": "restaurants"}
{"id": "mp", "split": "a", "question": "restaurants in Menlo Park", "suql": "SELECT name, id FROM restaurants WHERE location = 'Menlo Park' ORDER BY id", "rows": [101, 102, 200, 201]}
{"id": "rc", "split": "b", "question": "restaurants in Redwood City", "suql": "SELECT id FROM restaurants WHERE location = 'Redwood City' ORDER BY id", "gold_sql": "SELECT id FROM restaurants WHERE location = 'Redwood City' AND id > 109"}
{"id": "none", "split": "b", "question": "a place called Nowhere", "suql": "SELECT id FROM restaurants WHERE name = 'Nowhere'", "rows": [5]}
{"id": "bad", "split": "a", "question": "broken", "suql": "SELECT id FROM restaurant", "rows": [1]}
{"id": "qa1", "question": "how many in Menlo Park?", "suql": "SELECT count(*) FROM restaurants WHERE location = 'Menlo Park'", "answers": ["seven", "7"]}
{"id": "qa2", "question": "rating of Hoshi Sushi?", "suql": "SELECT rating || ' stars' FROM restaurants WHERE name = 'Hoshi Sushi'", "answers": ["4.6"]}
EOF
want='way,split,cases,errors,P,R,F1,P@3,calls,cached,tok in,tok out,trips
suql,a,2,1,28.6,40.0,33.3,66.7,0,0,0,0,0
suql,b,2,0,60.0,75.0,66.7,33.3,0,0,0,0,0
suql,all,4,1,41.7,55.6,47.6,50.0,0,0,0,0,0
way,split,cases,errors,EM,F1,calls,cached,tok in,tok out,trips
suql,all,2,0,50.0,83.3,0,0,0,0,0'
out=$("$prog" --eval rows.jsonl --report r1.jsonl --csv -s times=off demo.db 2>err1)
st=$?
same "eval: precision, recall, F1, P@k per split and in total; EM and F1" "$out" "$want"
same "eval: exit status 0 when every case ran" "$st" 0
same "eval: a failed case is named on stderr" "$(cat err1)" \
	"note: case bad (suql) failed: line 1, column 16: no such table: restaurant"
same "eval: the report has a header, six cases and totals" \
	"$(jsonl r1.jsonl "SELECT count(*) FILTER (WHERE j ->> 'suql_eval' = 1) || ' ' ||
	   count(*) FILTER (WHERE j ->> 'id' IS NOT NULL) || ' ' ||
	   count(*) FILTER (WHERE j ->> 'totals' IS NOT NULL) FROM lines")" "1 6 1"
same "eval: a case's line" \
	"$(jsonl r1.jsonl "SELECT j ->> 'pred' || ' ' || (j ->> 'gold') || ' ' || (j ->> 'tp') ||
	   (j ->> 'fp') || (j ->> 'fn') || ' ' || (j ->> 'hits_k') || '/' || (j ->> 'n_k')
	   FROM lines WHERE j ->> 'id' = 'rc'")" '["108","109","110","111","112"] ["110","111","112"] 320 1/3'

# --- resuming: cases in the report are not run again; a lost case is
out=$("$prog" --eval rows.jsonl --report r1.jsonl --csv -s times=off demo.db 2>/dev/null)
same "resume: the same figures from the report" "$out" "$want"
same "resume: still six cases and one totals line" \
	"$(jsonl r1.jsonl "SELECT count(*) FILTER (WHERE j ->> 'id' IS NOT NULL) || ' ' ||
	   count(*) FILTER (WHERE j ->> 'totals' IS NOT NULL) FROM lines")" "6 1"
grep -v '"id":"qa2"' r1.jsonl >r2.jsonl
out=$("$prog" --eval rows.jsonl --report r2.jsonl -s times=off demo.db 2>/dev/null)
same "resume: the missing case runs" "$(jsonl r2.jsonl "SELECT group_concat(id, ' ') FROM (SELECT
	j ->> 'id' AS id FROM lines WHERE j ->> 'id' IS NOT NULL ORDER BY 1)")" "bad mp none qa1 qa2 rc"
has "resume: the summary says where the report is" "$out" "report: r2.jsonl"

# --- refusals
printf '%s\n' '{"suql_eval": 1, "benchmark": "hand", "backend": "gpt-9 at http://x/v1"}' >other.jsonl
out=$("$prog" --eval rows.jsonl --report other.jsonl demo.db 2>&1)
st=$?
same "refused: a report made with another backend" "$st $out" \
	"2 error: other.jsonl was made with gpt-9 at http://x/v1, not offline (lexical, no language model): give another --report, or delete it to start again"
printf '%s\n' '{"benchmark": "b"}' '{"id": 1, "question": "q", "rows": [1], "anwsers": "x"}' >typo.jsonl
out=$("$prog" --eval typo.jsonl demo.db 2>&1)
same "refused: an unknown field, with file and line" "$? $out" \
	"2 error: typo.jsonl:2: unknown field \"anwsers\" (id, question, suql, gold_sql, answers, rows, kind, table, split, note)"
out=$("$prog" --eval rows.jsonl --way chat demo.db 2>&1)
has "refused: the chat way without a model" "$? $out" "2 error: the chat way needs a language model"
out=$("$prog" --eval rows.jsonl --way sql demo.db 2>&1)
same "refused: an unknown way" "$? $out" "2 error: --way: unknown way 'sql' (suql, chat, linearize, all)"
out=$("$prog" --way suql demo.db 2>&1)
same "refused: --way without --eval" "$? $out" "2 error: --way goes with --eval BENCH"
out=$("$prog" --eval rows.jsonl 2>&1)
same "refused: no database" "$? $out" "2 error: --eval needs the DATABASE the benchmark is about"
out=$("$prog" --eval rows.jsonl --way all --csv -s times=off demo.db 2>/dev/null)
st=$?
has "offline, all ways: linearize runs, chat is left out" "$st $out" "0 way,split"
has "offline, all ways: linearize rows" "$out" "linearize,all,4,"

# --- the model fails: the run stops with status 3, the report keeps the cases done
cat >llm.jsonl <<'EOF'
{"benchmark": "llm", "key": "id", "table": "restaurants"}
{"id": "pa", "question": "romantic in Palo Alto", "suql": "SELECT id FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
{"id": "sf", "question": "romantic in San Francisco", "suql": "SELECT id FROM restaurants WHERE location = 'San Francisco' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
{"id": "sj", "question": "romantic in San Jose", "suql": "SELECT id FROM restaurants WHERE location = 'San Jose' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
{"id": "cu", "question": "romantic in Cupertino", "suql": "SELECT id FROM restaurants WHERE location = 'Cupertino' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
{"id": "mv", "question": "romantic in Mountain View", "suql": "SELECT id FROM restaurants WHERE location = 'Mountain View' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
{"id": "su", "question": "romantic in Sunnyvale", "suql": "SELECT id FROM restaurants WHERE location = 'Sunnyvale' AND answer(reviews, 'is it romantic?') = 'Yes'", "rows": [1]}
EOF
cat >fail.json <<'EOF'
[{"regex": "Cupertino|Mountain View|Sunnyvale", "status": 401, "json": {"error": {"message": "bad key"}}}]
EOF
start_server fail --rules fail.json
out=$(SUQL_LLM_URL=$URL SUQL_MODEL=m "$prog" --eval llm.jsonl --concurrency 1 --no-cache --report r3.jsonl demo.db 2>err3)
st=$?
stop_server
same "model failure: exit status 3" "$st" 3
has "model failure: says what to fix" "$(cat err3)" "error: case \"cu\" (suql): the endpoint wants an API key (HTTP 401"
has "model failure: the cases left are counted" "$out" "not run: 3 cases (the run stopped; run the same command again to resume)"
same "model failure: the report keeps the cases done" \
	"$(jsonl r3.jsonl "SELECT group_concat(j ->> 'id', ' ') FROM lines WHERE j ->> 'id' IS NOT NULL")" "pa sf sj"

# --- concurrency: cases in parallel, never more requests in flight than allowed
start_server slow --delay 300
out=$(SUQL_LLM_URL=$URL SUQL_MODEL=m "$prog" --eval llm.jsonl --concurrency 2 --no-cache --csv -s times=off demo.db 2>&1)
stop_server
has "concurrency: every case ran, one call each" "$out" "suql,all,6,0,"
same "concurrency: two requests in flight at most, and two at once" \
	"$(jsonl "$LOG" "SELECT max(j ->> 'max_inflight') || ' ' || count(*) FROM lines")" "2 6"

# --- PostgreSQL: the same benchmarks against the same rows in a server of the suite's own
# (tests/pg.sh): gold SQL runs in the server, the figures are SQLite's
(
. "$SUQL_TOP/tests/pg.sh"
if ! pg_start; then
	echo "skip eval on PostgreSQL: $PG_SKIP"
	exit 0
fi
trap 'pg_stop' EXIT
if ! pg_load_demo demo.db; then
	notok "eval pg: the demo loads into PostgreSQL" "$(head -5 "$PG_DIR/load.log")"
	exit 0
fi
out=$("$prog" --eval rows.jsonl --csv -s times=off "$SUQL_PG" 2>"$T/pgerr")
same "eval pg: the scores worked out by hand, gold rows and gold SQL read from the server" "$out" "$want"
has "eval pg: ... the failing case's error is the server's, placed" "$(cat "$T/pgerr")" 'case bad (suql) failed: line 1, column 16: relation "restaurant" does not exist'
cat >ft.jsonl <<'EOF2'
{"benchmark": "ft", "key": "id", "k": 3, "table": "restaurants"}
{"id": "f1", "question": "romantic in Palo Alto", "suql": "SELECT id FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is it romantic?') = 'Yes'", "gold_sql": "SELECT id FROM restaurants JOIN restaurant_labels USING (id) WHERE location = 'Palo Alto' AND romantic = 1 ORDER BY id"}
{"id": "f2", "question": "good for kids in Cupertino", "suql": "SELECT id FROM restaurants WHERE location = 'Cupertino' AND answer(reviews, 'is it good for kids?') = 'Yes' LIMIT 2", "gold_sql": "SELECT id FROM restaurants JOIN restaurant_labels USING (id) WHERE location = 'Cupertino' AND kids = 1 ORDER BY id"}
{"id": "f3", "question": "what is it known for", "suql": "SELECT summary(reviews) FROM restaurants WHERE name = 'Hoshi Sushi'", "answers": ["sushi"]}
EOF2
sq=$("$prog" --eval ft.jsonl --way suql,linearize --no-cache --csv -s times=off demo.db 2>&1)
pg=$("$prog" --eval ft.jsonl --way suql,linearize --no-cache --csv -s times=off "$SUQL_PG" 2>&1)
has "eval pg: free-text cases and the linearize baseline run, no error" "$pg" "suql,all,2,0,"
same "eval pg: ... the same scores and calls as on SQLite" "$pg" "$sq"
out=$("$prog" --eval ft.jsonl --csv -s times=off "postgresql://suql@/nodb?host=$PG_HOST&port=$PG_PORT" 2>&1); st=$?
case $out in *"nodb"*) [ $st -ne 0 ] && ok "eval pg: a database that does not exist: an error naming it" ||
	notok "eval pg: no database" "status $st" "$out" ;;
*) notok "eval pg: no database" "$out" ;; esac
)
# --- the shipped benchmarks, offline
out=$("$prog" --eval "$SUQL_TOP/fixtures/eval/restaurants.jsonl" --report rest.jsonl --csv -s times=off demo.db 2>&1)
has "restaurants: 48 cases in two halves, no error" "$out" "suql,dev,24,0,"
has "restaurants: the held-out half" "$out" "suql,held-out,24,0,"
has "restaurants: per-group questions (answer_agg, extract): 4 for rows" "$out" "suql,per-group,4,0,"
has "restaurants: per-group questions (answer_agg): 8 for answers" "$out" "suql,per-group,8,0,"
same "restaurants: the labels give every question an answer" \
	"$(jsonl rest.jsonl "SELECT count(*) FROM lines WHERE json_array_length(j ->> 'gold') > 0")" 60
same "restaurants: a per-group answer is one of the options" \
	"$(jsonl rest.jsonl "SELECT count(*) FROM lines WHERE j ->> 'kind' = 'qa' AND j ->> '\$.gold[0]' IN ('easy', 'hard', 'mixed', 'Yes', 'No')")" 8

if [ ! -d "$SUQL_SHARED/data" ]; then
	echo "skip hybridqa: 45 cases: ../shared/data not found"
	echo "skip clothing: 31 cases: ../shared/data not found"
	exit 0
fi
for f in hybridqa clothing; do
	if [ ! -f "$B/$f.db" ]; then
		echo "skip $f: $B/$f.db not built (make fixtures)"
		continue
	fi
	cp "$B/$f.db" "$T/$f.db"
	out=$("$prog" --eval "$SUQL_TOP/fixtures/eval/$f.jsonl" --way suql,linearize --csv -s times=off "$f.db" 2>&1)
	case $f in
	hybridqa) has "hybridqa: 45 cases, no error, both ways" "$out" "suql,all,45,0,"
	          has "hybridqa: the linearize baseline" "$out" "linearize,all,45,0," ;;
	clothing) has "clothing: 25 cases of rows, no error" "$out" "suql,all,25,0,"
	          has "clothing: 6 per-item answers (answer_agg)" "$out" "suql,all,6,0,"
	          has "clothing: the linearize baseline" "$out" "linearize,all,25,0," ;;
	esac
done
