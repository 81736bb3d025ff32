/*
 * eval_bench.c: reading benchmark files (JSONL, one JSON object a line) for the evaluation
 * harness. The format (doc/eval.md has it for users):
 *
 *   {"benchmark": "restaurants", "way": "suql", "key": "id", "k": 3, "table": "restaurants",
 *    "settings": {"chat.relax": "2"}, "examples": "restaurants-examples.txt",
 *    "questions": {"file": "q.jsonl", "id": "qid", "question": "q", "answers": "a"}}
 *   {"id": "r1", "question": "...", "suql": "SELECT ...", "gold_sql": "SELECT ...",
 *    "answers": ["..."], "rows": [1, 2], "table": "t", "split": "dev", "kind": "rows",
 *    "note": "..."}
 *
 * The header line is optional and must come first. A case needs an id (a string or a
 * whole number, unique in the file), a question (unless the questions file gives it) and
 * gold: answers, rows, gold_sql, or at least a gold SUQL (whose own result is then the
 * gold). Its kind is "qa" when it has answers, else what "kind" says, else "rows". Anything
 * else (an unknown field, a value of the wrong type, a line that is not a JSON object) is an
 * error naming the file, line and field, so a typo never turns into a silently empty gold.
 */
#include "base/text.h"
#include "base/util.h"
#include "eval/eval_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static SuqlStatus bad(SuqlErr *err, const char *name, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static SuqlStatus bad(SuqlErr *err, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvprintf(fmt, ap);
	va_end(ap);
	err_set(err, SUQL_USAGE, "%s:%d: %s", name, line, msg);
	free(msg);
	return SUQL_USAGE;
}

/* A string, or a whole number written as text; NULL for anything else. */
static char *scalar_text(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xprintf("%lld", (long long)json_integer_value(v));
	return NULL;
}

/* A list of strings (or whole numbers) from an array, or from one string when one_ok.
   Returns 0 on a value of another type. Repeated entries are kept once. */
static int text_list(json_t *v, int one_ok, char ***out, int *n)
{
	*out = NULL;
	*n = 0;
	if (one_ok && json_is_string(v)) {
		*out = xmalloc(sizeof **out);
		(*out)[(*n)++] = xstrdup(json_string_value(v));
		return 1;
	}
	if (!json_is_array(v))
		return 0;
	*out = xcalloc(json_array_size(v) + 1, sizeof **out);
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		char *t = scalar_text(e);
		if (!t)
			return 0;
		int dup = 0;
		for (int k = 0; k < *n && !dup; k++)
			dup = strcmp((*out)[k], t) == 0;
		if (dup)
			free(t);
		else
			(*out)[(*n)++] = t;
	}
	return 1;
}

static void case_free(EvalCase *c)
{
	free(c->id);
	free(c->question);
	free(c->suql);
	free(c->gold_sql);
	text_strv_free(c->answers, (size_t)c->nanswers);
	text_strv_free(c->rows, (size_t)c->nrows);
	free(c->table);
	free(c->split);
}

void eval_bench_free(EvalBench *b)
{
	for (int i = 0; i < b->ncases; i++)
		case_free(&b->cases[i]);
	free(b->cases);
	free(b->name);
	free(b->ways);
	free(b->key);
	free(b->table);
	text_strv_free(b->settings, (size_t)b->nsettings);
	free(b->examples);
	free(b->dir);
	free(b->q_file);
	free(b->q_id);
	free(b->q_question);
	free(b->q_answers);
	memset(b, 0, sizeof *b);
}

/* A string field into *out; 0 (error set) when it is not a string. */
static int str_field(json_t *v, char **out, const char *name, int line, const char *field,
                     SuqlErr *err)
{
	if (!json_is_string(v)) {
		bad(err, name, line, "\"%s\" must be a string", field);
		return 0;
	}
	free(*out);
	*out = xstrdup(json_string_value(v));
	return 1;
}

