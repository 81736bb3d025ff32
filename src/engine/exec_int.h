/*
 * exec_int.h: the walks and operators, the engine's group above the planner: exec_llm.c
 * turns requests into batched calls; exec_cand.c lists a unit's candidates and fetches
 * their texts, exec_window.c reads a ranked walk's candidates a window at a time;
 * exec_rank.c ranks them by relevance, exec_embed.c mixes in dense similarity;
 * exec_walk.c walks them in waves; exec_final.c evaluates ahead and runs the final
 * statement; exec_passage.c is the per-passage comparison mode; exec_pg_rows.c reads
 * PostgreSQL's rows. The operators of this group (exec_join.c with exec_factor.c,
 * exec_agg.c, exec_walk_op.c, exec_topk.c, exec_cascade.c, exec_extract.c) are reached
 * through their rows of the operator table (op_int.h), whose hooks the walk calls (a
 * cascade's judge first, a top-k's scoring); what they share of the walk is declared here.
 * The engine's own SQL below them is sql_int.h's, the pipeline above them top_int.h's.
 *
 * Ownership: a Walk owns its arrays, its window and its fetch statement (exec_walk_free);
 * it borrows the Exec, the block and the unit. A Req borrows its text value.
 */
#ifndef SUQL_EXEC_INT_H
#define SUQL_EXEC_INT_H

#include "engine/plan_int.h"
#include "engine/sql_int.h"

/* ---- exec_pg_rows.c: the rows of a statement run in PostgreSQL ---- */

/* A result column Postgres returns under a hidden name (suql_col0, ...), shown under the
   name SQLite would give it. */
typedef struct PgName {
	char hidden[24];
	char *shown;
} PgName;

/* Run sql in Postgres (parameters $1...: text) and hand its rows to the sink as Rows read
   from the server's result, the columns of nm under their shown names. */
SuqlStatus exec_pg_rows_run(Exec *ex, const char *sql, const char *const *params,
                            int nparams, const PgName *nm, int nnm, SuqlErr *err);

/* ---- exec_llm.c: requests ---- */

typedef enum ReqState {
	REQ_TODO = 0,        /* not answered yet */
	REQ_DONE,            /* in the memo */
	REQ_CANCELLED        /* stopped before it was answered (enough rows were found) */
} ReqState;

/* One question about one text value. */
typedef struct Req {
	int sig;
	const char *v;        /* the text value (borrowed) */
	size_t n;
	int tag;              /* the caller's: candidate index */
	int tag2;             /* the caller's: atom index */
	ReqState state;
	int call;             /* set by exec_llm_run: the first request of its call (-1: none) */
	int sent;             /* set by exec_llm_run: its call went to the backend (not the cache) */
} Req;
/* Called as each evaluation is stored; nonzero stops the run (the rest is cancelled). */
typedef int (*ReqDoneFn)(void *ctx, Req *r, const MemoVal *mv);
/* Evaluate the requests not in the memo, batch per call, several calls in flight. */
SuqlStatus exec_llm_run(Exec *ex, Req *reqs, int n, ReqDoneFn done, void *ctx, SuqlErr *err);
/* Counting the calls a list of candidates takes, grouped as exec_llm_run groups them (batch
   candidates, batch_tokens passage tokens, each text within passage_tokens): start with a
   zeroed ExecLlmPack, add each candidate's text length; p.calls is the count. */
typedef struct ExecLlmPack {
	long long calls;
	int in;
	size_t tok;
} ExecLlmPack;
void exec_llm_pack(const Exec *ex, ExecLlmPack *p, size_t text_len);
/* Whether a verdict is taken as unknown (VERDICT_NULL) because its confidence is below
   llm.min_confidence; verdicts without a confidence never are. */
int exec_llm_low_confidence(const Exec *ex, const LlmItem *it);
/* A value's passages for a signature, most relevant first, within the token budget. */
size_t exec_llm_passages(Exec *ex, const Sig *s, const char *v, size_t n, char ***out);
/* Evaluate sig for every non-NULL value in the first column of st's rows (st is stepped
   to its end and finalized); *nvals grows by their number. what names the reading in an
   SQL error. */
SuqlStatus exec_llm_run_column(Exec *ex, int sig, sqlite3_stmt *st, const char *what,
                               long long *nvals, SuqlErr *err);
