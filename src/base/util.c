/*
 * util.c: allocation, the string buffer and small helpers that every other file uses
 * (error records are err.c's). Nothing here knows about SQL or language models.
 */
#include "base/suql.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t suql_interrupted = 0;
volatile sig_atomic_t suql_timed_out = 0;

static void oom(void)
{
	fputs("suql: out of memory\n", stderr);
	exit(SUQL_EXIT_USAGE);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvprintf(const char *fmt, va_list ap)
{
	SBuf b = SBUF_INIT;
	sb_vprintf(&b, fmt, ap);
	if (!b.s)
		return xstrdup("");
	return sb_steal(&b);
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* ---- string buffer ---- */

static void sb_grow(SBuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sb_putn(SBuf *b, const char *s, size_t n)
{
	if (b->len + n >= b->cap)
		sb_grow(b, n);
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(SBuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void sb_putc(SBuf *b, char c)
{
	if (b->len + 1 >= b->cap)
		sb_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void sb_vprintf(SBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(SBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

static void sb_put_quoted(SBuf *b, const char *s, size_t n, char q)
{
	sb_grow(b, n + 2);
	sb_putc(b, q);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == q)
			sb_putc(b, q);
		sb_putc(b, s[i]);
	}
	sb_putc(b, q);
}

void sb_put_sqlstr(SBuf *b, const char *s, size_t n)
{
	sb_put_quoted(b, s, n, '\'');
}

void sb_put_ident(SBuf *b, const char *s, size_t n)
{
	sb_put_quoted(b, s, n, '"');
}

void sb_put_json(SBuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\r': sb_puts(b, "\\r"); break;
		case '\t': sb_puts(b, "\\t"); break;
		default:
			if (c < 0x20)
				sb_printf(b, "\\u%04x", c);
			else
				sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

void sb_truncate(SBuf *b, size_t len)
{
	if (b->s && len < b->len) {
		b->len = len;
		b->s[len] = '\0';
	}
}

const char *sb_str(const SBuf *b)
{
	return b->s ? b->s : "";
}

char *sb_steal(SBuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void sb_free(SBuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* ---- strings, files, time ---- */

int str_ieq(const char *a, const char *b)
{
	while (*a && *b) {
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		a++, b++;
	}
	return *a == *b;
}

uint64_t str_hash64(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

int str_nieq(const char *a, size_t alen, const char *b)
{
	size_t i = 0;
	for (; i < alen; i++) {
		if (!b[i] || tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return 0;
	}
	return b[i] == '\0';
}

int str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return n == 0;
}

int str_parse_bool(const char *v, int *out)
{
	static const char *const yes[] = {"on", "1", "true", "yes"};
	static const char *const no[] = {"off", "0", "false", "no"};
	for (int i = 0; i < 4; i++) {
		if (str_ieq(v, yes[i]))
			return *out = 1, 1;
		if (str_ieq(v, no[i]))
			return *out = 0, 1;
	}
	return 0;
}

void str_trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

char *str_trim_dup(const char *s)
{
	size_t n = strlen(s);
	str_trim(&s, &n);
	return xstrndup(s, n);
}

int util_make_parent_dirs(const char *path)
{
	char *d = xstrdup(path);
	char *slash = strrchr(d, '/');
	int ok = 1;
	if (slash && slash != d) {
		*slash = '\0';
		for (char *p = d + 1; ok; p++) {
			if (*p == '/' || *p == '\0') {
				char c = *p;
				*p = '\0';
				if (mkdir(d, 0700) != 0 && errno != EEXIST)
					ok = 0;
				*p = c;
				if (!c)
					break;
			}
		}
	}
	free(d);
	return ok;
}

char *util_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	SBuf b = SBUF_INIT;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		sb_free(&b);
		errno = EIO;
		return NULL;
	}
	if (len)
		*len = b.len;
	return sb_steal(&b);
}

int util_isatty(FILE *f)
{
	static signed char known[3] = {-1, -1, -1};
	int fd = f ? fileno(f) : -1;
	if (fd < 0)
		return 0;
	if (fd > 2)
		return isatty(fd);
	if (known[fd] < 0)
		known[fd] = (signed char)(isatty(fd) != 0);
	return known[fd];
}

double util_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

void util_duration(SBuf *b, double ms, int digits)
{
	/* a figure that rounds to 1000 ms is a second already: "1.0 s", not "1000.0 ms" */
	double limit = 1000.0 - 0.5 * pow(10.0, -digits);
	if (ms < limit)
		sb_printf(b, "%.*f ms", digits, ms);
	else
		sb_printf(b, "%.*f s", digits, ms / 1000.0);
}