static SuqlStatus header_questions(EvalBench *b, json_t *q, const char *name, int line,
                                   SuqlErr *err)
{
	if (!json_is_object(q))
		return bad(err, name, line, "\"questions\" must be an object {\"file\", \"id\", "
		           "\"question\", \"answers\"}");
	const char *k;
	json_t *v;
	json_object_foreach(q, k, v) {
		char **dst = strcmp(k, "file") == 0 ? &b->q_file : strcmp(k, "id") == 0 ? &b->q_id
		           : strcmp(k, "question") == 0 ? &b->q_question
		           : strcmp(k, "answers") == 0 ? &b->q_answers : NULL;
		if (!dst)
			return bad(err, name, line, "unknown field \"questions.%s\" (file, id, question, "
			           "answers)", k);
		if (!str_field(v, dst, name, line, k, err))
			return SUQL_USAGE;
	}
	if (!b->q_file)
		return bad(err, name, line, "\"questions\" needs \"file\"");
	if (!b->q_id)
		b->q_id = xstrdup("id");
	return SUQL_OK;
}

static SuqlStatus header(EvalBench *b, json_t *o, const char *name, int line, SuqlErr *err)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		if (strcmp(k, "benchmark") == 0) {
			if (!str_field(v, &b->name, name, line, k, err))
				return SUQL_USAGE;
		} else if (strcmp(k, "way") == 0) {
			if (!str_field(v, &b->ways, name, line, k, err))
				return SUQL_USAGE;
		} else if (strcmp(k, "key") == 0) {
			if (!str_field(v, &b->key, name, line, k, err))
				return SUQL_USAGE;
		} else if (strcmp(k, "table") == 0) {
			if (!str_field(v, &b->table, name, line, k, err))
				return SUQL_USAGE;
		} else if (strcmp(k, "examples") == 0) {
			if (!str_field(v, &b->examples, name, line, k, err))
				return SUQL_USAGE;
		} else if (strcmp(k, "k") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 1000)
				return bad(err, name, line, "\"k\" must be a whole number from 1 to 1000");
			b->k = (int)json_integer_value(v);
		} else if (strcmp(k, "settings") == 0) {
			if (!json_is_object(v))
				return bad(err, name, line, "\"settings\" must be an object of settings, "
				           "{\"chat.relax\": \"2\"}");
			const char *sk;
			json_t *sv;
			text_strv_free(b->settings, (size_t)b->nsettings);
			b->settings = xcalloc(2 * json_object_size(v) + 1, sizeof *b->settings);
			b->nsettings = 0;
			json_object_foreach(v, sk, sv) {
				char *t = json_is_string(sv) ? xstrdup(json_string_value(sv)) : NULL;
				if (json_is_integer(sv))
					t = xprintf("%lld", (long long)json_integer_value(sv));
				else if (json_is_boolean(sv))
					t = xstrdup(json_is_true(sv) ? "on" : "off");
				if (!t)
					return bad(err, name, line, "setting \"%s\" must be a string, number or "
					           "boolean", sk);
				b->settings[b->nsettings++] = xstrdup(sk);
				b->settings[b->nsettings++] = t;
			}
		} else if (strcmp(k, "questions") == 0) {
			SuqlStatus s = header_questions(b, v, name, line, err);
			if (s != SUQL_OK)
				return s;
		} else {
			return bad(err, name, line, "unknown field \"%s\" in the header (benchmark, way, "
			           "key, k, table, settings, examples, questions)", k);
		}
	}
	return SUQL_OK;
}

