/*
 * llm_reply.c: what a readable reply is, for each task, and reading replies into results.
 * This is the one place that decides whether the model said something suql can use; a value
 * suql returns comes from a reply that passed these rules, never from a guess.
 *
 * Before anything else a reply loses its surrounding blanks, a Markdown code fence around
 * it, and quotes wrapped around the whole of it. Then:
 *
 *   verify      the whole answer is yes or no (true or false; any case; a final "." or "!"
 *               and Markdown bold allowed): "Yes." is read, "Yes and no", "Maybe" and ""
 *               are not. A batch reply is a JSON list of exactly one entry per candidate
 *               (bare, or as the "answers" member of an object, or an object's only list),
 *               each entry "yes"/"no" or true/false; an entry that is neither leaves that
 *               candidate unread, and a list of the wrong length (or no list) leaves all of
 *               them unread.
 *   answer      the whole answer is a value of the type asked for, or says explicitly that
 *               the text does not tell ("unknown", "null", "n/a", a JSON null): a date is
 *               YYYY-MM-DD (or one written date, "31 January 1979", "1979", and nothing
 *               else), a whole number is a number with no fraction ("42", "1,200",
 *               "twelve"), a number is a finite number ("4.5", "-3", "1e3"; not "1e999"),
 *               true/false is yes/no, a list is a JSON list, JSON is any JSON value, text is
 *               any text that is not empty. "between 5 and 60" is no number; "1979-01-31" is
 *               no whole number.
 *   answer, with options (a constrained answer): the whole answer is one of the options
 *               (any case; written back as the option is), or says that none applies
 *               ("none", "none of them", "unknown", ...: NULL); "b or c", "probably b" and a
 *               value not offered are not read.
 *   summary     any text that is not empty ("unknown": none).
 *   extract     one JSON object per candidate ({"answers": [...]} with one each; a single
 *               candidate's bare object too) holding every field of the spec, each of its type
 *               or null, by the typed rules above (spec.h; read in llm_extract.c); one that
 *               misses a field or holds "about ten" for an int is not read.
 *   classify    a JSON list (bare, or the "values" member of an object, or an object's only
 *               list) of strings that are all permitted values (any case); an empty list is
 *               the model saying that none fits. "<html>", "Maybe", "cheap and moderate" and
 *               {"values": ["banana"]} are not read.
 *
 * JSON may stand inside prose or a code fence; only its contents count. A reply that
 * cannot be read is asked again, then (for a batch) each candidate alone, and after that
 * the answer is unknown (llm_mark_unreadable): no value, no verdict, never cached. Whoever
 * shows results says so (exec.c warns, and fails the statement unless llm.unreadable is
 * warn).
 *
 * llm_convert and llm_yesno are the offline backend's lenient readings of the sentences it
 * picked itself; they are never applied to a model's reply.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cleaning ---- */

/* content without blanks, a code fence around it and quotes wrapped around all of it;
   heap string */
static char *clean(const char *s)
{
	size_t n = strlen(s);
	str_trim(&s, &n);
	if (n >= 3 && strncmp(s, "```", 3) == 0) {   /* ```json\n...\n``` */
		const char *nl = memchr(s, '\n', n);
		size_t skip = nl ? (size_t)(nl + 1 - s) : 3;
		s += skip;
		n -= skip;
	}
	if (n >= 3 && strncmp(s + n - 3, "```", 3) == 0)
		n -= 3;
	str_trim(&s, &n);
	if (n >= 2 && ((s[0] == '"' && s[n - 1] == '"') || (s[0] == '\'' && s[n - 1] == '\'')) &&
	    !memchr(s + 1, s[0], n - 2))
		s++, n -= 2;
	return xstrndup(s, n);
}

json_t *llmp_lenient_json(const char *content)
{
	char *c = clean(content);
	json_t *j = json_loads(c, JSON_DECODE_ANY, NULL);
	if (!j) {
		/* the first { or [ from which a JSON value parses (text may surround it) */
		for (char *p = c; *p && !j; p++) {
			if (*p != '{' && *p != '[')
				continue;
			j = json_loads(p, JSON_DISABLE_EOF_CHECK, NULL);
		}
	}
	free(c);
	return j;
}

