#!/bin/sh
# The libraries loaded on first use (src/base/dynlib.h): libcurl, libpq and libcrypto are
# mapped only when a statement needs them, counted from the dynamic loader's own report
# (LD_DEBUG=files names every object it maps, at start-up and by dlopen); when one cannot
# be loaded (SUQL_LIBCURL, SUQL_LIBPQ, SUQL_LIBCRYPTO naming a file that is not there, or a
# library without the functions), the error names it and the package, the exit status is
# that of the same kind of failure, and the statements after it still run.
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/libraries
mkdir -p "$tmp"
SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; [ -n "$own_tmp" ] && rm -rf "$SUQL_TMP"' EXIT

ok() { echo "ok libraries: $1"; }
notok() {
	echo "not ok libraries: $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed 's/^/# /' "$f" | head -n 12; done
}
# mapped FILE NAME: how many times the loader mapped NAME (a file name without its
# directory, such as libcurl.so.4) by the LD_DEBUG output FILE ("generating link map" is
# written once per object mapped, whether needed at start-up or loaded by dlopen)
mapped() { grep -c "file=\\([^ ]*/\\)\\{0,1\\}$2 \\[[0-9]*\\]; *generating link map" "$1"; }
# loads FILE -- COMMAND...: the command's LD_DEBUG=files report into FILE (its own
# stderr stays there too); the command's status is returned
loads() {
	f=$1
	shift 2
	LD_DEBUG=files LD_DEBUG_OUTPUT="$f.ld" "$@" >"$f.out" 2>"$f.err"
	rc=$?
	cat "$f".ld.* >"$f" 2>/dev/null
	rm -f "$f".ld.*
	return $rc
}

# plain SQL on SQLite: none of the three, and the report is real (it names libsqlite3)
loads "$tmp/plain" -- "$prog" -c 'SELECT 1;'
if [ "$(mapped "$tmp/plain" libsqlite3.so.0)" -ge 1 ] &&
   [ "$(mapped "$tmp/plain" libcurl.so.4)" = 0 ] && [ "$(mapped "$tmp/plain" libpq.so.5)" = 0 ] &&
   [ "$(mapped "$tmp/plain" libcrypto.so.3)" = 0 ]; then
	ok "-c 'SELECT 1;' maps libsqlite3 and none of libcurl, libpq, libcrypto"
else
	notok "-c 'SELECT 1;' maps libsqlite3 and none of libcurl, libpq, libcrypto" "$tmp/plain"
fi

db=$tmp/t.db
cat >"$tmp/plain.sql" <<'SQL'
CREATE TABLE notes (id INTEGER PRIMARY KEY, body FREE_TEXT);
INSERT INTO notes (body) VALUES ('A zither played all night.'), ('A quiet room.');
SELECT count(*) FROM notes;
:tables
SQL
loads "$tmp/script" -- "$prog" --csv "$db" -f "$tmp/plain.sql"
if [ "$(mapped "$tmp/script" libcurl.so.4)" = 0 ] && [ "$(mapped "$tmp/script" libpq.so.5)" = 0 ] &&
   [ "$(mapped "$tmp/script" libcrypto.so.3)" = 0 ] && grep -qx 2 "$tmp/script.out"; then
	ok "a plain script on a database file maps none of them"
else
	notok "a plain script on a database file maps none of them" "$tmp/script" "$tmp/script.err"
fi

q="SELECT id FROM notes WHERE answer(body, 'is a zither played?') = 'Yes';"
# the offline backend keys its results by SHA-256 (libcrypto) and sends nothing (no libcurl)
loads "$tmp/offline" -- "$prog" --csv --no-cache "$db" -c "$q"
if [ "$(mapped "$tmp/offline" libcrypto.so.3)" = 1 ] && [ "$(mapped "$tmp/offline" libcurl.so.4)" = 0 ]; then
	ok "an offline free-text query maps libcrypto once and not libcurl"
else
	notok "an offline free-text query maps libcrypto once and not libcurl" "$tmp/offline" "$tmp/offline.err"
fi

# a model over HTTP: libcurl is mapped once, by dlopen, and the answer comes back
echo '[]' >"$tmp/rules.json"
llmserver_start "$tmp" "$tmp/rules.json" --yes-word zither
loads "$tmp/http" -- "$prog" --csv --no-cache --llm-url "$URL" --model m "$db" -c "$q"
if [ "$(mapped "$tmp/http" libcurl.so.4)" = 1 ] &&
   grep -q 'file=[^ ]*libcurl.so.4 .*dynamically loaded by' "$tmp/http" &&
   [ "$(sed -n 2p "$tmp/http.out")" = 1 ] && [ "$(wc -l <"$tmp/http.out")" = 2 ]; then
	ok "a model over HTTP maps libcurl once, on first use, and answers"
else
	notok "a model over HTTP maps libcurl once, on first use, and answers" "$tmp/http.out" "$tmp/http.err"
fi

