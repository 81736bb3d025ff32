/*
 * exec_cascade.c: a learned proxy in front of the main model (see doc/cascade.md).
 *
 * A walk that judges every candidate of a unit with one question (no LIMIT) may, when
 * llm.cascade_target is set, let most of its candidates be decided by a small classifier
 * instead of the model: the main model judges a random sample of them (llm.cascade_sample)
 * as it would anyway; a logistic regression on hashed word stems of each candidate's text
 * and its BM25 score for the question learns those verdicts; two thresholds on its score
 * are chosen on the sample (scored out of fold) so that the result, the proxy deciding
 * below the low and above the high threshold and the main model in between, meets the
 * target precision and recall against the main model, with as few candidates as possible
 * in between. The sample's verdicts are the main model's and are kept: a cascade that
 * cannot meet the target sends everything else to the model, costing what the walk would
 * have cost without it.
 *
 * The proxy's verdicts go into the statement's memo (never into the cache file), so the
 * walk and the final statement read them like the model's; the counters say how many
 * verdicts each judge gave.
 */
#include "engine/exec_int.h"
#include "engine/memo_int.h"
#include "engine/op_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAS_DIM 4096        /* hashed word features (a power of two) */
#define CAS_EPOCHS 60
#define CAS_RATE 0.5
#define CAS_L2 1e-4
#define CAS_FOLDS 5         /* out-of-fold scores of the sample */
#define CAS_Z 1.645         /* one-sided 95%: the confidence the counters state */

struct Cascade {
	long long n;            /* candidates the cascade saw (not in the memo before) */
	long long sample;       /* judged by the main model to learn from */
	long long labelled;     /* of them, with a yes or no (unreadable ones are not used) */
	long long pos;          /* yes among the labelled */
	double lo, hi;          /* thresholds on the proxy's score; -inf/+inf: none */
	double prec, rec;       /* on the sample, out of fold */
	double prec_lo, rec_lo; /* their one-sided 95% Wilson lower bounds */
	double share;           /* of the sample, between the thresholds */
	long long proxy_yes, proxy_no, to_main;
	int met;                /* the target can be met with some candidates left to the proxy */
	const char *model;      /* llm.proxy: the proxy model (else the learned proxy) */
	long proxy_calls;       /* the proxy model's calls */
};

typedef struct Cand {
	long long c;            /* the walk's candidate */
	char *v;
	size_t n;
	int *f;                 /* hashed features, distinct */
	int nf;
	double bm25;
	int y;                  /* sampled: the main model's verdict (1, 0), -1 none */
	double s;               /* score */
} Cand;

static int exec_cascade_applies(const Exec *ex, const Block *b, const Unit *u, long long n)
{
	return ex->set.optimize == OPT_ON && ex->set.cascade_target > 0 && b->limit < 0 &&
	       !b->dnf_over && u->natoms == 1 && ex->occ[u->atoms[0]].sig >= 0 &&
	       n >= 2LL * ex->set.cascade_sample;
}

/* Its row of the operator table (op.c): llm.cascade_target is set. PostgreSQL refuses a
   statement with free text then, whether or not a unit of it would cascade. */
static int exec_cascade_op_applies(const Exec *ex)
{
	return ex->set.cascade_target > 0;
}

static uint64_t rng_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The text's stems (into t, for BM25) and their hashes, distinct. */
static void featurize(Cand *k, TextTerms *t)
{
	text_terms(k->v, k->n, t);
	k->f = xmalloc(((size_t)t->n + 1) * sizeof *k->f);
	for (int i = 0; i < t->n; i++)
		k->f[i] = (int)(str_hash64(t->v[i], strlen(t->v[i])) & (CAS_DIM - 1));
	qsort(k->f, (size_t)t->n, sizeof *k->f, cmp_int);
	int m = 0;
	for (int i = 0; i < t->n; i++)
		if (m == 0 || k->f[m - 1] != k->f[i])
			k->f[m++] = k->f[i];
	k->nf = m;
}

typedef struct Model {
	double w[CAS_DIM + 2];  /* [0] bias, [1] BM25, then the hashed stems */
} Model;

