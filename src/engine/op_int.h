/*
 * op_int.h: the engine's operators as one table (op.c), in the manner of SQLite's table of
 * functions and its sqlite3_module: each operator (ENUM classification, a semantic join,
 * the aggregates over free text, the filter walk, a semantic top-k, a cascade, extract(),
 * bm25()) is a row of data and function pointers, and the row is the operator's whole
 * contract: the SQL functions a statement writes (names and arities, which the binder
 * reads as SQLite reads its function table, and the plain-SQL fast path, completion and
 * the manual list), how the binder recognizes it, the SQL functions it registers on the
 * connection, what it does before the plan, in the plan, the budget, the run, the plan's
 * and the counters' lines, the record, the refusals of a backend, its hooks in the walk,
 * and its own state (a slot of Exec.opstate). Nothing outside the operator's own file
 * names its functions: the pipeline (exec_statement.c, the backends' rows), the binder,
 * the planner and the walk reach it through the loops below (tests/suites/44-layers.sh
 * checks it), so a new operator is its own file plus its row (doc/architecture.md, "How
 * to add an operator").
 *
 * The table sits in the lowest group: op.c calls nothing of the engine by name, only the
 * rows' entries through their pointers, so every group may run its loops (the binder its
 * recognition, the walk its hooks, the top group the pipeline's phases); the rows are
 * defined in the operators' files, each in its own group.
 *
 * The table's order is the order of every phase: the plan's lines and the counters come
 * in it, operators plan and run in it (a row's `after` once every row's `run` is done),
 * and the binder offers an expression to the rows in it. A NULL entry means the operator
 * has nothing to do in that phase.
 *
 * Ownership: the table and its rows are constant; what an operator makes for a statement
 * is its state (Exec.opstate[its slot], heap memory), and its `free` entry releases it
 * (called for every row, whether the operator applied or not).
 */
#ifndef SUQL_OP_INT_H
#define SUQL_OP_INT_H

#include "engine/engine_int.h"

/* The two kinds of refusal (exec_walk_op.c says which statements fall in each): every
   refuse entry's text starts with one of them, but the sample's (exec_sample.c), which
   says its own reason. */
#define OP_ROW_BY_ROW "free text evaluated row by row, which needs suql's functions " \
                      "called by the database"
#define OP_NO_IDENTITY "rows without an identity"

/* Each row's slot of Exec.opstate (OP_SLOTS of them, engine_int.h). */
typedef enum OpSlot {
	OP_ENUM, OP_JOIN, OP_AGG, OP_SAMPLE, OP_WALK, OP_TOPK, OP_CASCADE, OP_EXTRACT, OP_BM25,
	OP_NSLOTS
} OpSlot;

struct Bind;
struct Walk;

/* One SQL function of an operator as a statement writes it: the binder offers the row a
   call of it with min_args to max_args arguments (a call with another number is left to
   the database, as an unknown function); its name is also a word of SUQL for the fast
   path of plain SQL (op_sql_word) and for completion (engine_function). */
typedef struct OpFunc {
	const char *name;     /* lower case: "answer_agg" */
	int min_args, max_args;
} OpFunc;

/* Where the binder met an expression (bind.c, bind_walk). */
typedef struct OpAt {
	OccPos pos;           /* where in its block */
	int skel;             /* it stands in the AND/OR/NOT skeleton of a WHERE */
	int in_agg;           /* inside an aggregate or a window function */
	int pocc;             /* inside that occurrence's argument, or -1 */
	int rcol;             /* POS_SELECT: its result column, or -1 */
} OpAt;

/* What a row's bind entry did with an expression. */
enum {
	OP_BIND_NONE = 0,     /* not the operator's: the next row is offered it */
	OP_BIND_TOOK,         /* the operator's, bound with what it holds (the binder stops) */
	OP_BIND_ON            /* rewritten in place (or an error noted): the binder goes on
	                         into its arguments */
};

/* What an operator's constructs are to the statement (EngineOp.construct). */
enum {
	OP_INNER = 0,         /* none of its own: it works on the free-text occurrences, or on
	                         nothing that needs a plan (bm25()) */
	OP_REWRITTEN,         /* its own, rewritten into plain SQL before the statement runs
	                         (ENUM comparisons) */
	OP_EVALUATED          /* its own, whose values suql's functions give as the database
	                         reads the rows (matches(), answer_agg()) */
};

/* What a holds entry says of an expression (op_holds). */
enum {
	OP_HOLD_NONE = 0,
	OP_HOLD,              /* the operator's node: the planner leaves it where it is */
	OP_HOLD_PENDING       /* ... and its value is not known before the operator settles it
	                         (an ENUM literal not classified yet) */
};

