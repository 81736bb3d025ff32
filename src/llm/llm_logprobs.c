/*
 * llm_logprobs.c: the confidence of yes/no verdicts, read from the log-probabilities an
 * endpoint returns with a chat completion (choices[0].logprobs, asked for by llm.logprobs:
 * "logprobs": true, "top_logprobs": N).
 *
 * The block is a list of the reply's tokens, each with its text ("token", or its bytes),
 * its logprob and, optionally, the most likely tokens at that place (top_logprobs). The
 * tokens must spell the reply exactly, byte for byte; the reply's verdict words (yes, no,
 * true, false as whole words, any case) must be exactly as many as the verdicts read from
 * it, in the same order and with the same meaning; and no token may begin two of them.
 * Then the confidence of a verdict is the probability of the token that began its word,
 * normalised against the alternatives at that place that would have begun a verdict word
 * too (an alternative after the same leading characters whose first word is a start of
 * yes or true counts for yes, of no or false for no; other tokens count for neither),
 * times the probabilities of the word's further tokens. Without top_logprobs it is the
 * token's own probability.
 *
 * Only what the endpoint said counts: a block that is missing, malformed (a token without
 * text, a logprob that is not a finite number at most 0, a list that is not a list), or
 * that does not line up with the reply gives no confidence at all, never a default.
 * ENUM classifications, answers and extractions get none: a label or a value is many
 * tokens whose first is chosen among words suql cannot tell apart, and a list leaves out
 * what it does not choose without a token to weigh.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int llm_logprobs_wanted(const Llm *llm, const LlmCall *call)
{
	if (call->kind != LLM_VERIFY || llm->no_logprobs)
		return 0;
	return llm->s.logprobs == LLM_LOGPROBS_ON ||
	       (llm->s.logprobs == LLM_LOGPROBS_AUTO && llm->s.min_confidence > 0);
}

/* Logprobs a hair above 0 are rounding (some servers write 1e-9 for certainty). */
#define LP_EPSILON 1e-6

typedef struct Tok {
	size_t off, len;      /* in the spelled reply */
	double lp;
	const json_t *top;    /* its top_logprobs, an array, or NULL */
} Tok;

/* The text of a token entry: its bytes when given as a list of 0..255, else its "token"
   string; appended to b. 0 when the entry has neither. */
static int tok_text(const json_t *e, SBuf *b)
{
	const json_t *bytes = json_object_get(e, "bytes");
	if (json_is_array(bytes) && json_array_size(bytes) > 0) {
		size_t i;
		const json_t *v;
		SBuf t = SBUF_INIT;
		json_array_foreach(bytes, i, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) > 255) {
				sb_free(&t);
				return 0;
			}
			sb_putc(&t, (char)json_integer_value(v));
		}
		sb_putn(b, t.s, t.len);
		sb_free(&t);
		return 1;
	}
	const json_t *s = json_object_get(e, "token");
	if (!json_is_string(s))
		return 0;
	sb_putn(b, json_string_value(s), json_string_length(s));
	return 1;
}

/* A logprob as the block must write it: a finite number at most 0. */
static int tok_lp(const json_t *e, double *lp)
{
	const json_t *v = json_object_get(e, "logprob");
	if (!json_is_number(v))
		return 0;
	double d = json_number_value(v);
	if (!isfinite(d) || d > LP_EPSILON)
		return 0;
	*lp = d > 0 ? 0 : d;
	return 1;
}

/* The meaning of the word that s[0..n) begins (leading non-word characters skipped): 1
   when it is a start of yes or true, 0 of no or false, -1 otherwise (or when nothing of a
   word is there). */
static int word_side(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && !isalnum((unsigned char)s[i]))
		i++;
	size_t k = i;
	while (k < n && isalnum((unsigned char)s[k]))
		k++;
	size_t w = k - i;
	if (w == 0)
		return -1;
	static const char *const words[] = {"yes", "true", "no", "false"};
	for (int j = 0; j < 4; j++)
		if (w <= strlen(words[j]) && strncasecmp(s + i, words[j], w) == 0)
			return j < 2;
	return -1;
}

/* The verdict words of s: their spans and meanings, at most max; returns how many there
   are (also beyond max). */
