/*
 * eval_metric.c: the scores of the evaluation harness.
 *
 * Answers are scored as HybridQA's official script scores them (it is SQuAD's): both the
 * prediction and each gold answer are normalised (lower case; every ASCII punctuation
 * character removed; the words "a", "an" and "the" removed where they stand as whole words;
 * runs of blanks made one space), exact match is 1 when the normalised strings are equal,
 * and token F1 is the harmonic mean of precision and recall of the tokens the two share
 * (as multisets); when either has no token, F1 is 1 if both have none, else 0. The best over
 * the gold answers counts. The script works on Python strings, so this file works on wide
 * characters decoded from UTF-8 under the C.UTF-8 locale: towlower is Python's lower(),
 * iswalnum decides Python's \w for the word boundaries of the articles, and blanks are
 * exactly those Python's str.split() splits on (no-break spaces included).
 *
 * Sets of rows are scored by their keys: a predicted key in the gold set is a true
 * positive, else a false positive; a gold key not predicted is a false negative. Precision
 * at k looks at the first k distinct predictions in the order they came.
 */
#include "base/util.h"
#include "eval/eval.h"

#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

/* The C.UTF-8 locale, made once (NULL when the system has none: ASCII rules then). */
static locale_t utf8_locale(void)
{
	static locale_t loc;
	static int tried;
	if (!tried) {
		tried = 1;
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
		if (!loc)
			loc = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
	}
	return loc;
}

/* Python's str.isspace(), the blanks str.split() splits on. */
static int py_space(wint_t c)
{
	return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
	       c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	       c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Python's string.punctuation: the ASCII punctuation characters. */
static int py_punct(wint_t c)
{
	return c < 0x80 && c > 0x20 && c != 0x7f && !((c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* A character of \w: a letter or digit in any script, or '_'. */
static int py_word(wint_t c)
{
	return c == '_' || iswalnum(c);
}

/* text decoded into wide characters (invalid bytes become U+FFFD); *n is the count. */
static wchar_t *decode(const char *s, size_t *n)
{
	size_t len = strlen(s), o = 0;
	wchar_t *w = xcalloc(len + 1, sizeof *w);
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (size_t i = 0; i < len;) {
		wchar_t c;
		size_t k = mbrtowc(&c, s + i, len - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			c = (unsigned char)s[i] < 0x80 ? (wchar_t)(unsigned char)s[i] : 0xfffd;
			k = 1;
		}
		w[o++] = c;
		i += k;
	}
	*n = o;
	return w;
}

char *eval_normalize(const char *s)
{
	locale_t loc = utf8_locale(), old = loc ? uselocale(loc) : (locale_t)0;
	size_t n;
	wchar_t *w = decode(s ? s : "", &n);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {   /* lower case, punctuation out */
		wint_t c = towlower((wint_t)w[i]);
		if (!py_punct(c))
			w[o++] = (wchar_t)c;
	}
	n = o;
	for (size_t i = 0; i < n;) {   /* whole words a, an, the become a blank */
		if (!py_word((wint_t)w[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && py_word((wint_t)w[j]))
			j++;
		if ((j - i == 1 && w[i] == L'a') ||
		    (j - i == 2 && w[i] == L'a' && w[i + 1] == L'n') ||
		    (j - i == 3 && w[i] == L't' && w[i + 1] == L'h' && w[i + 2] == L'e'))
			for (size_t k = i; k < j; k++)
				w[k] = L' ';
		i = j;
	}
	SBuf b = SBUF_INIT;
	sb_puts(&b, "");
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (size_t i = 0; i < n;) {   /* words joined by one space */
		while (i < n && py_space((wint_t)w[i]))
			i++;
		if (i >= n)
			break;
		if (b.len)
			sb_putc(&b, ' ');
		while (i < n && !py_space((wint_t)w[i])) {
			char mb[MB_LEN_MAX];
			size_t k = wcrtomb(mb, w[i], &st);
			if (k == (size_t)-1) {
				memset(&st, 0, sizeof st);
				sb_puts(&b, "\xef\xbf\xbd");
			} else {
				sb_putn(&b, mb, k);
			}
			i++;
		}
	}
	free(w);
	if (loc)
		uselocale(old);
	return sb_steal(&b);
}

static double exact1(const char *pred, const char *gold)
{
	char *a = eval_normalize(pred), *b = eval_normalize(gold);
	double r = strcmp(a, b) == 0;
	free(a);
	free(b);
	return r;
}

/* The tokens of a normalised string, split at its single spaces (in place). */
static int tokens(char *s, char ***out)
{
	int n = 0, cap = 8;
	char **v = xmalloc((size_t)cap * sizeof *v);
	for (char *p = s; *p;) {
		char *e = strchr(p, ' ');
		if (e)
			*e = '\0';
		if (n == cap) {
			cap *= 2;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		v[n++] = p;
		p = e ? e + 1 : p + strlen(p);
	}
	*out = v;
	return n;
}

static double f1_1(const char *pred, const char *gold)
{
	char *a = eval_normalize(pred), *b = eval_normalize(gold);
	char **pt, **gt;
	int np = tokens(a, &pt), ng = tokens(b, &gt);
	double r;
	if (np == 0 || ng == 0) {
		r = np == ng;
	} else {
		/* the multiset intersection: each gold token matches one prediction token */
		char *used = xcalloc((size_t)np, 1);
		int same = 0;
		for (int g = 0; g < ng; g++)
			for (int p = 0; p < np; p++)
				if (!used[p] && strcmp(pt[p], gt[g]) == 0) {
					used[p] = 1;
					same++;
					break;
				}
		free(used);
		double prec = (double)same / np, rec = (double)same / ng;
		r = same ? 2 * prec * rec / (prec + rec) : 0;
	}
	free(pt);
	free(gt);
	free(a);
	free(b);
	return r;
}

/* The best score of pred over the gold answers. */
static double best(double (*score)(const char *, const char *), const char *pred,
                   const char *const *gold, int ngold)
{
	double b = 0;
	for (int i = 0; i < ngold; i++) {
		double v = score(pred ? pred : "", gold[i] ? gold[i] : "");
		if (v > b)
			b = v;
	}
	return b;
}

double eval_exact(const char *pred, const char *const *gold, int ngold)
{
	return best(exact1, pred, gold, ngold);
}

double eval_f1(const char *pred, const char *const *gold, int ngold)
{
	return best(f1_1, pred, gold, ngold);
}

static int in_list(const char *s, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] && strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

void eval_set_score(const char *const *pred, int npred, const char *const *gold, int ngold,
                    int k, EvalSetScore *out)
{
	memset(out, 0, sizeof *out);
	const char **seen = xcalloc((size_t)npred + 1, sizeof *seen);
	int nseen = 0;
	for (int i = 0; i < npred; i++) {
		if (!pred[i] || in_list(pred[i], seen, nseen))
			continue;
		seen[nseen++] = pred[i];
		int hit = in_list(pred[i], gold, ngold);
		if (hit)
			out->tp++;
		else
			out->fp++;
		if (nseen <= k) {
			out->n_k++;
			out->hits_k += hit;
		}
	}
	for (int g = 0; g < ngold; g++)   /* gold keys are distinct (the reader makes sure) */
		if (gold[g] && !in_list(gold[g], seen, nseen))
			out->fn++;
	free(seen);
}
