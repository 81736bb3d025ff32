/*
 * exec_int.h: what the files of the free-text executor share and nobody else sees.
 * doc/executor.md explains the design; in short:
 *
 *   engine.c        Engine, settings, read-only mode, DDL and the catalog, engine_exec
 *   exec.c          one statement: bind, rewrite, validate, plan, budget, run, report
 *   bind.c          SELECT blocks, name scopes, the walk over every expression
 *   bind_occ.c      free-text occurrences and their replacement by function calls
 *   bind_scope.c    the columns of FROM items (tables, CTEs, subqueries, unnest)
 *   enum.c          ENUM '=': classifying literals, suql_enum_map, the IN-list rewrite
 *   memo.c          signatures (what is asked) and the per-statement memo of results
 *   udf.c           the SQL functions suql_atom/suql_answer/suql_summary/suql_verify
 *   exec_llm.c      passages of a value, and batches of evaluations through llm_run
 *   plan.c          per block: the WHERE's leaves, DNF units and trees, relaxed counts
 *   plan_block.c    laziness, occurrence plans, atom order, counts, the worst case
 *   plan_show.c     the plan and counters as text
 *   exec_cand.c     a unit's candidate statement, and fetching its rows' texts
 *   exec_rank.c     ranking candidates by relevance (BM25: the index, or in memory)
 *   exec_embed.c    dense similarity mixed into the ranking (with an embedding model)
 *   exec_walk.c     walking candidates in waves, the stop rule, speculation
 *   exec_final.c    evaluating ahead, projection last, the final statement
 *   exec_passage.c  the per-passage comparison mode (optimize = passage)
 *
 * Every free-text construct of a statement is an *occurrence* (Occ): an answer() or
 * summary() call, or a *verify atom* (answer() compared with literals by = <> IN NOT IN).
 * Its node in the tree is replaced by a call of a function suql registers, which looks the
 * result up in the statement's memo, keyed by the signature (what is asked) and the text
 * value, and only on a miss asks the model itself (one row, one call). The optimizer only
 * fills the memo ahead; so results never depend on it.
 *
 * Ownership: an Exec and everything hanging off it (blocks, occurrences, signatures, the
 * memo, buffers) is heap memory freed by exec_free; tree nodes live in the statement's
 * arena. Strings in Sig, Occ and Block are owned by the Exec.
 */
#ifndef SUQL_EXEC_INT_H
#define SUQL_EXEC_INT_H

#include "base/text.h"
#include "engine/engine.h"
#include "llm/llm.h"
#include "retrieve/retrieve.h"
#include "sql/ast.h"
#include "sql/print.h"
#include "store/catalog.h"

#include <stdint.h>

/* ---- settings ---- */

typedef enum OptMode { OPT_OFF = 0, OPT_ON, OPT_PASSAGE } OptMode;

typedef struct EngineSettings {
	int optimize;         /* OptMode */
	int batch;            /* candidates per call, at most */
	int batch_tokens;     /* passage tokens per call, at most (a call holds one candidate
	                         even when that candidate alone is larger) */
	long budget;          /* most LLM calls a statement may cost; 0: no limit */
	int passage_tokens;   /* text shown to the model per candidate, in tokens */
	int dnf_cap;          /* most conjuncts of a WHERE in DNF */
	int times;            /* show times in the counters */
	double busy;          /* seconds to wait for a database another process has locked */
} EngineSettings;

#define ENGINE_DEFAULT_BATCH 32
#define ENGINE_DEFAULT_BATCH_TOKENS 8000
#define ENGINE_DEFAULT_BUDGET 1000
#define ENGINE_DEFAULT_PASSAGE_TOKENS 500
#define ENGINE_DEFAULT_DNF_CAP 64
#define ENGINE_DEFAULT_BUSY 5   /* seconds: several suql processes share a database */
#define PASSAGE_BASELINE_K 20   /* optimize = passage: top 20 x LIMIT passages */

