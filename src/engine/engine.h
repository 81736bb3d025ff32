/*
 * engine.h: the one engine behind every way of using suql (typed SUQL, chat, scripts).
 * It takes statement text, and for each statement reports, through a sink, the parsed
 * SUQL, the plan, the result rows and the counters.
 *
 * Ownership: an Engine is created by engine_open and freed by engine_close; it borrows the
 * Llm it is given (the caller closes it after the engine). Strings passed to sink callbacks
 * are valid only during the call.
 */
#ifndef SUQL_ENGINE_H
#define SUQL_ENGINE_H

#include <sqlite3.h>

#include "base/setting.h"
#include "base/suql.h"
#include "base/util.h"
#include "llm/llm.h"
#include "store/store.h"

#include <stdio.h>

typedef struct Engine Engine;

/* What a statement reports, in this order. Any callback may be NULL. */
typedef struct EngineSink {
	void *ctx;
	void (*parsed)(void *ctx, const char *suql);   /* the statement as suql understood it */
	void (*plan)(void *ctx, const char *text);     /* plain text, several lines */
	/* Result rows: columns once, then row for each row, read through the Row
	   (base/row.h; valid during the call), whichever backend produced them. Returning
	   nonzero from row stops the statement. */
	void (*columns)(void *ctx, const Row *r);
	int (*row)(void *ctx, const Row *r);
	void (*counters)(void *ctx, const char *text); /* plain text, several lines */
	void (*warning)(void *ctx, const char *msg);   /* e.g. a typed answer that did not convert */
	/* The statement involves free text or an ENUM literal to classify, so the model may be
	   asked and a plan and counters follow: called once, after parsed and before plan. */
	void (*freetext)(void *ctx);
	/* parsed is of use only when freetext follows: a plain statement may then run without
	   being parsed at all (engine_plain.c) */
	int parsed_if_freetext;
	/* EXPLAIN of a statement with free text: the sections ("parsed", "plan") that are its
	   whole answer, shown whatever the explain setting; no rows and no counters follow */
	void (*explained)(void *ctx, const char *label, const char *text);
	/* With explained: EXPLAIN's answer comes as one section "json", a JSON object holding
	   the statement, the plan's calls, tokens and dollars (expected and worst) and its
	   lines (--json, :mode json), instead of "parsed" and "plan". */
	int explain_json;
} EngineSink;

/* Open (creating if needed) the database at path (":memory:" for none). */
Engine *engine_open(const char *path, Llm *llm, SuqlErr *err);
/* The same; with readonly the file is opened read-only (it must exist) and never changed. */
Engine *engine_open_mode(const char *path, Llm *llm, int readonly, SuqlErr *err);
void engine_close(Engine *e);

/* The database through the storage seam (store.h), and its SQLite connection, which the
   code not yet behind the seam uses (src/README.md lists it). */
Store *engine_store(Engine *e);
sqlite3 *engine_db(Engine *e);
const char *engine_path(const Engine *e);

/* Run the first statement of sql[0..len). *used is set to the bytes it took (through its
   ';'), so a script runs as a loop. A text holding only blanks and comments sets *used to
   len and runs nothing. SUQL_INCOMPLETE: the text ends inside the statement. */
SuqlStatus engine_exec(Engine *e, const char *sql, size_t len, size_t *used,
                       const EngineSink *sink, SuqlErr *err);

/* During the sink's columns and row callbacks: nonzero when result column col is a column
   of a table whose SUQL type is a list (TEXT[], ENUM[], FREE_TEXT[]: a JSON array). */
int engine_column_is_list(const Engine *e, int col);

/* While a statement runs (asked from a callback, such as the LLM client's tick): the
   candidates its walk has judged so far and how many the walk has. Returns 0 when no walk
   is running. */
int engine_progress(const Engine *e, long long *judged, long long *of);

/* Nonzero when sql[0..len) ends with a complete statement (the REPL stops asking for
   continuation lines), or holds nothing but blanks and comments. */
int engine_complete(const char *sql, size_t len);

/* A job's write, once (engine_once.c; doc/bulk.md): the statement sql[0..len), run for
   the job named job (a token of the LLM client's job, batch its batch id for people), is
   made to commit together with a row of suql's in the database that says the job's write
   ran. engine_once_begin sets *state: ENGINE_ONCE_NONE when the statement does not write
   (or read-only mode refuses it anyway): nothing begun, run it as usual; ENGINE_ONCE_BEGUN
   when a transaction is open with the row in it: run the statement, then engine_once_end
   commits both (commit) or rolls both back; ENGINE_ONCE_DONE when the row is there
   already: the write committed before, and nothing is begun. An open transaction of the
   user's is refused. */
enum { ENGINE_ONCE_NONE, ENGINE_ONCE_BEGUN, ENGINE_ONCE_DONE };
SuqlStatus engine_once_begin(Engine *e, const char *sql, size_t len, const char *job,
                             const char *batch, int *state, SuqlErr *err);
