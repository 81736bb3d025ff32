/*
 * record_int.h: the record of a statement: what came from where. While a statement runs,
 * exec_record.c keeps (exec_record_*): every evaluation that reached the model or the
 * cache, with the passages it showed, the request that carried it, the wave, the reply as
 * read and whether the cache answered it (an *ask*); for every candidate a walk examined,
 * in walk order, its key, a label, the verdict of each free-text predicate and which ask
 * decided it; and, for the statement's own SELECT when its rows can be traced back to
 * their keys, each returned row with the values it depends on. When the statement ends
 * the record goes to the Engine, where engine_record.c (engine_record_*) shows it: the
 * per-row section (:set explain rows), :why, the JSON object of --json -v, and the check
 * of a chat answer's citations.
 *
 * Keeping it costs no model call: asks are noted as their replies arrive, candidates
 * after their walk (their texts fetched again by key, as the walk itself does), result
 * rows by reading the statement's rows again with every function answering from the
 * statement's memo only. Memory is bounded: at most REC_MAX_CANDS candidates, REC_MAX_ASKS
 * asks and REC_MAX_ROWS result rows are kept in detail; the rest are counted.
 *
 * Ownership: a Record owns all its strings and arrays (exec_record_free); the Engine owns
 * the last statement's record (Engine.record), the running Exec the one being made.
 */
#ifndef SUQL_RECORD_INT_H
#define SUQL_RECORD_INT_H

#include "engine/engine_int.h"

#define REC_MAX_CANDS 1000
#define REC_MAX_ASKS 2000
#define REC_MAX_ROWS 1000

/* One evaluation of a question about one text value. */
typedef struct RecAsk {
	int what;             /* Record.what index */
	int wave;             /* the statement's wave of calls that asked it (0: none) */
	int request;          /* the statement's number of the request that carried it; 0: none
	                         was sent (the cache, or an identical candidate, answered) */
	int cached;
	int ncall;            /* candidates the call carried */
	int tokens_in, tokens_out;   /* the call's */
	int verdict;          /* VERIFY: a Verdict */
	int unreadable;
	char *reply;          /* the answer as the model wrote it (VERIFY: yes or no) */
	char *value;          /* ANSWER, SUMMARY: the value read from it */
	char *evidence;       /* the sentence that decided, when the backend named one */
	char *warning;        /* why a value could not be read from the reply (a typed answer
	                         the offline backend's words do not hold: "'spring' is not a
	                         date") */
	char *note;           /* why the answer is unknown, as the backend told it (LlmItem.note:
	                         the offline backend found no word of the question) */
	int offline;          /* the offline backend answered */
	int has_conf;         /* VERIFY: the endpoint gave the verdict a confidence */
	double conf;          /* ... from 0 to 1 (llm.logprobs) */
	int low;              /* ... below llm.min_confidence: the verdict is unknown */
	double min_conf;      /* llm.min_confidence when it was asked */
	char **psg;           /* the passages shown, in the order sent */
	int npsg;
} RecAsk;

/* What is asked: an occurrence as written, one per signature. */
typedef struct RecWhat {
	char *text;           /* "answer(reviews, 'is it romantic?') = 'Yes'" */
	char *question;       /* NULL for summary() */
	int kind;             /* FtKind */
	int pg;               /* ANSWER: the PgType of a typed answer (PGT_NONE: text) */
	int noptions;         /* ANSWER: the answers allowed (0: any) */
} RecWhat;

/* A walked unit (a DNF conjunct, or the tree past the cap). */
typedef struct RecUnit {
	int block;            /* the block's number, 1-based as the plan shows it */
	int unit;             /* the conjunct's number, 1-based */
	int top;              /* a unit of the statement's own SELECT */
	long long from_rows;  /* rows of the block's FROM */
	long long rows;       /* candidates after the structured filter */
	long long examined;   /* candidates the walk judged or asked about */
	long long kept;       /* of them, kept in the record */
	int lazy;             /* the walk could stop at the LIMIT */
	int skipped;          /* not walked: earlier conjuncts found enough rows */
	int natoms;
	int *atom_what;       /* per atom, in the order tried */
} RecUnit;

