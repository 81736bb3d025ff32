/*
 * llm_prompt.c: from tasks to chat requests (llm_reply.c reads the replies).
 *
 * The wording lives in the files of prompts/ (built in; --prompts DIR overrides file by file). A
 * template has an optional "[system]" section and a "[user]" section, each marker alone on its
 * line (a file with neither marker is all user message), and {{placeholders}}: text,
 * candidates, count, question, condition, format, words, subject, options, left. A call with
 * one candidate uses the single form (verify.txt ...); several use the batch form
 * (verify_batch.txt ...), which asks for {"answers": [...]} with one entry per candidate.
 * PARSE and RESPOND send the caller's messages verbatim. A VERIFY call with a subject is a
 * semantic join's (matches()): the subject is the left value, each candidate a right value,
 * and the match templates ask whether the question holds for the pair.
 *
 * The shape of a prompt (every request kind follows it; doc/llm.md says the same):
 *   - Data stays data. A template is split into its messages (prompt_split) BEFORE any value
 *     is filled in, and every piece of outside text is filled in as JSON: a candidate's text,
 *     the question, the left value and the literal as one JSON string each ({{text}},
 *     {{question}}, {{left}}, {{subject}}), the candidates and the permitted values as a JSON
 *     list ({{candidates}}, {{options}}: one string per line), the values of a condition or
 *     a constrained answer as JSON strings. A JSON string holds no line break, so no line of
 *     the data can read as a heading, a [system] marker or a fence of the template; the
 *     count of candidates is the length of the list, whatever their texts say.
 *   - Text that is not valid UTF-8 is sent with each invalid byte replaced by U+FFFD (the
 *     cache key is computed from the same request); a message that still cannot be encoded
 *     makes no request (llmp_chat_body returns NULL).
 *   - The prefix a provider can cache comes first: the instructions, the question, the
 *     condition and the answer format; the candidates (or the text, or the literal) last.
 *     A request in OpenAI's dialect names its prefix with a prompt_cache_key
 *     (llmp_cache_key: the template and the question, nothing a table holds), so that a
 *     provider that routes by key sends a statement's requests to the cache holding it.
 */
#include "base/util.h"
#include "llm/llm_int.h"
#include "base/vis.h"
#include "llm/prompt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tmpl_names[LLM_T_N] = {
	"verify", "verify_batch", "answer", "answer_batch", "summary", "summary_batch", "classify",
	"match", "match_batch", "verify2", "verify2_batch", "extract",
	"factor", "match_pairs",
};

SuqlStatus llmp_load(Llm *llm, SuqlErr *err)
{
	for (int i = 0; i < LLM_T_N; i++) {
		llm->tmpl[i] = prompt_get(llm->s.prompts_dir, tmpl_names[i], err);
		if (!llm->tmpl[i])
			return SUQL_IO;
	}
	return SUQL_OK;
}

void llmp_free(Llm *llm)
{
	for (int i = 0; i < LLM_T_N; i++) {
		free(llm->tmpl[i]);
		llm->tmpl[i] = NULL;
	}
}

/* ---- rendering ---- */

/* Append s as a JSON string: invalid UTF-8 replaced by U+FFFD, and the line and paragraph
   separators (U+2028, U+2029, U+0085), which JSON leaves as they are, escaped too, so that
   nothing of it can begin a line. */
static void put_json(SBuf *b, const char *s)
{
	char *fixed = vis_utf8_repair(s ? s : "");
	json_t *j = json_string(fixed);
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	for (const char *p = q ? q : "\"\""; *p; p++) {
		if ((unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
		    ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9)) {
			sb_printf(b, "\\u%04x", (unsigned char)p[2] == 0xA8 ? 0x2028 : 0x2029);
			p += 2;
		} else if ((unsigned char)p[0] == 0xC2 && (unsigned char)p[1] == 0x85) {
			sb_puts(b, "\\u0085");
			p += 1;
		} else {
			sb_putc(b, *p);
		}
	}
	free(q);
	json_decref(j);
	free(fixed);
}

