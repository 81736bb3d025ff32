# Issue 27, item 4: a server that echoes the request's headers in its error made suql print
# the Basic-auth value of the URL's credentials and the start of the API key (where the
# message was cut short). Text from the server is scrubbed of the key (and of a start of
# it), of the URL's user:password, of its Base64 and of any Authorization value, before
# the message is cut and shown.
@@ db demo
@@ rules
[{"status": 400, "json": {"error": {"message": "you sent Authorization: Basic dXNlcjpQQVNTOTg3Ng== (user:PASS9876) and x-api-key: sk-test-secret-0123456789abcdef; proxy said Authorization=Bearer other-token-55aa; xxxxxxxxxxxxxxxxxxxx sk-test-secret-0123456789abcdef"}}}]
@@ env
SUQL_LLM_KEY=sk-test-secret-0123456789abcdef
XDG_CACHE_HOME=cache
@@ pre
SUQL_LLM_URL="http://user:PASS9876@${SUQL_LLM_URL#http://}"
@@ args -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it quiet?') = 'Yes' LIMIT 1;" -c ":llm" $DB
@@ status 3
@@ stderr has HTTP 400
@@ stderr has Authorization: Basic ***
@@ stderr has Authorization=Bearer ***
@@ stderr lacks PASS9876
@@ stderr lacks dXNlcjpQQVNTOTg3Ng
@@ stderr lacks sk-test-sec
@@ stderr lacks other-token
@@ stdout lacks PASS9876
@@ stdout lacks sk-test-secret-0
@@ unchanged
