/*
 * engine_int.h: what every file of the engine shares: the Engine, and the statement being
 * run (Exec) with what the phases make of it: its SELECT blocks and their name scopes, its
 * free-text occurrences and their signatures, its planning units and its counters. Each
 * phase has a header of its own with one prefix, and each function lives in the file its
 * prefix names; the files form five groups in an order, bottom to top, none calling or
 * including a higher one (src/README.md has the table; tests/suites/44-layers.sh checks
 * both):
 *
 *   model  engine_int.h, memo_int.h (memo_: memo.c), sql_int.h (exec_: exec.c, the
 *          engine's own SQL and the statement's errors; exec_pg_plan_: its printing for
 *          PostgreSQL; exec_hint_: SQLite's errors worded; each backend's Dialect row,
 *          dialect_sqlite.c and dialect_pg.c), op_int.h (op_: the operator table, whose
 *          loops every group runs)
 *   bind   bind_int.h (bind_, bind_occ_, bind_scope_), enum_int.h (enum_: ENUM '='),
 *          bm25.c: blocks, scopes, occurrences
 *   plan   plan_int.h (plan_, plan_unit_, plan_push_, plan_topk_, plan_cost_): laziness,
 *          DNF units, counts, the cost model
 *   walk   exec_int.h (exec_llm_, exec_cand_, exec_walk_, exec_final_, ...), udf_int.h
 *          (udf_: the SQL functions), record_int.h (exec_record_, made while a statement
 *          runs; engine_record_, shown): the walks, and the operators' files
 *   top    top_int.h (exec_statement, exec_sqlite_, exec_pg_, exec_pg_run_, exec_pg_dml_,
 *          engine_ddl_, plan_show_): a statement end to end through one pipeline, each
 *          backend a row of its table (Backend: the database, a statement's run, the
 *          pipeline's steps); the plan and counters as text
 *
 * engine.c holds the Engine (open with a backend's row, settings, read-only mode,
 * engine_exec); doc/executor.md explains the design. In short: every free-text construct
 * of a statement is an *occurrence* (Occ): an answer() or summary() call, or a *verify
 * atom* (answer() compared with literals by = <> IN NOT IN). Its node in the tree is
 * replaced by a call of a function suql registers, which looks the result up in the
 * statement's memo, keyed by the signature (what is asked) and the text value, and only on
 * a miss asks the model itself (one row, one call). The optimizer only fills the memo
 * ahead; so results never depend on it.
 *
 * Ownership: an Exec and everything hanging off it (blocks, occurrences, signatures, the
 * memo, buffers) is heap memory freed when the statement ends (exec.c); tree nodes live in
 * the statement's arena. Strings in Sig, Occ and Block are owned by the Exec.
 */
#ifndef SUQL_ENGINE_INT_H
#define SUQL_ENGINE_INT_H

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
	double budget_usd;    /* most dollars a statement may cost (at the model's price); 0: no
	                         limit */
	int passage_tokens;   /* text shown to the model per candidate, in tokens */
	int dnf_cap;          /* most conjuncts of a WHERE in DNF */
	double cascade_target;  /* learned proxy: precision and recall against the main model
	                           its thresholds must meet; 0: no cascade */
	int cascade_sample;   /* candidates the main model labels for it */
	int join_candidates;  /* semantic join: right values one left value is compared with, at
	                         most (past it, BM25 keeps the best); 0: all */
	int join_factor;      /* semantic join: try a factorization into one property of each
	                         side (1 auto) or not (0 off; exec_factor.c) */
	int times;            /* show times in the counters */
	int window;           /* a ranked walk's first window of candidates (exec_window.c); 0:
	                         list them all */
	double busy;          /* seconds to wait for a database another process has locked */
	int fast_path;        /* plain statements straight to SQLite (engine_plain.c) */
	int extract_quotes;   /* extract() objects carry their supporting quotes */
	int agg_tokens;       /* answer_agg()/summary_agg(): a group's most relevant passages sent
	                         to the model, in tokens, at most (exec_agg.c) */
} EngineSettings;

#define ENGINE_DEFAULT_BATCH 32
#define ENGINE_DEFAULT_BATCH_TOKENS 8000
#define ENGINE_DEFAULT_BUDGET 1000
#define ENGINE_DEFAULT_PASSAGE_TOKENS 500
#define ENGINE_DEFAULT_DNF_CAP 64
#define ENGINE_DEFAULT_JOIN_CANDIDATES 0
#define ENGINE_DEFAULT_CASCADE_SAMPLE 500
#define ENGINE_DEFAULT_WINDOW 1024
#define ENGINE_DEFAULT_BUSY 5   /* seconds: several suql processes share a database */
#define ENGINE_DEFAULT_AGG_TOKENS 16000
#define PASSAGE_BASELINE_K 20   /* optimize = passage: top 20 x LIMIT passages */