/* A JSON list of strings, one a line. */
static void put_json_list(SBuf *b, const char *const *v, int n)
{
	sb_puts(b, "[");
	for (int i = 0; i < n; i++) {
		sb_puts(b, i ? ",\n" : "\n");
		put_json(b, v[i]);
	}
	sb_puts(b, n ? "\n]" : "]");
}

/* A candidate's text: its passages, a blank line apart. Heap string. */
static char *item_text(const LlmItem *it)
{
	SBuf b = SBUF_INIT;
	for (int p = 0; p < it->npassages; p++) {
		if (p)
			sb_puts(&b, "\n\n");
		sb_puts(&b, it->passages[p] ? it->passages[p] : "");
	}
	if (it->npassages == 0)
		sb_puts(&b, "(no text)");
	return sb_steal(&b);
}

static int is_yes_no(const char *v)
{
	return v && (str_ieq(v, "yes") || str_ieq(v, "no") || str_ieq(v, "true") ||
	             str_ieq(v, "false"));
}

static void put_value(SBuf *b, const char *v)
{
	if (is_yes_no(v)) {
		sb_puts(b, str_ieq(v, "yes") || str_ieq(v, "true") ? "yes" : "no");
		return;
	}
	put_json(b, v);
}
static void put_values(SBuf *b, const LlmCall *c)
{
	for (int i = 0; i < c->nexpected; i++) {
		if (i)
			sb_puts(b, i == c->nexpected - 1 ? " or " : ", ");
		put_value(b, c->expected[i]);
	}
}

static char *condition(const LlmCall *c)
{
	SBuf b = SBUF_INIT;
	const char *op = c->op ? c->op : "=";
	const char *e0 = c->nexpected ? c->expected[0] : "yes";
	if (c->nexpected == 0) {
		sb_puts(&b, "the answer to the question is yes");
	} else if (strcmp(op, "=") == 0 || strcmp(op, "==") == 0) {
		sb_puts(&b, "the answer to the question is ");
		put_value(&b, e0);
		if (!is_yes_no(e0))
			sb_puts(&b, " (or means the same)");
	} else if (strcmp(op, "<>") == 0 || strcmp(op, "!=") == 0) {
		if (is_yes_no(e0)) {
			sb_puts(&b, "the answer to the question is ");
			sb_puts(&b, str_ieq(e0, "yes") || str_ieq(e0, "true") ? "no" : "yes");
		} else {
			sb_puts(&b, "the answer to the question is something other than ");
			put_value(&b, e0);
		}
	} else if (str_ieq(op, "IN")) {
		sb_puts(&b, "the answer to the question is one of ");
		put_values(&b, c);
	} else if (str_ieq(op, "NOT IN")) {
		sb_puts(&b, "the answer to the question is none of ");
		put_values(&b, c);
	} else {
		sb_printf(&b, "the answer to the question, compared with ");
		put_values(&b, c);
		sb_printf(&b, ", satisfies %s", op);
	}
	return sb_steal(&b);
}

static const char *format_single(LlmShape s)
{
	switch (s) {
	case LLM_SHAPE_DATE:
		return "Reply with the date alone, written YYYY-MM-DD (if the text gives only the year, "
		       "write YYYY-01-01; only the month, its 1st day). If the text does not say, reply "
		       "unknown.";
	case LLM_SHAPE_INT:
		return "Reply with a whole number alone, in digits. If the text does not say, reply "
		       "unknown.";
	case LLM_SHAPE_REAL:
		return "Reply with a number alone, in digits (a decimal point is allowed). If the "
		       "text does not say, reply unknown.";
	case LLM_SHAPE_BOOL:
	case LLM_SHAPE_YESNO:
		return "Reply with yes or no alone.";
	case LLM_SHAPE_LIST:
		return "Reply with a JSON object {\"answer\": [...]} listing the answers as strings.";
	case LLM_SHAPE_JSON:
		return "Reply with a JSON object {\"answer\": ...} holding the answer.";
	default:
		return "Reply with the answer alone, in a few words or one sentence. If the text does "
		       "not say, reply unknown.";
	}
}

