/*
 * exec_agg.c: the aggregate operator of free text: answer_agg(text, 'question'
 * [, ARRAY[answers]]) and summary_agg(text [, 'focus']), one value per group of rows, over
 * GROUP BY, a whole (filtered) table, in HAVING and ORDER BY, and over a subquery.
 *
 * The operator is a row of the operator table (exec_agg_row, at the end of this file):
 *
 *   entry     its bind entry (agg_bind) recognizes the call and makes an AggOcc; its
 *             mutate entry renames it suql_agg(id, text), an SQL aggregate (here)
 *   plan      exec_agg_plan: a dry run of the statement (no call: suql_agg keeps each
 *             group's texts and answers NULL) learns the groups; each group's passages are
 *             ranked by BM25 against the question (or focus) and the most relevant kept, up
 *             to agg_tokens; a group whose passages fit one request (batch_tokens) is small,
 *             and small groups share requests (batch of them, as candidates); a larger one
 *             is reduced hierarchically: its passages cut into chunks of one request each,
 *             each chunk's partial answer asked (text), then one answer over the partial
 *             answers (with the answers allowed), in as many levels as the partial answers
 *             need. The calls of every tree are added to the statement's cost before any
 *             call, so the budget is checked against them.
 *   run       exec_agg_run: every group's tree, level by level (each level's calls in flight
 *             together); results go into the memo keyed by (signature, the group's texts),
 *             where suql_agg finds them when the statement runs for its rows
 *   show      exec_agg_show: the groups and the tree's shape and calls, in the plan
 *   counters  exec_agg_counters: what was asked, level by level
 *   record    the partial answers and the passages of each group stay in the AggPlan for
 *             `:why` (exec_agg_why)
 *
 * A group met only when the statement runs (a free-text WHERE walked first, a correlated
 * subquery, naive mode) is answered on demand by the same tree, alone. Replies follow the
 * reply rules of answer() and summary(): an unreadable one is asked again, then the value
 * is NULL with a warning, never cached. The offline backend answers them too (a constrained
 * aggregate among its answers), labelled offline.
 *
 * Ownership: an AggOcc's strings and its AggPlan belong to the Exec (exec_agg_free).
 */
#include "engine/bind_int.h"
#include "engine/exec_int.h"
#include "engine/op_int.h"
#include "engine/record_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The statement's aggregates (Exec.opstate[OP_AGG]), or none (read, never written). */
static AggState *as(const Exec *ex)
{
	static AggState none;
	AggState *s = ex->opstate[OP_AGG];
	return s ? s : &none;
}

/* the tokens a partial answer is expected to take (a text answer's default max_tokens) */
#define AGG_PARTIAL_TOKENS 200

typedef struct AggGroup {
	char *key;            /* the group's texts, joined by \x1e, in the order SQLite fed them */
	size_t keylen;
	long rows;            /* rows with a text */
	size_t all_psg;       /* passages of its texts */
	char **psg;           /* those sent, most relevant first */
	size_t npsg;
	size_t ntok;          /* their tokens */
	int nleaves;          /* chunks: 1 for a small group */
	int levels;           /* levels of reduce calls above the chunks (0: a small group) */
	long calls;           /* calls of its own tree (a small group: 0, it shares requests) */
	char **partial;       /* the partial answers of its last level (NULL: none) */
	int npartial;
	int answered;
} AggGroup;

struct AggPlan {
	AggGroup *g;
	int n, cap;
	long small, big;      /* groups of each kind */
	long small_calls;     /* requests the small groups share */
	long leaf_calls, mid_calls, top_calls;   /* a large group's tree: chunks, reduces */
	int maxlevels;
	long sent_small, sent_leaf, sent_mid, sent_top;   /* what was asked (not from the cache) */
	long ondemand;        /* groups answered on demand */
};

static size_t fan_in(const Exec *ex)
{
	size_t f = ex->set.batch_tokens > 0 ? (size_t)ex->set.batch_tokens / AGG_PARTIAL_TOKENS : 32;
	return f < 2 ? 2 : f;
}

/* ---- a group's passages ---- */

typedef struct Ranked {
	double sc;
	size_t i;
} Ranked;

