/*
 * retrieve.h: the retrieval index over free text. It orders candidate rows by how relevant
 * their free text is to one or more questions, and hands out a row's most relevant
 * passages; it never decides whether a row satisfies a question (the LLM does).
 *
 * What is stored. An index covers one column of one table (normally a FREE_TEXT or
 * FREE_TEXT[] column). Its value is cut into passages: one per element of a JSON array,
 * and any passage longer than the index's chunk size (RET_CHUNK bytes) is split on sentence
 * boundaries (text_passages in text.h). Everything lives in the database file, in tables
 * whose names start with "suql_" (hidden from listings):
 *   suql_index        the registry: one row per index (id, tbl, col, chunk, tokenizer,
 *                     counts, build time, and embed_model/embed_dim/embed_table, reserved
 *                     for dense vectors kept beside the passages, keyed by pid)
 *   suql_index_dirty  (idx, rid): rows changed since they were last indexed
 *   suql_psg_<id>     the passages: pid, rid (the row's rowid), ord (position in the
 *                     value), ntok (length in words); a row's pids are consecutive, and
 *                     a pid is never given out twice, not even by a rebuild, so vectors
 *                     kept by pid are stale exactly when their pid is no longer here
 *   suql_txt_<id>     their text, by pid
 *   suql_imp_<id>, suql_rest_<id>  impact lists: per word, the passages where it weighs
 *                     most (retrieve_topk.c), so that a top-k ranking need not score all
 *   suql_fts_<id>     an FTS5 index over the text (porter stemming, diacritics folded)
 *   suql_trg_<id>_ins/_upd/_del   triggers on the table that record changed rowids
 * Names derive from the registry id, so tables whose names hold spaces or quotes work.
 *
 * Staying current. The triggers are plain SQL in the database file, so INSERT, UPDATE and
 * DELETE from any program are caught; they only record the rowid. The next use of the
 * index (ret_ensure, or any scoring or passage call, which call it) re-reads those rows and
 * re-cuts their passages. An index whose table was dropped is dropped; one whose table was
 * dropped and created again (its triggers gone) is rebuilt.
 *
 * Relevance is Okapi BM25 (k1 = 1.2, b = 0.75) of a passage for the question's content
 * words (text_fts_query), with statistics of the whole index; a row's relevance to a
 * question is that of its best passage, and for several questions the sum over them.
 * Ranking the whole table for one question with a limit first tries the impact lists, which
 * give the same rows and scores when they can prove it and otherwise leave it to the scan.
 *
 * Ownership: RetScore and RetPassage arrays are heap memory the caller frees (free() and
 * ret_passages_free). A RetIndex is created by ret_open and freed by ret_close, before the
 * database is closed. Strings passed in are borrowed for the call.
 */
#ifndef SUQL_RETRIEVE_H
#define SUQL_RETRIEVE_H

#include <sqlite3.h>

#include "base/suql.h"

#define RET_CHUNK 500   /* passages longer than this many bytes are split */

/* What an ensure or rebuild did, and the index's size afterwards. */
typedef struct RetInfo {
	long long rows;       /* rows with at least one passage */
	long long passages;
	long long refreshed;  /* rows (re)read by this call */
	int built;            /* 1 when this call built the index from scratch */
} RetInfo;

/* Make the index of table.column current: build it when missing, re-index changed rows.
   Any column may be indexed; an unknown table or column is an error. info may be NULL. */
SuqlStatus ret_ensure(sqlite3 *db, const char *table, const char *column, RetInfo *info,
                      SuqlErr *err);

/* Build every index again from the table's rows. table NULL: every table that has an index
   or FREE_TEXT columns; otherwise that table's FREE_TEXT columns and indexed columns.
   each (may be NULL) is told about every index done. */
typedef void (*RetEach)(void *ctx, const char *table, const char *column, const RetInfo *info);
SuqlStatus ret_rebuild(sqlite3 *db, const char *table, RetEach each, void *ctx, SuqlErr *err);

/* Drop the index of table.column (column NULL: all of table's). No index is not an error. */
SuqlStatus ret_drop(sqlite3 *db, const char *table, const char *column, SuqlErr *err);
/* Follow ALTER TABLE ... RENAME TO (the triggers follow by themselves). */
SuqlStatus ret_rename_table(sqlite3 *db, const char *from, const char *to, SuqlErr *err);
/* 1 when table.column has an index (current or not). */
int ret_has_index(sqlite3 *db, const char *table, const char *column);

/* ---- ranking rows ---- */

typedef struct RetQuestion {
	const char *column;   /* the free-text column the question is about */
	const char *text;     /* the question, in words: "is it good for a first date?" */
} RetQuestion;

typedef struct RetScore {
	sqlite3_int64 rowid;
	double score;         /* sum over the questions of the best passage's BM25; 0: no match */
	int matched;          /* how many of the questions matched some passage of the row */
} RetScore;

