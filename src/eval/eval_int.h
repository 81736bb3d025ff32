/*
 * eval_int.h: what the files of the evaluation harness share. eval.c prepares a run in the
 * parent process (EvalShared) and forks workers; each worker opens its own model client and
 * session (EvalWorker) and runs cases (eval_case.c, eval_linear.c), each answered as one
 * JSON object that eval.c writes to the report and sums up.
 *
 * Ownership: EvalShared's strings are owned by it (eval.c frees them); an EvalWorker owns
 * its client, session and passage database (eval_worker_close). EvalTable owns its JSON
 * (eval_table_free). Functions returning json_t * return a new reference.
 */
#ifndef SUQL_EVAL_INT_H
#define SUQL_EVAL_INT_H

#include "eval/eval.h"
#include "session/session.h"

#include <jansson.h>
#include <sqlite3.h>

/* Prepared by the parent before the workers are forked. */
typedef struct EvalShared {
	const EvalConfig *cfg;
	EvalBench *bench;
	char *lin_path;         /* the linearized rows (an SQLite file), NULL when not needed */
	int concurrency;        /* each worker's client concurrency */
} EvalShared;

typedef struct EvalWorker {
	const EvalShared *sh;
	Llm *llm;
	Session s;
	FILE *devnull;          /* where the chat agent's display goes */
	sqlite3 *lin;           /* lin_path, read-only */
} EvalWorker;

/* A worker's client and session on the database, with the benchmark's settings, then the
   user's --set ones, then the worker's share of the concurrency. */
SuqlStatus eval_worker_open(EvalWorker *w, const EvalShared *sh, SuqlErr *err);
void eval_worker_close(EvalWorker *w);
/* The benchmark's and the user's settings applied to a session (the parent checks them
   this way before any worker starts). */
SuqlStatus eval_apply_settings(Session *s, const EvalShared *sh, SuqlErr *err);

/* Run one case in one way. The result always has "id" and "way"; a case that ran has its
   scores, counters and, when its query failed, "error"; one the model failed for has
   "model_error" (it is not written to the report), one stopped by Ctrl-C "interrupted". */
json_t *eval_run_case(EvalWorker *w, const EvalCase *c, EvalWay way);

/* A statement's result: column names and rows, each an array of JSON values. */
typedef struct EvalTable {
	json_t *cols;
	json_t *rows;
	json_t *warnings;       /* the engine's warnings (typed answers that did not convert) */
} EvalTable;

/* A JSON value as text (strings as they are, numbers as SQLite prints them); NULL for null.
   Heap string. */
char *eval_value_text(json_t *v);

/* The result's fields for one case and way ("id", "way", "kind", "split", "question"). */
json_t *eval_result_new(const EvalCase *c, EvalWay way);

/* ---- the linearization baseline (eval_linear.c) ---- */

/* Write every row of the tables the cases are about as a text passage into a new SQLite
   file at path, with an FTS5 index over them. */
SuqlStatus eval_linear_build(Store *store, const EvalBench *b, const char *path, SuqlErr *err);
/* The linearize way for one case: BM25's top k passages for the question, then the model
   decides (rows) or answers (QA, then the short-answer step when a model is configured).
   Fills res with the prediction; returns the status of the model calls. */
SuqlStatus eval_linear_case(EvalWorker *w, const EvalCase *c, json_t *res, SuqlErr *err);

/* ---- the report and the summary (eval_report.c) ---- */

typedef struct EvalReport EvalReport;

/* Open the report at path (NULL: none, the summary only), resuming it when it exists: its
   cases count as done, provided it was made for the same benchmark with the same backend
   (SUQL_USAGE otherwise, saying so). */
SuqlStatus eval_report_open(EvalReport **out, const char *path, const char *benchmark,
                            const char *backend, SuqlErr *err);
/* Read a report's text: its case lines (objects with "id" and "way") into *cases, a new
   JSON array; its header must name benchmark and backend. The totals lines are skipped. */
SuqlStatus eval_report_parse(const char *text, size_t len, const char *name,
                             const char *benchmark, const char *backend, json_t **cases,
                             SuqlErr *err);
int eval_report_has(const EvalReport *r, const char *id, const char *way);
/* A finished case: appended to the file (flushed) and to the summary. */
void eval_report_add(EvalReport *r, json_t *res, const char *line);
/* The summary table on stdout (and a totals line in the file); the first errors of cases
   on stderr. ncases: the benchmark's cases; k: of precision at k; want: the ways asked
   for; times: show the seconds column (the times setting); chat_skipped: chat was left out
   for want of a model; not_run: cases a stop left undone. */
void eval_report_finish(EvalReport *r, const EvalConfig *cfg, int ncases, int k,
                        const int want[EVAL_NWAYS], int times, int chat_skipped,
                        int not_run);
void eval_report_close(EvalReport *r);

/* The next line of text[0..len) from *at (moved past it), without its outer blanks; *n is
   its length. For the readers of benchmark, questions and report files. */
const char *eval_next_line(const char *text, size_t len, size_t *at, size_t *n);

/* The ways by name. */
const char *eval_way_name(EvalWay w);

#endif
