/*
 * llm_offline_lex.c: how the offline backend reads words: negation scope, a small sentiment
 * list, and a small table of related words, so that "good for kids" meets "family-friendly"
 * and "quiet" meets "wasn't loud". The tables are written as plain words and stemmed once
 * with the same Snowball stemmer as everything else, so "parking" meets "park".
 *
 * Degree words say how much there is of the thing asked about: "short" (little of it) and
 * "long" (much of it), as in "is the wait short?". off_degree names them for llm_offline.c.
 *
 * Negation scope: a negation word (not, no, never, n't, without, ...) negates the next four
 * words of its clause; a comma, semicolon, colon, parenthesis, dash or one of "but",
 * "although", "though", "however", "yet", "except", "whereas" ends the clause.
 *
 * doc/llm.md lists these tables; keep the two in step.
 */
#include "base/text.h"
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NEG_SCOPE 4

/* Words that mean nearly the same in reviews and descriptions; one group per line. */
static const char *const related_words[] = {
	"kid kids child children family families toddler toddlers baby babies stroller highchair",
	"romantic romance date intimate anniversary candlelit couple couples",
	"park parking garage valet",
	"quiet calm peaceful tranquil hushed",
	"loud noisy noise deafening raucous boisterous",
	"wait waiting line queue waitlist",
	"cheap inexpensive affordable budget bargain",
	"expensive pricey overpriced costly splurge",
	"vegan plant",
	"vegetarian veggie meatless",
	"wifi internet",
	"outdoor outdoors outside patio terrace garden sidewalk alfresco fresco rooftop courtyard",
	"dog dogs pet pets puppy",
	"fast quick quickly prompt speedy",
	"slow slowly sluggish",
	"clean spotless tidy hygienic",
	"dirty filthy grimy",
	"spicy hot fiery",
	"coffee cafe café espresso latte cappuccino coffeehouse",
	"bar pub tavern cocktail cocktails",
	"view views scenic vista",
	"breakfast brunch",
	"found founded establish established",
	"born birth",
	"die died death",
	"price prices cost costs priced",
	"seat seats seating capacity",
	"pizza pizzeria",
	"service staff waiter waitress waiters server servers waitstaff",
	"reservation reservations booking reserve",
	"music band dj",
	"accessible wheelchair ramp",
	"easy easily simple painless convenient",
	"hard difficult tough nightmare impossible tricky challenging",
	/* degree: how much of something there is (off_degree) */
	"short brief little minimal",
	"long lengthy forever ages endless",
	NULL,
};

/* Pairs of groups above (by their first word) that mean the opposite. */
static const char *const opposite_words[][2] = {
	{"quiet", "loud"}, {"cheap", "expensive"}, {"fast", "slow"}, {"clean", "dirty"},
	{"easy", "hard"}, {"short", "long"}, {NULL, NULL},
};

static const char *const positive_words =
	"good great excellent amazing awesome wonderful fantastic delicious tasty love loved "
	"lovely nice best perfect friendly welcoming attentive superb outstanding enjoy enjoyed "
	"pleasant recommend recommended beautiful cozy charming fun helpful impressive incredible "
	"favorite ideal suitable worth terrific yummy happy pleased satisfied thrilled glad "
	"flattering gorgeous comfortable cute stunning";
static const char *const negative_words =
	"bad terrible awful horrible poor worst rude bland disappointing disappointed mediocre "
	"gross disgusting unfriendly inattentive stale greasy avoid hate hated unpleasant boring "
	"underwhelming soggy burnt inedible unsuitable waste dreadful unhappy dissatisfied "
	"regret unflattering uncomfortable flimsy unfortunately";

/* Words too common in questions about places to pick the rows that matter. */
static const char *const generic_words =
	"restaurant place spot venue option options people review reviews reviewer reviewers "
	"mention mentioned say says said customer customers guest guests thing things serve "
	"serves offer offers really lot buy bought buying purchase item product think feel "
	"completely totally absolutely extremely enough eat eating dine dining";

typedef struct StemSet {
	char **stem;
	int *group;
	int n;
} StemSet;

static void add_words(StemSet *set, const char *words, int group)
{
	TextTok *tok;
	size_t nt = text_tokens(words, strlen(words), &tok);
	set->stem = xrealloc(set->stem, (size_t)(set->n + (int)nt + 1) * sizeof *set->stem);
	set->group = xrealloc(set->group, (size_t)(set->n + (int)nt + 1) * sizeof *set->group);
	for (size_t i = 0; i < nt; i++) {
		set->stem[set->n] = text_stem(words + tok[i].off, tok[i].len);
		set->group[set->n++] = group;
	}
	free(tok);
}

static StemSet related, positive, negative, generic;
static int opposite[16][2], nopposite;
static int low_group = -1, high_group = -1;   /* the degree groups: "short", "long" */

static int group_of_word(const char *w)
{
	char *st = text_stem(w, strlen(w));
	int g = -1;
	for (int i = 0; i < related.n && g < 0; i++)
		if (strcmp(related.stem[i], st) == 0)
			g = related.group[i];
	free(st);
	return g;
}