typedef struct EngineOp {
	const char *name;     /* in errors and the documentation: "top-k", "aggregate" */
	OpSlot slot;          /* its state: Exec.opstate[slot] */
	int construct;        /* OP_INNER, OP_REWRITTEN or OP_EVALUATED */

	/* ---- what a statement writes, and the binder (bind.c) ---- */
	/* its SQL functions, ended by an entry without a name; NULL: none */
	const OpFunc *funcs;
	/* it has forms other than calls of its functions (answer() and summary() as the parser
	   reads them, and comparisons with them; an ENUM column compared with literals): bind
	   is offered every expression, f NULL unless it calls one of funcs */
	int forms;
	/* the expression at *slot of block b (-1: none) as the binder meets it, f the function
	   of funcs it calls: OP_BIND_NONE, OP_BIND_TOOK or OP_BIND_ON */
	int (*bind)(struct Bind *bd, int b, Expr **slot, const OpFunc *f, const OpAt *at);
	/* once the binder has replaced the occurrences by their calls (bind_occ_mutate): its
	   own constructs replaced by suql's SQL functions, their arguments as they are by then */
	void (*mutate)(Exec *ex);
	/* its SQL functions registered on the engine's connection (engine_open) */
	void (*functions)(Engine *e);

	/* The statement holds the operator (after binding): its other entries apply. */
	int (*applies)(const Exec *ex);

	/* ---- before the plan (exec_statement.c) ---- */
	/* after binding, before the statement is judged: what it learns without a call (ENUM:
	   the mappings stored) */
	SuqlStatus (*prepare)(Exec *ex, SuqlErr *err);
	/* the calls it must make before the statement reads as it will run (ENUM: the literals
	   not classified yet), made by settle (when they fit the budget: before the plan is
	   counted again, else after the budget check), and its constructs rewritten in the tree
	   (only_settled: those whose meaning is known already) */
	long (*pending)(const Exec *ex);
	SuqlStatus (*settle)(Exec *ex, SuqlErr *err);
	void (*rewrite)(Exec *ex, int only_settled);

	/* ---- the planner (plan.c, plan_push.c, plan_unit.c) ---- */
	/* what it says of expression e: OP_HOLD_NONE, OP_HOLD or OP_HOLD_PENDING */
	int (*holds)(const Exec *ex, const Expr *e);
	/* its calls counted into the statement's worst and expected calls as the planner
	   counts them (ENUM: a call per literal to classify) */
	void (*cost)(Exec *ex);

	/* ---- the pipeline ---- */
	/* After the planner (plan_statement) and ENUM classification, before the budget is
	   checked: the operator's calls are added to the statement's worst and expected calls. */
	SuqlStatus (*plan)(Exec *ex, SuqlErr *err);
	int plan_reads;       /* its plan reads the statement's rows: not under EXPLAIN */
	/* After the plan is shown (optimize on or passage): the calls asked ahead of the
	   final statement; `after` runs once every row's `run` is done. */
	SuqlStatus (*run)(Exec *ex, SuqlErr *err);
	SuqlStatus (*after)(Exec *ex, SuqlErr *err);
	/* The floor of its part of the statement: the fewest calls any planner needs for it
	   given the plan's estimates (its selectivities, its values and candidates counted,
	   the batch a call carries), however its own plan asks them; 0: it asks nothing; -1:
	   not known before the statement runs (its plan reads rows, not under EXPLAIN). Each
	   row says how its own floor is reckoned (doc/engine.md, "The floor"); the plan
	   states the sum and the counters the calls spent against it. */
	long long (*floor)(Exec *ex);
	/* The plan's lines, and the counters' lines, in the table's order. */
	void (*show)(Exec *ex, SBuf *out);
	void (*counters)(Exec *ex, SBuf *out);
	/* Once the final statement has run: what it keeps in the statement's record (:why). */
	void (*record)(Exec *ex);
	/* Why the statement cannot run on a backend of dialect d yet (asked before the planner
	   and again after it: an entry answers what it can know by then), or NULL. */
	const char *(*refuse)(Exec *ex, const Dialect *d);
	/* Release what the operator made for the statement (its state). */
	void (*free)(Exec *ex);

	/* ---- its hooks in the filter walk (exec_walk.c, exec_final.c, exec_walk_show.c),
	   called whether the row applies or not: each says itself whether it has work ---- */
	/* a unit's candidates listed and ranked, before the waves: what it decides of them
	   first (a cascade's proxy verdicts) */
	SuqlStatus (*walk_unit)(struct Walk *w, SuqlErr *err);
	/* the floor of block b's walk when the operator's walk_unit takes it over and asks
	   fewer than the walk would (a sample): the walk's floor then leaves the block out
	   and the operator's own floor counts it; -1: the walk's own */
	long long (*walk_floor)(Exec *ex, const Block *b);
	/* a block's values read ahead: occurrence occ is the operator's to evaluate (1, with
	   *s its status), or not (0) */
	int (*ahead)(Exec *ex, Block *b, int occ, SuqlStatus *s, SuqlErr *err);
	/* its lines in the walk's plan: after a block's every-candidate walk, and under an
	   occurrence's line (indent before each) */
	void (*show_walk)(const Exec *ex, SBuf *out, const Block *b);
	void (*show_occ)(Exec *ex, SBuf *out, const Block *b, int occ, const char *indent);
	/* its counters' line of a walked unit (name: "conjunct 1") */
	void (*unit_counters)(const Unit *u, SBuf *out, const char *name);
} EngineOp;