typedef struct Exec Exec;

/* The fast path of plain statements (engine_plain.c): whether the catalog lets it run,
   and what that answer was kept against. */
typedef struct EnginePlain {
	sqlite3_stmt *cookie;   /* PRAGMA schema_version, kept prepared */
	int held;               /* it holds a read transaction open (schema_cookie) */
	sqlite3_stmt *txn[3];   /* BEGIN IMMEDIATE, COMMIT, ROLLBACK: a write's own transaction */
	int known, ok;
	int txn_checked;        /* checked inside the transaction now open */
	long long changes_seen; /* the connection's count of changes after the last fast one */
	long long cookie_seen;
	unsigned int dv_seen;   /* the pager's data version (every commit to the file) */
	int hooked, armed;      /* the commit hook is set; it checks this statement's commit */
	int hook;               /* what it said: 0 not asked, 1 let it commit, 2 rolled it back */
	unsigned long full, full_seen;   /* statements run by the full path */
	unsigned long taken;    /* statements run by the fast path */
	char *buf;              /* the statement's text ended with a NUL, for SQLite */
	size_t cap;
} EnginePlain;

typedef struct Dialect Dialect;   /* the backend as a table (below) */

/* What the binder learns of a table (bind_scope.c, from the backend's Dialect.table_facts
   and the catalog), kept by the Engine while Dialect.schema_key holds. */
typedef struct TabInfo {
	char *name;
	int exists;           /* a table or view */
	int rowid;            /* a rowid table */
	char *rowkey;         /* PostgreSQL: the row identity when it is a key, a column of
	                         integers (an integer primary key is what SQLite makes the
	                         rowid, the order rows were added in); NULL: ctid, or none */
	const char *rowwhy;   /* PostgreSQL: where rowkey comes from (static text) */
	char *rowbad;         /* PostgreSQL: why a row_key declared in suql.table_props is not
	                         used, or NULL */
	int noid;             /* PostgreSQL: rows with neither a key nor a usable ctid (a
	                         partitioned or foreign table without a key) */
	char **cols;
	int ncols;
	CatColumn *cat;       /* catalog entries */
	int ncat;
} TabInfo;

/* One literal's stored ENUM mapping, as a backend's map reads it (Dialect.map_read). */
typedef struct EnumMapRow {
	int known;            /* made by this model, and trusted: vals holds it */
	char *vals;           /* the values as a JSON array (heap) */
	char *other_model;    /* else made by another model: its name (heap), or NULL */
	int unmarked;         /* else one of this model's without this user's mark: not used */
} EnumMapRow;

struct Engine {
	Store *store;         /* the database, through the storage seam */
	sqlite3 *db;          /* its SQLite connection, for what is not behind the seam yet;
	                         with PostgreSQL, an in-memory scratch database (engine.c) */
	const struct Backend *backend;   /* the backend's row of the driver's table (top_int.h:
	                                    SQLite's, exec_sqlite.c; PostgreSQL's, exec_pg.c),
	                                    chosen when the database opens */
	const Dialect *dialect;   /* its row of the table the phases read (backend->dialect) */
	char *path;
	Llm *llm;
	int readonly;     /* refuse writes in user statements (engine_set_readonly) */
	int open_ro;      /* opened read-only (--readonly): SQLite's file read-only, on
	                     PostgreSQL every statement in a read-only transaction it cannot
	                     change (exec_pg_ro.c) */
	int guard;        /* set while a user statement is prepared in read-only mode */
	char **hidden;    /* read-only mode: tables of evaluation labels, which may not be read */
	int nhidden;
	const char *denied;   /* the hidden table the authorizer last refused (in hidden) */
	char **own_trig;      /* the file's triggers on suql's tables (store/own.h): never run */
	int nown_trig;
	long long own_cookie; /* the schema cookie own_trig was read at */
	const char *own_denied;   /* the trigger the authorizer last refused (in own_trig) */
	int own_create;       /* the authorizer refused a trigger on one of suql's tables */
	EngineSettings set;
	Exec *cur;        /* the statement running, for the SQL functions */
	unsigned long seq;
	/* what the binder learnt of tables (bind_scope.c), kept while tabs_key holds */
	struct TabInfo *tabs;
	int ntabs, captabs;
	long long tabs_key[3];
	sqlite3_stmt *cookie;   /* PRAGMA schema_version, kept prepared */
	int held;               /* it holds a read transaction open (schema_cookie) */
	sqlite3_stmt *txn[3];   /* BEGIN IMMEDIATE, COMMIT, ROLLBACK: a write's own transaction */
	long steps_left;        /* >0: thousands of SQLite instructions the running statement
	                           may still take (a bounded count, exec_count) */
	struct Record *record;  /* what came from where in the last statement (record_int.h) */
	EnginePlain plain;
};

