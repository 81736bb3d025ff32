#!/bin/sh
# Program behaviour whose output is not fixed text (times, versions) or that needs more than
# one run, so it does not fit a transcript: --version, --help, :timer, -f - (stdin),
# --help-man with an unknown section, and that batch output never carries colour.
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/program
mkdir -p "$tmp"

t() {              # t NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok program: $name"
	else
		echo "not ok program: $name"
		sed 's/^/# /' "$tmp/out" | head -n 20
	fi
}

t "--version names the program, SQLite and libpq" sh -c \
	"'$prog' --version | grep -Eq '^suql [0-9]+\.[0-9]+\.[0-9]+ \(SQLite 3\.[0-9.]+, libpq [0-9]+\.[0-9]+\)$'"
t "--help exits 0 and lists the options" sh -c \
	"'$prog' --help >'$tmp/help' && grep -q -- '--bail' '$tmp/help' && grep -q '^Usage: suql' '$tmp/help'"
t "--help-man with an unknown section is a usage error" sh -c \
	"'$prog' --help-man nonsense 2>'$tmp/err'; [ \$? = 2 ] &&
	 grep -q \"^error: --help-man: no section 'nonsense'\" '$tmp/err'"
t ":timer on reports a time after the result" sh -c \
	"printf ':timer on\nSELECT 1;\n' | '$prog' 2>&1 | tail -n 1 | grep -Eq '^time: [0-9]+\.[0-9]{3} ms$'"
t "-f - reads stdin" sh -c \
	"echo 'SELECT 40 + 2 AS x;' | '$prog' --csv -f - | tr '\n' ' ' | grep -qx 'x 42 '"
t "stdin after -c is not read" sh -c \
	"[ \"\$(echo 'SELECT 1;' | '$prog' --csv -c 'SELECT 2 AS y')\" = \"\$(printf 'y\n2')\" ]"
t "no colour in batch output" sh -c \
	"printf 'SELECT NULL AS n;\n' | '$prog' | grep -q NULL && ! printf 'SELECT NULL AS n;\n' | '$prog' | grep -q \"\$(printf '\\033')\""
t "the exit status of a failing -c is 1" sh -c \
	"'$prog' -c 'SELECT * FROM nowhere' 2>'$tmp/err'; [ \$? = 1 ] &&
	 grep -q '^error: -c:1:15: no such table: nowhere' '$tmp/err'"

# The init file: $XDG_CONFIG_HOME/suql/init.suql, else ~/.suqlrc; --no-init skips it; a
# -init FILE that cannot be read stops the program with status 2.
home=$tmp/home
mkdir -p "$home/config/suql"
printf ':mode csv\nCREATE TEMP TABLE t (w TEXT); INSERT INTO t VALUES (%s);\n' "'from xdg'" \
	>"$home/config/suql/init.suql"
printf ':mode line\n' >"$home/.suqlrc"
t "the init file under XDG_CONFIG_HOME runs first" sh -c \
	"[ \"\$(HOME='$home' XDG_CONFIG_HOME='$home/config' '$prog' -c 'SELECT w FROM t')\" = \"\$(printf 'w\nfrom xdg')\" ]"
t "~/.suqlrc when there is no init.suql" sh -c \
	"[ \"\$(HOME='$home' XDG_CONFIG_HOME='$home/none' '$prog' -c 'SELECT 7 AS seven')\" = 'seven = 7' ]"
t "--no-init skips it" sh -c \
	"HOME='$home' XDG_CONFIG_HOME='$home/config' '$prog' --no-init -c 'SELECT 1 AS a' | grep -q '^| a |$'"
t "-init with a missing file is status 2, and nothing runs" sh -c \
	"HOME='$home' '$prog' -init '$tmp/nope.suql' -c 'SELECT 1' >'$tmp/o' 2>'$tmp/err'; [ \$? = 2 ] &&
	 [ ! -s '$tmp/o' ] && grep -q 'init file: cannot read' '$tmp/err'"