# libcurl missing: the statement fails with the library and the package named, status 3
# (as when the endpoint cannot be reached), nothing is sent, and the next statement runs
sent=$(wc -l <"$tmp/log")
printf '%s\nSELECT 40 + 2;\n' "$q" >"$tmp/nocurl.sql"
SUQL_LIBCURL=$tmp/libcurl-missing.so.4 "$prog" --csv --no-cache --llm-url "$URL" --model m "$db" \
	<"$tmp/nocurl.sql" >"$tmp/nocurl.out" 2>"$tmp/nocurl.err"
rc=$?
if [ $rc = 3 ] && grep -q "cannot load $tmp/libcurl-missing.so.4 (install libcurl4, or unset SUQL_LIBCURL): .*No such file" "$tmp/nocurl.err" &&
   grep -qx 42 "$tmp/nocurl.out" && [ "$(wc -l <"$tmp/log")" = "$sent" ] && [ "$sent" -ge 1 ]; then
	ok "without libcurl: the library and package are named, status 3, the script goes on"
else
	notok "without libcurl: the library and package are named, status 3, the script goes on (status $rc)" \
		"$tmp/nocurl.err" "$tmp/nocurl.out"
fi
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
SPID=""

# a file that loads but is not libcurl: the missing function is named
SUQL_LIBCURL=libsqlite3.so.0 "$prog" --no-cache --llm-url http://127.0.0.1:9/v1 --model m "$db" \
	-c "$q" >/dev/null 2>"$tmp/notcurl.err"
rc=$?
if [ $rc = 3 ] && grep -q 'cannot load libsqlite3.so.0 (install libcurl4, or unset SUQL_LIBCURL): .*undefined symbol: curl_' "$tmp/notcurl.err"; then
	ok "a library without libcurl's functions names the one missing"
else
	notok "a library without libcurl's functions names the one missing (status $rc)" "$tmp/notcurl.err"
fi

# libcrypto missing: every call fails with that reason, status 3, before any request
SUQL_LIBCRYPTO=libcrypto-missing.so.3 "$prog" --csv --no-cache "$db" \
	<"$tmp/nocurl.sql" >"$tmp/nocrypto.out" 2>"$tmp/nocrypto.err"
rc=$?
if [ $rc = 3 ] && grep -q 'cannot load libcrypto-missing.so.3 (install libssl3, or unset SUQL_LIBCRYPTO)' "$tmp/nocrypto.err" &&
   grep -qx 42 "$tmp/nocrypto.out"; then
	ok "without libcrypto: named, status 3, the script goes on"
else
	notok "without libcrypto: named, status 3, the script goes on (status $rc)" "$tmp/nocrypto.err" "$tmp/nocrypto.out"
fi

# PostgreSQL: libpq is mapped when a pg: target is opened (here a socket directory with no
# server: libpq loads, then the connection fails)
loads "$tmp/pg" -- "$prog" "pg:host=$tmp/nosocket dbname=x" -c 'SELECT 1;'
rc=$?
if [ $rc = 2 ] && [ "$(mapped "$tmp/pg" libpq.so.5)" = 1 ] && grep -q 'cannot connect to PostgreSQL' "$tmp/pg.err"; then
	ok "a pg: target maps libpq once; no server is status 2"
else
	notok "a pg: target maps libpq once; no server is status 2 (status $rc)" "$tmp/pg" "$tmp/pg.err"
fi
SUQL_LIBPQ=libpq-missing.so.5 "$prog" "pg:host=$tmp/nosocket dbname=x" -c 'SELECT 1;' \
	>"$tmp/nopq.out" 2>"$tmp/nopq.err"
rc=$?
if [ $rc = 2 ] && grep -q 'cannot load libpq-missing.so.5 (install libpq5, or unset SUQL_LIBPQ)' "$tmp/nopq.err" &&
   [ ! -s "$tmp/nopq.out" ]; then
	ok "without libpq: a pg: target is a setup error (status 2) naming the library and package"
else
	notok "without libpq: a pg: target is a setup error (status 2) naming the library and package (status $rc)" "$tmp/nopq.err"
fi
# in a session, :open of a pg: target without libpq fails and the session goes on
printf ':open pg:host=%s/nosocket\nSELECT 6 * 7;\n' "$tmp" >"$tmp/open.sql"
SUQL_LIBPQ=libpq-missing.so.5 "$prog" --csv <"$tmp/open.sql" >"$tmp/open.out" 2>"$tmp/open.err"
if grep -q 'cannot load libpq-missing.so.5 (install libpq5' "$tmp/open.err" && grep -qx 42 "$tmp/open.out"; then
	ok "without libpq: :open fails, the session goes on"
else
	notok "without libpq: :open fails, the session goes on" "$tmp/open.err" "$tmp/open.out"
fi
SUQL_LIBPQ=libpq-missing.so.5 "$prog" --version >"$tmp/ver" 2>&1
if grep -q '^suql [0-9.]* (SQLite 3[0-9.]*; cannot load libpq-missing.so.5 (install libpq5' "$tmp/ver"; then
	ok "--version says when libpq cannot be loaded"
else
	notok "--version says when libpq cannot be loaded" "$tmp/ver"
fi
