/*
 * setting.c: settings rows read, stored, shown and described by their kind (setting.h).
 */
#include "base/setting.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const SetRow *setting_find(const SetTable *t, const char *name)
{
	for (int i = 0; i < t->nrows; i++)
		if (str_ieq(name, t->rows[i].name))
			return &t->rows[i];
	return NULL;
}

int setting_parse_long(const char *v, double lo, double hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || (double)n < lo || (double)n > hi)
		return 0;
	*out = n;
	return 1;
}

int setting_parse_real(const char *v, double lo, double hi, int above_lo, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!*v || *end || errno || !(above_lo ? d > lo : d >= lo) || !(d <= hi))
		return 0;
	*out = d;
	return 1;
}

long setting_parse_ms(const char *v)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || errno || x < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (!*end || strcmp(end, "s") == 0)
		x *= 1000;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		x *= 60000;
	else if (strcmp(end, "ms") != 0)
		return -1;
	return x > 86400000 ? -1 : (long)x;
}

/* The n-th word of a blank-separated list: its start and length (0 when there is none). */
static size_t word_at(const char *words, int n, const char **start)
{
	const char *p = words;
	for (int i = 0;; i++) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if (!len)
			return 0;
		if (i == n) {
			*start = p;
			return len;
		}
		p += len;
	}
}

/* The position of value among the words, or -1. */
static int choice_index(const char *words, const char *value)
{
	const char *w;
	size_t len;
	for (int i = 0; (len = word_at(words, i, &w)) > 0; i++)
		if (str_nieq(w, len, value))
			return i;
	const char *w1;
	int on;
	if (word_at(words, 0, &w) == 3 && strncmp(w, "off", 3) == 0 &&
	    word_at(words, 1, &w1) == 2 && strncmp(w1, "on", 2) == 0 && str_parse_bool(value, &on))
		return on;
	return -1;
}

int setting_choice(const SetRow *row, const char *value)
{
	return row->choices ? choice_index(row->choices, value) : -1;
}

SuqlStatus setting_bad(const SetRow *row, const char *value, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	if (row->expects) {   /* "{range}" stands for "MIN to MAX" */
		const char *r = strstr(row->expects, "{range}");
		sb_putn(&b, row->expects, r ? (size_t)(r - row->expects) : strlen(row->expects));
		if (r) {
			sb_printf(&b, "%.15g to %.15g", row->min, row->max);
			sb_puts(&b, r + strlen("{range}"));
		}
	} else switch (row->kind) {
	case SET_BOOL:
		sb_puts(&b, "takes on or off");
		break;
	case SET_INT:
	case SET_LONG:
	case SET_SIZE:
		sb_printf(&b, "takes a whole number from %.15g to %.15g", row->min, row->max);
		break;
	case SET_REAL:
		sb_printf(&b, "takes a number %s %g, at most %g",
		          row->flags & SET_ABOVE_MIN ? "above" : "from", row->min, row->max);
		break;
	case SET_MS:
		sb_puts(&b, "is a duration in seconds (30, 30s, 1500ms)");
		break;
	case SET_CHOICE: {
		sb_puts(&b, "takes ");
		const char *w;
		size_t len;
		int n = 0;
		while (word_at(row->choices, n, &w))
			n++;
		for (int i = 0; (len = word_at(row->choices, i, &w)) > 0; i++) {
			sb_puts(&b, i == 0 ? "" : i == n - 1 ? " or " : ", ");
			sb_putn(&b, w, len);
		}
		break;
	}
	case SET_TEXT:
		sb_puts(&b, "takes text");
		break;
	}
	err_set(err, SUQL_USAGE, "%s %s, not '%s'", row->name, sb_str(&b), value);
	sb_free(&b);
	return SUQL_USAGE;
}

