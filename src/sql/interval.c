/*
 * interval.c: PostgreSQL's INTERVAL literals ('3 days', '1 year 2 months', '2 hours ago'),
 * read into the modifiers SQLite's date functions take ('+3 days'), so that
 * `d + INTERVAL '3 days'` can be written as `date(d, '+3 days')`. Only what SQLite's
 * modifiers can say is accepted: whole years, months and weeks (seven days), and days, hours,
 * minutes and seconds with an optional fraction; a text with anything else is not an
 * interval here (the parser says so, with a caret).
 */
#include "sql/ast.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *word;
	const char *unit;   /* SQLite's modifier unit; "weeks" becomes days */
	int whole;          /* only whole numbers */
} UNITS[] = {
	{"y", "years", 1}, {"yr", "years", 1}, {"yrs", "years", 1}, {"year", "years", 1},
	{"years", "years", 1}, {"mon", "months", 1}, {"mons", "months", 1},
	{"month", "months", 1}, {"months", "months", 1}, {"w", "weeks", 1}, {"week", "weeks", 1},
	{"weeks", "weeks", 1}, {"d", "days", 0}, {"day", "days", 0}, {"days", "days", 0},
	{"h", "hours", 0}, {"hr", "hours", 0}, {"hrs", "hours", 0}, {"hour", "hours", 0},
	{"hours", "hours", 0}, {"min", "minutes", 0}, {"mins", "minutes", 0},
	{"minute", "minutes", 0}, {"minutes", "minutes", 0}, {"s", "seconds", 0},
	{"sec", "seconds", 0}, {"secs", "seconds", 0}, {"second", "seconds", 0},
	{"seconds", "seconds", 0},
};

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The literal's value without its quotes ('it''s' -> it's), or -1 when it is not a short
   string literal. */
static int unquote(const char *raw, size_t n, char *out, size_t cap)
{
	if (n < 2 || raw[0] != '\'' || raw[n - 1] != '\'')
		return -1;
	size_t k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (raw[i] == '\'')
			i++;   /* '' stands for one quote */
		if (k + 1 >= cap)
			return -1;
		out[k++] = raw[i];
	}
	out[k] = 0;
	return (int)k;
}

int ast_interval_mods(const char *raw, size_t n, char mods[][AST_INTERVAL_MOD], int *has_time)
{
	char buf[256];
	char scratch[AST_INTERVAL_MAX][AST_INTERVAL_MOD];
	if (!mods)
		mods = scratch;
	if (unquote(raw, n, buf, sizeof buf) < 0)
		return -1;
	int nm = 0, ago = 0;
	int time = 0;
	const char *p = buf;
	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		if (nm > 0 && strncmp(p, "ago", 3) == 0 && !is_alpha(p[3])) {
			ago = 1;
			p += 3;
			continue;
		}
		if (ago || nm == AST_INTERVAL_MAX)
			return -1;
		/* [+-]digits[.digits] */
		int neg = 0;
		if (*p == '+' || *p == '-')
			neg = *p++ == '-';
		const char *d = p;
		while (is_digit(*p))
			p++;
		int frac = 0;
		if (*p == '.' && is_digit(p[1])) {
			frac = 1;
			p++;
			while (is_digit(*p))
				p++;
		}
		if (p == d || p - d > 12)
			return -1;
		size_t dn = (size_t)(p - d);
		while (is_space(*p))
			p++;
		const char *w = p;
		while (is_alpha(*p))
			p++;
		size_t wn = (size_t)(p - w);
		int u = -1;
		for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
			if (str_nieq(w, wn, UNITS[i].word))
				u = (int)i;
		if (u < 0 || (frac && UNITS[u].whole))
			return -1;
		if (*p && !is_space(*p))
			return -1;
		const char *unit = UNITS[u].unit;
		if (strcmp(unit, "hours") == 0 || strcmp(unit, "minutes") == 0 ||
		    strcmp(unit, "seconds") == 0)
			time = 1;
		if (strcmp(unit, "weeks") == 0) {
			long long v = 0;
			for (size_t i = 0; i < dn; i++)
				v = v * 10 + (d[i] - '0');
			snprintf(mods[nm], AST_INTERVAL_MOD, "%c%lld days", neg ? '-' : '+', v * 7);
		} else {
			snprintf(mods[nm], AST_INTERVAL_MOD, "%c%.*s %s", neg ? '-' : '+', (int)dn, d,
			         unit);
		}
		nm++;
	}
	if (nm == 0)
		return -1;
	if (ago)
		for (int i = 0; i < nm; i++)
			mods[i][0] = mods[i][0] == '-' ? '+' : '-';
	if (has_time)
		*has_time = time;
	return nm;
}
