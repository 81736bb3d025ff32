/*
 * text.c: words, stems, sentences, passages, BM25 and string similarity.
 *
 * Stemming is Snowball's English stemmer (libstemmer); everything else is small enough to
 * be clearer here than behind a dependency. All functions are pure and deterministic; the
 * offline backend's decisions, and therefore the test suite, rest on that.
 */
#include "base/suql.h"
#include "base/text.h"
#include "base/util.h"

#include <ctype.h>
#include <jansson.h>
#include <libstemmer.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- words ---- */

static int is_word_byte(unsigned char c)
{
	return isalnum(c) || c >= 0x80;
}

size_t text_tokens(const char *s, size_t n, TextTok **out)
{
	size_t cnt = 0, cap = 16;
	TextTok *v = xmalloc(cap * sizeof *v);
	size_t i = 0;
	while (i < n) {
		while (i < n && !is_word_byte((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		size_t st = i;
		while (i < n) {
			unsigned char c = (unsigned char)s[i];
			if (is_word_byte(c)) {
				i++;
			} else if ((c == '\'' || c == '.') && i + 1 < n &&
			           is_word_byte((unsigned char)s[i + 1]) && i > st &&
			           (c == '\'' || isdigit((unsigned char)s[i - 1]))) {
				i++;   /* don't, it's, 4.5 */
			} else if (c == 0xE2 && i + 3 < n && (unsigned char)s[i + 1] == 0x80 &&
			           (unsigned char)s[i + 2] == 0x99 && is_word_byte((unsigned char)s[i + 3])) {
				i += 3;   /* U+2019 right single quote inside a word */
			} else {
				break;
			}
		}
		if (cnt == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[cnt].off = st;
		v[cnt].len = i - st;
		cnt++;
	}
	*out = v;
	return cnt;
}

/* Sorted for bsearch. Negations are deliberately absent: they carry meaning. */
static const char *const stopwords[] = {
	"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are",
	"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
	"by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
	"from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
	"him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "it's", "its",
	"itself", "just", "me", "more", "most", "my", "myself", "of", "off", "on", "once", "only",
	"or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should",
	"so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves",
	"then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
	"until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while",
	"who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
	"yourselves",
};

static int cmp_word(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static void lower_copy(char *dst, const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)tolower((unsigned char)w[i]);
	dst[n] = '\0';
}

int text_is_stopword(const char *w, size_t n)
{
	char buf[32];
	if (n >= sizeof buf)
		return 0;
	lower_copy(buf, w, n);
	return bsearch(buf, stopwords, sizeof stopwords / sizeof *stopwords, sizeof *stopwords,
	               cmp_word) != NULL;
}

int text_is_negation(const char *w, size_t n)
{
	static const char *const neg[] = {"not", "no", "never", "none", "nothing", "nobody",
		"nowhere", "neither", "nor", "without", "hardly", "barely", "scarcely", "cannot",
		"lack", "lacks", "lacking", NULL};
	char buf[32];
	if (n >= sizeof buf)
		return 0;
	lower_copy(buf, w, n);
	for (int i = 0; neg[i]; i++)
		if (strcmp(buf, neg[i]) == 0)
			return 1;
	/* isn't, don't, wasn't, can't, won't ... (ASCII or typographic apostrophe) */
	if (n >= 3 && strcmp(buf + n - 3, "n't") == 0)
		return 1;
	if (n >= 5 && memcmp(buf + n - 5, "n\xE2\x80\x99t", 5) == 0)
		return 1;
	if (n >= 2 && strcmp(buf + n - 2, "nt") == 0) {
		static const char *const typo[] = {"dont", "didnt", "doesnt", "isnt", "wasnt", "werent",
			"arent", "cant", "wont", "couldnt", "wouldnt", "shouldnt", "havent", "hasnt", NULL};
		for (int i = 0; typo[i]; i++)
			if (strcmp(buf, typo[i]) == 0)
				return 1;
	}
	return 0;
}

static struct sb_stemmer *stemmer(void)
{
	static struct sb_stemmer *st;
	if (!st) {
		st = sb_stemmer_new("english", NULL);
		if (!st) {   /* libstemmer only fails here when out of memory */
			fputs("suql: out of memory\n", stderr);
			exit(SUQL_EXIT_USAGE);
		}
	}
	return st;
}

char *text_stem(const char *w, size_t n)
{
	char *low = xmalloc(n + 1);
	lower_copy(low, w, n);
	/* Keep an apostrophe-s possessive out of the stem: "joe's" -> "joe". */
	size_t ln = n;
	if (ln > 2 && low[ln - 2] == '\'' && low[ln - 1] == 's')
		low[ln -= 2] = '\0';
	const sb_symbol *r = sb_stemmer_stem(stemmer(), (const sb_symbol *)low, (int)ln);
	char *out = r ? xstrndup((const char *)r, (size_t)sb_stemmer_length(stemmer())) : xstrdup(low);
	free(low);
	return out;
}

void text_terms(const char *s, size_t n, TextTerms *out)
{
	TextTok *tok;
	size_t nt = text_tokens(s, n, &tok);
	for (size_t i = 0; i < nt; i++) {
		const char *w = s + tok[i].off;
		if (text_is_stopword(w, tok[i].len) || text_is_negation(w, tok[i].len))
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 16;
			out->v = xrealloc(out->v, (size_t)out->cap * sizeof *out->v);
		}
		out->v[out->n++] = text_stem(w, tok[i].len);
	}
	free(tok);
}

void text_terms_free(TextTerms *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int text_terms_has(const TextTerms *t, const char *stem)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i], stem) == 0)
			return 1;
	return 0;
}

