/*
 * plan_text.c: what the texts a statement will send weigh, read from the database before
 * anything is asked, for the plan's estimate of tokens (plan_cost.c).
 *
 * For an occurrence and the rows it may ask about (a walk's unit: the rows that pass its
 * structured WHERE; the rows a column is evaluated ahead for, or projected), one aggregate
 * over the listing of its text (Dialect.text_stats, in the backend's SQL), bounded to its
 * first PLAN_TEXT_ROWS rows so that a large table costs the plan no more than a small one,
 * gives the share of distinct texts (identical texts are asked once: the memo, the cache),
 * their bytes each cut to the passage allowance (the passages a candidate shows the model
 * fit in passage_tokens, exec_llm.c) on average, and, when every row was read, the largest
 * of those and their sum (else the allowance is the largest a text can be). A sample of the
 * texts of the first rows, written as a request writes them (llm_text_bytes: passages
 * joined, a JSON string in a JSON string), gives the bytes a request carries per byte
 * stored (on average for the expected case, the most any sampled text needs for the worst
 * case) and what the first rows' texts take, which a LIMIT without ORDER BY returns.
 *
 * The figures are read once per occurrence and WHERE (plan_recount plans again after ENUM
 * classification); a listing that cannot be read, or is stopped at the planning bound,
 * leaves them unknown, and plan_cost.c counts such calls at the passage allowance.
 */
#include "engine/plan_int.h"
#include "engine/sql_int.h"
#include "retrieve/retrieve.h"

#include <stdlib.h>
#include <string.h>

/* The bytes passages of stored value v[0..n) take in a request, as exec_llm.c cuts a
   value into passages: a list's elements, or one text in chunks (a blank line apart once
   sent). */
static double sent_bytes(const Sig *s, const char *v, size_t n)
{
	char **p = NULL;
	size_t np;
	if (s->list == 0) {
		TextSpan *sp;
		size_t k = text_chunks(v, n, RET_CHUNK, &sp);
		p = xmalloc((k ? k : 1) * sizeof *p);
		np = 0;
		for (size_t i = 0; i < k; i++)
			if (sp[i].len)
				p[np++] = xstrndup(v + sp[i].off, sp[i].len);
		free(sp);
	} else {
		np = text_passages(v, n, RET_CHUNK, &p);
	}
	double b = np ? (double)llm_text_bytes((const char *const *)p, (int)np) : 0;
	text_strv_free(p, np);
	return b;
}

static void sample(Exec *ex, const Sig *s, const char *inner, PlanText *t)
{
	char *sql = xprintf("SELECT suql_arg FROM (%s) AS suql_t LIMIT %d", inner, PLAN_TEXT_HEAD);
	ExecProbe p;
	double stored = 0, sent = 0, most = 0;
	double cap = (double)ex->set.passage_tokens * TEXT_BYTES_PER_TOKEN;
	t->nhead = 0;
	if (exec_probe_open(&p, ex, sql) == 0)
		while (t->nhead < PLAN_TEXT_HEAD && exec_probe_next(&p) > 0) {
			const char *v = store_text(p.c, 0);
			size_t n = v ? store_bytes(p.c, 0) : 0;
			double b = n ? sent_bytes(s, v, n) : 0;
			/* cut to the allowance as the passages are, in proportion */
			t->head[t->nhead++] = cap > 0 && (double)n > cap ? b * cap / (double)n : b;
			if (n == 0)
				continue;
			stored += (double)n;
			sent += b;
			if (b / (double)n > most)
				most = b / (double)n;
		}
	exec_probe_close(&p);
	free(sql);
	/* nothing sampled (every text NULL or empty): a byte for a byte */
	t->ratio = stored > 0 ? sent / stored : 1;
	t->ratio_max = most > 0 ? most : 1;
	if (t->ratio_max < t->ratio)
		t->ratio_max = t->ratio;
}

/* A figure of the aggregate's row: 0 for NULL (no rows, or sum() of none). */
static double figure(StoreCursor *c, int col)
{
	const char *v = store_text(c, col);
	return v ? strtod(v, NULL) : 0;
}

static void read_stats(Exec *ex, Block *b, const Occ *o, Expr *where, PlanText *t)
{
	const Sig *s = &ex->sigs[o->sig];
	const Dialect *d = ex->e->dialect;
	ResultList *cols = NULL;
	exec_col(ex->a, &cols, d->text_of(ex, o->arg), "suql_arg");
	Select *sel = exec_select(ex, b, cols, where, NULL);
	sel->limit = ast_integer(ex->a, PLAN_TEXT_ROWS);
	int relaxing = ex->relaxing;
	ex->relaxing = 1;   /* as the counts are: the WHERE without what needs the model */
	char *inner = exec_print_select(ex, sel);
	double cap = (double)ex->set.passage_tokens * TEXT_BYTES_PER_TOKEN;
	char *sql = d->text_stats(inner, cap > 0 ? (long long)cap : (long long)1 << 40);
	ExecProbe p;
	if (exec_probe_open(&p, ex, sql) == 0 && exec_probe_next(&p) > 0) {
		double rows = figure(p.c, 0), texts = figure(p.c, 1), distinct = figure(p.c, 2);
		double bytes = figure(p.c, 3), max = figure(p.c, 4);
		t->complete = rows < PLAN_TEXT_ROWS;
		t->share = rows > 0 ? distinct / rows : 0;
		t->avg = texts > 0 ? bytes / texts : 0;
		t->max = t->complete || cap <= 0 ? max : cap;
		t->total = t->complete ? bytes : -1;
		t->known = 1;
	}
	exec_probe_close(&p);
	free(sql);
	if (t->known) {
		/* the sample: the first rows, in the order a LIMIT without ORDER BY returns them
		   (on PostgreSQL the statement is printed again, its parameters with it) */
		free(inner);
		inner = exec_print_select(ex, sel);
		sample(ex, s, inner, t);
	}
	free(inner);
	ex->relaxing = relaxing;
}

const PlanText *plan_text_of(Exec *ex, Block *b, const Occ *o, Expr *where)
{
	if (o->sig < 0 || o->block < 0 || !ex->e->dialect->text_stats || b->budget.uncounted ||
	    !b->core || b->core->kind != CORE_SELECT)
		return NULL;
	for (int i = 0; i < ex->est.ntexts; i++) {
		PlanTextSeen *k = &ex->est.texts[i];
		if (k->occ == o->id && k->where == where)
			return k->t.known ? &k->t : NULL;
	}
	if (ex->est.ntexts == ex->est.captexts) {
		ex->est.captexts = ex->est.captexts ? ex->est.captexts * 2 : 8;
		ex->est.texts = xrealloc(ex->est.texts, (size_t)ex->est.captexts * sizeof *ex->est.texts);
	}
	PlanTextSeen *k = &ex->est.texts[ex->est.ntexts++];
	memset(k, 0, sizeof *k);
	k->occ = o->id;
	k->where = where;
	read_stats(ex, b, o, where, &k->t);
	return k->t.known ? &k->t : NULL;
}
