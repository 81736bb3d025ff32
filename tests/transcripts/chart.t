# :chart draws the last result (the last statement that had columns) as bars, here in ASCII
# (--ascii) at 80 columns (off a terminal, with no COLUMNS): the first text column labels
# the first numeric one, or the columns named (several: a group a row); a NULL value has no
# bar and a note says so; negative values left of a zero axis; a long label cut with ~;
# :chart hist; in the html mode an SVG image with its labels escaped. No result yet, a result
# with no numeric column, a column that is not there or not numeric: an error, and nothing
# drawn.
@@ args --ascii
@@ stdin
:chart
CREATE TABLE t (city TEXT, n INTEGER, delta REAL, note TEXT);
INSERT INTO t VALUES ('Oslo', 4, 1.5, 'x'), ('Lima', 2, -0.5, NULL), ('a city with a name far too long to fit in its column', NULL, 0, 'y'), ('Rome', 8, -2, '3');
:chart
SELECT city, note FROM t;
:chart
:chart city note
SELECT city, note FROM t WHERE note = '3';
:chart city note
SELECT city, n FROM t;
:chart
:chart city nosuch
:chart 1 4
SELECT city, n, delta FROM t;
:chart city n delta
:chart city 3
:chart hist n
:chart hist delta 2
:chart hist city
:chart hist n 0
SELECT 7 AS only;
:chart
:mode html
SELECT '<b>&"' || char(1) AS label, 3 AS v;
:chart
@@ stdout
+------------------------------------------------------+------+
| city                                                 | note |
+------------------------------------------------------+------+
| Oslo                                                 | x    |
| Lima                                                 | NULL |
| a city with a name far too long to fit in its column | y    |
| Rome                                                 | 3    |
+------------------------------------------------------+------+
(4 rows)
+------+------+
| city | note |
+------+------+
| Rome | 3    |
+------+------+
(1 row)
city note
Rome ######################################################################### 3
+------------------------------------------------------+------+
| city                                                 | n    |
+------------------------------------------------------+------+
| Oslo                                                 |    4 |
| Lima                                                 |    2 |
| a city with a name far too long to fit in its column | NULL |
| Rome                                                 |    8 |
+------------------------------------------------------+------+
(4 rows)
city                             n
Oslo                             ####################### 4
Lima                             ########### 2
Rome                             ############################################# 8
+------------------------------------------------------+------+-------+
| city                                                 | n    | delta |
+------------------------------------------------------+------+-------+
| Oslo                                                 |    4 |   1.5 |
| Lima                                                 |    2 |  -0.5 |
| a city with a name far too long to fit in its column | NULL |   0.0 |
| Rome                                                 |    8 |  -2.0 |
+------------------------------------------------------+------+-------+
(4 rows)
city
Oslo                             n                |############# 4
                                 delta            |##### 1.5
Lima                             n                |###### 2
                                 delta     -0.5 ##|
a city with a name far too long~ delta            | 0
Rome                             n                |######################### 8
                                 delta   -2 ######|
city                                                        delta
Oslo                                                       |################ 1.5
Lima                                             -0.5 #####|
a city with a name far too long~                           | 0
Rome                               -2 #####################|
n   count
2-3 ########################################################################## 1
4-5 ########################################################################## 1
6-7  0
8-9 ########################################################################## 1
delta   count
[-2, 0) ###################################################################### 2
[0, 2)  ###################################################################### 2
+------+
| only |
+------+
|    7 |
+------+
(1 row)
row only
1   ########################################################################## 7
<table>
<tr><th>label</th><th>v</th></tr>
<tr><td>&lt;b&gt;&amp;&quot;^A</td><td>3</td></tr>
</table>
<svg xmlns="http://www.w3.org/2000/svg" class="suql-chart" width="487" height="56" viewBox="0 0 487 56" role="img" font-family="sans-serif" font-size="12">
<title>v by label</title>
<text x="8.0" y="16" font-weight="bold">v by label</text>
<text x="8.0" y="40.0">&lt;b&gt;&amp;&quot;�</text>
<rect x="60.0" y="30.0" width="400.0" height="14" fill="#4e79a7"><title>3</title></rect>
<text x="464.0" y="40.0">3</text>
</svg>
@@ stderr
error: stdin:1: no result to chart yet: run a query first (:chart draws the last result that had columns)
error: stdin:4: no result to chart yet: run a query first (:chart draws the last result that had columns)
error: stdin:6: the last result has no numeric column to chart (a column of integers or reals; :chart LABEL VALUE names one that holds numbers as text)
error: stdin:7: column note is not numeric: row 1 holds 'x' (:chart LABEL VALUE names the columns)
note: 1 row left out: n is NULL
error: stdin:12: the last result has no column 'nosuch' (its columns: city, n; a number from 1 names one too)
error: stdin:13: the last result has no column '4' (its columns: city, n; a number from 1 names one too)
note: 1 NULL value left out (0 rows with none)
note: 1 NULL of n left out
error: stdin:19: column city is not numeric: row 1 holds 'Oslo'
error: stdin:20: :chart hist takes BINS from 1 to 100, not '0'
@@ status 1
