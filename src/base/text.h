/*
 * text.h: the lexical toolkit: words, stems, stop words, sentences, passages, relevance and
 * string similarity. It sits under the offline backend (which decides with it), the
 * retrieval index (which chunks free text into passages with it) and the executor (which
 * picks each candidate's most relevant passages with it).
 *
 * Ownership: every out-array is a heap array the caller frees with free() (TextTok, TextSpan)
 * or with the matching *_free function (TextTerms, string vectors).
 */
#ifndef SUQL_TEXT_H
#define SUQL_TEXT_H

#include <stddef.h>

/* Tokens are counted as this many bytes of text wherever a count is estimated rather than
   reported (the passages a candidate shows the model, replies whose endpoint reported no
   usage, the planner's guesses). */
#define TEXT_BYTES_PER_TOKEN 4
/* Estimated tokens of n bytes of text (rounded up). */
#define TEXT_TOKENS(n) (((n) + TEXT_BYTES_PER_TOKEN - 1) / TEXT_BYTES_PER_TOKEN)

/* A word of the input: a run of letters, digits and inner apostrophes; bytes >= 0x80
   (UTF-8) count as letters. */
typedef struct TextTok {
	size_t off, len;
} TextTok;

size_t text_tokens(const char *s, size_t n, TextTok **out);

/* Stems of the content words (lower case, stop words dropped), in order, with repeats. */
typedef struct TextTerms {
	char **v;
	int n, cap;
} TextTerms;

#define TEXT_TERMS_INIT {NULL, 0, 0}

void text_terms(const char *s, size_t n, TextTerms *out);   /* appends to out */
void text_terms_free(TextTerms *t);
int text_terms_has(const TextTerms *t, const char *stem);

/* The English (Porter2) stem of a word, lower-cased; heap string. */
char *text_stem(const char *w, size_t n);
int text_is_stopword(const char *w, size_t n);     /* case-insensitive */
int text_is_negation(const char *w, size_t n);     /* not, no, never, n't, without ... */

/* Sentences (split after . ! ? and at line breaks; abbreviations like "Dr." and decimals
   like "4.5" do not end a sentence) and sentence-bounded chunks of at most maxlen bytes
   (a single longer sentence is cut at a word boundary). Spans exclude outer blanks. */
typedef struct TextSpan {
	size_t off, len;
} TextSpan;

size_t text_sentences(const char *s, size_t n, TextSpan **out);
size_t text_chunks(const char *s, size_t n, size_t maxlen, TextSpan **out);

/* The passages of a free-text value: a JSON array gives one passage per non-empty string
   element; any other text is one passage. Passages longer than maxlen are split with
   text_chunks. Returns the count; *out is a heap array of heap strings. */
size_t text_passages(const char *value, size_t n, size_t maxlen, char ***out);
void text_strv_free(char **v, size_t n);

/* Okapi BM25 score of a passage for the query terms, with term statistics taken from the
   given collection of passages (k1 = 1.2, b = 0.75). scores[i] is set for every passage.
   A repeated query term counts once. Time: linear in the terms of the passages (times the
   log of the query's). */
void text_bm25(const TextTerms *query, const TextTerms *passages, size_t npassages,
               double *scores);

/* A query's distinct terms, sorted, for counting them in passages in one pass each (BM25
   without a scan of the passage per query term). v borrows the TextTerms' strings. */
typedef struct TextQuery {
	const char **v;
	int n;
	int *cnt;       /* scratch, zero between calls */
} TextQuery;

void text_query_init(TextQuery *q, const TextTerms *terms);
void text_query_free(TextQuery *q);
/* The query terms passage t holds: their indexes in q->v into ix[] and their counts into
   tf[] (both with room for q->n); returns how many. */
int text_query_count(TextQuery *q, const TextTerms *t, int *ix, int *tf);

/* An FTS5 MATCH expression for a question: its content words, each quoted, joined by OR.
   NULL when the question has no content words. Heap string. */
char *text_fts_query(const char *question);

/* Levenshtein distance in bytes, and a similarity in [0, 1] that forgives case, plurals,
   word order and punctuation ("Coffee shops" ~ "coffee & tea": partly; "cheap" ~ "Cheap": 1). */
int text_edit_distance(const char *a, const char *b);
double text_similarity(const char *a, const char *b);

#endif
