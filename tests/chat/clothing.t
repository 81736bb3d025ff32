# The agent on the clothing reviews (build/clothing.db from `make fixtures`; skipped when
# it is not built): open ENUM columns show their values, the free-text review column is
# marked, and a query over products runs.
@@ db clothing
@@ rules
[
 {"match": "Task: write one SUQL",
  "content": "{\"database\": true, \"suql\": \"SELECT clothing_id, num_reviews, avg_rating FROM products WHERE department = 'Dresses' AND num_reviews >= 100 ORDER BY avg_rating DESC LIMIT 3\"}"},
 {"match": "Task: answer the user",
  "content": "I searched for dresses with at least 100 reviews, best rated first."}
]
@@ stdin
which dresses with lots of reviews are rated best?
@@ stdout
parsed:
  SELECT clothing_id, num_reviews, avg_rating FROM products WHERE department = 'Dresses' AND num_reviews >= 100 ORDER BY avg_rating DESC LIMIT 3
result:
+-------------+-------------+------------+
| clothing_id | num_reviews | avg_rating |
+-------------+-------------+------------+
|        1083 |         249 |       4.36 |
|        1099 |         136 |       4.34 |
|        1080 |         289 |       4.29 |
+-------------+-------------+------------+
(3 rows)
reply:
  I searched for dresses with at least 100 reviews, best rated first.
@@ stderr
@@ status 0
@@ requests
parse respond
@@ request parse 1
+ CREATE TABLE products (
+ reviews FREE_TEXT[]
+ review_text FREE_TEXT,
+ department: one of
+ 'Dresses'
@@ request respond 1
+ ORDER BY avg_rating DESC LIMIT 3
+ It returned 3 rows:
+ {"clothing_id":
@@ unchanged
