#!/bin/sh
# The sqlite3 shell's output modes (column, list, tabs, insert [TABLE], quote) and padded
# markdown, against the sqlite3 shell itself: the same statements on the same database,
# through `sqlite3 -cmd '.mode X'` and through suql's `.mode X`, with the column names on
# and off and NULL shown as nothing and as a nullvalue that was set, must write the same
# bytes. The statements hold what a writer gets wrong: NULLs, quotes, line breaks (LF, CR,
# CR LF, two in a row, one at the end), tabs and other control characters, UTF-8, reals
# (whole, huge, tiny, infinite, negative zero, 0.1 + 0.2), big integers, blobs (empty, with
# a NUL byte), names that must be quoted, no rows at all. markdown is compared on values
# without line breaks (suql writes <br> and escapes '|', so a value never breaks the table,
# where sqlite3 does not). Skipped without the sqlite3 shell.
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/shell-modes
mkdir -p "$tmp"
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "skip shell-modes: the sqlite3 shell is not installed (scripts/deps.sh installs it)"
	exit 0
fi
db=$tmp/t.db
sqlite3 "$db" <<'EOF'
CREATE TABLE t(a, b, c);
INSERT INTO t VALUES (1, 'it''s', NULL), (2.5, 'two
lines', X'00ff41'), (-3, 'ünï', 1e300), (100, '', 0.1), (NULL, 'a|b	c', 1.0),
(12345678901234, 'x"y', -0.0);
EOF

# one statement a line
cat >"$tmp/queries" <<'EOF'
SELECT * FROM t
SELECT a, b FROM t WHERE a < 3
SELECT 1 AS x WHERE 0
SELECT 'a'||char(13)||'b' AS x, 'c'||char(1)||'d' AS y, 'e'||char(10) AS w, 'f'||char(13,10)||'g' AS v, 'a'||char(10,10)||'b' AS x2, 'h'||char(9)||'i'||char(9,9)||'j' AS tab, 'k'||char(10,13)||'l' AS u, 'e'||char(10,10) AS z
SELECT 1.5e300 AS a, -1.0 AS b, 1e15 AS c, 1e16 AS d, 123456789012345678 AS e, 0.1+0.2 AS f, 9.9e-300 AS g, 1e999 AS h, -1e999 AS i, 2.0e18 AS j, 1e19 AS k, -0.0 AS z, 1e-5 AS m
SELECT 1 AS "a""b", 2 AS "rowid", 3 AS "abort", 4 AS "ñ", 5 AS "9x", 6 AS "", 'x' AS "select", 7 AS _ok9, 8 AS Ab
SELECT 'a\n\012(\n0)'||char(10) AS x, '\r\015'||char(13) AS y, X'' AS e, X'00ff41' AS bl, X'414243' AS b2, 'it''s' AS q, 'p'||char(127)||'q' AS del
SELECT 'x' AS a UNION ALL SELECT 'y'||char(10)||'z' UNION ALL SELECT 'w'
SELECT NULL AS n, 'é' AS e, 42 AS i
EOF

fails=0
compare() {   # compare MODE [TABLE]
	mode=$1
	shift
	n=0 bad=0
	while IFS= read -r q; do
		for hdr in on off; do
			for nv in "" "-"; do
				n=$((n + 1))
				if [ -n "$nv" ]; then
					sqlite3 -cmd ".mode $mode $*" -cmd ".headers $hdr" -cmd ".nullvalue $nv" \
						"$db" "$q;" >"$tmp/want" 2>&1
					"$prog" --nullvalue "$nv" --header "$db" -c ".headers $hdr" \
						-c ".mode $mode $*" -c "$q;" >"$tmp/got" 2>&1
				else
					sqlite3 -cmd ".mode $mode $*" -cmd ".headers $hdr" "$db" "$q;" \
						>"$tmp/want" 2>&1
					"$prog" "$db" -c ".headers $hdr" -c ".mode $mode $*" -c "$q;" \
						>"$tmp/got" 2>&1
				fi
				if ! cmp -s "$tmp/want" "$tmp/got"; then
					bad=$((bad + 1))
					if [ $bad -le 3 ]; then
						echo "# headers $hdr, nullvalue '$nv': $q"
						diff "$tmp/want" "$tmp/got" | od -c | head -n 8 | sed 's/^/# /'
					fi
				fi
			done
		done
	done <"$tmp/queries"
	label="shell-modes: .mode $mode${1:+ $*} writes what sqlite3 writes ($n runs: 9 statements, headers on and off, nullvalue set or not)"
	if [ $bad = 0 ]; then
		echo "ok $label"
	else
		echo "not ok $label: $bad differ"
		fails=$((fails + 1))
	fi
}

compare list
compare tabs
compare quote
compare insert
compare insert t
compare insert '"my t"'
compare column

# markdown: padded and the names centred as sqlite3 does, on values without line breaks
q="SELECT a, c, 'x' AS long_name, NULL AS n, 'ünï' AS u FROM t WHERE b NOT LIKE '%'||char(10)||'%'"
sqlite3 -cmd ".mode markdown" -cmd ".nullvalue -" "$db" "$q" >"$tmp/want"
"$prog" --nullvalue - "$db" -c ".mode markdown" -c "$q" >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then
	echo "ok shell-modes: markdown's columns are padded as sqlite3's"
else
	echo "not ok shell-modes: markdown's columns are padded as sqlite3's"
	diff "$tmp/want" "$tmp/got" | sed 's/^/# /' | head -n 12
fi

# the same through the command line's options and :mode, and a result of more rows than
# fetch_count holds (each part its own table, as table mode writes them)
"$prog" --column "$db" "SELECT a, b FROM t WHERE a = 1" >"$tmp/got"
sqlite3 -column -header "$db" "SELECT a, b FROM t WHERE a = 1" >"$tmp/want"
check "shell-modes: --column as sqlite3 -column -header" "$(cat "$tmp/got")" "$(cat "$tmp/want")"
"$prog" -list -noheader "$db" "SELECT a, b FROM t WHERE a = 1" >"$tmp/got"
check "shell-modes: -list -noheader (sqlite3's spelling)" "$(cat "$tmp/got")" "1|it's"
out=$("$prog" "$db" -c ":mode insert people" -c ":mode" -c "SELECT 1 AS id")
check "shell-modes: :mode insert TABLE names the table, and :mode says so" "$out" \
	"$(printf 'mode = insert people\nINSERT INTO people(id) VALUES(1);')"
out=$("$prog" --set fetch_count=2 --column "$db" "SELECT column1 AS v FROM (VALUES (1), (2), (3))")
check "shell-modes: column past fetch_count: a table for each part" "$out" \
	"$(printf 'v\n-\n1\n2\nv\n-\n3')"
out=$("$prog" "$db" -c ":mode insert" -c ":mode" -c "SELECT 1 AS id")
check "shell-modes: :mode insert alone writes into \"table\"" "$out" \
	"$(printf 'mode = insert\nINSERT INTO "table"(id) VALUES(1);')"
"$prog" "$db" -c ":mode csv people" >"$tmp/out" 2>&1
check "shell-modes: only insert takes a table" "$(cat "$tmp/out")" \
	"error: -c:1: usage: :mode [MODE [TABLE]]"
exit 0
