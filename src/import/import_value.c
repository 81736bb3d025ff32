/*
 * import_value.c: column types for the importer: what class of value a declared type
 * takes, inference from the values seen (the rules are in import.h), and checking and
 * binding each value (CSV text or JSON) to the INSERT statement.
 *
 * SUQL lists are stored as compact JSON arrays; each element is checked against the
 * element type (INTEGER[] takes integers, ENUM('a','b')[] takes 'a' and 'b').
 */
#include "import/import_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The class of a plain SQL type, after SQLite's affinity rules (section 3.1 of its
   datatype documentation), with BOOLEAN apart. */
static ImpClass sql_class(const char *t)
{
	if (!t || !*t)
		return IC_ANY;
	char up[64];
	size_t n = strlen(t);
	if (n >= sizeof up)
		n = sizeof up - 1;
	for (size_t i = 0; i < n; i++)
		up[i] = (char)toupper((unsigned char)t[i]);
	up[n] = '\0';
	if (strstr(up, "INT"))
		return IC_INT;
	if (strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT"))
		return IC_TEXT;
	if (strstr(up, "BLOB"))
		return IC_ANY;
	if (strstr(up, "BOOL"))
		return IC_BOOL;
	if (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB") || strstr(up, "NUM") ||
	    strstr(up, "DEC"))
		return IC_REAL;
	return IC_TEXT;   /* DATE, JSON, anything else: stored as given */
}

SuqlStatus imp_col_set_type(ImpCol *c, const char *decl, SuqlErr *err)
{
	CatColumn cc = {0};
	int k = catalog_parse_type(decl, &cc, err);
	if (k < 0)
		return SUQL_ERROR;
	catalog_column_free(&c->cat);
	c->cat = cc;
	if (c->cat.free_text || c->cat.is_enum) {
		c->cls = IC_TEXT;
	} else if (c->cat.is_array) {
		/* the element type: the declaration without its [] */
		char *el = xstrdup(c->cat.type);
		char *br = strchr(el, '[');
		if (br)
			*br = '\0';
		c->cls = sql_class(el);
		free(el);
	} else {
		c->cls = sql_class(c->cat.type);
	}
	return SUQL_OK;
}

/* ---- recognising values ---- */

/* s[0..n) without surrounding blanks, copied into buf as a string; its length, or 0 when
   nothing is left or it does not fit. */
static size_t trim_copy(const char *s, size_t n, char *buf, size_t cap)
{
	str_trim(&s, &n);
	if (n == 0 || n >= cap)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return n;
}

static int parse_int(const char *s, size_t n, long long *out)
{
	char buf[40];
	if ((n = trim_copy(s, n, buf, sizeof buf)) == 0)
		return 0;
	size_t i = buf[0] == '-' || buf[0] == '+';
	if (!buf[i])
		return 0;
	for (size_t j = i; buf[j]; j++)
		if (!isdigit((unsigned char)buf[j]))
			return 0;
	errno = 0;
	long long v = strtoll(buf, NULL, 10);
	if (errno == ERANGE)
		return 0;
	*out = v;
	return 1;
}

static int parse_real(const char *s, size_t n, double *out)
{
	char buf[64];
	if ((n = trim_copy(s, n, buf, sizeof buf)) == 0)
		return 0;
	/* digits, sign, point and exponent only: no "inf", "nan" or hex */
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)buf[i]) && !strchr("+-.eE", buf[i]))
			return 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

static int parse_bool(const char *s, size_t n, int *out)
{
	static const char *const yes[] = {"1", "true", "t", "yes", "y", NULL};
	static const char *const no[] = {"0", "false", "f", "no", "n", NULL};
	str_trim(&s, &n);
	for (int i = 0; yes[i]; i++)
		if (str_nieq(s, n, yes[i]))
			return *out = 1, 1;
	for (int i = 0; no[i]; i++)
		if (str_nieq(s, n, no[i]))
			return *out = 0, 1;
	return 0;
}

static double count_words(const char *s, size_t n)
{
	double w = 0;
	int in = 0;
	for (size_t i = 0; i < n; i++) {
		int sp = isspace((unsigned char)s[i]);
		if (!sp && !in)
			w++;
		in = !sp;
	}
	return w;
}

/* ---- inference ---- */

