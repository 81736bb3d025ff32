/*
 * exec_record.c: making the record of a statement (record_int.h) while it runs. Three
 * hooks feed it: exec_llm.c notes each answer as its call completes (Exec.on_ask: the
 * passages it showed, the request, the reply), the walk notes its examined candidates when
 * it ends (exec_record_walk, on both backends), and the statement, once its rows are
 * out, reads its own SELECT again with the keys of its rows and the texts its free text
 * reads (exec_record_result), every function answering from the memo alone, so that
 * each returned row is tied to the asks it depends on without any call (where the
 * backend's functions do not answer from the memo, the backend prints that reading and
 * runs it, and exec_record_rows reads its rows). exec_record_end hands the record to the
 * Engine.
 */
#include "engine/exec_int.h"
#include "engine/plan_int.h"
#include "engine/record_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exec_record_free(Record *r)
{
	if (!r)
		return;
	free(r->sql);
	free(r->backend);
	for (int i = 0; i < r->ngroups; i++)
		free(r->groups[i]);
	free(r->groups);
	for (int i = 0; i < r->nwhat; i++) {
		free(r->what[i].text);
		free(r->what[i].question);
	}
	free(r->what);
	free(r->sig_what);
	for (int i = 0; i < r->nasks; i++) {
		RecAsk *a = &r->asks[i];
		free(a->reply);
		free(a->value);
		free(a->evidence);
		free(a->warning);
		free(a->note);
		for (int k = 0; k < a->npsg; k++)
			free(a->psg[k]);
		free(a->psg);
	}
	free(r->asks);
	for (int i = 0; i < r->nunits; i++)
		free(r->units[i].atom_what);
	free(r->units);
	for (long long i = 0; i < r->ncands; i++)
		free(r->cands[i].label);
	free(r->cands);
	free(r->ids);
	free(r->cask);
	free(r->cverdict);
	for (int i = 0; i < r->nid; i++)
		free(r->id_names[i]);
	free(r->id_names);
	free(r->rows);
	free(r->rwhat);
	free(r->rask);
	free(r->rverdict);
	free(r);
}

static int record_ask(Exec *ex, int sig, const LlmCall *call, int item, char *const *psg,
                      size_t npsg);

void exec_record_begin(Exec *ex)
{
	ex->rec = xcalloc(1, sizeof *ex->rec);
	ex->on_ask = record_ask;
}

/* Room for one more of *n items of size sz in *v (capacity *cap). */
static void *grow(void *v, long long n, long long *cap, size_t sz)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 16;
	return xrealloc(v, (size_t)*cap * sz);
}

/* The Record.what index of signature sig: the first occurrence asking it, as written. */
static int what_of(Exec *ex, int sig)
{
	Record *r = ex->rec;
	if (sig < 0)
		return -1;
	if (sig >= r->nsig_what) {
		int n = ex->nsigs > sig ? ex->nsigs : sig + 1;
		r->sig_what = xrealloc(r->sig_what, (size_t)n * sizeof *r->sig_what);
		memset(r->sig_what + r->nsig_what, 0, (size_t)(n - r->nsig_what) * sizeof *r->sig_what);
		r->nsig_what = n;
	}
	if (r->sig_what[sig])
		return r->sig_what[sig] - 1;
	const Sig *s = &ex->sigs[sig];
	RecWhat w = {0};
	for (int i = 0; i < ex->nocc && !w.text; i++)
		if (ex->occ[i].sig == sig)
			w.text = exec_print_expr(ex, ex->occ[i].orig);
	if (!w.text)   /* a question given per row */
		w.text = s->kind == FT_SUMMARY ? xstrdup("summary(...)")
		         : s->kind == FT_EXTRACT ? xprintf("extract(..., '%s')", s->question)
		                                 : xprintf("answer(..., '%s')", s->question);
	w.question = s->question ? xstrdup(s->question) : NULL;
	w.kind = (int)s->kind;
	w.pg = (int)s->pg;
	w.noptions = s->noptions;
	long long cap = r->capwhat;
	r->what = grow(r->what, r->nwhat, &cap, sizeof *r->what);
	r->capwhat = (int)cap;
	r->what[r->nwhat++] = w;
	r->sig_what[sig] = r->nwhat;
	return r->nwhat - 1;
}

