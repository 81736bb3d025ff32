# A parse reply that cannot be read is never remembered: the same message asked again after
# :reset (so the request is the same) goes to the model again (it is not served from the cache), and this time
# the model's readable answer is taken.
@@ rules
[
 {"match": "could not be used", "times": 1, "content": "I am not sure what you mean."},
 {"match": "Task: write one SUQL", "times": 1, "content": "{\"database\": false}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": false, \"reply\": \"Hello again.\"}"}
]
@@ stdin
hello
:reset
hello
@@ stdout
retry:
  the reply could not be read: the reply holds neither a query nor an answer (write {"database": true, "suql": "SELECT ..."}, or {"database": false, "reply": "..."} when the message needs no database); the model wrote: "{"database": false}"
  asking the model again
reply:
  Hello again.
@@ stderr
error: stdin:1: no query that runs came out of this turn, so there is no answer; the model's second reply could not be used either: the reply holds neither a query nor an answer (write {"database": true, "suql": "SELECT ..."}, or {"database": false, "reply": "..."} when the message needs no database); the model wrote: "I am not sure what you mean."
@@ status 1
@@ requests
parse repair
parse
