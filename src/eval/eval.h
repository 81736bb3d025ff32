/*
 * eval.h: the evaluation harness, `suql --eval BENCH.jsonl [--way W] [--report FILE] DB`.
 * It measures how good suql's answers are, and what they cost, on a benchmark: a JSONL file
 * of questions with gold answers. Each case runs in one or more ways:
 *   suql       the case's gold SUQL runs as written (the free-text functions alone);
 *   chat       the question goes through the chat agent (parse, run, respond) and,
 *              for question answering, the short-answer step; when the case has a gold
 *              SUQL, the agent's query is also compared with it by execution;
 *   linearize  the baseline of the papers: every row written out as a text passage, the
 *              top k by BM25 given to the model, which answers from them.
 * All three reach the model through the same client, so their figures compare. Scores are
 * HybridQA's exact match and token F1 for answers, precision, recall, F1 and precision at k
 * for sets of rows; each case also reports its model calls, tokens, round trips and time.
 * Cases run in worker processes, as many as the client's concurrency allows; each finished
 * case is one line of a JSON report, so an interrupted run resumes where it stopped.
 * doc/eval.md describes the file format and the report for users.
 *
 * eval.c drives a run (workers, report, summary); eval_bench.c reads benchmark files;
 * eval_metric.c computes the scores; eval_case.c runs one case in one way; eval_linear.c
 * is the linearization baseline.
 *
 * Ownership: an EvalBench owns every string and array it holds (eval_bench_free).
 * eval_normalize returns a heap string. EvalConfig's strings are borrowed.
 */
#ifndef SUQL_EVAL_H
#define SUQL_EVAL_H

#include "base/suql.h"
#include "llm/llm.h"
#include "render/render.h"

typedef enum EvalWay { EVAL_SUQL, EVAL_CHAT, EVAL_LINEARIZE, EVAL_NWAYS } EvalWay;

typedef enum EvalKind {
	EVAL_ROWS,   /* the gold is a set of row keys: precision, recall, F1, P@k */
	EVAL_QA      /* the gold is answer strings: exact match and token F1 */
} EvalKind;

typedef struct EvalCase {
	char *id;            /* as text ("12" for the number 12) */
	char *question;
	char *suql;          /* the gold SUQL: what the suql way runs; NULL when none */
	char *gold_sql;      /* SQL run by SQLite alone (no model) whose first column is the
	                        gold; NULL when none */
	char **answers;      /* gold answers (QA) */
	int nanswers;
	char **rows;         /* gold row keys */
	int nrows;
	int has_rows;        /* "rows" was given (it may be empty) */
	char *table;         /* the table the question is about; NULL: the benchmark's */
	char *split;         /* a name for a part of the benchmark ("dev", "held-out"); NULL */
	EvalKind kind;
	int line;            /* line in the benchmark file */
} EvalCase;

typedef struct EvalBench {
	char *name;          /* "benchmark" of the header; else the file's base name */
	char *ways;          /* "way" of the header: the ways to run when none are asked for */
	char *key;           /* the row key column; NULL: a result's first column */
	int k;               /* precision at k, and the passages the linearize way reads */
	char *table;         /* the table questions are about, unless a case says */
	char **settings;     /* "settings" of the header: key, value, key, value, ... */
	int nsettings;
	char *examples;      /* chat.examples for the chat way, resolved against dir */
	char *dir;           /* the directory of the file ("." when none) */
	/* "questions": cases take their question and answers from another JSONL file */
	char *q_file, *q_id, *q_question, *q_answers;
	EvalCase *cases;
	int ncases;
} EvalBench;

/* Read a benchmark from text (name is for messages: "bench.jsonl:3: ..."). The header, an
   optional first line holding "benchmark", sets defaults; every other non-blank line is a
   case. Fields are checked: an unknown field, a missing id, a repeated id, a case with no
   gold is an error that names the line. eval_bench_merge then fills questions and answers
   from the lines of a "questions" file. eval_bench_load reads a file, and its questions
   file, and checks that every case has a question. */
SuqlStatus eval_bench_parse(EvalBench *b, const char *text, size_t len, const char *name,
                            SuqlErr *err);
SuqlStatus eval_bench_merge(EvalBench *b, const char *text, size_t len, const char *name,
                            SuqlErr *err);
SuqlStatus eval_bench_load(EvalBench *b, const char *path, SuqlErr *err);
void eval_bench_free(EvalBench *b);

/* ---- scores ---- */

/* HybridQA's (and SQuAD's) answer normalisation: lower case, punctuation removed, the words
   a, an and the removed, blanks collapsed. Heap string. */
char *eval_normalize(const char *s);
/* Exact match and token F1 of a prediction, each the best over the gold answers, in [0, 1]. */
double eval_exact(const char *pred, const char *const *gold, int ngold);
double eval_f1(const char *pred, const char *const *gold, int ngold);

/* A predicted list of row keys against the gold set: true and false positives, false
   negatives, and the hits among the first k distinct predictions (n_k of them). Repeated
   predictions count once. */
typedef struct EvalSetScore {
	int tp, fp, fn;
	int hits_k, n_k;
} EvalSetScore;
void eval_set_score(const char *const *pred, int npred, const char *const *gold, int ngold,
                    int k, EvalSetScore *out);

/* ---- a run ---- */

typedef struct EvalConfig {
	const char *bench;         /* the benchmark file */
	const char *db;            /* the database */
	const char *ways;          /* "suql", "chat", "linearize", comma-separated, or "all";
	                              NULL: the benchmark's, else suql */
	const char *report;        /* the JSON report (resumed when it exists); NULL: none */
	const LlmConfig *llm;
	const char *const *sets;   /* "KEY=VALUE", applied like --set in every worker */
	int nsets;
	RenderMode mode;           /* how the summary table is written */
	int headers;
} EvalConfig;

/* Run a benchmark and print the summary table on stdout. Returns the exit status: 0 when
   every case ran (a case whose query failed is scored as wrong, and counted in the table),
   2 for a usage error (bad file, unknown way, no database, a report of another backend),
   3 when the model failed (the run stops; the report keeps what was done), 130 when stopped
   by Ctrl-C. */
int eval_main(const EvalConfig *cfg);

#endif
