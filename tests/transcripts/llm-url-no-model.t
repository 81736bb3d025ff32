# An endpoint given on the command line without a model is a usage error at once (status
# 2), with what to add, rather than a failure at the first call.
@@ args --llm-url http://127.0.0.1:9/v1 -c "SELECT 1"
@@ stdout
@@ stderr
error: --llm-url needs a model too: add --model NAME (or set SUQL_MODEL, or model = NAME in the config file)
@@ status 2
