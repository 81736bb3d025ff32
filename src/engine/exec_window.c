/*
 * exec_window.c: the candidates of a LIMIT walk, read a window at a time. A listed walk
 * holds a few dozen bytes for every candidate (its id, its score, its place in the order)
 * before it asks about the first one, so a LIMIT 5 over a million rows held tens of
 * megabytes. Here the walk holds only the candidates it has reached. The candidate
 * statement is read once, without its ORDER BY, to count the candidates (and, when the
 * unit's WHERE leaves rows out, to note which rowids are candidates: one bit each). Then:
 *
 *   - a ranked walk (unordered, its one atom reading an indexed column) reads the index
 *     for the best K candidates by relevance, K doubling each time the waves use them up;
 *     once every candidate the question's words match has been read, the others follow in
 *     the statement's order;
 *   - an ordered walk reads the candidate statement itself, K rows at a time.
 *
 * The order is the listed walk's exactly. For an ordered walk it is the same statement's;
 * a ranked one sorts by score, best first, equal scores in the statement's order, and
 * unmatched candidates last, which needs the statement to read in rowid order: the
 * counting pass checks it, and a walk whose statement reads another way (a covering
 * index) is listed as before. Only units of one rowid table whose tree has no structured
 * leaves are walked so (exec_window_applies).
 */
#include "engine/exec_int.h"

#include <stdlib.h>
#include <string.h>

struct CandWindow {
	unsigned char *bits;     /* bit r: rowid r is a candidate (the unit's WHERE filters) */
	sqlite3_int64 nbits;
	int ranked;              /* by relevance; else in the ORDER BY's order */
	RetQuestion q;
	const char *table;
	long long matched;       /* candidates the question's words match */
	int scanned;             /* the index was read once (matched is counted) */
	int matched_done;        /* every matched candidate is read: the rest in rowid order
	                            (ordered: from the start) */
	sqlite3_int64 *mrid;     /* then: the matched candidates' rowids, ascending */
	long long nm;
	sqlite3_stmt *tail;      /* the candidate statement, run again for each window */
	sqlite3_int64 last;      /* the last rowid read from it (ranked) */
	long long read;          /* the rows read from it (ordered) */
};

typedef struct Scored {
	sqlite3_int64 rid;
	double s;
} Scored;

/* a before b in the walk's order (by score; equal scores in rowid order) */
static int before(const Scored *a, const Scored *b)
{
	return a->s > b->s || (a->s == b->s && a->rid < b->rid);
}

static int by_rank(const void *x, const void *y)
{
	const Scored *a = x, *b = y;
	return before(a, b) ? -1 : before(b, a);
}

static int by_rid(const void *x, const void *y)
{
	sqlite3_int64 a = *(const sqlite3_int64 *)x, b = *(const sqlite3_int64 *)y;
	return (a > b) - (a < b);
}

/* atom k reads an indexed column of the walk's table, with a question to rank by */
static int indexed(const Walk *w, int k)
{
	const Exec *ex = w->ex;
	const Occ *o = &ex->occ[w->u->atoms[k]];
	return o->sig >= 0 && o->arg_indexed && o->arg_item == 0 && ex->sigs[o->sig].question;
}

int exec_window_applies(const Walk *w)
{
	const Block *b = w->b;
	const Unit *u = w->u;
	/* PostgreSQL: its candidates come through exec_cand_load's own reader (listed) */
	if (!w->ex->e->dialect->window || w->ex->set.window <= 0 || w->need < 0 || u->natoms < 1 ||
	    u->nsqlcols != 0 ||
	    !b->identity || b->nitems != 1 || b->items[0].kind != IT_TABLE || !b->items[0].rowid)
		return 0;
	return b->ordered || (u->natoms == 1 && indexed(w, 0));
}

static void append(Walk *w, sqlite3_int64 rid, double s)
{
	if (w->nl == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 256;
		w->ids = xrealloc(w->ids, (size_t)w->cap * sizeof *w->ids);
		w->score = xrealloc(w->score, (size_t)w->cap * sizeof *w->score);
	}
	w->ids[w->nl] = rid;
	w->score[w->nl++] = s;
}

/* Read the candidate statement without its ORDER BY: count, check rowid order (ranked),
   note the rowids when filtered and an atom is ranked or counted by the index. *ok 0: a
   ranked walk's statement does not read in rowid order, or the rowids are too sparse for
   bits. */
