/*
 * agent_state.c: the chat agent's state between turns: made (agent_new) and freed, its
 * chat.* settings, and its dialogue listed (:history) and saved as JSONL (:save FILE).
 */
#include "chat/agent_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

Agent *agent_new(const AgentHost *host)
{
	Agent *a = xcalloc(1, sizeof *a);
	a->host = host;
	a->limit = AGENT_LIMIT;
	a->relax = 1;
	a->context = AGENT_CONTEXT;
	a->result_bytes = AGENT_RESULT_BYTES;
	a->timeout = AGENT_TIMEOUT;
	a->max_rows = AGENT_MAX_ROWS;
	a->max_value = AGENT_MAX_VALUE;
	return a;
}

void agent_free(Agent *a)
{
	if (!a)
		return;
	agent_reset(a);
	free(a->turns);
	free(a->tables);
	free(a->examples);
	free(a->examples_path);
	sb_free(&a->steps);
	free(a);
}

void agent_reset(Agent *a)
{
	for (int i = 0; i < a->nturns; i++)
		agent_turn_free(&a->turns[i]);
	a->nturns = 0;
}

int agent_turns(const Agent *a)
{
	return a ? a->nturns : 0;
}

/* ---- settings ---- */

/* chat.relax: on (1), off (0), or a number of tries up to AGENT_RELAX_MAX. */
static SuqlStatus set_relax(void *obj, const SetRow *row, const char *value, SuqlErr *err)
{
	Agent *a = obj;
	long n;
	if (str_parse_bool(value, &a->relax))
		return SUQL_OK;
	if (!setting_parse_long(value, 0, AGENT_RELAX_MAX, &n))
		return setting_bad(row, value, err);
	a->relax = (int)n;
	return SUQL_OK;
}

static void show_relax(const void *obj, const SetRow *row, SBuf *out)
{
	const Agent *a = obj;
	(void)row;
	if (a->relax <= 1)
		sb_puts(out, a->relax ? "on" : "off");
	else
		sb_printf(out, "%d", a->relax);
}

/* chat.tables: a comma-separated list; "all" or "" for every table (NULL). */
static SuqlStatus set_tables(void *obj, const SetRow *row, const char *value, SuqlErr *err)
{
	Agent *a = obj;
	(void)row, (void)err;
	free(a->tables);
	a->tables = *value && !str_ieq(value, "all") ? xstrdup(value) : NULL;
	return SUQL_OK;
}

static void show_tables(const void *obj, const SetRow *row, SBuf *out)
{
	const Agent *a = obj;
	(void)row;
	sb_puts(out, a->tables ? a->tables : "all");
}

/* chat.examples FILE: few-shot examples written for this database, read now and shown in
   the parse and relax prompts after the built-in ones; "none" (or "") forgets them. */
static SuqlStatus set_examples(void *obj, const SetRow *row, const char *value, SuqlErr *err)
{
	Agent *a = obj;
	char *text = NULL;
	(void)row;
	if (*value && !str_ieq(value, "none")) {
		size_t len;
		text = util_read_file(value, &len);
		if (!text)
			return err_set(err, SUQL_USAGE, "chat.examples: cannot read %s: %s", value,
			               strerror(errno));
		if (memchr(text, '\0', len)) {
			free(text);
			return err_set(err, SUQL_USAGE, "chat.examples: %s is not a text file", value);
		}
	}
	free(a->examples);
	free(a->examples_path);
	a->examples = text;
	a->examples_path = text ? xstrdup(value) : NULL;
	return SUQL_OK;
}

static void show_examples(const void *obj, const SetRow *row, SBuf *out)
{
	const Agent *a = obj;
	(void)row;
	sb_puts(out, a->examples_path ? a->examples_path : "none");
}

#define AS(field) offsetof(Agent, field)

