/*
 * op.c: the table of the engine's operators (op_int.h) and the loops the pipeline runs
 * over it. A row is an operator's entries; the order of the rows is the order of every
 * phase, which is the order the plan, the counters and the calls have always come in:
 * ENUM classification's lines first, then a semantic join (planned and asked before the
 * walks: its pairs decide rows the walks see), the aggregates (shown before the walks;
 * answered after them, over the rows they kept), the filter walk with what runs inside it
 * (top-k, cascade, extract()).
 */
#include "engine/enum_int.h"
#include "engine/op_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const EngineOp op_enum = {
	.name = "ENUM",
	.applies = enum_op_applies,
	.show = enum_show,
	.free = enum_op_free,
};

static const EngineOp op_join = {
	.name = "semantic join",
	.applies = exec_join_op_applies,
	.plan = exec_join_plan,
	.run = exec_join_run,
	.show = exec_join_show,
	.counters = exec_join_counters,
	.refuse = exec_join_op_refuse,
	.free = exec_join_free,
};

static const EngineOp op_agg = {
	.name = "aggregate",
	.applies = exec_agg_op_applies,
	.plan = exec_agg_op_plan,
	.plan_reads = 1,
	.after = exec_agg_op_after,
	.show = exec_agg_show,
	.counters = exec_agg_counters,
	.record = exec_agg_record,
	.refuse = exec_agg_op_refuse,
	.free = exec_agg_free,
};

static const EngineOp op_walk = {
	.name = "filter walk",
	.applies = exec_walk_op_applies,
	.run = exec_walk_op_run,
	.show = exec_walk_show_plan,
	.counters = exec_walk_show_counters,
	.refuse = exec_walk_op_refuse,
};

static const EngineOp op_topk = {
	.name = "top-k",
	.inside = "filter walk",
	.applies = exec_topk_op_applies,
	.counters = exec_topk_op_counters,
};

static const EngineOp op_cascade = {
	.name = "cascade",
	.inside = "filter walk",
	.applies = exec_cascade_op_applies,
};

static const EngineOp op_extract = {
	.name = "extract",
	.inside = "filter walk",
	.applies = exec_llm_op_extract,
};

const EngineOp *const op_table[] = {
	&op_enum, &op_join, &op_agg, &op_walk, &op_topk, &op_cascade, &op_extract, NULL,
};

int op_applies(const EngineOp *op, const Exec *ex)
{
	return op->applies && op->applies(ex);
}

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