typedef struct Exec Exec;

struct Engine {
	sqlite3 *db;
	char *path;
	Llm *llm;
	int readonly;     /* refuse writes in user statements (engine_set_readonly) */
	int guard;        /* set while a user statement is prepared in read-only mode */
	char **hidden;    /* read-only mode: tables of evaluation labels, which may not be read */
	int nhidden;
	const char *denied;   /* the hidden table the authorizer last refused (in hidden) */
	EngineSettings set;
	Exec *cur;        /* the statement running, for the SQL functions */
	unsigned long seq;
	/* what the binder learnt of tables (bind_scope.c), kept while tabs_key holds */
	struct TabInfo *tabs;
	int ntabs, captabs;
	long long tabs_key[3];
	sqlite3_stmt *cookie;   /* PRAGMA schema_version, kept prepared */
	long steps_left;        /* >0: thousands of SQLite instructions the running statement
	                           may still take (a bounded count, exec_count) */
};

/* ---- what is asked: signatures ---- */

typedef enum FtKind { FT_VERIFY, FT_ANSWER, FT_SUMMARY } FtKind;

typedef struct Sig {
	FtKind kind;
	char *question;       /* VERIFY, ANSWER */
	char *op;             /* VERIFY: "=", "<>", "IN", "NOT IN" */
	char **expected;
	int nexpected;
	int pg;               /* ANSWER: PgType of a typed answer, PGT_NONE for text */
	int list;             /* the argument is a list (1), one text (0), or by its value (-1) */
	char *key;            /* all of the above in one string (interning) */
	long unread;          /* values whose replies could not be read (unknown) */
	char *unread_sample;  /* what the model replied for the first of them */
} Sig;

/* ---- the memo ---- */

typedef struct MemoVal {
	int verdict;          /* VERIFY: 1, 0, or -1 (NULL: no text, or an unreadable reply) */
	char *value;          /* ANSWER, SUMMARY: the converted value, NULL when none */
	char *warning;        /* why value is NULL */
	int warned;
} MemoVal;

typedef struct Memo Memo;
Memo *memo_new(void);
void memo_free(Memo *m);
/* The entry for (sig, value), or NULL. */
MemoVal *memo_get(Memo *m, int sig, const char *v, size_t n);
/* Create (or return) the entry for (sig, value). */
MemoVal *memo_put(Memo *m, int sig, const char *v, size_t n);
size_t memo_count(const Memo *m);

/* Intern a signature (taking ownership of s's strings); returns its index. */
int sig_intern(Exec *ex, Sig *s);
void sig_free(Sig *s);
LlmShape sig_shape(const Sig *s);

/* ---- scopes and blocks ---- */

typedef enum ItemKind { IT_TABLE, IT_CTE, IT_SUBQUERY, IT_UNNEST, IT_FUNC } ItemKind;

typedef struct ScopeItem {
	FromItem *f;
	ItemKind kind;
	char *name;           /* how the item is referred to: alias, else table name */
	char *table;          /* IT_TABLE: the table or view */
	int rowid;            /* a rowid table: rows are identified by rowid */
	char **cols;          /* column names as SQLite reports them */
	int ncols;            /* -1: unknown (any name may be one of them) */
	int block;            /* IT_CTE, IT_SUBQUERY: the block of the select's first core */
	Select *sel;          /* IT_CTE, IT_SUBQUERY */
} ScopeItem;

typedef enum BlockKind { BK_TOP, BK_SUBQUERY, BK_FROM, BK_CTE, BK_COMPOUND } BlockKind;

struct Unit;

