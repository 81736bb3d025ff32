#!/bin/sh
# The cache is keyed by the endpoint (issue 35, item 6): answers one endpoint gave under a
# model's name are not taken as another endpoint's answers under that name. Two loopback
# servers on two ports serve a model named gpt-4o-mini: the first lies (every verdict yes),
# the second answers by the texts (yes for a review that mentions a patio). Runs share one
# cache file:
#
#   1. the liar answers (all of its verdicts are cached);
#   2. the honest server: requests go out (its log counts them), its rows come back, not the
#      liar's;
#   3. the honest server again, its URL spelt otherwise (upper-case scheme and host, a
#      trailing slash, credentials, a query): one endpoint, so 0 requests and the same rows;
#   4. the liar again: 0 requests, its own rows (each endpoint keeps its answers);
#   5. an ENUM mapping the liar made is not used at the honest server, which classifies
#      again (a request in its log), and :enum names the endpoint of each mapping;
#   6. embeddings: the vectors kept in the database name the endpoint, so the second
#      endpoint embeds again instead of reading the first one's.
. "$(dirname "$0")/../lib.sh"
T=$SUQL_TMP/cache-endpoint
mkdir -p "$T"
DB=$T/demo.db
SUQL_PROG=$prog sh "$SUQL_TOP/tests/demo-db.sh" "$DB" || { notok "demo database"; exit 1; }
export XDG_CACHE_HOME="$T/cache"
Q="SELECT id FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes' ORDER BY id;"
LIAR=""; HONEST=""; LPID=""; HPID=""
trap 'for p in $LPID $HPID; do kill "$p" 2>/dev/null; done; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

start_server liar --yes-rate 1
LPID=$SPID LIAR=$URL LLOG=$LOG
start_server honest --yes-words patio
HPID=$SPID HONEST=$URL HLOG=$LOG
nlog() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }

# go URL: the statement at URL under one model name, rows in $T/rows, the server's new
# requests in $sent (LOG: that server's log)
go() {
	_u=$1 _log=$2
	shift 2
	_b=$(nlog "$_log")
	"$prog" -v --csv --no-headers --set times=off --set budget=0 --llm-url "$_u" \
		--model gpt-4o-mini "$@" "$DB" -c "$Q" >"$T/rows" 2>"$T/err"
	st=$?
	sent=$(($(nlog "$_log") - _b))
}

go "$LIAR" "$LLOG"
cp "$T/rows" "$T/liar.rows"
lrows=$(wc -l <"$T/rows" | tr -d ' ')
if [ "$st" -eq 0 ] && [ "$sent" -gt 0 ] && [ "$lrows" -gt 20 ]; then
	ok "the lying endpoint answers: $lrows rows in $sent requests (cached)"
else
	notok "the lying endpoint answers" "status $st, $sent requests, $lrows rows" "$(cat "$T/err")"
fi

go "$HONEST" "$HLOG"
cp "$T/rows" "$T/honest.rows"
hrows=$(wc -l <"$T/rows" | tr -d ' ')
# the honest rows: each a review that mentions a patio (the server's rule), fewer than the liar's
want=$("$prog" --csv --no-headers "$DB" -c "SELECT id FROM restaurants WHERE lower(reviews) LIKE '%patio%' ORDER BY id;" | wc -l | tr -d ' ')
if [ "$st" -eq 0 ] && [ "$sent" -gt 0 ] && [ "$hrows" -lt "$lrows" ] && ! cmp -s "$T/liar.rows" "$T/honest.rows"; then
	ok "another endpoint, same model name: $sent requests sent, its own $hrows rows (not the liar's $lrows)"
else
	notok "another endpoint, same model name: asked again" "status $st, $sent requests, $hrows rows (liar $lrows, patio $want)" "$(cat "$T/err")"
fi
grep -q 'cache hits: 0' "$T/err" && ok "... and no answer of the liar's served as a cache hit" ||
	notok "... and no cache hit" "$(grep 'cache hits' "$T/err")"

