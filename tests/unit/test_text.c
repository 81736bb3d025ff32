/* Unit tests for text.c (words, stems, sentences, passages, BM25, similarity) and the
   error formatting in util.c. */
#include "base/suql.h"
#include "base/text.h"
#include "base/util.h"
#include "unit.h"

#include <stdlib.h>

static char *span(const char *s, TextSpan sp)
{
	return xstrndup(s + sp.off, sp.len);
}

int main(void)
{
	/* words keep inner apostrophes and decimals */
	const char *s = "Don't order the 4.5-star crêpes!";
	TextTok *tok;
	size_t n = text_tokens(s, strlen(s), &tok);
	CHECK(n == 6, "tokens: count");
	CHECK(tok[0].len == 5 && strncmp(s, "Don't", 5) == 0, "tokens: inner apostrophe");
	CHECK(tok[3].len == 3 && strncmp(s + tok[3].off, "4.5", 3) == 0, "tokens: decimal");
	free(tok);

	/* terms: stop words and negations dropped, stems */
	TextTerms t = TEXT_TERMS_INIT;
	const char *q = "Is this restaurant not romantic for dates?";
	text_terms(q, strlen(q), &t);
	CHECK(t.n == 3, "terms: content words only");
	CHECK(text_terms_has(&t, "restaur") && text_terms_has(&t, "romant") &&
	      text_terms_has(&t, "date"), "terms: stems");
	text_terms_free(&t);

	CHECK(text_is_negation("isn't", 5) && text_is_negation("never", 5) &&
	      text_is_negation("dont", 4) && !text_is_negation("note", 4), "negations");

	/* sentences */
	const char *para = "Great food. Dr. Smith loved the 4.5 oz steak! Parking was hard?\nYes";
	TextSpan *sp;
	n = text_sentences(para, strlen(para), &sp);
	CHECK(n == 4, "sentences: count");
	char *s1 = span(para, sp[1]);
	CHECK_STR(s1, "Dr. Smith loved the 4.5 oz steak!", "sentences: abbreviation and decimal");
	free(s1);
	free(sp);

	/* chunks never exceed maxlen and cover sentences whole */
	const char *longtext = "One two three. Four five six. Seven eight nine. Ten eleven.";
	n = text_chunks(longtext, strlen(longtext), 30, &sp);
	int ok = n == 2;
	for (size_t i = 0; i < n; i++)
		ok &= sp[i].len <= 30;
	CHECK(ok, "chunks: sentence-bounded within maxlen");
	char *c0 = span(longtext, sp[0]);
	CHECK_STR(c0, "One two three. Four five six.", "chunks: first chunk");
	free(c0);
	free(sp);

	/* passages from a JSON array and from plain text */
	char **pv;
	const char *arr = "[\"Lovely place.\", \"\", 42, \"Too loud.\"]";
	n = text_passages(arr, strlen(arr), 500, &pv);
	CHECK(n == 3, "passages: JSON array elements");
	CHECK_STR(pv[1], "42", "passages: numbers become text");
	text_strv_free(pv, n);
	n = text_passages("[not json", 9, 500, &pv);
	CHECK(n == 1 && strcmp(pv[0], "[not json") == 0, "passages: invalid JSON is plain text");
	text_strv_free(pv, n);

	/* BM25 ranks the passage about parking first */
	const char *docs[] = {"The pasta was good.", "Parking is easy, plenty of parking.",
	                      "Hard to find parking downtown.", "Nice staff."};
	TextTerms pt[4] = {TEXT_TERMS_INIT, TEXT_TERMS_INIT, TEXT_TERMS_INIT, TEXT_TERMS_INIT};
	for (int i = 0; i < 4; i++)
		text_terms(docs[i], strlen(docs[i]), &pt[i]);
	TextTerms qt = TEXT_TERMS_INIT;
	text_terms("is parking easy?", 16, &qt);
	double sc[4];
	text_bm25(&qt, pt, 4, sc);
	CHECK(sc[1] > sc[2] && sc[2] > sc[0] && sc[0] == 0 && sc[3] == 0, "bm25: ranking");
	/* a term the question repeats counts once (the terms are deduplicated by sorting, so a
	   long question costs linear time, not a scan per term) */
	TextTerms q2 = TEXT_TERMS_INIT;
	text_terms("parking parking easy easy parking?", 34, &q2);
	double sc2[4];
	text_bm25(&q2, pt, 4, sc2);
	CHECK(sc2[0] == sc[0] && sc2[1] == sc[1] && sc2[2] == sc[2] && sc2[3] == sc[3],
	      "bm25: a repeated question term counts once");
	TextQuery tq;
	text_query_init(&tq, &q2);
	int ix[4], tf[4];
	int m = text_query_count(&tq, &pt[1], ix, tf);
	CHECK(tq.n == 2 && m == 2 && tf[0] + tf[1] == 3, "query terms counted in a passage");
	text_query_free(&tq);
	text_terms_free(&q2);
	for (int i = 0; i < 4; i++)
		text_terms_free(&pt[i]);
	text_terms_free(&qt);

	char *fq = text_fts_query("Is there \"easy\" parking, parking?");
	CHECK_STR(fq, "\"easy\" OR \"parking\"", "fts query: quoted, deduplicated");
	free(fq);
	CHECK(text_fts_query("is it?") == NULL, "fts query: no content words");

	CHECK(text_edit_distance("kitten", "sitting") == 3, "edit distance");
	CHECK(text_similarity("Cheap", "cheap") == 1.0, "similarity: case");
	CHECK(text_similarity("burgers", "burger") == 1.0, "similarity: plural");
	CHECK(text_similarity("coffee", "coffee & tea") >= 0.7, "similarity: containment");
	CHECK(text_similarity("coffee", "sushi bars") < 0.4, "similarity: unrelated");

	/* error records point at the source */
	SuqlErr e = {0};
	const char *src = "SELECT 1\nFROM t WHERE x = ;";
	err_at(&e, SUQL_ERROR, src, strlen(src), 24, 1, "write a value after '='", "%s",
	       "expected an expression");
	CHECK_STR(e.msg, "line 2, column 16: expected an expression\n  FROM t WHERE x = ;\n"
	          "                 ^\nhint: write a value after '='", "err_at: caret");
	err_clear(&e);
	return unit_done();
}
