# The agent on a schema that has nothing to do with restaurants: a small table of books
# made for this test. The prompts carry its DDL (FREE_TEXT, ENUM values, a list column and
# its values), the generated query runs, and its rows reach the respond step.
@@ db empty
@@ setup
CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, author TEXT, year INTEGER,
  genre ENUM('fiction', 'history', 'science', 'poetry'), tags TEXT[], blurb FREE_TEXT);
INSERT INTO books VALUES
  (1, 'The Salt Road', 'Ana Brill', 2009, 'history', ARRAY['trade', 'africa'],
   'How salt crossed the desert on camel caravans, and what it paid for.'),
  (2, 'Night Ferry', 'Tomas Lind', 2015, 'fiction', ARRAY['sea', 'crime'],
   'A ferry engineer finds a stowaway and a secret on the crossing to Gdansk.'),
  (3, 'Small Suns', 'R. Okafor', 2021, 'science', ARRAY['physics'],
   'An accessible tour of fusion research, from tokamaks to laser ignition.'),
  (4, 'Ledgers of Venice', 'Ana Brill', 1998, 'history', ARRAY['trade', 'italy'],
   'Merchant account books read as a history of the Venetian republic.');
@@ rules
[
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, title, author, year FROM books WHERE genre = 'history' AND year > 2000\"}"},
 {"match": "Task: write one SUQL", "times": 1,
  "content": "{\"database\": true, \"suql\": \"SELECT id, title, author FROM books WHERE 'trade' = ANY (tags) AND id NOT IN (1)\"}"},
 {"match": "Task: answer the user", "times": 1,
  "content": "I searched for history books published after 2000: The Salt Road by Ana Brill (2009)."},
 {"match": "Task: answer the user", "times": 1,
  "content": "I searched for other books tagged trade: Ledgers of Venice by Ana Brill."}
]
@@ stdin
any history books from after 2000?
anything else about trade?
@@ stdout
parsed:
  SELECT id, title, author, year FROM books WHERE genre = 'history' AND year > 2000 LIMIT 5
result:
+----+---------------+-----------+------+
| id | title         | author    | year |
+----+---------------+-----------+------+
|  1 | The Salt Road | Ana Brill | 2009 |
+----+---------------+-----------+------+
(1 row)
reply:
  I searched for history books published after 2000: The Salt Road by Ana Brill (2009).
parsed:
  SELECT id, title, author FROM books WHERE 'trade' = ANY (tags) AND id NOT IN (1) LIMIT 5
result:
+----+-------------------+-----------+
| id | title             | author    |
+----+-------------------+-----------+
|  4 | Ledgers of Venice | Ana Brill |
+----+-------------------+-----------+
(1 row)
reply:
  I searched for other books tagged trade: Ledgers of Venice by Ana Brill.
@@ stderr
@@ status 0
@@ requests
parse respond
parse respond
@@ request parse 1
- restaurants
+ CREATE TABLE books (
+ genre ENUM('fiction','history','science','poetry'),
+ tags TEXT[],
+ blurb FREE_TEXT
+ tags: one of 'trade', 'africa'
- restaurants (
@@ request respond 1
+ {"id":1,"title":"The Salt Road","author":"Ana Brill","year":2009}
@@ request parse 2
+ Result: 1 row: The Salt Road (id=1)
@@ request respond 2
+ {"id":4,"title":"Ledgers of Venice","author":"Ana Brill"}
@@ unchanged
