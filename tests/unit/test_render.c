/* Unit tests for render.c and render_table.c: display width, CSV quoting, JSON validity of odd
   values (parsed back with jansson), table alignment and cutting to a width, streaming
   giving the same bytes as buffering, the sqlite3 shell's modes, padded markdown and
   expanded display; render_flow.c's text broken at blanks (SQL outside its quotes, a
   message and its excerpt); render_chart.c's bars (ASCII and UTF-8, negative values, NULLs,
   wide labels, groups, colour, a width of 40), its SVG and its histogram bins. */
#include "base/util.h"
#include "render/render_int.h"
#include "store/store.h"
#include "unit.h"

#include <jansson.h>
#include <stdlib.h>

/* Render every row of sql in mode; returns the heap output. */
static char *run(const char *sql, RenderOpts o)
{
	sqlite3 *db;
	sqlite3_open(":memory:", &db);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	Render *r = render_new(&o, f);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		Row row;
		store_row_sqlite(&row, st);
		render_columns(r, &row);
		while (sqlite3_step(st) == SQLITE_ROW)
			render_row(r, &row);
		sqlite3_finalize(st);
	} else {
		printf("# prepare failed: %s\n", sqlite3_errmsg(db));
	}
	render_finish(r);
	render_free(r);
	fclose(f);
	sqlite3_close(db);
	return buf;
}

static char *csv(const char *s)
{
	SBuf b = SBUF_INIT;
	render_csv_field(&b, s, strlen(s));
	return sb_steal(&b);
}

/* Every line of text has display width w (0: report the widest). */
static size_t line_widths(const char *text, size_t w, int *same)
{
	size_t max = 0;
	*same = 1;
	for (const char *a = text; *a;) {
		const char *e = strchr(a, '\n');
		if (!e)
			e = a + strlen(a);
		size_t lw = render_width(a, (size_t)(e - a));
		if (lw > max)
			max = lw;
		if (w && lw != w && strncmp(a, "(", 1) != 0)
			*same = 0;
		a = *e ? e + 1 : e;
	}
	return max;
}

