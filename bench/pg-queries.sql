# The demo queries of bench/pg.sh: each runs on the SQLite demo and on the same rows in
# PostgreSQL (structured; free text ANDed in WHERE, the three steps; the rest through the
# SQLite planner, values bound back as arrays; an ENUM literal).
SELECT id, name FROM restaurants WHERE location = 'Palo Alto' AND rating >= 4.0 ORDER BY id;
SELECT count(*), avg(rating) FROM restaurants WHERE price IN ('cheap', 'moderate');
SELECT id FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id;
SELECT id, name FROM restaurants WHERE 'italian' = ANY (cuisines) AND answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY id;
SELECT id FROM restaurants WHERE answer(reviews, 'is it good for kids?') = 'Yes' AND answer(popular_dishes, 'does this restaurant serve burgers?') = 'Yes' ORDER BY id;
SELECT id, name FROM restaurants WHERE answer(reviews, 'is this restaurant romantic?') = 'Yes' ORDER BY rating DESC, id LIMIT 3;
SELECT name FROM restaurants WHERE 'sushi' = ANY (cuisines) AND location = 'Palo Alto' AND rating >= 4.0 AND answer(reviews, 'is this restaurant good for a first date?') = 'Yes' ORDER BY num_reviews DESC, id LIMIT 1;
SELECT location, count(*) FROM restaurants WHERE answer(reviews, 'does it have a happy hour?') = 'Yes' GROUP BY location ORDER BY location;
SELECT id FROM restaurants WHERE answer(reviews, 'is it vegan friendly?') = 'Yes' OR price = 'luxury' ORDER BY id;
SELECT id FROM restaurants WHERE CAST(answer(reviews, 'how many minutes is the wait?') AS INTEGER) >= 30 ORDER BY id;
SELECT answer(reviews, 'is it good for kids?') AS kids, count(*) FROM restaurants WHERE location = 'Palo Alto' GROUP BY kids ORDER BY kids;
SELECT id FROM restaurants WHERE price = 'pricey' ORDER BY id;
