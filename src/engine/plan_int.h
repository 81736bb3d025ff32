/*
 * plan_int.h: the planner. plan.c decides per block and for the statement (which blocks
 * are walked, laziness, the plans of occurrences outside WHERE, counts and the worst case);
 * plan_unit.c makes the units of a WHERE (DNF conjuncts, or the tree past the cap) and
 * judges a unit's tree for a candidate; plan_push.c moves outer filters into subqueries
 * in FROM; plan_topk.c makes semantic top-k plans; plan_cost.c counts calls, tokens and
 * dollars. (plan_show.c, which writes the plan, is in the top group: top_int.h.)
 */
#ifndef SUQL_PLAN_INT_H
#define SUQL_PLAN_INT_H

#include "engine/engine_int.h"

/* plan.c */
SuqlStatus plan_statement(Exec *ex, SuqlErr *err);   /* before any call: counts, worst case */
SuqlStatus plan_recount(Exec *ex, int classified, SuqlErr *err);   /* after ENUM rewriting */
void plan_exec(Exec *ex);
int *plan_order(Exec *ex);                           /* blocks, what each reads first */
int plan_recursive_cte(const Block *b);             /* b is a recursive CTE's */
long long plan_count_rows(Exec *ex, Block *b, Expr *where);   /* b's FROM's rows (< 0: not
                                                                  counted) */

/* plan_ahead.c: free text evaluated ahead where SQLite would ask it row by row (Occ.own) */
int plan_ahead_stored(Exec *ex, const Block *b);     /* a stored query under a LIMIT: 4 */
int plan_ahead_own(Exec *ex, const Block *b, const Occ *o);      /* its own rows: 1 */
int plan_ahead_pairs_ok(Exec *ex, const Block *b, const Occ *o); /* pairs of rows: 2 */
void plan_ahead_nested(Exec *ex);                    /* answer() inside another's: 3 */
void plan_ahead_counted(Exec *ex);                   /* once counted: the pairs, or not */
/* Occurrence o over pairs (Occ.own 2): a block like its own whose FROM is the enclosing
   block's and its own, and in *where their conditions that need no model and read only
   the two (in ex's arena). */
Block *plan_ahead_pairs(Exec *ex, const Occ *o, Expr **where);

/* plan_push.c: outer filters ANDed into the WHERE of subqueries in FROM (before planning);
   whether e is plain SQL that can be copied into another statement as written: no free
   text, semantic join, subquery, aggregate, * or ENUM literal not classified yet. */
void plan_push_filters(Exec *ex);
int plan_push_plain_expr(Exec *ex, Expr *e);
/* A SELECT's LIMIT and OFFSET as numbers (*limp -1: not a number it can read). */
void plan_limit_of(Exec *ex, Select *s, long long *limp, long long *offp);

/* plan_unit.c: block b's units (budget: of its relaxed WHERE, for the counts) */
void plan_unit_make(Exec *ex, Block *b, int budget);
void plan_unit_free(Unit *u);
/* The value of a unit's tree for one candidate, from its structured leaves (sqlv) and its
   atoms' verdicts (atomv, Verdict): TRI_UNDECIDED while an atom that matters is not asked
   yet, and then *next is that atom (index in u->atoms). */
Tri plan_unit_eval(const Unit *u, const signed char *sqlv, const signed char *atomv, int *next);

/* plan_topk.c: ORDER BY key LIMIT k, key (resolved through aliases) being occurrence o or
   a cast of it: made a semantic top-k (o->plan PL_TOPK, b->topk) when the answer has a
   known best value, else b->why_not_topk says why not. The plan's lines about it. */
void plan_topk(Exec *ex, Block *b, Occ *o, Expr *key);
void plan_topk_show(Exec *ex, SBuf *out, const Block *b, int occ, const char *indent);

/* plan_unit.c: the chance that a unit's atom k is asked of a candidate, each atom
   passing with probability rate (the walk asks the next atom its tree needs) */
double plan_unit_reach(const Unit *u, int k, double rate);

/* plan_text.c: what the texts occurrence o may ask about weigh, read from the database
   before anything is asked (one aggregate in the backend's SQL over at most
   PLAN_TEXT_ROWS rows, and a sample). */
#define PLAN_TEXT_HEAD 24    /* the texts sampled, and the first rows kept */
#define PLAN_TEXT_ROWS 2048  /* the most rows whose texts the aggregate reads */
typedef struct PlanText {
	int known;           /* read: the figures below hold */
	int complete;        /* every row was read (else the first PLAN_TEXT_ROWS) */
	double share;        /* distinct texts that are not NULL, per row read */
	double avg;          /* the bytes of such a text, cut to the passage allowance, on
	                        average */
	double max;          /* complete: the largest of those; else the allowance itself */
	double total;        /* complete: the bytes of every text not NULL, cut (at least the
	                        distinct texts' bytes); else -1 */
	double ratio;        /* the bytes a request carries per byte stored (passages joined,
	                        a JSON string in a JSON string), over a sample */
	double ratio_max;    /* the most any text of the sample needs */
	double head[PLAN_TEXT_HEAD];   /* the first rows' texts (NULL: 0), as sent and cut to
	                                  the passage allowance, in the rows' order */
	int nhead;
} PlanText;
typedef struct PlanTextSeen {
	int occ;
	Expr *where;
	PlanText t;
} PlanTextSeen;
/* The texts of o over block b's rows that pass where; NULL when they could not be read.
   The pointer is valid until the next call. */
const PlanText *plan_text_of(Exec *ex, Block *b, const Occ *o, Expr *where);

