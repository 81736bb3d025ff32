/*
 * retrieve_doc.c: the retrieval index's words for a store that keeps them itself
 * (PostgreSQL, engine/exec_pg_index.c): a value cut into passages and each passage into
 * tokens exactly as the index of a SQLite database cuts them (text_passages, then FTS5's
 * tokenizer RET_TOKENIZER, the same code, run on any SQLite connection: PostgreSQL's
 * backend has one beside the server), a question's phrases as ret_score asks them (its
 * content words less those naming the table), and the BM25 of a passage by the one
 * arithmetic every score of the index uses (ret_rank_passage). With the index's totals
 * (passages, tokens) and each phrase's document frequency, a passage scores the double
 * SQLite's index gives it, so both backends rank candidates alike.
 */
#include "retrieve/retrieve_int.h"

#include "base/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct RetWords {
	RetTok tok;
	TextTerms table_terms;
};

SuqlStatus ret_words_open(sqlite3 *db, const char *table, RetWords **out, SuqlErr *err)
{
	RetWords *w = xcalloc(1, sizeof *w);
	if (ret_tok_open(db, &w->tok, err) != SUQL_OK) {
		free(w);
		*out = NULL;
		return SUQL_ERROR;
	}
	text_terms(table, strlen(table), &w->table_terms);
	*out = w;
	return SUQL_OK;
}

void ret_words_close(RetWords *w)
{
	if (!w)
		return;
	ret_tok_close(&w->tok);
	text_terms_free(&w->table_terms);
	free(w);
}

/* Words as the index's passage length counts them (retrieve_build.c's ret_count_tokens:
   runs of ASCII letters and digits, bytes of UTF-8 sequences counting as letters). */
static int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int w = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		        c >= 0x80;
		n += w && !in;
		in = w;
	}
	return n;
}

SuqlStatus ret_words_value(RetWords *w, const char *value, size_t n, RetWordsEach each,
                           void *ctx, SuqlErr *err)
{
	char **ps;
	size_t np = text_passages(value, n, RET_CHUNK, &ps);
	SuqlStatus s = SUQL_OK;
	SBuf toks = SBUF_INIT;
	for (size_t i = 0; i < np; i++) {
		int k = s == SUQL_OK ? ret_tok_run(&w->tok, ps[i], strlen(ps[i]), 0) : 0;
		if (k < 0)
			s = err_set(err, SUQL_ERROR, "retrieval index: the tokenizer failed");
		if (s == SUQL_OK) {
			sb_truncate(&toks, 0);
			for (int t = 0; t < k; t++)
				sb_printf(&toks, "%s%s", t ? " " : "", w->tok.buf.s + w->tok.off[t]);
			each(ctx, (int)i, count_words(ps[i]), k, sb_str(&toks));
		}
		free(ps[i]);
	}
	free(ps);
	sb_free(&toks);
	return s;
}

int ret_words_question(RetWords *w, const char *question, char ***phrases)
{
	*phrases = NULL;
	char *m = question ? text_fts_query(question) : NULL;
	if (!m)
		return 0;
	int n = 0;
	const char *p = m;
	/* the phrases of the MATCH expression, as question_prepare reads them */
	while (*p && n < RET_MAX_PHRASES) {
		const char *z, *a = ret_phrase(p, &z);
		if (!a)
			break;
		SBuf b = SBUF_INIT;   /* unquoted: "" is one " */
		for (const char *c = a + 1; c < z; c++) {
			sb_putc(&b, *c);
			if (c[0] == '"')
				c++;
		}
		p = z + 1;
		TextTerms pt = TEXT_TERMS_INIT;
		text_terms(sb_str(&b), b.len, &pt);
		int names = pt.n == 1 && text_terms_has(&w->table_terms, pt.v[0]);
		text_terms_free(&pt);
		int k = names ? 0 : ret_tok_run(&w->tok, sb_str(&b), b.len, 1);
		sb_free(&b);
		if (names)
			continue;
		/* a phrase FTS5 makes no token of matches nothing (and keeps its place) */
		SBuf t = SBUF_INIT;
		for (int i = 0; i < k; i++)
			sb_printf(&t, "%s%s", i ? " " : "", w->tok.buf.s + w->tok.off[i]);
		*phrases = xrealloc(*phrases, ((size_t)n + 1) * sizeof **phrases);
		(*phrases)[n++] = sb_steal(&t);
	}
	free(m);
	return n;
}

int ret_words_tf(const char *toks, const char *phrase)
{
	size_t pl = strlen(phrase);
	if (!pl)
		return 0;
	int tf = 0;
	for (const char *p = toks; (p = strstr(p, phrase)) != NULL; p++) {
		/* whole tokens only: at a token's start and ending at one's end */
		if ((p == toks || p[-1] == ' ') && (p[pl] == ' ' || p[pl] == 0))
			tf++;
	}
	return tf;
}

double ret_words_bm25(int nphrase, const double *df, double nrow, double ntok, const int *tf,
                      int dl)
{
	RetRank rk = {0};
	rk.nphrase = nphrase < RET_MAX_PHRASES ? nphrase : RET_MAX_PHRASES;
	/* as rank_fn works them out from FTS5's row count and total size */
	rk.avgdl = nrow > 0 && ntok > 0 ? ntok / nrow : 1;
	for (int p = 0; p < rk.nphrase; p++) {
		rk.df[p] = df[p];
		rk.idf[p] = log(1.0 + (nrow - df[p] + 0.5) / (df[p] + 0.5));
	}
	rk.ready = 1;
	return ret_rank_passage(&rk, tf, dl);
}