# :output and :once: the files get the results only, never parsed SUQL, plans or counters
cat >"$tmp/out.suql" <<'SQL'
CREATE TABLE n (body FREE_TEXT);
INSERT INTO n VALUES ('The cat sleeps all day.'), ('Dogs bark at night.');
:output results.txt
SELECT body FROM n WHERE answer(body, 'is it about a cat?') = 'Yes';
:output
:once once.txt
SELECT count(*) AS c FROM n;
SELECT 'back on stdout' AS where_to;
SQL
t ":output and :once files hold only the results, with -v" sh -c \
	"cd '$tmp' && '$prog' -v --offline --csv -f out.suql >stdout.txt 2>stderr.txt &&
	 [ \"\$(cat results.txt)\" = \"\$(printf 'body\nThe cat sleeps all day.')\" ] &&
	 [ \"\$(cat once.txt)\" = \"\$(printf 'c\n2')\" ] &&
	 [ \"\$(cat stdout.txt)\" = \"\$(printf 'where_to\nback on stdout')\" ] &&
	 grep -q '^counters:' stderr.txt && grep -q '^plan:' stderr.txt"

# -v --json: stdout is JSON that parses (checked with SQLite's json_valid)
if command -v sqlite3 >/dev/null 2>&1; then
	t "-v --json: stdout parses as JSON" sh -c \
		"cd '$tmp' && '$prog' j.db -c \"CREATE TABLE n (body FREE_TEXT, tags TEXT[]);
		   INSERT INTO n VALUES ('The cat sleeps.', '[\\\"cat\\\"]'), ('Dogs bark.', '[]')\" &&
		 '$prog' -v --json --offline j.db -c \"SELECT * FROM n WHERE answer(body, 'cat?') = 'Yes'\" \
		   >json.txt 2>err.txt && grep -q '^counters:' err.txt &&
		 [ \"\$(sqlite3 :memory: \"SELECT json_valid(readfile('json.txt'))\")\" = 1 ] &&
		 [ \"\$(sqlite3 :memory: \"SELECT json_type(readfile('json.txt'), '\\\$[0].tags')\")\" = array ]"
else
	echo "skip program: -v --json parses: the sqlite3 shell is not installed"
fi

# -readonly: reading works, writing is refused and the file is unchanged
t "-readonly opens the database read-only" sh -c \
	"cd '$tmp' && '$prog' ro.db -c 'CREATE TABLE k (a); INSERT INTO k VALUES (1)' &&
	 cp ro.db ro.before && [ \"\$('$prog' -readonly -csv -noheader ro.db 'SELECT a FROM k')\" = 1 ] &&
	 ! '$prog' -readonly ro.db 'INSERT INTO k VALUES (2)' 2>err.txt &&
	 grep -q 'readonly database' err.txt && cmp -s ro.db ro.before"

# the model's cache file is opened by the first statement that asks the model: plain SQL
# never creates it (a quick start), a free-text statement does
t "plain SQL does not open the cache file; a free-text statement does" sh -c \
	"cd '$tmp' && rm -rf lazyc && XDG_CACHE_HOME='$tmp/lazyc' '$prog' --offline -c 'SELECT 1;' >/dev/null &&
	 [ ! -e lazyc/suql/cache.db ] &&
	 XDG_CACHE_HOME='$tmp/lazyc' '$prog' --offline -c \"SELECT answer('The cat sleeps.', 'cat?');\" >/dev/null &&
	 [ -s lazyc/suql/cache.db ]"

# :once picks the format from an option (before or after FILE) or the file's extension; the
# mode is the once-file's only
mkdir -p "$tmp/once"
cat >"$tmp/once/once.suql" <<'SQL'
:once a.csv
SELECT 1 AS n, 'x|<y>' AS v;
:once a.json
SELECT 2 AS n;
:once a.md
SELECT 3 AS n, 'x|<y>' AS v;
:once a.html
SELECT 4 AS n, '<b>&' AS v;
:once --json a.out
SELECT 5 AS n;
:once b.out --csv
SELECT 6 AS n;
SELECT 7 AS n;
SQL
t ":once: the format from --csv/--json or the extension, for one statement" sh -c \
	"cd '$tmp/once' && '$prog' -f once.suql >stdout.txt &&
	 [ \"\$(cat a.csv)\" = \"\$(printf 'n,v\n1,x|<y>')\" ] &&
	 [ \"\$(cat a.json)\" = \"\$(printf '[\n{\"n\":2}\n]')\" ] &&
	 [ \"\$(head -n 2 a.md)\" = \"\$(printf '| n |      v       |\n|---|--------------|')\" ] &&
	 grep -Fqx '| 3 | x\\|&lt;y&gt; |' a.md &&
	 [ \"\$(cat a.html)\" = \"\$(printf '<table>\n<tr><th>n</th><th>v</th></tr>\n<tr><td>4</td><td>&lt;b&gt;&amp;</td></tr>\n</table>')\" ] &&
	 [ \"\$(cat a.out)\" = \"\$(printf '[\n{\"n\":5}\n]')\" ] &&
	 [ \"\$(cat b.out)\" = \"\$(printf 'n\n6')\" ] && grep -Fqx '| 7 |' stdout.txt"

# sqlite3 and psql habits in a script: .import --csv, \copy TO (CSV; the header only with
# HEADER) and FROM, \timing alone turning :timer over
printf 'n,v\nx,1\ny,2\n' >"$tmp/once/in.csv"
cat >"$tmp/once/habits.suql" <<'SQL'
.import --csv in.csv t
\copy t TO 'c1.csv' CSV HEADER
\copy (SELECT v FROM t ORDER BY v DESC) TO c2.csv WITH (FORMAT csv)
\copy t (n) TO c3.csv csv header
\copy t2 FROM in.csv CSV HEADER
\timing
SELECT count(*) AS c FROM t2;
SQL
t ".import --csv, \\copy TO and FROM, \\timing" sh -c \
	"cd '$tmp/once' && '$prog' --csv -f habits.suql >stdout.txt 2>&1 &&
	 [ \"\$(cat c1.csv)\" = \"\$(printf 'n,v\nx,1\ny,2')\" ] &&
	 [ \"\$(cat c2.csv)\" = \"\$(printf '2\n1')\" ] &&
	 [ \"\$(cat c3.csv)\" = \"\$(printf 'n\nx\ny')\" ] &&
	 grep -q '^2\$' stdout.txt && grep -Eq '^time: [0-9]+\.[0-9]{3} ms\$' stdout.txt"

# sqlite3's options: the modes it shares work, the others are refused by their whole name
t "-html, -markdown and -nullvalue work" sh -c \
	"[ \"\$('$prog' -html -c 'SELECT NULL AS a')\" = \"\$(printf '<table>\n<tr><th>a</th></tr>\n<tr><td>NULL</td></tr>\n</table>')\" ] &&
	 [ \"\$('$prog' -markdown -nullvalue - -c 'SELECT NULL AS a')\" = \"\$(printf '| a |\n|---|\n| - |')\" ]"
t "-separator, -newline, -ascii, -batch are refused by name (status 2, nothing runs)" sh -c \
	"for o in -separator -newline -ascii -batch --batch; do
	   '$prog' \$o -c 'SELECT 1' >'$tmp/o' 2>'$tmp/err'; [ \$? = 2 ] && [ ! -s '$tmp/o' ] &&
	   grep -q \"^error: option '\$o' is the sqlite3 shell's, not suql's: \" '$tmp/err' || exit 1
	 done"
t "--ascii with two dashes is suql's own (ASCII charts), -ascii sqlite3's (refused)" sh -c \
	"[ \"\$('$prog' --ascii -c 'SELECT 2 AS n' -c ':chart' | tail -n 1)\" = \"1   \$(printf '%74s' '' | tr ' ' '#') 2\" ] &&
	 '$prog' -ascii -c 'SELECT 1' 2>&1 | grep -q \"suql's own --ascii, with two dashes\""
t "--help names ./man/suql.1 when man cannot find the page" sh -c \
	"MANPATH='$tmp/none' '$prog' --help | grep -q 'man ./man/suql.1'"
