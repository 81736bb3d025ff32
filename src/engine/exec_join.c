/*
 * exec_join.c: semantic joins, matches(left, right, 'question') (see doc/join.md).
 *
 * Judged pair by pair, a join of N left rows with M right rows costs N x M calls. When the
 * two sides of matches() each read one FROM item of the block (and nothing else), the
 * optimizer rewrites it instead: it lists the distinct values of each side, and for each
 * distinct left value asks the model once which of the right values match (one batched
 * request of the match prompt, the left value above numbered right values). When the right
 * side has more values than join_candidates, BM25 keeps for each left value the right
 * values that share words with it, the best join_candidates of them; the pairs it drops
 * are not asked and count as no match. The answers go into the memo, keyed by a signature
 * per left value and the right value, where suql_match(left, right, id) finds them as
 * SQLite evaluates the join (a pair the rewrite did not ask about is 0). Naive mode, and a
 * join that cannot be rewritten, ask each pair when SQLite first meets it (the single match
 * prompt), which is also how a batch's unreadable answers are asked alone: so both ways
 * share cache entries, and an unreadable reply follows the client's rules (asked again,
 * split, unknown: NULL, never cached).
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/memo_int.h"
#include "engine/plan_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct JoinPlan {
	/* left value -> its signature (open addressing on a 64-bit hash) */
	uint64_t *mh;
	int *msig;
	size_t mcap, mn;
	/* the rewrite */
	int rewritten;        /* values listed and candidates chosen: the pairs are asked ahead */
	int ran;              /* asked: a pair not in the memo is no match */
	char *lsql, *rsql;    /* the statements listing each side's distinct values */
	char **lv, **rv;
	size_t *ln, *rn;
	long long nl, nr;
	int **cand;           /* per left value: the right values it is compared with */
	int *ncand;
	int pruned;           /* BM25 kept at most join_candidates of the right values */
	long long pairs;      /* pairs to ask */
	long long expect;     /* calls expected */
	/* counters */
	long long asked, yes, no, unknown;
	long calls, hits, requests;
};

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = str_hash64(s, n);
	return h ? h : 1;
}

static JoinPlan *plan_of(Join *j)
{
	if (!j->jp)
		j->jp = xcalloc(1, sizeof *j->jp);
	return j->jp;
}

int exec_join_sig(Exec *ex, Join *j, const char *v, size_t n)
{
	JoinPlan *jp = plan_of(j);
	if (jp->mn * 2 >= jp->mcap) {
		size_t cap = jp->mcap ? jp->mcap * 2 : 64;
		uint64_t *h = xcalloc(cap, sizeof *h);
		int *sg = xmalloc(cap * sizeof *sg);
		for (size_t i = 0; i < jp->mcap; i++) {
			if (!jp->mh[i])
				continue;
			size_t k = jp->mh[i] & (cap - 1);
			while (h[k])
				k = (k + 1) & (cap - 1);
			h[k] = jp->mh[i];
			sg[k] = jp->msig[i];
		}
		free(jp->mh);
		free(jp->msig);
		jp->mh = h;
		jp->msig = sg;
		jp->mcap = cap;
	}
	uint64_t h = fnv64(v, n);
	size_t k = h & (jp->mcap - 1);
	for (; jp->mh[k]; k = (k + 1) & (jp->mcap - 1)) {
		const char *s = ex->sigs[jp->msig[k]].subject;
		if (jp->mh[k] == h && strlen(s) == n && memcmp(s, v, n) == 0)
			return jp->msig[k];
	}
	const Sig *base = &ex->sigs[j->sig];
	Sig s = {0};
	s.kind = FT_VERIFY;
	s.question = xstrdup(base->question);
	s.op = xstrdup(base->op);
	s.list = base->list;
	s.join = j->id + 1;
	s.subject = xstrndup(v, n);
	int id = memo_sig_intern(ex, &s);
	jp->mh[k] = h;
	jp->msig[k] = id;
	jp->mn++;
	return id;
}

int exec_join_ran(const Join *j)
{
	return j->jp && j->jp->ran;
}

/* ---- which FROM item each side reads ---- */

typedef struct SideScan {
	Exec *ex;
	int b;
	int item;             /* the one item read so far, -1 none, -2 several or elsewhere */
} SideScan;

static int side_cb(void *ctx, Expr *e)
{
	SideScan *sc = ctx;
	if (e->select)
		sc->item = -2;   /* a subquery: not a function of one item's row */
	if (sc->item == -2)
		return AST_STOP;
	if (e->kind != EX_COLUMN)
		return AST_CONTINUE;
	int blk;
	int i = bind_resolve(sc->ex, sc->b, e, &blk);
	if (i < 0 || blk != sc->b || (sc->item >= 0 && sc->item != i))
		sc->item = -2;
	else
		sc->item = i;
	return sc->item == -2 ? AST_STOP : AST_CONTINUE;
}