static SuqlStatus count_pass(Walk *w, CandWindow *win, int *ok, SuqlErr *err)
{
	Exec *ex = w->ex;
	char *sql = exec_cand_sql(w, 0, 0);
	sqlite3_stmt *st;
	SuqlStatus s = exec_prepare(ex, sql, &st, err);
	free(sql);
	if (s != SUQL_OK)
		return s;
	int filtered = 0, rc = SQLITE_DONE;
	for (int k = 0; k < w->u->natoms && w->u->where; k++)
		filtered |= indexed(w, k);
	sqlite3_int64 prev = -1;
	*ok = 1;
	w->n = 0;
	while (*ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 rid = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1
		                    : sqlite3_column_int64(st, 0);
		/* bits no larger than the ids they stand for, and a little */
		if ((win->ranked && rid <= prev) || rid < 0 ||
		    (filtered && rid / 8 > (w->n + 8192) * 8)) {
			*ok = 0;
			break;
		}
		prev = rid;
		w->n++;
		if (filtered) {
			if (rid >= win->nbits) {
				sqlite3_int64 nb = win->nbits ? win->nbits : 8192;
				while (nb <= rid)
					nb *= 2;
				win->bits = xrealloc(win->bits, (size_t)(nb / 8));
				memset(win->bits + win->nbits / 8, 0, (size_t)((nb - win->nbits) / 8));
				win->nbits = nb;
			}
			win->bits[rid / 8] |= (unsigned char)(1u << (rid % 8));
		}
		if (suql_interrupted)
			break;
	}
	if (*ok && rc != SQLITE_DONE && rc != SQLITE_ROW)
		s = exec_sqlerr(ex, err, "listing candidates");
	else if (suql_interrupted)
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	sqlite3_finalize(st);
	return s;
}

static int candidate(const CandWindow *win, sqlite3_int64 rid)
{
	if (!win->bits)
		return 1;
	return rid >= 0 && rid < win->nbits && (win->bits[rid / 8] >> (rid % 8) & 1);
}

/* A heap whose root is the worst kept: put x at i and move it up; or put x in the root's
   place (x is before the root) and move it down. */