/* An answer for signature sig arrived in item of call, with its passages: the ask's number
   + 1 for MemoVal.rec (0: not kept). exec_llm.c calls it as Exec.on_ask, which
   exec_record_begin sets. */
static int record_ask(Exec *ex, int sig, const LlmCall *call, int item, char *const *psg,
                      size_t npsg)
{
	Record *r = ex->rec;
	if (!r)
		return 0;
	if (r->nasks >= REC_MAX_ASKS) {
		r->asks_dropped++;
		return 0;
	}
	long long cap = r->capasks;
	r->asks = grow(r->asks, r->nasks, &cap, sizeof *r->asks);
	r->capasks = (int)cap;
	RecAsk *a = &r->asks[r->nasks];
	memset(a, 0, sizeof *a);
	a->what = what_of(ex, sig);
	const LlmItem *it = &call->items[item];
	a->wave = ex->in_fn ? 0 : (int)ex->cnt.waves;
	a->cached = it->cached || call->cached;
	a->request = a->cached ? 0 : call->request;
	a->ncall = call->nitems;
	a->tokens_in = call->tokens_in;
	a->tokens_out = call->tokens_out;
	a->unreadable = it->unreadable;
	a->has_conf = ex->sigs[sig].kind == FT_VERIFY && it->has_confidence;
	a->conf = it->confidence;
	a->low = a->has_conf && exec_llm_low_confidence(ex, it);
	a->min_conf = llm_min_confidence(ex->e->llm);
	a->verdict = ex->sigs[sig].kind != FT_VERIFY ? VERDICT_NULL
	             : it->unreadable || a->low ? VERDICT_NULL : it->verdict ? VERDICT_YES
	                                                                    : VERDICT_NO;
	a->reply = it->text ? xstrdup(it->text) : NULL;
	a->value = it->value ? xstrdup(it->value) : NULL;
	a->evidence = it->evidence ? xstrdup(it->evidence) : NULL;
	a->warning = it->warning ? xstrdup(it->warning) : NULL;
	a->note = it->note ? xstrdup(it->note) : NULL;
	a->offline = llm_is_offline(ex->e->llm);
	a->psg = xmalloc((npsg ? npsg : 1) * sizeof *a->psg);
	for (size_t k = 0; k < npsg; k++)
		a->psg[a->npsg++] = xstrdup(psg[k]);
	return ++r->nasks;
}

/* ---- a walk's candidates ---- */

/* A readable label for a row: its first short text value that is not a list. */
static char *label_text(const char *t, int len)
{
	if (!t || !*t || *t == '[' || *t == '{' || len > 120)
		return NULL;
	return xstrdup(t);
}

/* The table whose rows are labelled: the block's first FROM item, when its rows have keys. */
static const char *label_table(const Block *b)
{
	if (!b->identity || b->nitems < 1 || b->items[0].kind != IT_TABLE || !b->items[0].table)
		return NULL;
	return b->items[0].table;
}

/* The labels of the rows of FROM item it (a table) whose identities are ids, read in one
   statement (Dialect.rows_by_id), sorted by id for label_for. */
typedef struct Label {
	sqlite3_int64 id;
	char *label;
} Label;

static int label_cmp(const void *a, const void *b)
{
	sqlite3_int64 x = ((const Label *)a)->id, y = ((const Label *)b)->id;
	return x < y ? -1 : x > y;
}

static Label *labels(Exec *ex, const ScopeItem *it, const sqlite3_int64 *ids, long long n,
                     long long *nl)
{
	*nl = 0;
	if (n == 0 || it->kind != IT_TABLE || !it->table)
		return NULL;
	char *param;
	char *sql = ex->e->dialect->rows_by_id(it, ids, n, &param);
	const char *params[] = {param};
	StoreCursor *c;
	Label *v = NULL;
	long long cap = 0;
	if (store_query(ex->e->store, sql, params, param ? 1 : 0, &c, NULL) == SUQL_OK) {
		while (store_next(c) > 0) {
			const char *id = store_text(c, 0);
			if (!id)
				continue;
			sqlite3_int64 key = (sqlite3_int64)strtoll(id, NULL, 10);
			char *label = NULL;
			for (int i = 1; i < store_column_count(c) && !label; i++)
				if (store_column_kind(c, i) == STORE_TEXT) {
					const char *t = store_text(c, i);
					label = label_text(t, t ? (int)store_bytes(c, i) : 0);
				}
			v = grow(v, *nl, &cap, sizeof *v);
			v[*nl].id = key;
			v[(*nl)++].label = label;
		}
		store_done(c);
	}
	free(sql);
	free(param);
	if (*nl > 1)
		qsort(v, (size_t)*nl, sizeof *v, label_cmp);
	return v;
}