static int by_score(const void *a, const void *b)
{
	const Ranked *x = a, *y = b;
	if (x->sc != y->sc)
		return x->sc < y->sc ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void group_passages(Exec *ex, const AggOcc *ag, AggGroup *g)
{
	char **all = NULL;
	size_t n = 0, cap = 0;
	const char *p = g->key, *end = g->key + g->keylen;
	g->rows = 0;
	while (p <= end) {
		const char *q = memchr(p, '\x1e', (size_t)(end - p));
		if (!q)
			q = end;
		char **v;
		size_t k = text_passages(p, (size_t)(q - p), RET_CHUNK, &v);
		g->rows++;
		for (size_t i = 0; i < k; i++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				all = xrealloc(all, cap * sizeof *all);
			}
			all[n++] = v[i];
		}
		free(v);
		p = q + 1;
	}
	g->all_psg = n;
	Ranked *rk = xmalloc((n ? n : 1) * sizeof *rk);
	for (size_t i = 0; i < n; i++)
		rk[i] = (Ranked){0, i};
	if (ag->question && n) {
		TextTerms qt = TEXT_TERMS_INIT;
		text_terms(ag->question, strlen(ag->question), &qt);
		TextTerms *pt = xcalloc(n, sizeof *pt);
		double *sc = xmalloc(n * sizeof *sc);
		for (size_t i = 0; i < n; i++)
			text_terms(all[i], strlen(all[i]), &pt[i]);
		text_bm25(&qt, pt, n, sc);
		for (size_t i = 0; i < n; i++) {
			rk[i].sc = sc[i];
			text_terms_free(&pt[i]);
		}
		qsort(rk, n, sizeof *rk, by_score);
		free(pt);
		free(sc);
		text_terms_free(&qt);
	}
	size_t budget = (size_t)ex->set.agg_tokens, used = 0;
	g->psg = xmalloc((n ? n : 1) * sizeof *g->psg);
	g->npsg = 0;
	for (size_t i = 0; i < n; i++) {
		size_t t = TEXT_TOKENS(strlen(all[rk[i].i]));
		if (budget && used + t > budget)
			continue;   /* a shorter one after it may fit */
		g->psg[g->npsg++] = all[rk[i].i];
		all[rk[i].i] = NULL;
		used += t;
	}
	g->ntok = used;
	text_strv_free(all, n);
	free(rk);
}

/* The chunks of a group's passages: each fits one request (at least one passage). */
static int chunk_of(const Exec *ex, const AggGroup *g, size_t *starts)
{
	size_t lim = ex->set.batch_tokens > 0 ? (size_t)ex->set.batch_tokens : (size_t)-1;
	int k = 0;
	size_t used = 0;
	for (size_t i = 0; i < g->npsg; i++) {
		size_t t = TEXT_TOKENS(strlen(g->psg[i]));
		if (i == 0 || (used + t > lim && used > 0)) {
			if (starts)
				starts[k] = i;
			k++;
			used = 0;
		}
		used += t;
	}
	return k;
}

/* The tree of a group: chunks, levels of reduces and its calls. */
static void group_tree(const Exec *ex, AggGroup *g)
{
	g->nleaves = g->npsg ? chunk_of(ex, g, NULL) : 0;
	g->levels = 0;
	g->calls = 0;
	if (g->nleaves <= 1)
		return;
	size_t f = fan_in(ex), n = (size_t)g->nleaves;
	g->calls = (long)n;
	while (n > 1) {
		n = (n + f - 1) / f;
		g->calls += (long)n;
		g->levels++;
	}
}

/* Requests the small groups g[0..n) take, in order: batch at most, batch_tokens at most
   (a group larger alone still takes one). */
static long small_requests(const Exec *ex, AggGroup **g, int n, int *cut)
{
	int batch = ex->set.batch > 0 ? ex->set.batch : 1;
	long calls = 0;
	int in = 0;
	size_t tok = 0;
	for (int i = 0; i < n; i++) {
		if (in == 0 || in >= batch ||
		    (ex->set.batch_tokens > 0 && tok + g[i]->ntok > (size_t)ex->set.batch_tokens)) {
			calls++;
			in = 0;
			tok = 0;
		}
		if (cut)
			cut[i] = (int)calls - 1;
		in++;
		tok += g[i]->ntok;
	}
	return calls;
}

/* ---- asking ---- */

static void call_setup(const AggOcc *ag, LlmCall *c, int final)
{
	memset(c, 0, sizeof *c);
	if (ag->summary && !ag->question) {
		c->kind = LLM_SUMMARY;
		c->shape = LLM_SHAPE_TEXT;
		return;
	}
	c->kind = LLM_ANSWER;
	c->shape = LLM_SHAPE_TEXT;
	c->question = ag->asked;
	if (final && !ag->summary) {
		c->options = (const char *const *)ag->options;
		c->noptions = ag->noptions;
	}
}

static MemoVal *store(Exec *ex, const AggOcc *ag, const AggGroup *g, const LlmItem *it)
{
	MemoVal *mv = memo_put(ex->memo, ag->sig, g->key, g->keylen);
	free(mv->value);
	free(mv->warning);
	mv->value = it && it->value ? xstrdup(it->value) : NULL;
	mv->warning = it && it->warning ? xstrdup(it->warning) : NULL;
	if (it && it->unreadable)
		exec_unread(ex, ag->sig, it->text);
	return mv;
}

/* One level's calls: each with its items and their passages (borrowed from the groups). */
typedef struct Level {
	LlmCall *c;
	int n, cap;
} Level;

static LlmCall *level_add(Level *lv, const AggOcc *ag, int final, int nitems)
{
	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? lv->cap * 2 : 8;
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof *lv->c);
	}
	LlmCall *c = &lv->c[lv->n++];
	call_setup(ag, c, final);
	c->items = xcalloc((size_t)nitems, sizeof *c->items);
	return c;
}

static SuqlStatus level_run(Exec *ex, Level *lv, long *sent, SuqlErr *err)
{
	if (lv->n == 0)
		return SUQL_OK;
	LlmCall **cp = xmalloc((size_t)lv->n * sizeof *cp);
	for (int i = 0; i < lv->n; i++)
		cp[i] = &lv->c[i];
	SuqlStatus s = llm_run(ex->e->llm, cp, lv->n, NULL, NULL, err);
	free(cp);
	for (int i = 0; i < lv->n; i++)
		if (lv->c[i].status == LLM_DONE && !lv->c[i].cached)
			(*sent)++;
	return s;
}

