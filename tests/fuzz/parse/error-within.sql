SELECT city, count(*), sum(price), avg(price) FROM visits WHERE answer(review, 'is it quiet?') = 'Yes' GROUP BY city ERROR WITHIN 10% AT CONFIDENCE 95% SEED 7;
SELECT count(*) FROM t WHERE answer(r, 'q') = 'Yes' ERROR WITHIN 0.5% AT CONFIDENCE 99.9%;