/* The label of row id among labels (a copy), or NULL. */
static char *label_for(const Label *v, long long n, sqlite3_int64 id)
{
	Label key = {id, NULL};
	const Label *l = n ? bsearch(&key, v, (size_t)n, sizeof *v, label_cmp) : NULL;
	return l && l->label ? xstrdup(l->label) : NULL;
}

static void labels_free(Label *v, long long n)
{
	for (long long i = 0; i < n; i++)
		free(v[i].label);
	free(v);
}

static void push_ids(Record *r, const sqlite3_int64 *ids, int nid)
{
	for (int i = 0; i < nid; i++) {
		r->ids = grow(r->ids, r->nids, &r->capids, sizeof *r->ids);
		r->ids[r->nids++] = ids[i];
	}
}

/* A walked unit as the record reads it (exec_record_walk). */
typedef struct RecSrc {
	Exec *ex;
	const Block *b;
	int unit;                  /* the conjunct's number, 1-based */
	int top;
	long long from_rows, rows, nl;
	int lazy;
	int natoms;
	const int *atoms;          /* occurrence ids */
	const long long *order;    /* walk position -> candidate; NULL: the same */
	const signed char *state, *atomv;
	int nid;
	const sqlite3_int64 *ids;
	/* the text candidate c's atom k was asked about (malloc'd; NULL: none) */
	char *(*text)(void *ctx, long long c, int k, size_t *len);
	void *ctx;
} RecSrc;

static void record_unit(const RecSrc *w)
{
	Exec *ex = w->ex;
	Record *r = ex->rec;
	if (!r)
		return;
	const Block *b = w->b;
	long long cap = r->capunits;
	r->units = grow(r->units, r->nunits, &cap, sizeof *r->units);
	r->capunits = (int)cap;
	RecUnit *ru = &r->units[r->nunits];
	memset(ru, 0, sizeof *ru);
	ru->block = b->id + 1;
	ru->unit = w->unit;
	ru->top = w->top;
	ru->from_rows = w->from_rows;
	ru->rows = w->rows;
	ru->lazy = w->lazy;
	ru->natoms = w->natoms;
	ru->atom_what = xmalloc(((size_t)w->natoms + 1) * sizeof *ru->atom_what);
	for (int k = 0; k < w->natoms; k++)
		ru->atom_what[k] = what_of(ex, ex->occ[w->atoms[k]].sig);
	int unit = r->nunits++;
	/* the labels of the candidates the record keeps, in one statement */
	Label *lab = NULL;
	long long nlab = 0;
	if (label_table(b) && w->nid > 0) {
		sqlite3_int64 *want = NULL;
		long long nwant = 0, capwant = 0, room = REC_MAX_CANDS - r->ncands;
		for (long long p = 0; p < w->nl && nwant < room; p++) {
			long long c = w->order ? w->order[p] : p;
			int any = w->state[c] != CAND_UNDECIDED;
			for (int k = 0; k < w->natoms && !any; k++)
				any = w->atomv[c * w->natoms + k] != VERDICT_UNASKED;
			if (!any || w->ids[c * w->nid] == NULL_ID)
				continue;
			want = grow(want, nwant, &capwant, sizeof *want);
			want[nwant++] = w->ids[c * w->nid];
		}
		lab = labels(ex, &b->items[0], want, nwant, &nlab);
		free(want);
	}
	for (long long p = 0; p < w->nl; p++) {
		long long c = w->order ? w->order[p] : p;
		int any = w->state[c] != CAND_UNDECIDED;
		for (int k = 0; k < w->natoms && !any; k++)
			any = w->atomv[c * w->natoms + k] != VERDICT_UNASKED;
		if (!any)
			continue;
		ru->examined++;
		if (r->ncands >= REC_MAX_CANDS)
			continue;
		ru->kept++;
		r->cands = grow(r->cands, r->ncands, &r->capcands, sizeof *r->cands);
		RecCand *rc = &r->cands[r->ncands++];
		memset(rc, 0, sizeof *rc);
		rc->unit = unit;
		rc->pos = p;
		rc->ids = r->nids;
		rc->nid = w->nid;
		push_ids(r, w->ids + c * w->nid, w->nid);
		rc->state = w->state[c];
		rc->in_result = -1;
		if (lab && w->ids[c * w->nid] != NULL_ID)
			rc->label = label_for(lab, nlab, w->ids[c * w->nid]);
		rc->atoms = r->nav;
		for (int k = 0; k < w->natoms; k++) {
			if (r->nav >= r->capav) {
				r->capav = r->capav ? r->capav * 2 : 64;
				r->cask = xrealloc(r->cask, (size_t)r->capav * sizeof *r->cask);
				r->cverdict = xrealloc(r->cverdict, (size_t)r->capav);
			}
			signed char v = w->atomv[c * w->natoms + k];
			int ask = 0;
			int sig = ex->occ[w->atoms[k]].sig;
			if (v != VERDICT_UNASKED && sig >= 0) {
				/* the text again, as the walk read it: which ask answered it */
				size_t len;
				char *val = w->text(w->ctx, c, k, &len);
				MemoVal *mv = val ? memo_get(ex->memo, sig, val, len) : NULL;
				ask = mv ? mv->rec : 0;
				free(val);
			}
			r->cask[r->nav] = ask;
			r->cverdict[r->nav++] = v;
		}
	}
	labels_free(lab, nlab);
}

