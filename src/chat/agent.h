/*
 * agent.h: chat mode, a conversational agent over the engine. Each line the user types at
 * `chat>` is one turn: in one request, the agent asks the language model either to answer
 * the turn directly (greetings and general questions need no database) or to write one
 * SUQL query, given the schema and the dialogue so far; it checks that query (one SELECT,
 * a default LIMIT added when it has none), runs it read-only through the same engine and
 * display as typed SUQL, gives the model one chance to correct a query that does not parse
 * or bind (or a reply it could not read), optionally one chance to loosen a query that
 * found nothing, and finally asks the model to answer from the rows, streamed (or, when
 * there are none, to say plainly that nothing was found). The wording of every
 * step is in prompts/chat_*.txt (built in, overridable with --prompts DIR). doc/chat.md
 * describes it for users.
 *
 * The agent is a library: it knows the model and the SUQL it writes, not the terminal. It
 * works through the AgentHost its owner gives it (the session, session/session_chat.c):
 * the database to describe, "run this checked query read-only and show it", notes and the
 * reply to show. It keeps the dialogue until agent_reset: each turn's text, query, a bounded
 * copy of its rows, a digest of them and the reply. The chat.* settings are its table of
 * settings rows (agent_settings_table); the meta-commands :chat, :sql, :history, :reset and
 * :save belong to the REPL (cli/meta_chat.c).
 *
 * Ownership: an Agent is made by agent_new and freed by agent_free; it borrows its host,
 * which must outlive it. AgentRows owns its column names and its JSON rows
 * (agent_rows_free). Functions returning char * return heap strings the caller frees.
 */
#ifndef SUQL_AGENT_H
#define SUQL_AGENT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

#include "base/setting.h"
#include "base/suql.h"
#include "base/util.h"
#include "engine/engine.h"
#include "llm/llm.h"
#include "store/store.h"

typedef struct Agent Agent;

/* What the agent works through, given by its owner. Every function gets ctx. */
typedef struct AgentHost {
	void *ctx;
	Llm *(*llm)(void *ctx);       /* the model client */
	Store *(*store)(void *ctx);   /* the open database, for the schema in the prompts */
	/* Run one checked query read-only under lim, shown like typed SUQL with its parsed
	   form always shown; its columns and rows also go to tap. */
	SuqlStatus (*run)(void *ctx, const char *sql, const RunLimits *lim, const EngineSink *tap,
	                  SuqlErr *err);
	/* A labelled note where the results go ("retry", "relaxed", "note"). */
	void (*note)(void *ctx, const char *label, const char *text);
	/* The turn's model calls, shown with the statements' counters (when those are shown). */
	void (*counters)(void *ctx, const char *text);
	/* The reply, in pieces as the model streams it (or whole); reply_end closes it and
	   returns nonzero when anything was shown. */
	void (*reply)(void *ctx, const char *piece, size_t n);
	int (*reply_end)(void *ctx);
	/* The passages that put the rows of the query that just ran in its result, as text
	   for the answer's prompt (heap; NULL when there are none); and whether text[0..n) is
	   part of a passage the model was shown for that query. Either may be NULL. */
	char *(*evidence)(void *ctx);
	int (*shown)(void *ctx, const char *text, size_t n);
} AgentHost;

/* A new agent, with the default settings, working through host. */
Agent *agent_new(const AgentHost *host);
void agent_free(Agent *a);

/* One turn: the line the user typed. */
SuqlStatus agent_turn(Agent *a, const char *line, SuqlErr *err);

/* The dialogue: forget it; list it; save it as JSONL (one object per turn); its length. */
void agent_reset(Agent *a);
void agent_history(const Agent *a, FILE *out);
SuqlStatus agent_save(const Agent *a, const char *path, SuqlErr *err);
int agent_turns(const Agent *a);

/* The chat.* settings (chat.limit, chat.relax, chat.context, ...): rows over an Agent
   (base/setting.h); agent_set sets one. */
extern const SetTable agent_settings_table;
SuqlStatus agent_set(Agent *a, const char *key, const char *value, SuqlErr *err);