/* The same for n values v[i] of lengths len[i] (taken over: freed here). */
SuqlStatus exec_llm_run_values(Exec *ex, int sig, char **v, size_t *len, long n,
                               long long *nvals, SuqlErr *err);
/* The memo entry for (sig, value), evaluating it now when missing (one call). */
SuqlStatus exec_llm_one(Exec *ex, int sig, const char *v, size_t n, MemoVal **out,
                        SuqlErr *err);

/* ---- aggregates over free text (exec_agg.c: answer_agg(), summary_agg()) ---- */

/* Step every row of the final statement, dropping them (the dry run; exec_final.c). */
SuqlStatus exec_final_dry(Exec *ex, SuqlErr *err);
/* The rows the final statement returns as the memo stands (no call; *n -1 and -1 when it
   cannot be counted): a lazy join's test of whether its LIMIT has its rows. */
int exec_final_count(Exec *ex, long long *n);

/* ---- semantic joins (exec_join.c) ---- */

typedef struct JoinPlan JoinPlan;

/* ---- a semantic join that factors (exec_factor.c) ---- */

typedef struct JoinFactor JoinFactor;
/* A rewritten join's distinct values and pairs, as exec_join.c listed them (borrowed). */
typedef struct JoinSides {
	char **lv, **rv;
	size_t *ln, *rn;
	long long nl, nr;
	unsigned char **allow;   /* per left, per right value: the pair may occur; NULL: all */
	long long pairs;         /* pairs to decide */
	long long calls;         /* the pairwise plan's calls */
	/* the signature of the pair question for left value v (made by the join, exec_join.c,
	   whose ctx it is) */
	int (*sig)(Exec *ex, void *ctx, const char *v, size_t n);
	void *ctx;
} JoinSides;
/* Before any call: the attempt to factor the join, when join_factor allows it and it
   costs less than half the pairwise calls; else NULL. Its cost: 1 + classification + check
   calls. lazy: the LIMIT a lazy join stops at (its values are then classified in waves),
   else -1. */
JoinFactor *exec_factor_plan(Exec *ex, const JoinSides *s, long long lazy);
long long exec_factor_cost(const JoinFactor *f);
/* Ask the factorization, classify the values, check every value (exec_factor_check.c);
   when it holds, the pairs between values it trusts are put in the memo as the comparison
   decides and the others judged; under a lazy LIMIT, in waves until the final statement
   has its rows (j->ran is then left set: the join needs no other call). */
SuqlStatus exec_factor_run(Exec *ex, Join *j, JoinFactor *f, SuqlErr *err);
/* Whether it decided the join (every pair, or under a lazy LIMIT its rows). */
int exec_factor_done(const JoinFactor *f);
/* Pairs decided by the comparison (not asked); 0 unless it was trusted. */
long long exec_factor_decided(const JoinFactor *f);
void exec_factor_show(const JoinFactor *f, long long pairwise, SBuf *out);
void exec_factor_counters(const JoinFactor *f, SBuf *out);
void exec_factor_free(JoinFactor *f);

/* What each side of a semantic join reads (exec_join_side.c). The one FROM item of block
   b that expression e reads alone (a table, a CTE or a subquery, not a join), or -1; whether
   a FROM item is joined as an inner join; the value a side is listed and looked up as (its
   text on a backend that reads verdicts by text); the statement listing the distinct
   values of side over item under the block's conditions that reach it alone (heap
   string); the conjuncts of e without free text, ANDed (NULL: none). */
int exec_join_side_item(Exec *ex, int b, Expr *e);
int exec_join_side_inner(const FromItem *f);
Expr *exec_join_side_value(Exec *ex, Expr *side);
char *exec_join_side_sql(Exec *ex, Block *b, int item, Expr *side);
Expr *exec_join_side_plain(Exec *ex, Expr *e);

/* The check of a factorization (exec_factor_check.c): every classified value judged
   directly against an anchor of its class, the anchors of every two classes against each
   other, then the pairs decided. Owned by its JoinFactor. */