/* The table, NULL-terminated, in the order of every phase (op.c). */
extern const EngineOp *const op_table[];

/* The row of slot s. */
const EngineOp *op_row(OpSlot s);
/* Whether row op applies to the statement; and the row of slot s. */
int op_applies(const EngineOp *op, const Exec *ex);
int op_slot_applies(const Exec *ex, OpSlot s);
/* A construct of its own applies (any, or one whose values suql's functions give). */
int op_constructs(const Exec *ex);
int op_evaluated(const Exec *ex);

/* ---- the binder ---- */
/* Offer the expression at *slot to the rows in order: the first answer other than
   OP_BIND_NONE, or OP_BIND_NONE. */
int op_bind(struct Bind *bd, int b, Expr **slot, const OpAt *at);
/* Every applying row's mutate. */
void op_mutate(Exec *ex);
/* Every row's SQL functions on e's connection. */
void op_functions(Engine *e);
/* Whether s[0..n) is the name of one of the operators' SQL functions (any case). */
int op_sql_word(const char *s, size_t n);
/* The i-th name of the operators' SQL functions, in the table's order; NULL past the last. */
const char *op_sql_name(int i);

/* ---- before the plan, and the planner ---- */
SuqlStatus op_prepare(Exec *ex, SuqlErr *err);
long op_pending(const Exec *ex);
SuqlStatus op_settle(Exec *ex, SuqlErr *err);
void op_rewrite(Exec *ex, int only_settled);
/* Whether an applying row rewrites constructs of its own. */
int op_rewrites(const Exec *ex);
int op_holds(const Exec *ex, const Expr *e);
void op_cost(Exec *ex);

/* ---- the pipeline ---- */
/* Every applying row's plan, in order (explain: leave out those that read rows). */
SuqlStatus op_plan(Exec *ex, int explain, SuqlErr *err);
/* Every applying row's run, then every applying row's after. */
SuqlStatus op_run(Exec *ex, SuqlErr *err);
void op_show(Exec *ex, SBuf *out);
/* The statement's floor: the sum of every applying row's floor entry; per_row (NULL, or
   one slot per row of op_table, in its order) each row's (0 for one without an entry);
   *unknown: a row whose floor is not known before the statement runs (not counted). */
long long op_floor(Exec *ex, long long *per_row, int *unknown);
void op_counters(Exec *ex, SBuf *out);
void op_record(Exec *ex);
/* The first applying row's refusal on a backend of dialect d (a backend whose dialect
   runs suql's functions refuses nothing), as "<why> (the <name> operator)" in ex's
   arena, or NULL. */
const char *op_refusal(Exec *ex, const Dialect *d);
/* Every row's free. */
void op_free(Exec *ex);

/* ---- the walk's hooks: every row's that has one, applying or not (each says itself
   whether it has work there) ---- */
SuqlStatus op_walk_unit(Exec *ex, struct Walk *w, SuqlErr *err);
/* The floor of block b's walk as the operator that takes it over reckons it, or -1. */
long long op_walk_floor(Exec *ex, const Block *b);
int op_ahead(Exec *ex, Block *b, int occ, SuqlStatus *s, SuqlErr *err);
void op_show_walk(const Exec *ex, SBuf *out, const Block *b);
void op_show_occ(Exec *ex, SBuf *out, const Block *b, int occ, const char *indent);
void op_unit_counters(const Unit *u, SBuf *out, const char *name);

#endif