static void level_free(Level *lv)
{
	for (int i = 0; i < lv->n; i++) {
		llm_call_clear(&lv->c[i]);
		free(lv->c[i].items);
	}
	free(lv->c);
	memset(lv, 0, sizeof *lv);
}

static void partial_set(AggGroup *g, char **v, int n)
{
	text_strv_free(g->partial, (size_t)g->npartial);
	g->partial = v;
	g->npartial = n;
}

/* Answer groups g[0..n) of ag: the small ones sharing requests, the large ones by their
   trees, each level's calls in flight together. */
static SuqlStatus answer_groups(Exec *ex, AggOcc *ag, AggGroup **g, int n, SuqlErr *err)
{
	struct AggPlan *ap = ag->ap;
	AggGroup **small = xmalloc(((size_t)n + 1) * sizeof *small);
	int nsmall = 0;
	for (int i = 0; i < n; i++) {
		if (g[i]->npsg == 0) {   /* no text: NULL without asking */
			store(ex, ag, g[i], NULL);
			g[i]->answered = 1;
		} else if (g[i]->nleaves <= 1) {
			small[nsmall++] = g[i];
		}
	}
	/* the first level: the small groups' requests and the large groups' chunks */
	Level lv = {0};
	int *cut = xmalloc(((size_t)nsmall + 1) * sizeof *cut);
	long nsc = small_requests(ex, small, nsmall, cut);
	int first_small = lv.n;
	for (long k = 0; k < nsc; k++) {
		int cnt = 0;
		for (int i = 0; i < nsmall; i++)
			cnt += cut[i] == k;
		LlmCall *c = level_add(&lv, ag, 1, cnt);
		for (int i = 0; i < nsmall; i++)
			if (cut[i] == k) {
				LlmItem *it = &c->items[c->nitems++];
				it->passages = (const char *const *)small[i]->psg;
				it->npassages = (int)small[i]->npsg;
			}
	}
	int first_leaf = lv.n;
	for (int i = 0; i < n; i++) {
		if (g[i]->nleaves <= 1)
			continue;
		size_t *st = xmalloc((size_t)g[i]->nleaves * sizeof *st);
		chunk_of(ex, g[i], st);
		for (int k = 0; k < g[i]->nleaves; k++) {
			size_t e = k + 1 < g[i]->nleaves ? st[k + 1] : g[i]->npsg;
			LlmCall *c = level_add(&lv, ag, 0, 1);
			c->items[0].passages = (const char *const *)g[i]->psg + st[k];
			c->items[0].npassages = (int)(e - st[k]);
			c->nitems = 1;
		}
		free(st);
	}
	long before = ap->sent_small;
	SuqlStatus s = level_run(ex, &lv, &ap->sent_small, err);
	/* the sent count of the first level is split between its two kinds */
	for (int i = first_leaf; i < lv.n; i++)
		if (lv.c[i].status == LLM_DONE && !lv.c[i].cached) {
			ap->sent_small--;
			ap->sent_leaf++;
		}
	(void)before;
	if (s == SUQL_OK) {
		int ci = first_small;
		for (long k = 0; k < nsc; k++, ci++)
			for (int i = 0, j = 0; i < nsmall; i++)
				if (cut[i] == k) {
					store(ex, ag, small[i], &lv.c[ci].items[j++]);
					small[i]->answered = 1;
				}
		ci = first_leaf;
		for (int i = 0; i < n; i++) {
			if (g[i]->nleaves <= 1)
				continue;
			char **pv = xmalloc((size_t)g[i]->nleaves * sizeof *pv);
			int np = 0;
			for (int k = 0; k < g[i]->nleaves; k++, ci++) {
				const LlmItem *it = &lv.c[ci].items[0];
				if (it->value)
					pv[np++] = xstrdup(it->value);
				else if (it->unreadable)
					exec_unread(ex, ag->sig, it->text);
			}
			partial_set(g[i], pv, np);
		}
	}
	level_free(&lv);
	free(cut);
	free(small);
	/* the levels of reduces: while a group has more partial answers than one request holds */
	size_t f = fan_in(ex);
	for (int more = 1; s == SUQL_OK && more;) {
		more = 0;
		for (int i = 0; i < n; i++) {
			if (g[i]->nleaves <= 1 || (size_t)g[i]->npartial <= f)
				continue;
			more = 1;
			for (int k = 0; k < g[i]->npartial; k += (int)f) {
				int m = g[i]->npartial - k < (int)f ? g[i]->npartial - k : (int)f;
				LlmCall *c = level_add(&lv, ag, 0, 1);
				c->items[0].passages = (const char *const *)g[i]->partial + k;
				c->items[0].npassages = m;
				c->nitems = 1;
			}
		}
		if (!more)
			break;
		s = level_run(ex, &lv, &ap->sent_mid, err);
		int ci = 0;
		for (int i = 0; s == SUQL_OK && i < n; i++) {
			if (g[i]->nleaves <= 1 || (size_t)g[i]->npartial <= f)
				continue;
			int calls = (g[i]->npartial + (int)f - 1) / (int)f;
			char **pv = xmalloc((size_t)calls * sizeof *pv);
			int np = 0;
			for (int k = 0; k < calls; k++, ci++)
				if (lv.c[ci].items[0].value)
					pv[np++] = xstrdup(lv.c[ci].items[0].value);
			partial_set(g[i], pv, np);
		}
		level_free(&lv);
	}
	/* the top: one answer over each large group's partial answers, with the answers
	   allowed; a group none of whose chunks said anything is NULL without a call */
	int *who = xmalloc(((size_t)n + 1) * sizeof *who);
	int nw = 0;
	for (int i = 0; s == SUQL_OK && i < n; i++) {
		if (g[i]->nleaves <= 1)
			continue;
		if (g[i]->npartial == 0) {
			store(ex, ag, g[i], NULL);
			g[i]->answered = 1;
			continue;
		}
		LlmCall *c = level_add(&lv, ag, 1, 1);
		c->items[0].passages = (const char *const *)g[i]->partial;
		c->items[0].npassages = g[i]->npartial;
		c->nitems = 1;
		who[nw++] = i;
	}
	if (s == SUQL_OK)
		s = level_run(ex, &lv, &ap->sent_top, err);
	for (int k = 0; s == SUQL_OK && k < nw; k++) {
		store(ex, ag, g[who[k]], &lv.c[k].items[0]);
		g[who[k]]->answered = 1;
	}
	level_free(&lv);
	free(who);
	return s;
}

