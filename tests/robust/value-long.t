# Issue 12, item 3: ranking a long value's passages against a long question is linear (the
# question's terms were counted in every passage one by one, and deduplicated in O(n^2)):
# a 1.4 MB review and a 600-word question finish at once.
@@ db empty
@@ gen
awk 'BEGIN { srand(1); split("good food pasta service slow quiet parking loud cheap music", w, " ");
             printf "CREATE TABLE big (id INTEGER PRIMARY KEY, txt FREE_TEXT);\nINSERT INTO big (txt) VALUES ('"'"'";
             for (i = 0; i < 200000; i++) { printf "%s", w[int(rand() * 10) + 1]; printf (i % 15 ? " " : ". ") }
             print "'"'"');" }' >setup.sql
"$SUQL" -f setup.sql "$DB"
awk 'BEGIN { printf "SELECT id FROM big WHERE answer(txt, '"'"'is the ";
             for (i = 0; i < 600; i++) printf "w%d ", i; print "food good?'"'"') = '"'"'Yes'"'"';" }' >q.sql
@@ args -f q.sql $DB
@@ status 0
@@ stdout has | id |
@@ unchanged
