/*
 * llm_extract.c: the requests and replies of extract() (LLM_EXTRACT): several typed fields
 * from each candidate's text in one call. The call's question is the spec in its canonical
 * form (spec.h); each request parses it again, so a call carries no state of its own.
 *
 * A request is always the batch form (one candidate is a batch of one): the instructions and
 * the fields first, the fields and the candidates' texts as JSON (strings inside JSON lists,
 * never pasted under headings of their own), the texts last (prompts/extract.txt); and the
 * JSON schema of the reply goes along as the request's response_format. A reply is read by
 * the rules of spec.h: {"answers": [...]} with one object per candidate (a single candidate
 * may also be answered by its bare object); an object that does not fit the spec leaves its
 * candidate unread, to be asked again and never cached (llm.c).
 */
#include "base/util.h"
#include "llm/llm_int.h"
#include "llm/prompt.h"
#include "llm/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *joined(const LlmItem *it)
{
	SBuf b = SBUF_INIT;
	for (int p = 0; p < it->npassages; p++) {
		if (p)
			sb_puts(&b, "\n\n");
		sb_puts(&b, it->passages[p] ? it->passages[p] : "");
	}
	return sb_steal(&b);
}

json_t *llmx_messages(Llm *llm, const LlmCall *c, const int *items, int n)
{
	json_t *arr = json_array();
	Spec sp;
	SuqlErr err = {0};
	if (spec_parse(c->question ? c->question : "", &sp, &err) != SUQL_OK) {
		err_clear(&err);
		return arr;   /* the engine parsed it first: not reached */
	}
	int one = 0;
	if (n < 1) {
		items = &one;
		n = 1;
	}
	json_t *texts = json_array();
	for (int i = 0; i < n; i++) {
		char *t = joined(&c->items[items[i]]);
		json_array_append_new(texts, json_string(t));
		free(t);
	}
	json_t *fields = spec_fields_json(&sp);
	json_t *keys = json_array();
	for (int i = 0; i < sp.n; i++)
		json_array_append_new(keys, json_string(sp.f[i].name));
	if (c->quotes)
		json_array_append_new(keys, json_string(SPEC_QUOTES_KEY));
	char *ct = json_dumps(texts, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	char *ft = json_dumps(fields, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	char *kt = json_dumps(keys, JSON_COMPACT);
	char count[16];
	snprintf(count, sizeof count, "%d", n);
	const char *quotes = c->quotes
		? " The key \"" SPEC_QUOTES_KEY "\" holds an object with one key per field: the "
		  "exact words of the text that give the field's value, copied as they stand, or null."
		: "";
	const char *kv[] = {"count", count, "fields", ft, "keys", kt, "quotes", quotes,
	                    "candidates", ct};
	char *text = prompt_render(llm->tmpl[LLM_T_EXTRACT], kv, 5);
	char *s = strstr(text, "[system]"), *u = strstr(text, "[user]");
	if (s && u && s < u) {
		const char *a = s + 8;
		size_t an = (size_t)(u - a);
		str_trim(&a, &an);
		json_array_append_new(arr, json_pack("{s:s, s:s%}", "role", "system", "content", a,
		                                     an));
	}
	const char *b = u ? u + 6 : text;
	size_t bn = strlen(b);
	str_trim(&b, &bn);
	json_array_append_new(arr, json_pack("{s:s, s:s%}", "role", "user", "content", b, bn));
	free(text);
	free(ct);
	free(ft);
	free(kt);
	json_decref(texts);
	json_decref(fields);
	json_decref(keys);
	spec_free(&sp);
	return arr;
}

json_t *llmx_reply_schema(const LlmCall *c, int n)
{
	Spec sp;
	SuqlErr err = {0};
	if (spec_parse(c->question ? c->question : "", &sp, &err) != SUQL_OK) {
		err_clear(&err);
		return NULL;
	}
	if (n < 1)
		n = 1;
	json_t *one = spec_schema(&sp, c->quotes);
	spec_free(&sp);
	return json_pack("{s:s, s:{s:{s:s, s:o, s:i, s:i}}, s:[s], s:b}", "type", "object",
	                 "properties", "answers", "type", "array", "items", one, "minItems", n,
	                 "maxItems", n, "required", "answers", "additionalProperties", 0);
}

static void set_text(LlmItem *it, const char *t)
{
	free(it->text);
	it->text = xstrdup(t ? t : "");
}

/* Read one candidate's object; 0 read, -1 not. */
static int read_one(const Spec *sp, LlmCall *call, LlmItem *it, json_t *o)
{
	char *d = json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY);
	set_text(it, d ? d : "?");
	free(d);
	char *out, *why;
	if (!spec_check(sp, o, call->quotes, it->passages, it->npassages, &out, &why)) {
		free(why);
		return -1;
	}
	free(it->value);
	free(it->warning);
	it->value = out;
	it->warning = NULL;
	it->unreadable = 0;
	return 0;
}

int llmx_read_reply(LlmCall *call, const int *items, int n, const char *content, int *bad)
{
	int one = 0;
	if (n < 1) {
		items = &one;
		n = 1;
	}
	Spec sp;
	SuqlErr err = {0};
	int nbad = 0;
	json_t *j = llmp_lenient_json(content);
	json_t *arr = json_is_object(j) ? json_object_get(j, "answers") : json_is_array(j) ? j : NULL;
	if (spec_parse(call->question ? call->question : "", &sp, &err) != SUQL_OK) {
		err_clear(&err);
		arr = NULL;
		sp.n = 0;
		sp.f = NULL;
	} else if (!arr && n == 1 && json_is_object(j)) {   /* a bare object for one text */
		if (read_one(&sp, call, &call->items[items[0]], j) < 0)
			bad[nbad++] = 0;
		json_decref(j);
		spec_free(&sp);
		return nbad;
	}
	if (!json_is_array(arr) || json_array_size(arr) != (size_t)n) {
		for (int i = 0; i < n; i++) {
			set_text(&call->items[items[i]], content);
			bad[nbad++] = i;
		}
	} else {
		for (int i = 0; i < n; i++)
			if (read_one(&sp, call, &call->items[items[i]], json_array_get(arr, (size_t)i)) < 0)
				bad[nbad++] = i;
	}
	json_decref(j);
	spec_free(&sp);
	return nbad;
}