SuqlStatus engine_once_end(Engine *e, int commit, SuqlErr *err);
/* The i-th of SUQL's functions (answer, summary, extract, answer_agg, matches, bm25 ...),
   in lower case, as the engine's operators name them (the binder reads the same names);
   NULL past the last. */
const char *engine_function(int i);

/* Read-only mode (the chat agent's statements): while on, a user's statement that would
   write anything (INSERT, UPDATE, DELETE, DDL, ATTACH, PRAGMA with a value, transactions)
   is refused when it is prepared, by an SQLite authorizer, and the database is unchanged;
   so is one that reads a table marked as holding evaluation labels (catalog.h). suql's own
   bookkeeping (catalog, retrieval index, enum mappings) is not affected. */
void engine_set_readonly(Engine *e, int on);

/* The engine's settings (doc/engine.md): optimize, batch, batch_tokens, budget,
   passage_tokens, dnf_cap, times, busy_timeout; rows over an Engine (base/setting.h).
   engine_set sets one (an unknown key is an error), engine_settings writes "key = value"
   lines. */
extern const SetTable engine_settings_table;
SuqlStatus engine_set(Engine *e, const char *key, const char *value, SuqlErr *err);
void engine_settings(const Engine *e, SBuf *out);
/* :enum: the stored ENUM mappings (suql_enum_map), one a line: "table.column 'literal' ->
   {'value', ...} (by MODEL)". */
SuqlStatus engine_enum_list(Engine *e, SBuf *out, SuqlErr *err);

/* :index: the indexes of the free-text columns of table (all tables: NULL) made current,
   one line per column on out, by the database's backend: on SQLite suql's retrieval index
   (FTS5), on PostgreSQL a GIN index of each column's full text over suql.doc(column), the
   expression the ranking reads. */
SuqlStatus engine_index(Engine *e, const char *table, FILE *out, SuqlErr *err);
/* Whether the importer makes the index of :import --index itself, as it writes (SQLite);
   else :index makes it once the rows are in (PostgreSQL). */
int engine_import_indexes(const Engine *e);
/* What suql will not write through in the database file (store/own.h: own_scan), said
   when it opens: warnings in *msgs (own_strings_free), how many; 0 for a database that
   is no file of suql's connection (a server). */
int engine_own_scan(Engine *e, char ***msgs);
/* :enum forget: remove the mappings of table.column (NULL: every column), of one literal
   (NULL: all of them); *n says how many went. */
SuqlStatus engine_enum_forget(Engine *e, const char *table, const char *column,
                              const char *literal, long *n, SuqlErr *err);

/* The limits a runner of statements applies to one (the session does: the time by an
   alarm, the rows through its sink, a value's size through SQLite's length limit); a zero
   means none. A statement past its time stops with an error, one that reaches its rows
   stops with a warning and keeps them, and a value longer than value_bytes is an error.
   setting, rows_setting and value_setting name the settings that change them, for those
   messages ("timeout", "chat.timeout", ...). */
typedef struct RunLimits {
	double seconds;
	long rows;
	int value_bytes;
	const char *setting, *rows_setting, *value_setting;
} RunLimits;

/* The record of the last statement (doc/engine.md, "What came from where"), kept without
   any extra call to the model: its candidates, the passages each ask showed, the request
   that carried it, the replies, and the rows returned.
   engine_record_rows: the per-row section, one line per candidate a walk examined, in the
   order examined, each cut to width columns (0: not cut); nothing when the last statement
   had no free text.
   engine_record_why: the evidence behind one row: arg is N (its position in the last
   result), key=K (a row or examined candidate by its first key), or the start of its
   label, or group N (a group of an answer_agg() or summary_agg(): its answer, the partial
   answers it was reduced from and the passages used; group alone lists them); SUQL_USAGE
   with a message when there is no such row.
   engine_record_json: the record as one JSON object {"record": {...}} (--json -v).
   engine_record_shown: nonzero when text[0..n) is part of a passage the last statement
   showed the model (a chat answer's citations are checked with it).
   engine_record_evidence: for the first max_rows rows of the last result, the passages
   shown for each free-text value that put the row there (a verify that said yes) or gave
   it a value, at most two a value, one line each (for the chat agent's answer). */
void engine_record_rows(const Engine *e, int width, SBuf *out);
SuqlStatus engine_record_why(const Engine *e, const char *arg, SBuf *out, SuqlErr *err);
void engine_record_json(const Engine *e, SBuf *out);
int engine_record_shown(const Engine *e, const char *text, size_t n);
void engine_record_evidence(const Engine *e, int max_rows, SBuf *out);

/* Carry the settings over to a newly opened engine (:open). */
void engine_copy_settings(Engine *to, const Engine *from);

#endif