static const char *format_batch(LlmShape s)
{
	switch (s) {
	case LLM_SHAPE_DATE:
		return "each entry a date written \"YYYY-MM-DD\" (only the year known: YYYY-01-01), "
		       "or \"unknown\" when that candidate's text does not say";
	case LLM_SHAPE_INT:
		return "each entry a whole number, or \"unknown\" when that candidate's text does not "
		       "say";
	case LLM_SHAPE_REAL:
		return "each entry a number, or \"unknown\" when that candidate's text does not say";
	case LLM_SHAPE_BOOL:
	case LLM_SHAPE_YESNO:
		return "each entry \"yes\" or \"no\"";
	case LLM_SHAPE_LIST:
		return "each entry a list of strings";
	case LLM_SHAPE_JSON:
		return "each entry any JSON value";
	default:
		return "each entry the answer as a short string (a few words or one sentence), or "
		       "\"unknown\" when that candidate's text does not say";
	}
}

/* A constrained answer's format: the values offered (a JSON list), written as given, or
   none. */
static char *format_options(const LlmCall *c, int batch)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, batch ? "each entry exactly one of the values of this JSON list, written as "
	                    "given: "
	                  : "Reply with exactly one of the values of this JSON list, written as "
	                    "given: ");
	put_json_list(&b, c->options, c->noptions);
	sb_puts(&b, batch ? "\nor \"none\" when none of them applies or that candidate's text does "
	                    "not say"
	                  : "\nIf none of them applies, or the text does not say, reply none.");
	return sb_steal(&b);
}

int llm_summary_words(const LlmCall *c)
{
	int w = c->max_tokens > 0 ? c->max_tokens * 2 / 3 : 60;
	return w < 10 ? 10 : w;
}

/* Append the messages of template t, split first and then filled with kv, to arr. 0 when a
   message could not be encoded (nothing is then to be sent). */
static int add_template(json_t *arr, const char *t, const char *const *kv, int nkv)
{
	PromptPart parts[PROMPT_MAX_PARTS];
	int np = prompt_split(t, parts, PROMPT_MAX_PARTS), ok = 1;
	for (int i = 0; i < np; i++) {
		char *text = prompt_render(parts[i].text, kv, nkv);
		const char *a = text;
		size_t n = strlen(a);
		str_trim(&a, &n);
		if (n) {
			json_t *m = json_pack("{s:s, s:s%}", "role", parts[i].role, "content", a, n);
			if (!m)
				ok = 0;
			else
				json_array_append_new(arr, m);
		}
		free(text);
		free(parts[i].text);
	}
	return ok;
}

static int wants_json(const LlmCall *c, int n)
{
	if (c->kind == LLM_CLASSIFY || c->kind == LLM_EXTRACT || c->kind == LLM_FACTOR)
		return 1;
	if (c->kind == LLM_VERIFY || c->kind == LLM_ANSWER || c->kind == LLM_SUMMARY)
		return n > 1 || (c->kind == LLM_ANSWER && (c->shape == LLM_SHAPE_LIST ||
		                                           c->shape == LLM_SHAPE_JSON));
	return c->shape == LLM_SHAPE_JSON || c->shape == LLM_SHAPE_LIST;
}

/* A semantic join's call whose candidates carry their own left values (LlmItem.left). */
static int mixes_pairs(const LlmCall *c)
{
	return c->kind == LLM_VERIFY && !c->subject && c->nitems > 0 && c->items[0].left;
}

/* The template a request answering n candidates of c is written from (n <= 1: the single
   form), or -1 for the kinds that send the caller's messages (PARSE, RESPOND). */