/* ---- sentences and chunks ---- */

static int is_abbrev(const char *s, size_t dot)
{
	static const char *const abbr[] = {"dr", "mr", "mrs", "ms", "st", "ave", "blvd", "vs",
		"etc", "e.g", "i.e", "approx", "no", "jr", "sr", "mt", "ft", "inc", "co", NULL};
	size_t b = dot;
	while (b > 0 && (isalpha((unsigned char)s[b - 1]) || s[b - 1] == '.'))
		b--;
	size_t len = dot - b;
	if (len == 0 || len > 6)
		return 0;
	if (len == 1 && isupper((unsigned char)s[b]))
		return 1;   /* an initial: "J. Smith" */
	for (int i = 0; abbr[i]; i++)
		if (str_nieq(s + b, len, abbr[i]))
			return 1;
	return 0;
}

static void push_span(TextSpan **v, size_t *cnt, size_t *cap, const char *s, size_t a, size_t b)
{
	while (a < b && isspace((unsigned char)s[a]))
		a++;
	while (b > a && isspace((unsigned char)s[b - 1]))
		b--;
	if (a == b)
		return;
	if (*cnt == *cap)
		*v = xrealloc(*v, (*cap *= 2) * sizeof **v);
	(*v)[*cnt].off = a;
	(*v)[*cnt].len = b - a;
	(*cnt)++;
}

size_t text_sentences(const char *s, size_t n, TextSpan **out)
{
	size_t cnt = 0, cap = 8, start = 0;
	TextSpan *v = xmalloc(cap * sizeof *v);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			push_span(&v, &cnt, &cap, s, start, i);
			start = i + 1;
			continue;
		}
		if (c != '.' && c != '!' && c != '?')
			continue;
		size_t j = i;
		while (j + 1 < n && (s[j + 1] == '.' || s[j + 1] == '!' || s[j + 1] == '?' ||
		                     s[j + 1] == '"' || s[j + 1] == ')' || s[j + 1] == '\''))
			j++;
		if (j + 1 < n && !isspace((unsigned char)s[j + 1]))
			continue;   /* 4.5, e.g.x, a URL */
		if (c == '.' && j == i && is_abbrev(s, i))
			continue;
		push_span(&v, &cnt, &cap, s, start, j + 1);
		start = j + 1;
		i = j;
	}
	push_span(&v, &cnt, &cap, s, start, n);
	*out = v;
	return cnt;
}

