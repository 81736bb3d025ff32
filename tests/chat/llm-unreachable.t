# A model endpoint that does not answer: each turn fails with the client's message (exit
# status 3), and the session stays in chat mode (the second line is a question, not SUQL).
@@ env
SUQL_LLM_URL=http://127.0.0.1:9/v1
SUQL_MODEL=test-model
@@ args --chat --set llm.retries=0 $DB
@@ stdin
hello
any sushi?
@@ stdout
@@ stderr
error: stdin:1: cannot connect to $URL (connection refused, 1 attempts): is the server running? check llm.url
error: stdin:2: cannot connect to $URL (connection refused, 1 attempts): is the server running? check llm.url
@@ status 3
