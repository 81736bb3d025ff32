# The model switched off in the middle of a chat (:set llm.url off): the next question gets
# the configuration hint and the session is back in SUQL mode, so the line after it runs as
# a statement.
@@ rules
[
 {"match": "Task: write one SUQL", "content": "{\"database\": false, \"reply\": \"Hi!\"}"}
]
@@ stdin
hello
:set llm.url off
hello again
SELECT 'SUQL again' AS mode;
@@ stdout
reply:
  Hi!
+------------+
| mode       |
+------------+
| SUQL again |
+------------+
(1 row)
@@ stderr
error: stdin:3: chat mode needs a language model, and none is configured (the offline backend cannot turn questions into SUQL). Configure an OpenAI-compatible endpoint with SUQL_LLM_URL and SUQL_MODEL, or OpenAI with OPENAI_API_KEY (and SUQL_MODEL), or give --llm-url URL --model NAME; or :set llm.url and :set llm.model before :chat in the script
@@ status 1
@@ requests
parse