typedef struct Block {
	int id;
	SelectCore *core;
	Select *sel;
	int core_index;
	int parent;           /* the enclosing block, -1 at the top */
	int lookup;           /* where names not found here are looked up next, -1: nowhere */
	BlockKind kind;
	int top;              /* the statement's own SELECT (its only core) */
	int exec;             /* the block runs when the statement runs (not a view's) */
	ScopeItem *items;
	int nitems;
	int correlated;       /* refers to an enclosing block's columns */
	int ppos;             /* OccPos of the expression holding it in the parent block */
	With **with;          /* WITH clauses in scope, outer first */
	int nwith;
	int nocc_where;       /* occurrences in WHERE */
	int nocc;             /* occurrences anywhere in the block (not in sub-blocks) */
	int aggregate;        /* aggregates, GROUP BY, windows, DISTINCT */
	unsigned char *colref; /* per result column: referred to by name or number elsewhere */
	/* planning (plan.c) */
	int planned;          /* its WHERE is walked by the optimizer */
	const char *why;      /* why it is not planned */
	long long limit;      /* LIMIT + OFFSET when the walk may stop early; -1: no */
	long long out_limit;  /* the LIMIT alone (rows returned at most); -1: none */
	const char *why_not_lazy;
	int ordered;          /* lazy in the query's ORDER BY order */
	OrderList *order;     /* ORDER BY resolved to expressions (ordered walk) */
	int dnf_over;         /* DNF past the cap: the tree per candidate */
	struct Unit *units;
	int nunits;
	long long from_rows;  /* rows of the FROM (upper bound of candidates) */
	long long bound;      /* rows that may pass WHERE (upper bound) */
	int identity;         /* every FROM item identifies its rows */
	Expr *relaxed;        /* budget phase: the WHERE with what needs the model dropped */
	int relaxed_set;
	int guessed;          /* from_rows is the product of its tables' sizes */
	int uncounted;        /* counting its FROM was stopped at the bound (EXEC_COUNT_CUT) */
	long long *acount;    /* budget phase: each unit's count */
	int anunits;
	int executed;
} Block;

/* ---- occurrences ---- */

typedef enum OccPos {
	POS_WHERE, POS_SELECT, POS_ORDER, POS_GROUP, POS_HAVING, POS_ON, POS_OTHER
} OccPos;

typedef enum OccMode {
	OCC_ONDEMAND,    /* a miss asks the model (naive mode, and anywhere not planned) */
	OCC_PLANNED      /* a miss is NULL: the optimizer evaluated everything that matters */
} OccMode;

typedef enum OccPlan {
	PL_NONE,         /* on demand */
	PL_WALK,         /* a WHERE atom walked per candidate */
	PL_LEAF,         /* inside a free-text WHERE leaf: evaluated for every candidate */
	PL_AHEAD,        /* evaluated ahead for every row that passes WHERE */
	PL_PROJECT       /* projection last: evaluated for the returned rows */
} OccPlan;

typedef struct Occ {
	int id;
	FtKind kind;
	int sig;              /* -1: the question is not a literal (decided per row) */
	int tsig;             /* sig < 0: the signature without its question (a template) */
	Expr **slot;          /* where the node hangs in the tree */
	Expr *orig;           /* a copy of the node as written (for the plan) */
	Expr *arg;            /* the text argument */
	Expr *call;           /* the suql_* call that replaced the node */
	int block;            /* -1: not inside a SELECT block */
	OccPos pos;
	int result_col;       /* POS_SELECT: which result column */
	int in_agg;           /* inside an aggregate or window function */
	int parent_occ;       /* inside another occurrence's argument: that one; else -1 */
	int atom;             /* a verify atom standing in the WHERE skeleton (literal question) */
	AstSpan qspan;        /* the question as written: errors about its value point at it */
	int mode;             /* OccMode, read by the SQL functions */
	OccPlan plan;
	/* the argument's origin, when it is a column */
	int arg_item;         /* scope item in the block, -1 */
	char *arg_table;      /* base table and column (rowid table), for ranking */
	char *arg_col;
	int arg_indexed;      /* the retrieval index of that column may be used */
} Occ;

/* ---- ENUM comparisons ---- */