static int tmpl_of(const LlmCall *c, int n)
{
	if (mixes_pairs(c))   /* one pair alone is asked as any pair is: the cache finds it */
		return n > 1 ? LLM_T_MATCH_PAIRS : LLM_T_MATCH;
	switch (c->kind) {
	case LLM_EXTRACT:
		return LLM_T_EXTRACT;
	case LLM_FACTOR:
		return LLM_T_FACTOR;
	case LLM_CLASSIFY:
		return LLM_T_CLASSIFY;
	case LLM_VERIFY:
		return (c->subject ? LLM_T_MATCH : c->wording ? LLM_T_VERIFY2 : LLM_T_VERIFY) + (n > 1);
	case LLM_ANSWER:
		return LLM_T_ANSWER + (n > 1);
	case LLM_SUMMARY:
		return LLM_T_SUMMARY + (n > 1);
	default:
		return -1;
	}
}

/* The messages of a request answering items[0..n) of c, or NULL when one could not be
   encoded. */
static json_t *messages(Llm *llm, const LlmCall *c, const int *items, int n)
{
	json_t *arr = json_array();
	int ok = 1;
	if (c->kind == LLM_PARSE || c->kind == LLM_RESPOND) {
		for (int i = 0; i < c->nmsgs && ok; i++) {
			char *fixed = vis_utf8_repair(c->msgs[i].content ? c->msgs[i].content : "");
			json_t *m = json_pack("{s:s, s:s}", "role",
			                      c->msgs[i].role ? c->msgs[i].role : "user", "content", fixed);
			free(fixed);
			ok = m && json_array_append_new(arr, m) == 0;
		}
		if (!ok) {
			json_decref(arr);
			return NULL;
		}
		return arr;
	}
	if (c->kind == LLM_EXTRACT)
		return json_decref(arr), llmx_messages(llm, c, items, n);
	if (c->kind == LLM_FACTOR) {   /* the question, then each side's examples as lists */
		SBuf q = SBUF_INIT, l = SBUF_INIT, r = SBUF_INIT;
		put_json(&q, c->question);
		put_json_list(&l, c->options, c->noptions);
		put_json_list(&r, c->expected, c->nexpected);
		const char *kv[] = {"question", sb_str(&q), "left", sb_str(&l), "candidates",
		                    sb_str(&r)};
		ok = add_template(arr, llm->tmpl[LLM_T_FACTOR], kv, 3);
		sb_free(&q);
		sb_free(&l);
		sb_free(&r);
		if (!ok) {
			json_decref(arr);
			return NULL;
		}
		return arr;
	}
	if (c->kind == LLM_CLASSIFY) {
		SBuf o = SBUF_INIT, subj = SBUF_INIT;
		put_json_list(&o, c->options, c->noptions);
		put_json(&subj, c->subject);
		const char *kv[] = {"subject", sb_str(&subj), "options", sb_str(&o)};
		ok = add_template(arr, llm->tmpl[LLM_T_CLASSIFY], kv, 2);
		sb_free(&o);
		sb_free(&subj);
		if (!ok) {
			json_decref(arr);
			return NULL;
		}
		return arr;
	}
	SBuf text = SBUF_INIT, q = SBUF_INIT, left = SBUF_INIT;
	char count[16], words[16];
	snprintf(count, sizeof count, "%d", n);
	snprintf(words, sizeof words, "%d", llm_summary_words(c));
	const char *lv = c->subject;   /* the left value of the single form */
	if (n <= 1) {
		const LlmItem *it = &c->items[n == 1 ? items[0] : 0];
		char *t = item_text(it);
		put_json(&text, t);
		free(t);
		if (mixes_pairs(c))
			lv = it->left;
	} else if (mixes_pairs(c)) {   /* [[left, right], ...], one pair a line */
		sb_putc(&text, '[');
		for (int i = 0; i < n; i++) {
			const LlmItem *it = &c->items[items[i]];
			char *t = item_text(it);
			sb_puts(&text, i ? ",\n[" : "\n[");
			put_json(&text, it->left);
			sb_puts(&text, ", ");
			put_json(&text, t);
			sb_putc(&text, ']');
			free(t);
		}
		sb_puts(&text, "\n]");
	} else {
		char **v = xmalloc((size_t)n * sizeof *v);
		for (int i = 0; i < n; i++)
			v[i] = item_text(&c->items[items[i]]);
		put_json_list(&text, (const char *const *)v, n);
		for (int i = 0; i < n; i++)
			free(v[i]);
		free(v);
	}
	put_json(&q, c->question);
	put_json(&left, lv);
	char *cond = c->kind == LLM_VERIFY ? condition(c) : NULL;
	char *choice = c->kind == LLM_ANSWER && c->noptions > 0 ? format_options(c, n > 1) : NULL;
	const char *kv[] = {
		"text", sb_str(&text), "candidates", sb_str(&text), "count", count,
		"question", sb_str(&q), "condition", cond ? cond : "",
		"format", choice ? choice : n > 1 ? format_batch(c->shape) : format_single(c->shape),
		"words", words,
		"left", sb_str(&left),
	};
	ok = add_template(arr, llm->tmpl[tmpl_of(c, n)], kv, 8);
	free(cond);
	free(choice);
	sb_free(&text);
	sb_free(&q);
	sb_free(&left);
	if (!ok) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

json_t *llmp_messages(Llm *llm, const LlmCall *call, int item)
{
	int one = item < 0 ? 0 : item;
	return messages(llm, call, &one, item < 0 ? 0 : 1);
}

/* max_tokens of a request answering n candidates (n <= 1: the single form) */
static int default_max_tokens(const LlmCall *c, int n)
{
	int per = c->max_tokens;
	if (n < 1)
		n = 1;
	switch (c->kind) {
	case LLM_VERIFY:
		if (per <= 0)
			per = 8;
		break;
	case LLM_ANSWER:
		if (per <= 0)
			per = c->shape == LLM_SHAPE_TEXT || c->shape == LLM_SHAPE_LIST ||
			      c->shape == LLM_SHAPE_JSON ? 200 : 24;
		break;
	case LLM_SUMMARY:
		if (per <= 0)
			per = 160;
		break;
	case LLM_EXTRACT:
		if (per <= 0)
			per = 300;
		break;
	case LLM_CLASSIFY:
		return per > 0 ? per : 200;
	case LLM_FACTOR:
		return per > 0 ? per : 300;
	default:
		return per > 0 ? per : 1024;
	}
	return n == 1 ? per : per * n + 48;
}

const char *llmp_model(const Llm *llm, const LlmCall *call)
{
	const char *m = call->proxy && llm->s.proxy_model ? llm->s.proxy_model : llm->s.model;
	return m ? m : "";
}

/* ---- the schema of the readable replies ---- */

static json_t *str_enum(const char *const *v, int n, const char *extra)
{
	json_t *e = json_array();
	for (int i = 0; i < n; i++) {
		char *fixed = vis_utf8_repair(v[i] ? v[i] : "");
		json_array_append_new(e, json_string(fixed));
		free(fixed);
	}
	if (extra)
		json_array_append_new(e, json_string(extra));
	return json_pack("{s:s, s:o}", "type", "string", "enum", e);
}

/* One answer of an ANSWER call: the type of its shape, or "unknown" (NULL: any JSON). */
static json_t *answer_item(const LlmCall *c)
{
	if (c->noptions > 0)
		return str_enum(c->options, c->noptions, "none");
	static const char *const yn[] = {"yes", "no"};
	switch (c->shape) {
	case LLM_SHAPE_BOOL:
	case LLM_SHAPE_YESNO:
		return str_enum(yn, 2, NULL);
	case LLM_SHAPE_DATE:
		return json_pack("{s:s, s:s}", "type", "string", "pattern",
		                 "^([0-9]{4}-[0-9]{2}-[0-9]{2}|unknown)$");
	case LLM_SHAPE_INT:
		return json_pack("{s:[{s:s}, {s:s, s:[s]}]}", "anyOf", "type", "integer", "type",
		                 "string", "enum", "unknown");
	case LLM_SHAPE_REAL:
		return json_pack("{s:[{s:s}, {s:s, s:[s]}]}", "anyOf", "type", "number", "type",
		                 "string", "enum", "unknown");
	case LLM_SHAPE_LIST:
		return json_pack("{s:s, s:{s:s}}", "type", "array", "items", "type", "string");
	case LLM_SHAPE_JSON:
		return NULL;
	default:
		return json_pack("{s:s}", "type", "string");
	}
}

/* {"type": "object", "properties": {name: v}, "required": [name], ...}: one member. */
static json_t *object_of(const char *name, json_t *v)
{
	return json_pack("{s:s, s:{s:o}, s:[s], s:b}", "type", "object", "properties", name, v,
	                 "required", name, "additionalProperties", 0);
}

/* The JSON schema admitting exactly the readable replies to a request answering n
   candidates of call (n <= 1: the single form), or NULL when its reply is not JSON or any
   JSON is readable. */
static json_t *llmp_reply_schema(const LlmCall *c, int n)
{
	static const char *const yn[] = {"yes", "no"};
	if (!wants_json(c, n))
		return NULL;
	if (c->kind == LLM_CLASSIFY)
		return object_of("values", json_pack("{s:s, s:o}", "type", "array", "items",
		                                     str_enum(c->options, c->noptions, NULL)));
	if (c->kind == LLM_EXTRACT)
		return llmx_reply_schema(c, n);
	if (c->kind == LLM_FACTOR) {   /* factors false needs nothing else */
		static const char *const m[] = {"same", "different"};
		return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:{s:s}, s:i, s:i}, s:o}, s:[s], "
		                 "s:b}", "type", "object", "properties", "factors", "type", "boolean",
		                 "property", "type", "string", "values", "type", "array", "items",
		                 "type", "string", "minItems", 2, "maxItems", LLM_FACTOR_VALUES, "match",
		                 str_enum(m, 2, NULL), "required", "factors", "additionalProperties", 0);
	}
	if (c->kind == LLM_PARSE)
		return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}, s:[s]}", "type", "object",
		                 "properties", "database", "type", "boolean", "suql", "type", "string",
		                 "reply", "type", "string", "required", "database");
	json_t *item;
	if (c->kind == LLM_VERIFY)
		item = str_enum(yn, 2, NULL);
	else if (c->kind == LLM_SUMMARY)
		item = json_pack("{s:s}", "type", "string");
	else if (c->kind == LLM_ANSWER)
		item = answer_item(c);
	else
		return NULL;
	if (!item)
		return NULL;
	if (n <= 1)   /* a single answer of list shape: {"answer": [...]} */
		return object_of("answer", item);
	return object_of("answers", json_pack("{s:s, s:o, s:i, s:i}", "type", "array", "items",
	                                      item, "minItems", n, "maxItems", n));
}

