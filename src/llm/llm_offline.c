/*
 * llm_offline.c: the offline backend: deterministic answers from classic text techniques,
 * used when no endpoint is configured (or with --offline). It is labelled "offline (lexical,
 * no language model)" wherever results are shown, and it never reads a prompt: it works
 * from the structured task.
 *
 * How it decides (doc/llm.md says the same for users):
 * - The question is read into focus words: its content stems, minus sentiment words ("good",
 *   "rude") and, when anything else is left, generic words ("restaurant", "place", "serve").
 *   A question carrying sentiment ("Is the service good?") remembers its sign.
 * - A sentence of the candidate's text matches a focus word through the same stem or the
 *   related-words table; its coverage is the share of focus words it matches. The sentences
 *   with the highest coverage (at least half of the focus words) are the evidence.
 * - Yes/no: each evidence sentence votes. With a sentiment question, the vote is the sign of
 *   the sentence's sentiment (negation flips a word's sentiment; after "but" the clause that
 *   follows decides) times the question's; a question of sentiment alone ("does the
 *   reviewer recommend it?") has no focus words and takes every sentence with sentiment as
 *   evidence. A question of degree ("is the wait short?") is answered by how much of the
 *   thing each sentence tells of: a degree word of the same or opposite group, or, without
 *   one, none of it when the thing is negated ("never had to wait") and much of it
 *   otherwise. Other sentences vote -1 when a matched word is negated ("not romantic at
 *   all") or is an opposite ("loud" for "quiet"; "wasn't loud" is then +1), else +1. More
 *   yes than no votes answers yes, more no votes no; no evidence or a tie is unknown.
 * - VERIFY compares that answer with the expected value ('No' inverts); unknown fails every
 *   comparison, as the prompt tells a model. An expected value other than yes/no passes
 *   when a sentence matching a focus word (any sentence when none does) contains it, word by
 *   word and stem by stem ('Rio' in "born in Rio").
 * - EXTRACT: each field is a typed ANSWER of its own (its description, else its name in
 *   words; bool fields as yes/no questions), the object checked by the reply rules.
 * - ANSWER: a yes/no question gets Yes, No or unknown; a typed answer is the date or number
 *   nearest to a focus word in the best-ranked sentence that has one (coverage, then BM25,
 *   then order); any other answer is the best-ranked sentence itself, or unknown when none
 *   matches. With options (a constrained answer), yes/no options take the yes/no answer,
 *   numbers the typed answer when it is one of them, and other options the one named most
 *   often in the sentences about the question (none, or a tie: NULL).
 * - SUMMARY: the most central sentences (summed word overlap with the others), kept in their
 *   original order, no repeats, within a word budget.
 * - CLASSIFY: permitted values equal to the literal (ignoring case and plurals) win alone;
 *   otherwise every value scoring 0.7 or more by text_similarity, or related through the
 *   table, is chosen; possibly none.
 */
#include "base/text.h"
#include "base/util.h"
#include "llm/llm_int.h"
#include "llm/spec.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Query {
	char **focus;
	int nfocus;
	int qs;        /* sentiment of the question: +1, -1, 0 */
	int qneg;      /* the question is negated ("Is it not ...?") */
	int yesno;     /* starts like a yes/no question */
	int year;      /* asks for a year */
	int degree;    /* the focus word that asks how much ("is the wait short?"); -1: none */
	int dsign;     /* its off_degree: -1 little, +1 much */
	TextTerms terms;
} Query;

static int is_aux(const char *w, size_t n)
{
	static const char *const aux[] = {"is", "are", "was", "were", "do", "does", "did", "can",
		"could", "has", "have", "had", "will", "would", "should", "may", "might", "shall",
		"am", "isn't", "aren't", "doesn't", "don't", "didn't", "wasn't", NULL};
	for (int i = 0; aux[i]; i++)
		if (str_nieq(w, n, aux[i]))
			return 1;
	return 0;
}