typedef struct EnumLit {
	char *text;           /* the literal */
	int permitted;        /* one of the permitted values as it is */
	int known;            /* mapping known (from the map or classified), or unknown below */
	int classified_now;
	int unknown;          /* the model's reply could not be read: the comparison is NULL */
	char *reply;          /* unknown: what the model replied */
	char *other_model;    /* a stored mapping made by another model (classified again) */
	char **vals;          /* the permitted values it means */
	int nvals;
} EnumLit;

typedef enum EnumForm { EF_EQ, EF_NE, EF_IN, EF_NOTIN, EF_ANY, EF_NOTALL, EF_CONTAINS } EnumForm;

typedef struct EnumCmp {
	Expr **slot;
	Expr *orig;           /* copy for display */
	Expr *col;            /* the column expression */
	EnumForm form;
	char *table, *column;
	int list;             /* ENUM[] */
	EnumLit *lits;
	int nlits;
	Expr **others;        /* IN-list items that are not literals (kept) */
	int nothers;
	int block;
	int pending;          /* some literal still needs classifying */
	int rewritten;
	char **options;       /* permitted values */
	int noptions;
} EnumCmp;

/* ---- planning units: one per DNF conjunct, or the whole tree ---- */

typedef enum TNodeKind { TN_AND, TN_OR, TN_NOT, TN_TRUE, TN_SQL, TN_ATOM } TNodeKind;

typedef struct TNode {
	TNodeKind kind;
	int *kids;            /* TN_AND, TN_OR, TN_NOT */
	int nkids;
	int col;              /* TN_SQL: the column of the candidate statement holding it */
	int occ;              /* TN_ATOM */
	Expr *expr;           /* TN_SQL, TN_ATOM: the leaf */
} TNode;

typedef struct Lit {
	Expr *e;              /* the leaf */
	int neg;
	int kind;             /* LK_SQL, LK_ATOM, LK_LEAF, LK_DEFER */
	int occ;              /* LK_ATOM */
	double sel, cost;     /* estimates for atoms */
} Lit;

enum { LK_SQL, LK_ATOM, LK_LEAF, LK_DEFER };

typedef struct Unit {
	Lit *lits;            /* DNF: the conjunct's literals */
	int nlits;
	TNode *nodes;         /* the tree the candidates are judged by; nodes[0] is the root */
	int nnodes;
	int *atoms;           /* the unit's atoms (occurrence ids), in the order tried */
	int natoms;
	int *leaf_occ;        /* occurrences of free-text leaves (evaluated for every candidate) */
	int nleaf_occ;
	Expr *where;          /* the structured part: the unit's candidates */
	Expr *where_sql;      /* the same without free-text leaves */
	int skipped;          /* not walked: enough rows were found already */
	int nsqlcols;         /* tree mode: structured leaves selected as columns */
	Expr **sqlcols;
	char *sql;            /* the candidate statement */
	char *count_sql;      /* its row count, for the budget */
	long long count;      /* rows after the structured filter (budget phase: at most) */
	int count_exact;
	/* what the walk did (counters) */
	long long rows, examined, accepted, rejected;
	long long unknown;    /* decided as NULL: no text, or a reply that could not be read */
	int ranking;          /* 0 none, 1 retrieval index, 2 in memory */
	char *rank_note;
	long long spec_items;
} Unit;

/* ---- counters ---- */

typedef struct ExecCounts {
	long long rows_out;
	long waves;
	long long spec_items;    /* evaluations beyond what the result needed */
	long spec_calls;
	long ondemand_calls;     /* calls made by the SQL functions themselves */
	long lazy_nulls;         /* planned atoms read as unknown */
	long long ahead_values, project_values;
	long long project_rows;
	double t0;
} ExecCounts;

/* ---- the statement ---- */

