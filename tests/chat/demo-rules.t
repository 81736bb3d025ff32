# The shipped rules file of make demo-chat (fixtures/chat/demo-rules.json) answers the
# README's chat questions, says in its replies that it is a scripted stand-in, and answers
# any other question by saying what it is.
@@ rules-file fixtures/chat/demo-rules.json
@@ server --yes-word candlelit
@@ stdin
hello
any romantic Italian places in Palo Alto?
what are their prices?
who are you?
@@ stdout
reply:
  Hello! I can look up the restaurants for you: by cuisine, city, price, rating, and what the reviews say. (This is build/llmserver, a scripted stand-in, not a language model.)
parsed:
  SELECT id, name, rating FROM restaurants WHERE 'italian' = ANY (cuisines) AND location = 'Palo Alto' AND answer(reviews, 'is it romantic?') = 'Yes' LIMIT 5
result:
+----+-----------------+--------+
| id | name            | rating |
+----+-----------------+--------+
|  6 | Trattoria Lucca |    4.5 |
+----+-----------------+--------+
(1 row)
reply:
  I searched for Italian restaurants in Palo Alto whose reviews call them romantic, and found one: Trattoria Lucca (4.5). (A scripted reply: this stand-in does not read the rows.)
parsed:
  SELECT id, name, price FROM restaurants WHERE id IN (6) LIMIT 5
result:
+----+-----------------+-----------+
| id | name            | price     |
+----+-----------------+-----------+
|  6 | Trattoria Lucca | expensive |
+----+-----------------+-----------+
(1 row)
reply:
  Trattoria Lucca is expensive. (A scripted reply: this stand-in does not read the rows.)
reply:
  This is build/llmserver, a scripted stand-in, not a language model: it answers only the README's example questions (hello; any romantic Italian places in Palo Alto?; what are their prices?). Configure a model (--llm-url and --model) to ask anything else.
@@ stderr
@@ status 0
@@ requests
parse
parse respond
parse respond
parse