/* ---- the fast path (engine_plain.c) ---- */

/* Run the first statement of sql[0..len) straight through SQLite when suql would not change
   it: returns 1 and sets *used and *status (err holds a failure), or 0 when the full path
   must run it (nothing was run). */
int engine_plain_run(Engine *e, const char *sql, size_t len, size_t *used,
                     const EngineSink *sink, SuqlStatus *status, SuqlErr *err);
void engine_plain_free(Engine *e);
/* Whether sql[0..len) is one complete statement: 1, or -1 when a quick look cannot tell
   (engine_complete asks the lexer then). */
int engine_plain_complete(const char *sql, size_t len);

/* ---- three-valued logic ---- */

/* A condition's value for one candidate, in SQL's three-valued logic, and "not decided
   yet" while the candidate's atoms are still being asked (plan_unit_eval). */
typedef enum Tri { TRI_FALSE = 0, TRI_TRUE = 1, TRI_NULL = 2, TRI_UNDECIDED = 3 } Tri;

/* One answer to a yes/no question (a verify atom, a structured leaf), as the memo and the
   walk keep it in a signed char: yes, no, NULL (no text, or a reply that could not be
   read), or not asked yet. */
typedef enum Verdict {
	VERDICT_UNASKED = -2,
	VERDICT_NULL = -1,
	VERDICT_NO = 0,
	VERDICT_YES = 1
} Verdict;

/* ---- what is asked: signatures ---- */

/* FT_EXTRACT: extract(t, 'spec'), its question the spec's canonical text (llm/spec.h), its
   value one JSON object (the operator's files: bind_occ.c recognizes it, exec_llm.c asks
   LLM_EXTRACT calls, llm/llm_extract.c words them) */
typedef enum FtKind { FT_VERIFY, FT_ANSWER, FT_SUMMARY, FT_EXTRACT } FtKind;
/* the slot of ex->est.worst[] and ex->est.expect[] a kind's calls are counted in */
#define FT_COST_SLOT(k) ((k) == FT_EXTRACT ? 5 : (int)(k))
#define FT_COST_AGG 6     /* answer_agg() and summary_agg() (exec_agg.c) */
#define FT_COST_SLOTS 7

typedef struct Sig {
	FtKind kind;
	char *question;       /* VERIFY, ANSWER */
	char *op;             /* VERIFY: "=", "<>", "IN", "NOT IN" */
	char **expected;
	int nexpected;
	PgType pg;            /* ANSWER: the type of a typed answer, PGT_NONE for text */
	char **options;       /* ANSWER: the answers allowed (answer(t, q, ARRAY[...])), or none */
	int noptions;
	int list;             /* the argument is a list (1), one text (0), or by its value (-1) */
	char *subject;        /* a semantic join's left value (matches(): the right values are
	                         the candidates; exec_join.c) */
	int join;             /* a semantic join's signature: 1 + the join's number (0: none) */
	int unread_to;        /* a join's left value: 1 + the signature its unreadable replies
	                         are counted on, the join's own (0: its own) */
	int quotes;           /* EXTRACT: with the supporting quotes (extract_quotes) */
	int judge;            /* a cascade's proxy model: 1 or 2, the wording it is asked with
	                         (exec_cascade.c); 0: the chat model */
	char *key;            /* all of the above in one string (interning) */
	long unread;          /* values whose replies could not be read (unknown) */
	char *unread_sample;  /* what the model replied for the first of them */
} Sig;

/* ---- the memo ---- */

typedef struct MemoVal {
	int verdict;          /* VERIFY: a Verdict (VERDICT_NULL: no text, or an unreadable
	                         reply) */
	char *value;          /* ANSWER, SUMMARY: the converted value, NULL when none */
	char *warning;        /* why value is NULL */
	int warned;
	int rec;              /* the statement record's ask for it, + 1 (0: none) */
} MemoVal;

typedef struct Memo Memo;

/* ---- scopes and blocks ---- */

/* Where in a block an expression stands. */
typedef enum OccPos {
	POS_WHERE, POS_SELECT, POS_ORDER, POS_GROUP, POS_HAVING, POS_ON, POS_OTHER
} OccPos;

typedef enum ItemKind { IT_TABLE, IT_CTE, IT_SUBQUERY, IT_UNNEST, IT_FUNC } ItemKind;