struct Exec {
	Engine *e;
	sqlite3 *db;
	sqlite3_stmt *ready;  /* a statement with nothing to do ahead: validate's preparation,
	                         which final_run runs (not prepared twice) */
	int tabs_checked;     /* scope_tabs_check has run for this statement */
	Llm *llm;
	Ast *ast;
	Arena *a;
	const char *sql;      /* the user's text and length (for error positions) */
	size_t len;
	EngineSettings set;
	const EngineSink *sink;
	int standalone;       /* print self-contained functions (CREATE VIEW) */

	Block *blocks;
	int nblocks, capblocks;
	Occ *occ;
	int nocc, capocc;
	Sig *sigs;
	int nsigs, capsigs;
	EnumCmp *enums;
	int nenums, capenums;
	Memo *memo;

	SBuf plan;
	ExecCounts cnt;
	long long worst[5];   /* worst-case calls per kind: verify, answer, summary, classify, embed */
	long long worst_total;
	long long expect[5];  /* the same when lazy walks stop as soon as they may (WALK_EXPECT_RATE
	                         of their candidates passing): what the budget is checked against */
	long long expect_total;

	/* a failure inside an SQL function */
	SuqlStatus fn_status;
	char *fn_msg;
	char **warned;        /* warnings already shown */
	int nwarned;
	long unread;          /* values and ENUM literals left unknown by unreadable replies */

	int in_fn;            /* evaluating on demand, inside an SQL function */
	int counting;         /* the functions answer NULL and call nothing (budget counts) */
	int relaxing;         /* print every block's WHERE relaxed (budget counts) */
	char **colnames;      /* the statement's result columns, as SQLite names them */
	int ncolnames;
	unsigned char *collist;   /* per result column: a column of a SUQL list type */
	const struct Walk *walking;   /* the walk running now, for engine_progress */
	int ftmp;             /* temp table made (projection last) */
	char tmpname[48];
};

/* An SQLite error message about the user's text: at off (or, for an unknown table, where
   its name stands) with a caret, and a "did you mean" hint for a near-miss table or column
   name. off < 0: no known position. */
SuqlStatus exec_name_error(sqlite3 *db, const char *msg, const char *sql, size_t len,
                           long off, size_t tlen, SuqlErr *err);

/* engine.c: the refusal of a statement the read-only authorizer denied */
SuqlStatus engine_refused(Engine *e, SuqlErr *err);

/* exec.c */
SuqlStatus exec_user_error(sqlite3 *db, const Printer *pr, const char *sql, size_t len,
                           SuqlErr *err);
SuqlStatus exec_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                          const EngineSink *sink, SuqlErr *err);
/* Record a failure of an SQL function (the first one wins). */
void exec_fail(Exec *ex, SuqlStatus st, const char *msg);
void exec_warn(Exec *ex, const char *msg);
/* A reply the model gave for one value could not be read (reply: what it said). */
void exec_unread(Exec *ex, int sig, const char *reply);
/* Run one SQL text and read one integer (count(*)); -1 on error, EXEC_COUNT_CUT when it
   took more than EXEC_COUNT_STEPS SQLite instructions and was stopped (planning never
   runs an unbounded query: an endless recursive CTE, a large cross join). */
long long exec_count(Exec *ex, const char *sql);
/* Bound (on) or unbound (off) the statements the planner runs next to EXEC_COUNT_STEPS
   instructions each: a bounded one is stopped (SQLITE_INTERRUPT) past it. */
void exec_bound(Exec *ex, int on);
#define EXEC_COUNT_CUT (-2)
#define EXEC_COUNT_STEPS 50000000L   /* about half a second */
/* The error of a statement the engine made: the SQLite message, or the function's. */
SuqlStatus exec_sqlerr(Exec *ex, SuqlErr *err, const char *what);

