# Without a model, :chat says how to configure one and stays in SUQL mode: the statement
# after it runs as SUQL. (In a script the failed :chat counts as a failed command.)
@@ args $DB
@@ stdin
:chat
SELECT count(*) FROM restaurants;
@@ stdout
+----------+
| count(*) |
+----------+
|      112 |
+----------+
(1 row)
@@ stderr
error: stdin:1: chat mode needs a language model, and none is configured (the offline backend cannot turn questions into SUQL). Configure an OpenAI-compatible endpoint with SUQL_LLM_URL and SUQL_MODEL, or OpenAI with OPENAI_API_KEY (and SUQL_MODEL), or give --llm-url URL --model NAME; or :set llm.url and :set llm.model before :chat in the script
@@ status 1