/* ---- the SQL aggregate suql_agg(id, text) ---- */

typedef struct AggAcc {
	int id;
	long rows;
	SBuf b;
} AggAcc;

static void agg_step(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	(void)argc;
	AggAcc *a = sqlite3_aggregate_context(c, (int)sizeof *a);
	if (!a) {
		sqlite3_result_error_nomem(c);
		return;
	}
	a->id = sqlite3_value_int(argv[0]);
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	const char *t = (const char *)sqlite3_value_text(argv[1]);
	int n = sqlite3_value_bytes(argv[1]);
	if (a->rows++)
		sb_putc(&a->b, '\x1e');
	sb_putn(&a->b, t ? t : "", (size_t)n);
}

/* The group of ag with these texts: found, or added (its passages and tree made). */
static AggGroup *group_get(Exec *ex, AggOcc *ag, const char *key, size_t len, int *added)
{
	struct AggPlan *ap = ag->ap;
	*added = 0;
	for (int i = 0; i < ap->n; i++)
		if (ap->g[i].keylen == len && memcmp(ap->g[i].key, key, len) == 0)
			return &ap->g[i];
	if (ap->n == ap->cap) {
		ap->cap = ap->cap ? ap->cap * 2 : 16;
		ap->g = xrealloc(ap->g, (size_t)ap->cap * sizeof *ap->g);
	}
	AggGroup *g = &ap->g[ap->n++];
	memset(g, 0, sizeof *g);
	g->key = xstrndup(key, len);
	g->keylen = len;
	group_passages(ex, ag, g);
	group_tree(ex, g);
	*added = 1;
	return g;
}

static void agg_final(sqlite3_context *c)
{
	AggAcc *a = sqlite3_aggregate_context(c, 0);
	Engine *e = sqlite3_user_data(c);
	Exec *ex = e->cur;
	if (!ex) {
		sqlite3_result_error(c, "suql's free-text functions run only inside statements "
		                     "that suql runs", -1);
		goto out;
	}
	if (!a || a->rows == 0 || ex->counting) {   /* no text in the group */
		sqlite3_result_null(c);
		goto out;
	}
	if (a->id < 0 || a->id >= as(ex)->n) {
		sqlite3_result_error(c, "an aggregate refers to no expression of this statement", -1);
		goto out;
	}
	AggOcc *ag = &as(ex)->a[a->id];
	if (ag->same >= 0)   /* the same question of the same text: one set of groups */
		ag = &as(ex)->a[ag->same];
	if (!ag->ap)
		ag->ap = xcalloc(1, sizeof *ag->ap);
	const char *key = a->b.s ? a->b.s : "";
	size_t len = a->b.len;
	if (as(ex)->collect) {
		int added;
		group_get(ex, ag, key, len, &added);
		sqlite3_result_null(c);
		goto out;
	}
	MemoVal *mv = memo_get(ex->memo, ag->sig, key, len);
	if (!mv && !ex->memo_only) {   /* a group not met by the dry run: asked alone now */
		int added;
		AggGroup *g = group_get(ex, ag, key, len, &added);
		ag->ap->ondemand++;
		SuqlErr err = {0};
		int saved = ex->in_fn;
		ex->in_fn = 1;
		SuqlStatus st = answer_groups(ex, ag, &g, 1, &err);
		ex->in_fn = saved;
		if (st != SUQL_OK) {
			exec_fail(ex, st, &err);
			sqlite3_result_error(c, err.msg ? err.msg : "no answer", -1);
			err_clear(&err);
			goto out;
		}
		err_clear(&err);
		mv = memo_get(ex->memo, ag->sig, key, len);
	}
	if (!mv || !mv->value) {
		if (mv && mv->warning && !mv->warned) {
			mv->warned = 1;
			exec_warn(ex, mv->warning);
		}
		sqlite3_result_null(c);
	} else {
		sqlite3_result_text(c, mv->value, -1, SQLITE_TRANSIENT);
	}
out:
	if (a)
		sb_free(&a->b);
}