/* bind.c, bind_occ.c */
typedef struct Bind {
	Exec *ex;
	With **with;          /* WITH clauses in scope, outer first */
	int nwith, capwith;
	int exec;             /* the blocks run (0 inside CREATE VIEW) */
	OccPos pos;           /* where in the parent block a subquery being bound stands */
	SuqlErr *err;         /* the first error found (a question that cannot be one) */
	SuqlStatus st;
} Bind;
SuqlStatus bind_statement(Exec *ex, SuqlErr *err);
void bind_select(Bind *bd, Select *s, int parent, int lookup, BlockKind kind, int top);
void bind_walk(Bind *bd, int b, Expr **slot, OccPos pos, int skel, int in_agg, int pocc,
               int rcol);
/* slot holds a verify atom (answer() compared with literals): made into an occurrence */
int bind_try_verify(Bind *bd, int b, Expr **slot, OccPos pos, int skel, int in_agg, int pocc,
                    int rcol);
int bind_make_occ(Bind *bd, int b, Expr **slot, FtKind kind, Expr *ans, const char *op,
                  Expr **exp, int nexp, int pg, OccPos pos, int skel, int in_agg, int pocc,
                  int rcol);
/* A literal's text (a double-quoted word naming no column is one), or NULL. */
char *bind_literal(Exec *ex, int b, const Expr *e);
/* Column name's index in a scope item, -1 absent, -2 the item's names are unknown, -3 rowid */
int bind_item_col(Exec *ex, Block *b, ScopeItem *it, const char *name);
/* The longest question, in bytes: a question goes into every prompt of its calls, so its
   length is a cost (documented with answer() in the manual). */
#define EXEC_QUESTION_MAX 4000
/* What makes a value (SQLite type, text) unusable as a question ("is NULL", "is empty"...),
   or NULL when it is a question. The text is in buf or static. */
const char *bind_question_problem(int type, const char *s, size_t n, char *buf, size_t bufsz);
/* The error about occurrence o's question: at the question in the statement (none for the
   self-contained forms, o NULL). */
SuqlStatus bind_question_error(Exec *ex, const Occ *o, FtKind kind, const char *problem,
                               SuqlErr *err);
/* Replace every occurrence's node by its function call (statement or standalone form). */
void bind_mutate(Exec *ex);
/* Resolve an unqualified or qualified column in block b: the item index, or -1; *blk is
   set to the block where it was found. */
int bind_resolve(Exec *ex, int b, const Expr *col, int *blk);
int bind_is_aggregate_name(const Expr *e);

/* bind_scope.c */
typedef struct TabInfo {
	char *name;
	int exists;           /* a table or view */
	int rowid;            /* a rowid table */
	char **cols;
	int ncols;
	CatColumn *cat;       /* catalog entries */
	int ncat;
} TabInfo;
TabInfo *scope_table(Exec *ex, const char *name);
const CatColumn *scope_catalog(Exec *ex, const char *table, const char *column);
void scope_item_columns(Exec *ex, Block *b, ScopeItem *it);
/* Forget what is known of tables when the database may have changed since it was learnt
   (the schema, this connection's writes, another connection's commits); always, with
   all set. */
void scope_tabs_check(Engine *e, int all);

/* enum.c */
void enum_detect(Exec *ex, int b, Expr **slot);    /* called by the binder */
SuqlStatus enum_lookup(Exec *ex, SuqlErr *err);     /* the map, before any call */
int enum_pending(const Exec *ex);                    /* literals still to classify */
SuqlStatus enum_classify(Exec *ex, SuqlErr *err);   /* one call per pending literal */
void enum_rewrite(Exec *ex, int only_known);        /* replace comparisons in the tree */
void enum_show(Exec *ex, SBuf *out);
void enum_free(EnumCmp *c);                          /* what a comparison holds */

