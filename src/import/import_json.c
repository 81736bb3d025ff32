/*
 * import_json.c: the JSON and JSONL record readers.
 *
 * jansson parses every record. A JSON array is not parsed whole: a small scanner finds
 * where each top-level element begins and ends (strings, escapes and nesting only), and
 * each element is parsed on its own, so memory stays at one record and every message can
 * say on which line the record is. When the scanner meets something it cannot split (a
 * missing ']', a broken string), the whole text goes to jansson so that the message is
 * jansson's, at jansson's position. JSONL is one object per line.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(ImpReader *r)
{
	while (r->pos < r->len && is_ws(r->buf[r->pos])) {
		if (r->buf[r->pos] == '\n') {
			r->line++;
			r->lstart = r->pos + 1;
		}
		r->pos++;
	}
}

static ImpPos here(const ImpReader *r)
{
	ImpPos p = {r->pos, r->line, r->lstart};
	return p;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Where jansson's error is: it reports the offset just past the offending token and names
   the token ("... near 'x'"); point at the token's start when the text agrees. */
static size_t error_offset(const char *text, size_t len, const json_error_t *je)
{
	size_t pos = je->position > 0 ? (size_t)je->position : 0;
	if (pos > len)
		pos = len;
	const char *near = strstr(je->text, "near '");
	size_t tl = near ? strlen(near + 6) : 0;
	if (near && tl > 0 && near[6 + tl - 1] == '\'') {
		tl--;
		if (tl <= pos && memcmp(text + pos - tl, near + 6, tl) == 0)
			return pos - tl;
	}
	return pos > 0 ? pos - 1 : 0;
}

/* Parse buf[p.off, p.off+len) as one record. */
static int parse_record(ImpReader *r, ImpPos p, size_t len, SuqlErr *err)
{
	json_error_t je;
	json_decref(r->obj);
	r->obj = json_loadb(r->buf + p.off, len, JSON_DECODE_ANY, &je);
	if (!r->obj && strstr(je.text, "\\u0000")) {
		/* a NUL inside a string: SQLite would keep the bytes, but every function and
		   display stops at the NUL, so the value would read as cut short */
		const char *t = r->buf + p.off;
		size_t end = je.position > 0 && (size_t)je.position <= len ? (size_t)je.position : len;
		size_t at = 0;
		for (size_t i = 0; i <= end && i + 6 <= len; i++)
			if (memcmp(t + i, "\\u0000", 6) == 0)
				at = i;
		ImpPos e = imp_pos_advance(r, p, p.off + at);
		return imp_error(err, r, e, 1, "a NUL character (\\u0000) in a string: SQLite "
		                 "would cut the text short there; remove it"), -1;
	}
	if (!r->obj) {
		size_t at = error_offset(r->buf + p.off, len, &je);
		ImpPos e = imp_pos_advance(r, p, p.off + at);
		return imp_error(err, r, e, 1, "invalid JSON: %s", je.text), -1;
	}
	if (!json_is_object(r->obj)) {
		const char *k = json_kind(r->obj);
		json_decref(r->obj);
		r->obj = NULL;
		return imp_error(err, r, p, 1, "expected a JSON object (one row), found %s", k), -1;
	}
	r->rec = p;
	r->rec_len = len;
	r->recno++;
	return 1;
}

/* The whole text through jansson, for its message about what the scanner could not split. */
static int whole_text_error(ImpReader *r, SuqlErr *err)
{
	json_error_t je;
	json_t *all = json_loadb(r->buf, r->len, JSON_DECODE_ANY, &je);
	ImpPos start = {0, 1, 0};
	if (all) {
		json_decref(all);
		ImpPos p = here(r);
		return imp_error(err, r, p, 1, "cannot read the JSON array here"), -1;
	}
	size_t at = error_offset(r->buf, r->len, &je);
	ImpPos p = imp_pos_advance(r, start, at);
	return imp_error(err, r, p, 1, "invalid JSON: %s", je.text), -1;
}

/* Offset just past the JSON value starting at i (a string, or a balanced [ ] { } run, or a
   bare literal); r->len when it never ends. */