/* A candidate a walk examined. */
typedef struct RecCand {
	int unit;             /* Record.units index */
	long long pos;        /* position in the walk's order */
	long long ids;        /* Record.ids index: nid values */
	int nid;
	char *label;
	int state;            /* CAND_* */
	int in_result;        /* -1: not known (the result rows were not traced) */
	long long atoms;      /* Record.cask / cverdict index: the unit's natoms values */
} RecCand;

/* A result row of the statement's own SELECT. */
typedef struct RecRow {
	long long ids;        /* Record.ids index */
	long long vals;       /* Record.rwhat / rask / rverdict index: Record.nrvals values */
} RecRow;

typedef struct Record {
	char *sql;            /* the statement as suql understood it */
	char *backend;        /* the backend's label */
	int freetext;         /* the statement had free text */
	RecWhat *what;
	int nwhat, capwhat;
	int *sig_what;        /* per signature of the running statement, what + 1 */
	int nsig_what;
	RecAsk *asks;
	int nasks, capasks;
	long long asks_dropped;   /* asks past REC_MAX_ASKS (not kept) */
	RecUnit *units;
	int nunits, capunits;
	RecCand *cands;
	long long ncands, capcands;
	sqlite3_int64 *ids;
	long long nids, capids;
	int *cask;            /* per candidate and atom: ask + 1 (0: no ask) */
	signed char *cverdict;   /* per candidate and atom: a Verdict */
	long long nav, capav;
	/* the result rows (traced when the statement's own SELECT identifies its rows) */
	int traced;
	const char *why_untraced;
	char **id_names;      /* what each id is: "restaurants rowid" */
	int nid;
	RecRow *rows;
	long long nrows, caprows;
	long long rows_total; /* rows the statement returned */
	int nrvals;           /* values per row */
	int *rwhat;           /* per value of a row (nrvals): Record.what index */
	int *rask;            /* per row and value: ask + 1 (0: none) */
	signed char *rverdict;
	long long nrv, caprv;
	/* the groups of answer_agg()/summary_agg(): per group, what :why group N shows (its
	   answer, the partial answers it was reduced from, the passages used; exec_agg.c) */
	char **groups;
	int ngroups;
} Record;

/* exec_record.c: made while the statement runs; exec_record_begin also sets Exec.on_ask,
   through which the requests (exec_llm.c) note each answer as it arrives */
void exec_record_begin(Exec *ex);
struct Walk;
void exec_record_walk(struct Walk *w);
/* After the final statement: trace the rows it returned (no model call). */
void exec_record_result(Exec *ex);
/* A backend that reads the rows the final statement returned again itself (PostgreSQL,
   exec_pg_run.c): _begin gives the top block (*top; NULL: not traced) and the
   occurrences whose texts each row carries (*nv), key(b, i) naming what identifies the
   rows of FROM item i (NULL: nothing, and the rows are not traced); the backend runs its
   final statement with, as its last columns, each FROM item's key and those texts, and
   exec_record_rows reads its rows from c (NULL: not traced), each key turned into the
   walk's ids by ids_of, and frees occs and c. */
int *exec_record_rows_begin(Exec *ex, Block **top, const char *(*key)(const Block *b, int i),
                            int *nv);
void exec_record_rows(Exec *ex, int *occs, StoreCursor *c,
                      int (*ids_of)(const char *key, sqlite3_int64 *ids, int nid));
/* Hand the record to the Engine, replacing the last one (keep 0: a statement run inside
   another, whose record is dropped). */
void exec_record_end(Exec *ex, int keep);
void exec_record_free(Record *r);

#endif
