/*
 * llm_prompt.c: from tasks to chat requests (llm_reply.c reads the replies).
 *
 * The wording lives in the files of prompts/ (built in; --prompts DIR overrides file by file). A
 * template has an optional "[system]" section and a "[user]" section (a file with neither
 * marker is all user message) and {{placeholders}}: text, candidates, count, question,
 * condition, format, words, subject, options, left. A call with one candidate uses the single
 * form (verify.txt ...); several use the batch form (verify_batch.txt ...), which numbers
 * the candidates ("### Candidate 1") and asks for {"answers": [...]} with one entry each.
 * PARSE and RESPOND send the caller's messages verbatim. A VERIFY call with a subject is a
 * semantic join's (matches()): the subject is the left value, each candidate a right value,
 * and the match templates ask whether the question holds for the pair.
 */
#include "base/util.h"
#include "llm/llm_int.h"
#include "llm/prompt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tmpl_names[LLM_T_N] = {
	"verify", "verify_batch", "answer", "answer_batch", "summary", "summary_batch", "classify",
	"match", "match_batch", "verify2", "verify2_batch", "extract",
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

static void put_text(SBuf *b, const LlmItem *it)
{
	for (int p = 0; p < it->npassages; p++) {
		if (p)
			sb_puts(b, "\n\n");
		sb_puts(b, it->passages[p] ? it->passages[p] : "");
	}
	if (it->npassages == 0)
		sb_puts(b, "(no text)");
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
	sb_putc(b, '"');
	sb_puts(b, v ? v : "");
	sb_putc(b, '"');
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

/* A constrained answer's format: the values offered, written as given, or none. */
static char *format_options(const LlmCall *c, int batch)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, batch ? "each entry exactly one of these values, written as given: "
	                  : "Reply with exactly one of these values, written as given: ");
	for (int i = 0; i < c->noptions; i++) {
		json_t *s = json_string(c->options[i]);
		char *q = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
		sb_printf(&b, "%s%s", i ? ", " : "", q ? q : "\"\"");
		free(q);
		json_decref(s);
	}
	sb_puts(&b, batch ? "; or \"none\" when none of them applies or that candidate's text does "
	                    "not say"
	                  : ". If none of them applies, or the text does not say, reply none.");
	return sb_steal(&b);
}

int llm_summary_words(const LlmCall *c)
{
	int w = c->max_tokens > 0 ? c->max_tokens * 2 / 3 : 60;
	return w < 10 ? 10 : w;
}

/* Append the messages of template t, filled with kv, to arr. */
static void add_template(json_t *arr, const char *t, const char *const *kv, int nkv)
{
	char *text = prompt_render(t, kv, nkv);
	char *sys = NULL, *user = NULL;
	char *s = strstr(text, "[system]");
	char *u = strstr(text, "[user]");
	if (!s && !u) {
		user = xstrdup(text);
	} else {
		if (s) {
			char *a = s + 8, *e = u && u > s ? u : a + strlen(a);
			sys = xstrndup(a, (size_t)(e - a));
		}
		if (u) {
			char *a = u + 6, *e = s && s > u ? s : a + strlen(a);
			user = xstrndup(a, (size_t)(e - a));
		}
	}
	char *parts[2] = {sys, user};
	const char *roles[2] = {"system", "user"};
	for (int i = 0; i < 2; i++) {
		if (!parts[i])
			continue;
		const char *a = parts[i];
		size_t n = strlen(a);
		str_trim(&a, &n);
		if (n)
			json_array_append_new(arr, json_pack("{s:s, s:s%}", "role", roles[i], "content",
			                                     a, n));
		free(parts[i]);
	}
	free(text);
}

static int wants_json(const LlmCall *c, int n)
{
	if (c->kind == LLM_CLASSIFY || c->kind == LLM_EXTRACT)
		return 1;
	if (c->kind == LLM_VERIFY || c->kind == LLM_ANSWER || c->kind == LLM_SUMMARY)
		return n > 1 || (c->kind == LLM_ANSWER && (c->shape == LLM_SHAPE_LIST ||
		                                           c->shape == LLM_SHAPE_JSON));
	return c->shape == LLM_SHAPE_JSON || c->shape == LLM_SHAPE_LIST;
}

