/*
 * agent_prompt.c: the messages the chat agent sends. A step's wording is a template in
 * prompts/chat_*.txt (built in; --prompts DIR overrides it file by file), in sections marked
 * [system], [user] and [assistant] on lines of their own, with {{placeholders}} filled by
 * prompt_render. This file also writes the two texts most placeholders carry: the schema
 * (SUQL DDL of the tables, their descriptions, notes on the values of short columns) and the
 * dialogue so far (each turn's text, query, result digest and reply).
 */
#include "base/vis.h"
#include "chat/agent_int.h"

#include "llm/prompt.h"
#include "store/catalog.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- messages and placeholders ---- */

void agent_msgs_add(AgentMsgs *m, const char *role, const char *text)
{
	if (m->n >= AGENT_MAX_MSGS)
		return;
	m->text[m->n] = xstrdup(text);
	m->v[m->n].role = role;
	m->v[m->n].content = m->text[m->n];
	m->n++;
}

void agent_msgs_free(AgentMsgs *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->text[i]);
	m->n = 0;
}

void agent_kv(AgentKv *kv, const char *key, const char *value)
{
	for (int i = 0; i < kv->n; i++)
		if (strcmp(kv->kv[2 * i], key) == 0) {
			kv->kv[2 * i + 1] = value;
			return;
		}
	if (kv->n >= AGENT_MAX_KV)
		return;
	kv->kv[2 * kv->n] = key;
	kv->kv[2 * kv->n + 1] = value;
	kv->n++;
}

char *agent_prompt_text(const Agent *a, const char *name, const AgentKv *kv, SuqlErr *err)
{
	char *tmpl = prompt_get(llm_prompts_dir(a->host->llm(a->host->ctx)), name, err);
	if (!tmpl)
		return NULL;
	char *text = prompt_render(tmpl, kv->kv, kv->n);
	free(tmpl);
	return text;
}

static void add_part(AgentMsgs *m, const char *role, const char *s, size_t n)
{
	str_trim(&s, &n);
	if (!n)
		return;
	char *t = xstrndup(s, n);
	agent_msgs_add(m, role, t);
	free(t);
}

SuqlStatus agent_prompt(const Agent *a, const char *name, const AgentKv *kv, AgentMsgs *m,
                        SuqlErr *err)
{
	/* Split the template before filling it (prompt_split), so that a marker inside a value
	   (the user may type "[system]") is only text. */
	char *tmpl = prompt_get(llm_prompts_dir(a->host->llm(a->host->ctx)), name, err);
	if (!tmpl)
		return err->code ? err->code : SUQL_IO;
	PromptPart parts[PROMPT_MAX_PARTS];
	int np = prompt_split(tmpl, parts, PROMPT_MAX_PARTS);
	for (int i = 0; i < np; i++) {
		char *text = prompt_render(parts[i].text, kv->kv, kv->n);
		add_part(m, parts[i].role, text, strlen(text));
		free(text);
		free(parts[i].text);
	}
	free(tmpl);
	return SUQL_OK;
}

/* ---- the schema ---- */

static int listed(const char *tables, const char *name)
{
	if (!tables || !*tables)
		return 1;
	size_t n = strlen(name);
	for (const char *p = tables; *p;) {
		while (*p == ',' || *p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		size_t k = (size_t)(e - p);
		while (k && p[k - 1] == ' ')
			k--;
		if (k == n && strncasecmp(p, name, n) == 0)
			return 1;
		p = e;
	}
	return 0;
}

/* Up to max bytes of s, cut after a word, with "..." when cut. */
static void put_cut(SBuf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n <= max) {
		for (size_t i = 0; i < n; i++)
			sb_putc(b, s[i] == '\n' ? ' ' : s[i]);
		return;
	}
	size_t k = max;
	while (k > max / 2 && s[k] != ' ')
		k--;
	for (size_t i = 0; i < k; i++)
		sb_putc(b, s[i] == '\n' ? ' ' : s[i]);
	sb_puts(b, " ...");
}

/* The table's description from suql_table_info (the HybridQA tables have one): its title and
   section, then the start of its text. */
static char *description(Store *st, const char *table, int info)
{
	if (!info)
		return NULL;
	StoreCursor *c;
	SuqlErr err = {0};
	const char *args[] = {table};
	char *out = NULL;
	if (store_query(st, "SELECT title, section_title, section_text, intro FROM "
	                "suql_table_info WHERE tbl = ?1", args, 1, &c, &err) != SUQL_OK) {
		err_clear(&err);
		return NULL;
	}
	if (store_next(c) > 0) {
		SBuf b = SBUF_INIT;
		const char *f[4];
		for (int i = 0; i < 4; i++) {
			f[i] = store_text(c, i);
			if (f[i] && !*f[i])
				f[i] = NULL;
		}
		if (f[0])
			sb_puts(&b, f[0]);
		if (f[1])
			sb_printf(&b, "%s%s", b.len ? " -- " : "", f[1]);
		if (f[2] || f[3]) {
			sb_puts(&b, b.len ? ". " : "");
			put_cut(&b, f[2] ? f[2] : f[3], 300);
		}
		if (b.len)
			out = sb_steal(&b);
		sb_free(&b);
	}
	store_done(c);
	return out;
}

/* Whether s is valid UTF-8 on one line (no control character, no line or paragraph
   separator), as a value shown in the schema must be. */