/* s[0..*n) without blanks, Markdown bold or italics around it and a final '.' or '!' */
static void bare(const char **s, size_t *n)
{
	for (int again = 1; again;) {
		again = 0;
		str_trim(s, n);
		while (*n >= 2 && ((*s)[0] == '*' || (*s)[0] == '_') && (*s)[*n - 1] == (*s)[0]) {
			(*s)++;
			*n -= 2;
			again = 1;
		}
		if (*n && ((*s)[*n - 1] == '.' || (*s)[*n - 1] == '!')) {
			(*n)--;
			again = 1;
		}
	}
}

/* ---- the strict readings ---- */

/* The whole of s is yes or no: 1, 0; -1 otherwise. */
static int read_yesno(const char *s, size_t n)
{
	bare(&s, &n);
	if (str_nieq(s, n, "yes") || str_nieq(s, n, "true"))
		return 1;
	if (str_nieq(s, n, "no") || str_nieq(s, n, "false"))
		return 0;
	return -1;
}

/* The model saying that the text does not tell. (An empty reply says nothing.) */
static int says_unknown(const char *s)
{
	size_t n = strlen(s);
	bare(&s, &n);
	return str_nieq(s, n, "unknown") || str_nieq(s, n, "null") || str_nieq(s, n, "n/a");
}

/* The whole of s[0..n) is one number: digits with an optional sign, thousands commas,
   decimals and exponent, or a number word ("twelve", "twenty-five"). */
static int read_number(const char *s, size_t n, double *v, int *is_int)
{
	bare(&s, &n);
	if (n == 0 || n > 64)
		return 0;
	char buf[80];
	size_t k = 0, i = 0;
	if (s[i] == '-' || s[i] == '+')
		buf[k++] = s[i++];
	size_t digits = 0, group = 0;
	int commas = 0, frac = 0, expo = 0;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isdigit(c)) {
			buf[k++] = (char)c;
			digits++;
			group++;
		} else if (c == ',' && !frac && !expo && digits > 0 && (commas ? group == 3 : group <= 3)) {
			commas = 1;
			group = 0;
		} else if (c == '.' && !frac && !expo && digits > 0 && i + 1 < n &&
		           isdigit((unsigned char)s[i + 1])) {
			if (commas && group != 3)
				return 0;
			buf[k++] = '.';
			frac = 1;
			commas = 0;
		} else if ((c == 'e' || c == 'E') && !expo && digits > 0) {
			if (commas && group != 3)
				return 0;
			buf[k++] = 'e';
			expo = 1;
			commas = 0;
			if (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+'))
				buf[k++] = s[++i];
			if (i + 1 >= n || !isdigit((unsigned char)s[i + 1]))
				return 0;
		} else {
			break;
		}
	}
	if (i == n && digits > 0 && !(commas && group != 3)) {
		buf[k] = '\0';
		*v = strtod(buf, NULL);
		if (!isfinite(*v))
			return 0;
		*is_int = !frac && !expo;
		return 1;
	}
	/* a number written in words, alone */
	size_t at, len;
	if (digits == 0 && llm_next_number(s, n, 0, v, is_int, &at, &len) && at == 0 && len == n)
		return 1;
	return 0;
}

/* The whole of s[0..n) is one date: YYYY-MM-DD, or one of the written forms
   llm_next_date knows, and nothing else. */
static int read_date(const char *s, size_t n, char iso[11])
{
	bare(&s, &n);
	int y, m, d;
	char extra;
	if (n == 10 && sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &extra) == 3 && s[4] == '-' &&
	    s[7] == '-') {
		if (!llm_day_exists(y, m, d))
			return 0;
		snprintf(iso, 11, "%04d-%02d-%02d", y, m, d);
		return 1;
	}
	int prec;
	size_t at, len;
	if (n > 0 && n < 40 && llm_next_date(s, n, 0, iso, &prec, &at, &len) && at == 0 &&
	    len == n)
		return 1;
	return 0;
}