static void infer_elem(ImpInfer *f, json_t *e)
{
	f->elems++;
	if (json_is_integer(e) || json_is_boolean(e)) {
		f->elem_ints++;
	} else if (json_is_real(e)) {
		f->elem_reals++;
	} else if (json_is_string(e)) {
		f->elem_strings++;
		f->elem_bytes += (double)json_string_length(e);
		f->elem_words += count_words(json_string_value(e), json_string_length(e));
	} else if (!json_is_null(e)) {
		f->elem_other++;
	}
}

void imp_infer_json(ImpCol *c, json_t *v)
{
	ImpInfer *f = &c->inf;
	if (!v || json_is_null(v))
		return;
	f->values++;
	switch (json_typeof(v)) {
	case JSON_INTEGER: f->ints++; break;
	case JSON_REAL: f->reals++; break;
	case JSON_TRUE:
	case JSON_FALSE: f->bools++; break;
	case JSON_STRING:
		f->strings++;
		f->text_bytes += (double)json_string_length(v);
		f->text_words += count_words(json_string_value(v), json_string_length(v));
		break;
	case JSON_ARRAY: {
		f->arrays++;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			infer_elem(f, e);
		break;
	}
	default: f->objects++; break;
	}
}

void imp_infer_text(ImpCol *c, const char *s, size_t n, int quoted)
{
	ImpInfer *f = &c->inf;
	(void)quoted;   /* "" says nothing about the column's type (writers quote everything) */
	if (n == 0)
		return;
	long long iv;
	double dv;
	size_t i = 0;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '[') {
		json_t *a = json_loadb(s, n, 0, NULL);
		if (a && json_is_array(a)) {
			imp_infer_json(c, a);
			json_decref(a);
			return;
		}
		json_decref(a);
	}
	f->values++;
	if (parse_int(s, n, &iv)) {
		f->ints++;
	} else if (parse_real(s, n, &dv)) {
		f->reals++;
	} else {
		f->strings++;
		f->text_bytes += (double)n;
		f->text_words += count_words(s, n);
	}
}

/* Long, wordy texts are free text: at least 64 bytes and 8 words on average. */
static int wordy(double bytes, double words, long long count)
{
	return count > 0 && bytes / (double)count >= 64 && words / (double)count >= 8;
}

const char *imp_infer_decide(const ImpCol *c)
{
	const ImpInfer *f = &c->inf;
	if (f->arrays > 0 && f->objects == 0) {
		if (f->elems == 0 || f->elem_other > 0)
			return "TEXT[]";
		if (f->elem_ints == f->elems)
			return "INTEGER[]";
		if (f->elem_ints + f->elem_reals == f->elems)
			return "REAL[]";
		if (f->elem_strings == f->elems && wordy(f->elem_bytes, f->elem_words, f->elems))
			return "FREE_TEXT[]";
		return "TEXT[]";
	}
	if (f->values == 0)
		return "TEXT";
	if (f->ints + f->bools == f->values)
		return "INTEGER";
	if (f->ints + f->bools + f->reals == f->values)
		return "REAL";
	if (f->strings == f->values && wordy(f->text_bytes, f->text_words, f->strings))
		return "FREE_TEXT";
	return "TEXT";
}

/* ---- checking and binding ---- */

static const char *article(const char *t)
{
	return strchr("AEIOUaeiou", t[0]) ? "an" : "a";
}

static char *shown(const char *s, size_t n)
{
	if (n > 40)
		return xprintf("%.37s...", s);
	return xstrndup(s, n);
}

static char *misfit(const ImpCol *c, const char *s, size_t n)
{
	char *v = shown(s, n);
	char *t = xstrdup(c->cat.type);
	char *br = c->cat.is_array ? strchr(t, '[') : NULL;
	if (br)
		*br = '\0';
	char *m;
	if (c->cat.is_enum && c->cat.enum_values)
		m = xprintf("'%s' is not one of the values of %s (column %s)", v, t, c->name);
	else if (c->cls == IC_BOOL)
		m = xprintf("'%s' is not a boolean (true, false, 1 or 0) (column %s)", v, c->name);
	else
		m = xprintf("'%s' is not %s %s (column %s)", v, article(t), t, c->name);
	free(v);
	free(t);
	return m;
}

static int enum_ok(const ImpCol *c, const char *s)
{
	if (!c->cat.is_enum || !c->cat.enum_values)
		return 1;
	for (int i = 0; i < c->cat.nenum; i++)
		if (strcmp(c->cat.enum_values[i], s) == 0)
			return 1;
	return 0;
}

