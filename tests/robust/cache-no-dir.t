# Issue 12, item 8: a cache that cannot be made (its directory is a file; a full disk at
# start was the same) made every statement fail with status 2 and advice to delete the
# cache. The session runs without it and says so once.
@@ db demo
@@ gen
: >blocker
@@ env
XDG_CACHE_HOME=blocker
@@ args -c "SELECT count(*) AS n FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes';" -c ":cache" $DB
@@ status 0
@@ stderr count 1 warning: running without the LLM cache
@@ stdout has cache        off
@@ stdout has | n |
@@ unchanged