typedef struct ScopeItem {
	FromItem *f;
	ItemKind kind;
	char *name;           /* how the item is referred to: alias, else table name */
	char *table;          /* IT_TABLE: the table or view */
	int rowid;            /* a rowid table: rows are identified by rowid */
	char *rowkey;         /* PostgreSQL: the column of integers that identifies the table's
	                         rows (its key, bind_scope.c), or NULL: its ctid */
	const char *rowwhy;   /* PostgreSQL: where rowkey comes from (static text), or NULL */
	char *rowbad;         /* PostgreSQL: why the declared row_key is not used, or NULL */
	int noid;             /* PostgreSQL: neither a key nor a usable ctid */
	char **cols;          /* column names as SQLite reports them */
	int ncols;            /* -1: unknown (any name may be one of them) */
	int block;            /* IT_CTE, IT_SUBQUERY: the block of the select's first core */
	Select *sel;          /* IT_CTE, IT_SUBQUERY */
} ScopeItem;

typedef enum BlockKind { BK_TOP, BK_SUBQUERY, BK_FROM, BK_CTE, BK_COMPOUND } BlockKind;

struct Unit;

/* What the planner counts of a block before any call (plan.c, plan_unit.c: the budget
   phase), for the estimate and the plan. */
typedef struct BlockBudget {
	Expr *relaxed;        /* the WHERE with what needs the model dropped */
	int relaxed_set;
	int guessed;          /* from_rows is the product of its tables' sizes */
	int uncounted;        /* counting its FROM was stopped at the bound (EXEC_COUNT_CUT) */
	long long *count;     /* each unit's count */
	int ncount;
} BlockBudget;

/* The rows a block's walk passed, when they are the only rows its WHERE can let through
   (exec_walk_block): the final statement keeps to them instead of reading the table. */
typedef struct BlockKept {
	int on;
	long long *ids;
	long n, cap;
} BlockKept;

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
	OccPos ppos;          /* where the expression holding it is in the parent block */
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
	long long limit_all;  /* LIMIT + OFFSET, whatever ORDER BY needs; -1: no LIMIT */
	struct TopK *topk;    /* a semantic top-k considered (plan_topk.c), arena memory: chosen
	                         unless its why_not says why an ORDER BY of free text scores
	                         every candidate; NULL: none considered */
	const char *why_not_lazy;
	int distinct_walk;    /* DISTINCT under LIMIT: the walk counts distinct result rows */
	int pushed;           /* conjuncts of the outer WHERE moved into this one (plan_push.c) */
	int pushed_from;      /* the block they came from */
	int ordered;          /* lazy in the query's ORDER BY order */
	int ordered_total;    /* its ORDER BY ends with the rows' identity (plan_ahead.c put it
	                         there for a stored query under a LIMIT) */
	OrderList *order;     /* ORDER BY resolved to expressions (ordered walk) */
	int dnf_over;         /* DNF past the cap: the tree per candidate */
	struct Unit *units;
	int nunits;
	long long from_rows;  /* rows of the FROM (upper bound of candidates) */
	long long bound;      /* rows that may pass WHERE (upper bound) */
	int identity;         /* every FROM item identifies its rows */
	BlockBudget budget;   /* what the planner counted of it before any call (plan.c) */
	int executed;
	BlockKept kept;       /* the rows its walk passed (exec_walk.c) */
} Block;

/* What the engine needs to know of the backend it runs on, as data and entries rather
   than a test of which backend it is (dialect_sqlite.c, dialect_pg.c: a row each). The
   capabilities say what a plan may use there; the entries say how the engine's own SQL
   is written for it, run on it, and what it keeps there (the catalog's facts, ENUM's
   map). */