/* exec_llm.c */
typedef struct Req {
	int sig;
	const char *v;        /* the text value (borrowed) */
	size_t n;
	int tag;              /* the caller's: candidate index */
	int tag2;             /* the caller's: atom index */
	int state;            /* 0 to do, 1 done, 2 cancelled */
	int call;             /* set by ft_run: the first request of its call (-1: none) */
	int sent;             /* set by ft_run: its call went to the backend (not the cache) */
} Req;
/* Called as each evaluation is stored; nonzero stops the run (the rest is cancelled). */
typedef int (*ReqDoneFn)(void *ctx, Req *r, const MemoVal *mv);
/* Evaluate the requests not in the memo, batch per call, several calls in flight. */
SuqlStatus ft_run(Exec *ex, Req *reqs, int n, ReqDoneFn done, void *ctx, SuqlErr *err);
/* A value's passages for a signature, most relevant first, within the token budget. */
size_t ft_passages(Exec *ex, const Sig *s, const char *v, size_t n, char ***out);
/* Evaluate sig for every non-NULL value in the first column of st's rows (st is stepped
   to its end and finalized); *nvals grows by their number. what names the reading in an
   SQL error. */
SuqlStatus ft_run_column(Exec *ex, int sig, sqlite3_stmt *st, const char *what, long long *nvals,
                         SuqlErr *err);
/* The memo entry for (sig, value), evaluating it now when missing (one call). */
SuqlStatus ft_one(Exec *ex, int sig, const char *v, size_t n, MemoVal **out, SuqlErr *err);

/* udf.c */
void udf_register(Engine *e);

/* plan.c, plan_block.c */
SuqlStatus plan_statement(Exec *ex, SuqlErr *err);   /* before any call: counts, worst case */
void plan_exec(Exec *ex);                            /* after classification: the walk's units */
int *plan_order(Exec *ex);                           /* blocks, what each reads first */
void plan_units(Exec *ex, Block *b, int budget);
/* Worst-case calls (ex->worst, ex->worst_total) from the plan. */
void plan_worst(Exec *ex);
void unit_free(Unit *u);
/* Kleene value of a unit's tree for one candidate: 1 true, 0 false, 2 NULL, 3 undecided;
   *next is the atom (index in u->atoms) to evaluate next when undecided. */
int unit_eval(const Unit *u, const signed char *sqlv, const signed char *atomv, int *next);

/* plan_show.c */
void show_plan(Exec *ex, SBuf *out);
void show_counters(Exec *ex, SBuf *out);
char *show_expr(Exec *ex, const Expr *e);     /* SUQL text of an expression */

/* ---- walking a unit's candidates (exec_cand.c, exec_rank.c, exec_walk.c, exec_passage.c) ---- */

#define NULL_ID INT64_MIN   /* a NULL id (the missing side of an outer join) */

/* Rows already found by an earlier unit (unordered walks, and to skip work). */
typedef struct RowSet {
	uint64_t *h;
	size_t cap, n;
} RowSet;

typedef struct Walk {
	Exec *ex;
	Block *b;
	Unit *u;
	int nid;
	Expr **idx;             /* the id expressions */
	int narg;
	Expr **args;            /* distinct argument expressions of the unit's atoms */
	int *atom_arg;          /* per atom */
	long long n, cap;
	sqlite3_int64 *ids;     /* n * nid */
	char **vals;            /* n * narg, when rows cannot be fetched again */
	size_t *lens;
	signed char *sqlv;      /* n * nsqlcols */
	signed char *atomv;     /* n * natoms: -2 unknown, -1 NULL, 0, 1 */
	signed char *state;     /* -1 undecided, 1 passed, 0 failed, 2 NULL (unknown) */
	unsigned char *fresh;   /* passed, and no earlier unit had found the row */
	unsigned char *busy;    /* an ask is in flight */
	double *score;
	long long *order;       /* walk position -> candidate */
	long long *pos;         /* candidate -> walk position */
	sqlite3_stmt *fetch;
	/* the stop rule */
	long long need;         /* rows needed; -1: all */
	long long front, front_pass;
	long long passes;
	long long ndecided;
	long long stop_pos;     /* walk position where enough rows had passed; -1 */
	int global;             /* unordered with identity: distinct rows across units */
	RowSet *found;          /* rows passed in this block so far (with identity) */
	/* done asks, for the speculation count */
	long long *log_pos;
	long long *log_call;    /* wave * 1000003 + first request of the call: one per call */
	int *log_sent;
	long nlog, caplog;
	int wave;
} Walk;

