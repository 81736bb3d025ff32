/*
 * meta_log.c: :log, the request log read back (llm/llm_log.c keeps it): the newest entries
 * first, as blocks a person reads (the prompt and the reply cut to a few lines' length,
 * every text made safe for the terminal through base/vis.h) or, with --json, one JSON
 * object a line with every column and the full texts (the prompt as the JSON it is),
 * escaped to ASCII so that nothing in it reaches a terminal as a control sequence.
 * :log clear deletes every entry.
 */
#include "base/vis.h"
#include "cli/meta.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Entries :log shows without -n. */
#define LOG_SHOW 10
/* Characters of a prompt's message, and of a reply, shown in a block. */
#define LOG_CUT_PROMPT 160
#define LOG_CUT_REPLY 300

static const char *col(const LlmLogRows *r, int row, const char *name)
{
	for (int i = 0; i < llm_log_ncolumns; i++)
		if (strcmp(llm_log_columns[i].name, name) == 0)
			return r->v[(size_t)row * (size_t)llm_log_ncolumns + (size_t)i];
	return NULL;
}

static long num(const LlmLogRows *r, int row, const char *name)
{
	const char *v = col(r, row, name);
	return v ? strtol(v, NULL, 10) : 0;
}

/* s on one line, cut to at most max characters (with how many were left out), made safe
   to show: runs of blanks and line breaks as one blank, other controls as ^X (vis.h). */
static void put_cut(SBuf *out, const char *s, long max)
{
	SBuf flat = SBUF_INIT;
	long chars = 0, total = 0;
	size_t n = strlen(s), keep = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (k == 0)
			k = 1;
		int blank = cp == ' ' || cp == '\n' || cp == '\r' || cp == '\t';
		if (!(blank && flat.len && flat.s[flat.len - 1] == ' ')) {
			total++;
			if (chars < max) {
				if (blank)
					sb_putc(&flat, ' ');
				else
					sb_putn(&flat, s + i, k);
				chars++;
				keep = flat.len;
			}
		}
		i += k;
	}
	vis_put(out, flat.s ? flat.s : "", keep, 0);
	if (total > chars)
		sb_printf(out, " ... (%ld characters more)", total - chars);
	sb_free(&flat);
}

/* The prompt as a block shows it: each message "role: content", or the text. */
static void put_prompt(SBuf *out, const char *prompt)
{
	json_t *j = json_loads(prompt, JSON_DECODE_ANY, NULL);
	if (json_is_array(j) && json_array_size(j) > 0 &&
	    json_is_object(json_array_get(j, 0))) {
		for (size_t i = 0; i < json_array_size(j); i++) {
			json_t *m = json_array_get(j, i);
			const char *role = json_string_value(json_object_get(m, "role"));
			const char *content = json_string_value(json_object_get(m, "content"));
			sb_puts(out, i ? "\n            " : "");
			put_cut(out, role ? role : "?", 20);
			sb_puts(out, ": ");
			put_cut(out, content ? content : "", LOG_CUT_PROMPT);
		}
	} else if (json_is_string(j)) {
		put_cut(out, json_string_value(j), LOG_CUT_PROMPT);
	} else {
		put_cut(out, prompt, 2 * LOG_CUT_PROMPT);
	}
	json_decref(j);
}

/* What carried the entry: the request (why it was sent, its HTTP status and latency), or
   why none went over the wire. */
static void put_request(SBuf *out, const LlmLogRows *r, int i)
{
	const char *status = col(r, i, "status"), *bulk = col(r, i, "bulk");
	const char *backend = col(r, i, "backend"), *reason = col(r, i, "reason");
	const char *http = col(r, i, "http"), *ms = col(r, i, "ms");
	long items = num(r, i, "items");
	if (strcmp(status, "cached") == 0)
		sb_puts(out, "none: answered from the cache file (no request went over the wire)");
	else if (strcmp(backend, "offline") == 0)
		sb_puts(out, "none: the offline backend answered (nothing went over the wire)");
	else if (strcmp(status, "collected") == 0)
		sb_printf(out, "none yet: collected for batch %s", bulk ? bulk : "(not made)");
	else if (!reason && bulk)
		sb_printf(out, "none now: answered by batch %s", bulk);
	else
		sb_printf(out, "%s (%s%s%sin %.0f ms)", reason ? reason : "sent", http ? "HTTP " : "",
		          http ? http : "", http ? " " : "", ms ? strtod(ms, NULL) : 0);
	if (items)
		sb_printf(out, ", %ld candidate%s", items, items == 1 ? "" : "s");
}