int llm_read_value(LlmShape shape, const char *text, char **value)
{
	*value = NULL;
	size_t n = strlen(text);
	const char *s = text;
	str_trim(&s, &n);
	if (n == 0)
		return -1;
	if (says_unknown(text))
		return 0;
	switch (shape) {
	case LLM_SHAPE_TEXT:
		*value = xstrndup(s, n);
		return 1;
	case LLM_SHAPE_YESNO:
	case LLM_SHAPE_BOOL: {
		int yn = read_yesno(s, n);
		if (yn < 0)
			return -1;
		*value = xstrdup(shape == LLM_SHAPE_BOOL ? (yn ? "1" : "0") : (yn ? "Yes" : "No"));
		return 1;
	}
	case LLM_SHAPE_DATE: {
		char iso[11];
		if (!read_date(s, n, iso))
			return -1;
		*value = xstrdup(iso);
		return 1;
	}
	case LLM_SHAPE_INT:
	case LLM_SHAPE_REAL: {
		double v;
		int is_int;
		if (!read_number(s, n, &v, &is_int))
			return -1;
		if (shape == LLM_SHAPE_REAL) {
			*value = xprintf("%.15g", v);
			return 1;
		}
		if (v != floor(v) || fabs(v) >= 9.2e18)
			return -1;
		*value = xprintf("%lld", (long long)v);
		return 1;
	}
	case LLM_SHAPE_LIST:
	case LLM_SHAPE_JSON: {
		char *c = clean(text);
		json_t *j = json_loads(c, JSON_DECODE_ANY, NULL);
		free(c);
		if (j && json_is_object(j) && json_object_size(j) == 1) {
			/* {"answer": X} -> X */
			json_t *inner = json_object_iter_value(json_object_iter(j));
			json_incref(inner);
			json_decref(j);
			j = inner;
		}
		if (!j || (shape == LLM_SHAPE_LIST && !json_is_array(j))) {
			json_decref(j);
			return -1;
		}
		*value = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(j);
		return 1;
	}
	}
	return -1;
}

/* A constrained answer: the whole reply is one of the options (any case; quotes, bold and
   a final "." or "!" allowed), written back as the option is: 1 with *value set; 0 when it
   says none applies or the text does not tell ("none", "none of them", "none of these",
   "unknown", "null", "n/a"); -1 otherwise ("b or c", "probably b", an option not offered). */
static int read_option(const LlmCall *call, const char *text, char **value)
{
	*value = NULL;
	char *c = clean(text);
	const char *s = c;
	size_t n = strlen(s);
	bare(&s, &n);
	int r = -1;
	for (int i = 0; i < call->noptions && r < 0; i++)
		if (str_nieq(s, n, call->options[i])) {
			*value = xstrdup(call->options[i]);
			r = 1;
		}
	if (r < 0 && (str_nieq(s, n, "none") || str_nieq(s, n, "none of them") ||
	              str_nieq(s, n, "none of these") || says_unknown(c)))
		r = 0;
	free(c);
	return r;
}

/* ---- one candidate ---- */

static void set_text(LlmItem *it, const char *t)
{
	free(it->text);
	it->text = xstrdup(t);
}

/* Read one candidate's answer: 0, or -1 (unread: only its text is set). */
static int read_item(LlmCall *call, LlmItem *it, const char *answer)
{
	if (call->kind == LLM_VERIFY) {
		int yn = read_yesno(answer, strlen(answer));
		if (yn < 0) {
			set_text(it, answer);
			return -1;
		}
		set_text(it, yn ? "yes" : "no");
		free(it->value);
		free(it->warning);
		it->value = xstrdup(yn ? "Yes" : "No");
		it->warning = NULL;
		it->verdict = yn;
		it->unreadable = 0;
		it->has_confidence = 0;   /* the reply's own log-probabilities give it (llm_http.c) */
		it->confidence = 0;
		return 0;
	}
	char *v = NULL;
	int r;
	if (call->kind == LLM_SUMMARY) {
		size_t n = strlen(answer);
		const char *s = answer;
		str_trim(&s, &n);
		r = n == 0 ? -1 : says_unknown(answer) ? 0 : 1;
		if (r > 0)
			v = xstrndup(s, n);
	} else if (call->noptions > 0) {
		r = read_option(call, answer, &v);
	} else {
		r = llm_read_value(call->shape, answer, &v);
	}
	set_text(it, answer);
	if (r < 0)
		return -1;
	free(it->value);
	free(it->warning);
	it->value = v;
	it->warning = NULL;
	it->unreadable = 0;
	return 0;
}