static void query_init(Query *q, const char *question)
{
	memset(q, 0, sizeof *q);
	if (!question)
		question = "";
	OffWord *w;
	int nw;
	off_words(question, strlen(question), &w, &nw);
	q->yesno = nw > 0 && is_aux(question + w[0].off, w[0].len);
	q->degree = -1;
	int senti = 0;
	for (int i = 0; i < nw; i++)
		senti |= w[i].senti != 0;
	q->focus = xcalloc((size_t)nw + 1, sizeof *q->focus);
	/* the second pass takes generic words back when nothing else is left, except in a
	   question of sentiment alone ("does the reviewer recommend it?"): there the text's
	   sentiment answers, wherever it is said */
	for (int pass = 0; pass < 2 - senti && q->nfocus == 0; pass++) {
		for (int i = 0; i < nw; i++) {
			if (w[i].stop || w[i].isneg || (pass == 0 && is_aux(question + w[i].off, w[i].len)))
				continue;
			if (w[i].senti)
				continue;
			if (pass == 0 && off_generic(w[i].stem))
				continue;
			int dup = 0;
			for (int k = 0; k < q->nfocus; k++)
				dup |= strcmp(q->focus[k], w[i].stem) == 0;
			if (!dup)
				q->focus[q->nfocus++] = xstrdup(w[i].stem);
		}
	}
	for (int i = 0; i < nw; i++) {
		if (w[i].senti)
			q->qs += w[i].neg ? -w[i].senti : w[i].senti;
		if (w[i].isneg)
			q->qneg = 1;
		if (strcmp(w[i].stem, "year") == 0)
			q->year = 1;
	}
	q->qs = q->qs > 0 ? 1 : q->qs < 0 ? -1 : 0;
	for (int i = 0; i < q->nfocus; i++) {
		off_terms_add(&q->terms, q->focus[i]);
		if (q->degree < 0 && q->nfocus > 1 && off_degree(q->focus[i])) {
			q->degree = i;
			q->dsign = off_degree(q->focus[i]);
		}
	}
	off_words_free(w, nw);
}

static void query_free(Query *q)
{
	for (int i = 0; i < q->nfocus; i++)
		free(q->focus[i]);
	free(q->focus);
	text_terms_free(&q->terms);
}

/* Coverage of the focus words by sentence s, its vote, and where the first match is. */
typedef struct Match {
	double cover;
	int vote;
	size_t pos;
	double bm25;
	int idx;
} Match;

static Match match(const Query *q, const OffSent *s)
{
	Match m = {0};
	m.pos = (size_t)-1;
	int matched = 0, negated = 0, sent = 0, after = 0;
	/* the sentence's sentiment; after a contrast ("I wanted to love it, but it runs
	   small"), the clause after it when that clause has any */
	for (int i = 0; i < s->nw; i++) {
		if (off_contrast(s->s + s->w[i].off, s->w[i].len)) {
			sent += after;
			after = 0;
			continue;
		}
		if (!s->w[i].stop)
			after += s->w[i].neg ? -s->w[i].senti : s->w[i].senti;
	}
	sent = after ? after : sent;
	if (q->nfocus == 0) {
		m.cover = q->qs && sent ? 1 : 0;
		m.vote = (sent > 0 ? 1 : -1) * q->qs;
		m.pos = 0;
		return m;
	}
	/* stance of the sentence on the degree word: +1 much, -1 little, 0 unsaid */
	int stance = 0, head = 0, head_neg = 0;
	for (int f = 0; f < q->nfocus; f++) {
		for (int i = 0; i < s->nw; i++) {
			const OffWord *w = &s->w[i];
			if (w->stop || w->isneg)
				continue;
			int r = off_related(q->focus[f], w->stem);
			if (!r)
				continue;
			matched++;
			int sign = r * (w->neg ? -1 : 1);
			if (sign < 0)
				negated = 1;
			if (f == q->degree)
				stance = sign * q->dsign;
			else
				head = 1, head_neg |= w->neg;
			if (w->off < m.pos)
				m.pos = w->off;
			break;
		}
	}
	if (q->degree >= 0 && !head && stance) {
		matched--;   /* how much of something else: "the short rib" says nothing of a wait */
		stance = 0;
	} else if (q->degree >= 0 && head && !stance) {
		/* the thing itself is mentioned but not how much of it: none of it ("never had
		   to wait") is as little as can be; speaking of it at all ("we waited for our
		   table") tells of much of it */
		stance = head_neg ? -1 : 1;
		matched++;
	}
	m.cover = (double)matched / q->nfocus;
	if (q->qs && sent)
		m.vote = (sent > 0 ? 1 : -1) * q->qs;
	else if (q->degree >= 0 && stance)
		m.vote = stance == q->dsign ? 1 : -1;
	else
		m.vote = negated ? -1 : 1;
	return m;
}