/* The SQLite walk's text: fetched again by key, as the walk itself does. */
static char *walk_text(void *ctx, long long c, int k, size_t *len)
{
	Walk *w = ctx;
	SuqlErr err = {0};
	int failed;
	char *val = exec_cand_value(w, c, w->atom_arg[k], len, &err, &failed);
	err_clear(&err);
	return val;
}

void exec_record_walk(Walk *w)
{
	RecSrc s = {
		.ex = w->ex, .b = w->b, .unit = (int)(w->u - w->b->units) + 1, .top = w->b->top,
		.from_rows = w->b->from_rows, .rows = w->n, .nl = w->nl, .lazy = w->need >= 0,
		.natoms = w->u->natoms, .atoms = w->u->atoms, .order = w->order, .state = w->state,
		.atomv = w->atomv, .nid = w->nid, .ids = w->ids, .text = walk_text, .ctx = w,
	};
	record_unit(&s);
}

/* ---- the rows the statement returned ---- */

static Block *top_block(Exec *ex, Record *r)
{
	for (int i = 0; i < ex->nblocks; i++) {
		Block *b = &ex->blocks[i];
		if (!b->top || !b->exec || !b->core)
			continue;
		if (!b->identity)
			r->why_untraced = "its rows have no keys (a FROM item is a subquery or a view)";
		else if (b->aggregate)
			r->why_untraced = "its rows are made of several (GROUP BY, DISTINCT or aggregates)";
		else
			return b;
		return NULL;
	}
	r->why_untraced = "the statement is not one SELECT";
	return NULL;
}

static int same_ids(const Record *r, long long a, long long b, int n)
{
	for (int i = 0; i < n; i++)
		if (r->ids[a + i] != r->ids[b + i])
			return 0;
	return 1;
}

/* Room for the rows' values: occurrence ids of the top block's free text the rows depend
   on, WHERE first (what put the row there); the Record's id names (key(b, i): what the
   rows of a table, item i, are known by) and what of each. */
static const char *rowid_key(const Block *b, int i)
{
	(void)b, (void)i;
	return "rowid";
}