static double score(const Model *m, const Cand *k)
{
	double z = m->w[0] + m->w[1] * k->bm25;
	for (int i = 0; i < k->nf; i++)
		z += m->w[2 + k->f[i]];
	return z;
}

/* Logistic regression by stochastic gradient descent over the candidates of idx. */
static void train(Model *m, Cand *cs, const long long *idx, long long n, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	long long *ord = xmalloc(((size_t)n + 1) * sizeof *ord);
	memcpy(ord, idx, (size_t)n * sizeof *ord);
	for (int ep = 0; ep < CAS_EPOCHS; ep++) {
		for (long long i = n - 1; i > 0; i--) {
			long long j = (long long)(rng_next(&seed) % (uint64_t)(i + 1));
			long long t = ord[i];
			ord[i] = ord[j];
			ord[j] = t;
		}
		double rate = CAS_RATE / (1.0 + ep * 0.1);
		for (long long i = 0; i < n; i++) {
			Cand *k = &cs[ord[i]];
			double z = score(m, k);
			double p = 1.0 / (1.0 + exp(-z));
			double g = p - k->y;
			m->w[0] -= rate * g;
			m->w[1] -= rate * (g * k->bm25 + CAS_L2 * m->w[1]);
			for (int f = 0; f < k->nf; f++) {
				double *w = &m->w[2 + k->f[f]];
				*w -= rate * (g + CAS_L2 * *w);
			}
		}
	}
	free(ord);
}

static double wilson_lo(long long k, long long n)
{
	if (n <= 0)
		return 0;
	double p = (double)k / (double)n, z = CAS_Z, z2 = z * z, nn = (double)n;
	return (p + z2 / (2 * nn) - z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn))) / (1 + z2 / nn);
}

typedef struct Scored {
	double s;
	int y;
} Scored;