static int verdict_words(const char *s, size_t n, size_t *at, size_t *end, int *side, int max)
{
	int k = 0;
	for (size_t i = 0; i < n;) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		size_t w = j - i;
		int v = (w == 3 && strncasecmp(s + i, "yes", 3) == 0) ||
		        (w == 4 && strncasecmp(s + i, "true", 4) == 0) ? 1
		        : (w == 2 && strncasecmp(s + i, "no", 2) == 0) ||
		          (w == 5 && strncasecmp(s + i, "false", 5) == 0) ? 0 : -1;
		if (v >= 0) {
			if (k < max) {
				at[k] = i;
				end[k] = j;
				side[k] = v;
			}
			k++;
		}
		i = j;
	}
	return k;
}

/* The normalised probability that token t (of spelled text sp) began a word meaning side,
   the word starting at byte a; -1 when its alternatives are malformed. */
static double first_prob(const Tok *t, const char *sp, size_t a, int side)
{
	double p = exp(t->lp);
	if (!t->top || json_array_size(t->top) == 0)
		return p;
	size_t lead = a - t->off;   /* the token's characters before the word */
	double same = 0, other = 0;
	int seen = 0;
	size_t i;
	const json_t *e;
	json_array_foreach(t->top, i, e) {
		SBuf b = SBUF_INIT;
		double lp;
		if (!json_is_object(e) || !tok_text(e, &b) || !tok_lp(e, &lp)) {
			sb_free(&b);
			return -1;
		}
		const char *s = b.s ? b.s : "";
		if (b.len == t->len && memcmp(s, sp + t->off, t->len) == 0)
			seen = 1;
		/* after the same leading characters, what word would it begin? */
		int alt = b.len >= lead && memcmp(s, sp + t->off, lead) == 0
		          ? word_side(s + lead, b.len - lead) : -1;
		if (alt == side)
			same += exp(lp);
		else if (alt >= 0)
			other += exp(lp);
		sb_free(&b);
	}
	if (!seen)
		same += p;
	return same + other > 0 ? same / (same + other) : -1;
}

int llm_logprobs_verdicts(const json_t *lp, const char *content, const int *verdicts, int n,
                          double *conf)
{
	for (int k = 0; k < n; k++)
		conf[k] = -1;
	const json_t *list = json_is_object(lp) ? json_object_get(lp, "content") : NULL;
	size_t nt = json_array_size(list);
	if (!json_is_array(list) || nt == 0 || n < 1 || !content)
		return 0;
	Tok *t = xcalloc(nt, sizeof *t);
	SBuf sp = SBUF_INIT;
	size_t *at = xmalloc((size_t)n * sizeof *at), *end = xmalloc((size_t)n * sizeof *end);
	int *side = xmalloc((size_t)n * sizeof *side);
	int ok = 1;
	for (size_t i = 0; i < nt && ok; i++) {
		const json_t *e = json_array_get(list, i);
		t[i].off = sp.len;
		ok = json_is_object(e) && tok_text(e, &sp) && tok_lp(e, &t[i].lp);
		t[i].len = sp.len - t[i].off;
		const json_t *top = ok ? json_object_get(e, "top_logprobs") : NULL;
		if (top && !json_is_null(top))
			ok = json_is_array(top);
		t[i].top = json_is_array(top) ? top : NULL;
	}
	size_t cn = strlen(content);
	ok = ok && sp.len == cn && memcmp(sp.s ? sp.s : "", content, cn) == 0;
	ok = ok && verdict_words(content, cn, at, end, side, n) == n;
	for (int k = 0; k < n && ok; k++)
		ok = side[k] == (verdicts[k] != 0);
	size_t ti = 0;   /* words come in order, and so do the tokens that spell them */
	for (int k = 0; k < n && ok; k++) {
		while (ti < nt && t[ti].off + t[ti].len <= at[k])
			ti++;
		/* no token may begin two words: the first token of this one begins after the
		   previous word's end */
		ok = ti < nt && (k == 0 || t[ti].off >= end[k - 1]);
		if (!ok)
			break;
		double p = first_prob(&t[ti], sp.s ? sp.s : "", at[k], side[k]);
		for (size_t j = ti + 1; j < nt && t[j].off < end[k] && p >= 0; j++)
			p *= exp(t[j].lp);
		ok = p >= 0 && isfinite(p);
		conf[k] = p > 1 ? 1 : p;
	}
	free(t);
	sb_free(&sp);
	free(at);
	free(end);
	free(side);
	if (!ok) {   /* nothing half-read */
		for (int k = 0; k < n; k++)
			conf[k] = -1;
		return 0;
	}
	return n;
}