static int *rows_occs(Exec *ex, Record *r, const Block *b,
                      const char *(*key)(const Block *b, int i), int *nv)
{
	r->nid = b->nitems;
	r->id_names = xcalloc((size_t)b->nitems + 1, sizeof *r->id_names);
	for (int i = 0; i < b->nitems; i++) {
		const ScopeItem *it = &b->items[i];
		r->id_names[i] = xprintf("%s %s", it->name, it->kind != IT_TABLE ? "id" : key(b, i));
	}
	int *occs = xmalloc(((size_t)ex->nocc + 1) * sizeof *occs);
	*nv = 0;
	for (int where = 1; where >= 0; where--)
		for (int i = 0; i < ex->nocc; i++) {
			const Occ *o = &ex->occ[i];
			if (o->block != b->id || o->sig < 0 || o->parent_occ >= 0 ||
			    (o->pos == POS_WHERE) != where)
				continue;
			occs[(*nv)++] = i;
		}
	r->nrvals = *nv;
	r->rwhat = xmalloc(((size_t)*nv + 1) * sizeof *r->rwhat);
	for (int j = 0; j < *nv; j++)
		r->rwhat[j] = what_of(ex, ex->occ[occs[j]].sig);
	return occs;
}

/* One row read again: its keys, and the texts its values were asked about (NULL: SQL
   NULL), looked up in the memo. 0 once the record holds all the rows it keeps. */
static int rows_add(Exec *ex, Record *r, const sqlite3_int64 *ids, const int *occs,
                    char *const *texts, const size_t *lens)
{
	if (r->nrows >= REC_MAX_ROWS)
		return 0;
	r->rows = grow(r->rows, r->nrows, &r->caprows, sizeof *r->rows);
	RecRow *row = &r->rows[r->nrows++];
	row->ids = r->nids;
	push_ids(r, ids, r->nid);
	row->vals = r->nrv;
	for (int j = 0; j < r->nrvals; j++) {
		if (r->nrv >= r->caprv) {
			r->caprv = r->caprv ? r->caprv * 2 : 64;
			r->rask = xrealloc(r->rask, (size_t)r->caprv * sizeof *r->rask);
			r->rverdict = xrealloc(r->rverdict, (size_t)r->caprv);
		}
		MemoVal *mv = texts[j] ? memo_get(ex->memo, ex->occ[occs[j]].sig, texts[j], lens[j])
		                       : NULL;
		r->rask[r->nrv] = mv ? mv->rec : 0;
		r->rverdict[r->nrv++] = (signed char)(mv ? mv->verdict : VERDICT_NULL);
	}
	return r->nrows < REC_MAX_ROWS;
}

/* The rows read again, traced or not: which examined candidates are in the result. */
static void rows_end(Record *r, int traced)
{
	/* read again, the statement must give as many rows (random(), say, may not) */
	if (traced && r->nrows < REC_MAX_ROWS && r->nrows != r->rows_total)
		traced = 0;
	if (!traced) {
		r->why_untraced = "its rows could not be read again as they came";
		r->nrows = 0;
		return;
	}
	r->traced = 1;
	for (long long i = 0; i < r->ncands; i++) {
		RecCand *cd = &r->cands[i];
		if (!r->units[cd->unit].top || cd->nid != r->nid)
			continue;
		cd->in_result = 0;
		for (long long k = 0; k < r->nrows && !cd->in_result; k++)
			cd->in_result = same_ids(r, cd->ids, r->rows[k].ids, r->nid);
	}
}

