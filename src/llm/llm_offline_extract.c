/*
 * llm_offline_extract.c: finding dates and numbers written in English text.
 *
 * The offline backend uses these to answer typed questions (answer(...)::date, CAST(... AS
 * INTEGER)) from the sentences relevant to the question, and reply parsing uses them to
 * accept a model's "July 2, 1978" where "1978-07-02" was asked for. Dates are validated
 * (no 31 April); ambiguous numeric forms such as 03/04/1979 are deliberately not read.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const months[12] = {
	"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december",
};

static int alnum_at(const char *s, size_t n, size_t i)
{
	return i < n && isalnum((unsigned char)s[i]);
}

/* A month name or abbreviation at s[i..]: returns 1..12 and sets *end. */
static int month_at(const char *s, size_t n, size_t i, size_t *end)
{
	size_t j = i;
	while (j < n && isalpha((unsigned char)s[j]))
		j++;
	size_t len = j - i;
	if (len < 3)
		return 0;
	for (int m = 0; m < 12; m++) {
		size_t ml = strlen(months[m]);
		int full = len == ml && str_nieq(s + i, len, months[m]);
		int abbr = (len == 3 || (m == 8 && len == 4)) && len < ml &&
		           strncasecmp(s + i, months[m], len) == 0;
		if (full || abbr) {
			if (m == 4 && !full)
				continue;
			if (abbr && j < n && s[j] == '.')
				j++;
			*end = j;
			return m + 1;
		}
	}
	return 0;
}

/* A run of mind..maxd digits at s[i..] not followed by a letter or digit (a 2-digit day may
   carry an ordinal suffix: 1st 2nd 3rd 4th); returns its value, or -1. */
static long digits_at(const char *s, size_t n, size_t i, int mind, int maxd, size_t *end)
{
	size_t j = i;
	long v = 0;
	while (j < n && isdigit((unsigned char)s[j])) {
		if ((int)(j - i) >= maxd)
			return -1;
		v = v * 10 + (s[j++] - '0');
	}
	if ((int)(j - i) < mind)
		return -1;
	if (maxd == 2 && j + 1 < n && !alnum_at(s, n, j + 2) &&
	    (strncasecmp(s + j, "st", 2) == 0 || strncasecmp(s + j, "nd", 2) == 0 ||
	     strncasecmp(s + j, "rd", 2) == 0 || strncasecmp(s + j, "th", 2) == 0)) {
		*end = j + 2;
		return v;
	}
	if (alnum_at(s, n, j))
		return -1;
	*end = j;
	return v;
}

static size_t skip_blank(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

int llm_day_exists(long y, long m, long d)
{
	static const int md[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12 || d < 1 || d > md[m - 1])
		return 0;
	return !(m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

/* A date found in text: a day that exists, in a year from 1000 to 2999. */
static int valid(long y, long m, long d)
{
	return y >= 1000 && y <= 2999 && llm_day_exists(y, m, d);
}

static size_t year_after(const char *s, size_t n, size_t i, long *y)
{
	size_t e;
	i = skip_blank(s, n, i);
	if (i < n && s[i] == ',')
		i = skip_blank(s, n, i + 1);
	long v = digits_at(s, n, i, 4, 4, &e);
	if (v < 0 || (e < n && s[e] == '.' && alnum_at(s, n, e + 1)))
		return 0;
	*y = v;
	return e;
}

/* Try every form at a word start; returns 1 with the date when one begins at i. */
static int date_at(const char *s, size_t n, size_t i, long *y, long *m, long *d, int *prec,
                   size_t *end)
{
	size_t e, e2, e3;
	long a, b, c;
	if (isdigit((unsigned char)s[i])) {
		/* 1979-01-31, 1979/01/31 */
		a = digits_at(s, n, i, 4, 4, &e);
		if (a >= 0 && e < n && (s[e] == '-' || s[e] == '/')) {
			char sep = s[e];
			b = digits_at(s, n, e + 1, 1, 2, &e2);
			if (b > 0 && e2 < n && s[e2] == sep && (c = digits_at(s, n, e2 + 1, 1, 2, &e3)) > 0 &&
			    valid(a, b, c)) {
				*y = a, *m = b, *d = c, *prec = 3, *end = e3;
				return 1;
			}
		}
		/* 31 January 1979, 31st of Jan. 1979 */
		a = digits_at(s, n, i, 1, 2, &e);
		if (a > 0) {
			size_t j = skip_blank(s, n, e);
			if (j + 2 < n && strncasecmp(s + j, "of", 2) == 0 && s[j + 2] == ' ')
				j = skip_blank(s, n, j + 2);
			int mon = month_at(s, n, j, &e2);
			if (mon && (e3 = year_after(s, n, e2, &c)) && valid(c, mon, a)) {
				*y = c, *m = mon, *d = a, *prec = 3, *end = e3;
				return 1;
			}
		}
		/* a year alone */
		a = digits_at(s, n, i, 4, 4, &e);
		if (a >= 1000 && a <= 2999 && !(e < n && (s[e] == '.' || s[e] == ',') &&
		                                 isdigit((unsigned char)(e + 1 < n ? s[e + 1] : 0))) &&
		    !(i > 0 && (s[i - 1] == '$' || s[i - 1] == '-' || s[i - 1] == '.'))) {
			*y = a, *m = 1, *d = 1, *prec = 1, *end = e;
			return 1;
		}
		return 0;
	}
	int mon = month_at(s, n, i, &e);
	if (!mon)
		return 0;
	/* January 31, 1979; July 2nd 1978 */
	size_t j = skip_blank(s, n, e);
	a = digits_at(s, n, j, 1, 2, &e2);
	if (a > 0 && (e3 = year_after(s, n, e2, &c)) && valid(c, mon, a)) {
		*y = c, *m = mon, *d = a, *prec = 3, *end = e3;
		return 1;
	}
	/* January 1979 (but not "May" the verb: a year must follow) */
	if ((e3 = year_after(s, n, e, &c)) && valid(c, mon, 1)) {
		*y = c, *m = mon, *d = 1, *prec = 2, *end = e3;
		return 1;
	}
	return 0;
}

int llm_next_date(const char *s, size_t n, size_t from, char iso[11], int *prec, size_t *at,
                  size_t *len)
{
	for (size_t i = from; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) || (i > 0 && isalnum((unsigned char)s[i - 1])))
			continue;
		long y, m, d;
		size_t end;
		if (date_at(s, n, i, &y, &m, &d, prec, &end)) {
			{
				char buf[80];   /* y, m, d are validated: always 10 characters */
				snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y, m, d);
				memcpy(iso, buf, 10);
				iso[10] = '\0';
			}
			*at = i;
			*len = end - i;
			return 1;
		}
	}
	return 0;
}

