/*
 * op.c: the table of the engine's operators (op_int.h) and the loops every phase runs
 * over it. A row is an operator's contract, defined in the operator's own file; this file
 * lists the rows and calls their entries through their pointers only, so it sits in the
 * engine's lowest group and any group may run its loop. The order of the rows is the order
 * of every phase, which is the order the plan, the counters and the calls have always come
 * in: ENUM classification's lines first, then a semantic join (planned and asked before
 * the walks: its pairs decide rows the walks see), the aggregates (shown before the walks;
 * answered after them, over the rows they kept), the filter walk, and what runs inside it
 * (top-k, cascade, extract()); bm25() last (the binder's rewrite of a call, nothing more).
 *
 * A new operator: its row in its own file, declared and listed here (doc/architecture.md,
 * "How to add an operator").
 */
#include "engine/op_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const EngineOp enum_row, exec_join_row, exec_agg_row, exec_sample_row, exec_walk_op_row,
	exec_topk_row, exec_cascade_row, exec_extract_row, bm25_row;

const EngineOp *const op_table[] = {
	&enum_row, &exec_join_row, &exec_agg_row, &exec_sample_row, &exec_walk_op_row, &exec_topk_row,
	&exec_cascade_row, &exec_extract_row, &bm25_row, NULL,
};

_Static_assert(OP_NSLOTS <= OP_SLOTS, "Exec.opstate has a slot for every row");

const EngineOp *op_row(OpSlot s)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->slot == s)
			return op_table[i];
	return NULL;
}

int op_applies(const EngineOp *op, const Exec *ex)
{
	return op && op->applies && op->applies(ex);
}

int op_slot_applies(const Exec *ex, OpSlot s)
{
	return op_applies(op_row(s), ex);
}

int op_constructs(const Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->construct != OP_INNER && op_applies(op_table[i], ex))
			return 1;
	return 0;
}

int op_evaluated(const Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->construct == OP_EVALUATED && op_applies(op_table[i], ex))
			return 1;
	return 0;
}

/* ---- the binder ---- */

/* The function of op's that e calls with a number of arguments it takes, or NULL. */
static const OpFunc *func_of(const EngineOp *op, const Expr *e)
{
	if (!op->funcs || e->kind != EX_FUNC)
		return NULL;
	int n = e->list ? e->list->n : 0;
	for (const OpFunc *f = op->funcs; f->name; f++)
		if (n >= f->min_args && n <= f->max_args && ast_name_is(e->name, f->name))
			return f;
	return NULL;
}

int op_bind(struct Bind *bd, int b, Expr **slot, const OpAt *at)
{
	for (int i = 0; op_table[i]; i++) {
		const EngineOp *op = op_table[i];
		if (!op->bind)
			continue;
		const OpFunc *f = func_of(op, *slot);
		if (!f && !op->forms)
			continue;
		int r = op->bind(bd, b, slot, f, at);
		if (r != OP_BIND_NONE)
			return r;
	}
	return OP_BIND_NONE;
}

void op_mutate(Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->mutate && op_applies(op_table[i], ex))
			op_table[i]->mutate(ex);
}

void op_functions(Engine *e)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->functions)
			op_table[i]->functions(e);
}

/* The names by length, and the first letters they start with, for op_sql_word: the fast
   path of plain SQL asks about many words (engine_plain.c). */
#define WORD_MAX 32
static unsigned char first_letter[256];
static size_t shortest = WORD_MAX, longest;

static void words(void)
{
	if (longest)
		return;
	for (int i = 0; op_table[i]; i++)
		for (const OpFunc *f = op_table[i]->funcs; f && f->name; f++) {
			size_t n = strlen(f->name);
			unsigned char c = (unsigned char)f->name[0];
			first_letter[c] = first_letter[c >= 'a' && c <= 'z' ? c - 32 : c] = 1;
			if (n < shortest)
				shortest = n;
			if (n > longest)
				longest = n;
		}
}

int op_sql_word(const char *s, size_t n)
{
	words();
	if (n < shortest || n > longest || !first_letter[(unsigned char)s[0]])
		return 0;
	for (int i = 0; op_table[i]; i++)
		for (const OpFunc *f = op_table[i]->funcs; f && f->name; f++)
			if (strlen(f->name) == n && str_nieq(s, n, f->name))
				return 1;
	return 0;
}

const char *op_sql_name(int i)
{
	for (int k = 0; op_table[k]; k++)
		for (const OpFunc *f = op_table[k]->funcs; f && f->name; f++)
			if (i-- == 0)
				return f->name;
	return NULL;
}

/* ---- before the plan, and the planner ---- */

SuqlStatus op_prepare(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; op_table[i] && s == SUQL_OK; i++)
		if (op_table[i]->prepare && op_applies(op_table[i], ex))
			s = op_table[i]->prepare(ex, err);
	return s;
}

long op_pending(const Exec *ex)
{
	long n = 0;
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->pending && op_applies(op_table[i], ex))
			n += op_table[i]->pending(ex);
	return n;
}

