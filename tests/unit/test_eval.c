/* Unit tests for the evaluation harness: the answer normalisation, exact match and token F1
   against HybridQA's official script (the expected values below are what that script gives
   for the same strings), the row-set scores, and the benchmark reader's checks and merge. */
#include "base/util.h"
#include "eval/eval.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* pred against one gold: normalised form, exact match, F1 */
static void qa(const char *pred, const char *gold, const char *norm, double em, double f1,
               const char *name)
{
	char *n = eval_normalize(pred);
	char label[160];
	snprintf(label, sizeof label, "normalize: %s", name);
	CHECK_STR(n, norm, label);
	free(n);
	const char *g[] = {gold};
	snprintf(label, sizeof label, "exact match: %s", name);
	CHECK(near(eval_exact(pred, g, 1), em), label);
	snprintf(label, sizeof label, "F1: %s", name);
	CHECK(near(eval_f1(pred, g, 1), f1), label);
}

static SuqlStatus parse(const char *text, EvalBench *b, SuqlErr *err)
{
	err_clear(err);
	return eval_bench_parse(b, text, strlen(text), "b.jsonl", err);
}

int main(void)
{
	/* articles, punctuation, blanks */
	qa("The Beatles", "beatles", "beatles", 1, 1, "an article goes");
	qa("A  cat.", "cat", "cat", 1, 1, "article, blanks, full stop");
	qa("An Apple!", "apple", "apple", 1, 1, "capital article");
	qa("the", "", "", 1, 1, "nothing left on either side");
	qa("theatre", "theatre", "theatre", 1, 1, "an article inside a word stays");
	qa("the_end", "theend", "theend", 1, 1, "underscore is punctuation");
	qa("the\xe2\x80\x93the", "the\xe2\x80\x93the", "\xe2\x80\x93", 1, 1,
	   "a dash is no word character, so both articles go");
	qa("the Bromma boys", "Bromma boys", "bromma boys", 1, 1, "leading article");
	/* punctuation inside words and numbers */
	qa("Runner-up", "runner up", "runnerup", 0, 0, "a hyphen joins, it does not split");
	qa("U.S.A.", "usa", "usa", 1, 1, "abbreviation");
	qa("l'an 2000", "lan 2000", "lan 2000", 1, 1, "apostrophe");
	qa("5,400", "5400", "5400", 1, 1, "thousands comma");
	qa("5,400", "5 400", "5400", 0, 0, "digits apart are other tokens");
	qa("$ 47,684", "47684", "47684", 1, 1, "currency sign");
	qa("Over 40%", "over 40", "over 40", 1, 1, "percent sign");
	qa("10", "10.0", "10", 0, 0, "numbers are compared as text");
	/* tokens */
	qa("Sir Frank Williams", "Frank Williams", "sir frank williams", 0, 0.8, "extra token");
	qa("new new york", "new york", "new new york", 0, 0.8, "tokens count as a multiset");
	qa("Quakers and Baptists", "Baptists and Quakers", "quakers and baptists", 0, 1,
	   "order does not matter to F1");
	/* beyond ASCII: lower case, letters, the blanks Python splits on */
	qa("\xc3\x89" "COLE Normale", "\xc3\xa9" "cole normale", "\xc3\xa9" "cole normale", 1, 1,
	   "accented capitals lower");
	qa("W\xc4\x81hine", "w\xc4\x81hine", "w\xc4\x81hine", 1, 1, "a macron is a letter");
	qa("New\xc2\xa0York", "new york", "new york", 1, 1, "a no-break space splits");
	qa("A\xe2\x80\x87" "b", "b", "b", 1, 1, "a figure space splits");

	/* the best over several gold answers */
	const char *golds[] = {"Lisbon", "Porto", "the city of Lisbon"};
	CHECK(near(eval_exact("lisbon.", golds, 3), 1), "several golds: exact match");
	CHECK(near(eval_f1("city of Lisbon", golds, 3), 1), "several golds: best F1");
	CHECK(near(eval_f1("Coimbra", golds, 3), 0), "several golds: none");
	CHECK(near(eval_exact(NULL, golds, 3), 0), "no prediction");

	/* row sets */
	const char *gold[] = {"1", "2", "3", "4"};
	const char *pred[] = {"2", "9", "2", "1", "7"};
	EvalSetScore sc;
	eval_set_score(pred, 5, gold, 4, 3, &sc);
	CHECK(sc.tp == 2 && sc.fp == 2 && sc.fn == 2, "rows: repeated keys count once");
	CHECK(sc.hits_k == 2 && sc.n_k == 3, "rows: precision at 3 over distinct keys");
	eval_set_score(NULL, 0, gold, 4, 3, &sc);
	CHECK(sc.tp == 0 && sc.fp == 0 && sc.fn == 4 && sc.n_k == 0, "rows: nothing predicted");

	/* the benchmark reader */
	EvalBench b;
	SuqlErr err = {0};
	const char *good =
		"{\"benchmark\": \"t\", \"key\": \"id\", \"k\": 5, \"settings\": {\"chat.relax\": 2}}\n"
		"\n"
		"{\"id\": 1, \"question\": \"q1\", \"rows\": [3, \"4\", 3]}\n"
		"{\"id\": \"b\", \"question\": \"q2\", \"answers\": \"Lisbon\", \"split\": \"dev\"}\n"
		"{\"id\": \"c\", \"question\": \"q3\", \"suql\": \"SELECT 1\", \"kind\": \"qa\"}\n";
	CHECK(parse(good, &b, &err) == SUQL_OK, "bench: reads");
	CHECK(b.ncases == 3 && b.k == 5 && str_ieq(b.key, "id") && b.nsettings == 2 &&
	      strcmp(b.settings[1], "2") == 0, "bench: header");
	CHECK(b.cases[0].kind == EVAL_ROWS && b.cases[0].nrows == 2 &&
	      strcmp(b.cases[0].id, "1") == 0, "bench: rows, keys once, numbers as text");
	CHECK(b.cases[1].kind == EVAL_QA && b.cases[1].nanswers == 1 &&
	      strcmp(b.cases[1].split, "dev") == 0, "bench: one answer string");
	CHECK(b.cases[2].kind == EVAL_QA && b.cases[2].suql, "bench: gold SUQL, kind qa");
	const char *merge = "{\"qid\": \"c\", \"q\": \"other\", \"a\": [\"x\", \"y\"]}\n"
	                    "{\"qid\": \"zz\", \"q\": \"unused\"}\n";
	free(b.q_file);
	b.q_file = xstrdup("q.jsonl");
	b.q_id = xstrdup("qid");
	b.q_question = xstrdup("q");
	b.q_answers = xstrdup("a");
	CHECK(eval_bench_merge(&b, merge, strlen(merge), "q.jsonl", &err) == SUQL_OK &&
	      strcmp(b.cases[2].question, "q3") == 0 && b.cases[2].nanswers == 2,
	      "bench: merge fills answers, keeps the case's own question");
	eval_bench_free(&b);

	static const struct {
		const char *text, *msg, *name;
	} bad[] = {
		{"{\"id\": 1, \"question\": \"q\"}\n", "b.jsonl:1: case \"1\" has no gold",
		 "bench: no gold"},
		{"{\"question\": \"q\", \"rows\": []}\n", "b.jsonl:1: the case has no \"id\"",
		 "bench: no id"},
		{"{\"id\": 1, \"rows\": [], \"anwsers\": \"x\"}\n", "b.jsonl:1: unknown field \"anwsers\"",
		 "bench: a typo is an error"},
		{"{\"id\": 1, \"rows\": []}\n{\"id\": \"1\", \"rows\": []}\n",
		 "b.jsonl:2: id \"1\" is also on line 1", "bench: repeated id"},
		{"{\"id\": 1, \"rows\": []}\n{\"id\": 2,\n", "b.jsonl:2: not JSON",
		 "bench: a broken line"},
		{"[1, 2]\n", "b.jsonl:1: a line must be one JSON object", "bench: not an object"},
		{"{\"id\": 1, \"rows\": []}\n{\"benchmark\": \"late\"}\n",
		 "b.jsonl:2: the header (the line with \"benchmark\") must be the first line",
		 "bench: a late header"},
		{"{\"benchmark\": \"x\", \"k\": 0}\n{\"id\": 1, \"rows\": []}\n",
		 "b.jsonl:1: \"k\" must be a whole number", "bench: bad k"},
		{"{\"id\": 1, \"answers\": [], \"question\": \"q\"}\n",
		 "b.jsonl:1: \"answers\" must be a string or a non-empty list", "bench: empty answers"},
		{"\n\n", "b.jsonl: no cases", "bench: empty file"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		SuqlStatus s = parse(bad[i].text, &b, &err);
		CHECK(s == SUQL_USAGE && err.msg && str_has_prefix(err.msg, bad[i].msg), bad[i].name);
		if (s == SUQL_OK)
			eval_bench_free(&b);
	}
	err_clear(&err);
	return unit_done();
}
