# A turn that yields neither a query nor an answer quotes what the model wrote: the
# retry note and the error show the reply, cut at 300 characters (with how many more
# there were), every control character made visible (^[, ^G, ^J), so that a reply that
# holds a terminal's control sequences (a title, a clear screen) shows them and never
# sends them. The error says that the second reply could not be used either.
@@ rules
[
 {"match": "could not be used", "times": 1,
  "content": "I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today."},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "\u001b]0;owned\u0007\u001b[2JSure!\nHere it is: the restaurants."}
]
@@ stdin
which restaurants are quiet?
@@ stdout
retry:
  the reply could not be read: the reply holds neither a query nor an answer (write {"database": true, "suql": "SELECT ..."}, or {"database": false, "reply": "..."} when the message needs no database); the model wrote: "^[]0;owned^G^[[2JSure!^JHere it is: the restaurants."
  asking the model again
@@ stderr
error: stdin:1: no query that runs came out of this turn, so there is no answer; the model's second reply could not be used either: the reply holds neither a query nor an answer (write {"database": true, "suql": "SELECT ..."}, or {"database": false, "reply": "..."} when the message needs no database); the model wrote: "I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rather not write SQL today. I would rath" (cut: 131 characters more)
@@ status 1
@@ requests
parse repair
@@ check
test -s ../out && test -s ../err && ! grep -q "$(printf '\033')" ../out ../err
grep -q '(cut: [0-9]* characters more)' ../err