static void sift_up(Scored *h, long long i, Scored x)
{
	while (i > 0 && before(&h[(i - 1) / 2], &x)) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static void sift_down(Scored *h, long long n, Scored x)
{
	long long i = 0;
	for (;;) {
		long long l = 2 * i + 1, m = -1;
		const Scored *worst = &x;
		if (l < n && before(worst, &h[l]))
			m = l, worst = &h[l];
		if (l + 1 < n && before(worst, &h[l + 1]))
			m = l + 1;
		if (m < 0)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

/* The best k matched candidates after the last one read, appended in rank order. When
   all of them fit, every matched candidate is read. */
static SuqlStatus read_matched(Walk *w, long long k, SuqlErr *err)
{
	CandWindow *win = w->win;
	RetScan *sc;
	if (ret_scan_open(w->ex->e->db, win->table, &win->q, &sc, err) != SUQL_OK)
		return SUQL_ERROR;
	int first = !win->scanned;
	win->scanned = 1;
	Scored last = {0, 0}, *h = xmalloc((size_t)k * sizeof *h), x;
	int after = w->nl > 0;
	if (after)
		last = (Scored){w->ids[w->nl - 1], w->score[w->nl - 1]};
	long long nh = 0, rest = 0;
	int r = 0;
	while (!suql_interrupted && (r = ret_scan_next(sc, &x.rid, &x.s, err)) == 1) {
		if (!candidate(win, x.rid))
			continue;
		win->matched += first;
		if (after && !before(&last, &x))
			continue;   /* read in an earlier window */
		rest++;
		if (nh < k)
			sift_up(h, nh++, x);
		else if (before(&x, &h[0]))
			sift_down(h, nh, x);
	}
	ret_scan_close(sc);
	if (r < 0 || suql_interrupted) {
		free(h);
		return r < 0 ? SUQL_ERROR : err_set(err, SUQL_INTERRUPT, "interrupted");
	}
	qsort(h, (size_t)nh, sizeof *h, by_rank);
	for (long long i = 0; i < nh; i++)
		append(w, h[i].rid, h[i].s);
	free(h);
	if (rest <= k) {
		win->matched_done = 1;
		win->nm = w->nl;
		win->mrid = xmalloc(((size_t)w->nl + 1) * sizeof *win->mrid);
		if (w->nl)
			memcpy(win->mrid, w->ids, (size_t)w->nl * sizeof *win->mrid);
		qsort(win->mrid, (size_t)win->nm, sizeof *win->mrid, by_rid);
	}
	return SUQL_OK;
}

/* The next k candidates in the statement's order (ranked: those the question's words do
   not match). The statement runs again from its start each time and is reset at once:
   no read stays open while the model is asked (a writer elsewhere is not held up). */
static SuqlStatus read_rest(Walk *w, long long k, SuqlErr *err)
{
	CandWindow *win = w->win;
	Exec *ex = w->ex;
	if (!win->tail) {
		SuqlStatus s = exec_prepare(ex, w->u->sql, &win->tail, err);
		if (s != SUQL_OK)
			return s;
		win->last = -1;
	}
	int rc = SQLITE_ROW;
	long long seen = 0, got = 0;
	sqlite3_int64 prev = -1;
	SuqlStatus s = SUQL_OK;
	while (got < k && !suql_interrupted && (rc = sqlite3_step(win->tail)) == SQLITE_ROW) {
		sqlite3_int64 rid = sqlite3_column_int64(win->tail, 0);
		if (win->ranked) {
			if (rid <= prev) {   /* no longer in rowid order: the table changed */
				s = err_set(err, SUQL_ERROR, "the candidates changed while they were walked");
				break;
			}
			prev = rid;
			if (rid <= win->last)
				continue;
			win->last = rid;
			if (win->nm &&
			    bsearch(&rid, win->mrid, (size_t)win->nm, sizeof *win->mrid, by_rid))
				continue;
		} else if (seen++ < win->read) {
			continue;
		} else {
			win->read++;
		}
		append(w, rid, 0);
		got++;
	}
	if (s == SUQL_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
		s = exec_sqlerr(ex, err, "listing candidates");
	else if (s == SUQL_OK && suql_interrupted)
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	sqlite3_reset(win->tail);
	return s;
}

SuqlStatus exec_window_more(Walk *w, SuqlErr *err)
{
	long long k = w->nl > w->ex->set.window ? w->nl : w->ex->set.window;
	long long n0 = w->nl;
	SuqlStatus s = SUQL_OK;
	w->u->windows++;
	if (w->win->ranked && !w->win->matched_done)
		s = read_matched(w, k, err);
	if (s == SUQL_OK && w->win->matched_done && w->nl < n0 + k && w->nl < w->n)
		s = read_rest(w, n0 + k - w->nl, err);
	if (w->nl > w->u->held)
		w->u->held = w->nl;
	return s;
}

SuqlStatus exec_window_open(Walk *w, int *used, SuqlErr *err)
{
	Exec *ex = w->ex;
	*used = 0;
	CandWindow *win = xcalloc(1, sizeof *win);
	win->ranked = !w->b->ordered;
	int ok;
	SuqlStatus s = count_pass(w, win, &ok, err);
	if (s == SUQL_OK && ok && w->n >= 2 && win->ranked) {
		const Occ *o = &ex->occ[w->u->atoms[0]];
		win->q.column = o->arg_col;
		win->q.text = ex->sigs[o->sig].question;
		win->table = o->arg_table;
		/* an index that cannot be made current (a read-only file): the listed walk ranks
		   the candidates in memory instead. (Opened only now: with fewer than two
		   candidates a walk ranks nothing, and builds no index.) */
		RetScan *probe;
		SuqlErr perr = {0};
		ok = ret_scan_open(ex->e->db, win->table, &win->q, &probe, &perr) == SUQL_OK;
		if (ok)
			ret_scan_close(probe);
		err_clear(&perr);
	}
	if (s != SUQL_OK || !ok || w->n < 2) {
		free(win->bits);
		free(win);
		w->n = 0;
		return s;
	}
	free(w->u->sql);
	w->u->sql = exec_cand_sql(w, 0, w->b->ordered);
	win->matched_done = !win->ranked;
	w->win = win;
	*used = 1;
	w->u->windows = 0;
	return exec_window_more(w, err);
}

long long exec_window_matched(Walk *w, int k)
{
	CandWindow *win = w->win;
	if (win->ranked)
		return win->matched;
	if (!indexed(w, k))
		return -1;
	const Occ *o = &w->ex->occ[w->u->atoms[k]];
	RetQuestion q = {o->arg_col, w->ex->sigs[o->sig].question};
	RetScan *sc;
	SuqlErr err = {0};
	long long m = 0;
	if (ret_scan_open(w->ex->e->db, o->arg_table, &q, &sc, &err) != SUQL_OK) {
		err_clear(&err);
		return -1;   /* as a listed walk: the atom does not count */
	}
	sqlite3_int64 rid;
	double score;
	int r;
	while ((r = ret_scan_next(sc, &rid, &score, &err)) == 1)
		m += candidate(win, rid);
	ret_scan_close(sc);
	err_clear(&err);
	return r < 0 ? -1 : m;
}

void exec_window_free(Walk *w)
{
	CandWindow *win = w->win;
	if (!win)
		return;
	free(win->bits);
	free(win->mrid);
	sqlite3_finalize(win->tail);
	free(win);
	w->win = NULL;
}