struct Dialect {
	const char *name;          /* how the plan names the engine's SQL: "sqlite" */
	const char *label;         /* how messages name the backend: "SQLite" */
	const char *true_lit;      /* TRUE as its SQL writes it */
	const char *enum_map;      /* the table of ENUM mappings */
	unsigned retrieval : 1;    /* suql's own retrieval index (FTS5) ranks and counts */
	unsigned window : 1;       /* a walk may read its candidates a window at a time */
	unsigned embeddings : 1;   /* embedding vectors kept beside the tables */
	unsigned fast_path : 1;    /* plain statements prepared as written (engine_plain.c) */
	unsigned refetch : 1;      /* a row is read again by its ids (candidates carry only
	                              their ids); else the texts come with the candidates */
	unsigned only_ints : 1;    /* LIMIT and OFFSET are lazy only as integer literals */
	unsigned arrays : 1;       /* lists are native arrays: unnest() names its element as
	                              written and numbers one array's rows WITH ORDINALITY
	                              (else JSON arrays read by json_each: alias.value, id) */
	unsigned func_ids : 1;     /* a table-valued function's rows carry an id (json_each) */
	unsigned scan_order : 1;   /* rows come in SQLite's order by themselves, and SELECT
	                              DISTINCT keeps each value at its first row (else they are
	                              put in it by list_order, and a reader skips repeats) */
	unsigned functions : 1;    /* suql's SQL functions run in the backend as it reads each
	                              row (udf.c, suql_agg): free text may be evaluated on
	                              demand, and a dry run of the statement learns an
	                              aggregate's groups; else every value is known before the
	                              statement that reads it runs (an aggregate's groups read
	                              by a statement of their keys, exec_agg.c) */
	/* the text a free-text argument is read as: the expression (SQLite's value), or its
	   text as the server prints it */
	Expr *(*text_of)(Exec *ex, Expr *arg);
	/* a FROM item's row identity as the walk keeps it: SQLite's rowid (a table-valued
	   function's id), or a key, ctid or unnest() ordinality as a number */
	Expr *(*row_id)(Exec *ex, const ScopeItem *it);
	/* the order candidates are listed in: ord (the block's ORDER BY or NULL) followed by
	   what makes it SQLite's order of rows where the backend has none of its own */
	OrderList *(*list_order)(Exec *ex, Block *b, OrderList *ord);
	/* the final statement's rows counted in the backend, when it counts them its own way
	   (NULL: the walk's statement is counted as SQLite runs it) */
	int (*final_count)(Exec *ex, long long *n);
	/* the engine's SELECT in the backend's SQL (exec_print_select): SQLite's, calling
	   suql's functions, or PostgreSQL's, its free text read from values bound as parameters */
	char *(*print_select)(Exec *ex, Select *s);
	/* the next statement run is SQL of the engine's own writing, printed by no
	   print_select: it takes none of the parameters kept (NULL: none are kept) */
	void (*unbind)(Exec *ex);
	/* the statement printed last run, its rows through a store cursor (an error: the
	   backend's, or that of an SQL function of suql's that failed in it) */
	SuqlStatus (*query)(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err);
	/* the same for a statement whose failure does not fail the one around it (the
	   planner's counts and samples): in PostgreSQL, under a savepoint */
	SuqlStatus (*try_query)(Exec *ex, const char *sql, StoreCursor **c);
	/* where suql's functions do not run (no functions): an aggregate's group key, its
	   texts joined as suql_agg joins them (call: its suql_agg(id, text)); and a SELECT
	   over the statement's blocks run as its final statement reads them (walked blocks
	   kept to their rows, the values bound), its rows through a store cursor */
	Expr *(*group_key)(Exec *ex, Expr *call);
	/* bm25(col, q) (call, in block b) where suql's own index does not rank (no
	   retrieval): the backend's relevance of col's text to q's words (a literal), the
	   result column keeping the call's name as written */
	Expr *(*relevance)(Exec *ex, int b, Expr *call, Expr *col, Expr *q);
	/* where suql's own index is not the SQLite file's (no retrieval): the rows of rids
	   (NULL: every row) of table (its identity column key, NULL: its ctid) whose col
	   matches the question, with the BM25 SQLite's index would give them, by row (a heap
	   array); an error when the backend's index cannot be had (NULL: none) */
	SuqlStatus (*rank_index)(Engine *e, const char *table, const char *key, const char *col,
	                         const char *question, const sqlite3_int64 *rids, size_t nrids,
	                         RetScore **out, size_t *nout, SuqlErr *err);
	SuqlStatus (*final_query)(Exec *ex, const Select *sel, StoreCursor **c, SuqlErr *err);
	/* the plan's lines of the final statement, as the backend is given it */
	void (*show_final)(Exec *ex, SBuf *out);
	/* a DISTINCT listing s of FROM item it's values v put in the order SQLite lists them
	   (each value at its first row), where the backend has no such order of its own */
	void (*distinct_order)(Exec *ex, Select *s, const ScopeItem *it, Expr *v);
	/* a constant truth value: the integer 1 or 0, or a boolean (1 = v) where those are not */
	Expr *(*truth)(Exec *ex, int v);
	/* the statement reading table it's rows whose identities (the walk's ids) are ids,
	   each row's identity first and then its columns; *param: its one parameter (heap),
	   or NULL */
	char *(*rows_by_id)(const ScopeItem *it, const long long *ids, long long n, char **param);
	/* the statement of what the plan's cost reads of the texts a listing gives (inner: a
	   SELECT whose one column is suql_arg; plan_text.c), in one row: its rows, the texts
	   not NULL, the distinct ones, their bytes each cut to cap, the largest of those */
	char *(*text_stats)(const char *inner, long long cap);
	/* ---- the catalog: what the binder learns of tables (bind_scope.c) ---- */
	/* whether table t->name exists, its columns and what identifies its rows: SQLite's
	   rowid (a rowid table), or PostgreSQL's key or ctid from its catalog */
	void (*table_facts)(Engine *e, TabInfo *t);
	/* what says whether the database changed since the facts were learnt (they are kept
	   while it holds): key set, or left -1 when nothing says (learnt again for every
	   statement); a NULL key lets go of what it keeps */
	void (*schema_key)(Engine *e, long long *key);
	/* ---- ENUM (enum.c): an open enum's values, and the map of mappings (enum_map) ---- */
	/* the statement listing an open enum column's distinct values (a list column's
	   elements) in SQLite's (binary) order; and the one finding whether ?1 is one */
	char *(*enum_values)(const char *table, const char *column, int list);
	char *(*enum_has)(const char *table, const char *column, int list);
	/* why the table enum_map names is not suql's map (a user's, of another shape), or
	   NULL */
	char *(*map_foreign)(Engine *e);
	/* the map opened for reading (NULL: there is none), one literal's mapping read into
	   *row (0: none stored), the map closed */
	void *(*map_open)(Exec *ex);
	int (*map_read)(void *map, Exec *ex, const char *tbl, const char *col, const char *lit,
	                EnumMapRow *row);
	void (*map_close)(void *map);
	/* a mapping stored (vals a JSON array, sig the permitted values' hash): NULL, or the
	   warning that it was not (it then serves the statement only) */
	char *(*map_write)(Exec *ex, const char *tbl, const char *col, const char *lit,
	                   const char *vals, const char *sig);
	/* the mappings of tbl.col for lit deleted (NULL: any), *n how many */
	SuqlStatus (*map_forget)(Engine *e, const char *tbl, const char *col, const char *lit,
	                         long *n, SuqlErr *err);
	/* ---- a bulk job's write, once (engine_once.c; doc/bulk.md) ---- */
	/* the transaction a job's write commits in begun, with the job's row in suql's table of
	   jobs done (*state ENGINE_ONCE_BEGUN); or the row found there already
	   (ENGINE_ONCE_DONE), nothing begun */
	SuqlStatus (*once_begin)(Engine *e, const char *job, const char *batch, int *state,
	                         SuqlErr *err);
};