/* A text value of class cls as a JSON value (for list elements); NULL with *why when it
   does not fit. */
static json_t *text_to_json(const ImpCol *c, const char *s, size_t n, char **why)
{
	long long iv;
	double dv;
	int bv;
	switch (c->cls) {
	case IC_INT:
		if (parse_int(s, n, &iv))
			return json_integer(iv);
		break;
	case IC_REAL:
		if (parse_real(s, n, &dv))
			return json_real(dv);
		break;
	case IC_BOOL:
		if (parse_bool(s, n, &bv))
			return json_integer(bv);
		break;
	default: {
		json_t *v = json_stringn(s, n);
		if (!v) {
			*why = xprintf("invalid UTF-8 (column %s)", c->name);
			return NULL;
		}
		if (enum_ok(c, json_string_value(v)))
			return v;
		json_decref(v);
		break;
	}
	}
	*why = misfit(c, s, n);
	return NULL;
}

/* A JSON element checked against the column's element class. New reference or NULL. */
static json_t *elem_check(const ImpCol *c, json_t *e, char **why)
{
	if (json_is_string(e))
		return text_to_json(c, json_string_value(e), json_string_length(e), why);
	if (c->cls == IC_TEXT || c->cls == IC_ANY) {
		if (json_is_object(e) || json_is_array(e)) {
			*why = xprintf("a list element is %s (column %s)", json_is_object(e) ?
			               "an object" : "a list", c->name);
			return NULL;
		}
		if (c->cat.is_enum && c->cat.enum_values) {
			char *t = json_dumps(e, JSON_ENCODE_ANY);
			*why = misfit(c, t, strlen(t));
			free(t);
			return NULL;
		}
		return json_incref(e);
	}
	if (json_is_integer(e) || (c->cls == IC_REAL && json_is_real(e)))
		return json_incref(e);
	if (json_is_boolean(e) && (c->cls == IC_INT || c->cls == IC_BOOL))
		return json_integer(json_is_true(e));
	if (json_is_real(e) && c->cls == IC_INT && json_real_value(e) == floor(json_real_value(e)) &&
	    fabs(json_real_value(e)) < 9e15)
		return json_integer((json_int_t)json_real_value(e));
	char *t = json_dumps(e, JSON_ENCODE_ANY);
	*why = misfit(c, t, strlen(t));
	free(t);
	return NULL;
}