/* Whether a schema can be strict in OpenAI's sense: every object lists all its properties as
   required and admits no others (a PARSE reply has either suql or reply: not strict). */
static int strict_ok(const LlmCall *c)
{
	return c->kind != LLM_PARSE;
}

static int ollama_url(const char *url)
{
	return url && (strstr(url, ":11434") || strstr(url, "ollama"));
}

/* The dialect llm.schema resolves to now: LLM_SCHEMA_OPENAI ... LLM_SCHEMA_OFF (auto and the
   fallbacks resolved). */
static int llmp_dialect(const Llm *llm)
{
	int d = llm->s.schema;
	if (d == LLM_SCHEMA_AUTO)
		d = ollama_url(llm->s.url) ? LLM_SCHEMA_OLLAMA : LLM_SCHEMA_OPENAI;
	if (d <= LLM_SCHEMA_OLLAMA && llm->no_schema)
		d = LLM_SCHEMA_JSON_OBJECT;
	if (d == LLM_SCHEMA_JSON_OBJECT && llm->no_json_mode)
		d = LLM_SCHEMA_OFF;
	return d;
}

/* The dialect llm.schema names for the endpoint before any fallback (auto resolved by the
   URL): what the endpoint speaks, not what it has refused since. */
static int base_dialect(const Llm *llm)
{
	int d = llm->s.schema;
	if (d == LLM_SCHEMA_AUTO)
		d = ollama_url(llm->s.url) ? LLM_SCHEMA_OLLAMA : LLM_SCHEMA_OPENAI;
	return d;
}

