# Issue 27, item 7: a statement whose retrieval index needs a refresh (here bm25(), which
# needs the index), while another process holds the write lock, failed at once with
# "retrieval index: database is locked" (it read first, then asked to write, and SQLite does
# not wait there); it now takes the write lock first and waits within busy_timeout, as the
# other paths do.
@@ db demo
@@ gen
"$SUQL" -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' LIMIT 2;" "$DB" >/dev/null
"$SUQL" -c "UPDATE restaurants SET reviews = reviews || ' Very quiet.' WHERE id = 3;" "$DB" >/dev/null
# the holder takes the write lock (a reader may still read) and keeps it a while
sqlite3 "$DB" "PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE; DELETE FROM restaurants WHERE id < 0; SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT x FROM c); ROLLBACK;" >/dev/null 2>&1 &
echo $! >holder.pid
n=0
while sqlite3 "$DB" "PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; do
	n=$((n + 1)); [ $n -lt 600 ] || { echo "the lock was not taken in 30 s"; exit 1; }; sleep 0.05
done
@@ args -s busy_timeout=50 -c "SELECT name, bm25(reviews, 'quiet') AS s FROM restaurants ORDER BY s DESC LIMIT 2;" $DB
@@ status 0
@@ stderr lacks locked
@@ stdout has (2 rows)
@@ check
kill "$(cat holder.pid)" 2>/dev/null; true