static int bind_list(sqlite3_stmt *st, int i, json_t *list)
{
	char *t = json_dumps(list, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(list);
	sqlite3_bind_text(st, i, t, -1, free);
	return 0;
}

/* Would every element come out of elem_check as it went in? (Strings of a text list that
   are within its ENUM, the common case of a FREE_TEXT[] column: the array is written as it
   was read, without a copy of each string.) */
static int passes_as_is(const ImpCol *c, json_t *arr)
{
	if (c->cls != IC_TEXT && c->cls != IC_ANY)
		return 0;
	size_t k;
	json_t *e;
	json_array_foreach(arr, k, e) {
		if (!json_is_string(e) || !enum_ok(c, json_string_value(e)))
			return 0;
	}
	return 1;
}

/* Check each element of a JSON array for a list column; bind the checked list. */
static int bind_json_list(sqlite3_stmt *st, int i, const ImpCol *c, json_t *arr, char **why)
{
	if (passes_as_is(c, arr))
		return bind_list(st, i, json_incref(arr));
	json_t *out = json_array();
	size_t k;
	json_t *e;
	json_array_foreach(arr, k, e) {
		if (json_is_null(e))
			continue;
		json_t *v = elem_check(c, e, why);
		if (!v) {
			json_decref(out);
			return -1;
		}
		json_array_append_new(out, v);
	}
	return bind_list(st, i, out);
}

int imp_bind_text(sqlite3_stmt *st, int i, const ImpCol *c, const char *s, size_t n,
                  int quoted, const char *array_sep, char **why)
{
	long long iv;
	double dv;
	int bv;
	if (n == 0 && (!quoted || c->cls != IC_TEXT || c->cat.is_array || c->cat.is_enum)) {
		sqlite3_bind_null(st, i);
		return 0;
	}
	if (c->cat.is_array) {
		size_t k = 0;
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k < n && s[k] == '[') {
			json_error_t je;
			json_t *a = json_loadb(s, n, 0, &je);
			if (!a || !json_is_array(a)) {
				json_decref(a);
				*why = xprintf("invalid JSON list (column %s): %s", c->name,
				               a ? "not an array" : je.text);
				return -1;
			}
			int r = bind_json_list(st, i, c, a, why);
			json_decref(a);
			return r;
		}
		json_t *out = json_array();
		size_t sl = array_sep && *array_sep ? strlen(array_sep) : 0;
		size_t a = 0;
		while (a <= n) {
			size_t b = n;
			if (sl) {
				const char *hit = NULL;
				for (size_t p = a; p + sl <= n && !hit; p++)
					if (memcmp(s + p, array_sep, sl) == 0)
						hit = s + p;
				if (hit)
					b = (size_t)(hit - s);
			}
			size_t x = a, y = b;
			while (x < y && isspace((unsigned char)s[x]))
				x++;
			while (y > x && isspace((unsigned char)s[y - 1]))
				y--;
			if (y > x) {
				json_t *v = text_to_json(c, s + x, y - x, why);
				if (!v) {
					json_decref(out);
					return -1;
				}
				json_array_append_new(out, v);
			}
			a = b + (sl ? sl : 1);
		}
		return bind_list(st, i, out);
	}
	switch (c->cls) {
	case IC_INT:
		if (!parse_int(s, n, &iv))
			break;
		sqlite3_bind_int64(st, i, iv);
		return 0;
	case IC_REAL:
		if (!parse_real(s, n, &dv))
			break;
		sqlite3_bind_double(st, i, dv);
		return 0;
	case IC_BOOL:
		if (!parse_bool(s, n, &bv))
			break;
		sqlite3_bind_int(st, i, bv);
		return 0;
	case IC_ANY:
		if (parse_int(s, n, &iv))
			sqlite3_bind_int64(st, i, iv);
		else if (parse_real(s, n, &dv))
			sqlite3_bind_double(st, i, dv);
		else
			sqlite3_bind_text(st, i, s, (int)n, SQLITE_TRANSIENT);
		return 0;
	case IC_TEXT: {
		if (c->cat.is_enum && c->cat.enum_values) {
			char *t = xstrndup(s, n);
			int ok = enum_ok(c, t);
			free(t);
			if (!ok)
				break;
		}
		sqlite3_bind_text(st, i, s, (int)n, SQLITE_TRANSIENT);
		return 0;
	}
	}
	*why = misfit(c, s, n);
	return -1;
}

int imp_bind_json(sqlite3_stmt *st, int i, const ImpCol *c, json_t *v, char **why)
{
	if (!v || json_is_null(v)) {
		sqlite3_bind_null(st, i);
		return 0;
	}
	if (json_is_string(v))
		return imp_bind_text(st, i, c, json_string_value(v), json_string_length(v), 1, NULL, why);
	if (c->cat.is_array) {
		if (json_is_array(v))
			return bind_json_list(st, i, c, v, why);
		if (json_is_object(v)) {
			*why = xprintf("an object is not a list (column %s)", c->name);
			return -1;
		}
		json_t *one = json_array();
		json_array_append(one, v);
		int r = bind_json_list(st, i, c, one, why);
		json_decref(one);
		return r;
	}
	if (json_is_array(v) || json_is_object(v)) {
		if (c->cls == IC_TEXT && !(c->cat.is_enum && c->cat.enum_values)) {
			sqlite3_bind_text(st, i, json_dumps(v, JSON_COMPACT), -1, free);
			return 0;
		}
		if (c->cls == IC_ANY) {
			sqlite3_bind_text(st, i, json_dumps(v, JSON_COMPACT), -1, free);
			return 0;
		}
		char *t = json_dumps(v, JSON_COMPACT);
		*why = misfit(c, t, strlen(t));
		free(t);
		return -1;
	}
	/* a number or a boolean */
	if (c->cls == IC_TEXT || (c->cls == IC_INT && json_is_real(v)) ||
	    (c->cls == IC_BOOL && json_is_real(v))) {
		char *t = json_dumps(v, JSON_ENCODE_ANY);
		int r = imp_bind_text(st, i, c, t, strlen(t), 1, NULL, why);
		free(t);
		return r;
	}
	if (json_is_boolean(v))
		sqlite3_bind_int(st, i, json_is_true(v));
	else if (json_is_integer(v))
		sqlite3_bind_int64(st, i, json_integer_value(v));
	else
		sqlite3_bind_double(st, i, json_real_value(v));
	return 0;
}