/* The key depends on what the request's cacheable prefix is written from (the template's
   wording and the question; the kind for the chat agent's own messages) and on nothing a
   table holds, so that every request of a statement, and of the same statement run again,
   carries the same key and a provider routes them to the cache that holds their prefix.
   llmp_cache_key: the key of a call's requests ("suql-" and 16 hex digits of a hash of the
   template its request is written from and the question: never of a candidate's text, a
   left value or anything else a table holds), written into key; 0 when its requests carry
   none: llm.prompt_cache_key off, an endpoint whose dialect (llm.schema, auto resolved)
   is not OpenAI's, or one that refused the field (no_cache_key). n as llmp_chat_body's. */
#define LLMP_CACHE_KEY_LEN 22
static int llmp_cache_key(const Llm *llm, const LlmCall *call, int n,
                          char key[LLMP_CACHE_KEY_LEN])
{
	key[0] = '\0';
	if (!llm->s.prompt_cache_key || llm->no_cache_key || call->kind == LLM_EMBED)
		return 0;
	int d = base_dialect(llm);
	if (d != LLM_SCHEMA_OPENAI && d != LLM_SCHEMA_JSON_OBJECT)
		return 0;   /* llama.cpp and Ollama cache prefixes on their own, and may refuse it */
	int t = tmpl_of(call, n);
	SBuf b = SBUF_INIT;
	if (t < 0)
		sb_printf(&b, "kind %d", (int)call->kind);
	else
		sb_printf(&b, "template %d\n%s", t, llm->tmpl[t] ? llm->tmpl[t] : "");
	sb_putc(&b, '\0');   /* the question apart from the template, whatever either holds */
	sb_puts(&b, call->question ? call->question : "");
	snprintf(key, LLMP_CACHE_KEY_LEN, "suql-%016llx",
	         (unsigned long long)str_hash64(sb_str(&b), b.len));
	sb_free(&b);
	return 1;
}