static int by_s(const void *a, const void *b)
{
	const Scored *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

/* The two thresholds: the fewest labelled candidates between them such that the result
   (below lo: no, above hi: yes, between: the main model's verdict) has precision and
   recall at least target against the main model. */
static void thresholds(struct Cascade *cs, Scored *sc, long long n, double target)
{
	qsort(sc, (size_t)n, sizeof *sc, by_s);
	long long *pre = xcalloc((size_t)n + 1, sizeof *pre);   /* positives before i */
	for (long long i = 0; i < n; i++)
		pre[i + 1] = pre[i] + sc[i].y;
	long long P = pre[n];
	long long best_mid = n, ba = 0, bb = n;
	double bq = 2;
	for (long long a = 0; a <= n; a++) {
		if (a > 0 && a < n && sc[a - 1].s == sc[a].s)
			continue;
		long long fn = pre[a];
		for (long long b = a; b <= n; b++) {
			if (b > a && b < n && sc[b - 1].s == sc[b].s)
				continue;
			if (b - a > best_mid)
				break;
			long long fp = (n - b) - (P - pre[b]);
			long long tp = P - fn;
			double prec = tp + fp ? (double)tp / (double)(tp + fp) : 1;
			double rec = P ? (double)tp / (double)P : 1;
			if (prec < target || rec < target)
				continue;
			double q = prec < rec ? prec : rec;
			if (b - a < best_mid || q > bq) {
				best_mid = b - a;
				ba = a;
				bb = b;
				bq = q;
			}
		}
	}
	cs->lo = ba > 0 ? (sc[ba - 1].s + sc[ba].s) / 2 : -INFINITY;
	cs->hi = bb < n ? (sc[bb - 1].s + sc[bb].s) / 2 : INFINITY;
	long long fn = pre[ba], fp = (n - bb) - (P - pre[bb]), tp = P - fn;
	cs->prec = tp + fp ? (double)tp / (double)(tp + fp) : 1;
	cs->rec = P ? (double)tp / (double)P : 1;
	cs->prec_lo = wilson_lo(tp, tp + fp);
	cs->rec_lo = wilson_lo(tp, P);
	cs->share = n ? (double)(bb - ba) / (double)n : 1;
	cs->met = bb - ba < n;
	free(pre);
}

/* The proxy model (llm.proxy): every candidate asked with both wordings; where they agree
   (on a yes or a no) its verdict stands, elsewhere the chat model decides. Checked on the
   sample against the chat model's verdicts: when the result misses the target there, the
   chat model judges everything. */
static SuqlStatus model_proxy(Exec *ex, int sig, struct Cascade *cs, Cand *ks, long long nk,
                              const unsigned char *in_sample, SuqlErr *err)
{
	int js[2];
	for (int j = 0; j < 2; j++) {
		const Sig *m = &ex->sigs[sig];
		Sig s = {0};
		s.kind = m->kind;
		s.question = xstrdup(m->question);
		s.op = xstrdup(m->op);
		s.nexpected = m->nexpected;
		s.expected = xmalloc(((size_t)m->nexpected + 1) * sizeof *s.expected);
		for (int i = 0; i < m->nexpected; i++)
			s.expected[i] = xstrdup(m->expected[i]);
		s.pg = m->pg;
		s.list = m->list;
		s.judge = j + 1;
		js[j] = memo_sig_intern(ex, &s);
	}
	Req *reqs = xcalloc((size_t)nk * 2 + 1, sizeof *reqs);
	for (long long i = 0; i < nk; i++)
		for (int j = 0; j < 2; j++) {
			reqs[2 * i + j].sig = js[j];
			reqs[2 * i + j].v = ks[i].v;
			reqs[2 * i + j].n = ks[i].n;
		}
	const LlmStats *ls = llm_stats_statement(ex->e->llm);
	long c0 = ls->total.calls;
	SuqlStatus st = exec_llm_run(ex, reqs, (int)(nk * 2), NULL, NULL, err);
	cs->proxy_calls = ls->total.calls - c0;
	free(reqs);
	if (st != SUQL_OK)
		return st;
	/* the proxy's verdict where its two wordings agree, -1 where not */
	signed char *pv = xmalloc((size_t)nk + 1);
	for (long long i = 0; i < nk; i++) {
		const MemoVal *a = memo_get(ex->memo, js[0], ks[i].v, ks[i].n);
		const MemoVal *b = memo_get(ex->memo, js[1], ks[i].v, ks[i].n);
		pv[i] = a && b && a->verdict == b->verdict &&
		        (a->verdict == VERDICT_YES || a->verdict == VERDICT_NO)
		        ? (signed char)(a->verdict == VERDICT_YES) : -1;
	}
	long long tp = 0, fp = 0, fn = 0, mid = 0;
	for (long long i = 0; i < nk; i++) {
		if (!in_sample[i] || ks[i].y < 0)
			continue;
		int r = pv[i] >= 0 ? pv[i] : ks[i].y;
		mid += pv[i] < 0;
		tp += r && ks[i].y;
		fp += r && !ks[i].y;
		fn += !r && ks[i].y;
	}
	cs->prec = tp + fp ? (double)tp / (double)(tp + fp) : 1;
	cs->rec = tp + fn ? (double)tp / (double)(tp + fn) : 1;
	cs->prec_lo = wilson_lo(tp, tp + fp);
	cs->rec_lo = wilson_lo(tp, tp + fn);
	cs->share = cs->labelled ? (double)mid / (double)cs->labelled : 1;
	double t = ex->set.cascade_target;
	cs->met = cs->labelled > 0 && cs->prec >= t && cs->rec >= t && mid < cs->labelled;
	for (long long i = 0; i < nk; i++) {
		if (in_sample[i] || memo_get(ex->memo, sig, ks[i].v, ks[i].n))
			continue;
		if (cs->met && pv[i] >= 0) {
			MemoVal *mv = memo_put(ex->memo, sig, ks[i].v, ks[i].n);
			mv->verdict = pv[i] ? VERDICT_YES : VERDICT_NO;
			if (pv[i])
				cs->proxy_yes++;
			else
				cs->proxy_no++;
		} else {
			cs->to_main++;
		}
	}
	free(pv);
	return SUQL_OK;
}

static SuqlStatus exec_cascade_run(Walk *w, SuqlErr *err)
{
	Exec *ex = w->ex;
	Unit *u = w->u;
	const Occ *o = &ex->occ[u->atoms[0]];
	const Sig *sig = &ex->sigs[o->sig];
	struct Cascade *cs = xcalloc(1, sizeof *cs);
	free(u->cascade);
	u->cascade = cs;
	cs->lo = -INFINITY;
	cs->hi = INFINITY;
	/* the candidates whose text is not NULL and not answered yet */
	Cand *ks = xcalloc((size_t)w->n + 1, sizeof *ks);
	long long nk = 0;
	SuqlStatus st = SUQL_OK;
	for (long long c = 0; c < w->n && st == SUQL_OK; c++) {
		size_t len;
		int failed;
		char *v = exec_cand_value(w, c, w->atom_arg[0], &len, err, &failed);
		if (failed) {
			st = SUQL_ERROR;
			break;
		}
		if (!v || memo_get(ex->memo, o->sig, v, len)) {
			free(v);
			continue;
		}
		ks[nk] = (Cand){c, v, len, NULL, 0, 0, -1, 0};
		nk++;
	}
	cs->n = nk;
	long long S = ex->set.cascade_sample;
	if (st != SUQL_OK || nk < 2 * S)
		goto done;
	/* the sample: a partial shuffle, seeded by the question (the same statement over the
	   same rows samples the same candidates) */
	uint64_t seed = str_hash64(sig->key, strlen(sig->key));
	long long *perm = xmalloc((size_t)nk * sizeof *perm);
	for (long long i = 0; i < nk; i++)
		perm[i] = i;
	for (long long i = 0; i < S; i++) {
		long long j = i + (long long)(rng_next(&seed) % (uint64_t)(nk - i));
		long long t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	Req *reqs = xcalloc((size_t)S, sizeof *reqs);
	for (long long i = 0; i < S; i++) {
		Cand *k = &ks[perm[i]];
		reqs[i].sig = o->sig;
		reqs[i].v = k->v;
		reqs[i].n = k->n;
	}
	cs->sample = S;
	st = exec_llm_run(ex, reqs, (int)S, NULL, NULL, err);
	free(reqs);
	if (st != SUQL_OK) {
		free(perm);
		goto done;
	}
	/* the labels: the sample's verdicts (unreadable ones are not learnt from) */
	long long *lab = xmalloc(((size_t)S + 1) * sizeof *lab);
	long long nl = 0;
	for (long long i = 0; i < S; i++) {
		Cand *k = &ks[perm[i]];
		const MemoVal *mv = memo_get(ex->memo, o->sig, k->v, k->n);
		if (!mv || (mv->verdict != VERDICT_YES && mv->verdict != VERDICT_NO))
			continue;
		k->y = mv->verdict == VERDICT_YES;
		cs->pos += k->y;
		lab[nl++] = perm[i];
	}
	cs->labelled = nl;
	unsigned char *in_sample = xcalloc((size_t)nk + 1, 1);
	for (long long i = 0; i < S; i++)
		in_sample[perm[i]] = 1;
	if ((cs->model = llm_proxy_model(ex->e->llm)) != NULL) {
		st = model_proxy(ex, o->sig, cs, ks, nk, in_sample, err);
		free(in_sample);
		free(lab);
		free(perm);
		goto done;
	}
	/* features of every candidate; BM25 with statistics over all of them */
	TextTerms q = TEXT_TERMS_INIT;
	text_terms(sig->question, strlen(sig->question), &q);
	TextTerms *tt = xcalloc((size_t)nk, sizeof *tt);
	double *bm = xmalloc((size_t)nk * sizeof *bm);
	for (long long i = 0; i < nk; i++)
		featurize(&ks[i], &tt[i]);
	text_bm25(&q, tt, (size_t)nk, bm);
	double top = 0;
	for (long long i = 0; i < nk; i++) {
		text_terms_free(&tt[i]);
		top = bm[i] > top ? bm[i] : top;
	}
	for (long long i = 0; i < nk; i++)
		ks[i].bm25 = top > 0 ? bm[i] / top : 0;
	free(tt);
	free(bm);
	text_terms_free(&q);
	/* CAS_FOLDS models, each learning all folds of the sample but one and scoring that one
	   (these out-of-fold scores choose the thresholds); the rest is scored by their mean */
	Model *m = xmalloc(CAS_FOLDS * sizeof *m);
	long long *tr = xmalloc(((size_t)nl + 1) * sizeof *tr);
	Scored *sc = xmalloc(((size_t)nl + 1) * sizeof *sc);
	for (int f = 0; f < CAS_FOLDS; f++) {
		long long nt = 0;
		for (long long i = 0; i < nl; i++)
			if (i % CAS_FOLDS != f)
				tr[nt++] = lab[i];
		train(&m[f], ks, tr, nt, seed + 1 + (uint64_t)f);
		for (long long i = f; i < nl; i += CAS_FOLDS) {
			sc[i].s = score(&m[f], &ks[lab[i]]);
			sc[i].y = ks[lab[i]].y;
		}
	}
	free(tr);
	if (nl > 0 && cs->pos > 0 && cs->pos < nl)
		thresholds(cs, sc, nl, ex->set.cascade_target);
	free(sc);
	/* the rest: the proxy's verdict outside the thresholds, the main model's within */
	for (long long i = 0; i < nk; i++) {
		if (in_sample[i])
			continue;
		Cand *k = &ks[i];
		if (memo_get(ex->memo, o->sig, k->v, k->n))
			continue;   /* an identical text was in the sample */
		double s = 0;
		for (int f = 0; cs->met && f < CAS_FOLDS; f++)
			s += score(&m[f], k) / CAS_FOLDS;
		if (cs->met && (s < cs->lo || s > cs->hi)) {
			MemoVal *mv = memo_put(ex->memo, o->sig, k->v, k->n);
			mv->verdict = s > cs->hi ? VERDICT_YES : VERDICT_NO;
			if (s > cs->hi)
				cs->proxy_yes++;
			else
				cs->proxy_no++;
		} else {
			cs->to_main++;
		}
	}
	free(in_sample);
	free(m);
	free(lab);
	free(perm);
done:
	for (long long i = 0; i < nk; i++) {
		free(ks[i].v);
		free(ks[i].f);
	}
	free(ks);
	return st;
}

static void exec_cascade_show_plan(const Exec *ex, SBuf *out, const Block *b)
{
	int exact = b->budget.ncount == b->nunits && b->budget.count;
	for (int i = 0; i < b->nunits; i++) {
		const Unit *u = &b->units[i];
		long long cnt = exact ? b->budget.count[i] : b->bound;
		if (!exec_cascade_applies(ex, b, u, cnt))
			continue;
		const char *pm = llm_proxy_model(ex->e->llm);
		if (pm) {
			sb_printf(out, "  cascade, conjunct %d: the proxy model %s in front of the main "
			          "model (target %.2f precision and recall against it): the main model "
			          "judges a random sample of %d of the %s%lld candidates; the proxy model "
			          "judges every candidate with two wordings, and where they disagree the "
			          "main model decides; if on the sample that misses the target, the main "
			          "model judges all\n", i + 1, pm, ex->set.cascade_target,
			          ex->set.cascade_sample, exact ? "" : "at most ", cnt);
			continue;
		}
		sb_printf(out, "  cascade, conjunct %d: a learned proxy in front of the main model "
		          "(target %.2f precision and recall against it): the main model judges a "
		          "random sample of %d of the %s%lld candidates, a classifier on hashed words "
		          "and BM25 learns its verdicts, two thresholds chosen on the sample leave "
		          "the uncertain candidates to the main model and the others to the proxy\n",
		          i + 1, ex->set.cascade_target, ex->set.cascade_sample,
		          exact ? "" : "at most ", cnt);
		sb_printf(out, "  cascade, conjunct %d: the thresholds, and so the share sent to the "
		          "main model, are known once the sample is judged (the counters show them); "
		          "at least %d and at most %lld candidates go to the main model\n", i + 1,
		          ex->set.cascade_sample, cnt);
	}
}

static void show_bound(SBuf *out, double v, const char *inf)
{
	if (isinf(v))
		sb_puts(out, inf);
	else
		sb_printf(out, "%.3f", v);
}

static void exec_cascade_counters(const Unit *u, SBuf *out, const char *name)
{
	const struct Cascade *cs = u->cascade;
	if (!cs)
		return;
	sb_printf(out, "%s: cascade: %lld candidates; main model: a sample of %lld (%lld yes, "
	          "%lld no)", name, cs->n, cs->sample, cs->pos, cs->labelled - cs->pos);
	if (!cs->sample) {
		sb_puts(out, "; too few candidates: the main model judged them all\n");
		return;
	}
	if (cs->model) {
		sb_printf(out, "; proxy model %s: every candidate asked with two wordings (%ld "
		          "calls), which disagreed on %.1f%% of the sample; the result on the "
		          "sample: precision %.3f, recall %.3f (at 95%% confidence at least %.3f and "
		          "%.3f)\n", cs->model, cs->proxy_calls, 100 * cs->share, cs->prec, cs->rec,
		          cs->prec_lo, cs->rec_lo);
	}
	if (!cs->met) {
		sb_printf(out, "%s%s: the proxy could not meet the target on the sample, so the "
		          "main model judged the other %lld too\n", cs->model ? "" : "\n", name,
		          cs->to_main);
		return;
	}
	if (cs->model) {
		long long main = cs->sample + cs->to_main;
		sb_printf(out, "%s: judges: proxy model %lld (%lld yes, %lld no; %ld calls), main "
		          "model %lld (the sample and %lld where the wordings disagreed): %.1fx fewer "
		          "candidates for the main model\n", name, cs->proxy_yes + cs->proxy_no,
		          cs->proxy_yes, cs->proxy_no, cs->proxy_calls, main, cs->to_main,
		          main ? (double)cs->n / (double)main : 0);
		return;
	}
	sb_puts(out, "; thresholds ");
	show_bound(out, cs->lo, "none");
	sb_puts(out, " / ");
	show_bound(out, cs->hi, "none");
	sb_printf(out, " (on the sample, out of fold: precision %.3f, recall %.3f; at 95%% "
	          "confidence at least %.3f and %.3f; %.1f%% between the thresholds)\n",
	          cs->prec, cs->rec, cs->prec_lo, cs->rec_lo, 100 * cs->share);
	long long main = cs->sample + cs->to_main;
	sb_printf(out, "%s: judges: learned proxy %lld (%lld yes, %lld no; no requests), main "
	          "model %lld (the sample and %lld between the thresholds): %.1fx fewer "
	          "candidates for the main model\n", name, cs->proxy_yes + cs->proxy_no,
	          cs->proxy_yes, cs->proxy_no, main, cs->to_main,
	          main ? (double)cs->n / (double)main : 0);
}

/* ---- its row of the operator table (op.c) ---- */

/* Before a unit's waves: the proxy's verdicts, when the unit is one the cascade takes. */
static SuqlStatus cascade_unit(Walk *w, SuqlErr *err)
{
	if (!exec_cascade_applies(w->ex, w->b, w->u, w->n))
		return SUQL_OK;
	return exec_cascade_run(w, err);
}

/* The cascade's floor: no call of the main model. A perfect proxy decides every
   candidate, and the candidates it judges are the walk's, which the walk's floor counts
   once whichever model judges them. */
static long long exec_cascade_op_floor(Exec *ex)
{
	(void)ex;
	return 0;
}

const EngineOp exec_cascade_row = {
	.name = "cascade",
	.slot = OP_CASCADE,
	.applies = exec_cascade_op_applies,
	.floor = exec_cascade_op_floor,
	.walk_unit = cascade_unit,
	.show_walk = exec_cascade_show_plan,
	.unit_counters = exec_cascade_counters,
};
