# A chat turn's counters show what its model calls cost next to their tokens, at the
# model's price (here llm.price_in 1 and llm.price_out 4 dollars a million tokens), and
# :cost counts the turn in the session's spend. The checks do the arithmetic from the
# tokens printed: the turn's dollars are its tokens at the price, and :cost's total is the
# same sum, since the turn's query asked the model nothing.
@@ rules
[
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT name FROM restaurants WHERE id = 1\"}"},
 {"match": "Task: answer the user", "times": 1,
  "content": "The first restaurant is Hoshi Sushi."}
]
@@ args --chat -v --set llm.price_in=1 --set llm.price_out=4 $DB
@@ stdin
what is the first restaurant?
:cost
@@ stdout
parsed:
  SELECT name FROM restaurants WHERE id = 1 LIMIT 5
result:
+-------------+
| name        |
+-------------+
| Hoshi Sushi |
+-------------+
(1 row)
reply:
  The first restaurant is Hoshi Sushi.
this session's spend (each reply priced as it was counted):
  test-model: 2 requests, 2496 tokens in, 28 out: $0.00261 (now $1 in, $1 cached in, $4 out a million tokens: llm.price_in and llm.price_out)
total: 2 requests, 2496 tokens in, 28 out: $0.00261
@@ stderr
chat:
  model calls: parse, respond (2 answered, 0 from the cache)
  tokens: 2496 in, 28 out: $0.00261
@@ status 0
@@ requests
parse respond
@@ check
awk '/^  tokens: [0-9]+ in, [0-9]+ out: \$/ { n++; want = sprintf("$%.5f", ($2 * 1 + $4 * 4) / 1e6); if ($NF != want) { print "got " $NF ", want " want; bad = 1 } } END { exit bad || n != 1 }' ../err
awk '/^  tokens: / { turn = $NF } END { print turn }' ../err >turn.usd && awk '/^total: / { print $NF }' ../out >cost.usd && cmp turn.usd cost.usd
grep -q '^  test-model: 2 requests, ' ../out