void llmp_limits(const Llm *llm, const char *model, json_t *body, int max)
{
	LlmPrice p;
	/* OpenAI's reasoning families only: other providers' compatible endpoints take
	   max_tokens and a temperature from their reasoning models too */
	if (model && llm_price_list(model, &p) && p.reasoning && p.entry &&
	    (strncmp(p.entry, "gpt-5", 5) == 0 ||
	     (p.entry[0] == 'o' && p.entry[1] >= '1' && p.entry[1] <= '9'))) {
		int hidden = llm_reasoning_tokens(llm);
		json_object_set_new(body, "max_completion_tokens",
		                    json_integer(max + (hidden > 0 ? hidden : LLM_REASONING_DEFAULT)));
		return;
	}
	json_object_set_new(body, "temperature", json_integer(0));
	json_object_set_new(body, "max_tokens", json_integer(max));
}

json_t *llmp_chat_body(Llm *llm, const LlmCall *call, const int *items, int n, int *sent)
{
	json_t *msgs = messages(llm, call, items, n);
	*sent = LLMP_SENT_NONE;
	if (!msgs)
		return NULL;
	json_t *body = json_object();
	char *model = vis_utf8_repair(llmp_model(llm, call));
	json_object_set_new(body, "model", json_string(model));
	free(model);
	json_object_set_new(body, "messages", msgs);
	llmp_limits(llm, llmp_model(llm, call), body, default_max_tokens(call, n));
	char key[LLMP_CACHE_KEY_LEN];
	if (llmp_cache_key(llm, call, n, key))
		json_object_set_new(body, "prompt_cache_key", json_string(key));
	if (!wants_json(call, n))
		return body;
	int d = llmp_dialect(llm);
	json_t *schema = d <= LLM_SCHEMA_OLLAMA ? llmp_reply_schema(call, n) : NULL;
	if (schema) {
		*sent = LLMP_SENT_SCHEMA;
		if (d == LLM_SCHEMA_OPENAI)
			json_object_set_new(body, "response_format", json_pack(
			    "{s:s, s:{s:s, s:b, s:o}}", "type", "json_schema", "json_schema", "name",
			    "suql_reply", "strict", strict_ok(call), "schema", schema));
		else
			json_object_set_new(body, d == LLM_SCHEMA_LLAMACPP ? "json_schema" : "format",
			                    schema);
	} else if (d != LLM_SCHEMA_OFF) {
		*sent = LLMP_SENT_JSON_OBJECT;
		json_object_set_new(body, "response_format", json_pack("{s:s}", "type",
		                                                       "json_object"));
	}
	return body;
}

