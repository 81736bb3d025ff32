# Without a model, --chat in batch mode prints how to configure one and exits with status 2
# without reading the script.
@@ args --chat $DB
@@ stdin
hello
@@ stdout
@@ stderr
error: chat mode needs a language model, and none is configured (the offline backend cannot turn questions into SUQL). Configure an OpenAI-compatible endpoint with SUQL_LLM_URL and SUQL_MODEL, or OpenAI with OPENAI_API_KEY (and SUQL_MODEL), or give --llm-url URL --model NAME; or :set llm.url and :set llm.model before :chat in the script
@@ status 2