typedef struct FactorCheck FactorCheck;
typedef struct FactorCheckStats {
	long long classified, unclassified;   /* values classified, of them in no class */
	long long checked;        /* pairs judged by the check */
	long long crossed;        /* of them, between the anchors of two classes */
	long long values_checked, values_bad;   /* values judged, whose pair disagreed */
	long long reanchored;     /* anchors found wrong and chosen again */
	int rounds;
	long long decided, yes;   /* pairs decided by comparing, of them matches */
	long long direct;         /* pairs judged because a value is not trusted or classed */
} FactorCheckStats;
FactorCheck *exec_factor_check_new(const JoinSides *s, int nclass, int different);
/* Value i of the left (right 0) or right side has class cls (-1: none). */
void exec_factor_check_set(FactorCheck *c, int right, long long i, int cls);
/* Its class: -1 none, -2 not classified yet. */
int exec_factor_check_class(const FactorCheck *c, int right, long long i);
/* Check the values classified since the last run and decide the pairs between classified
   values; partial: a lazy LIMIT's wave (only matches decided, nothing else judged), which
   checks only as many values as give `need` matches. */
SuqlStatus exec_factor_check_run(Exec *ex, FactorCheck *c, int partial, long long need,
                           SuqlErr *err);
/* Whether a classified value was left out of the check (by a partial wave). */
int exec_factor_check_unchosen(const FactorCheck *c);
int exec_factor_check_distrusted(const FactorCheck *c);
const FactorCheckStats *exec_factor_check_stats(const FactorCheck *c);
void exec_factor_check_free(FactorCheck *c);

/* ---- walking a unit's candidates ---- */

#define NULL_ID INT64_MIN   /* a NULL id (the missing side of an outer join) */

/* Rows already found by an earlier unit (unordered walks, and to skip work). */
typedef struct RowSet {
	uint64_t *h;
	size_t cap, n;
} RowSet;

/* A candidate's state in a walk (Walk.state, a signed char). */
enum {
	CAND_UNDECIDED = -1,
	CAND_FAILED = 0,
	CAND_PASSED = 1,
	CAND_NULL = 2         /* the condition is NULL (unknown): not in the result */
};

typedef struct CandWindow CandWindow;

typedef struct Walk {
	Exec *ex;
	Block *b;
	Unit *u;
	int nid;
	Expr **idx;             /* the id expressions */
	int narg;
	Expr **args;            /* distinct argument expressions of the unit's atoms */
	int *atom_arg;          /* per atom */
	long long n, cap;       /* candidates; room in ids, vals, lens, sqlv (and score, windowed) */
	long long nl, capl;     /* candidates read (walk positions [0, nl): n unless windowed);
	                           room in the arrays below, from atomv on */
	CandWindow *win;            /* NULL: every candidate listed; else the next ones are read from
	                           the index a window at a time, in rank order (exec_window.c) */
	sqlite3_int64 *ids;     /* n * nid (windowed: nl, by walk position) */
	char **vals;            /* n * narg, when rows cannot be fetched again */
	size_t *lens;
	signed char *sqlv;      /* n * nsqlcols: Verdict of each structured leaf */
	signed char *atomv;     /* n * natoms: Verdict of each atom (VERDICT_UNASKED at first) */
	signed char *state;     /* CAND_* */
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
	RowSet *found;          /* rows passed in this block so far (with identity); in a
	                           DISTINCT walk, the distinct result rows */
	sqlite3_stmt *keyq;     /* DISTINCT walk: a candidate's result columns, by its ids */
	uint64_t *key;          /* per candidate: the hash of its result row; 0 not read */
	long long nkey;
	RowSet front_keys;      /* ordered DISTINCT walk: result rows passed from the front */
	/* done asks, for the speculation count */
	long long *log_pos;
	long long *log_call;    /* wave * 1000003 + first request of the call: one per call */
	int *log_sent;
	long nlog, caplog;
	int wave;
} Walk;

/* exec_cand.c: the candidate statement of a unit, and its rows' texts */
void exec_cand_ids(Walk *w);
/* The index of argument expression e among the walk's (an equal one counts), added when new. */
int exec_cand_arg(Walk *w, Expr *e);
SuqlStatus exec_cand_load(Walk *w, SuqlErr *err);
/* A DISTINCT walk's slot for candidate c's result-row hash (0: not read yet), and the
   hash of a row's columns from `first` on: values DISTINCT takes as one hash as one
   (numbers by value, texts folded as NOCASE and RTRIM fold them). Never 0. */