json_t *llmp_embed_body(Llm *llm, const LlmCall *call)
{
	char *in = vis_utf8_repair(call->subject ? call->subject : "");
	json_t *b = json_pack("{s:s, s:s}", "model", llm->s.embed_model ? llm->s.embed_model : "",
	                      "input", in);
	free(in);
	return b;
}

/* ---- the size of a request, before it is made (the plan's estimate, the caps) ---- */

static int has_candidates(LlmKind k)
{
	return k == LLM_VERIFY || k == LLM_ANSWER || k == LLM_SUMMARY || k == LLM_EXTRACT;
}

long llm_request_bytes(Llm *llm, const LlmCall *proto, int n)
{
	LlmCall c = *proto;
	if (c.kind == LLM_EMBED) {
		json_t *b = llmp_embed_body(llm, &c);
		char *s = b ? json_dumps(b, JSON_COMPACT) : NULL;
		long len = s ? (long)strlen(s) : 0;
		free(s);
		json_decref(b);
		return len;
	}
	if (n < 1)
		n = 1;
	/* every candidate's text empty: what is left is the prompt's own */
	static const char *const empty[1] = {""};
	LlmItem *items = xcalloc((size_t)n, sizeof *items);
	int *idx = xmalloc((size_t)n * sizeof *idx);
	for (int i = 0; i < n; i++) {
		items[i].passages = empty;
		items[i].npassages = 1;
		idx[i] = i;
	}
	c.items = items;
	c.nitems = n;
	int sent;
	json_t *b = llmp_chat_body(llm, &c, idx, has_candidates(c.kind) ? n : 0, &sent);
	if (b && llm_logprobs_wanted(llm, &c)) {   /* as llm_http.c's req_body adds them */
		json_object_set_new(b, "logprobs", json_true());
		json_object_set_new(b, "top_logprobs", json_integer(LLM_TOP_LOGPROBS));
	}
	char *s = b ? json_dumps(b, JSON_COMPACT) : NULL;
	long len = s ? (long)strlen(s) : 0;
	free(s);
	json_decref(b);
	free(items);
	free(idx);
	return len;
}

/* The bytes s takes in a request's body: written as a JSON string in a message (put_json),
   and that message again as a JSON string of the body. */
static long body_bytes(const char *s)
{
	SBuf b = SBUF_INIT;
	put_json(&b, s);
	json_t *j = json_stringn(b.s ? b.s : "", b.len);
	char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	long n = d ? (long)strlen(d) : 0;
	free(d);
	json_decref(j);
	sb_free(&b);
	return n;
}

long llm_text_bytes(const char *const *passages, int n)
{
	LlmItem it = {0};
	it.passages = passages;
	it.npassages = n;
	char *t = item_text(&it);
	long k = body_bytes(t) - body_bytes("");
	free(t);
	return k;
}

int llm_max_tokens(const LlmCall *call, int n)
{
	return default_max_tokens(call, n);
}