static int cmp_match(const void *a, const void *b)
{
	const Match *x = a, *y = b;
	if (x->cover != y->cover)
		return x->cover > y->cover ? -1 : 1;
	if (x->bm25 != y->bm25)
		return x->bm25 > y->bm25 ? -1 : 1;
	return x->idx - y->idx;
}

/* The sentences ranked: coverage, then BM25 of the focus words, then order. Heap array. */
static Match *rank(const Query *q, const OffDoc *d)
{
	Match *m = xcalloc((size_t)d->n + 1, sizeof *m);
	TextTerms *t = xcalloc((size_t)d->n + 1, sizeof *t);
	double *sc = xcalloc((size_t)d->n + 1, sizeof *sc);
	for (int i = 0; i < d->n; i++)
		t[i] = d->v[i].terms;
	text_bm25(&q->terms, t, (size_t)d->n, sc);
	for (int i = 0; i < d->n; i++) {
		m[i] = match(q, &d->v[i]);
		m[i].bm25 = sc[i];
		m[i].idx = i;
	}
	qsort(m, (size_t)d->n, sizeof *m, cmp_match);
	free(t);
	free(sc);
	return m;
}

/* 1 yes, -1 no, 0 unknown: the text says nothing about it, or as much for as against.
   *ev: the first evidence sentence that voted as the answer went (-1: none). */
static int decide(const Query *q, const OffDoc *d, int *ev)
{
	double best = 0;
	int votes = 0;
	*ev = -1;
	for (int i = 0; i < d->n; i++) {
		Match m = match(q, &d->v[i]);
		if (m.cover < 0.5 || m.cover < best - 1e-9)
			continue;
		if (m.cover > best + 1e-9) {
			best = m.cover;
			votes = 0;
		}
		votes += m.vote;
	}
	if (best == 0 || votes == 0)
		return 0;
	for (int i = 0; i < d->n && *ev < 0; i++) {
		Match m = match(q, &d->v[i]);
		if (m.cover > best - 1e-9 && (m.vote > 0) == (votes > 0))
			*ev = i;
	}
	int yes = votes > 0;
	return (q->qneg ? !yes : yes) ? 1 : -1;
}

/* The sentence that decided, as the item's evidence. */
static void evidence(LlmItem *it, const OffDoc *d, int ev)
{
	if (ev >= 0 && ev < d->n)
		it->evidence = xstrndup(d->v[ev].s, d->v[ev].len);
}

static int is_yes(const char *v)
{
	return str_ieq(v, "yes") || str_ieq(v, "true") || strcmp(v, "1") == 0;
}

static int is_yes_no(const char *v)
{
	return v && (is_yes(v) || str_ieq(v, "no") || str_ieq(v, "false") || strcmp(v, "0") == 0);
}

/* Does sentence s contain the words of value v, in a row (stem by stem)? */
static int contains(const OffSent *s, const char *v)
{
	OffWord *w;
	int nw;
	off_words(v, strlen(v), &w, &nw);
	int hit = 0;
	for (int i = 0; nw > 0 && i + nw <= s->nw && !hit; i++) {
		int ok = 1;
		for (int k = 0; k < nw && ok; k++)
			ok = strcmp(s->w[i + k].stem, w[k].stem) == 0;
		hit = ok;
	}
	off_words_free(w, nw);
	return hit;
}

static int relevant(const Query *q, const Match *m)
{
	return q->nfocus == 0 || m->cover > 0;
}

/* The comparison is negative: <>, != or NOT IN. */
static int op_negated(const LlmCall *c)
{
	const char *op = c->op ? c->op : "=";
	return strcmp(op, "<>") == 0 || strcmp(op, "!=") == 0 || str_ieq(op, "NOT IN");
}