static void test_width(void)
{
	CHECK(render_width("abc", 3) == 3, "width: ASCII");
	CHECK(render_width("Zo\xC3\xAB", 4) == 3, "width: precomposed accent");
	CHECK(render_width("e\xCC\x81", 3) == 1, "width: combining accent takes none");
	CHECK(render_width("\xE6\x97\xA5\xE6\x9C\xAC", 6) == 4, "width: CJK takes two each");
	CHECK(render_width("\xF0\x9F\x98\x80", 4) == 2, "width: emoji takes two");
	CHECK(render_width("\x01", 1) == 2, "width: control character as ^A");
	CHECK(render_width("\xFF", 1) == 1, "width: invalid byte as one replacement");
	CHECK(render_width("\xE6\x97", 2) == 2, "width: truncated sequence, each byte replaced");

	SBuf b = SBUF_INIT;
	/* 日本語テキスト: 7 wide characters, 14 columns */
	const char *jp = "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x83\x86\xE3\x82\xAD\xE3\x82"
	                 "\xB9\xE3\x83\x88";
	size_t w = render_put_line(&b, jp, strlen(jp), 7, 1);
	CHECK_STR(b.s, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE2\x80\xA6", "cut: wide text to 7");
	CHECK(w == 7, "cut: reports 7 columns");
	sb_truncate(&b, 0);
	w = render_put_line(&b, jp, strlen(jp), 6, 1);
	CHECK(w == 5 && render_width(b.s, b.len) == 5, "cut: a wide character never overflows");
	sb_truncate(&b, 0);
	w = render_put_line(&b, "short", 5, 5, 1);
	CHECK_STR(b.s, "short", "cut: text that fits is left whole");
	sb_truncate(&b, 0);
	render_put_line(&b, "a\tb\x7f" "c\xC2\x85", 7, 0, 0);
	CHECK_STR(b.s, "a b^?c\xEF\xBF\xBD", "sanitize: tab, DEL, C1 control");
	sb_free(&b);
}

static void test_csv(void)
{
	char *s;
	s = csv("plain");
	CHECK_STR(s, "plain", "csv: plain field unquoted");
	free(s);
	s = csv("");
	CHECK_STR(s, "\"\"", "csv: empty string quoted");
	free(s);
	s = csv("a,b");
	CHECK_STR(s, "\"a,b\"", "csv: comma quoted");
	free(s);
	s = csv("say \"x\"");
	CHECK_STR(s, "\"say \"\"x\"\"\"", "csv: quotes doubled");
	free(s);
	s = csv("l1\nl2");
	CHECK_STR(s, "\"l1\nl2\"", "csv: LF quoted");
	free(s);
	s = csv("cr\r");
	CHECK_STR(s, "\"cr\r\"", "csv: CR quoted");
	free(s);
	s = csv(" sp ");
	CHECK_STR(s, " sp ", "csv: blanks kept as they are");
	free(s);

	RenderOpts o = {.mode = RENDER_CSV, .headers = 1};
	s = run("SELECT 1 AS \"a,b\", NULL AS n, '' AS e, x'0aff' AS b, 2.5 AS r", o);
	CHECK_STR(s, "\"a,b\",n,e,b,r\n1,,\"\",X'0AFF',2.5\n", "csv: a whole result");
	free(s);
}

static void test_json(void)
{
	/* every control character, quotes, backslash, invalid UTF-8, U+2028 */
	char raw[64];
	size_t n = 0;
	for (int c = 1; c < 0x20; c++)
		raw[n++] = (char)c;
	memcpy(raw + n, "\"\\\xFF" "A\xE2\x80\xA8", 7);
	n += 7;
	SBuf b = SBUF_INIT;
	sb_putc(&b, '[');
	render_json_string(&b, raw, n);
	sb_putc(&b, ']');
	json_error_t je;
	json_t *j = json_loads(b.s, 0, &je);
	CHECK(j != NULL, "json: odd string parses");
	const char *back = j ? json_string_value(json_array_get(j, 0)) : NULL;
	CHECK(back && memcmp(back, raw, 0x1F + 2) == 0, "json: controls and quotes survive");
	CHECK(back && strcmp(back + 0x1F + 2, "\xEF\xBF\xBD" "A\xE2\x80\xA8") == 0,
	      "json: invalid byte becomes U+FFFD");
	json_decref(j);
	sb_free(&b);

	RenderOpts o = {.mode = RENDER_JSON};
	char *s = run("SELECT 9223372036854775807 AS i, -0.5 AS r, 1e308*10 AS inf, "
	              "-1e308*10 AS ninf, NULL AS n, x'00ff' AS b, CAST(x'ff41' AS TEXT) AS bad, "
	              "'q\"\\' AS t, 1e300 AS e UNION ALL SELECT 1, 2, 3, 4, 5, 6, 7, 8, 9", o);
	j = json_loads(s, 0, &je);
	CHECK(j && json_is_array(j) && json_array_size(j) == 2, "json: array of two objects");
	json_t *o0 = j ? json_array_get(j, 0) : NULL;
	CHECK(o0 && json_integer_value(json_object_get(o0, "i")) == 9223372036854775807LL,
	      "json: big integer exact");
	CHECK(o0 && json_is_real(json_object_get(o0, "r")) &&
	      json_real_value(json_object_get(o0, "r")) == -0.5, "json: real");
	CHECK(o0 && json_is_null(json_object_get(o0, "inf")) &&
	      json_is_null(json_object_get(o0, "ninf")), "json: non-finite reals are null");
	CHECK(o0 && json_is_null(json_object_get(o0, "n")), "json: NULL is null");
	CHECK(o0 && json_string_value(json_object_get(o0, "b")) &&
	      strcmp(json_string_value(json_object_get(o0, "b")), "X'00FF'") == 0,
	      "json: blob as X'..' string");
	CHECK(o0 && json_string_value(json_object_get(o0, "bad")) &&
	      strcmp(json_string_value(json_object_get(o0, "bad")), "\xEF\xBF\xBD" "A") == 0,
	      "json: invalid UTF-8 text still valid JSON");
	CHECK(o0 && json_string_value(json_object_get(o0, "t")) &&
	      strcmp(json_string_value(json_object_get(o0, "t")), "q\"\\") == 0,
	      "json: quote and backslash");
	CHECK(o0 && json_real_value(json_object_get(o0, "e")) == 1e300, "json: exponent real");
	json_decref(j);
	free(s);

	s = run("SELECT 1 AS x WHERE 0", o);
	CHECK_STR(s, "[]\n", "json: no rows is []");
	free(s);
}

static void test_table(void)
{
	RenderOpts o = {.mode = RENDER_TABLE, .headers = 1};
	const char *q = "SELECT 1 AS id, 'Zo\xC3\xAB \xE6\x97\xA5\xE6\x9C\xAC' AS name "
	                "UNION ALL SELECT 200, 'two' || char(10) || 'lines'";
	char *s = run(q, o);
	int same;
	size_t w = line_widths(s, 0, &same);
	line_widths(s, w, &same);
	CHECK(same, "table: every line as wide as the others (wide characters aligned)");
	CHECK(strstr(s, "|   1 |") != NULL, "table: numbers right-aligned");
	CHECK(strstr(s, "|     | lines    |") != NULL, "table: second line of a value");
	CHECK(strstr(s, "(2 rows)\n") != NULL, "table: row count");
	free(s);

	o.unicode = 1;
	o.width = 30;
	s = run("SELECT 'a fairly long piece of free text that will not fit' AS review, "
	        "12345 AS n, '\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE6\x97\xA5\xE6\x9C\xAC"
	        "\xE8\xAA\x9E' AS jp", o);
	w = line_widths(s, 0, &same);
	CHECK(w <= 30, "table: fits the width");
	CHECK(strstr(s, "\xE2\x80\xA6") != NULL, "table: cut cells end in an ellipsis");
	CHECK(strstr(s, "12345") != NULL, "table: short column kept whole");
	CHECK(strstr(s, "\xE2\x94\x8C") != NULL, "table: Unicode lines");
	free(s);

	o.headers = 0;
	o.width = 0;
	o.nullvalue = "-";
	s = run("SELECT NULL AS a", o);
	CHECK(strstr(s, "a") == NULL && strstr(s, " - ") != NULL, "table: no headers, nullvalue");
	free(s);
}

static void test_stream(void)
{
	const char *q = "SELECT 1 AS a, 'x,y' AS b UNION ALL SELECT NULL, 'two' || char(10) || 'l'";
	for (RenderMode m = RENDER_CSV; m <= RENDER_LINE; m++) {
		RenderOpts o = {.mode = m, .headers = 1};
		char *buffered = run(q, o);
		o.stream = 1;
		char *streamed = run(q, o);
		char name[64];
		snprintf(name, sizeof name, "stream: %s same as buffered", render_mode_name(m));
		CHECK_STR(streamed, buffered, name);
		free(buffered);
		free(streamed);
	}
	for (RenderMode sm = RENDER_LIST; sm <= RENDER_QUOTE; sm++) {   /* the sqlite3 shell's */
		RenderOpts o = {.mode = sm, .headers = 1};
		char *buffered = run(q, o);
		o.stream = 1;
		char *streamed = run(q, o);
		char name[64];
		snprintf(name, sizeof name, "stream: %s same as buffered", render_mode_name(sm));
		CHECK_STR(streamed, buffered, name);
		free(buffered);
		free(streamed);
	}
	RenderOpts lo = {.mode = RENDER_LINE, .headers = 1, .stream = 1};
	char *line = run("SELECT 1 AS a, 'x' || char(10) || 'y' AS long_name UNION ALL "
	                 "SELECT 2, NULL", lo);
	CHECK_STR(line, "        a = 1\nlong_name = x\n            y\n\n        a = 2\n"
	          "long_name = NULL\n", "line: names aligned on the widest, every row");
	free(line);
	RenderMode m;
	CHECK(render_mode_parse("JSON", &m) && m == RENDER_JSON, "mode names: case-insensitive");
	CHECK(!render_mode_parse("xml", &m), "mode names: unknown refused");
}

/* The sqlite3 shell's modes (the suite 43-shell-modes compares them with sqlite3 itself;
   these hold without it), padded markdown and expanded display. */
static void test_shell_modes(void)
{
	const char *q = "SELECT 1 AS a, 'x' AS bb UNION ALL SELECT NULL, 'two' || char(10) || 'l'";
	RenderOpts o = {.mode = RENDER_COLUMN, .headers = 1};
	char *s = run(q, o);
	CHECK_STR(s, "a  bb \n-  ---\n1  x  \n\n   two\n   l  \n",
	          "column: padded, NULL as nothing, a blank line between rows of several lines");
	free(s);
	o.headers = 0;
	o.nullvalue = "-";
	s = run("SELECT NULL AS long_name, 'a' || char(9) || 'b' AS t", o);
	CHECK_STR(s, "-          a       b\n", "column: names count with headers off; a tab to 8");
	free(s);
	s = run("SELECT 1 AS a WHERE 0", o);
	CHECK_STR(s, "", "column: no rows, nothing");
	free(s);

	RenderOpts l = {.mode = RENDER_LIST, .headers = 1};
	s = run(q, l);
	CHECK_STR(s, "a|bb\n1|x\n|two\nl\n", "list: '|' between values, NULL as nothing");
	free(s);
	l.mode = RENDER_QUOTE;
	s = run("SELECT 'it''s' AS a, NULL AS b, X'00ff' AS c, 0.5 AS d, 3.0 AS e, 7 AS f", l);
	CHECK_STR(s, "'a','b','c','d','e','f'\n'it''s',NULL,X'00ff',0.5,3.0,7\n",
	          "quote: SQL literals, names as strings");
	free(s);
	l.mode = RENDER_INSERT;
	l.table = "my t";
	s = run("SELECT 'a' || char(10) || 'b' AS \"select\", 1e999 AS x", l);
	CHECK_STR(s, "INSERT INTO \"my t\"(\"select\",x) VALUES(replace('a\\nb','\\n',char(10)),"
	          "1e999);\n", "insert: names quoted where needed, a line break by replace()");
	free(s);

	RenderOpts m = {.mode = RENDER_MARKDOWN, .headers = 1};
	s = run("SELECT 1 AS a, 'long value' AS b", m);
	CHECK_STR(s, "| a |     b      |\n|---|------------|\n| 1 | long value |\n",
	          "markdown: padded, the names centred");
	free(s);

	RenderOpts x = {.mode = RENDER_TABLE, .headers = 1, .expanded = RENDER_EXPANDED_ON};
	s = run("SELECT 1 AS a, 'x' AS bb", x);
	CHECK_STR(s, " a = 1\nbb = x\n", "expanded on: a value a line");
	free(s);
	x.expanded = RENDER_EXPANDED_AUTO;
	x.width = 12;
	s = run("SELECT 1 AS a, 'a longer value' AS bb", x);
	CHECK_STR(s, " a = 1\nbb = a longer value\n", "expanded auto: wider than the terminal");
	free(s);
	x.width = 80;
	s = run("SELECT 1 AS a, 'x' AS bb", x);
	CHECK(strstr(s, "(1 row)") != NULL, "expanded auto: a table that fits stays a table");
	free(s);
}

static void test_wrap(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("head ", f);
	render_wrap(f, "one two  three four", 5, 2, 14);
	render_wrap(f, "averyveryverylongword x", 0, 0, 10);
	fclose(f);
	CHECK_STR(buf, "head one two\n  three four\naveryveryverylongword\nx\n",
	          "wrap: breaks before the width, continues at the indent");
	free(buf);

	/* SQL: broken outside its quotes where it can, inside a run too long for a line */
	f = open_memstream(&buf, &len);
	render_section_sql(f, "parsed", "SELECT a FROM t WHERE answer(r, 'is it romantic?') = 'Yes'",
	                   0, 40);
	render_section_sql(f, "parsed", "SELECT 'a very long quoted string that cannot fit on one "
	                   "line' AS x", 0, 40);
	render_section_wrap(f, "plan", "cost: at m's price, the model's words stay whole here", 0,
	                    30);
	fclose(f);
	CHECK_STR(buf, "parsed:\n  SELECT a FROM t WHERE answer(r,\n"
	          "      'is it romantic?') = 'Yes'\n"
	          "parsed:\n  SELECT 'a very long quoted string that\n"
	          "      cannot fit on one line' AS x\n"
	          "plan:\n  cost: at m's price, the\n      model's words stay whole\n"
	          "      here\n",
	          "wrap: SQL outside its quotes; prose at any blank");
	free(buf);

	f = open_memstream(&buf, &len);
	render_labelled_line(f, "counters", "2 LLM calls, 1520 tokens in, 40 out, $0.00040, 10.6 s",
	                     0, 40);
	fclose(f);
	CHECK_STR(buf, "counters: 2 LLM calls, 1520 tokens in,\n  40 out, $0.00040, 10.6 s\n",
	          "wrap: a one-line section at a width");
	free(buf);
}

/* ---- charts ---- */

static char *chart(const RenderChart *c, int width, int unicode, int color)
{
	SBuf b = SBUF_INIT;
	RenderChartOpts o = {width, unicode, color};
	render_chart(&b, c, &o);
	return sb_steal(&b);
}

/* n copies of s */
static const char *rep(const char *s, int n)
{
	static char buf[8][512];
	static int k;
	char *b = buf[k++ % 8];
	b[0] = 0;
	for (int i = 0; i < n; i++)
		strcat(b, s);
	return b;
}

#define FULL "\xE2\x96\x88"

static void test_chart(void)
{
	const char *labels[] = {"a", "bb", "ccc"};
	const char *v1[] = {"v"};
	double vals[] = {1, 2, 4};
	unsigned char all[] = {1, 1, 1, 1};
	RenderChart c = {"k", 1, v1, 3, labels, vals, all};
	char want[2048];

	/* width 40: label column 3 + 1, bars 34 (largest), "+ 4" at the end */
	char *s = chart(&c, 40, 0, 0);
	snprintf(want, sizeof want, "k   v\na   %s 1\nbb  %s 2\nccc %s 4\n", rep("#", 9),
	         rep("#", 17), rep("#", 34));
	CHECK_STR(s, want, "chart: ASCII bars at a width of 40, a character rounded");
	CHECK(line_widths(s, 0, &(int){0}) == 40, "chart: the longest line is the width");
	free(s);

	s = chart(&c, 40, 1, 0);   /* 1/4 of 34 is 8.5 characters: 8 and a half block */
	snprintf(want, sizeof want, "k   v\na   %s\xE2\x96\x8C 1\nbb  %s 2\nccc %s 4\n",
	         rep(FULL, 8), rep(FULL, 17), rep(FULL, 34));
	CHECK_STR(s, want, "chart: eighth blocks end a bar on an eighth");
	free(s);

	/* eighths: 1 to 7 of a character take U+258F (one eighth) to U+2589 (seven): at a
	   width of 20, 14 characters (112 eighths) for 112 */
	double ev[] = {112, 1, 2, 3, 4, 5, 6, 7};
	const char *el[] = {"f", "1", "2", "3", "4", "5", "6", "7"};
	unsigned char eh[] = {1, 1, 1, 1, 1, 1, 1, 1};
	RenderChart e = {"k", 1, v1, 8, el, ev, eh};
	s = chart(&e, 20, 1, 0);
	snprintf(want, sizeof want, "k v\nf %s 112\n1 \xE2\x96\x8F 1\n2 \xE2\x96\x8E 2\n"
	         "3 \xE2\x96\x8D 3\n4 \xE2\x96\x8C 4\n5 \xE2\x96\x8B 5\n6 \xE2\x96\x8A 6\n"
	         "7 \xE2\x96\x89 7\n", rep(FULL, 14));
	CHECK_STR(s, want, "chart: an eighth block for each eighth");
	free(s);

	/* negative values: bars to the left of the axis, their values on the left */
	const char *nl[] = {"up", "down"};
	double nv[] = {3, -1};
	RenderChart n = {"k", 1, (const char *[]){"d"}, 2, nl, nv, all};
	s = chart(&n, 40, 0, 0);
	snprintf(want, sizeof want, "k    %sd\nup   %s|%s 3\ndown -1 %s|\n", rep(" ", 11),
	         rep(" ", 10), rep("#", 22), rep("#", 7));
	CHECK_STR(s, want, "chart: a negative value left of a zero axis (ASCII)");
	free(s);
	s = chart(&n, 40, 1, 0);
	snprintf(want, sizeof want, "k    %sd\nup   %s\xE2\x94\x82%s 3\ndown -1 %s\xE2\x94\x82\n",
	         rep(" ", 11), rep(" ", 10), rep(FULL, 22), rep(FULL, 7));
	CHECK_STR(s, want, "chart: a negative value left of a zero axis (UTF-8)");
	free(s);

	/* NULL: a value that is NULL has no line; a NULL label is shown as NULL */
	const char *ul[] = {"x", NULL, "z"};
	double uv[] = {2, 1, 0};
	unsigned char uh[] = {1, 1, 0};
	RenderChart u = {"k", 1, v1, 3, ul, uv, uh};
	s = chart(&u, 40, 0, 0);
	snprintf(want, sizeof want, "k    v\nx    %s 2\nNULL %s 1\n", rep("#", 33), rep("#", 17));
	CHECK_STR(s, want, "chart: a NULL value leaves its row out, a NULL label reads NULL");
	free(s);

	/* several value columns: a group of lines a row, each named by its column */
	const char *gl[] = {"a", "b"};
	const char *gs[] = {"s1", "s2"};
	double gv[] = {1, 2, 3, 4};
	RenderChart g = {"k", 2, gs, 2, gl, gv, all};
	s = chart(&g, 40, 0, 0);
	snprintf(want, sizeof want, "k\na s1 %s 1\n  s2 %s 2\nb s1 %s 3\n  s2 %s 4\n",
	         rep("#", 8), rep("#", 17), rep("#", 25), rep("#", 33));
	CHECK_STR(s, want, "chart: groups of bars, a line a value column");
	free(s);
	unsigned char gh[] = {0, 1, 0, 0};
	RenderChart g2 = {"k", 2, gs, 2, gl, gv, gh};
	s = chart(&g2, 40, 0, 0);
	snprintf(want, sizeof want, "k\na s2 %s 2\n", rep("#", 33));
	CHECK_STR(s, want, "chart: a group's NULLs have no line; a row with none is left out");
	free(s);

	/* wide labels: cut with an ellipsis to two fifths of the width; wide characters
	   count two columns; a control character is shown, never written */
	const char *wl[] = {"a label far too long to fit", "\xE6\x97\xA5\xE6\x9C\xAC",
	                    "bell\a"};
	double wv[] = {1, 1, 1};
	RenderChart w = {"name", 1, v1, 3, wl, wv, all};
	s = chart(&w, 40, 1, 0);
	CHECK(strncmp(s, "name             v\n", 19) == 0 &&
	      strstr(s, "\na label far too\xE2\x80\xA6 " FULL) != NULL,
	      "chart: a wide label cut to 16 columns with an ellipsis");
	CHECK(strstr(s, "\n\xE6\x97\xA5\xE6\x9C\xAC            ") != NULL,
	      "chart: a CJK label takes two columns a character");
	CHECK(strstr(s, "bell^G") != NULL && !strchr(s, '\a'), "chart: a control character shown");
	int same;
	CHECK(line_widths(s, 0, &same) == 40, "chart: lines no wider than the width, labels cut");
	free(s);
	s = chart(&w, 40, 0, 0);
	CHECK(strstr(s, "a label far too~ ") != NULL, "chart: ASCII cuts with ~");
	free(s);

	/* colour: a bold header, the bars coloured and reset */
	s = chart(&c, 40, 1, 1);
	CHECK(strncmp(s, "\033[1mk   v\033[0m\n", 14) == 0 && strstr(s, "\033[36m" FULL) &&
	      strstr(s, FULL "\033[0m 4"), "chart: colour where asked for");
	free(s);
	s = chart(&c, 40, 1, 0);
	CHECK(!strchr(s, '\033'), "chart: no escape without colour");
	free(s);

	/* all zeros: no bar, no division by zero */
	double zv[] = {0, 0, 0};
	RenderChart z = {"k", 1, v1, 3, labels, zv, all};
	s = chart(&z, 40, 0, 0);
	CHECK_STR(s, "k   v\na    0\nbb   0\nccc  0\n", "chart: zeros draw no bar");
	free(s);
	/* below the least width, the least width */
	s = chart(&c, 5, 0, 0);
	CHECK(line_widths(s, 0, &same) == RENDER_CHART_MIN_WIDTH, "chart: at least 20 columns");
	free(s);
}

static void test_chart_svg(void)
{
	const char *labels[] = {"<b>&\"'", "ok\x01", NULL};
	double vals[] = {2, -1, 1};
	unsigned char has[] = {1, 1, 1};
	RenderChart c = {"</svg><script>", 1, (const char *[]){"v&v"}, 3, labels, vals, has};
	SBuf b = SBUF_INIT;
	render_chart_svg(&b, &c);
	const char *s = sb_str(&b);
	const char *head = "<svg xmlns=\"http://www.w3.org/2000/svg\"";
	CHECK(strncmp(s, head, strlen(head)) == 0 &&
	      strstr(s, "</svg>\n") == s + b.len - 7, "svg: one <svg> element");
	CHECK(strstr(s, "&lt;b&gt;&amp;&quot;&#39;") != NULL, "svg: a label escaped");
	CHECK(strstr(s, "<b>") == NULL && strstr(s, "<script>") == NULL &&
	      strstr(s, "&lt;/svg&gt;&lt;script&gt;") != NULL, "svg: names escaped, no markup");
	CHECK(strstr(s, "ok\xEF\xBF\xBD") != NULL && !strchr(s, '\x01'),
	      "svg: a control character is U+FFFD");
	CHECK(strstr(s, ">NULL</text>") != NULL, "svg: a NULL label reads NULL");
	CHECK(strstr(s, "<line ") != NULL, "svg: a zero axis for negative values");
	int rects = 0;
	for (const char *p = s; (p = strstr(p, "<rect ")); p++)
		rects++;
	CHECK(rects == 3, "svg: a bar a value");
	sb_free(&b);
}

static void test_hist(void)
{
	RenderHist h;
	double a[] = {1, 2, 2, 3, 10};
	render_hist(&h, a, 5, 3, 1, 0);
	CHECK(h.nbins == 3 && h.step == 5 && strcmp(h.labels[0], "0-4") == 0 &&
	      strcmp(h.labels[2], "10-14") == 0 && h.counts[0] == 4 && h.counts[1] == 0 &&
	      h.counts[2] == 1, "hist: integers in bins of a round width (0-4, 5-9, 10-14)");
	render_hist_free(&h);
	render_hist(&h, a, 5, 3, 1, 1);
	CHECK_STR(h.labels[1], "5\xE2\x80\x93" "9", "hist: an en dash in UTF-8");
	render_hist_free(&h);
	double b[] = {1, 2, 3, 3};
	render_hist(&h, b, 4, 5, 1, 0);
	CHECK(h.nbins == 3 && strcmp(h.labels[0], "1") == 0 && strcmp(h.labels[2], "3") == 0 &&
	      h.counts[2] == 2, "hist: integers spanning fewer than the bins, one a bin");
	render_hist_free(&h);
	double c[] = {0.5, 1.25, 1.5, 2.0};
	render_hist(&h, c, 4, 2, 0, 0);
	CHECK(h.nbins == 3 && strcmp(h.labels[0], "[0, 1)") == 0 &&
	      strcmp(h.labels[2], "[2, 3)") == 0 && h.counts[0] == 1 && h.counts[1] == 2 &&
	      h.counts[2] == 1, "hist: reals in [lo, hi) bins");
	render_hist_free(&h);
	double d[] = {0.1, 0.3};   /* 0.3 / 0.1 is 2.9999...: still the bin 0.3 starts */
	render_hist(&h, d, 2, 2, 0, 0);
	CHECK(h.nbins == 3 && strcmp(h.labels[2], "[0.3, 0.4)") == 0 && h.counts[2] == 1 &&
	      h.counts[1] == 0, "hist: a value on a boundary falls in the bin it starts");
	render_hist_free(&h);
	double e[] = {7, 7};
	render_hist(&h, e, 2, 4, 1, 0);
	CHECK(h.nbins == 1 && h.counts[0] == 2, "hist: one value, one bin");
	render_hist_free(&h);
}

static void test_message(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("error: ", f);
	render_message(f, 7, "line 1, column 30: no such column: nosuchcolumn\n"
	               "  SELECT name, rating, price, nosuchcolumn FROM restaurants;\n"
	               "                              ^~~~~~~~~~~~\nhint: did you mean one of "
	               "the columns named above?", 40);
	fclose(f);
	CHECK_STR(buf, "error: line 1, column 30: no such\n"
	          "       column: nosuchcolumn\n"
	          "  ... rating, price, nosuchcolumn FRO...\n"
	          "                     ^~~~~~~~~~~~\n"
	          "hint: did you mean one of the columns\n"
	          "      named above?\n",
	          "message: broken at blanks, the excerpt cut around its caret");
	free(buf);
	f = open_memstream(&buf, &len);
	render_message(f, 7, "a \033]0;title\a message", 0);
	fclose(f);
	CHECK_STR(buf, "a ^[]0;title^G message\n", "message: controls shown, never obeyed");
	free(buf);
}

int main(void)
{
	render_init_locale();
	test_width();
	test_csv();
	test_json();
	test_table();
	test_stream();
	test_shell_modes();
	test_wrap();
	test_chart();
	test_chart_svg();
	test_hist();
	test_message();
	return unit_done();
}
