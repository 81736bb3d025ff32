/*
 * spec.c: reading the field list of extract(text, 'spec') and checking a model's object
 * against it (spec.h says what both are). The checks are the reply rules of typed answers
 * (llm_reply.c) applied field by field: a value the rules would not read makes the whole
 * object unreadable, so that it is asked again and never cached.
 */
#include "base/util.h"
#include "llm/llm_int.h"
#include "llm/spec.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {"text", "int", "real", "bool", "date"};

static const char *spec_type_name(SpecType t)
{
	return (unsigned)t < 5 ? type_names[t] : "?";
}

static int type_of(const char *s, size_t n, SpecType *t)
{
	static const struct { const char *w; SpecType t; } words[] = {
		{"text", SPEC_TEXT}, {"string", SPEC_TEXT}, {"int", SPEC_INT},
		{"integer", SPEC_INT}, {"real", SPEC_REAL}, {"float", SPEC_REAL},
		{"number", SPEC_REAL}, {"bool", SPEC_BOOL}, {"boolean", SPEC_BOOL},
		{"date", SPEC_DATE},
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (str_nieq(s, n, words[i].w)) {
			*t = words[i].t;
			return 1;
		}
	return 0;
}

static int is_sep(char c)
{
	return c == ',' || c == ';' || c == '\n' || c == '\r';
}

/* blanks within a field: any white space but the line breaks that separate fields (the
   same str_trim takes off a description, so a spec and its canonical text read alike) */
static size_t skip_blank(const char *s, size_t i)
{
	while (s[i] && isspace((unsigned char)s[i]) && !is_sep(s[i]))
		i++;
	return i;
}

static int name_start(unsigned char c)
{
	return isalpha(c) || c == '_';
}

static int name_char(unsigned char c)
{
	return isalnum(c) || c == '_';
}

/* Whether s[i..] starts a field: blanks, a name, blanks, a type word, then ':', a
   separator or the end. */
static int starts_field(const char *s, size_t i)
{
	while (s[i] && (is_sep(s[i]) || isspace((unsigned char)s[i])))   /* as spec_parse does */
		i++;
	if (!name_start((unsigned char)s[i]))
		return 0;
	while (name_char((unsigned char)s[i]))
		i++;
	size_t j = skip_blank(s, i);
	if (j == i)
		return 0;
	size_t t = j;
	while (isalpha((unsigned char)s[j]))
		j++;
	SpecType ty;
	if (!type_of(s + t, j - t, &ty))
		return 0;
	j = skip_blank(s, j);
	return s[j] == ':' || s[j] == 0 || is_sep(s[j]);
}

void spec_free(Spec *sp)
{
	for (int i = 0; i < sp->n; i++) {
		free(sp->f[i].name);
		free(sp->f[i].desc);
	}
	free(sp->f);
	sp->f = NULL;
	sp->n = 0;
}

#define SPEC_HINT "write fields as 'name type: what it means, ...', such as 'noise text: how " \
	"loud it is, kid_friendly bool, wait_minutes int' (types: text, int, real, bool, date)"

static SuqlStatus fail(Spec *sp, SuqlErr *err, const char *fmt, const char *a, size_t an)
{
	spec_free(sp);
	char *what = xprintf(fmt, (int)(an > 40 ? 40 : an), a);
	SuqlStatus st = err_set(err, SUQL_ERROR, "the spec of extract() %s\nhint: %s", what,
	                        SPEC_HINT);
	free(what);
	return st;
}

SuqlStatus spec_parse(const char *s, Spec *out, SuqlErr *err)
{
	Spec sp = {0};
	*out = sp;
	size_t i = 0;
	int cap = 0;
	for (;;) {
		while (s[i] && (is_sep(s[i]) || isspace((unsigned char)s[i])))
			i++;
		if (!s[i])
			break;
		if (!name_start((unsigned char)s[i]))
			return fail(&sp, err, "has '%.*s' where a field's name should be", s + i,
			            strcspn(s + i, ",;\n"));
		size_t n0 = i;
		while (name_char((unsigned char)s[i]))
			i++;
		size_t nn = i - n0;
		if (nn > SPEC_NAME_MAX)
			return fail(&sp, err, "has a field name longer than 64 bytes ('%.*s...')", s + n0,
			            nn);
		for (int k = 0; k < sp.n; k++)
			if (str_nieq(s + n0, nn, sp.f[k].name))
				return fail(&sp, err, "names the field '%.*s' twice", s + n0, nn);
		if (str_nieq(s + n0, nn, SPEC_QUOTES_KEY))
			return fail(&sp, err, "uses the name '%.*s', which holds the quotes", s + n0, nn);
		i = skip_blank(s, i);
		size_t t0 = i;
		while (isalpha((unsigned char)s[i]))
			i++;
		SpecType ty;
		if (i == t0 || !type_of(s + t0, i - t0, &ty))
			return fail(&sp, err, "gives the field '%.*s' no type (text, int, real, bool or "
			            "date)", s + n0, nn);
		i = skip_blank(s, i);
		char *desc = NULL;
		if (s[i] == ':') {
			size_t d0 = ++i;
			while (s[i] && !(is_sep(s[i]) && (s[i] != ',' || starts_field(s, i + 1))))
				i++;
			const char *d = s + d0;
			size_t dn = i - d0;
			str_trim(&d, &dn);
			if (dn)
				desc = xstrndup(d, dn);
		} else if (s[i] && !is_sep(s[i])) {
			return fail(&sp, err, "has '%.*s' after a field's type; a description follows "
			            "a ':'", s + i, strcspn(s + i, ",;\n"));
		}
		if (sp.n == SPEC_MAX_FIELDS) {
			free(desc);
			return fail(&sp, err, "has more than 32 fields%.*s", "", 0);
		}
		if (sp.n == cap) {
			cap = cap ? cap * 2 : 4;
			sp.f = xrealloc(sp.f, (size_t)cap * sizeof *sp.f);
		}
		SpecField *f = &sp.f[sp.n++];
		f->name = xstrndup(s + n0, nn);
		f->type = ty;
		f->desc = desc;
	}
	if (sp.n == 0)
		return fail(&sp, err, "names no field%.*s", "", 0);
	*out = sp;
	return SUQL_OK;
}

char *spec_canonical(const Spec *sp)
{
	SBuf b = SBUF_INIT;
	for (int i = 0; i < sp->n; i++) {
		sb_printf(&b, "%s%s %s", i ? ", " : "", sp->f[i].name, spec_type_name(sp->f[i].type));
		if (sp->f[i].desc)
			sb_printf(&b, ": %s", sp->f[i].desc);
	}
	return sb_steal(&b);
}

json_t *spec_fields_json(const Spec *sp)
{
	json_t *a = json_array();
	for (int i = 0; i < sp->n; i++) {
		json_t *o = json_pack("{s:s, s:s}", "name", sp->f[i].name, "type",
		                      spec_type_name(sp->f[i].type));
		if (sp->f[i].desc)
			json_object_set_new(o, "description", json_string(sp->f[i].desc));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *spec_schema(const Spec *sp, int quotes)
{
	static const char *const js[] = {"string", "integer", "number", "boolean", "string"};
	json_t *props = json_object(), *req = json_array();
	for (int i = 0; i < sp->n; i++) {
		json_t *p = json_pack("{s:[s, s]}", "type", js[sp->f[i].type], "null");
		if (sp->f[i].type == SPEC_DATE)
			json_object_set_new(p, "format", json_string("date"));
		if (sp->f[i].desc)
			json_object_set_new(p, "description", json_string(sp->f[i].desc));
		json_object_set_new(props, sp->f[i].name, p);
		json_array_append_new(req, json_string(sp->f[i].name));
	}
	if (quotes) {
		json_t *qp = json_object(), *qr = json_array();
		for (int i = 0; i < sp->n; i++) {
			json_object_set_new(qp, sp->f[i].name, json_pack("{s:[s, s]}", "type", "string",
			                                                 "null"));
			json_array_append_new(qr, json_string(sp->f[i].name));
		}
		json_object_set_new(props, SPEC_QUOTES_KEY,
		                    json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", qp,
		                              "required", qr, "additionalProperties", 0));
		json_array_append_new(req, json_string(SPEC_QUOTES_KEY));
	}
	return json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required",
	                 req, "additionalProperties", 0);
}

static const LlmShape shapes[] = {LLM_SHAPE_TEXT, LLM_SHAPE_INT, LLM_SHAPE_REAL,
                                  LLM_SHAPE_BOOL, LLM_SHAPE_DATE};

/* One field's value as suql returns it: a new reference, json_null() for "the text does not
   say", NULL when v is not of the type. */
static json_t *typed(SpecType t, json_t *v)
{
	if (json_is_null(v))
		return json_null();
	if (json_is_string(v)) {
		char *val = NULL;
		int r = llm_read_value(shapes[t], json_string_value(v), &val);
		if (t == SPEC_TEXT && r < 0)
			return json_null();   /* "": no text */
		if (r <= 0)
			return r == 0 ? json_null() : NULL;
		json_t *o = NULL;
		switch (t) {
		case SPEC_TEXT: case SPEC_DATE: o = json_string(val); break;
		case SPEC_INT: o = json_integer(strtoll(val, NULL, 10)); break;
		case SPEC_REAL: o = json_real(strtod(val, NULL)); break;
		case SPEC_BOOL: o = json_boolean(val[0] == '1'); break;
		}
		free(val);
		return o;
	}
	switch (t) {
	case SPEC_INT:
		if (json_is_integer(v))
			return json_integer(json_integer_value(v));
		if (json_is_real(v)) {
			double d = json_real_value(v);
			if (isfinite(d) && d == floor(d) && fabs(d) < 9e15)
				return json_integer((json_int_t)d);
		}
		return NULL;
	case SPEC_REAL:
		if (json_is_number(v) && isfinite(json_number_value(v)))
			return json_real(json_number_value(v));
		return NULL;
	case SPEC_BOOL:
		return json_is_boolean(v) ? json_boolean(json_is_true(v)) : NULL;
	default:
		return NULL;
	}
}

static int found_in(const char *q, const char *const *text, int ntext)
{
	if (!*q)
		return 0;
	for (int i = 0; i < ntext; i++)
		if (text[i] && strstr(text[i], q))
			return 1;
	return 0;
}

int spec_check(const Spec *sp, json_t *o, int quotes, const char *const *text, int ntext,
               char **out, char **why)
{
	*out = *why = NULL;
	if (!json_is_object(o)) {
		*why = xstrdup("not a JSON object");
		return 0;
	}
	json_t *r = json_object();
	for (int i = 0; i < sp->n; i++) {
		json_t *v = json_object_get(o, sp->f[i].name);
		json_t *t = v ? typed(sp->f[i].type, v) : NULL;
		if (!t) {
			*why = v ? xprintf("'%s' is not %s %s", sp->f[i].name,
			                   sp->f[i].type == SPEC_INT ? "an" : "a",
			                   spec_type_name(sp->f[i].type))
			         : xprintf("no '%s'", sp->f[i].name);
			json_decref(r);
			return 0;
		}
		json_object_set_new(r, sp->f[i].name, t);
	}
	if (quotes) {
		json_t *qs = json_object_get(o, SPEC_QUOTES_KEY), *rq = json_object();
		for (int i = 0; i < sp->n; i++) {
			json_t *q = json_object_get(qs, sp->f[i].name);
			int keep = json_is_string(q) && found_in(json_string_value(q), text, ntext);
			json_object_set_new(rq, sp->f[i].name, keep ? json_copy(q) : json_null());
		}
		json_object_set_new(r, SPEC_QUOTES_KEY, rq);
	}
	*out = json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(r);
	return 1;
}