static void put_block(SBuf *out, const LlmLogRows *r, int i)
{
	const char *v;
	sb_printf(out, "#%s  %s  %s  %s  (statement %s)\n", col(r, i, "id"), col(r, i, "time"),
	          col(r, i, "kind"), col(r, i, "status"), col(r, i, "statement"));
	if ((v = col(r, i, "chat")) != NULL) {
		sb_puts(out, "  chat:     ");
		put_cut(out, v, LOG_CUT_PROMPT);
		sb_putc(out, '\n');
	}
	if ((v = col(r, i, "sql")) != NULL) {
		sb_puts(out, "  sql:      ");
		put_cut(out, v, LOG_CUT_PROMPT);
		sb_putc(out, '\n');
	}
	sb_puts(out, "  model:    ");
	put_cut(out, col(r, i, "model") ? col(r, i, "model") : "(none)", 80);
	if ((v = col(r, i, "endpoint")) != NULL) {
		sb_puts(out, " at ");
		put_cut(out, v, 120);
	}
	sb_puts(out, "\n  request:  ");
	put_request(out, r, i);
	sb_putc(out, '\n');
	long in = num(r, i, "tokens_in"), outt = num(r, i, "tokens_out");
	if (in || outt) {
		sb_printf(out, "  tokens:   %ld in (%ld cached), %ld out (%ld reasoning)%s", in,
		          num(r, i, "tokens_cached"), outt, num(r, i, "tokens_reasoning"),
		          num(r, i, "tokens_estimated") ? ", estimated" : "");
		if ((v = col(r, i, "usd")) != NULL) {
			sb_puts(out, ": ");
			llm_money(out, strtod(v, NULL));
		}
		sb_putc(out, '\n');
	}
	if ((v = col(r, i, "prompt")) != NULL) {
		sb_puts(out, "  prompt:   ");
		put_prompt(out, v);
		sb_putc(out, '\n');
	}
	if ((v = col(r, i, "reply")) != NULL) {
		sb_puts(out, "  reply:    ");
		put_cut(out, v, LOG_CUT_REPLY);
		sb_putc(out, '\n');
	}
	if ((v = col(r, i, "error")) != NULL) {
		sb_puts(out, "  error:    ");
		put_cut(out, v, LOG_CUT_REPLY);
		sb_putc(out, '\n');
	}
}

/* One entry as one line of JSON: every column, numbers bare, the prompt as the JSON it
   holds (text when it holds none). ASCII only (\uXXXX), DEL escaped too: safe anywhere,
   and exact once decoded. */
static void put_json(SBuf *out, const LlmLogRows *r, int i)
{
	json_t *o = json_object();
	for (int c = 0; c < llm_log_ncolumns; c++) {
		const char *name = llm_log_columns[c].name;
		const char *v = r->v[(size_t)i * (size_t)llm_log_ncolumns + (size_t)c];
		json_t *j = NULL;
		if (!v)
			j = json_null();
		else if (llm_log_columns[c].number)
			j = strpbrk(v, ".eE") ? json_real(strtod(v, NULL))
			                      : json_integer(strtoll(v, NULL, 10));
		else if (strcmp(name, "prompt") == 0)
			j = json_loads(v, JSON_DECODE_ANY, NULL);
		if (!j)
			j = json_string(v);
		if (!j)   /* not UTF-8: its bytes as the prompts send them */
			j = json_stringn_nocheck(v, strlen(v));
		json_object_set_new(o, name, j);
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	json_decref(o);
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == 0x7f)
			sb_puts(out, "\\u007f");
		else
			sb_putc(out, *p);
	}
	sb_putc(out, '\n');
	free(s);
}

SuqlStatus meta_log(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	int n = LOG_SHOW, json = 0;
	if (argc == 2 && strcmp(argv[1], "clear") == 0) {
		long long removed;
		if (llm_log_clear(env->llm, &removed, err) != SUQL_OK)
			return err->code;
		fprintf(env->out, "request log cleared (%lld entr%s)\n", removed,
		        removed == 1 ? "y" : "ies");
		return SUQL_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i] || v < 1 || v > 1000000)
				return err_set(err, SUQL_USAGE, ":log -n takes a number of entries from 1 "
				               "to 1000000, not '%s'", argv[i]);
			n = (int)v;
		} else {
			return err_set(err, SUQL_USAGE, "usage: :log [-n N] [--json], or :log clear");
		}
	}
	LlmLogRows rows;
	if (llm_log_read(env->llm, n, &rows, err) != SUQL_OK)
		return err->code;
	SBuf b = SBUF_INIT;
	for (int i = 0; i < rows.n; i++) {
		if (json)
			put_json(&b, &rows, i);
		else {
			if (i)
				sb_putc(&b, '\n');
			put_block(&b, &rows, i);
		}
	}
	fputs(sb_str(&b), env->out);
	sb_free(&b);
	if (!json) {
		const char *path = llm_log_path(env->llm);
		if (rows.n == 0)
			fprintf(env->err, "the request log is empty (%s)\n", path);
		else if (rows.total > rows.n)
			fprintf(env->err, "(the newest %d of %lld entries of %s; :log -n N shows more)\n",
			        rows.n, rows.total, path);
	}
	llm_log_rows_free(&rows);
	return SUQL_OK;
}
