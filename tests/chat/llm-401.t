# A key the endpoint refuses: the client's message says what to set; the key is not shown.
@@ rules
[]
@@ server --key sk-right-key-0000
@@ env
SUQL_LLM_KEY=sk-wrong-key-1234
@@ stdin
hello
@@ stdout
@@ stderr
error: stdin:1: the endpoint rejected the API key (HTTP 401 from $URL): set SUQL_LLM_KEY or OPENAI_API_KEY, or :set llm.key
@@ status 3
@@ requests
parse