static int side_item(Exec *ex, int b, Expr *e)
{
	SideScan sc = {ex, b, -1};
	AstVisitor v = {0};
	v.ctx = &sc;
	v.expr = side_cb;
	ast_visit_expr(e, &v);
	if (sc.item < 0)
		return -1;
	const ScopeItem *it = &ex->blocks[b].items[sc.item];
	if ((it->kind != IT_TABLE && it->kind != IT_CTE && it->kind != IT_SUBQUERY) || !it->f ||
	    it->f->kind == FROM_JOIN)
		return -1;
	return sc.item;
}

/* SELECT DISTINCT side FROM item (alone), with the block's WITH clauses in scope. */
static char *side_sql(Exec *ex, Block *b, int item, Expr *side)
{
	FromItem fi = *b->items[item].f;
	fi.comma = 0;
	fi.njoin = 0;
	fi.on = NULL;
	fi.using_ = NULL;
	FromItem *pfi = &fi;
	FromList fl = {1, 1, &pfi};
	SelectCore core = *b->core;
	core.from = &fl;
	Block tb = *b;
	tb.core = &core;
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, side, "v");
	Expr *nn = ast_expr_new(ex->a, EX_ISNULL);
	nn->left = side;
	nn->not_ = 1;
	Select *s = exec_select(ex, &tb, cols, nn, NULL);
	s->cores[0]->distinct = DISTINCT_DISTINCT;
	return exec_print_select(ex, s);
}

/* The distinct values a statement lists: 0, -1 on an SQL error, -2 when the planning
   bound stopped it. */
static int list_values(Exec *ex, const char *sql, char ***v, size_t **n, long long *nv)
{
	sqlite3_stmt *st;
	*v = NULL;
	*n = NULL;
	*nv = 0;
	long long cap = 0;
	int r = -1;
	exec_bound(ex, 1);
	int saved = ex->counting;
	ex->counting = 1;   /* free text inside a side is not asked while planning */
	if (sqlite3_prepare_v2(ex->db, sql, -1, &st, NULL) == SQLITE_OK) {
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (*nv == cap) {
				cap = cap ? cap * 2 : 64;
				*v = xrealloc(*v, (size_t)cap * sizeof **v);
				*n = xrealloc(*n, (size_t)cap * sizeof **n);
			}
			(*v)[*nv] = exec_value_text(sqlite3_column_value(st, 0), &(*n)[*nv]);
			(*nv)++;
		}
		r = rc == SQLITE_DONE ? 0 : rc == SQLITE_INTERRUPT && ex->e->steps_left == 0 &&
		                               !suql_interrupted ? -2 : -1;
		sqlite3_finalize(st);
	}
	ex->counting = saved;
	exec_bound(ex, 0);
	return r;
}

typedef struct Scored {
	double sc;
	int i;
} Scored;