enum {
	RET_MATCHED_ONLY = 1, /* leave out rows that match none of the questions */
	RET_SCAN_ALL = 2      /* score every matching passage even when the impact lists could
	                         settle the ranking (for checks: the two must agree) */
};

/*
 * Score rows of table for the questions nq questions (each on its own column; columns may
 * repeat) and return them best first (ties: in the order given, or by rowid).
 *   rowids/nrowids: the candidates (the survivors of the structured predicates); NULL for
 *                   every row of the table.
 *   flags:          RET_MATCHED_ONLY, or 0 to return every candidate (unmatched ones last,
 *                   with score 0).
 *   limit:          at most this many rows (0: no limit). With one question, no rowids and
 *                   a limit up to RET_IMPACT_KEEP / 2 (64), the impact lists may settle it.
 * The indexes are made current first. *out is a heap array of *nout rows.
 */
SuqlStatus ret_score(sqlite3 *db, const char *table, const RetQuestion *q, int nq,
                     const sqlite3_int64 *rowids, size_t nrowids, int flags, size_t limit,
                     RetScore **out, size_t *nout, SuqlErr *err);

/* How many whole-table top-k rankings of one question the impact lists settled, and how
   many had to score every matching passage, since the process started (for tests and
   benchmarks). */
void ret_topk_counts(long long *settled, long long *scanned);

/* The same scores one row at a time, in the index's order (not by score), for a caller that
   keeps only the best few: its memory is what it keeps, not the table. One question; rows
   that match nothing are left out (as RET_MATCHED_ONLY); a row's score equals ret_score's.
   ret_scan_next: 1 a row, 0 the end, -1 an error (in err). */
typedef struct RetScan RetScan;
SuqlStatus ret_scan_open(sqlite3 *db, const char *table, const RetQuestion *q, RetScan **out,
                         SuqlErr *err);
int ret_scan_next(RetScan *s, sqlite3_int64 *rowid, double *score, SuqlErr *err);
void ret_scan_close(RetScan *s);

/* ---- a row's passages ---- */

typedef struct RetPassage {
	char *text;
	int ord;              /* position in the row's value (list element or chunk), from 0 */
	double score;         /* BM25 for the question; 0 when it does not match */
} RetPassage;

/*
 * The passages of one row for a question, most relevant first (equal scores in their
 * order in the value), as many as fit in budget bytes of text: a passage that does not fit
 * is skipped for shorter ones after it, and when not even the best one fits it is cut at a
 * word boundary. budget 0: no limit. question NULL or without content words: the passages
 * in their order (for summaries). Passages that do not match come after those that do.
 */
SuqlStatus ret_passages(sqlite3 *db, const char *table, const char *column,
                        sqlite3_int64 rowid, const char *question, size_t budget,
                        RetPassage **out, size_t *n, SuqlErr *err);
void ret_passages_free(RetPassage *p, size_t n);

/* The same through a handle that keeps its statements and term statistics, for callers
   asking about many rows (the executor walking its candidates). ret_open makes the index
   current. */
typedef struct RetIndex RetIndex;
SuqlStatus ret_open(sqlite3 *db, const char *table, const char *column, RetIndex **out,
                    SuqlErr *err);
SuqlStatus ret_index_passages(RetIndex *ix, sqlite3_int64 rowid, const char *question,
                              size_t budget, RetPassage **out, size_t *n, SuqlErr *err);
void ret_close(RetIndex *ix);

/* ---- the index's words, for a store that keeps its own index (retrieve_doc.c) ----

   PostgreSQL keeps the retrieval index in suql's schema on the server
   (engine/exec_pg_index.c); these give it the passages, tokens, phrases and scores of
   SQLite's index, from the same code. A RetWords holds FTS5's tokenizer, opened on db (any
   SQLite connection), and the words of the table's name; freed by ret_words_close. */
typedef struct RetWords RetWords;
SuqlStatus ret_words_open(sqlite3 *db, const char *table, RetWords **out, SuqlErr *err);
void ret_words_close(RetWords *w);
/* Each passage of a value as the index cuts it: its position, its length for BM25 (the
   index's count of words), its number of FTS5 tokens (the index's total size) and those
   tokens joined by single spaces (borrowed for the call). */
typedef void (*RetWordsEach)(void *ctx, int ord, int ntok, int ftok, const char *toks);
SuqlStatus ret_words_value(RetWords *w, const char *value, size_t n, RetWordsEach each,
                           void *ctx, SuqlErr *err);
/* The question's phrases as ret_score asks them, each its tokens joined by spaces (heap
   array of heap strings); their number. */
int ret_words_question(RetWords *w, const char *question, char ***phrases);
/* How many times the phrase (tokens joined by spaces) stands in a passage's tokens. */
int ret_words_tf(const char *toks, const char *phrase);
/* BM25 of a passage of dl words holding phrase p tf[p] times, in an index of nrow
   passages and ntok tokens where phrase p stands in df[p] passages: the double the
   SQLite index computes for the same counts. */
double ret_words_bm25(int nphrase, const double *df, double nrow, double ntok, const int *tf,
                      int dl);

#endif