size_t text_chunks(const char *s, size_t n, size_t maxlen, TextSpan **out)
{
	TextSpan *sent;
	size_t ns = text_sentences(s, n, &sent);
	size_t cnt = 0, cap = 8;
	TextSpan *v = xmalloc(cap * sizeof *v);
	if (maxlen < 16)
		maxlen = 16;
	size_t i = 0;
	while (i < ns) {
		size_t a = sent[i].off, b = a + sent[i].len;
		if (sent[i].len > maxlen) {
			/* One long sentence: cut at the last blank before maxlen. */
			size_t pos = a;
			while (pos < b) {
				size_t end = pos + maxlen < b ? pos + maxlen : b;
				if (end < b) {
					size_t k = end;
					while (k > pos && !isspace((unsigned char)s[k]))
						k--;
					if (k > pos)
						end = k;
				}
				push_span(&v, &cnt, &cap, s, pos, end);
				pos = end;
			}
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < ns && sent[j].off + sent[j].len - a <= maxlen) {
			b = sent[j].off + sent[j].len;
			j++;
		}
		push_span(&v, &cnt, &cap, s, a, b);
		i = j;
	}
	free(sent);
	*out = v;
	return cnt;
}

static void add_passage(char ***v, size_t *cnt, size_t *cap, const char *s, size_t n,
                        size_t maxlen)
{
	TextSpan *ch;
	size_t nc = text_chunks(s, n, maxlen, &ch);
	for (size_t i = 0; i < nc; i++) {
		if (*cnt == *cap)
			*v = xrealloc(*v, (*cap *= 2) * sizeof **v);
		(*v)[(*cnt)++] = xstrndup(s + ch[i].off, ch[i].len);
	}
	free(ch);
}

size_t text_passages(const char *value, size_t n, size_t maxlen, char ***out)
{
	size_t cnt = 0, cap = 8;
	char **v = xmalloc(cap * sizeof *v);
	size_t i = 0;
	while (i < n && isspace((unsigned char)value[i]))
		i++;
	json_t *arr = NULL;
	if (i < n && value[i] == '[')
		arr = json_loadb(value, n, JSON_DECODE_ANY, NULL);
	if (arr && json_is_array(arr)) {
		size_t k;
		json_t *el;
		json_array_foreach(arr, k, el) {
			if (json_is_string(el)) {
				add_passage(&v, &cnt, &cap, json_string_value(el), json_string_length(el), maxlen);
			} else if (json_is_number(el)) {
				char buf[64];
				int len = snprintf(buf, sizeof buf, "%.15g", json_number_value(el));
				add_passage(&v, &cnt, &cap, buf, (size_t)len, maxlen);
			}
		}
	} else {
		add_passage(&v, &cnt, &cap, value, n, maxlen);
	}
	json_decref(arr);
	*out = v;
	return cnt;
}

void text_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- relevance ---- */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void text_query_init(TextQuery *q, const TextTerms *terms)
{
	q->v = xmalloc(((size_t)terms->n + 1) * sizeof *q->v);
	for (int i = 0; i < terms->n; i++)
		q->v[i] = terms->v[i];
	qsort(q->v, (size_t)terms->n, sizeof *q->v, by_str);
	q->n = 0;
	for (int i = 0; i < terms->n; i++)
		if (q->n == 0 || strcmp(q->v[q->n - 1], q->v[i]) != 0)
			q->v[q->n++] = q->v[i];
	q->cnt = xcalloc((size_t)q->n + 1, sizeof *q->cnt);
}

void text_query_free(TextQuery *q)
{
	free(q->v);
	free(q->cnt);
	q->v = NULL;
	q->cnt = NULL;
	q->n = 0;
}

int text_query_count(TextQuery *q, const TextTerms *t, int *ix, int *tf)
{
	int n = 0;
	for (int m = 0; m < t->n && q->n > 0; m++) {
		const char *key = t->v[m];
		const char **hit = bsearch(&key, q->v, (size_t)q->n, sizeof *q->v, by_str);
		if (!hit)
			continue;
		int k = (int)(hit - q->v);
		if (q->cnt[k]++ == 0)
			ix[n++] = k;
	}
	for (int i = 0; i < n; i++) {
		tf[i] = q->cnt[ix[i]];
		q->cnt[ix[i]] = 0;
	}
	return n;
}