/* Passes for a value other than yes/no. */
static int verify_value(const Query *q, const OffDoc *d, const LlmCall *c)
{
	int *rel = xcalloc((size_t)d->n + 1, sizeof *rel);
	int none = 1, any_rel = 0, hit = 0;
	for (int i = 0; i < d->n; i++) {
		Match m = match(q, &d->v[i]);
		rel[i] = relevant(q, &m);
		none &= !rel[i];
	}
	/* when the question's words appear nowhere ("Which city?" of "in Lyon"), any sentence
	   may hold the value */
	for (int i = 0; i < d->n; i++) {
		if (!none && !rel[i])
			continue;
		any_rel = 1;
		for (int e = 0; e < c->nexpected && !hit; e++)
			hit = c->expected[e] && contains(&d->v[i], c->expected[e]);
	}
	free(rel);
	return op_negated(c) ? any_rel && !hit : hit;
}

static void verify_item(const LlmCall *c, const Query *q, LlmItem *it)
{
	OffDoc d;
	off_doc(it->passages, it->npassages, &d);
	int yn_expected = c->nexpected == 0;
	for (int e = 0; e < c->nexpected; e++)
		yn_expected |= is_yes_no(c->expected[e]);
	int pass;
	if (yn_expected) {
		/* a text that does not say fails any comparison, as the prompt tells a model */
		int ev;
		int ans = decide(q, &d, &ev);
		if (ans != 0)
			evidence(it, &d, ev);
		int eq = c->nexpected == 0 ? ans > 0 : 0;
		for (int e = 0; e < c->nexpected; e++)
			eq |= is_yes_no(c->expected[e]) && (is_yes(c->expected[e]) ? 1 : -1) == ans;
		pass = ans != 0 && (op_negated(c) ? !eq : eq);
	} else {
		pass = verify_value(q, &d, c);
	}
	it->verdict = pass;
	it->text = xstrdup(pass ? "yes" : "no");
	it->value = xstrdup(pass ? "Yes" : "No");
	off_doc_free(&d);
}

/* The date or number nearest to pos in sentence s (skipping numbers inside dates unless
   the question asks for a year). Returns 1 with text and value set. */
static int typed_in(const Query *q, LlmShape shape, const OffSent *s, size_t pos, char **text,
                    char **value)
{
	size_t at, len, best_d = (size_t)-1;
	size_t from = 0;
	char iso[11];
	int prec;
	if (shape == LLM_SHAPE_DATE || (q->year && shape == LLM_SHAPE_INT)) {
		while (llm_next_date(s->s, s->len, from, iso, &prec, &at, &len)) {
			size_t dist = pos == (size_t)-1 ? at : at > pos ? at - pos : pos - at;
			if (dist < best_d) {
				best_d = dist;
				free(*text);
				free(*value);
				*text = xstrndup(s->s + at, len);
				*value = shape == LLM_SHAPE_DATE ? xstrdup(iso) : xstrndup(iso, 4);
			}
			from = at + len;
		}
		return best_d != (size_t)-1;
	}
	/* spans of dates, so that "31" of "31 January 1979" is not taken for a count */
	size_t ds[16][2];
	int nd = 0;
	while (nd < 16 && llm_next_date(s->s, s->len, from, iso, &prec, &at, &len)) {
		ds[nd][0] = at;
		ds[nd++][1] = at + len;
		from = at + len;
	}
	from = 0;
	double v;
	int is_int;
	while (llm_next_number(s->s, s->len, from, &v, &is_int, &at, &len)) {
		from = at + len;
		int in_date = 0;
		for (int k = 0; k < nd; k++)
			in_date |= at >= ds[k][0] && at < ds[k][1];
		if (in_date)
			continue;
		size_t dist = pos == (size_t)-1 ? at : at > pos ? at - pos : pos - at;
		if (dist < best_d) {
			best_d = dist;
			free(*text);
			free(*value);
			*text = xstrndup(s->s + at, len);
			*value = shape == LLM_SHAPE_REAL ? xprintf("%.15g", v)
			                                 : xprintf("%lld", (long long)v);
		}
	}
	return best_d != (size_t)-1;
}