port=${HONEST#http://127.0.0.1:}
port=${port%/v1}
go "HTTP://user:pw@127.0.0.1:$port/v1/?api-version=1" "$HLOG"
if [ "$st" -eq 0 ] && [ "$sent" -eq 0 ] && cmp -s "$T/rows" "$T/honest.rows"; then
	ok "the same endpoint spelt otherwise (case, slash, credentials, query): 0 requests, the same rows"
else
	notok "the same endpoint spelt otherwise: from the cache" "status $st, $sent requests" "$(cat "$T/err")"
fi

go "$LIAR" "$LLOG"
if [ "$st" -eq 0 ] && [ "$sent" -eq 0 ] && cmp -s "$T/rows" "$T/liar.rows"; then
	ok "the first endpoint again: 0 requests, its own rows from the cache"
else
	notok "the first endpoint again: from the cache" "status $st, $sent requests" "$(cat "$T/err")"
fi

# the key file holds no credentials: the origin is all it names (the keys are digests, so
# look for the text in the whole file)
if grep -q 'user:pw' "$XDG_CACHE_HOME/suql/cache.db" 2>/dev/null; then
	notok "the cache file holds no credentials of the URL"
else
	ok "the cache file holds no credentials of the URL"
fi

# --- ENUM mappings: the liar's mapping is not the honest endpoint's
E="SELECT count(*) FROM restaurants WHERE price = 'swanky';"
b=$(nlog "$LLOG")
"$prog" --csv --no-headers --llm-url "$LIAR" --model gpt-4o-mini "$DB" -c "$E" >/dev/null 2>"$T/e1"
lsent=$(($(nlog "$LLOG") - b))
b=$(nlog "$HLOG")
"$prog" -v --set times=off --csv --no-headers --llm-url "$HONEST" --model gpt-4o-mini "$DB" -c "$E" \
	>/dev/null 2>"$T/e2"
hsent=$(($(nlog "$HLOG") - b))
if [ "$lsent" -ge 1 ] && [ "$hsent" -ge 1 ] && grep -q "the stored mapping was made by gpt-4o-mini at $LIAR" "$T/e2"; then
	ok "ENUM: the mapping the first endpoint made is classified again at the second ($hsent request), and the plan names the first"
else
	notok "ENUM: classified again at the second endpoint" "liar $lsent, honest $hsent requests" "$(cat "$T/e2")"
fi
"$prog" "$DB" -c ':enum' >"$T/enum" 2>&1
if grep -q "(by gpt-4o-mini at $HONEST)" "$T/enum"; then
	ok ":enum names the endpoint that made the mapping"
else
	notok ":enum names the endpoint" "$(cat "$T/enum")"
fi

# --- embeddings: the vectors kept in the database name their endpoint
K="SELECT id FROM restaurants WHERE answer(reviews, 'is there outdoor seating?') = 'Yes' LIMIT 1;"
"$prog" --csv --no-headers --no-cache --llm-url "$LIAR" --model gpt-4o-mini --embed-model e1 "$DB" \
	-c "$K" >/dev/null 2>"$T/k1"
b=$(grep -c '/embeddings' "$HLOG")
"$prog" --csv --no-headers --no-cache --llm-url "$HONEST" --model gpt-4o-mini --embed-model e1 "$DB" \
	-c "$K" >/dev/null 2>"$T/k2"
emb=$(($(grep -c '/embeddings' "$HLOG") - b))
tabs=$(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE name LIKE 'suql_emb_%' AND type = 'table'")
names=""
for t in $tabs; do names="$names$(sqlite3 "$DB" "SELECT DISTINCT model FROM $t" | LC_ALL=C sort | tr '\n' '|')"; done
want=$(printf 'e1 at %s\n' "$HONEST" "$LIAR" | LC_ALL=C sort | tr '\n' '|')
if [ "$emb" -gt 0 ] && [ "$names" = "$want" ]; then
	ok "embeddings: the second endpoint embeds again ($emb requests); the vectors name each endpoint"
else
	notok "embeddings: kept per endpoint" "embedding requests at the second: $emb; models kept: $names" "$(cat "$T/k2")"
fi
[ "$fails" -eq 0 ]
