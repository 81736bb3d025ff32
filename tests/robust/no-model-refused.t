# Issue 27, item 5: with an endpoint but no model configured, a free-text statement printed
# its whole plan and a block of zero counters before "no model configured". It is refused
# before it is planned: the error says how to set a model, no plan, no counters, no request.
@@ db demo
@@ env
SUQL_LLM_URL=http://127.0.0.1:9/v1
SUQL_MODEL=
@@ args -v -c "SELECT name FROM restaurants WHERE answer(reviews, 'is it romantic?') = 'Yes' LIMIT 1;" -c "SELECT count(*) AS n FROM restaurants;" $DB
@@ status 3
@@ stderr has error: -c:1: no model configured: set SUQL_MODEL, --model NAME or :set llm.model NAME
@@ stderr lacks plan:
@@ stderr lacks counters:
@@ stderr lacks requests
@@ stdout has | 112 |
@@ unchanged