static int by_score(const void *a, const void *b)
{
	const Scored *x = a, *y = b;
	if (x->sc != y->sc)
		return x->sc < y->sc ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The right values' words as an inverted index: for each stem, the right values holding
   it and how often (BM25 of a left value then costs the postings of its words, not a pass
   over every right value). */
typedef struct Posting {
	int r, tf;
} Posting;

typedef struct Index {
	char **stem;          /* open addressing on the stem's hash */
	Posting **post;
	int *npost, *cappost;
	size_t cap;
	int *len;             /* terms of each right value */
	double avg;
	long long n;
} Index;

static size_t slot(const Index *ix, const char *s)
{
	size_t k = (size_t)fnv64(s, strlen(s)) & (ix->cap - 1);
	while (ix->stem[k] && strcmp(ix->stem[k], s) != 0)
		k = (k + 1) & (ix->cap - 1);
	return k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void index_build(Index *ix, JoinPlan *jp)
{
	memset(ix, 0, sizeof *ix);
	ix->n = jp->nr;
	ix->len = xcalloc((size_t)jp->nr + 1, sizeof *ix->len);
	TextTerms *rt = xcalloc((size_t)jp->nr + 1, sizeof *rt);
	size_t total = 0;
	for (long long r = 0; r < jp->nr; r++) {
		text_terms(jp->rv[r], jp->rn[r], &rt[r]);
		ix->len[r] = rt[r].n;
		ix->avg += rt[r].n;
		total += (size_t)rt[r].n;
	}
	ix->avg = jp->nr && ix->avg > 0 ? ix->avg / (double)jp->nr : 1;
	for (ix->cap = 64; ix->cap < 2 * total + 2; ix->cap *= 2)
		;
	ix->stem = xcalloc(ix->cap, sizeof *ix->stem);
	ix->post = xcalloc(ix->cap, sizeof *ix->post);
	ix->npost = xcalloc(ix->cap, sizeof *ix->npost);
	ix->cappost = xcalloc(ix->cap, sizeof *ix->cappost);
	for (long long r = 0; r < jp->nr; r++) {
		qsort(rt[r].v, (size_t)rt[r].n, sizeof *rt[r].v, cmp_str);
		for (int i = 0; i < rt[r].n;) {
			int j = i;
			while (j < rt[r].n && strcmp(rt[r].v[j], rt[r].v[i]) == 0)
				j++;
			size_t k = slot(ix, rt[r].v[i]);
			if (!ix->stem[k])
				ix->stem[k] = xstrdup(rt[r].v[i]);
			if (ix->npost[k] == ix->cappost[k]) {
				ix->cappost[k] = ix->cappost[k] ? ix->cappost[k] * 2 : 4;
				ix->post[k] = xrealloc(ix->post[k], (size_t)ix->cappost[k] * sizeof **ix->post);
			}
			ix->post[k][ix->npost[k]++] = (Posting){(int)r, j - i};
			i = j;
		}
		text_terms_free(&rt[r]);
	}
	free(rt);
}

static void index_free(Index *ix)
{
	for (size_t k = 0; k < ix->cap; k++) {
		free(ix->stem[k]);
		free(ix->post[k]);
	}
	free(ix->stem);
	free(ix->post);
	free(ix->npost);
	free(ix->cappost);
	free(ix->len);
}

/* For each left value, the right values it is compared with: all of them, or past
   join_candidates the best of those sharing words with it by BM25 (k1 1.2, b 0.75, as
   text_bm25; statistics over the right values). */
static void choose(Exec *ex, JoinPlan *jp)
{
	int k = ex->set.join_candidates;
	jp->cand = xcalloc((size_t)jp->nl + 1, sizeof *jp->cand);
	jp->ncand = xcalloc((size_t)jp->nl + 1, sizeof *jp->ncand);
	jp->pruned = k > 0 && jp->nr > k;
	Index ix;
	double *sc = NULL;
	int *touched = NULL;
	Scored *rk = NULL;
	if (jp->pruned) {
		index_build(&ix, jp);
		sc = xcalloc((size_t)jp->nr + 1, sizeof *sc);
		touched = xmalloc(((size_t)jp->nr + 1) * sizeof *touched);
		rk = xmalloc(((size_t)jp->nr + 1) * sizeof *rk);
	}
	for (long long l = 0; l < jp->nl; l++) {
		if (!jp->pruned) {
			jp->cand[l] = xmalloc((size_t)jp->nr * sizeof **jp->cand + 1);
			for (long long r = 0; r < jp->nr; r++)
				jp->cand[l][r] = (int)r;
			jp->ncand[l] = (int)jp->nr;
			jp->pairs += jp->ncand[l];
			continue;
		}
		TextTerms q = TEXT_TERMS_INIT;
		text_terms(jp->lv[l], jp->ln[l], &q);
		qsort(q.v, (size_t)q.n, sizeof *q.v, cmp_str);
		int nt = 0;
		for (int i = 0; i < q.n; i++) {
			if (i > 0 && strcmp(q.v[i], q.v[i - 1]) == 0)
				continue;   /* a repeated query word counts once */
			size_t s = slot(&ix, q.v[i]);
			if (!ix.stem[s])
				continue;
			double d = ix.npost[s];
			double idf = log(((double)ix.n - d + 0.5) / (d + 0.5) + 1.0);
			for (int p = 0; p < ix.npost[s]; p++) {
				const Posting *po = &ix.post[s][p];
				if (sc[po->r] == 0)
					touched[nt++] = po->r;
				double norm = 1.2 * (0.25 + 0.75 * ix.len[po->r] / ix.avg);
				sc[po->r] += idf * po->tf * 2.2 / (po->tf + norm);
			}
		}
		text_terms_free(&q);
		int m = 0;
		for (int i = 0; i < nt; i++) {
			rk[m++] = (Scored){sc[touched[i]], touched[i]};
			sc[touched[i]] = 0;
		}
		qsort(rk, (size_t)m, sizeof *rk, by_score);
		if (m > k)
			m = k;
		jp->cand[l] = xmalloc((size_t)m * sizeof **jp->cand + 1);
		for (int i = 0; i < m; i++)
			jp->cand[l][i] = rk[i].i;
		jp->ncand[l] = m;
		jp->pairs += m;
	}
	if (jp->pruned)
		index_free(&ix);
	free(sc);
	free(touched);
	free(rk);
}

/* Calls the candidates of one left value take, grouped as exec_llm_run groups them (batch
   candidates, batch_tokens passage tokens, each candidate's text within passage_tokens). */
static long long calls_for(Exec *ex, JoinPlan *jp, long long l)
{
	long long calls = 0;
	int in = 0;
	size_t tok = 0, cap = (size_t)ex->set.passage_tokens;
	for (int i = 0; i < jp->ncand[l]; i++) {
		size_t t = TEXT_TOKENS(jp->rn[jp->cand[l][i]]);
		if (t > cap)
			t = cap;
		if (!in || in >= ex->set.batch ||
		    (ex->set.batch_tokens > 0 && tok + t > (size_t)ex->set.batch_tokens)) {
			calls++;
			in = 0;
			tok = 0;
		}
		in++;
		tok += t;
	}
	return calls;
}

static const char *why_not(Exec *ex, Join *j, int *li, int *ri)
{
	if (j->block < 0)
		return "not inside a SELECT";
	Block *b = &ex->blocks[j->block];
	if (!b->exec || !b->core)
		return "its block does not run with the statement";
	if (b->correlated)
		return "its block is correlated with an enclosing query";
	if (j->pos != POS_ON && j->pos != POS_WHERE)
		return "not in ON or WHERE";
	*li = side_item(ex, j->block, j->left);
	*ri = side_item(ex, j->block, j->right);
	if (*li < 0 || *ri < 0)
		return "a side does not read exactly one table, CTE or subquery of the FROM clause";
	if (*li == *ri)
		return "both sides read the same FROM item";
	return NULL;
}

SuqlStatus exec_join_plan(Exec *ex, SuqlErr *err)
{
	(void)err;
	for (int i = 0; i < ex->njoins; i++) {
		Join *j = &ex->joins[i];
		JoinPlan *jp = plan_of(j);
		int li = -1, ri = -1;
		j->why = why_not(ex, j, &li, &ri);
		if (j->why)
			continue;
		Block *b = &ex->blocks[j->block];
		jp->lsql = side_sql(ex, b, li, j->left);
		jp->rsql = side_sql(ex, b, ri, j->right);
		int r1 = list_values(ex, jp->lsql, &jp->lv, &jp->ln, &jp->nl);
		int r2 = r1 == 0 ? list_values(ex, jp->rsql, &jp->rv, &jp->rn, &jp->nr) : r1;
		if (r1 || r2) {
			j->why = r1 == -2 || r2 == -2 ? "listing a side's values was stopped at the "
			                                "planning bound"
			                              : "a side's values could not be listed";
			continue;
		}
		if (ex->set.optimize == OPT_OFF) {
			/* naive mode: SQLite meets each pair */
			long long p = jp->nl * jp->nr;
			ex->worst[0] += p;
			ex->worst_total += p;
			ex->expect[0] += p;
			ex->expect_total += p;
			continue;
		}
		jp->rewritten = 1;
		choose(ex, jp);
		for (long long l = 0; l < jp->nl; l++)
			jp->expect += calls_for(ex, jp, l);
		ex->worst[0] += jp->expect;
		ex->worst_total += jp->expect;
		ex->expect[0] += jp->expect;
		ex->expect_total += jp->expect;
	}
	return SUQL_OK;
}

SuqlStatus exec_join_run(Exec *ex, SuqlErr *err)
{
	SuqlStatus st = SUQL_OK;
	for (int i = 0; i < ex->njoins && st == SUQL_OK; i++) {
		Join *j = &ex->joins[i];
		JoinPlan *jp = j->jp;
		if (!jp || !jp->rewritten)
			continue;
		Req *reqs = xcalloc((size_t)jp->pairs + 1, sizeof *reqs);
		long long n = 0;
		for (long long l = 0; l < jp->nl; l++) {
			int sig = exec_join_sig(ex, j, jp->lv[l], jp->ln[l]);
			for (int c = 0; c < jp->ncand[l]; c++) {
				int r = jp->cand[l][c];
				reqs[n].sig = sig;
				reqs[n].v = jp->rv[r];
				reqs[n].n = jp->rn[r];
				n++;
			}
		}
		const LlmStats *ls = llm_stats_statement(ex->llm);
		long c0 = ls->total.calls, h0 = ls->total.cache_hits, q0 = ls->total.requests;
		st = exec_llm_run(ex, reqs, (int)n, NULL, NULL, err);
		jp->calls = ls->total.calls - c0;
		jp->hits = ls->total.cache_hits - h0;
		jp->requests = ls->total.requests - q0;
		for (long long k = 0; k < n; k++) {
			const MemoVal *mv = reqs[k].state == REQ_DONE
			                    ? memo_get(ex->memo, reqs[k].sig, reqs[k].v, reqs[k].n) : NULL;
			if (!mv)
				continue;
			jp->asked++;
			if (mv->verdict == VERDICT_YES)
				jp->yes++;
			else if (mv->verdict == VERDICT_NO)
				jp->no++;
			else
				jp->unknown++;
		}
		free(reqs);
		jp->ran = st == SUQL_OK;
	}
	return st;
}

/* ---- the plan and the counters ---- */

static void show_side(SBuf *out, const char *what, long long n, const char *sql)
{
	sb_printf(out, "  %s: %lld distinct value%s: %s\n", what, n, n == 1 ? "" : "s", sql);
}

void exec_join_show(Exec *ex, SBuf *out)
{
	for (int i = 0; i < ex->njoins; i++) {
		Join *j = &ex->joins[i];
		JoinPlan *jp = j->jp;
		char *e = plan_show_expr(ex, j->orig);
		sb_printf(out, "join %d: %s", i + 1, e);
		free(e);
		if (j->block >= 0)
			sb_printf(out, " (block %d, %s)", j->block + 1, j->pos == POS_ON ? "ON" :
			          j->pos == POS_WHERE ? "WHERE" : "elsewhere");
		sb_putc(out, '\n');
		if (!jp || (!jp->rewritten && !jp->lsql) || j->why) {
			sb_printf(out, "  pair by pair, as SQLite meets each pair (one call a pair): %s\n",
			          j->why ? j->why : "naive mode");
			continue;
		}
		show_side(out, "left", jp->nl, jp->lsql);
		show_side(out, "right", jp->nr, jp->rsql);
		long long pw = jp->nl * jp->nr;
		if (!jp->rewritten) {
			sb_printf(out, "  pair by pair (naive mode): up to %lld x %lld = %lld calls\n",
			          jp->nl, jp->nr, pw);
			continue;
		}
		sb_printf(out, "  rewrite: one batched request per left value picks its matches "
		          "among the right values");
		if (jp->pruned)
			sb_printf(out, "; BM25 keeps the best %d right values that share words with it "
			          "(pairs not kept are no match)", ex->set.join_candidates);
		sb_putc(out, '\n');
		sb_printf(out, "  expected: %lld LLM call%s carrying %lld pairs, against %lld "
		          "pairwise (%lld x %lld)", jp->expect, jp->expect == 1 ? "" : "s", jp->pairs,
		          pw, jp->nl, jp->nr);
		if (jp->expect > 0)
			sb_printf(out, ": %.0fx fewer", (double)pw / (double)jp->expect);
		sb_putc(out, '\n');
	}
}

void exec_join_counters(Exec *ex, SBuf *out)
{
	for (int i = 0; i < ex->njoins; i++) {
		JoinPlan *jp = ex->joins[i].jp;
		if (!jp || !jp->ran)
			continue;
		sb_printf(out, "join %d: %lld pairs asked in %ld call%s (%ld cache hit%s, %ld "
		          "request%s): %lld matched, %lld did not", i + 1, jp->asked, jp->calls,
		          jp->calls == 1 ? "" : "s", jp->hits, jp->hits == 1 ? "" : "s",
		          jp->requests, jp->requests == 1 ? "" : "s", jp->yes, jp->no);
		if (jp->unknown)
			sb_printf(out, ", %lld unknown (a reply that could not be read)", jp->unknown);
		sb_printf(out, "; pairwise: %lld\n", jp->nl * jp->nr);
	}
}

void exec_join_free(Exec *ex)
{
	for (int i = 0; i < ex->njoins; i++) {
		JoinPlan *jp = ex->joins[i].jp;
		if (!jp)
			continue;
		free(jp->mh);
		free(jp->msig);
		free(jp->lsql);
		free(jp->rsql);
		for (long long k = 0; k < jp->nl; k++)
			free(jp->lv[k]);
		for (long long k = 0; k < jp->nr; k++)
			free(jp->rv[k]);
		free(jp->lv);
		free(jp->rv);
		free(jp->ln);
		free(jp->rn);
		for (long long k = 0; jp->cand && k < jp->nl; k++)
			free(jp->cand[k]);
		free(jp->cand);
		free(jp->ncand);
		free(jp);
	}
	free(ex->joins);
}