/* A JSON answer (a batch entry, or the one member of {"answer": ...}) as answer text, or
   NULL when its form cannot be an answer of the call's kind. */
static char *entry_text(const LlmCall *call, json_t *e)
{
	if (json_is_string(e))
		return xstrdup(json_string_value(e));
	if (json_is_boolean(e) && (call->kind == LLM_VERIFY || call->kind == LLM_ANSWER))
		return xstrdup(json_is_true(e) ? "yes" : "no");
	if (call->kind == LLM_VERIFY)
		return NULL;
	if (json_is_null(e))
		return xstrdup("unknown");
	if (call->kind == LLM_ANSWER)
		return json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
	return NULL;
}

/* The list a reply holds: j itself, or in an object the member called name, else its only
   list member. Borrowed from j; NULL when there is none. */
static json_t *reply_list(json_t *j, const char *name)
{
	if (!j)
		return NULL;
	if (json_is_array(j))
		return j;
	if (!json_is_object(j))
		return NULL;
	json_t *arr = json_object_get(j, name);
	if (arr)
		return json_is_array(arr) ? arr : NULL;
	json_t *only = NULL;
	int lists = 0;
	for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it))
		if (json_is_array(json_object_iter_value(it))) {
			only = json_object_iter_value(it);
			lists++;
		}
	return lists == 1 ? only : NULL;
}

static int read_single(LlmCall *call, int item, const char *content)
{
	LlmItem *it = &call->items[item];
	char *c = clean(content);
	/* a model in JSON mode may wrap even a single answer: {"answer": "yes"} */
	json_t *j = c[0] == '{' && call->shape != LLM_SHAPE_JSON ? json_loads(c, 0, NULL) : NULL;
	int r;
	if (j && json_is_object(j) && json_object_size(j) == 1) {
		char *t = entry_text(call, json_object_iter_value(json_object_iter(j)));
		r = t ? read_item(call, it, t) : (set_text(it, c), -1);
		free(t);
	} else {
		r = read_item(call, it, c);
	}
	json_decref(j);
	free(c);
	return r;
}

static int read_batch(LlmCall *call, const int *items, int n, const char *content, int *bad)
{
	json_t *j = llmp_lenient_json(content);
	json_t *arr = reply_list(j, "answers");
	int nbad = 0;
	if (!arr || json_array_size(arr) != (size_t)n) {
		char *c = clean(content);
		for (int i = 0; i < n; i++) {
			set_text(&call->items[items[i]], c);
			bad[nbad++] = i;
		}
		free(c);
		json_decref(j);
		return nbad;
	}
	for (int i = 0; i < n; i++) {
		json_t *e = json_array_get(arr, (size_t)i);
		char *t = entry_text(call, e);
		int r = -1;
		if (t) {
			r = read_item(call, &call->items[items[i]], t);
		} else {
			char *d = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
			set_text(&call->items[items[i]], d ? d : "?");
			free(d);
		}
		free(t);
		if (r < 0)
			bad[nbad++] = i;
	}
	json_decref(j);
	return nbad;
}

/* ---- classification ---- */