/* Whether any sentence of d holds a word of the question (or, for a question of
   sentiment alone, says anything good or bad). */
static int any_word(const Query *q, const OffDoc *d)
{
	for (int i = 0; i < d->n; i++) {
		Match m = match(q, &d->v[i]);
		if (m.cover > 0)
			return 1;
	}
	return 0;
}

/* Why an answer is unknown, as the offline backend can tell it (LlmItem.note): what it
   looked for and did not find. what: what the sentences lacked ("a date"); NULL for a
   yes/no question. */
static char *unknown_note(const Query *q, const OffDoc *d, const char *what)
{
	if (d->n == 0)
		return xstrdup("the offline backend found no sentence in the text");
	if (q->nfocus == 0 && !q->qs)
		return xstrdup("the question has no word the offline backend can look for (only "
		               "common words)");
	if (!any_word(q, d))
		return xstrdup(q->nfocus ? "the offline backend found no word of the question in "
		               "the text" : "the offline backend found nothing good or bad said in "
		               "the text");
	if (!what)
		return xstrdup("the offline backend found the question's words, but the sentences "
		               "that hold them say neither yes nor no (or as much for as against)");
	return xprintf("the offline backend found the question's words, but no sentence that "
	               "holds them has %s", what);
}

static void answer_item(const LlmCall *c, const Query *q, LlmItem *it)
{
	OffDoc d;
	off_doc(it->passages, it->npassages, &d);
	LlmShape sh = c->shape;
	if (sh == LLM_SHAPE_YESNO || sh == LLM_SHAPE_BOOL || (q->yesno && sh == LLM_SHAPE_TEXT)) {
		int ev;
		int ans = decide(q, &d, &ev);
		if (ans != 0)
			evidence(it, &d, ev);
		it->text = xstrdup(ans > 0 ? "Yes" : ans < 0 ? "No" : "unknown");
		llm_convert(sh == LLM_SHAPE_TEXT ? LLM_SHAPE_YESNO : sh, it->text, &it->value,
		            &it->warning);
		if (ans == 0)
			it->note = unknown_note(q, &d, NULL);
		off_doc_free(&d);
		return;
	}
	Match *m = rank(q, &d);
	if (sh == LLM_SHAPE_DATE || sh == LLM_SHAPE_INT || sh == LLM_SHAPE_REAL) {
		/* ranked relevant sentences first, then the rest in order */
		for (int pass = 0; pass < 2 && !it->text; pass++)
			for (int i = 0; i < d.n && !it->text; i++) {
				const Match *x = pass == 0 ? &m[i] : NULL;
				if (pass == 0 && !relevant(q, x))
					continue;
				int idx = pass == 0 ? x->idx : i;
				typed_in(q, sh, &d.v[idx], pass == 0 ? x->pos : (size_t)-1, &it->text,
				         &it->value);
			}
	} else if (d.n > 0 && relevant(q, &m[0]) && q->nfocus > 0) {
		it->text = xstrndup(d.v[m[0].idx].s, d.v[m[0].idx].len);
		llm_convert(sh, it->text, &it->value, &it->warning);
	}
	if (!it->text) {
		it->text = xstrdup("unknown");   /* the text does not say: NULL, no warning */
		it->note = unknown_note(q, &d, sh == LLM_SHAPE_DATE ? "a date" : sh == LLM_SHAPE_INT
		                        ? "a whole number" : sh == LLM_SHAPE_REAL ? "a number"
		                        : "more than the question's words");
	}
	free(m);
	off_doc_free(&d);
}

/* The option equal to v (a number compared as a number), or NULL. */
static const char *option_for(const LlmCall *c, const char *v)
{
	for (int o = 0; v && o < c->noptions; o++) {
		char *e1, *e2;
		double a = strtod(v, &e1), b = strtod(c->options[o], &e2);
		if (str_ieq(v, c->options[o]) || (*v && !*e1 && *c->options[o] && !*e2 && a == b))
			return c->options[o];
	}
	return NULL;
}