static const SetRow agent_rows[] = {
	{"chat.limit", SET_INT, AS(limit), 0, 100000, NULL, "N", SETTING_STR(AGENT_LIMIT),
	 "the LIMIT added to a chat query that has none; 0 adds none", NULL,
	 "takes a number of rows from 0 (no default LIMIT) to 100000", NULL, 0, NULL, NULL},
	{"chat.relax", SET_BOOL, 0, 0, AGENT_RELAX_MAX, NULL, "on|off|N", "on",
	 "after a chat query that found nothing, ask the model for a less strict one: on once, "
	 "2 up to twice (each try told the queries that found "
	 "nothing), off never", NULL,
	 "takes on, off or a number of tries from 0 to " SETTING_STR(AGENT_RELAX_MAX), NULL, 0,
	 set_relax, show_relax},
	{"chat.context", SET_INT, AS(context), 0, 1000, NULL, "N", SETTING_STR(AGENT_CONTEXT),
	 "earlier turns shown to the model", NULL, "takes a number of turns from {range}", NULL,
	 0, NULL, NULL},
	{"chat.result_bytes", SET_SIZE, AS(result_bytes), 200, 10000000, NULL, "N",
	 SETTING_STR(AGENT_RESULT_BYTES), "the most JSON of result rows shown to the model for "
	 "its answer", NULL, "takes a number of bytes from {range}", NULL, 0, NULL, NULL},
	{"chat.tables", SET_TEXT, 0, 0, 0, NULL, "LIST", "all", "the tables the chat model is "
	 "shown, separated by commas; all or empty for every table; tables marked as holding "
	 "evaluation labels (:labels) are never shown", NULL, NULL, NULL, 0, set_tables,
	 show_tables},
	{"chat.examples", SET_TEXT, 0, 0, 0, NULL, "FILE", "none", "few-shot examples written for "
	 "this database (plain text, read when set), shown to the model in the parse and relax "
	 "steps after the built-in ones; none forgets them", NULL, NULL, NULL, 0, set_examples,
	 show_examples},
	{"chat.timeout", SET_REAL, AS(timeout), 0, 1000000, NULL, "SECONDS",
	 SETTING_STR(AGENT_TIMEOUT), "how long a query the model wrote may run; one stopped at "
	 "this limit goes back to the model to be corrected", NULL, "takes a number of seconds "
	 "above 0 (a query the model wrote always has a limit)", NULL, SET_ABOVE_MIN, NULL, NULL},
	{"chat.max_rows", SET_LONG, AS(max_rows), 1, 100000000, NULL, "N",
	 SETTING_STR(AGENT_MAX_ROWS), "the most rows such a query may return, whatever its LIMIT "
	 "says; the rows shown are kept, with a warning", NULL,
	 "takes a number of rows from {range}", NULL, 0, NULL, NULL},
	{"chat.max_value", SET_LONG, AS(max_value), 1000, 1000000000, NULL, "BYTES",
	 SETTING_STR(AGENT_MAX_VALUE), "the most bytes one value of such a query may take "
	 "(SQLite's length limit), so that an aggregate or a function such as randomblob() "
	 "cannot produce a huge value", NULL, "takes a number of bytes from {range}",
	 NULL, 0, NULL, NULL},
};

const SetTable agent_settings_table = {
	"Chat mode", NULL, "chat.", agent_rows, (int)(sizeof agent_rows / sizeof *agent_rows),
	NULL,
};

SuqlStatus agent_set(Agent *a, const char *key, const char *value, SuqlErr *err)
{
	return setting_set(&agent_settings_table, a, key, value, err);
}

/* ---- the dialogue ---- */

static void put_field(FILE *out, const char *label, const char *text)
{
	fprintf(out, "    %-7s", label);
	for (const char *p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fputs("           ", out);
	}
	fputc('\n', out);
}

void agent_history(const Agent *a, FILE *out)
{
	if (!a || a->nturns == 0) {
		fputs("no conversation yet\n", out);
		return;
	}
	for (int i = 0; i < a->nturns; i++) {
		const AgentTurn *t = &a->turns[i];
		fprintf(out, "%d.  you:   %s\n", i + 1, t->user);
		if (t->relaxed_from)
			put_field(out, "first:", t->relaxed_from);
		if (t->suql) {
			put_field(out, "suql:", t->suql);
			char rows[64];
			snprintf(rows, sizeof rows, "%ld", t->rows.count);
			put_field(out, "rows:", rows);
		}
		if (t->also_tried)
			put_field(out, "also:", t->also_tried);
		if (t->tried)
			put_field(out, "tried:", t->tried);
		if (t->error)
			put_field(out, "error:", t->error);
		if (t->reply)
			put_field(out, "reply:", t->reply);
	}
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

SuqlStatus agent_save(const Agent *a, const char *path, SuqlErr *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return err_set(err, SUQL_IO, "cannot write %s: %s", path, strerror(errno));
	int bad = 0;
	for (int i = 0; a && i < a->nturns && !bad; i++) {
		const AgentTurn *t = &a->turns[i];
		json_t *o = json_object();
		json_object_set_new(o, "turn", json_integer(i + 1));
		json_object_set_new(o, "user", json_string(t->user));
		json_object_set_new(o, "database", json_boolean(t->database));
		if (t->database) {
			json_object_set_new(o, "suql", str_or_null(t->suql));
			if (t->relaxed_from)
				json_object_set_new(o, "relaxed_from", json_string(t->relaxed_from));
			if (t->also_tried)
				json_object_set_new(o, "also_tried", json_string(t->also_tried));
			if (t->tried)
				json_object_set_new(o, "tried", json_string(t->tried));
			json_object_set_new(o, "repaired", json_boolean(t->repaired));
			json_t *cols = json_array();
			for (int c = 0; c < t->rows.ncols; c++)
				json_array_append_new(cols, json_string(t->rows.cols[c]));
			json_object_set_new(o, "columns", cols);
			json_object_set_new(o, "rows", json_copy(t->rows.rows));
			json_object_set_new(o, "row_count", json_integer(t->rows.count));
			json_object_set_new(o, "rows_omitted", json_integer(t->rows.omitted));
			json_object_set_new(o, "digest", str_or_null(t->digest));
		}
		json_object_set_new(o, "reply", str_or_null(t->reply));
		if (t->error)
			json_object_set_new(o, "error", json_string(t->error));
		bad = json_dumpf(o, f, AGENT_JSON) != 0 || fputc('\n', f) == EOF;
		json_decref(o);
	}
	if (fclose(f) != 0 || bad)
		return err_set(err, SUQL_IO, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
	return SUQL_OK;
}