void exec_record_result(Exec *ex)
{
	Record *r = ex->rec;
	if (!r)
		return;
	r->rows_total = ex->cnt.rows_out;
	Block *b = top_block(ex, r);
	if (!b)
		return;
	Arena *a = ex->a;
	SelectCore *c = b->core;
	ResultList *cols = NULL;
	for (int i = 0; i < c->cols->n; i++) {
		exec_col(a, &cols, c->cols->items[i]->expr, NULL);
		*cols->items[cols->n - 1] = *c->cols->items[i];
	}
	char al[32];
	int nv;
	int *occs = rows_occs(ex, r, b, rowid_key, &nv);
	for (int i = 0; i < b->nitems; i++) {
		const ScopeItem *it = &b->items[i];
		snprintf(al, sizeof al, "suql_rid%d", i);
		exec_col(a, &cols, ast_column(a, it->name, it->kind == IT_TABLE ? "rowid" : "id"), al);
	}
	for (int j = 0; j < nv; j++) {
		snprintf(al, sizeof al, "suql_rarg%d", j + 1);
		exec_col(a, &cols, ex->occ[occs[j]].arg, al);
	}
	char *sql = exec_final_with_cols(ex, b, cols);
	sqlite3_stmt *st = NULL;
	SuqlErr err = {0};
	int traced = exec_prepare(ex, sql, &st, &err) == SUQL_OK;
	free(sql);
	err_clear(&err);
	int base = st ? sqlite3_column_count(st) - b->nitems - nv : 0;
	sqlite3_int64 *ids = xmalloc(((size_t)b->nitems + 1) * sizeof *ids);
	char **texts = xcalloc((size_t)nv + 1, sizeof *texts);
	size_t *lens = xcalloc((size_t)nv + 1, sizeof *lens);
	ex->memo_only = 1;
	int rc = SQLITE_DONE, more = 1;
	while (traced && more && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < b->nitems; i++)
			ids[i] = sqlite3_column_type(st, base + i) == SQLITE_NULL
			         ? NULL_ID : sqlite3_column_int64(st, base + i);
		for (int j = 0; j < nv; j++) {
			int col = base + b->nitems + j;
			texts[j] = sqlite3_column_type(st, col) == SQLITE_NULL ? NULL
			           : exec_value_text(sqlite3_column_value(st, col), &lens[j]);
		}
		more = rows_add(ex, r, ids, occs, texts, lens);
		for (int j = 0; j < nv; j++) {
			free(texts[j]);
			texts[j] = NULL;
		}
	}
	ex->memo_only = 0;
	if (traced && rc != SQLITE_ROW && rc != SQLITE_DONE)
		traced = 0;
	sqlite3_finalize(st);
	free(occs);
	free(ids);
	free(texts);
	free(lens);
	rows_end(r, traced);
}

int *exec_record_rows_begin(Exec *ex, Block **top, const char *(*key)(const Block *b, int i),
                            int *nv)
{
	Record *r = ex->rec;
	*top = NULL;
	if (!r)
		return NULL;
	r->rows_total = ex->cnt.rows_out;
	Block *b = top_block(ex, r);
	if (!b)
		return NULL;
	for (int i = 0; i < b->nitems; i++)
		if (!key(b, i)) {
			r->why_untraced = "on PostgreSQL, only the rows of tables are known by a key";
			return NULL;
		}
	*top = b;
	return rows_occs(ex, r, b, key, nv);
}

void exec_record_rows(Exec *ex, int *occs, StoreCursor *c,
                      int (*ids_of)(const char *key, sqlite3_int64 *ids, int nid))
{
	Record *r = ex->rec;
	int traced = r && c;
	if (traced) {
		int nid = r->nid, nv = r->nrvals, base = store_column_count(c) - nid - nv;
		sqlite3_int64 *ids = xmalloc(((size_t)nid + 1) * sizeof *ids);
		char **texts = xcalloc((size_t)nv + 1, sizeof *texts);
		size_t *lens = xcalloc((size_t)nv + 1, sizeof *lens);
		int rc;
		while ((rc = store_next(c)) > 0) {
			for (int i = 0; i < nid; i++) {
				const char *k = store_text(c, base + i);
				ids_of(k ? k : "", ids + i, 1);
			}
			for (int j = 0; j < nv; j++) {
				const char *t = store_text(c, base + nid + j);
				texts[j] = (char *)t;
				lens[j] = t ? strlen(t) : 0;
			}
			if (!rows_add(ex, r, ids, occs, texts, lens))
				break;
		}
		traced = rc >= 0;
		free(ids);
		free(texts);
		free(lens);
	}
	if (c)
		store_done(c);
	free(occs);
	if (r)
		rows_end(r, traced);
}

void exec_record_end(Exec *ex, int keep)
{
	Record *r = ex->rec;
	ex->rec = NULL;
	if (!r)
		return;
	if (!keep) {   /* a statement inside another keeps nothing */
		exec_record_free(r);
		return;
	}
	size_t n = ex->user_len;   /* the statement's text, without its ';' and the blanks around */
	const char *t = ex->sql;
	while (n && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
		t++, n--;
	while (n && (t[n - 1] == ';' || t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' ||
	             t[n - 1] == '\r'))
		n--;
	r->sql = xstrndup(t, n);
	r->backend = ex->e->llm ? xstrdup(llm_label(ex->e->llm)) : NULL;
	free(r->sig_what);
	r->sig_what = NULL;
	r->nsig_what = 0;
	exec_record_free(ex->e->record);
	ex->e->record = r;
}