/* A constrained answer: yes/no options take the yes/no answer, numbers the typed answer
   (when it is one of them); other options are counted in the sentences about the question
   (all of them when none is), and the one found most often is the answer. None found, a
   tie, or an answer not offered: "none" (NULL). */
static void choice_item(const LlmCall *c, const Query *q, LlmItem *it)
{
	int yn = 1, num = 1;
	for (int o = 0; o < c->noptions; o++) {
		char *e;
		yn &= is_yes_no(c->options[o]);
		strtod(c->options[o], &e);
		num &= *c->options[o] && !*e;
	}
	const char *pick = NULL;
	if (yn || num) {
		LlmCall typed = *c;
		typed.shape = yn ? LLM_SHAPE_YESNO : LLM_SHAPE_REAL;
		LlmItem t = {.passages = it->passages, .npassages = it->npassages};
		answer_item(&typed, q, &t);
		pick = option_for(c, t.value);
		if (yn && !pick && t.value)   /* "Yes" offered as "true", "1", ... */
			for (int o = 0; o < c->noptions && !pick; o++)
				if (is_yes(c->options[o]) == is_yes(t.value))
					pick = c->options[o];
		if (pick)   /* the sentence that decided the yes/no or the number decided this */
			it->evidence = t.evidence;
		else
			free(t.evidence);
		if (!pick)
			it->note = t.note ? t.note : xstrdup("the offline backend's answer is none of the "
			                                     "allowed answers");
		else
			free(t.note);
		free(t.text);
		free(t.value);
		free(t.warning);
	} else {
		OffDoc d;
		off_doc(it->passages, it->npassages, &d);
		int none = 1, best = 0, tie = 0;
		int *rel = xcalloc((size_t)d.n + 1, sizeof *rel);
		for (int i = 0; i < d.n; i++) {
			Match m = match(q, &d.v[i]);
			rel[i] = relevant(q, &m);
			none &= !rel[i];
		}
		for (int o = 0; o < c->noptions; o++) {
			int hits = 0;
			for (int i = 0; i < d.n; i++)
				hits += (none || rel[i]) && contains(&d.v[i], c->options[o]);
			if (hits > best) {
				best = hits;
				pick = c->options[o];
				tie = 0;
			} else if (hits && hits == best) {
				tie = 1;
			}
		}
		if (tie)
			pick = NULL;
		if (!pick && best)
			it->note = xstrdup("the offline backend found two allowed answers named as often "
			                   "in the sentences about the question");
		else if (!pick && none)
			it->note = xstrdup("the offline backend found no word of the question in the "
			                   "text, and no allowed answer named in it");
		else if (!pick)
			it->note = unknown_note(q, &d, "any of the allowed answers");
		free(rel);
		off_doc_free(&d);
	}
	it->text = xstrdup(pick ? pick : "none");
	it->value = pick ? xstrdup(pick) : NULL;
}