void text_bm25(const TextTerms *query, const TextTerms *passages, size_t np, double *scores)
{
	const double k1 = 1.2, b = 0.75;
	double avg = 0;
	for (size_t i = 0; i < np; i++) {
		avg += passages[i].n;
		scores[i] = 0;
	}
	if (np == 0 || query->n == 0)
		return;
	avg = avg / (double)np;
	if (avg <= 0)
		avg = 1;
	TextQuery q;
	text_query_init(&q, query);
	size_t *df = xcalloc((size_t)q.n + 1, sizeof *df);
	int *ix = xmalloc(((size_t)q.n + 1) * sizeof *ix), *tf = xmalloc(((size_t)q.n + 1) * sizeof *tf);
	for (size_t i = 0; i < np; i++) {
		int m = text_query_count(&q, &passages[i], ix, tf);
		for (int j = 0; j < m; j++)
			df[ix[j]]++;
	}
	for (size_t i = 0; i < np; i++) {
		int m = text_query_count(&q, &passages[i], ix, tf);
		double norm = k1 * (1 - b + b * passages[i].n / avg);
		for (int j = 0; j < m; j++) {
			double d = (double)df[ix[j]];
			double idf = log(((double)np - d + 0.5) / (d + 0.5) + 1.0);
			scores[i] += idf * tf[j] * (k1 + 1) / (tf[j] + norm);
		}
	}
	free(df);
	free(ix);
	free(tf);
	text_query_free(&q);
}

char *text_fts_query(const char *question)
{
	TextTok *tok;
	size_t nt = text_tokens(question, strlen(question), &tok);
	SBuf b = SBUF_INIT;
	for (size_t i = 0; i < nt; i++) {
		const char *w = question + tok[i].off;
		size_t len = tok[i].len;
		if (text_is_stopword(w, len) || text_is_negation(w, len))
			continue;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = tok[j].len == len && strncasecmp(question + tok[j].off, w, len) == 0;
		if (seen)
			continue;
		if (b.len)
			sb_puts(&b, " OR ");
		sb_putc(&b, '"');
		for (size_t k = 0; k < len; k++) {
			if (w[k] == '"')
				sb_putc(&b, '"');
			sb_putc(&b, (char)tolower((unsigned char)w[k]));
		}
		sb_putc(&b, '"');
	}
	free(tok);
	return b.len ? sb_steal(&b) : (sb_free(&b), NULL);
}

/* ---- similarity ---- */

int text_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = xmalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int sub = prev + (a[i - 1] != b[j - 1]);
			int del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	int d = row[lb];
	free(row);
	return d;
}

/* Stems of every word (stop words kept: "coffee & tea" keeps both), space-joined. */
static void norm_stems(const char *s, TextTerms *t, SBuf *joined)
{
	TextTok *tok;
	size_t nt = text_tokens(s, strlen(s), &tok);
	for (size_t i = 0; i < nt; i++) {
		char *st = text_stem(s + tok[i].off, tok[i].len);
		if (joined->len)
			sb_putc(joined, ' ');
		sb_puts(joined, st);
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 8;
			t->v = xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
		}
		t->v[t->n++] = st;
	}
	free(tok);
}

double text_similarity(const char *a, const char *b)
{
	TextTerms ta = TEXT_TERMS_INIT, tb = TEXT_TERMS_INIT;
	SBuf ja = SBUF_INIT, jb = SBUF_INIT;
	norm_stems(a, &ta, &ja);
	norm_stems(b, &tb, &jb);
	double best = 0;
	if (ta.n && tb.n) {
		if (strcmp(sb_str(&ja), sb_str(&jb)) == 0) {
			best = 1.0;
		} else {
			int inter = 0;
			for (int i = 0; i < ta.n; i++)
				inter += text_terms_has(&tb, ta.v[i]);
			int uni = ta.n + tb.n - inter;
			double jac = uni ? (double)inter / uni : 0;
			/* one side's words all inside the other's: "coffee" in "coffee & tea" */
			double contain = (inter == ta.n || inter == tb.n) && inter > 0 ? 0.75 : 0;
			size_t la = ja.len, lb = jb.len, mx = la > lb ? la : lb;
			double ed = mx ? 1.0 - (double)text_edit_distance(sb_str(&ja), sb_str(&jb)) / (double)mx
			               : 0;
			best = jac;
			if (contain > best)
				best = contain;
			if (0.9 * ed > best)
				best = 0.9 * ed;
		}
	}
	text_terms_free(&ta);
	text_terms_free(&tb);
	sb_free(&ja);
	sb_free(&jb);
	return best;
}