static void exec_agg_register(Engine *e)
{
	sqlite3_create_function(e->db, "suql_agg", 2, SQLITE_UTF8, e, NULL, agg_step, agg_final);
}

/* ---- plan and run ---- */

static int early_ok(const Exec *ex)
{
	/* a dry run of a statement that writes would write: there the groups are met on
	   demand, unless the database cannot call suql per row, whose groups are read by a
	   statement of their own (collect_keys) */
	return (ex->ast->stmt->kind == ST_SELECT || !ex->e->dialect->functions) &&
	       ex->set.optimize != OPT_OFF;
}

/* A backend without suql's functions (PostgreSQL): the groups of each aggregate, read by
   a statement of its block (FROM, WHERE, GROUP BY) with the group's key as a last column
   (Dialect.group_key: its texts joined as agg_step joins them), groups in the order of
   the GROUP BY terms, NULL first as SQLite sorts it. There is no suql_agg to call, so the
   dry run is this query. */
static SuqlStatus collect_keys(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < as(ex)->n && s == SUQL_OK; i++) {
		AggOcc *ag = &as(ex)->a[i];
		if (ag->same >= 0 || ag->block < 0 || !ex->blocks[ag->block].core)
			continue;
		Block *b = &ex->blocks[ag->block];
		ResultList *cols = NULL;
		for (int k = 0; b->core->cols && k < b->core->cols->n; k++) {
			exec_col(ex->a, &cols, NULL, NULL);
			*cols->items[k] = *b->core->cols->items[k];
		}
		exec_col(ex->a, &cols, ex->e->dialect->group_key(ex, *ag->slot), "suql_key");
		OrderList *ord = NULL;
		const ExprList *g = b->core->group;
		if (g && g->n) {
			ord = arena_alloc(ex->a, sizeof *ord);
			ord->cap = g->n;
			ord->items = arena_alloc(ex->a, (size_t)g->n * sizeof *ord->items);
			for (int k = 0; k < g->n; k++) {
				OrderTerm *t = arena_alloc(ex->a, sizeof *t);
				t->expr = g->items[k];
				t->nulls = NULLS_FIRST;
				ord->items[ord->n++] = t;
			}
		}
		Select *sel = exec_select(ex, b, cols, b->core->where, ord);
		SelectCore *c = sel->cores[0];
		*c = *b->core;
		c->cols = cols;
		c->having = NULL;
		c->distinct = DISTINCT_NONE;
		StoreCursor *cur;
		s = ex->e->dialect->final_query(ex, sel, &cur, err);
		int rc = 0;
		while (s == SUQL_OK && (rc = store_next(cur)) > 0) {
			const char *t = store_text(cur, store_column_count(cur) - 1);
			int added;
			if (t)
				group_get(ex, ag, t, strlen(t), &added);
		}
		if (s == SUQL_OK) {
			store_done(cur);
			if (rc < 0)
				s = err_set(err, SUQL_ERROR, "reading the groups of the aggregates failed");
		}
	}
	return s;
}

/* The dry run that learns the groups: the statement itself where suql's functions run
   (SQLite: suql_agg keeps each group's texts), else a statement of the groups' keys. */
static SuqlStatus collect(Exec *ex, SuqlErr *err)
{
	return ex->e->dialect->functions ? exec_final_dry(ex, err) : collect_keys(ex, err);
}

static SuqlStatus exec_agg_plan(Exec *ex, SuqlErr *err)
{
	if (as(ex)->n == 0 || as(ex)->planned || !early_ok(ex))
		return SUQL_OK;
	for (int i = 0; i < as(ex)->n; i++)
		if (!as(ex)->a[i].ap && as(ex)->a[i].same < 0)
			as(ex)->a[i].ap = xcalloc(1, sizeof *as(ex)->a[i].ap);
	int mo = ex->memo_only;
	as(ex)->collect = 1;
	ex->memo_only = 1;
	SuqlStatus s = collect(ex, err);
	as(ex)->collect = 0;
	ex->memo_only = mo;
	as(ex)->planned = 1;
	if (s != SUQL_OK)
		return s;
	long long total = 0;
	for (int i = 0; i < as(ex)->n; i++) {
		struct AggPlan *ap = as(ex)->a[i].ap;
		if (!ap)
			continue;
		AggGroup **sg = xmalloc(((size_t)ap->n + 1) * sizeof *sg);
		int ns = 0;
		for (int k = 0; k < ap->n; k++) {
			AggGroup *g = &ap->g[k];
			if (g->npsg == 0)
				continue;
			if (g->nleaves <= 1) {
				sg[ns++] = g;
				ap->small++;
				continue;
			}
			ap->big++;
			ap->leaf_calls += g->nleaves;
			ap->top_calls++;
			ap->mid_calls += g->calls - g->nleaves - 1;
			if (g->levels > ap->maxlevels)
				ap->maxlevels = g->levels;
		}
		ap->small_calls = small_requests(ex, sg, ns, NULL);
		free(sg);
		total += ap->small_calls + ap->leaf_calls + ap->mid_calls + ap->top_calls;
	}
	ex->est.worst[FT_COST_AGG] += total;
	ex->est.expect[FT_COST_AGG] += total;
	ex->est.worst_total += total;
	ex->est.expect_total += total;
	return SUQL_OK;
}