static void summary_item(const LlmCall *c, LlmItem *it)
{
	OffDoc d;
	off_doc(it->passages, it->npassages, &d);
	int budget = llm_summary_words(c);
	/* drop repeated sentences (same words, ignoring case and punctuation) */
	int *keep = xcalloc((size_t)d.n + 1, sizeof *keep);
	double *score = xcalloc((size_t)d.n + 1, sizeof *score);
	for (int i = 0; i < d.n; i++) {
		keep[i] = 1;
		for (int j = 0; j < i && keep[i]; j++) {
			if (!keep[j] || d.v[i].nw != d.v[j].nw)
				continue;
			int same = 1;
			for (int k = 0; k < d.v[i].nw && same; k++)
				same = strcmp(d.v[i].w[k].stem, d.v[j].w[k].stem) == 0;
			keep[i] = !same;
		}
	}
	/* centrality: summed cosine overlap of content stems with every other sentence */
	for (int i = 0; i < d.n; i++) {
		if (!keep[i] || d.v[i].terms.n == 0)
			continue;
		for (int j = 0; j < d.n; j++) {
			if (j == i || !keep[j] || d.v[j].terms.n == 0)
				continue;
			int inter = 0;
			for (int k = 0; k < d.v[i].terms.n; k++)
				inter += text_terms_has(&d.v[j].terms, d.v[i].terms.v[k]);
			score[i] += inter / sqrt((double)d.v[i].terms.n * d.v[j].terms.n);
		}
	}
	int *chosen = xcalloc((size_t)d.n + 1, sizeof *chosen);
	int words = 0, nchosen = 0;
	for (;;) {
		int best = -1;
		for (int i = 0; i < d.n; i++)
			if (keep[i] && !chosen[i] && (best < 0 || score[i] > score[best] + 1e-12))
				best = i;
		if (best < 0)
			break;
		int w = d.v[best].nw;   /* off_words read every word of the sentence */
		if (nchosen > 0 && words + w > budget)
			break;
		chosen[best] = 1;
		nchosen++;
		words += w;
		keep[best] = 0;
		if (words >= budget)
			break;
	}
	SBuf out = SBUF_INIT;
	for (int i = 0; i < d.n; i++) {
		if (!chosen[i])
			continue;
		if (out.len)
			sb_putc(&out, ' ');
		sb_putn(&out, d.v[i].s, d.v[i].len);
	}
	it->text = out.len ? sb_steal(&out) : xstrdup("");
	it->value = *it->text ? xstrdup(it->text) : NULL;
	sb_free(&out);
	free(keep);
	free(score);
	free(chosen);
	off_doc_free(&d);
}

/* Is some content word of a related (table) to some content word of b? */
static int related_values(const char *a, const char *b)
{
	OffWord *wa, *wb;
	int na, nb, r = 0;
	off_words(a, strlen(a), &wa, &na);
	off_words(b, strlen(b), &wb, &nb);
	for (int i = 0; i < na && !r; i++)
		for (int j = 0; j < nb && !r; j++)
			if (!wa[i].stop && !wb[j].stop && strcmp(wa[i].stem, wb[j].stem) != 0)
				r = off_related(wa[i].stem, wb[j].stem) > 0;
	off_words_free(wa, na);
	off_words_free(wb, nb);
	return r;
}

static void classify(LlmCall *c)
{
	const char **chosen = xcalloc((size_t)c->noptions + 1, sizeof *chosen);
	int n = 0;
	for (int o = 0; o < c->noptions; o++)
		if (text_similarity(c->subject, c->options[o]) >= 1.0)
			chosen[n++] = c->options[o];
	if (n == 0)
		for (int o = 0; o < c->noptions; o++)
			if (text_similarity(c->subject, c->options[o]) >= 0.7 ||
			    related_values(c->subject, c->options[o]))
				chosen[n++] = c->options[o];
	llm_set_labels(c, chosen, n);
	json_t *arr = json_array();
	for (int i = 0; i < c->nlabels; i++)
		json_array_append_new(arr, json_string(c->labels[i]));
	c->text = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	free(chosen);
}

/* extract(): each field answered as its own question (its description, else its name in
   words; a yes/no one for bool), from the sentences that answer it; the quote is the words
   the answer was read from. */
