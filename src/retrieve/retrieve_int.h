/*
 * retrieve_int.h: what retrieve.c (the registry, building and refreshing indexes) and
 * retrieve_rank.c (scoring rows and passages) share. Not for other modules.
 *
 * Ownership: a RetEntry's strings are heap memory released by ret_entry_free.
 */
#ifndef SUQL_RETRIEVE_INT_H
#define SUQL_RETRIEVE_INT_H

#include "base/util.h"
#include "retrieve/retrieve.h"

/* One row of suql_index, with the names of its objects. */
typedef struct RetEntry {
	sqlite3_int64 id;
	char *table;          /* as stored in the registry */
	char *column;
	int chunk;
	int format;           /* RET_FORMAT when built by this version */
	char psg[40];         /* suql_psg_<id> */
	char fts[40];         /* suql_fts_<id> */
	char txt[40];         /* suql_txt_<id> */
	char imp[40];         /* suql_imp_<id>: impact lists (retrieve_topk.c) */
	char rest[40];        /* suql_rest_<id>: where each list stops */
	char df[40];          /* suql_df_<id>: passages holding each word */
} RetEntry;

/* Look up (table, column) in the registry: 1 found, 0 not, -1 error. */
int ret_entry_get(sqlite3 *db, const char *table, const char *column, RetEntry *e,
                  SuqlErr *err);
void ret_entry_free(RetEntry *e);

/* The layout of an index's tables; an index of another format is rebuilt on use.
   1: suql_psg_<id>(pid, rid, ord, ntok), suql_txt_<id>(pid, text), and suql_fts_<id>,
      FTS5 with suql_txt_<id> as its external content.
   2: and the impact lists suql_imp_<id>, suql_rest_<id> and the word counts suql_df_<id>
      (retrieve_topk.c). */
#define RET_FORMAT 2

/* The FTS5 tokenizer of every index. */
#define RET_TOKENIZER "porter unicode61 remove_diacritics 2"

/* Run SQL text with no result rows; err gets SQLite's message. */
SuqlStatus ret_exec(sqlite3 *db, const char *sql, SuqlErr *err);
/* Step a prepared statement once and reset it; an error is SQLite's message. */
SuqlStatus ret_step(sqlite3 *db, sqlite3_stmt *st, SuqlErr *err);

int ret_table_exists(sqlite3 *db, const char *name);
void ret_put_ident(SBuf *b, const char *s);
/* Drop an index's tables and triggers and forget its dirty rows (the registry row stays). */
SuqlStatus ret_drop_objects(sqlite3 *db, sqlite3_int64 id, SuqlErr *err);
/* (Re)create e's objects and index every row; re-index the rows the triggers recorded
   (or build again when most of the table changed). column is the column's name as the
   table spells it, rowid a name for the rowid that no column shadows. */
SuqlStatus ret_build(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
                     RetInfo *info, SuqlErr *err);
SuqlStatus ret_refresh(sqlite3 *db, RetEntry *e, const char *column, const char *rowid,
                       RetInfo *info, SuqlErr *err);
/* The registry's row and passage counts into info (when not NULL); reads only. */
void ret_read_counts(sqlite3 *db, const RetEntry *e, RetInfo *info);

/* ---- BM25 (retrieve_rank.c) ---- */

/* The next phrase of an FTS5 MATCH expression (text_fts_query's) at or after p: its
   opening quote, with *end at its closing one ("" inside is one "), or NULL. */
const char *ret_phrase(const char *p, const char **end);

#define RET_MAX_PHRASES 64

/* What the ranking function needs for one question: each phrase's document frequency and,
   once ready (worked out from the index's totals at the first row scored), its idf and
   the index's average passage length. */
typedef struct RetRank {
	int nphrase;
	double df[RET_MAX_PHRASES];
	int ready;
	double idf[RET_MAX_PHRASES], avgdl;
} RetRank;

/* Okapi BM25 of a passage of dl words holding phrase p tf[p] times (rk ready). Every score
   of a passage, and every bound on one, is this arithmetic, so equal inputs give equal
   doubles whichever path computed them. */
double ret_rank_passage(const RetRank *rk, const int *tf, int dl);

/* ---- impact lists (retrieve_topk.c) ---- */

/* Postings kept per word and stratum. */
#define RET_IMPACT_KEEP 128

/* FTS5's tokenizer of every index (RET_TOKENIZER), and the tokens of the last run: token i
   is the NUL-terminated string at buf.s + off[i]. */
typedef struct RetTok {
	fts5_tokenizer api;
	Fts5Tokenizer *tok;
	SBuf buf;
	size_t *off;
	int n, cap;
} RetTok;

SuqlStatus ret_tok_open(sqlite3 *db, RetTok *t, SuqlErr *err);
void ret_tok_close(RetTok *t);
/* Cut text into tokens (query: as FTS5 cuts a MATCH phrase); the count, -1 on failure. */
int ret_tok_run(RetTok *t, const char *text, size_t len, int query);

/* Building: every passage is offered (ret_impact_add); finish writes the lists into e's
   tables. The RetImpact is freed by ret_impact_free in every case. */
typedef struct RetImpact RetImpact;
SuqlStatus ret_impact_begin(sqlite3 *db, RetImpact **out, SuqlErr *err);
SuqlStatus ret_impact_add(RetImpact *im, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                          const char *text, SuqlErr *err);
SuqlStatus ret_impact_finish(sqlite3 *db, RetImpact *im, const RetEntry *e, SuqlErr *err);
void ret_impact_free(RetImpact *im);

/* Re-indexing rows: a passage removed or added (dl: its ntok). */
typedef struct RetImpactW RetImpactW;
SuqlStatus ret_impactw_open(sqlite3 *db, const RetEntry *e, RetImpactW **out, SuqlErr *err);
SuqlStatus ret_impactw_remove(RetImpactW *u, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                              const char *text, SuqlErr *err);
SuqlStatus ret_impactw_add(RetImpactW *u, sqlite3_int64 pid, sqlite3_int64 rid, int dl,
                           const char *text, SuqlErr *err);
void ret_impactw_close(RetImpactW *u);

/* The best limit rows of the whole index for one question whose phrases are the single
   tokens tok[0..rk->nphrase) (rk ready). *proven 1: *out (heap) is exactly what scoring
   every matching passage would give, best first, ties by rowid; 0: the lists cannot show
   it, score everything. scan (may be NULL): the scan statement (?1 the RetRank, ?2 the
   MATCH; rows (rid, score)), run over the passages that hold two or more of the words when
   the lists alone do not settle a question of 2 to RET_SCAN_MAX words; phrase: those
   words as the question's MATCH quotes them. */
#define RET_SCAN_MAX 6
SuqlStatus ret_topk_run(sqlite3 *db, const RetEntry *e, const RetRank *rk, char *const *tok,
                        sqlite3_stmt *scan, const char *const *phrase, size_t limit,
                        RetScore **out, size_t *nout, int *proven, SuqlErr *err);

#endif