/* ---- the pieces of a turn, exported for the unit tests ---- */

/* Check the model's query: exactly one SELECT (or WITH ... SELECT, or VALUES). With
   default_limit > 0 and no LIMIT on the top-level select, LIMIT default_limit is added to
   its tree. *out is the query as normalised SUQL; *limited says whether the LIMIT was
   added. SUQL_ERROR with a message (pointing into sql where it can) otherwise. */
SuqlStatus agent_prepare(const char *sql, int default_limit, char **out, int *limited,
                         SuqlErr *err);

/* The query in a model's reply: the string of a JSON object's suql (or query, sql) key
   when the reply is such an object; code fences, a label such as "SUQL:" and a trailing
   ';' and blanks dropped. NULL when nothing is left, or the reply says NONE. */
char *agent_extract_query(const char *reply);
/* Whether the query agent_extract_query finds starts as an SQL statement does (prose is no
   query: such a reply is never cached). */
int agent_reply_has_query(const char *reply);

/* What the parse step's reply says: a direct answer to the user, a query, or neither (a
   reply that cannot be read: never taken as a verdict or a query). The reply is a JSON
   object, {"database": false, "reply": "..."} or {"database": true, "suql": "..."} (keys
   query and sql are read too; a query given is taken whatever database says), or, from a
   model that ignores the format, "REPLY: ..." for an answer, or text that starts as an SQL
   statement does for the query written plainly (fenced or labelled, as agent_extract_query
   reads it); other prose is neither. *direct or *query is set (heap) for the verdict
   returned. */
typedef enum AgentVerdict { AGENT_UNREAD = -1, AGENT_DIRECT = 0, AGENT_QUERY = 1 } AgentVerdict;
AgentVerdict agent_read_parse(const char *reply, char **direct, char **query);

/* A statement's result, kept within bounds for the prompts and the saved dialogue. */
typedef struct AgentRows {
	char **cols;         /* column names */
	int ncols;
	json_t *rows;        /* array of objects {column: value}, at most max_bytes of JSON */
	long count;          /* rows the statement returned */
	long omitted;        /* rows counted but not kept (over max_bytes) */
	size_t bytes;        /* JSON size of rows */
	size_t max_bytes;    /* 0: no bound */
	size_t cell_max;     /* a longer text value is cut (at a character) and ends with "..." */
} AgentRows;

void agent_rows_init(AgentRows *rows, size_t max_bytes, size_t cell_max);
void agent_rows_free(AgentRows *rows);
/* A sink that fills rows (columns and row callbacks only). */
EngineSink agent_rows_sink(AgentRows *rows);

/* A one-line digest of a result for the dialogue: the count, then each row's name-like and
   id-like columns (or its first columns), at most 10 rows:
   "3 rows: Trattoria Lucca (id=12); Nonna Teresa (id=15); Il Faro (id=40)". */
char *agent_digest(const AgentRows *rows);

/* ---- for the evaluation harness (eval.h) ---- */

/* The newest turn of the dialogue: the query that ran (NULL when none did), its rows, the
   reply (NULL when the turn failed) and why it failed. Borrowed from the agent, valid until
   the next turn or agent_reset. Returns 0 when there is no turn. */
typedef struct AgentOutcome {
	const char *suql;
	const AgentRows *rows;
	const char *reply;
	const char *error;
	int relaxed, repaired;
	int limit;           /* the default LIMIT in effect (chat.limit) */
} AgentOutcome;
int agent_last(const Agent *a, AgentOutcome *out);

/* The short-answer step (prompts/chat_short.txt): given the question, what a search found
   (rows as JSON text, may be NULL) and a detailed answer (may be NULL), the model replies
   with just the words that answer it. *span is heap text, "" when the model says nothing
   answers. One model call, counted like the turn's others. */
SuqlStatus agent_short_answer(Agent *a, const char *question, const char *rows,
                              const char *detail, char **span, SuqlErr *err);
/* The answer in a short-answer reply: blanks, a label ("Answer:"), enclosing quotes and a
   final full stop dropped; "" for a reply saying there is no answer. Heap string. */
char *agent_read_short(const char *reply);

#endif