/* The aggregates' floor: every group's passages read once, and no call read twice: the
   small groups packed into the calls they fill, a large group's passages in as many calls
   as they fill and one call that combines their partial answers (the levels between are
   this plan's, not the floor's). Not known before the groups are (the plan reads the
   rows: not under EXPLAIN). An aggregate asking what an earlier one asks of the same
   text counts once. */
static long long exec_agg_op_floor(Exec *ex)
{
	if (!as(ex)->planned)
		return -1;
	long long total = 0;
	for (int i = 0; i < as(ex)->n; i++) {
		const struct AggPlan *ap = as(ex)->a[i].ap;
		if (ap && as(ex)->a[i].same < 0)
			total += ap->small_calls + ap->leaf_calls + ap->top_calls;
	}
	return total;
}

static SuqlStatus exec_agg_run(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; i < as(ex)->n && s == SUQL_OK; i++) {
		AggOcc *ag = &as(ex)->a[i];
		if (!ag->ap || ag->ap->n == 0)
			continue;
		AggGroup **g = xmalloc((size_t)ag->ap->n * sizeof *g);
		int n = 0;
		for (int k = 0; k < ag->ap->n; k++)
			if (!ag->ap->g[k].answered &&
			    !memo_get(ex->memo, ag->sig, ag->ap->g[k].key, ag->ap->g[k].keylen))
				g[n++] = &ag->ap->g[k];
		s = answer_groups(ex, ag, g, n, err);
		free(g);
	}
	return s;
}

/* ---- its row of the operator table (op.c) ---- */

static int exec_agg_op_applies(const Exec *ex)
{
	return as(ex)->n > 0;
}

/* The groups are read now (a dry run, no call) when nothing the model answers comes
   before them, else after the walks (exec_agg_op_after). */
static SuqlStatus exec_agg_op_plan(Exec *ex, SuqlErr *err)
{
	if (ex->nocc == 0 && !op_slot_applies(ex, OP_JOIN))
		return exec_agg_plan(ex, err);
	return SUQL_OK;
}

/* After the walks: the groups read if they were not yet (the budget checked against
   their calls then), and every group answered. */
static SuqlStatus exec_agg_op_after(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	if (!as(ex)->planned) {
		s = exec_agg_plan(ex, err);
		if (s == SUQL_OK && ex->set.budget > 0 && ex->est.expect_total > ex->set.budget)
			s = exec_over_budget(ex, err);
	}
	if (s == SUQL_OK)
		s = exec_agg_run(ex, err);
	return s;
}

static const char *exec_agg_op_refuse(Exec *ex, const Dialect *d)
{
	if (d->functions)   /* suql's functions run in it: nothing is refused */
		return NULL;
	for (int i = 0; i < as(ex)->n; i++) {
		const AggOcc *ag = &as(ex)->a[i];
		if (ag->block < 0 || ex->blocks[ag->block].correlated) {
			ex->refused_at = ag->orig;
			return OP_ROW_BY_ROW ": an aggregate over free text in a correlated subquery (its "
			       "groups are met row by row)";
		}
	}
	return NULL;
}

/* ---- show ---- */

#define S(n) ((n) == 1 ? "" : "s")

static void exec_agg_show(Exec *ex, SBuf *out)
{
	for (int i = 0; i < as(ex)->n; i++) {
		AggOcc *ag = &as(ex)->a[i];
		char *w = exec_print_expr(ex, ag->orig);
		sb_printf(out, "aggregate %s:", w);
		free(w);
		if (ag->same >= 0) {
			sb_printf(out, " the same as aggregate %d (its answers serve both)\n",
			          ag->same + 1);
			continue;
		}
		struct AggPlan *ap = ag->ap;
		if (!as(ex)->planned || !ap) {
			sb_puts(out, " its groups are read when the statement runs (after the walk, or "
			        "on demand); each group alone: small ones one call, large ones reduced\n");
			continue;
		}
		long rows = 0;
		for (int k = 0; k < ap->n; k++)
			rows += ap->g[k].rows;
		sb_printf(out, " %d group%s (%ld text%s), the passages most relevant to %s "
		          "first, up to %d tokens a group\n", ap->n, S(ap->n), rows, S(rows),
		          ag->question ? "its question (BM25)" : "nothing (in order)",
		          ex->set.agg_tokens);
		if (ap->small)
			sb_printf(out, "  %ld small group%s (one request's worth each): %ld request%s, "
			          "as many groups to a request as fit\n", ap->small, S(ap->small),
			          ap->small_calls, S(ap->small_calls));
		if (ap->big) {
			sb_printf(out, "  %ld large group%s reduced: %ld chunk call%s (partial answers)",
			          ap->big, S(ap->big), ap->leaf_calls, S(ap->leaf_calls));
			if (ap->mid_calls)
				sb_printf(out, ", %ld call%s over partial answers", ap->mid_calls,
				          S(ap->mid_calls));
			sb_printf(out, ", then %ld final call%s over them (%d level%s of reduce)\n",
			          ap->top_calls, S(ap->top_calls), ap->maxlevels, S(ap->maxlevels));
			for (int k = 0, shown = 0; k < ap->n && shown < 5; k++) {
				const AggGroup *g = &ap->g[k];
				if (g->nleaves <= 1)
					continue;
				sb_printf(out, "    group %d: %ld text%s, %zu of %zu passages (%zu tokens) "
				          "-> %d chunks -> 1 answer: %ld calls\n", k + 1, g->rows, S(g->rows),
				          g->npsg, g->all_psg, g->ntok, g->nleaves, g->calls);
				shown++;
			}
		}
		long calls = ap->small_calls + ap->leaf_calls + ap->mid_calls + ap->top_calls;
		sb_printf(out, "  calls: %ld at most, for %d group%s\n", calls, ap->n, S(ap->n));
	}
}

