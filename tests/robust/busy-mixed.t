# Issue 27, item 7: 8 readers (free-text questions and ENUM comparisons), 2 writers and 2
# ":enum forget" loops on one database: statements failed with "retrieval index: database
# is locked" where the other paths wait. Every statement of every process succeeds. (The
# deterministic case of the failure is busy-index-refresh.t; loops are bounded.)
@@ db demo
@@ gen
"$SUQL" -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' LIMIT 2;" "$DB" >/dev/null
for r in 1 2 3 4 5 6 7 8; do
	( i=0; while [ $i -lt 4 ]; do "$SUQL" -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it calm $r $i?') = 'Yes' LIMIT 2;" -c "SELECT count(*) FROM restaurants WHERE price = 'pricey $r $i';" -c "SELECT name, bm25(reviews, 'quiet $r') AS s FROM restaurants ORDER BY s DESC LIMIT 1;" "$DB" >/dev/null 2>>err.r$r || echo "reader $r failed" >>fail; i=$((i + 1)); done ) &
done
for w in 1 2; do
	( i=0; while [ $i -lt 8 ]; do "$SUQL" -c "INSERT INTO restaurants (name, reviews, price) VALUES ('new $w $i', 'a quiet place $i', 'cheap'); UPDATE restaurants SET reviews = reviews || ' More.' WHERE id % 7 = $w;" "$DB" >/dev/null 2>>err.w$w || echo "writer $w failed" >>fail; i=$((i + 1)); done ) &
done
for f in 1 2; do
	( i=0; while [ $i -lt 8 ]; do "$SUQL" -c ":enum forget" "$DB" >/dev/null 2>>err.f$f || echo "forget $f failed" >>fail; i=$((i + 1)); done ) &
done
wait
@@ args -c "SELECT count(*) AS n FROM restaurants;" $DB
@@ status 0
@@ stdout has | 128 |
@@ check
[ ! -e fail ]
! grep -q locked err.*
