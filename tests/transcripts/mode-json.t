# JSON: one array of objects per statement; text escaped (quotes, backslashes, control
# characters, newlines), integers and reals as numbers, NULL and non-finite reals as null,
# blobs as "X'..'" strings, an empty result as [].
@@ args --json
@@ stdin
SELECT 1 AS i, -2.5 AS r, 'say "hi"\ now' AS t, NULL AS n, x'0001' AS b;
SELECT 'tab' || char(9) || 'nl' || char(10) || 'bell' || char(7) AS ctl, 1e308 * 10 AS inf, -1e308 * 10 AS ninf;
SELECT 'ünïcödé 日本' AS u, 9223372036854775807 AS big, 1e20 AS e;
SELECT 1 AS x WHERE 0;
CREATE TABLE nothing_to_show(a);
@@ stdout
[
{"i":1,"r":-2.5,"t":"say \"hi\"\\ now","n":null,"b":"X'0001'"}
]
[
{"ctl":"tab\tnl\nbell\u0007","inf":null,"ninf":null}
]
[
{"u":"ünïcödé 日本","big":9223372036854775807,"e":1.0e+20}
]
[]
@@ stderr
@@ status 0