extern const Dialect dialect_sqlite, dialect_pg;

/* ---- occurrences ---- */


typedef enum OccMode {
	OCC_ONDEMAND,    /* a miss asks the model (naive mode, and anywhere not planned) */
	OCC_PLANNED      /* a miss is NULL: the optimizer evaluated everything that matters */
} OccMode;

typedef enum OccPlan {
	PL_NONE,         /* on demand */
	PL_WALK,         /* a WHERE atom walked per candidate */
	PL_LEAF,         /* inside a free-text WHERE leaf: evaluated for every candidate */
	PL_AHEAD,        /* evaluated ahead for every row that passes WHERE */
	PL_TOPK,         /* ORDER BY it LIMIT k: scored in waves until the top k is known */
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
	int own;              /* 1: PL_AHEAD over every row of its block's FROM, its WHERE
	                         aside: free text of a correlated block that reads only its
	                         own rows, and a WHERE's in naive mode where the backend calls
	                         no function of suql's (plan_ahead.c); 2: over the pairs
	                         of a row of the enclosing block and one of its own that the
	                         statement can reach (plan_ahead_pairs); 3: an answer() inside
	                         another's argument, where the database calls no function of
	                         suql's, over the rows the one around it reads, one a call
	                         (plan_ahead_nested); 4: a result column of a stored query under
	                         a LIMIT, there, over the rows stored, one a call */
	long long pairs;      /* own 2: how many such pairs */
	/* the argument's origin, when it is a column */
	int arg_item;         /* scope item in the block, -1 */
	char *arg_table;      /* base table and column (rowid table), for ranking */
	char *arg_col;
	int arg_indexed;      /* the retrieval index of that column may be used */
} Occ;

/* ---- semantic joins: matches(left, right, 'question') (exec_join.c) ---- */

struct JoinPlan;

typedef struct Join {
	int id;
	int block;            /* -1: not inside a SELECT block (always judged pair by pair) */
	OccPos pos;
	Expr **slot;
	Expr *orig;           /* as written (for the plan) */
	Expr *left, *right;   /* the two sides */
	int sig;              /* the join's own signature (kind verify, op "matches") */
	const char *why;      /* why it is judged pair by pair (not rewritten) */
	struct JoinPlan *jp;  /* the rewrite: values, candidates, counters (exec_join.c) */
	int ran;              /* the rewrite asked its pairs: a pair not in the memo is no match
	                         (read by suql_match, and by exec_pg_plan.c's look-up of it) */
} Join;

/* The semantic join's state (Exec.opstate[OP_JOIN]): the statement's joins. */
typedef struct JoinState {
	Join *j;
	int n;
} JoinState;

/* ---- aggregates over free text: answer_agg(), summary_agg() (exec_agg.c) ---- */

struct AggPlan;

