# Issue 12, item 8: a disk that fills mid-session (here: a file-size limit) dropped the
# cache's writes silently while :cache said "on". The statements still return their rows;
# the session says once that it runs without the cache, and :cache shows it off. (The cache
# is made first; ulimit -f counts 512-byte blocks in sh.)
@@ db demo
@@ gen
XDG_CACHE_HOME=cache "$SUQL" -c "SELECT answer(reviews, 'is there parking?') FROM restaurants LIMIT 1;" "$DB" >/dev/null
ls -l cache/suql
@@ env
XDG_CACHE_HOME=cache
@@ pre
trap '' XFSZ
ulimit -f 100
@@ args -c "SELECT name, answer(reviews, 'what is the best dish?') AS dish FROM restaurants LIMIT 40;" -c "SELECT name, summary(reviews) AS s FROM restaurants LIMIT 60;" -c "SELECT count(*) AS n FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes';" -c ":cache" $DB
@@ status 0
@@ stderr count 1 warning: running without the LLM cache
@@ stderr has failed
@@ stdout has not usable: writing
@@ stdout has (60 rows)
@@ stdout has | n |
@@ unchanged