static SuqlStatus one_case(EvalBench *b, json_t *o, const char *name, int line, SuqlErr *err)
{
	EvalCase c;
	memset(&c, 0, sizeof c);
	c.line = line;
	const char *k;
	json_t *v;
	SuqlStatus s = SUQL_OK;
	json_object_foreach(o, k, v) {
		if (strcmp(k, "id") == 0) {
			c.id = scalar_text(v);
			if (!c.id)
				s = bad(err, name, line, "\"id\" must be a string or a whole number");
		} else if (strcmp(k, "question") == 0 || strcmp(k, "suql") == 0 ||
		           strcmp(k, "gold_sql") == 0 || strcmp(k, "table") == 0 ||
		           strcmp(k, "split") == 0) {
			char **dst = k[0] == 'q' ? &c.question : k[0] == 's' && k[1] == 'u' ? &c.suql
			           : k[0] == 'g' ? &c.gold_sql : k[0] == 't' ? &c.table : &c.split;
			if (!str_field(v, dst, name, line, k, err))
				s = SUQL_USAGE;
		} else if (strcmp(k, "answers") == 0) {
			if (!text_list(v, 1, &c.answers, &c.nanswers) || c.nanswers == 0)
				s = bad(err, name, line, "\"answers\" must be a string or a non-empty list "
				        "of strings");
		} else if (strcmp(k, "rows") == 0) {
			c.has_rows = 1;
			if (!text_list(v, 0, &c.rows, &c.nrows))
				s = bad(err, name, line, "\"rows\" must be a list of keys (strings or whole "
				        "numbers)");
		} else if (strcmp(k, "kind") == 0) {
			const char *kv = json_string_value(v);
			if (kv && strcmp(kv, "qa") == 0)
				c.kind = EVAL_QA;
			else if (!kv || strcmp(kv, "rows") != 0)
				s = bad(err, name, line, "\"kind\" is \"rows\" or \"qa\"");
		} else if (strcmp(k, "note") != 0) {
			s = bad(err, name, line, "unknown field \"%s\" (id, question, suql, gold_sql, "
			        "answers, rows, kind, table, split, note)", k);
		}
		if (s != SUQL_OK)
			break;
	}
	if (s == SUQL_OK && !c.id)
		s = bad(err, name, line, "the case has no \"id\"");
	for (int i = 0; s == SUQL_OK && i < b->ncases; i++)
		if (strcmp(b->cases[i].id, c.id) == 0)
			s = bad(err, name, line, "id \"%s\" is also on line %d", c.id, b->cases[i].line);
	if (s == SUQL_OK && !c.answers && !c.has_rows && !c.gold_sql && !c.suql && !b->q_answers)
		s = bad(err, name, line, "case \"%s\" has no gold: give answers, rows, gold_sql or "
		        "suql", c.id);
	if (s == SUQL_OK && c.answers && c.has_rows)
		s = bad(err, name, line, "case \"%s\" has both answers and rows", c.id);
	if (s != SUQL_OK) {
		case_free(&c);
		return s;
	}
	if (c.answers || (b->q_answers && !c.has_rows))
		c.kind = EVAL_QA;
	b->cases = xrealloc(b->cases, (size_t)(b->ncases + 1) * sizeof *b->cases);
	b->cases[b->ncases++] = c;
	return SUQL_OK;
}

/* Each line of text as a JSON object, handed to fn; blank lines are skipped. */
typedef SuqlStatus (*LineFn)(EvalBench *b, json_t *o, const char *name, int line,
                             SuqlErr *err);

const char *eval_next_line(const char *text, size_t len, size_t *at, size_t *n)
{
	const char *s = text + *at;
	const char *nl = memchr(s, '\n', len - *at);
	*n = nl ? (size_t)(nl - s) : len - *at;
	*at += *n + (nl != NULL);
	str_trim(&s, n);
	return s;
}

static SuqlStatus each_line(EvalBench *b, const char *text, size_t len, const char *name,
                            LineFn fn, SuqlErr *err)
{
	int line = 0;
	for (size_t at = 0; at < len;) {
		size_t m;
		const char *s = eval_next_line(text, len, &at, &m);
		line++;
		if (!m)
			continue;
		json_error_t je;
		json_t *o = json_loadb(s, m, 0, &je);
		if (!o)
			return bad(err, name, line, "not JSON: %s (column %d)", je.text, je.column);
		SuqlStatus st = json_is_object(o) ? fn(b, o, name, line, err)
		                                  : bad(err, name, line, "a line must be one JSON object");
		json_decref(o);
		if (st != SUQL_OK)
			return st;
	}
	return SUQL_OK;
}

static SuqlStatus bench_line(EvalBench *b, json_t *o, const char *name, int line, SuqlErr *err)
{
	if (json_object_get(o, "benchmark")) {
		if (b->ncases > 0 || b->name)
			return bad(err, name, line, "the header (the line with \"benchmark\") must be "
			           "the first line");
		return header(b, o, name, line, err);
	}
	return one_case(b, o, name, line, err);
}