/* plan_cost.c: tokens and dollars. plan_cost_reset forgets the texts' tokens (the plan
   counts again); plan_cost_texts adds occurrence o's, from its texts t and its asks a.
   The calls it adds to ex->est.worst and ex->est.expect are then counted from the texts, not at
   the passage allowance. */
typedef struct PlanAsks {
	long long wcalls, ecalls;   /* the calls it adds to ex->est.worst and ex->est.expect */
	long long per;              /* the candidates a call carries at most */
	double wasks;               /* the texts it may ask at most */
	const double *ewave;        /* expected: the texts each wave asks */
	int nwave;
	double etext;               /* expected: the bytes of those texts as sent (-1: at the
	                               texts' average) */
} PlanAsks;
void plan_cost_reset(Exec *ex);
void plan_cost_texts(Exec *ex, const Occ *o, const PlanText *t, const PlanAsks *a);
/* The expected asks of each wave of a walk over n candidates that stops at need passes
   (-1: asks them all), a share rate passing; top: the first wave is a ranked walk's (its
   top candidates expected to pass). Into w[0..cap); returns the waves. */
int plan_cost_waves(long long n, long long need, long long maxwave, double rate, int top,
                    double *w, int cap);
/* The statement's cost as the plan's line says it: "about $E (at most $W)", or "at most
   $W" when the two read alike. */
void plan_cost_words(Exec *ex, SBuf *out);
/* The candidates one call carries at most (batch, within batch_tokens). */
long long plan_cost_per_call(Exec *ex);
/* The plan's cost line, and the counters'. */
void plan_cost_show(Exec *ex, SBuf *out);
void plan_cost_counters(Exec *ex, const LlmCounts *t, SBuf *out);
/* Whether the expected cost is over budget_usd (*usd: it; -1: no price). */
int plan_cost_over(Exec *ex, double *usd);
/* The plan's money as its cost line states it: tokens and dollars (-1: no price), expected
   and worst case; the worst case's output includes the hidden reasoning tokens each call of
   a reasoning model is allowed (llm.reasoning_tokens, reasoning). */
typedef struct PlanCost {
	double expect_in, expect_out, worst_in, worst_out;
	double expect_usd, worst_usd;
	int reasoning;
	int lazy;   /* the expected case is below the worst */
} PlanCost;
void plan_cost_figures(Exec *ex, PlanCost *c);
/* The walks' wave sizes and calls (plan_cost.c; doc/speed.md). How many candidates the
   next wave asks about (top: the first wave of a ranked walk); the SQLite walk and the
   PostgreSQL walk both follow it, so that both backends send the same calls. */
long long plan_cost_wave_size(long long rest, long long seen_pass, long long seen_dec,
                              double prior, long long maxwave, int top);
/* The first wave of a walk in the query's order: the rest rows needed at rate (the rate
   learned, else PLAN_WALK_EXPECT_RATE), at most maxwave. */
long long plan_cost_first_wave(long long rest, double rate, long long maxwave);
#define PLAN_WAVE_PRIOR 0.3   /* the prior pass rate of candidates in structured order */
#define PLAN_WAVE_PRIOR_RANKED_MIN 0.05   /* ranked, when the ranking matched none */
#define PLAN_WAVE_SHARE_UNINFORMATIVE 0.1   /* ordered: a share of matching candidates
                                              above it says nothing of the pass rate */
/* At most how many calls one question of a walk over n candidates (natoms questions each)
   may take to find need rows (-1: all), following the walk's wave sizes at their
   smallest; each wave at most maxwave candidates, a call at most per_call of them. */
long long plan_cost_worst_calls(long long n, long long need, int natoms, long long maxwave,
                                long long per_call);
/* The calls of the same walk when a share rate of the candidates passes (it stops once
   need rows passed). */
long long plan_cost_expect_calls(long long n, long long need, int natoms, long long maxwave,
                                 long long per_call, double rate);
/* The pass rate the budget check assumes of a lazy walk, and the least the walk's waves
   are sized for: 1 candidate in 50. A walk that finds fewer goes on until the budget
   stops it. */
#define PLAN_WALK_EXPECT_RATE 0.02
/* The floor (doc/engine.md, "The floor"): the fewest calls a walk over n candidates
   needs to find need rows (-1: decide them all) when its natoms questions pass at the
   shares s[] (0: not known, PLAN_WALK_EXPECT_RATE) and a call carries per_call of them;
   the calls n items need, per_call a call; the share a ranked walk expects of its top
   candidates. */
long long plan_cost_floor_walk(long long n, long long need, const double *s, int natoms,
                               long long per_call);
long long plan_cost_floor_items(long long n, long long per_call);
/* The candidates a call of the floor carries: the batch (a call of short texts carries
   that many; batch_tokens may keep this plan's calls below it, not the floor's). */
long long plan_cost_floor_batch(Exec *ex);
/* Learned pass rates (kept with the cache, llm/llm_rate.c): the share of the candidates of
   o's column that passed o's question in earlier walks (*passed of *decided, either NULL),
   or -1 when fewer than PLAN_LEARNED_MIN were decided (or the cache is off); and a walk's
   verdicts added to it (only verdicts the model gave: an unreadable reply is none). */
#define PLAN_LEARNED_MIN 20
double plan_cost_learned(Exec *ex, const Occ *o, long long *passed, long long *decided);
void plan_cost_learn(Exec *ex, const Occ *o, long long passed, long long decided);
double plan_cost_top_rate(void);
/* The candidates at the top of a relevance ranking that are ranked again by dense
   similarity when an embedding model is configured (exec_embed.c): one embedding each,
   counted by the plan. */
#define EMBED_TOP 16

#endif