typedef struct AggOcc {
	int id;
	int block;            /* -1: not inside a SELECT block */
	Expr **slot;          /* the call, renamed suql_agg(id, text) by bind_occ_mutate */
	Expr *orig;           /* as written (for the plan) */
	int summary;          /* summary_agg() (else answer_agg()) */
	char *question;       /* answer_agg: the question; summary_agg: the focus, or NULL (the
	                         passages are ranked against it) */
	char *asked;          /* what the model is asked: the question, a question about the
	                         focus, or NULL (a summary) */
	char **options;       /* answer_agg: the answers allowed, or none */
	int noptions;
	int sig;              /* the memo's signature of its groups' answers (op "agg") */
	int same;             /* an earlier one asking the same of the same text (its groups and
	                         answers serve this one too), or -1 */
	struct AggPlan *ap;   /* the groups and their reduce trees (exec_agg.c) */
} AggOcc;

/* The aggregates' state (Exec.opstate[OP_AGG]). */
typedef struct AggState {
	AggOcc *a;
	int n;
	int collect;          /* the dry run: suql_agg keeps each group's texts, answers NULL */
	int planned;          /* the groups are known and their trees counted (exec_agg.c) */
} AggState;

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

/* The kinds of a DNF literal. */
typedef enum DnfKind {
	LK_SQL,               /* structured: SQLite evaluates it */
	LK_ATOM,              /* a verify atom of the block, asked per candidate */
	LK_LEAF,              /* a free-text leaf: its calls for every candidate, then SQLite */
	LK_DEFER              /* not known before classification (a pending ENUM literal), or
	                         needing the model in the budget phase: assumed to hold */
} DnfKind;

typedef struct Lit {
	Expr *e;              /* the leaf */
	int neg;
	DnfKind kind;
	int occ;              /* LK_ATOM */
	double sel, cost;     /* estimates for atoms */
} Lit;

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
	long long count;      /* rows after the structured filter (budget phase: at most) */
	/* what the walk did (counters) */
	long long rows, examined, accepted, rejected;
	long long unknown;    /* decided as NULL: no text, or a reply that could not be read */
	long long held;       /* a windowed walk (exec_window.c): the candidates it read, */
	int windows;          /* in this many windows (0: listed) */
	char *rank_note;
	long long spec_items;
	struct Cascade *cascade;   /* the cascade's record (exec_cascade.c), or NULL */
} Unit;

/* ---- counters ---- */

typedef struct ExecCounts {
	long long rows_out;
	long waves;
	long long spec_items;    /* evaluations beyond what the result needed */
	long spec_calls;
	long ondemand_calls;     /* calls made by the SQL functions themselves */
	long long low_confidence;   /* verdicts taken as unknown: their confidence was below
	                               llm.min_confidence (exec_llm.c) */
	long long ahead_values, project_values;
	long long project_rows;
	long long topk_cands, topk_scored;   /* semantic top-k: candidates, and those scored */
	long topk_waves;
	int topk_stopped;        /* the walk stopped before scoring every candidate */
	double t0;
} ExecCounts;

/* A semantic top-k (plan_topk.c decides, exec_topk.c walks): ORDER BY one free-text score
   LIMIT k. Candidates are scored in relevance order, in waves, and the walk stops once k
   of them have the best value the answer can take: no candidate left can then enter the
   top k (it can at most tie). */
typedef struct TopK {
	int occ;              /* the occurrence scored */
	const char *why_not;  /* not chosen: why every candidate is scored (NULL: chosen) */
	int desc;             /* DESC (the best is the highest value), else ASC NULLS LAST */
	long long k;          /* LIMIT + OFFSET */
	int numeric;          /* the ORDER BY key is a number (typed answer, or cast around one) */
	int integer;          /* ... converted to an integer (CAST AS INTEGER: toward zero) */
	double best_num;      /* the best value the answer can take */
	const char *best_text;   /* the same, compared as text (numeric 0) */
	const char *from;     /* where the best value comes from, for the plan */
} TopK;

/* The slots of the operators' own state in Exec (op_int.h names each row's). */
#define OP_SLOTS 16

/* ---- the statement ---- */

/* The planner's estimate of a statement's calls and tokens, before any call (plan.c,
   plan_cost.c, plan_text.c; the operators add theirs: their rows' plan and cost
   entries), checked against the budget and shown by the plan. */
typedef struct ExecEst {
	long long worst[FT_COST_SLOTS];   /* worst-case calls per kind: verify, answer, summary,
	                                     classify, embed, extract, aggregate */
	long long worst_total;
	long long expect[FT_COST_SLOTS];  /* the same when lazy walks stop as soon as they may
	                                     (PLAN_WALK_EXPECT_RATE of their candidates passing):
	                                     what the budget is checked against */
	long long expect_total;
	/* the plan's tokens read from the texts (plan_text.c, plan_cost.c): [0] expected, [1]
	   at most, of the calls tok_calls counts (of expect and worst, per kind; the others
	   are counted at the passage allowance) */
	struct PlanTextSeen *texts;   /* the texts read, per occurrence and WHERE */
	int ntexts, captexts;
	double tok_in[2], tok_out[2];
	long long tok_calls[2][FT_COST_SLOTS];
	double call_in, call_out;     /* the most tokens one request carries and is answered
	                                 with, at worst (0: not known): the caps' first guess */
	/* the floor the plan stated (plan_show.c), which the counters compare with: its calls,
	   its tokens (-1: not known), and whether it was stated whole (no operator's left to
	   be known once the statement runs) */
	int floor_stated;
	long long floor_calls;
	double floor_tokens;
} ExecEst;