SuqlStatus eval_bench_parse(EvalBench *b, const char *text, size_t len, const char *name,
                            SuqlErr *err)
{
	memset(b, 0, sizeof *b);
	b->k = 3;
	SuqlStatus s = each_line(b, text, len, name, bench_line, err);
	if (s == SUQL_OK && b->ncases == 0)
		s = err_set(err, SUQL_USAGE, "%s: no cases", name);
	if (s != SUQL_OK)
		eval_bench_free(b);
	return s;
}

static SuqlStatus merge_line(EvalBench *b, json_t *o, const char *name, int line, SuqlErr *err)
{
	char *id = scalar_text(json_object_get(o, b->q_id));
	if (!id)
		return bad(err, name, line, "no \"%s\" (a string or a whole number)", b->q_id);
	EvalCase *c = NULL;
	for (int i = 0; i < b->ncases && !c; i++)
		if (strcmp(b->cases[i].id, id) == 0)
			c = &b->cases[i];
	free(id);
	if (!c)
		return SUQL_OK;   /* a question the benchmark does not use */
	if (b->q_question && !c->question) {
		json_t *q = json_object_get(o, b->q_question);
		if (!json_is_string(q))
			return bad(err, name, line, "\"%s\" must be a string", b->q_question);
		c->question = xstrdup(json_string_value(q));
	}
	if (b->q_answers && !c->answers && !c->has_rows) {
		if (!text_list(json_object_get(o, b->q_answers), 1, &c->answers, &c->nanswers) ||
		    c->nanswers == 0)
			return bad(err, name, line, "\"%s\" must be a string or a non-empty list of "
			           "strings", b->q_answers);
		c->kind = EVAL_QA;
	}
	return SUQL_OK;
}

SuqlStatus eval_bench_merge(EvalBench *b, const char *text, size_t len, const char *name,
                            SuqlErr *err)
{
	return each_line(b, text, len, name, merge_line, err);
}

/* path as given when absolute, else relative to dir. Heap string. */
static char *resolve(const char *dir, const char *path)
{
	return path[0] == '/' || !dir ? xstrdup(path) : xprintf("%s/%s", dir, path);
}

SuqlStatus eval_bench_load(EvalBench *b, const char *path, SuqlErr *err)
{
	size_t len;
	char *text = util_read_file(path, &len);
	if (!text)
		return err_set(err, SUQL_USAGE, "cannot read %s: %s", path, strerror(errno));
	SuqlStatus s = eval_bench_parse(b, text, len, path, err);
	free(text);
	if (s != SUQL_OK)
		return s;
	const char *slash = strrchr(path, '/');
	b->dir = slash ? xstrndup(path, (size_t)(slash - path + (slash == path))) : xstrdup(".");
	if (!b->name) {
		const char *base = slash ? slash + 1 : path;
		b->name = xstrndup(base, strcspn(base, "."));
	}
	if (b->examples) {
		char *p = resolve(b->dir, b->examples);
		free(b->examples);
		b->examples = p;
	}
	if (b->q_file) {
		char *p = resolve(b->dir, b->q_file);
		text = util_read_file(p, &len);
		if (!text) {
			s = err_set(err, SUQL_USAGE, "cannot read %s (the questions of %s): %s", p, path,
			            strerror(errno));
		} else {
			s = eval_bench_merge(b, text, len, p, err);
			free(text);
		}
		free(p);
	}
	for (int i = 0; s == SUQL_OK && i < b->ncases; i++) {
		const EvalCase *c = &b->cases[i];
		if (!c->question)
			s = bad(err, path, c->line, "case \"%s\" has no question%s", c->id,
			        b->q_file ? " (and the questions file has none for its id)" : "");
		else if (!c->answers && !c->has_rows && !c->gold_sql && !c->suql)
			s = bad(err, path, c->line, "case \"%s\" has no gold (and the questions file "
			        "gives no answers for it)", c->id);
	}
	if (s != SUQL_OK)
		eval_bench_free(b);
	return s;
}