static void exec_agg_counters(Exec *ex, SBuf *out)
{
	for (int i = 0; i < as(ex)->n; i++) {
		const struct AggPlan *ap = as(ex)->a[i].ap;
		if (!ap || ap->n == 0)
			continue;
		sb_printf(out, "aggregate %d: %d group%s; sent %ld request%s for small groups, %ld "
		          "chunk call%s, %ld middle and %ld final reduce call%s", i + 1, ap->n, S(ap->n),
		          ap->sent_small, S(ap->sent_small), ap->sent_leaf, S(ap->sent_leaf),
		          ap->sent_mid, ap->sent_top, S(ap->sent_top));
		if (ap->ondemand)
			sb_printf(out, "; %ld group%s answered on demand", ap->ondemand, S(ap->ondemand));
		sb_putc(out, '\n');
	}
}

/* a passage or answer on one line, cut at about 160 bytes (on a character boundary) */
static void put_line(SBuf *out, const char *t)
{
	size_t n = strlen(t), k = n > 160 ? 157 : n;
	while (k < n && k > 0 && ((unsigned char)t[k] & 0xC0) == 0x80)
		k--;
	for (size_t i = 0; i < k; i++)
		sb_putc(out, t[i] == '\n' || t[i] == '\r' || t[i] == '\t' ? ' ' : t[i]);
	if (k < n)
		sb_puts(out, "...");
}

static void exec_agg_record(Exec *ex)
{
	Record *r = ex->rec;
	if (!r)
		return;
	for (int i = 0; i < as(ex)->n; i++) {
		AggOcc *ag = &as(ex)->a[i];
		const struct AggPlan *ap = ag->ap;
		char *w = exec_print_expr(ex, ag->orig);
		for (int k = 0; ap && k < ap->n; k++) {
			const AggGroup *g = &ap->g[k];
			const MemoVal *mv = memo_get(ex->memo, ag->sig, g->key, g->keylen);
			SBuf b = SBUF_INIT;
			sb_printf(&b, "group %d: %s over %ld text%s: ", r->ngroups + 1, w, g->rows,
			          S(g->rows));
			if (mv && mv->value) {
				sb_putc(&b, '\'');
				put_line(&b, mv->value);
				sb_putc(&b, '\'');
			} else {
				sb_puts(&b, "NULL");
			}
			sb_printf(&b, "%s\n", g->nleaves > 1 ? " (reduced)" : "");
			sb_puts(&b, "  its first text: ");
			size_t fl = strcspn(g->key, "\x1e");
			char *first = xstrndup(g->key, fl);
			put_line(&b, first);
			free(first);
			sb_putc(&b, '\n');
			if (g->nleaves > 1) {
				sb_printf(&b, "  reduced from %d chunks; the partial answers it was answered "
				          "from (%d):\n", g->nleaves, g->npartial);
				for (int p = 0; p < g->npartial; p++) {
					sb_printf(&b, "    %d. ", p + 1);
					put_line(&b, g->partial[p]);
					sb_putc(&b, '\n');
				}
			}
			sb_printf(&b, "  passages used: %zu of %zu (%zu tokens), most relevant first:\n",
			          g->npsg, g->all_psg, g->ntok);
			for (size_t p = 0; p < g->npsg && p < 10; p++) {
				sb_puts(&b, "    - ");
				put_line(&b, g->psg[p]);
				sb_putc(&b, '\n');
			}
			if (g->npsg > 10)
				sb_printf(&b, "    ... and %zu more\n", g->npsg - 10);
			r->groups = xrealloc(r->groups, ((size_t)r->ngroups + 1) * sizeof *r->groups);
			r->groups[r->ngroups++] = sb_steal(&b);
		}
		free(w);
	}
}

static void exec_agg_free(Exec *ex)
{
	for (int i = 0; i < as(ex)->n; i++) {
		AggOcc *ag = &as(ex)->a[i];
		free(ag->question);
		free(ag->asked);
		for (int k = 0; k < ag->noptions; k++)
			free(ag->options[k]);
		free(ag->options);
		struct AggPlan *ap = ag->ap;
		for (int k = 0; ap && k < ap->n; k++) {
			free(ap->g[k].key);
			text_strv_free(ap->g[k].psg, ap->g[k].npsg);
			text_strv_free(ap->g[k].partial, (size_t)ap->g[k].npartial);
		}
		if (ap)
			free(ap->g);
		free(ap);
	}
	free(as(ex)->a);
	free(ex->opstate[OP_AGG]);
	ex->opstate[OP_AGG] = NULL;
}