static json_t *messages(Llm *llm, const LlmCall *c, const int *items, int n)
{
	json_t *arr = json_array();
	if (c->kind == LLM_PARSE || c->kind == LLM_RESPOND) {
		for (int i = 0; i < c->nmsgs; i++)
			json_array_append_new(arr, json_pack("{s:s, s:s}", "role",
			                      c->msgs[i].role ? c->msgs[i].role : "user", "content",
			                      c->msgs[i].content ? c->msgs[i].content : ""));
		return arr;
	}
	if (c->kind == LLM_EXTRACT)
		return json_decref(arr), llmx_messages(llm, c, items, n);
	if (c->kind == LLM_CLASSIFY) {
		SBuf o = SBUF_INIT;
		for (int i = 0; i < c->noptions; i++)
			sb_printf(&o, "%s- %s", i ? "\n" : "", c->options[i]);
		const char *kv[] = {"subject", c->subject ? c->subject : "", "options", sb_str(&o)};
		add_template(arr, llm->tmpl[LLM_T_CLASSIFY], kv, 2);
		sb_free(&o);
		return arr;
	}
	SBuf text = SBUF_INIT;
	char count[16], words[16];
	snprintf(count, sizeof count, "%d", n);
	snprintf(words, sizeof words, "%d", llm_summary_words(c));
	if (n <= 1) {
		put_text(&text, &c->items[n == 1 ? items[0] : 0]);
	} else {
		for (int i = 0; i < n; i++) {
			sb_printf(&text, "%s### Candidate %d\n", i ? "\n\n" : "", i + 1);
			put_text(&text, &c->items[items[i]]);
		}
	}
	char *cond = c->kind == LLM_VERIFY ? condition(c) : NULL;
	char *choice = c->kind == LLM_ANSWER && c->noptions > 0 ? format_options(c, n > 1) : NULL;
	const char *kv[] = {
		"text", sb_str(&text), "candidates", sb_str(&text), "count", count,
		"question", c->question ? c->question : "", "condition", cond ? cond : "",
		"format", choice ? choice : n > 1 ? format_batch(c->shape) : format_single(c->shape),
		"words", words,
		"left", c->subject ? c->subject : "",
	};
	int t = c->kind == LLM_VERIFY ? (c->subject ? LLM_T_MATCH : c->wording ? LLM_T_VERIFY2
	                                                                       : LLM_T_VERIFY)
	        : c->kind == LLM_ANSWER ? LLM_T_ANSWER : LLM_T_SUMMARY;
	add_template(arr, llm->tmpl[t + (n > 1)], kv, 8);
	free(cond);
	free(choice);
	sb_free(&text);
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

json_t *llmp_chat_body(Llm *llm, const LlmCall *call, const int *items, int n,
                       int allow_json_mode, int *json_mode)
{
	json_t *body = json_object();
	json_object_set_new(body, "model", json_string(llmp_model(llm, call)));
	json_object_set_new(body, "messages", messages(llm, call, items, n));
	json_object_set_new(body, "temperature", json_integer(0));
	json_object_set_new(body, "max_tokens", json_integer(default_max_tokens(call, n)));
	*json_mode = allow_json_mode && wants_json(call, n);
	if (*json_mode)
		json_object_set_new(body, "response_format",
		                    call->kind == LLM_EXTRACT ? llmx_response_format(call, n)
		                    : json_pack("{s:s}", "type", "json_object"));
	return body;
}

json_t *llmp_embed_body(Llm *llm, const LlmCall *call)
{
	return json_pack("{s:s, s:s}", "model", llm->s.embed_model ? llm->s.embed_model : "",
	                 "input", call->subject ? call->subject : "");
}
