/*
 * op_int.h: the engine's operators as one table (op.c), in the manner of SQLite's
 * sqlite3_module: each operator (ENUM classification, the filter walk, a semantic join,
 * a semantic top-k, a cascade, extract(), the aggregates over free text) is a row of
 * function pointers saying what the pipeline (exec_statement.c, with the backends' rows
 * of its table), the plan display and the counters (plan_show.c), the budget and each
 * backend need from it. The top group reaches the operators below it only through this
 * table (tests/suites/44-layers.sh checks that it names none of their entries), so adding
 * an operator is one file, one row, the binder's recognition and one file of test data
 * (doc/architecture.md, "How to add an operator").
 *
 * The table's order is the order of every phase: the plan's lines and the counters come
 * in it, operators plan and run in it (a row's `after` once every row's `run` is done).
 * A NULL entry means the operator has nothing to do in that phase; an operator that runs
 * inside another one's walk (a cascade, a top-k, extract()) names it in `inside` and
 * shows its lines there.
 *
 * Ownership: the table and its rows are constant; what an operator makes for a statement
 * is the Exec's, and its `free` entry releases it (called for every row, whether the
 * operator applied or not).
 */
#ifndef SUQL_OP_INT_H
#define SUQL_OP_INT_H

#include "engine/exec_int.h"

/* The two kinds of refusal (exec_walk_op.c says which statements fall in each): every
   refuse entry's text starts with one of them. */
#define OP_ROW_BY_ROW "free text evaluated row by row, which needs suql's functions " \
                      "called by the database"
#define OP_NO_IDENTITY "rows without an identity"

typedef struct EngineOp {
	const char *name;     /* in errors and the documentation: "top-k", "aggregate" */
	const char *inside;   /* the operator whose walk runs it and shows its lines, or NULL */
	/* The statement holds the operator (after binding): its other entries apply. */
	int (*applies)(const Exec *ex);
	/* After the planner (plan_statement) and ENUM classification, before the budget is
	   checked: the operator's calls are added to ex->worst and ex->expect. */
	SuqlStatus (*plan)(Exec *ex, SuqlErr *err);
	int plan_reads;       /* its plan reads the statement's rows: not under EXPLAIN */
	/* After the plan is shown (optimize on or passage): the calls asked ahead of the
	   final statement; `after` runs once every row's `run` is done. */
	SuqlStatus (*run)(Exec *ex, SuqlErr *err);
	SuqlStatus (*after)(Exec *ex, SuqlErr *err);
	/* The plan's lines, and the counters' lines, in the table's order. */
	void (*show)(Exec *ex, SBuf *out);
	void (*counters)(Exec *ex, SBuf *out);
	/* Once the final statement has run: what it keeps in the statement's record (:why). */
	void (*record)(Exec *ex);
	/* Why the statement cannot run on a backend of dialect d yet (asked before the planner
	   and again after it: an entry answers what it can know by then), or NULL. */
	const char *(*refuse)(Exec *ex, const Dialect *d);
	/* Release what the operator made for the statement. */
	void (*free)(Exec *ex);
} EngineOp;

/* The table, NULL-terminated, in the order of every phase. */
extern const EngineOp *const op_table[];

/* Whether row op applies to the statement. */
int op_applies(const EngineOp *op, const Exec *ex);
/* Every applying row's plan, in order (explain: leave out those that read rows). */
SuqlStatus op_plan(Exec *ex, int explain, SuqlErr *err);
/* Every applying row's run, then every applying row's after. */
SuqlStatus op_run(Exec *ex, SuqlErr *err);
void op_show(Exec *ex, SBuf *out);
void op_counters(Exec *ex, SBuf *out);
void op_record(Exec *ex);
/* The first applying row's refusal on a backend of dialect d (a backend whose dialect
   runs suql's functions refuses nothing), as "<why> (the <name> operator)" in ex's
   arena, or NULL. */
const char *op_refusal(Exec *ex, const Dialect *d);
/* Every row's free. */
void op_free(Exec *ex);

/* ---- the rows' own entries (the others are the operators' usual functions) ---- */

/* a semantic join (exec_join.c) */
int exec_join_op_applies(const Exec *ex);
const char *exec_join_op_refuse(Exec *ex, const Dialect *d);
/* the aggregates over free text (exec_agg.c): planned first when nothing the model
   answers comes before them, else after the walks (exec_agg_op_after, which also checks
   the budget again then) */
int exec_agg_op_applies(const Exec *ex);
SuqlStatus exec_agg_op_plan(Exec *ex, SuqlErr *err);
SuqlStatus exec_agg_op_after(Exec *ex, SuqlErr *err);
const char *exec_agg_op_refuse(Exec *ex, const Dialect *d);
/* the filter walk (exec_walk_op.c; exec_walk.c walks, exec_walk_show.c its lines): each
   block in the planner's order walked (or compared passage by passage), then its values
   read ahead */
int exec_walk_op_applies(const Exec *ex);
SuqlStatus exec_walk_op_run(Exec *ex, SuqlErr *err);
/* On PostgreSQL: free text SQLite evaluates row by row as it reads the rows (naive mode,
   an occurrence the planner leaves on demand, a question that is not a literal, a view,
   UPDATE and DELETE shapes whose rows SQLite picks), or rows without identity (a table
   with neither a key nor a usable ctid, a function in FROM other than unnest()) */
const char *exec_walk_op_refuse(Exec *ex, const Dialect *d);
/* UPDATE's or DELETE's own block (the statement's clauses), or NULL */
Block *exec_walk_op_dml_block(Exec *ex);
void exec_walk_show_plan(Exec *ex, SBuf *out);
void exec_walk_show_counters(Exec *ex, SBuf *out);
/* a semantic top-k (exec_topk.c; run by exec_final_ahead in the walk) */
int exec_topk_op_applies(const Exec *ex);
void exec_topk_op_counters(Exec *ex, SBuf *out);
/* a cascade (exec_cascade.c; run by the walk, unit by unit) */
int exec_cascade_op_applies(const Exec *ex);
/* extract() (its values asked as answer()'s are: exec_llm.c) */
int exec_llm_op_extract(const Exec *ex);

#endif