/* exec_cand.c: the candidate statement of a unit, and its rows' texts */
void cand_ids(Walk *w);
/* The index of argument expression e among the walk's (an equal one counts), added when new. */
int cand_arg(Walk *w, Expr *e);
char *cand_sql(Walk *w, int with_args);
SuqlStatus cand_load(Walk *w, SuqlErr *err);
/* The text of argument a of candidate c (the caller frees it); NULL: the value is NULL.
   *failed: an SQL error, in err. */
char *cand_value(Walk *w, long long c, int a, size_t *len, SuqlErr *err, int *failed);
void walk_free(Walk *w);
/* exec_walk.c: at most how many calls one question of a walk over n candidates (natoms
   questions each) may take to find need rows (-1: all), following the walk's wave sizes at
   their smallest; each wave at most maxwave candidates, a call at most per_call of them. */
long long walk_worst_calls(long long n, long long need, int natoms, long long maxwave,
                           long long per_call);
/* The calls of the same walk when a share rate of the candidates passes (it stops once
   need rows passed). */
long long walk_expect_calls(long long n, long long need, int natoms, long long maxwave,
                            long long per_call, double rate);
/* The pass rate the budget check assumes of a lazy walk: 1 candidate in 50 (the walk's
   waves are sized for no less). A walk that finds fewer goes on until the budget stops it. */
#define WALK_EXPECT_RATE 0.02
/* exec_rank.c: order w->order best first; *prior: the share of candidates that match */
SuqlStatus rank_candidates(Walk *w, double *prior, SuqlErr *err);

/* exec_embed.c: reorder the top of a ranking (order[] positions, ids per candidate) by
   dense similarity mixed with BM25 when an embedding model is configured. */
#define EMBED_TOP 16
SuqlStatus embed_rerank(Exec *ex, const Unit *u, const int *atom_item, const sqlite3_int64 *ids,
                        int nid, const double *score, long long *order, long long n, int *used,
                        SuqlErr *err);

/* exec_walk.c */
SuqlStatus walk_block(Exec *ex, Block *b, SuqlErr *err);
char *walk_sql(Exec *ex, Block *b, Unit *u);   /* a unit's candidate statement, for the plan */
/* Evaluate occurrence occ for every distinct argument of the rows of b passing where. */
SuqlStatus walk_ahead(Exec *ex, Block *b, int occ, Expr *where, long long *nvals, SuqlErr *err);

/* exec_final.c */
SuqlStatus final_ahead(Exec *ex, Block *b, SuqlErr *err);
SuqlStatus final_run(Exec *ex, SuqlErr *err);

/* exec_passage.c */
SuqlStatus passage_block(Exec *ex, Block *b, SuqlErr *err);

/* helpers shared by the files */
Expr *exec_and(Arena *a, Expr *l, Expr *r);
Select *exec_select(Exec *ex, Block *b, ResultList *cols, Expr *where, OrderList *order);
void exec_col(Arena *a, ResultList **l, Expr *e, const char *alias);
char *exec_print_select(Exec *ex, Select *s);
/* Print sql on stderr when SUQL_TRACE_SQL is set (what SQLite is given to prepare). */
void exec_trace(const char *sql);
SuqlStatus exec_prepare(Exec *ex, const char *sql, sqlite3_stmt **st, SuqlErr *err);
/* Run SQL text (the engine's own statements) with sqlite3_exec; SUQL_ERROR with SQLite's
   message. */
SuqlStatus exec_run_sql(sqlite3 *db, const char *sql, SuqlErr *err);
char *exec_value_text(sqlite3_value *v, size_t *n);
/* Append a copy of s to the string vector *v of *n. */
void exec_strv_push(char ***v, int *n, const char *s);

#endif
