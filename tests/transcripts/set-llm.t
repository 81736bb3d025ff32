# :set lists the LLM client's settings with the others and shows one by name; the key is
# only ever shown masked; a bad value is refused with what would be accepted.
@@ stdin
:set llm.url http://127.0.0.1:9/v1
:set llm.model tiny
:set llm.key sk-do-not-show-9876
:set concurrency 3
:set llm.url
:set llm.key
:set concurrency
:set concurrency many
:set llm.url localhost
@@ stdout
llm.url = http://127.0.0.1:9/v1
llm.key = sk-…9876
concurrency = 3
@@ stderr
error: stdin:8: concurrency is a whole number from 1 to 256, not 'many'
error: stdin:9: llm.url must be a URL such as http://localhost:11434/v1, not 'localhost'
@@ status 1
