# Issue 12, item 6: readers while a large :import writes the database wait for it instead
# of failing at once.
@@ db empty
@@ gen
"$SUQL" -c "CREATE TABLE r (a INTEGER); INSERT INTO r VALUES (1);" "$DB"
awk 'BEGIN { print "id,txt"; for (i = 0; i < 600000; i++) printf "%d,some words for row %d\n", i, i }' >big.csv
( "$SUQL" -c ":import big.csv big" "$DB" >import.out 2>&1; echo $? >import.rc ) &
for i in 1 2 3 4 5 6; do
	"$SUQL" -c "SELECT count(*) FROM r;" "$DB" >/dev/null 2>reader.err.$i; echo $? >reader.rc.$i
	sleep 0.1
done
wait
@@ args -c "SELECT count(*) AS n FROM big;" $DB
@@ status 0
@@ stdout has | 600000 |
@@ check
[ "$(cat import.rc)" = 0 ]
[ "$(cat reader.rc.* | sort -u)" = 0 ]