uint64_t *exec_cand_key_slot(Walk *w, long long c);
uint64_t exec_cand_row_hash(const Row *r, int first);
/* The text of argument a of candidate c (the caller frees it); NULL: the value is NULL.
   *failed: an SQL error, in err. */
char *exec_cand_value(Walk *w, long long c, int a, size_t *len, SuqlErr *err, int *failed);
/* The condition that keeps a statement over the block's FROM to one candidate (its ids as
   parameters ?1..?nid), and the binding of candidate c's ids to it (the statement reset). */
Expr *exec_cand_by_ids(Walk *w);
void exec_cand_bind_ids(Walk *w, sqlite3_stmt *st, long long c);
/* A unit's candidate statement, for the plan. */
char *exec_cand_plan_sql(Exec *ex, Block *b, Unit *u);
/* The candidate statement of w (with the argument texts when with_args, in the block's
   ORDER BY when ordered); heap text. */
char *exec_cand_sql(Walk *w, int with_args, int ordered);

/* exec_window.c: a LIMIT walk of one rowid table holds only the candidates it reached
   (ranked: its one atom reads an indexed column; ordered: in the ORDER BY's order). Whether
   w can be walked so; then open (counts the candidates into w->n and reads the first window
   into w->ids and w->score, in the walk's order, w->nl of them; *used 0: it cannot after
   all, w is as before); more (the next window, about as many as were read, appended; none
   at the end); the candidates the question of the unit's atom k matches (the retrieval
   index read once more; -1: atom k has no index); free. */
int exec_window_applies(const Walk *w);
SuqlStatus exec_window_open(Walk *w, int *used, SuqlErr *err);
SuqlStatus exec_window_more(Walk *w, SuqlErr *err);
long long exec_window_matched(Walk *w, int k);
void exec_window_free(Walk *w);

/* exec_rank.c: order w->order best first; *prior: the share of candidates that match */
SuqlStatus exec_rank_candidates(Walk *w, double *prior, SuqlErr *err);
/* The same share, through the retrieval index only, for a walk kept in the query's order;
   *prior is left alone when no atom has an index. */
void exec_rank_share(Walk *w, double *prior);
/* BM25 in memory of each of n texts (NULL: none) for s's question, its best passage,
   statistics over the n texts: added to score[c]; *matched counts the texts that match.
   PostgreSQL's top-k ranks with it (it has no retrieval index of suql's). */
SuqlStatus exec_rank_texts(const Sig *s, char *const *vals, const size_t *lens, long long n,
                           double *score, long long *matched, SuqlErr *err);

/* exec_embed.c (EMBED_TOP candidates: plan_int.h): reorder the top of a ranking (order[] positions, ids per candidate) by
   dense similarity mixed with BM25 when an embedding model is configured. */
SuqlStatus exec_embed_rerank(Exec *ex, const Unit *u, const int *atom_item,
                             const sqlite3_int64 *ids, int nid, const double *score,
                             long long *order, long long n, int *used, SuqlErr *err);

/* exec_walk.c (a cascade's proxy, exec_cascade.c, decides some candidates first: its
   row's walk_unit entry) */
SuqlStatus exec_walk_block(Exec *ex, Block *b, SuqlErr *err);
void exec_walk_free(Walk *w);
/* The walk running now: candidates judged, of how many (0: none runs). */
int exec_walk_progress(const Exec *ex, long long *judged, long long *of);
/* exec_walk_show.c: the walk's lines of the plan and of the counters */
void exec_walk_show_plan(Exec *ex, SBuf *out);
void exec_walk_show_counters(Exec *ex, SBuf *out);

/* exec_final.c */
/* Evaluate occurrence occ for every distinct argument of the rows of b passing where
   (*nvals grows by their number). */
SuqlStatus exec_final_values(Exec *ex, Block *b, int occ, Expr *where, long long *nvals,
                             SuqlErr *err);
SuqlStatus exec_final_ahead(Exec *ex, Block *b, SuqlErr *err);
/* The statement's own SELECT b (one core) as SQLite SQL with its result columns replaced
   by cols (its FROM, WHERE, grouping, ORDER BY, LIMIT and WITH kept); heap text. */
