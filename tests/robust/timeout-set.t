# Issue 12, item 4: :set timeout SECONDS, for statements with free text too (a five-way
# cross join with a free-text filter asked row by row), and 0 takes the limit off again.
@@ db demo
@@ stdin
:set budget 0
:set timeout 0.5
SELECT count(*) FROM restaurants a, restaurants b, restaurants c, restaurants d, restaurants e WHERE answer(a.reviews, 'is it good?') = 'Yes' AND b.id > 0;
:set timeout
:set timeout 0
SELECT count(*) AS n FROM restaurants;
:set timeout -1
@@ status 1
@@ stderr has error: stdin:3: stopped at the time limit of 0.5 s
@@ stdout has timeout = 0.5
@@ stdout has | 112 |
@@ stderr has timeout takes a number of seconds from 0 (no limit) to 1000000, not '-1'
@@ unchanged
