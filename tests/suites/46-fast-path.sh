#!/bin/sh
# The fast path of plain SQL (src/engine/engine_plain.c) against the full path
# (--set fast_path=off): the same output, byte for byte (results, errors with their carets,
# exit status) on the sqllogictest scripts bench/table.sh times, on every input of the
# golden cases and on a script of edge cases; and which path each statement took, counted
# from SUQL_TRACE_SQL's "suql plain:" lines (the fast path prints one per statement it runs).
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/fast-path
mkdir -p "$tmp"

# both NAME STDIN [ARGS...]: run the program on STDIN both ways; ok when stdout, stderr and
# the exit status agree. Leaves the fast run's trace count in $plain.
both() {
	name=$1 in=$2
	shift 2
	SUQL_TRACE_SQL=1 "$prog" "$@" <"$in" >"$tmp/fast.out" 2>"$tmp/fast.trace"
	echo "status $?" >>"$tmp/fast.out"
	"$prog" --set fast_path=off "$@" <"$in" >"$tmp/full.out" 2>"$tmp/full.err"
	echo "status $?" >>"$tmp/full.out"
	grep -v '^suql plain: ' "$tmp/fast.trace" | grep -v '^suql sql: ' >"$tmp/fast.err"
	# the clock may tick between the two runs (CURRENT_TIMESTAMP, datetime()): times and
	# dates are compared by their shape
	for f in fast.out full.out; do
		sed -e 's/[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/HH:MM:SS/g' \
		    -e 's/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/YYYY-MM-DD/g' "$tmp/$f" >"$tmp/$f.t"
		mv "$tmp/$f.t" "$tmp/$f"
	done
	plain=$(grep -c '^suql plain: ' "$tmp/fast.trace")
	if cmp -s "$tmp/fast.out" "$tmp/full.out" && cmp -s "$tmp/fast.err" "$tmp/full.err"; then
		echo "ok fast-path: $name"
	else
		echo "not ok fast-path: $name"
		diff "$tmp/full.out" "$tmp/fast.out" | head -n 10 | sed 's/^/# /'
		diff "$tmp/full.err" "$tmp/fast.err" | head -n 10 | sed 's/^/# /'
	fi
}

# ---- edge cases, with the count of statements the fast path must take ----
cat >"$tmp/edge.sql" <<'SQL'
CREATE TABLE p (a INTEGER, b TEXT, n FREE_TEXT);
INSERT INTO p (a, b) VALUES (1, 'x;y');
INSERT INTO p (a, b) VALUES (2, 'it''s'); SELECT count(*) AS n FROM p;
BEGIN;
UPDATE p SET b = 'z' -- a comment; with a ';'
  WHERE a = 2;
COMMIT;
/* a block comment; */ SELECT a, b AS "b;" FROM p ORDER BY a;
SELECT a::TEXT FROM p;
SELECT * FROM nowhere;
SELECT a FROM p WHERE b ILIKE 'X%';
SELECT "a", [b] FROM p;
SELECT a FROM p WHERE a = ?;
SELECT 1 +;
SELECT count(*) FROM suql_catalog;
SELECT count(*) FROM "SUQL_catalog";
INSERT INTO p (a, b) VALUES (3, 'three')
SQL
both "edge cases: results, errors and carets" "$tmp/edge.sql" --csv
# (a FREE_TEXT column leaves the fast path on and makes suql_catalog a table)
# INSERT, INSERT, SELECT count, BEGIN, UPDATE, COMMIT, SELECT a, b; the rest needs suql
# (::, ILIKE, [b], a parameter, suql's own tables) or fails to prepare (nowhere, 1 +) and
# is run again by the full path to say where; the last INSERT has no ';' and runs at the
# end of input
if [ "$plain" = 8 ] && grep -q '^ *\^' "$tmp/fast.err"; then
	echo "ok fast-path: 8 of 17 statements took the fast path, errors kept their carets"