static int read_labels(LlmCall *call, const char *content)
{
	json_t *j = llmp_lenient_json(content);
	json_t *arr = reply_list(j, "values");
	int ok = arr != NULL;
	size_t n = ok ? json_array_size(arr) : 0;
	const char **v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; ok && i < n; i++) {
		json_t *e = json_array_get(arr, i);
		ok = json_is_string(e);
		if (!ok)
			break;
		const char *s = json_string_value(e);
		size_t sl = strlen(s);
		str_trim(&s, &sl);
		int hit = 0;
		for (int o = 0; o < call->noptions && !hit; o++)
			hit = str_nieq(s, sl, call->options[o]) && strlen(call->options[o]) == sl;
		ok = hit;
		v[i] = json_string_value(e);
	}
	if (ok) {
		for (int i = 0; i < call->nlabels; i++)
			free(call->labels[i]);
		free(call->labels);
		llm_set_labels(call, v, (int)n);
		call->unreadable = 0;
	}
	free(v);
	json_decref(j);
	return ok ? 0 : -1;
}

/* ---- a join's factorization ---- */

static int nonempty(json_t *v)
{
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;
	if (s)
		str_trim(&s, &n);
	return n > 0;
}

char *llm_factor_read(const char *content)
{
	json_t *j = llmp_lenient_json(content), *out = NULL;
	json_t *f = json_is_object(j) ? json_object_get(j, "factors") : NULL;
	if (json_is_false(f)) {
		out = json_pack("{s:b}", "factors", 0);
	} else if (json_is_true(f)) {
		json_t *p = json_object_get(j, "property"), *v = json_object_get(j, "values");
		const char *m = json_string_value(json_object_get(j, "match"));
		size_t n = json_array_size(v);
		int ok = nonempty(p) && json_is_array(v) && n >= 2 && n <= LLM_FACTOR_VALUES && m &&
		         (strcmp(m, "same") == 0 || strcmp(m, "different") == 0);
		for (size_t i = 0; ok && i < n; i++) {
			json_t *e = json_array_get(v, i);
			ok = nonempty(e) && strcasecmp(json_string_value(e), "none") != 0;
			for (size_t k = 0; ok && k < i; k++)
				ok = strcasecmp(json_string_value(e),
				                json_string_value(json_array_get(v, k))) != 0;
		}
		if (ok)
			out = json_pack("{s:b, s:O, s:O, s:s}", "factors", 1, "property", p, "values", v,
			                "match", m);
	}
	char *s = out ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	json_decref(j);
	return s;
}

int llm_read_reply(LlmCall *call, const int *items, int n, const char *content, int *bad)
{
	if (call->kind == LLM_CLASSIFY) {
		free(call->text);
		call->text = xstrdup(content);
		if (read_labels(call, content) == 0)
			return 0;
		bad[0] = 0;
		return 1;
	}
	if (call->kind == LLM_EXTRACT)
		return llmx_read_reply(call, items, n, content, bad);
	if (call->kind == LLM_FACTOR) {
		char *t = llm_factor_read(content);
		free(call->text);
		call->text = t ? t : xstrdup(content);
		if (t) {
			call->unreadable = 0;
			return 0;
		}
		bad[0] = 0;
		return 1;
	}
	if (call->kind != LLM_VERIFY && call->kind != LLM_ANSWER && call->kind != LLM_SUMMARY) {
		free(call->text);
		call->text = xstrdup(content);
		return 0;
	}
	if (n > 1)
		return read_batch(call, items, n, content, bad);
	if (read_single(call, n == 1 ? items[0] : 0, content) == 0)
		return 0;
	bad[0] = 0;
	return 1;
}

void llm_mark_unreadable(LlmCall *call, int item)
{
	if (item < 0) {
		for (int i = 0; i < call->nlabels; i++)
			free(call->labels[i]);
		free(call->labels);
		call->labels = NULL;
		call->nlabels = 0;
		call->unreadable = 1;
		return;
	}
	LlmItem *it = &call->items[item];
	free(it->value);
	free(it->warning);
	it->value = it->warning = NULL;
	it->verdict = 0;
	it->unreadable = 1;
	it->has_confidence = 0;
	it->confidence = 0;
	if (!it->text)
		it->text = xstrdup("");
}

/* ---- the offline backend's own readings ---- */

/* yes/no written at the start of a text ("Yes.", "no", "true", "false", "1", "0"):
   1 yes, 0 no, -1 neither. */