static size_t skip_value(const char *b, size_t n, size_t i)
{
	int depth = 0;
	while (i < n) {
		char c = b[i];
		if (c == '"') {
			i++;
			while (i < n && b[i] != '"')
				i += b[i] == '\\' ? 2 : 1;
			if (i >= n)
				return n;
			i++;
			if (depth == 0)
				return i;
			continue;
		}
		if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 && (c == ',' || is_ws(c))) {
			return i;
		}
		i++;
	}
	return n;
}

static int json_array_next(ImpReader *r, SuqlErr *err)
{
	if (r->array_done == 2)
		return 0;
	if (r->array_done == 0) {
		skip_ws(r);
		if (r->pos >= r->len || r->buf[r->pos] != '[') {
			if (r->pos < r->len && r->buf[r->pos] == '{')
				return imp_error(err, r, here(r), 1, "expected a JSON array of objects; for "
				                 "one object per line, use --format jsonl"), -1;
			return whole_text_error(r, err);
		}
		r->pos++;
		r->array_done = 1;
		skip_ws(r);
		if (r->pos < r->len && r->buf[r->pos] == ']') {
			r->pos++;
			goto closed;
		}
	} else {
		skip_ws(r);
		if (r->pos < r->len && r->buf[r->pos] == ']') {
			r->pos++;
			goto closed;
		}
		if (r->pos >= r->len || r->buf[r->pos] != ',')
			return whole_text_error(r, err);
		r->pos++;
		skip_ws(r);
	}
	ImpPos start = here(r);
	size_t end = skip_value(r->buf, r->len, r->pos);
	if (end >= r->len)
		return whole_text_error(r, err);
	ImpPos after = imp_pos_advance(r, start, end);
	int k = parse_record(r, start, end - start.off, err);
	r->pos = after.off;
	r->line = after.line;
	r->lstart = after.lstart;
	return k;
closed:
	r->array_done = 2;
	skip_ws(r);
	if (r->pos < r->len)
		return imp_error(err, r, here(r), 1, "unexpected text after the JSON array"), -1;
	return 0;
}

static int jsonl_next(ImpReader *r, SuqlErr *err)
{
	for (;;) {
		if (r->pos >= r->len)
			return 0;
		size_t e = r->pos;
		while (e < r->len && r->buf[e] != '\n')
			e++;
		size_t le = e;
		if (le > r->pos && r->buf[le - 1] == '\r')
			le--;
		size_t s = r->pos;
		while (s < le && is_ws(r->buf[s]))
			s++;
		ImpPos p = {s, r->line, r->lstart};
		r->pos = e < r->len ? e + 1 : e;
		if (e < r->len) {
			r->line++;
			r->lstart = e + 1;
		}
		if (s == le)
			continue;   /* blank line */
		return parse_record(r, p, le - s, err);
	}
}

int imp_json_next(ImpReader *r, SuqlErr *err)
{
	return r->fmt == IMPORT_JSONL ? jsonl_next(r, err) : json_array_next(r, err);
}

ImpPos imp_json_key_pos(const ImpReader *r, const char *key, int at_key)
{
	const char *b = r->buf + r->rec.off;
	size_t n = r->rec_len, klen = strlen(key);
	size_t i = 0;
	while (i < n && is_ws(b[i]))
		i++;
	if (i >= n || b[i] != '{')
		return r->rec;
	i++;
	for (;;) {
		while (i < n && (is_ws(b[i]) || b[i] == ','))
			i++;
		if (i >= n || b[i] != '"')
			return r->rec;
		size_t ks = i + 1;
		size_t ke = skip_value(b, n, i);
		if (ke >= n)
			return r->rec;
		int match = ke - 1 - ks == klen && memcmp(b + ks, key, klen) == 0;
		if (match && at_key)
			return imp_pos_advance(r, r->rec, r->rec.off + ks - 1);
		i = ke;
		while (i < n && (is_ws(b[i]) || b[i] == ':'))
			i++;
		if (match)
			return imp_pos_advance(r, r->rec, r->rec.off + i);
		i = skip_value(b, n, i);
		if (i >= n)
			return r->rec;
	}
}
