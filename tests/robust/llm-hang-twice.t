# Issue 27, item 5: a model server that hangs held a statement five times the request
# timeout (306 s by default). A request with no reply within llm.timeout is asked once
# more, then fails: here 2 attempts of 1 s, and the server saw exactly 2 requests.
@@ db demo
@@ rules
[{"fault": "hang"}]
@@ env
XDG_CACHE_HOME=cache
@@ args --set llm.timeout=1s -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it hanging?') = 'Yes' LIMIT 1;" $DB
@@ status 3
@@ stderr has within 1 s (2 attempts): raise llm.timeout or check the server
@@ check
[ "$(grep -c chat/completions ../log)" = 2 ]
@@ unchanged