/* ---- the binder's recognition, and the row ---- */

static const OpFunc agg_funcs[] = {{"answer_agg", 2, 3}, {"summary_agg", 1, 2}, {NULL, 0, 0}};

/* answer_agg(t, 'q' [, ARRAY[...]]) and summary_agg(t [, 'focus']): an AggOcc; its question
   must be a literal, and it runs only in statements (not a view). */
static int agg_bind(Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at)
{
	Exec *ex = bd->ex;
	Expr *e = *slot;
	if (e->over || e->star || e->distinct)
		return OP_BIND_NONE;
	int sum = f == &agg_funcs[1];
	char fn[32];
	snprintf(fn, sizeof fn, "%s()", f->name);
	Expr *q = e->list->n > 1 ? e->list->items[1] : NULL;
	char *text = q ? bind_literal(ex, b, q) : NULL;
	char buf[96];
	const char *problem = !q ? NULL : !text ? "must be a literal text"
	                      : bind_occ_question_problem(SQLITE_TEXT, text, strlen(text), buf,
	                                                  sizeof buf);
	if (!problem && ex->standalone)
		problem = "cannot be stored (a view or trigger): an aggregate over free text runs only "
		          "in statements";
	if (problem) {
		if (bd->st == SUQL_OK && bd->err) {
			const Expr *w = q ? q : e;
			bd->st = err_at(bd->err, SUQL_ERROR, ex->sql, ex->len, w->span.off, w->span.len,
			                sum ? "write summary_agg(reviews) or summary_agg(reviews, 'parking')"
			                    : "write answer_agg(reviews, 'is parking easy?')",
			                "the %s of %s %s", sum ? "focus" : "question", fn, problem);
		}
		return OP_BIND_TOOK;
	}
	if (!ex->opstate[OP_AGG])
		ex->opstate[OP_AGG] = xcalloc(1, sizeof(AggState));
	AggState *st = ex->opstate[OP_AGG];
	st->a = xrealloc(st->a, ((size_t)st->n + 1) * sizeof *st->a);
	AggOcc *ag = &st->a[st->n];
	memset(ag, 0, sizeof *ag);
	ag->id = st->n++;
	ag->block = b;
	ag->slot = slot;
	ag->orig = ast_expr_copy(ex->a, e);
	ag->summary = sum;
	ag->question = text ? xstrdup(text) : NULL;
	ag->asked = !text ? NULL : sum ? xprintf("In a few sentences, what do the texts say about "
	                                         "this: %s", text) : xstrdup(text);
	Sig s = {0};
	s.kind = sum && !text ? FT_SUMMARY : FT_ANSWER;
	s.question = ag->asked ? xstrdup(ag->asked) : NULL;
	s.op = xstrdup("agg");
	s.list = -1;
	if (!sum && e->list->n > 2 && e->list->items[2]->kind == EX_ARRAY) {
		ExprList *ol = e->list->items[2]->list;
		for (int i = 0; ol && i < ol->n; i++) {
			const Expr *x = ol->items[i];
			const char *v = bind_literal(ex, b, x->kind == EX_UNARY ? x->left : x);
			char *t = v && x->kind == EX_UNARY && x->op == OP_NEG ? xprintf("-%s", v) : NULL;
			exec_strv_push(&ag->options, &ag->noptions, t ? t : v ? v : "");
			exec_strv_push(&s.options, &s.noptions, t ? t : v ? v : "");
			free(t);
		}
	}
	ag->sig = memo_sig_intern(ex, &s);
	ag->same = -1;
	for (int i = 0; i < ag->id && ag->same < 0; i++)
		if (st->a[i].sig == ag->sig && st->a[i].block == b &&
		    ast_expr_equal(st->a[i].orig->list->items[0], e->list->items[0]))
			ag->same = i;
	if (b >= 0 && at->pos != POS_WHERE)
		ex->blocks[b].aggregate = 1;
	bind_walk(bd, b, &e->list->items[0], at->pos, 0, 1, at->pocc, at->rcol);
	return OP_BIND_TOOK;
}

/* answer_agg(t, ...) and summary_agg(t, ...) -> suql_agg(id, t) */
static void agg_mutate(Exec *ex)
{
	Arena *a = ex->a;
	for (int i = 0; i < as(ex)->n; i++) {
		Expr *m = *as(ex)->a[i].slot;
		Expr *t = m->list->items[0];
		m->name = ast_name_make(a, "suql_agg");
		m->list = NULL;
		ast_list_push(a, &m->list, ast_integer(a, as(ex)->a[i].id));
		ast_list_push(a, &m->list, t);
	}
}

const EngineOp exec_agg_row = {
	.name = "aggregate",
	.slot = OP_AGG,
	.construct = OP_EVALUATED,
	.funcs = agg_funcs,
	.bind = agg_bind,
	.mutate = agg_mutate,
	.functions = exec_agg_register,
	.applies = exec_agg_op_applies,
	.plan = exec_agg_op_plan,
	.plan_reads = 1,
	.floor = exec_agg_op_floor,
	.after = exec_agg_op_after,
	.show = exec_agg_show,
	.counters = exec_agg_counters,
	.record = exec_agg_record,
	.refuse = exec_agg_op_refuse,
	.free = exec_agg_free,
};
