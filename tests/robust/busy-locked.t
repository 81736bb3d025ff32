# Issue 12, item 6: a database another process holds: suql waits busy_timeout seconds (a
# setting; 5 by default), then fails with a hint that names it, status 1.
@@ db demo
@@ gen
# the holder waits for its lock (the probing reader below may hold a shared one at that
# instant; without a timeout BEGIN EXCLUSIVE would fail and nothing would hold the database)
sqlite3 "$DB" "PRAGMA busy_timeout = 5000; BEGIN EXCLUSIVE; DELETE FROM restaurants WHERE id < 0; SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000) SELECT x FROM c); ROLLBACK;" >/dev/null 2>&1 &
echo $! >holder.pid
n=0
while sqlite3 "$DB" "PRAGMA busy_timeout = 0; SELECT count(*) FROM restaurants;" >/dev/null 2>&1; do
	n=$((n + 1)); [ $n -lt 600 ] || { echo "the lock was not taken in 30 s"; exit 1; }; sleep 0.05
done
@@ args -s busy_timeout=0.2 -c "SELECT count(*) FROM restaurants;" $DB
@@ status 1
@@ stderr has error: -c:1: database is locked
@@ stderr has hint: another process is writing the database; :set busy_timeout SECONDS waits longer for it
@@ check
kill "$(cat holder.pid)" 2>/dev/null; true