static void init_tables(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	for (int g = 0; related_words[g]; g++)
		add_words(&related, related_words[g], g);
	add_words(&positive, positive_words, 0);
	add_words(&negative, negative_words, 0);
	add_words(&generic, generic_words, 0);
	for (int i = 0; opposite_words[i][0] && nopposite < 16; i++) {
		opposite[nopposite][0] = group_of_word(opposite_words[i][0]);
		opposite[nopposite][1] = group_of_word(opposite_words[i][1]);
		nopposite++;
	}
	low_group = group_of_word("short");
	high_group = group_of_word("long");
}

static int in_set(const StemSet *set, const char *stem)
{
	for (int i = 0; i < set->n; i++)
		if (strcmp(set->stem[i], stem) == 0)
			return 1;
	return 0;
}

int off_related(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 1;
	init_tables();
	int r = 0;
	for (int i = 0; i < related.n; i++) {
		if (strcmp(related.stem[i], a) != 0)
			continue;
		for (int j = 0; j < related.n; j++) {
			if (strcmp(related.stem[j], b) != 0)
				continue;
			int ga = related.group[i], gb = related.group[j];
			if (ga == gb)
				return 1;
			for (int k = 0; k < nopposite; k++)
				if ((opposite[k][0] == ga && opposite[k][1] == gb) ||
				    (opposite[k][0] == gb && opposite[k][1] == ga))
					r = -1;
		}
	}
	return r;
}

int off_degree(const char *stem)
{
	init_tables();
	for (int i = 0; i < related.n; i++)
		if (strcmp(related.stem[i], stem) == 0)
			return related.group[i] == low_group ? -1 : related.group[i] == high_group;
	return 0;
}

static int off_sentiment(const char *stem)
{
	init_tables();
	return in_set(&positive, stem) ? 1 : in_set(&negative, stem) ? -1 : 0;
}

int off_generic(const char *stem)
{
	init_tables();
	return in_set(&generic, stem);
}

static int is_breaker(const char *w, size_t n)
{
	static const char *const br[] = {"but", "although", "though", "however", "yet", "except",
		"whereas", NULL};
	for (int i = 0; br[i]; i++)
		if (str_nieq(w, n, br[i]))
			return 1;
	return 0;
}

int off_contrast(const char *w, size_t n)
{
	return str_nieq(w, n, "but") || str_nieq(w, n, "however") || str_nieq(w, n, "yet");
}

void off_words(const char *s, size_t n, OffWord **out, int *nout)
{
	TextTok *tok;
	size_t nt = text_tokens(s, n, &tok);
	OffWord *w = xcalloc(nt + 1, sizeof *w);
	int scope = 0;
	size_t prev_end = 0;
	for (size_t i = 0; i < nt; i++) {
		const char *p = s + tok[i].off;
		size_t len = tok[i].len;
		for (size_t k = prev_end; k < tok[i].off; k++)
			if (strchr(",;:()", s[k]) || (s[k] == '-' && k > 0 && s[k - 1] == ' '))
				scope = 0;
		prev_end = tok[i].off + len;
		if (is_breaker(p, len))
			scope = 0;
		w[i].stem = text_stem(p, len);
		w[i].off = tok[i].off;
		w[i].len = len;
		w[i].stop = text_is_stopword(p, len);
		w[i].isneg = text_is_negation(p, len);
		w[i].neg = scope > 0;
		w[i].senti = off_sentiment(w[i].stem);
		if (i > 0 && strcmp(w[i].stem, "hour") == 0 && strcmp(w[i - 1].stem, "happi") == 0)
			w[i - 1].senti = 0;   /* "happy hour" is a name, not a feeling */
		if (scope > 0)
			scope--;
		if (w[i].isneg)
			scope = NEG_SCOPE;
	}
	free(tok);
	*out = w;
	*nout = (int)nt;
}

void off_words_free(OffWord *w, int nw)
{
	for (int i = 0; i < nw; i++)
		free(w[i].stem);
	free(w);
}

void off_terms_add(TextTerms *t, const char *stem)
{
	if (t->n == t->cap)
		t->v = xrealloc(t->v, (size_t)(t->cap = t->cap ? t->cap * 2 : 16) * sizeof *t->v);
	t->v[t->n++] = xstrdup(stem);
}

void off_doc(const char *const *passages, int np, OffDoc *d)
{
	int cap = 16;
	d->v = xcalloc((size_t)cap, sizeof *d->v);
	d->n = 0;
	for (int p = 0; p < np; p++) {
		const char *s = passages[p];
		if (!s)
			continue;
		TextSpan *sp;
		size_t ns = text_sentences(s, strlen(s), &sp);
		for (size_t i = 0; i < ns; i++) {
			if (d->n == cap)
				d->v = xrealloc(d->v, (size_t)(cap *= 2) * sizeof *d->v);
			OffSent *o = &d->v[d->n++];
			memset(o, 0, sizeof *o);
			o->s = s + sp[i].off;
			o->len = sp[i].len;
			off_words(o->s, o->len, &o->w, &o->nw);
			/* the content stems are the words already read: what text_terms would give,
			   without tokenizing and stemming the sentence a second time */
			for (int k = 0; k < o->nw; k++)
				if (!o->w[k].stop && !o->w[k].isneg)
					off_terms_add(&o->terms, o->w[k].stem);
		}
		free(sp);
	}
}

void off_doc_free(OffDoc *d)
{
	for (int i = 0; i < d->n; i++) {
		off_words_free(d->v[i].w, d->v[i].nw);
		text_terms_free(&d->v[i].terms);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}
