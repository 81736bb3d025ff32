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
} RetEntry;

/* Look up (table, column) in the registry: 1 found, 0 not, -1 error. */
int ret_entry_get(sqlite3 *db, const char *table, const char *column, RetEntry *e,
                  SuqlErr *err);
void ret_entry_free(RetEntry *e);

/* The layout of an index's tables; an index of another format is rebuilt on use.
   1: suql_psg_<id>(pid, rid, ord, ntok), suql_txt_<id>(pid, text), and suql_fts_<id>,
      FTS5 with suql_txt_<id> as its external content. */
#define RET_FORMAT 1

/* The FTS5 tokenizer of every index. */
#define RET_TOKENIZER "porter unicode61 remove_diacritics 2"

/* Run SQL text with no result rows; err gets SQLite's message. */
SuqlStatus ret_exec(sqlite3 *db, const char *sql, SuqlErr *err);

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

#endif
