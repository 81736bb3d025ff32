# Queries over the demo restaurants (fixtures/demo, built afresh by tests/demo-db.sh), each
# run optimized and naive with the offline backend and --no-cache by
# tests/suites/50-engine-equiv.sh; the results must be
# equal: in order when the statement says ORDER BY, as multisets otherwise. A line starting
# with "any " is a LIMIT without ORDER BY: any qualifying rows will do, so the runner checks
# that each row is one the statement without its LIMIT returns, and that their number is
# right. One statement per line; lines starting with # are comments.

# structured only
SELECT id, name FROM restaurants WHERE location = 'Palo Alto' AND rating >= 4.0 ORDER BY id;
SELECT id FROM restaurants WHERE 'sushi' = ANY (cuisines) ORDER BY id;
SELECT count(*), avg(rating) FROM restaurants WHERE price IN ('cheap', 'moderate');
# free text only
SELECT id FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'No';
SELECT id FROM restaurants WHERE answer(popular_dishes, 'does this restaurant serve salmon?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is there a long wait?') <> 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is parking easy?') IN ('Yes', 'yes') ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is parking easy?') NOT IN ('Yes') ORDER BY id;
# mixed
SELECT id, name FROM restaurants WHERE 'italian' = ANY (cuisines) AND answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE location = 'San Francisco' AND answer(reviews, 'does it have a happy hour?') = 'Yes' AND rating > 3.5 ORDER BY rating DESC, id;
SELECT id FROM restaurants WHERE 'chinese' = ANY (cuisines) AND answer(reviews, 'does this restaurant have short wait time?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' AND answer(popular_dishes, 'does this restaurant serve burgers?') = 'Yes' ORDER BY id;
SELECT name FROM restaurants WHERE NOT (name = 'Burger Barn') AND answer(popular_dishes, 'does this restaurant serve salmon?') = 'Yes' AND location = 'Palo Alto' ORDER BY name;
# OR / NOT
SELECT id FROM restaurants WHERE location = 'Cupertino' AND (answer(reviews, 'is it good for kids?') = 'Yes' OR answer(reviews, 'is there parking?') = 'Yes') ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is it vegan friendly?') = 'Yes' OR price = 'luxury' ORDER BY id;
SELECT id FROM restaurants WHERE NOT (answer(reviews, 'is there a long wait?') = 'Yes') AND price = 'cheap' ORDER BY id;
SELECT id FROM restaurants WHERE NOT (answer(reviews, 'is it romantic?') = 'Yes' OR rating < 4) ORDER BY id;
SELECT id FROM restaurants WHERE (location = 'Sunnyvale' OR location = 'San Jose') AND (answer(reviews, 'is there outdoor seating?') = 'Yes' OR 'thai' = ANY (cuisines)) ORDER BY id;
# IN
SELECT id FROM restaurants WHERE location IN ('Menlo Park', 'Redwood City') AND answer(reviews, 'is the service good?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE id IN (SELECT id FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes') AND location = 'San Jose' ORDER BY id;
# ENUM classification
SELECT id FROM restaurants WHERE 'coffee' = ANY (cuisines) ORDER BY id;
SELECT id FROM restaurants WHERE price = 'pricey' ORDER BY id;
SELECT id FROM restaurants WHERE price IN ('cheap', 'inexpensive') AND location = 'Palo Alto' ORDER BY id;
SELECT id FROM restaurants WHERE cuisines @> ARRAY['burger'] ORDER BY id;
SELECT id FROM restaurants WHERE 'pizzas' = ANY (cuisines) AND answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY id;
# ORDER BY with a unique tie-breaker, LIMIT and OFFSET
SELECT id, name FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY rating DESC, id LIMIT 3;
SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' ORDER BY num_reviews DESC, id LIMIT 2 OFFSET 2;
SELECT id FROM restaurants WHERE location = 'Palo Alto' AND answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id LIMIT 1;
SELECT name FROM restaurants WHERE 'sushi' = ANY (cuisines) AND location = 'Palo Alto' AND rating >= 4.0 AND answer(reviews, 'is this restaurant good for a first date?') = 'Yes' ORDER BY num_reviews DESC, id LIMIT 1;
SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' OR answer(reviews, 'is there parking?') = 'Yes' ORDER BY id LIMIT 4;
SELECT id FROM restaurants WHERE answer(reviews, 'is there a long wait?') = 'Yes' ORDER BY id LIMIT 0;
any SELECT id FROM restaurants WHERE 'italian' = ANY (cuisines) AND answer(reviews, 'is this restaurant romantic?') = 'Yes' LIMIT 1;
any SELECT id FROM restaurants WHERE answer(reviews, 'does it have a happy hour?') = 'Yes' LIMIT 3;
any SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' OR answer(reviews, 'is this restaurant romantic?') = 'Yes' LIMIT 5 OFFSET 1;
any SELECT id FROM restaurants WHERE location = 'Mountain View' AND answer(reviews, 'is it quiet?') = 'Yes' LIMIT 2;
# DISTINCT, GROUP BY, HAVING, aggregates over answers
SELECT DISTINCT location FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY location;
SELECT location, count(*) FROM restaurants WHERE answer(reviews, 'does it have a happy hour?') = 'Yes' GROUP BY location ORDER BY location;
SELECT answer(reviews, 'is it good for kids?') AS kids, count(*) FROM restaurants WHERE location = 'Palo Alto' GROUP BY kids ORDER BY kids;
SELECT location FROM restaurants GROUP BY location HAVING sum(answer(reviews, 'is this restaurant romantic?') = 'Yes') >= 3 ORDER BY location;
SELECT max(answer(reviews, 'how many minutes is the wait?')::int) FROM restaurants WHERE 'chinese' = ANY (cuisines);
SELECT count(DISTINCT answer(reviews, 'is there parking?')) FROM restaurants WHERE location = 'San Jose';
# subqueries and CTEs
WITH rom AS (SELECT id, name FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes') SELECT name FROM rom WHERE id < 40 ORDER BY id;
WITH kid(n, loc, k) AS (SELECT name, location, id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes') SELECT n FROM kid WHERE loc = 'Cupertino' AND k > 3 ORDER BY k;
WITH q(location, name) AS (SELECT name, location FROM restaurants WHERE answer(reviews, 'is parking easy?') = 'Yes') SELECT location FROM q WHERE name IN ('Palo Alto', 'San Jose') ORDER BY 1;
SELECT name FROM (SELECT * FROM restaurants WHERE location = 'Sunnyvale') AS s WHERE answer(s.reviews, 'is it good for kids?') = 'Yes' ORDER BY name;
SELECT name, (SELECT count(*) FROM restaurants AS r2 WHERE r2.location = r.location AND answer(r2.reviews, 'is this restaurant romantic?') = 'Yes') AS romantic_nearby FROM restaurants AS r WHERE id <= 5 ORDER BY id;
SELECT id FROM restaurants AS r WHERE EXISTS (SELECT 1 FROM restaurant_labels AS l WHERE l.id = r.id AND l.kids = 1) AND answer(r.reviews, 'is it good for kids?') = 'Yes' ORDER BY id;
# joins
SELECT r.id, l.romantic FROM restaurants AS r JOIN restaurant_labels AS l ON l.id = r.id WHERE l.outdoor = 1 AND answer(r.reviews, 'is there outdoor seating?') = 'Yes' ORDER BY r.id;
SELECT a.id, b.id FROM restaurants AS a, restaurants AS b WHERE a.location = 'Redwood City' AND b.location = 'Redwood City' AND a.id < b.id AND answer(a.reviews, 'is it good for kids?') = answer(b.reviews, 'is it good for kids?') ORDER BY a.id, b.id;
# unnest
SELECT r.id, one_review FROM restaurants AS r, unnest(reviews) AS one_review WHERE r.location = 'Menlo Park' AND answer(one_review, 'does this review mention parking?') = 'Yes' ORDER BY r.id, one_review;
SELECT r.id, d FROM restaurants AS r, unnest(popular_dishes) AS t(d) WHERE r.id <= 10 AND answer(d, 'is this a pasta dish?') = 'Yes' ORDER BY r.id, d;
any SELECT single_review FROM restaurants AS r, unnest(reviews) AS single_review WHERE name ILIKE 'Hoshi Sushi' AND answer(single_review, 'does this review mention good food quality?') = 'Yes' AND r.location = 'Palo Alto' LIMIT 1;
# expressions as the text
SELECT id FROM restaurants WHERE answer(name || ': ' || address, 'is it on a street named after a tree?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE location = 'Redwood City' AND answer(lower(json_extract(reviews, '$[0]')), 'is the food good?') = 'Yes' ORDER BY id;
# typed answers
SELECT id, answer(reviews, 'how many minutes did they wait?')::int AS wait FROM restaurants WHERE 'chinese' = ANY (cuisines) ORDER BY id;
SELECT id FROM restaurants WHERE CAST(answer(reviews, 'how many minutes is the wait?') AS INTEGER) >= 30 ORDER BY id;
SELECT id, answer(reviews, 'is it good for kids?')::bool FROM restaurants WHERE location = 'Redwood City' ORDER BY id;
# answers and summaries in the SELECT list
SELECT id, summary(reviews) FROM restaurants WHERE location = 'Menlo Park' ORDER BY id;
SELECT *, summary(reviews), answer(reviews, 'what is the wait time?') FROM restaurants WHERE 'chinese' = ANY (cuisines) AND answer(reviews, 'does this restaurant have short wait time?') = 'Yes' ORDER BY id LIMIT 1;
SELECT name, summary(reviews) FROM restaurants WHERE rating >= 4.5 AND location = 'Palo Alto' ORDER BY num_reviews DESC, id LIMIT 1;
SELECT address, summary(reviews) FROM restaurants WHERE name ILIKE '%Burger Barn%' ORDER BY id LIMIT 1;
SELECT upper(substr(summary(reviews), 1, 20)) AS s, name FROM restaurants WHERE location = 'Redwood City' ORDER BY id LIMIT 3;
SELECT DISTINCT answer(reviews, 'is it good for kids?') FROM restaurants WHERE location = 'Cupertino' ORDER BY 1;
SELECT id FROM restaurants ORDER BY answer(reviews, 'is this restaurant romantic?'), id LIMIT 5;
SELECT id, answer(reviews, 'how noisy is it?') AS noise FROM restaurants WHERE location = 'Palo Alto' ORDER BY noise DESC, id LIMIT 10;
SELECT id, answer(reviews, 'how noisy is it?') FROM restaurants WHERE location = 'Cupertino' ORDER BY 2, id LIMIT 4;