else
	echo "not ok fast-path: 8 of 17 statements took the fast path, errors kept their carets"
	echo "# fast path took $plain"
	sed 's/^/# /' "$tmp/fast.trace" | head -n 30
fi

# SQLite forms the parser knows (or refuses the same way SQLite does)
cat >"$tmp/forms.sql" <<'SQL'
CREATE TABLE t (a INTEGER PRIMARY KEY, b);
INSERT INTO t VALUES (1, 'x') RETURNING a, b;
INSERT INTO t VALUES (1, 'y') ON CONFLICT(a) DO UPDATE SET b = excluded.b RETURNING *;
SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t;
SELECT a FROM t WHERE a IS NOT DISTINCT FROM 1;
SELECT json_extract('{"a":1}', '$.a'), '{"a":1}' ->> 'a';
SELECT a FROM t INDEXED BY nothing;
UPDATE t SET b = u.x FROM (SELECT 1 AS id, 'z' AS x) AS u WHERE t.a = u.id;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c;
SELECT 1 FROM t WHERE b GLOB 'z*' AND b REGEXP 'z';
SELECT printf('%d;%s', 1, 'a'), 0x1F, 1e3, .5, X'41', NULL ISNULL, 1 NOTNULL;
SELECT 1 & 3, 2 | 1, ~0, 1 << 2, 'a' || 'b', -(-1), 5 % 3 FROM t;
VALUES (1, 'é'), (2, 'ü');
DELETE FROM t RETURNING *;
SQL
both "SQLite forms: the same rows and errors" "$tmp/forms.sql" --csv

# an ENUM or list column anywhere: '=' may classify, JSON reads lists: nothing is fast
cat >"$tmp/enum.sql" <<'SQL'
CREATE TABLE p (a INTEGER, b TEXT);
INSERT INTO p VALUES (1, 'x');
CREATE TABLE e (c ENUM('red', 'blue'), tags TEXT[]);
INSERT INTO e VALUES ('red', '["a","b"]');
SELECT c, tags FROM e WHERE c = 'red';
SELECT a FROM p;
DROP TABLE e;
SELECT a FROM p;
SQL
both "ENUM and list columns: same results" "$tmp/enum.sql" --json
if [ "$plain" = 2 ]; then
	echo "ok fast-path: with an ENUM or list column in the catalog, no statement is fast"
else
	echo "not ok fast-path: with an ENUM or list column in the catalog, no statement is fast"
	echo "# fast path took $plain (want 2: the INSERT before, the SELECT after)"
	sed 's/^/# /' "$tmp/fast.trace" | head -n 30
fi

# a view that calls suql's functions: a plain SELECT of it is not fast (SQLite alone cannot
# run suql_summary), and gives the full path's rows
cat >"$tmp/view.sql" <<'SQL'
CREATE TABLE t (id INTEGER PRIMARY KEY, reviews FREE_TEXT);
INSERT INTO t VALUES (1, 'Lovely romantic place. Great pasta.');
CREATE VIEW v AS SELECT id, summary(reviews) AS s FROM t;
SELECT * FROM v;
SQL
both "a view calling summary(): the same rows both ways" "$tmp/view.sql" --offline --csv
if ! grep -q '^suql plain: SELECT \* FROM v' "$tmp/fast.trace" && grep -q '^1,' "$tmp/fast.out"; then
	echo "ok fast-path: a view calling suql's functions takes the full path"
else
	echo "not ok fast-path: a view calling suql's functions takes the full path"
	sed 's/^/# /' "$tmp/fast.out" "$tmp/fast.err" | head
fi

# explain on wants every statement's parsed text: the full path runs them all
printf ':set explain on\nSELECT 1 AS one;\n' >"$tmp/explain.sql"
both ":set explain on shows parsed SUQL for plain statements" "$tmp/explain.sql"
if [ "$plain" = 0 ]; then
	echo "ok fast-path: explain on: no statement is fast"