SuqlStatus setting_unknown(const SetTable *t, const char *name, SuqlErr *err)
{
	if (!t || !t->prefix)
		return err_set(err, SUQL_USAGE, "unknown setting '%s'", name);
	SBuf b = SBUF_INIT;
	for (int i = 0; i < t->nrows; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", t->rows[i].name);
	err_set(err, SUQL_USAGE, "unknown setting '%s' (%s)", name, sb_str(&b));
	sb_free(&b);
	return SUQL_USAGE;
}

static SuqlStatus store(const SetRow *row, void *obj, const char *value, SuqlErr *err)
{
	if (row->set)
		return row->set(obj, row, value, err);
	void *f = (char *)obj + row->off;
	long n;
	double d;
	int b;
	switch (row->kind) {
	case SET_BOOL:
		if (!str_parse_bool(value, &b))
			return setting_bad(row, value, err);
		*(int *)f = b;
		break;
	case SET_INT:
	case SET_LONG:
	case SET_SIZE:
		if (!setting_parse_long(value, row->min, row->max, &n))
			return setting_bad(row, value, err);
		if (row->kind == SET_INT)
			*(int *)f = (int)n;
		else if (row->kind == SET_LONG)
			*(long *)f = n;
		else
			*(size_t *)f = (size_t)n;
		break;
	case SET_REAL:
		if (!setting_parse_real(value, row->min, row->max, row->flags & SET_ABOVE_MIN, &d))
			return setting_bad(row, value, err);
		*(double *)f = d;
		break;
	case SET_MS:
		n = setting_parse_ms(value);
		if (n < 0 || (double)n < row->min || (double)n > row->max ||
		    ((row->flags & SET_ABOVE_MIN) && (double)n <= row->min))
			return setting_bad(row, value, err);
		*(int *)f = (int)n;
		break;
	case SET_CHOICE:
		b = choice_index(row->choices, value);
		if (b < 0)
			return setting_bad(row, value, err);
		*(int *)f = b;
		break;
	case SET_TEXT:
		free(*(char **)f);
		*(char **)f = xstrdup(value);
		break;
	}
	return SUQL_OK;
}

SuqlStatus setting_apply(const SetTable *t, const SetRow *row, void *obj, const char *value,
                         SuqlErr *err)
{
	SuqlStatus st = store(row, obj, value, err);
	if (st == SUQL_OK && t->changed)
		t->changed(obj);
	return st;
}

SuqlStatus setting_set(const SetTable *t, void *obj, const char *name, const char *value,
                       SuqlErr *err)
{
	const SetRow *row = setting_find(t, name);
	if (!row)
		return setting_unknown(t, name, err);
	return setting_apply(t, row, obj, value, err);
}

void setting_show(const SetRow *row, const void *obj, SBuf *out)
{
	sb_printf(out, "%s = ", row->name);
	const void *f = (const char *)obj + row->off;
	const char *w;
	size_t len;
	if (row->show) {
		row->show(obj, row, out);
	} else {
		switch (row->kind) {
		case SET_BOOL:
			sb_puts(out, *(const int *)f ? "on" : "off");
			break;
		case SET_INT:
			sb_printf(out, "%d", *(const int *)f);
			break;
		case SET_LONG:
			sb_printf(out, "%ld", *(const long *)f);
			break;
		case SET_SIZE:
			sb_printf(out, "%zu", *(const size_t *)f);
			break;
		case SET_REAL:
			sb_printf(out, "%g", *(const double *)f);
			break;
		case SET_MS:
			sb_printf(out, "%gs", *(const int *)f / 1000.0);
			break;
		case SET_CHOICE:
			len = word_at(row->choices, *(const int *)f, &w);
			sb_putn(out, len ? w : "?", len ? len : 1);
			break;
		case SET_TEXT:
			sb_puts(out, *(char *const *)f ? *(char *const *)f : "NULL");
			break;
		}
	}
	sb_putc(out, '\n');
}

void setting_show_all(const SetTable *t, const void *obj, SBuf *out)
{
	for (int i = 0; i < t->nrows; i++)
		setting_show(&t->rows[i], obj, out);
}

char *setting_words(const SetRow *row)
{
	if (row->choices)
		return xstrdup(row->choices);
	return row->kind == SET_BOOL ? xstrdup("on off") : NULL;
}