static int llm_yesno(const char *s)
{
	while (*s && (isspace((unsigned char)*s) || *s == '"' || *s == '\'' || *s == '*'))
		s++;
	size_t n = 0;
	while (isalnum((unsigned char)s[n]))
		n++;
	if (str_nieq(s, n, "yes") || str_nieq(s, n, "true") || str_nieq(s, n, "1"))
		return 1;
	if (str_nieq(s, n, "no") || str_nieq(s, n, "false") || str_nieq(s, n, "0"))
		return 0;
	return -1;
}

static char *short_quote(const char *t)
{
	size_t n = strlen(t);
	return n > 60 ? xprintf("%.57s...", t) : xstrdup(t);
}

void llm_convert(LlmShape shape, const char *text, char **value, char **warning)
{
	*value = *warning = NULL;
	if (!text || !*text || says_unknown(text))
		return;
	char *q = NULL;
	switch (shape) {
	case LLM_SHAPE_TEXT:
		*value = xstrdup(text);
		return;
	case LLM_SHAPE_YESNO:
	case LLM_SHAPE_BOOL: {
		int yn = llm_yesno(text);
		if (yn >= 0) {
			*value = xstrdup(shape == LLM_SHAPE_BOOL ? (yn ? "1" : "0") : (yn ? "Yes" : "No"));
			return;
		}
		*warning = xprintf("'%s' is neither yes nor no", q = short_quote(text));
		break;
	}
	case LLM_SHAPE_DATE: {
		char iso[11];
		int prec;
		if (strlen(text) < 80 && llm_find_date(text, strlen(text), iso, &prec)) {
			*value = xstrdup(iso);
			return;
		}
		*warning = xprintf("'%s' is not a date", q = short_quote(text));
		break;
	}
	case LLM_SHAPE_INT:
	case LLM_SHAPE_REAL: {
		double v;
		int is_int;
		if (strlen(text) < 80 && llm_find_number(text, strlen(text), &v, &is_int)) {
			if (shape == LLM_SHAPE_REAL)
				*value = xprintf("%.15g", v);
			else if (fabs(v) < 9.2e18)
				*value = xprintf("%lld", (long long)v);   /* like CAST: toward zero */
			if (*value)
				return;
		}
		*warning = xprintf("'%s' is not %s", q = short_quote(text),
		                   shape == LLM_SHAPE_INT ? "a whole number" : "a number");
		break;
	}
	case LLM_SHAPE_LIST:
	case LLM_SHAPE_JSON: {
		json_t *j = llmp_lenient_json(text);
		if (j && json_is_object(j) && json_object_size(j) == 1) {
			json_t *inner = json_object_iter_value(json_object_iter(j));
			json_incref(inner);
			json_decref(j);
			j = inner;
		}
		if (!j && shape == LLM_SHAPE_LIST)
			j = json_pack("[s]", text);
		if (j && shape == LLM_SHAPE_LIST && !json_is_array(j)) {
			json_t *a = json_array();
			json_array_append(a, j);
			json_decref(j);
			j = a;
		}
		if (j) {
			*value = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
			json_decref(j);
			return;
		}
		*warning = xprintf("'%s' is not JSON", q = short_quote(text));
		break;
	}
	}
	free(q);
}

void llm_set_labels(LlmCall *call, const char *const *chosen, int n)
{
	call->labels = xcalloc((size_t)(call->noptions > 0 ? call->noptions : 1),
	                       sizeof *call->labels);
	call->nlabels = 0;
	char **clean_chosen = xcalloc((size_t)n + 1, sizeof *clean_chosen);
	for (int i = 0; i < n; i++)
		clean_chosen[i] = clean(chosen[i]);
	for (int o = 0; o < call->noptions; o++) {
		int hit = 0;
		for (int i = 0; i < n && !hit; i++)
			hit = str_ieq(clean_chosen[i], call->options[o]);
		if (hit)
			call->labels[call->nlabels++] = xstrdup(call->options[o]);
	}
	for (int i = 0; i < n; i++)
		free(clean_chosen[i]);
	free(clean_chosen);
}
