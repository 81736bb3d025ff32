# Issue 12, item 6: 16 suql processes writing one database at once: 2 failed with
# "database is locked" before; with the busy timeout every one waits its turn.
@@ db empty
@@ gen
"$SUQL" -c "CREATE TABLE t (a INTEGER, b TEXT);" "$DB"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	( "$SUQL" -c "INSERT INTO t VALUES ($i, 'x'); INSERT INTO t SELECT a + 100, b FROM t WHERE a = $i;" "$DB" >/dev/null 2>err.$i; echo $? >rc.$i ) &
done
wait
@@ args -c "SELECT count(*) AS n FROM t;" $DB
@@ status 0
@@ stdout has | 32 |
@@ check
[ "$(cat rc.* | sort -u)" = 0 ]
[ ! -s err.1 ] && [ -z "$(cat err.*)" ]
