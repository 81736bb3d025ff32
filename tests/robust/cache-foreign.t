# Issue 12, item 8: a cache file holding another program's llm_cache table disabled caching
# silently. The session runs without the cache, says so once, and :cache says why.
@@ db demo
@@ gen
mkdir -p cache/suql
sqlite3 cache/suql/cache.db "CREATE TABLE llm_cache (k, v);"
@@ env
XDG_CACHE_HOME=cache
@@ args -c "SELECT count(*) AS n FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes';" -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it loud?') = 'Yes' LIMIT 1;" -c ":cache" $DB
@@ status 0
@@ stderr count 1 warning: running without the LLM cache
@@ stderr has it holds an llm_cache table that is not suql's
@@ stdout has not usable: the LLM cache
@@ stdout has | n |
@@ unchanged