SuqlStatus op_settle(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; op_table[i] && s == SUQL_OK; i++)
		if (op_table[i]->settle && op_applies(op_table[i], ex))
			s = op_table[i]->settle(ex, err);
	return s;
}

void op_rewrite(Exec *ex, int only_settled)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->rewrite && op_applies(op_table[i], ex))
			op_table[i]->rewrite(ex, only_settled);
}

int op_rewrites(const Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->rewrite && op_applies(op_table[i], ex))
			return 1;
	return 0;
}

int op_holds(const Exec *ex, const Expr *e)
{
	int h = OP_HOLD_NONE;
	for (int i = 0; op_table[i] && h != OP_HOLD_PENDING; i++)
		if (op_table[i]->holds && op_applies(op_table[i], ex)) {
			int k = op_table[i]->holds(ex, e);
			if (k > h)
				h = k;
		}
	return h;
}

void op_cost(Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->cost && op_applies(op_table[i], ex))
			op_table[i]->cost(ex);
}

/* ---- the pipeline ---- */

SuqlStatus op_plan(Exec *ex, int explain, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; op_table[i] && s == SUQL_OK; i++) {
		const EngineOp *op = op_table[i];
		if (op->plan && !(explain && op->plan_reads) && op_applies(op, ex))
			s = op->plan(ex, err);
	}
	return s;
}

SuqlStatus op_run(Exec *ex, SuqlErr *err)
{
	SuqlStatus s = SUQL_OK;
	for (int i = 0; op_table[i] && s == SUQL_OK; i++)
		if (op_table[i]->run && op_applies(op_table[i], ex))
			s = op_table[i]->run(ex, err);
	for (int i = 0; op_table[i] && s == SUQL_OK; i++)
		if (op_table[i]->after && op_applies(op_table[i], ex))
			s = op_table[i]->after(ex, err);
	return s;
}

void op_show(Exec *ex, SBuf *out)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->show && op_applies(op_table[i], ex))
			op_table[i]->show(ex, out);
}

long long op_floor(Exec *ex, long long *per_row, int *unknown)
{
	long long sum = 0;
	*unknown = 0;
	for (int i = 0; op_table[i]; i++) {
		long long f = 0;
		if (op_table[i]->floor && op_applies(op_table[i], ex))
			f = op_table[i]->floor(ex);
		if (f < 0) {
			*unknown = 1;
			f = 0;
		}
		if (per_row)
			per_row[i] = f;
		sum += f;
	}
	return sum;
}

void op_counters(Exec *ex, SBuf *out)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->counters && op_applies(op_table[i], ex))
			op_table[i]->counters(ex, out);
}

void op_record(Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->record && op_applies(op_table[i], ex))
			op_table[i]->record(ex);
}

const char *op_refusal(Exec *ex, const Dialect *d)
{
	ex->refused_at = NULL;
	for (int i = 0; op_table[i]; i++) {
		const EngineOp *op = op_table[i];
		const char *why = op->refuse && op_applies(op, ex) ? op->refuse(ex, d) : NULL;
		if (!why)
			continue;
		size_t n = strlen(why) + strlen(op->name) + 32;
		char *m = arena_alloc(ex->a, n);
		snprintf(m, n, "%s (the %s operator)", why, op->name);
		return m;
	}
	return NULL;
}

void op_free(Exec *ex)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->free)
			op_table[i]->free(ex);
}

/* ---- the walk's hooks: called for every row that has one, each hook saying itself
   whether it has work there (its conditions are the walk's, unit by unit) ---- */

SuqlStatus op_walk_unit(Exec *ex, struct Walk *w, SuqlErr *err)
{
	(void)ex;
	SuqlStatus s = SUQL_OK;
	for (int i = 0; op_table[i] && s == SUQL_OK; i++)
		if (op_table[i]->walk_unit)
			s = op_table[i]->walk_unit(w, err);
	return s;
}

long long op_walk_floor(Exec *ex, const Block *b)
{
	for (int i = 0; op_table[i]; i++) {
		long long f = op_table[i]->walk_floor ? op_table[i]->walk_floor(ex, b) : -1;
		if (f >= 0)
			return f;
	}
	return -1;
}

int op_ahead(Exec *ex, Block *b, int occ, SuqlStatus *s, SuqlErr *err)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->ahead && op_table[i]->ahead(ex, b, occ, s, err))
			return 1;
	return 0;
}

void op_show_walk(const Exec *ex, SBuf *out, const Block *b)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->show_walk)
			op_table[i]->show_walk(ex, out, b);
}

void op_show_occ(Exec *ex, SBuf *out, const Block *b, int occ, const char *indent)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->show_occ)
			op_table[i]->show_occ(ex, out, b, occ, indent);
}

void op_unit_counters(const Unit *u, SBuf *out, const char *name)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i]->unit_counters)
			op_table[i]->unit_counters(u, out, name);
}