static void extract_item(const LlmCall *c, LlmItem *it)
{
	static const LlmShape shapes[] = {LLM_SHAPE_TEXT, LLM_SHAPE_INT, LLM_SHAPE_REAL,
	                                  LLM_SHAPE_BOOL, LLM_SHAPE_DATE};
	Spec sp;
	SuqlErr err = {0};
	if (spec_parse(c->question ? c->question : "", &sp, &err) != SUQL_OK) {
		err_clear(&err);
		it->text = xstrdup("unknown");
		return;
	}
	json_t *o = json_object(), *qs = json_object();
	for (int i = 0; i < sp.n; i++) {
		const SpecField *f = &sp.f[i];
		SBuf qb = SBUF_INIT;
		if (f->type == SPEC_BOOL)
			sb_puts(&qb, "is it ");
		if (f->desc) {
			sb_puts(&qb, f->desc);
		} else {
			for (const char *p = f->name; *p; p++)
				sb_putc(&qb, *p == '_' ? ' ' : *p);
		}
		if (f->type == SPEC_BOOL)
			sb_putc(&qb, '?');
		LlmCall fc = *c;
		fc.kind = LLM_ANSWER;
		fc.shape = shapes[f->type];
		fc.question = sb_str(&qb);
		fc.noptions = 0;
		LlmItem fi = {0};
		fi.passages = it->passages;
		fi.npassages = it->npassages;
		Query q;
		query_init(&q, fc.question);
		answer_item(&fc, &q, &fi);
		query_free(&q);
		json_t *v = json_null();
		if (fi.value) {
			switch (f->type) {
			case SPEC_INT: v = json_integer(strtoll(fi.value, NULL, 10)); break;
			case SPEC_REAL: v = json_real(strtod(fi.value, NULL)); break;
			case SPEC_BOOL: v = json_boolean(str_ieq(fi.value, "1") || str_ieq(fi.value, "yes"));
				break;
			default: v = json_string(fi.value); break;
			}
		}
		json_object_set_new(o, f->name, v);
		const char *quote = fi.value ? fi.evidence ? fi.evidence : fi.text : NULL;
		json_object_set_new(qs, f->name, quote ? json_string(quote) : json_null());
		free(fi.text);
		free(fi.value);
		free(fi.warning);
		free(fi.evidence);
		free(fi.note);
		sb_free(&qb);
	}
	/* through the reply rules, as a model's object would be: quotes checked the same way */
	if (c->quotes)
		json_object_set_new(o, SPEC_QUOTES_KEY, qs);
	else
		json_decref(qs);
	char *out, *why;
	it->text = json_dumps(o, JSON_COMPACT);
	if (spec_check(&sp, o, c->quotes, it->passages, it->npassages, &out, &why))
		it->value = out;
	else
		it->warning = why;
	json_decref(o);
	spec_free(&sp);
}

static void run_job(LlmJob *job)
{
	LlmCall *c = job->call;
	double t0 = util_now_ms();
	Query q;
	/* a semantic join (VERIFY with a subject): the right value passes when its text speaks
	   of the left value's words, as a question naming them would find */
	query_init(&q, c->kind == LLM_VERIFY && c->subject ? c->subject : c->question);
	for (int k = 0; k < job->nitems; k++) {
		LlmItem *it = &c->items[job->items[k]];
		free(it->text);
		free(it->value);
		free(it->warning);
		it->text = it->value = it->warning = NULL;
		free(it->note);
		it->note = NULL;
		if (c->kind == LLM_VERIFY)
			verify_item(c, &q, it);
		else if (c->kind == LLM_ANSWER && c->noptions > 0)
			choice_item(c, &q, it);
		else if (c->kind == LLM_ANSWER)
			answer_item(c, &q, it);
		else if (c->kind == LLM_EXTRACT)
			extract_item(c, it);
		else
			summary_item(c, it);
	}
	if (c->kind == LLM_CLASSIFY)
		classify(c);
	if (c->kind == LLM_FACTOR) {   /* words alone cannot tell what a question turns on */
		free(c->text);
		c->text = xstrdup("{\"factors\":false}");
	}
	query_free(&q);
	job->status = LLM_DONE;
	c->ms = util_now_ms() - t0;
}

SuqlStatus llm_offline_run(Llm *llm, LlmJob **jobs, int n, LlmJobDoneFn done, void *ctx)
{
	int stop = 0;
	for (int i = 0; i < n; i++) {
		if (stop || suql_interrupted) {
			jobs[i]->status = LLM_CANCELLED;
			continue;
		}
		if (!llm_may_send(llm)) {   /* the statement's cap: one call is one request */
			jobs[i]->status = LLM_FAILED;
			jobs[i]->capped = 1;
			jobs[i]->error = xstrdup(LLM_CAP_MSG);
			done(ctx, jobs[i]);
			continue;
		}
		llm_count_request(llm, jobs[i]->call, LLM_REQ_FIRST);
		run_job(jobs[i]);
		llm_log_offline(llm, jobs[i]->call, jobs[i]->items, jobs[i]->nitems);
		stop |= done(ctx, jobs[i]);
	}
	return suql_interrupted ? SUQL_INTERRUPT : SUQL_OK;
}
