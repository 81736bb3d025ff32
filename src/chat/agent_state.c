/*
 * agent_state.c: the chat agent's state between turns: made (agent_new) and freed, its
 * chat.* settings, and its dialogue listed (:history) and saved as JSONL (:save FILE).
 */
#include "chat/agent_int.h"

#include <errno.h>
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

typedef enum {
	CS_LIMIT, CS_RELAX, CS_CONTEXT, CS_BYTES, CS_TABLES, CS_EXAMPLES, CS_TIMEOUT, CS_ROWS,
	CS_VALUE
} ChatKey;

static const struct {
	const char *key;
	ChatKey k;
} chat_keys[] = {
	{"chat.limit", CS_LIMIT}, {"chat.relax", CS_RELAX}, {"chat.context", CS_CONTEXT},
	{"chat.result_bytes", CS_BYTES}, {"chat.tables", CS_TABLES},
	{"chat.examples", CS_EXAMPLES},
	{"chat.timeout", CS_TIMEOUT}, {"chat.max_rows", CS_ROWS}, {"chat.max_value", CS_VALUE},
};
#define NCHAT ((int)(sizeof chat_keys / sizeof *chat_keys))

int agent_is_setting(const char *key)
{
	return strncasecmp(key, "chat.", 5) == 0;
}

static int number(const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi)
		return 0;
	*out = n;
	return 1;
}

/* chat.examples FILE: few-shot examples written for this database, read now and shown in
   the parse and relax prompts after the built-in ones; "none" (or "") forgets them. */
static SuqlStatus set_examples(Agent *a, const char *value, SuqlErr *err)
{
	char *text = NULL;
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

SuqlStatus agent_set(Agent *a, const char *key, const char *value, SuqlErr *err)
{
	int i = 0;
	while (i < NCHAT && !str_ieq(key, chat_keys[i].key))
		i++;
	if (i == NCHAT)
		return err_set(err, SUQL_USAGE, "unknown setting '%s' (chat.limit, chat.relax, "
		               "chat.context, chat.result_bytes, chat.tables, chat.examples, "
		               "chat.timeout, chat.max_rows, chat.max_value)", key);
	long n;
	switch (chat_keys[i].k) {
	case CS_LIMIT:
		if (!number(value, 0, 100000, &n))
			return err_set(err, SUQL_USAGE, "chat.limit takes a number of rows from 0 (no "
			               "default LIMIT) to 100000, not '%s'", value);
		a->limit = (int)n;
		break;
	case CS_RELAX:
		if (!str_parse_bool(value, &a->relax) && !number(value, 0, AGENT_RELAX_MAX, &n))
			return err_set(err, SUQL_USAGE, "chat.relax takes on, off or a number of tries "
			               "from 0 to %d, not '%s'", AGENT_RELAX_MAX, value);
		if (!str_parse_bool(value, &a->relax))
			a->relax = (int)n;
		break;
	case CS_CONTEXT:
		if (!number(value, 0, 1000, &n))
			return err_set(err, SUQL_USAGE, "chat.context takes a number of turns from 0 to "
			               "1000, not '%s'", value);
		a->context = (int)n;
		break;
	case CS_BYTES:
		if (!number(value, 200, 10000000, &n))
			return err_set(err, SUQL_USAGE, "chat.result_bytes takes a number of bytes from "
			               "200 to 10000000, not '%s'", value);
		a->result_bytes = (size_t)n;
		break;
	case CS_TABLES:
		free(a->tables);
		a->tables = *value && !str_ieq(value, "all") ? xstrdup(value) : NULL;
		break;
	case CS_EXAMPLES:
		return set_examples(a, value, err);
	case CS_TIMEOUT: {
		char *end;
		errno = 0;
		double d = strtod(value, &end);
		if (!*value || *end || errno || !(d > 0 && d <= 1e6))
			return err_set(err, SUQL_USAGE, "chat.timeout takes a number of seconds above 0 "
			               "(a query the model wrote always has a limit), not '%s'", value);
		a->timeout = d;
		break;
	}
	case CS_ROWS:
		if (!number(value, 1, 100000000, &n))
			return err_set(err, SUQL_USAGE, "chat.max_rows takes a number of rows from 1 to "
			               "100000000, not '%s'", value);
		a->max_rows = n;
		break;
	case CS_VALUE:
		if (!number(value, 1000, 1000000000, &n))
			return err_set(err, SUQL_USAGE, "chat.max_value takes a number of bytes from "
			               "1000 to 1000000000, not '%s'", value);
		a->max_value = n;
		break;
	}
	return SUQL_OK;
}

void agent_settings(const Agent *a, SBuf *out)
{
	sb_printf(out, "chat.limit = %d\n", a->limit);
	if (a->relax <= 1)
		sb_printf(out, "chat.relax = %s\n", a->relax ? "on" : "off");
	else
		sb_printf(out, "chat.relax = %d\n", a->relax);
	sb_printf(out, "chat.context = %d\n", a->context);
	sb_printf(out, "chat.result_bytes = %zu\n", a->result_bytes);
	sb_printf(out, "chat.tables = %s\n", a->tables ? a->tables : "all");
	sb_printf(out, "chat.examples = %s\n", a->examples_path ? a->examples_path : "none");
	sb_printf(out, "chat.timeout = %g\n", a->timeout);
	sb_printf(out, "chat.max_rows = %ld\n", a->max_rows);
	sb_printf(out, "chat.max_value = %ld\n", a->max_value);
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