int llm_find_date(const char *s, size_t n, char iso[11], int *prec)
{
	size_t at, len;
	return llm_next_date(s, n, 0, iso, prec, &at, &len);
}

static const char *const small[] = {
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
	"nineteen", "twenty", NULL,
};
static const char *const tens[] = {"thirty", "forty", "fifty", "sixty", "seventy", "eighty",
	"ninety", NULL};

static int word_value(const char *w, size_t len)
{
	for (int k = 0; small[k]; k++)
		if (str_nieq(w, len, small[k]))
			return k;
	for (int k = 0; tens[k]; k++)
		if (str_nieq(w, len, tens[k]))
			return 30 + 10 * k;
	if (str_nieq(w, len, "dozen"))
		return 12;
	return -1;
}

int llm_next_number(const char *s, size_t n, size_t from, double *v, int *is_int, size_t *at,
                    size_t *len)
{
	for (size_t i = from; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (i > from && isalnum((unsigned char)s[i - 1]) && isalpha(ch))
			continue;
		if (isdigit(ch) && !(i > 0 && (isalpha((unsigned char)s[i - 1]) || s[i - 1] == '.' ||
		                                isdigit((unsigned char)s[i - 1])))) {
			size_t j = i;
			SBuf b = SBUF_INIT;
			if (i > 0 && (s[i - 1] == '-' || s[i - 1] == '+') &&
			    (i < 2 || !isalnum((unsigned char)s[i - 2])))
				sb_putc(&b, s[i - 1]);
			int dec = 0;
			while (j < n) {
				if (isdigit((unsigned char)s[j])) {
					sb_putc(&b, s[j++]);
				} else if (s[j] == ',' && !dec && j + 3 < n && isdigit((unsigned char)s[j + 1]) &&
				           isdigit((unsigned char)s[j + 2]) && isdigit((unsigned char)s[j + 3]) &&
				           !(j + 4 < n && isdigit((unsigned char)s[j + 4]))) {
					j++;   /* thousands separator */
				} else if (s[j] == '.' && !dec && j + 1 < n && isdigit((unsigned char)s[j + 1])) {
					dec = 1;
					sb_putc(&b, s[j++]);
				} else {
					break;
				}
			}
			*v = strtod(sb_str(&b), NULL);
			*is_int = !dec;
			sb_free(&b);
			*at = i > 0 && (s[i - 1] == '-' || s[i - 1] == '+') && *v < 0 ? i - 1 : i;
			*len = j - *at;
			return 1;
		}
		if (isalpha(ch) && (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
			size_t j = i;
			while (j < n && isalpha((unsigned char)s[j]))
				j++;
			int w = word_value(s + i, j - i);
			if (w == 12 && str_nieq(s + i, j - i, "dozen") && !(i >= 2 &&
			    str_nieq(s + i - 2, 1, "a")))
				w = -1;   /* "dozens" of things is no number; "a dozen" is */
			if (w >= 0) {
				size_t end = j;
				/* a tens word joined to a unit: twenty-five, ninety-nine */
				if (w >= 20 && w % 10 == 0 && j + 1 < n && s[j] == '-') {
					size_t k = j + 1;
					while (k < n && isalpha((unsigned char)s[k]))
						k++;
					int u = word_value(s + j + 1, k - j - 1);
					if (u >= 1 && u <= 9)
						w += u, end = k;
				}
				*v = w;
				*is_int = 1;
				*at = i >= 2 && w == 12 && str_nieq(s + i - 2, 1, "a") ? i - 2 : i;
				*len = end - *at;
				return 1;
			}
			i = j;
		}
	}
	return 0;
}

int llm_find_number(const char *s, size_t n, double *v, int *is_int)
{
	size_t at, len;
	return llm_next_number(s, n, 0, v, is_int, &at, &len);
}
