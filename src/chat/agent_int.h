/*
 * agent_int.h: what the files of the chat agent share: the Agent and its turns, and the
 * helpers each file provides. agent.c runs a turn; agent_prompt.c builds the messages (the
 * prompt files, the schema, the dialogue); agent_query.c checks queries and keeps results;
 * agent_state.c makes and frees the agent and holds its settings, its dialogue's listing
 * (:history) and saving (:save).
 *
 * Ownership: every string of an AgentTurn is heap memory owned by the turn
 * (agent_turn_free). AgentMsgs owns the texts of its messages (agent_msgs_free).
 */
#ifndef SUQL_AGENT_INT_H
#define SUQL_AGENT_INT_H

#include "chat/agent.h"
#include "llm/llm.h"
#include "sql/ast.h"

/* Defaults of the chat.* settings. */
#define AGENT_LIMIT 5            /* LIMIT added to a query without one */
#define AGENT_CONTEXT 8          /* earlier turns shown to the model */
#define AGENT_RESULT_BYTES 8000  /* JSON of the rows shown to the model */
#define AGENT_CELL_MAX 600       /* one value shown to the model, in bytes */
#define AGENT_RELAX_MAX 2        /* most relax tries chat.relax allows */
/* The limits of the queries a model writes (they run unattended): */
#define AGENT_TIMEOUT 30         /* seconds a query may run */
#define AGENT_MAX_ROWS 1000      /* rows a query may return, whatever its LIMIT says */
#define AGENT_MAX_VALUE 1000000  /* bytes one value may take (randomblob(1e9) is refused) */

typedef struct AgentTurn {
	char *user;          /* what the user typed */
	int database;        /* the turn needed the database */
	char *suql;          /* the query that ran (normalised), NULL when none did */
	char *relaxed_from;  /* the query that found nothing, when suql is its relaxed form */
	char *also_tried;    /* a relaxed form of suql that found nothing either */
	char *tried;         /* the turn failed: the last query the model wrote, which did not
	                        run to the end (or its reply, when it held no query) */
	int repaired;        /* suql is the model's correction of a failed query */
	int limited;         /* the default LIMIT added to suql (0: none was) */
	AgentRows rows;
	char *digest;        /* agent_digest of rows */
	char *reply;         /* the agent's answer; NULL when the turn failed */
	char *error;         /* why the turn failed, NULL when it did not */
} AgentTurn;

struct Agent {
	const AgentHost *host;   /* borrowed: what the agent works through */
	AgentTurn *turns;
	int nturns, capturns;

	/* settings */
	int limit;
	int relax;           /* relax tries after a query that found nothing (on: 1) */
	int context;
	size_t result_bytes;
	char *tables;        /* comma-separated names the agent is shown; NULL: every table */
	char *examples;      /* chat.examples: the file's text, NULL when none */
	char *examples_path;
	double timeout;      /* chat.timeout, chat.max_rows, chat.max_value */
	long max_rows;
	long max_value;

	/* the model calls of the running turn, for :stats */
	int calls, cached;
	long tokens_in, tokens_out;
	double usd;          /* what those tokens cost (llm_call_usd) */
	int unpriced;        /* some had no price: no dollars are shown */
	SBuf steps;          /* "parse, respond" */
};

/* How rows and turns are written as JSON: compact, keys in column order, reals as SQLite
   shows them (3.9, not 3.8999999999999999). */
#define AGENT_JSON (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* Messages of one request. */
#define AGENT_MAX_MSGS 12
typedef struct AgentMsgs {
	LlmMessage v[AGENT_MAX_MSGS];
	char *text[AGENT_MAX_MSGS];
	int n;
} AgentMsgs;

void agent_msgs_add(AgentMsgs *m, const char *role, const char *text);   /* copies text */

/* agent_cite.c: the filter a reply goes through, keeping only quotations of what the model
   was shown (the query's passages, through host->shown, or rows, the rows' JSON). Pieces
   go in with agent_cite_put (or agent_cite_on_text, an LlmCall.on_text); with stream they
   are passed on to host->reply as they are cleared; agent_cite_end flushes. out is the
   reply as shown; dropped counts the quotations left out. */
typedef struct AgentCite {
	const AgentHost *host;
	const char *rows;
	int stream;
	SBuf out;
	SBuf held;           /* an open quotation, held until it closes */
	int open;            /* bytes of its opening quote: 1 ("), 3 (curly); 0: none open */
	int squeeze;
	char pend[2];        /* the start of a curly quote that ended a piece */
	int npend;
	int ending;
	long dropped;
} AgentCite;
void agent_cite_begin(AgentCite *c, const AgentHost *host, const char *rows, int stream);
void agent_cite_put(AgentCite *c, const char *p, size_t n);
void agent_cite_on_text(void *ctx, const char *piece, size_t n);
void agent_cite_end(AgentCite *c);
void agent_msgs_free(AgentMsgs *m);

/* Placeholder values for the prompt templates: names and values alternate. */
#define AGENT_MAX_KV 16
typedef struct AgentKv {
	const char *kv[2 * AGENT_MAX_KV];
	int n;
} AgentKv;

void agent_kv(AgentKv *kv, const char *key, const char *value);   /* borrows both */

/* agent_prompt.c: render the template called name (prompts/NAME.txt, or DIR/NAME.txt with
   --prompts DIR) and append its [system], [user] and [assistant] sections to m. A template
   without markers is one user message. */
SuqlStatus agent_prompt(const Agent *a, const char *name, const AgentKv *kv, AgentMsgs *m,
                        SuqlErr *err);
/* The same, rendered as one text (for templates used inside others, like chat_guide). */
char *agent_prompt_text(const Agent *a, const char *name, const AgentKv *kv, SuqlErr *err);

/* The schema for the prompts: each visible table (or those in tables, comma-separated),
   but none marked as holding evaluation labels (catalog.h), in
   SUQL DDL with ENUM values when at most 10, preceded by its description when the database
   has one (suql_table_info) and followed by notes on the values of short text and list
   columns. */
char *agent_schema(Store *st, const char *tables);

/* The last `context` turns as text for the prompts; "(none: this is the first message)"
   when there are none. */
char *agent_dialogue(const Agent *a);

/* agent_query.c: the JSON text of rows for a prompt, one row per line. */
char *agent_rows_json(const AgentRows *rows);

void agent_turn_free(AgentTurn *t);


#endif
