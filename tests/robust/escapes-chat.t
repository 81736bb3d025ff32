# Issue 12, item 5: a chat reply holding ESC ]0;title BEL and ESC [2J retitled the terminal
# and cleared it. Text from the model reaches the terminal with its control characters
# shown (^[ ^G); C1 controls (U+009B) become U+FFFD. No raw ESC, BEL or CSI is written.
# (The parse reply is JSON, so the rules write its escapes as \\u001b.)
@@ db demo
@@ rules
[
 {"match": "Task: write one SUQL", "content": "{\"database\": false, \"reply\": \"Hi \\u001b]0;pwned\\u0007 there \\u001b[2J\\u009b31m done\"}"}
]
@@ args --chat $DB
@@ stdin
hello
@@ status 0
@@ stdout has Hi ^[]0;pwned^G there ^[[2J\357\277\27531m done
@@ stdout lacks \033
@@ stdout lacks \007
@@ stdout lacks \302\233
@@ stderr lacks \033
@@ unchanged