static int one_line(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		long cp;
		size_t k = vis_utf8(s + i, n - i, &cp);
		if (cp < 0x20 || cp == 0x7f || cp == 0x85 || cp == 0x2028 || cp == 0x2029)
			return 0;
		i += k;
	}
	return 1;
}

/* The most frequent values of a short text or list column (in its first 20000 rows), as
   a note: "-- location: one of 'Palo Alto', ..." when there are at most 10 of them,
   "-- cuisines: values such as 'sushi', ... (34 values)" for an open enum or a list. */
static void value_note(Store *st, const char *table, const CatColumn *c, SBuf *out)
{
	StoreCursor *cur;
	SuqlErr err = {0};
	SuqlStatus qs = store_top_values(st, table, c->column, c->is_array, &cur, &err);
	err_clear(&err);
	if (qs != SUQL_OK)
		return;
	SBuf v = SBUF_INIT;
	int n = 0, total = 0, too_long = 0;
	while (store_next(cur) > 0) {
		const char *s = store_text(cur, 0);
		total = (int)store_integer(cur, 2);
		if (!s || strlen(s) > 40 || !one_line(s)) {
			too_long = 1;   /* no note: a value's text never starts a line of the prompt */
			break;
		}
		if (n < 10) {
			sb_puts(&v, n ? ", " : "");
			sb_put_sqlstr(&v, s, strlen(s));
		}
		n++;
	}
	store_done(cur);
	int open_list = c->is_enum || c->is_array;
	if (n && !too_long && total <= 10)
		sb_printf(out, "--   %s: one of %s\n", c->column, v.s);
	else if (n && !too_long && open_list)
		sb_printf(out, "--   %s: values such as %s (%d values)\n", c->column, v.s, total);
	sb_free(&v);
}

static void table_schema(Store *st, const char *table, int info, SBuf *out)
{
	CatColumn *cols = NULL;
	int n = 0;
	SuqlErr err = {0};
	if (catalog_table(st, table, &cols, &n, &err) != SUQL_OK) {
		err_clear(&err);
		return;
	}
	char *desc = description(st, table, info);
	char *ddl = NULL;
	if (desc)
		sb_printf(out, "-- %s\n", desc);
	if (catalog_ddl(st, table, 10, &ddl, &err) == SUQL_OK)
		sb_printf(out, "%s\n", ddl);
	free(ddl);
	SBuf notes = SBUF_INIT;
	for (int i = 0; i < n; i++) {
		const CatColumn *c = &cols[i];
		const char *ty = c->type ? c->type : "";
		int texty = !*ty || str_icontains(ty, "TEXT") || str_icontains(ty, "CHAR") ||
		            str_icontains(ty, "CLOB");
		if (c->free_text || (c->is_enum && c->enum_values) ||
		    (!c->is_enum && !c->is_array && !texty))
			continue;
		value_note(st, table, c, &notes);
	}
	if (notes.len)
		sb_printf(out, "-- values in %s:\n%s", table, notes.s);
	sb_free(&notes);
	sb_putc(out, '\n');
	free(desc);
	catalog_columns_free(cols, n);
	err_clear(&err);
}

char *agent_schema(Store *st, const char *tables)
{
	SBuf out = SBUF_INIT;
	int info = store_has_table(st, "suql_table_info");
	StoreTable *t;
	int n;
	if (store_tables(st, &t, &n, NULL) == SUQL_OK) {
		for (int i = 0; i < n; i++)
			/* a table of evaluation labels is an answer key: never shown (its queries are
			   refused too, engine_set_readonly) */
			if (!t[i].view && listed(tables, t[i].name) && !catalog_is_labels(st, t[i].name))
				table_schema(st, t[i].name, info, &out);
		store_tables_free(t, n);
	}
	while (out.len && out.s[out.len - 1] == '\n')
		sb_truncate(&out, out.len - 1);
	if (!out.len)
		sb_puts(&out, "(the database has no tables)");
	return sb_steal(&out);
}

/* ---- the dialogue ---- */

char *agent_dialogue(const Agent *a)
{
	SBuf b = SBUF_INIT;
	int from = a->nturns - a->context;
	if (from < 0)
		from = 0;
	if (from > 0)
		sb_printf(&b, "(%d earlier turn%s left out)\n\n", from, from == 1 ? "" : "s");
	for (int i = from; i < a->nturns; i++) {
		const AgentTurn *t = &a->turns[i];
		sb_printf(&b, "User: %s\n", t->user);
		if (t->relaxed_from)
			sb_printf(&b, "SUQL (found nothing): %s\n", t->relaxed_from);
		if (t->suql) {
			sb_printf(&b, "SUQL: %s\n", t->suql);
			sb_printf(&b, "Result: %s%s\n", t->digest ? t->digest : "no rows",
			          t->limited && t->rows.count >= t->limited
			          ? " (cut at the default LIMIT; there may be more)" : "");
		}
		if (t->also_tried)
			sb_printf(&b, "Also tried, found nothing either: %s\n", t->also_tried);
		if (t->error) {
			sb_puts(&b, "Failed: ");
			put_cut(&b, t->error, 300);
			sb_putc(&b, '\n');
		}
		if (t->reply) {
			sb_puts(&b, "Agent: ");
			put_cut(&b, t->reply, 800);
			sb_putc(&b, '\n');
		}
		sb_putc(&b, '\n');
	}
	while (b.len && b.s[b.len - 1] == '\n')
		sb_truncate(&b, b.len - 1);
	if (!b.len)
		sb_puts(&b, "(none: this is the first message)");
	return sb_steal(&b);
}