char *exec_final_with_cols(Exec *ex, Block *b, ResultList *cols);
/* The block's SELECT (its first core) with other result columns: a copy in the arena. */
Select *exec_final_select(Exec *ex, const Block *b, ResultList *cols);
SuqlStatus exec_final_run(Exec *ex, SuqlErr *err);
/* The temp table of a projection last dropped (SQLite's Backend.free). */
void exec_final_free(Exec *ex);

/* exec_passage.c */
SuqlStatus exec_passage_block(Exec *ex, Block *b, SuqlErr *err);

/* ---- exec_sample.c, exec_sample_walk.c: the sample operator (ERROR WITHIN) ---- */

/* Below these a group's interval is not trusted: candidates decided, and values of a sum
   or an average among those that pass. */
#define EXEC_SAMPLE_MIN 30
#define EXEC_SAMPLE_MIN_VALUES 10

/* The aggregates it estimates. */
enum { AG_COUNT_STAR, AG_COUNT, AG_SUM, AG_AVG };

typedef struct SampleAgg {
	int item;             /* its result column */
	int kind;             /* AG_* */
	int arg;              /* its argument's column in the lookup, -1: none */
} SampleAgg;

/* A group of GROUP BY (one without): its candidates, its sample, its sums. */
typedef struct SampleGroup {
	uint64_t key;
	long long first;      /* the candidate whose values its plain columns show */
	long long N, n;       /* candidates; decided and in the sample */
	long long left_out;   /* unreadable replies */
	double *s1, *s2;      /* per aggregate: sums of the values, and of their squares */
	unsigned char *real;  /* ... a value of a sum was not an integer (else an exact sum is
	                         one, as SQLite's sum() of integers is) */
	long long *m;         /* ... and how many values */
	int done;
} SampleGroup;

/* The operator's state (Exec.opstate[OP_SAMPLE], freed by its row). */
typedef struct SampleState {
	double e, conf, z;
	long long seed;
	int naggs;
	SampleAgg *aggs;
	int nplain, ngroup;   /* the lookup's columns: arguments, plain items, GROUP BY */
	int nargs;
	int *plain_item;      /* per plain column: its result column */
	int ran;
	long long population, asked, waves, left_out, expect_n;
	SampleGroup *groups;
	int ngroups, capgroups;
	int exact;
} SampleState;

/* The walk's hook of the sample's row (op_int.h: walk_unit): the statement's one unit
   sampled, its result made (Exec.ready). */
SuqlStatus exec_sample_walk_unit(Walk *w, SuqlErr *err);
/* A group's estimate of aggregate a, its bounds, and whether it is NULL. */
void exec_sample_walk_estimate(const SampleState *ss, const SampleGroup *g, int a, double *est,
                               double *lo, double *hi, int *null);

/* ---- exec_sample_math.c: the sample operator's arithmetic (exec_sample.c) ---- */

/* The standard normal quantile z of a two-sided confidence c (0 < c < 1). */
double exec_sample_math_z(double c);
/* The candidates of a group of N (-1: unknown) a count within relative error e at z needs
   at pass rate p: z^2 (1 - p) / (p e^2), corrected for N, at least min, at most N. */
long long exec_sample_math_need(double p, double e, double z, long long N, long long min);
/* Wilson's score interval [lo, hi] of a share p seen in n of N, with the correction. */
void exec_sample_math_wilson(double p, long long n, long long N, double z, double *lo,
                             double *hi);
/* The mean of k values (sums s1, s2 of them and of their squares; k >= 2) from a sample
   of n of N, and its interval's half-width by the normal approximation, corrected. */
double exec_sample_math_half(double s1, double s2, long long k, long long n, long long N,
                             double z, double *mean);
/* The sample that mean's half-width within e needs by what the k values show (avg: of n
   candidates, k of them gave a value), corrected for N; -1 when they say nothing. */
long long exec_sample_math_need_mean(double s1, double s2, long long k, long long n,
                                     long long N, double e, double z, int avg);
/* order[0..n) in a random order from seed (Fisher-Yates, splitmix64). */
void exec_sample_math_shuffle(long long *order, long long n, uint64_t seed);

#endif