else
	echo "not ok fast-path: explain on: no statement is fast"
fi

# ---- the golden cases' inputs, each run alone over a few tables ----
cat >"$tmp/setup.sql" <<'SQL'
CREATE TABLE t (a, b, c, reviews TEXT, name TEXT, rating REAL, x, y);
CREATE TABLE u (b, d);
INSERT INTO t VALUES (1, 2, 3, 'good food', 'Ann''s', 4.5, 1, 2);
INSERT INTO u VALUES (2, 'd');
SQL
n=0 bad=0
for g in tests/golden/*.txt; do
	awk -v dir="$tmp" '
		/^>>> / { if (f) close(f); n++; f = dir "/case" n ".in"; print substr($0, 5) > f; next }
		/^\.\.\. / && f { print substr($0, 5) > f; next }
		{ if (f) close(f); f = "" }' "$g"
	for c in "$tmp"/case*.in; do
		[ -f "$c" ] || continue
		n=$((n + 1))
		cat "$tmp/setup.sql" "$c" >"$tmp/case.sql"
		both "golden $g case" "$tmp/case.sql" --csv >"$tmp/case.result"
		if ! grep -q '^ok' "$tmp/case.result"; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && { echo "# $(cat "$c")"; sed 's/^/#/' "$tmp/case.result"; }
		fi
		rm -f "$c"
	done
done
if [ $bad = 0 ] && [ $n -gt 100 ]; then
	echo "ok fast-path: the $n golden inputs give the same output both ways"
else
	echo "not ok fast-path: the golden inputs give the same output both ways ($bad of $n differ)"
fi
both "golden sqlite_forms.sql" tests/golden/sqlite_forms.sql --csv

# ---- on a database file: another connection's change is seen, and no extra locks ----
# A plain statement asks SQLite nothing about the catalog before it runs: the data version
# the statement's own lock reads tells whether anyone committed since the last statement
# (a read is then run again by the full path before a row is shown; a write's commit is
# turned into a rollback by the commit hook, and the full path runs it). Each case: a
# session reads its statements from a pipe, runs one plain SELECT (fast), another process
# changes the file, and the statements after it must take the full path, with the rows and
# the file's contents the full path gives (the same session with fast_path off).
# between NAME CHANGE-COMMAND...: the statements after the change are in $tmp/after.sql;
# $tmp/before.sql, when not empty, is run after the first SELECT and before the change
# (ending with :headers, whose line says it ran). No statement run after the change may be
# fast.
between() {
	name=$1
	shift
	for how in on off; do
		rm -f "$tmp/f.db" "$tmp/fifo" "$tmp/seq.$how"   # (waited for below)
		printf 'CREATE TABLE p (a INTEGER, b TEXT, n FREE_TEXT);\nINSERT INTO p (a) VALUES (1);\n' |
			"$prog" "$tmp/f.db" >/dev/null
		mkfifo "$tmp/fifo"
		SUQL_TRACE_SQL=1 "$prog" --csv --set fast_path=$how "$tmp/f.db" <"$tmp/fifo" \
			>"$tmp/seq.$how" 2>"$tmp/seq.$how.trace" &
		pid=$!
		exec 3>"$tmp/fifo"
		echo "SELECT count(*) AS n FROM p;" >&3
		shown '^1$'
		if [ -s "$tmp/before.sql" ]; then
			cat "$tmp/before.sql" >&3
			shown '^headers = '
		fi
		fast=$(grep -c '^suql plain: ' "$tmp/seq.$how.trace")
		"$@" >/dev/null 2>&1
		cat "$tmp/after.sql" >&3
		exec 3>&-
		wait $pid
		"$prog" --csv "$tmp/f.db" -c "SELECT a FROM p ORDER BY a;" >>"$tmp/seq.$how" 2>&1
		[ $how = on ] && fast_on=$fast
	done
	if [ "$(grep -c '^suql plain: ' "$tmp/seq.on.trace")" = "$fast_on" ] &&
	   grep -q '^suql plain: SELECT count' "$tmp/seq.on.trace" &&
	   cmp -s "$tmp/seq.on" "$tmp/seq.off"; then
		echo "ok fast-path: seen between two statements: $name"
	else
		echo "not ok fast-path: seen between two statements: $name"
		diff "$tmp/seq.off" "$tmp/seq.on" | sed 's/^/# /' | head -n 10
		sed 's/^/# /' "$tmp/seq.on.trace" | head -n 20
	fi
}
shown() {   # shown PATTERN: wait until the session's output has a line matching it
	i=0
	while ! grep -q "$1" "$tmp/seq.$how" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
: >"$tmp/before.sql"
printf 'SELECT a FROM p;\n' >"$tmp/after.sql"
between "a read after a table with an ENUM column is created" \
	"$prog" "$tmp/f.db" -c "CREATE TABLE e (c ENUM('red', 'blue'));"
printf 'INSERT INTO p (a) VALUES (2);\nSELECT count(*) AS n FROM p;\n' >"$tmp/after.sql"
between "a write after an ENUM column is added to its table" \
	"$prog" "$tmp/f.db" -c "ALTER TABLE p ADD COLUMN c ENUM('red', 'blue');"
if command -v sqlite3 >/dev/null 2>&1; then
	# the catalog's rows alone change (no schema change: only the data version moves)
	enum="INSERT INTO suql_catalog VALUES ('p', 'b', 'ENUM(''red'',''blue'')', '[\"red\",\"blue\"]')"
	printf 'SELECT a, b FROM p;\n' >"$tmp/after.sql"
	between "a read after another connection makes a column an ENUM in the catalog" \
		sqlite3 "$tmp/f.db" "$enum"
	printf 'INSERT INTO p (a, b) VALUES (2, NULL);\nSELECT count(*) AS n FROM p;\n' >"$tmp/after.sql"
	between "a write after another connection makes a column an ENUM in the catalog" \
		sqlite3 "$tmp/f.db" "$enum"
	# a trigger on the written table that writes suql's catalog: the write is not run by
	# SQLite alone (which would run the trigger)
	printf 'INSERT INTO p (a) VALUES (2);\nSELECT count(*) AS n FROM p;\n' >"$tmp/after.sql"
	between "a write after another connection adds a trigger writing suql_catalog" \
		sqlite3 "$tmp/f.db" "CREATE TRIGGER tr AFTER INSERT ON p BEGIN DELETE FROM suql_catalog WHERE 0; END"
	# a view calling suql's functions, read right after it is made
	printf 'SELECT * FROM v;\n' >"$tmp/after.sql"
	between "a read of a view calling suql's functions made by another connection" \
		sqlite3 "$tmp/f.db" "CREATE VIEW v AS SELECT a, suql_summary(n) AS s FROM p"
	# inside a transaction begun before the change (a deferred BEGIN takes no lock): its
	# first statement checks the catalog
	printf 'BEGIN;\n:headers\n' >"$tmp/before.sql"
	printf 'SELECT a, b FROM p;\nINSERT INTO p (a, b) VALUES (2, NULL);\nCOMMIT;\n' >"$tmp/after.sql"
	between "a transaction begun before another connection makes a column an ENUM" \
		sqlite3 "$tmp/f.db" "$enum"
	: >"$tmp/before.sql"
else
	echo "skip fast-path: a catalog changed by the sqlite3 shell: sqlite3 not installed"
fi

# Locks per read-only statement on a file: as many as the sqlite3 shell takes (one read
# transaction each; suql used to open a second one to read the schema cookie). Counted
# with strace over 200 SELECTs less those of one, so that what opening the file takes
# (suql reads its own tables then) is left out.
if command -v strace >/dev/null 2>&1 && command -v sqlite3 >/dev/null 2>&1 &&
   strace -o /dev/null true 2>/dev/null; then
	rm -f "$tmp/f.db"
	printf 'CREATE TABLE p (a INTEGER);\nINSERT INTO p VALUES (1);\n' | "$prog" "$tmp/f.db" >/dev/null
	awk 'BEGIN { for (i = 0; i < 200; i++) printf "SELECT count(*) FROM p WHERE a > %d;\n", i }' >"$tmp/reads.sql"
	head -n 1 "$tmp/reads.sql" >"$tmp/read1.sql"
	locks() { f=$1; shift; strace -f -e trace=fcntl -o "$tmp/strace" "$@" "$tmp/f.db" <"$f" >/dev/null 2>&1
		grep -c 'F_SETLK' "$tmp/strace"; }
	# the locks the 199 more statements take (what opening the file takes is left out)
	a=$(( $(locks "$tmp/reads.sql" "$prog" --csv) - $(locks "$tmp/read1.sql" "$prog" --csv) ))
	b=$(( $(locks "$tmp/reads.sql" sqlite3 -csv) - $(locks "$tmp/read1.sql" sqlite3 -csv) ))
	if [ "$a" -le "$b" ] && [ "$a" -ge 199 ]; then
		echo "ok fast-path: 199 more SELECTs on a file take the locks sqlite3 takes ($a against $b)"
	else
		echo "not ok fast-path: 199 more SELECTs on a file take the locks sqlite3 takes ($a against $b)"
	fi
	# and a write: its own transaction, begun before the catalog check (which then takes no
	# lock of its own), as many locks as the shell's autocommit INSERT
	awk 'BEGIN { for (i = 0; i < 200; i++) printf "INSERT INTO p VALUES (%d);\n", i }' >"$tmp/writes.sql"
	head -n 1 "$tmp/writes.sql" >"$tmp/write1.sql"
	a=$(( $(locks "$tmp/writes.sql" "$prog" --csv) - $(locks "$tmp/write1.sql" "$prog" --csv) ))
	b=$(( $(locks "$tmp/writes.sql" sqlite3 -csv) - $(locks "$tmp/write1.sql" sqlite3 -csv) ))
	if [ "$a" -le "$b" ] && [ "$a" -ge 199 ]; then
		echo "ok fast-path: 199 more INSERTs on a file take the locks sqlite3 takes ($a against $b)"
	else
		echo "not ok fast-path: 199 more INSERTs on a file take the locks sqlite3 takes ($a against $b)"
	fi
	check_rows=$(sqlite3 "$tmp/f.db" "SELECT count(*) FROM p")
	if [ "$check_rows" = $((1 + 2 * (200 + 1))) ]; then
		echo "ok fast-path: every INSERT of those runs is in the file ($check_rows rows)"
	else
		echo "not ok fast-path: every INSERT of those runs is in the file ($check_rows rows)"
	fi
else
	echo "skip fast-path: locks per statement: strace not usable here"
fi

# ---- the sqllogictest scripts bench/table.sh times ----
d="$SUQL_SHARED/data/sqllogictest/test"
if [ ! -d "$d" ]; then
	echo "skip fast-path: sqllogictest scripts: $d not found"
	exit 0
fi
n=0 bad=0 fast=0
for f in $(find "$d" -name '*.test' | sort); do
	n=$((n + 1))
	"$SUQL_BUILD/slt" --script "$f" >"$tmp/slt.sql"
	both "$f" "$tmp/slt.sql" --csv >"$tmp/slt.result"
	fast=$((fast + plain))
	if ! grep -q '^ok' "$tmp/slt.result"; then
		bad=$((bad + 1))
		sed 's/^/#/' "$tmp/slt.result" | head -n 12
	fi
done
if [ $bad = 0 ] && [ $fast -gt 1000 ]; then
	echo "ok fast-path: $n sqllogictest scripts give the same output both ways ($fast statements fast)"
else
	echo "not ok fast-path: sqllogictest scripts give the same output both ways ($bad of $n differ; $fast fast)"
fi