/* A statement's result columns, as the backend names them (SQLite's check learns them:
   exec_sqlite.c; the projection last reads them back under these names). */
typedef struct ExecCols {
	char **names;
	int n;
	unsigned char *list;  /* per column: a column of a SUQL list type */
} ExecCols;

/* A view of suql's expanded into a statement: its text sits at [off, off + len) of
   ex->sql, its tree is kept until the statement ends. */
typedef struct ExecView {
	char *name;
	size_t off, len;
	Ast *ast;
} ExecView;

struct Exec {
	Engine *e;            /* its engine (e->db the connection, e->llm the model client) */
	Exec *outer;          /* the statement running when this one began (e->cur) */
	sqlite3_stmt *ready;  /* a statement with nothing to do ahead: validate's preparation,
	                         which exec_final_run runs (not prepared twice) */
	int tabs_checked;     /* bind_scope_tabs_check has run for this statement */
	Ast *ast;
	Arena *a;
	const char *sql;      /* the user's text and length (for error positions), followed
	                         by the text of each view of suql's the statement reads
	                         (bind_view.c), so that every span is an offset into it */
	size_t len;
	size_t user_len;      /* the user's text alone (ex->len before views were added) */
	ExecView *views;      /* the views expanded into the statement (bind_view.c) */
	int nviews;
	char *viewbuf;        /* ex->sql when views were added (owned) */
	const char *user_src; /* the tree's own text, while ast->src is viewbuf's */
	EngineSettings set;
	const EngineSink *sink;
	int standalone;       /* print self-contained functions (CREATE VIEW) */
	int refused_usd;      /* the plan refused the statement at budget_usd */

	Block *blocks;
	int nblocks, capblocks;
	Occ *occ;
	int nocc, capocc;
	Sig *sigs;
	int nsigs, capsigs;
	/* each operator's own state, by its row's slot (op_int.h), made and freed by the
	   operator (NULL: none made) */
	void *opstate[OP_SLOTS];
	int occ_planned;      /* plan_statement has run: each occurrence's plan is known */
	const Expr *refused_at;   /* what an operator's refusal is about, as written (its place
	                             in the error), or NULL (op_refusal) */
	Memo *memo;

	SBuf plan;
	ExecCounts cnt;
	ExecEst est;          /* the planner's estimate of its calls and tokens */

	/* a failure inside an SQL function */
	SuqlErr fn_err;       /* the first one, with its place in the statement */
	char **warned;        /* warnings already shown */
	int nwarned;
	long unread;          /* values and ENUM literals left unknown by unreadable replies */

	int in_fn;            /* evaluating on demand, inside an SQL function */
	int mix_pairs;        /* exec_llm_run packs a semantic join's pairs of different left
	                         values into one call (exec_factor.c's check and direct pairs) */
	int counting;         /* the functions answer NULL and call nothing (budget counts) */
	int memo_only;        /* the functions answer from the memo alone, a miss is NULL (the
	                         record reading the result rows again) */
	struct Record *rec;   /* the record being made (record_int.h) */
	/* the record's note of an answer for signature sig in item of call, with its
	   passages: the ask's number + 1 for MemoVal.rec, 0 when not kept (exec_record.c
	   sets it; the requests, exec_llm.c, below the record, call it) */
	int (*on_ask)(Exec *ex, int sig, const LlmCall *call, int item, char *const *psg,
	              size_t npsg);
	int relaxing;         /* print every block's WHERE relaxed (budget counts) */
	ExecCols cols;        /* its result columns (the backend's check, exec_sqlite.c) */
	/* the backend's own state of the statement, made and freed by the backend's code:
	   PostgreSQL's parameters of the statement printed last (exec_pg_plan.c), SQLite's
	   temp table of the projection last (exec_final.c); NULL: none */
	void *backend;
};


/* exec_pg_index.c (PostgreSQL's row of the Dialect, rank_index): suql's retrieval index
   kept on the server, made or made again when the column changed, or with force (*built:
   it was). */
SuqlStatus exec_pg_index_ensure(Engine *e, const char *table, const char *key, const char *col,
                                int force, int *built, SuqlErr *err);
SuqlStatus exec_pg_index_score(Engine *e, const char *table, const char *key, const char *col,
                               const char *question, const sqlite3_int64 *rids, size_t nrids,
                               RetScore **out, size_t *nout, SuqlErr *err);

#endif
