# Issue 12, item 3: a question of 20,000 words took 20 s (and 1 MB was killed after two
# minutes): a question is at most 4000 bytes, refused at once with the reason.
@@ db demo
@@ gen
awk 'BEGIN { printf "SELECT name FROM restaurants WHERE answer(reviews, '"'"'";
             for (i = 0; i < 20000; i++) printf "word%d ", i; print "'"'"') = '"'"'Yes'"'"';" }' >q20k.sql
awk 'BEGIN { printf "SELECT answer(reviews, '"'"'"; for (i = 0; i < 100000; i++) printf "pasta good ";
             print "'"'"') FROM restaurants LIMIT 1;" }' >q1mb.sql
@@ args -f q20k.sql -f q1mb.sql $DB
@@ status 1
@@ stderr has q20k.sql:1:52: the question of answer() is 188890 bytes long; a question may be at most 4000 bytes
@@ stderr has q1mb.sql:1:24: the question of answer() is 1100000 bytes long
@@ stderr has hint: a question goes into every prompt of its calls: shorten it
@@ stderr bytes 3000
@@ unchanged
