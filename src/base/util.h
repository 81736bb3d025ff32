/*
 * util.h: small utilities under everything else: allocation that never returns NULL,
 * a growable string buffer, and string helpers.
 *
 * Allocation failure prints "suql: out of memory" and exits with status 2 (SUQL_EXIT_USAGE,
 * a system error): there is no sensible recovery for an interactive tool, and it keeps
 * every caller simple.
 *
 * Ownership: SBuf owns its bytes; sb_free releases them, sb_steal hands them to the caller.
 * Functions returning char * return heap strings the caller frees, unless they say otherwise.
 */
#ifndef SUQL_UTIL_H
#define SUQL_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrdup_or_null(const char *s);   /* NULL stays NULL */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvprintf(const char *fmt, va_list ap);

typedef struct SBuf {
	char *s;      /* always NUL-terminated once anything was added; NULL before */
	size_t len;
	size_t cap;
} SBuf;

#define SBUF_INIT {NULL, 0, 0}

void sb_putn(SBuf *b, const char *s, size_t n);
void sb_puts(SBuf *b, const char *s);
void sb_putc(SBuf *b, char c);
void sb_printf(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(SBuf *b, const char *fmt, va_list ap);
void sb_put_sqlstr(SBuf *b, const char *s, size_t n);   /* 'it''s' */
void sb_put_ident(SBuf *b, const char *s, size_t n);    /* "a ""b""" */
void sb_put_json(SBuf *b, const char *s, size_t n);     /* "a\"b" with JSON escapes */
void sb_truncate(SBuf *b, size_t len);
const char *sb_str(const SBuf *b);                     /* "" when empty, never NULL */
char *sb_steal(SBuf *b);                               /* caller frees; b is reset */
void sb_free(SBuf *b);

/* ASCII case-insensitive comparisons (SQL keywords and identifiers). */
int str_ieq(const char *a, const char *b);
int str_nieq(const char *a, size_t alen, const char *b);   /* a[0..alen) equals NUL-terminated b */
int str_has_prefix(const char *s, const char *prefix);
/* FNV-1a of s[0..n): a fast, stable hash for tables and feature buckets (not for keys
   that must not collide: the LLM cache uses SHA-256). */
uint64_t str_hash64(const char *s, size_t n);
/* hay holds needle, ASCII case ignored. */
int str_icontains(const char *hay, const char *needle);
/* A setting's on/off value: on, 1, true, yes or off, 0, false, no (any case). Returns 1
   and sets *out to 1 or 0, or returns 0 when v is none of them. */
int str_parse_bool(const char *v, int *out);
/* Narrow s[0..*n) to leave out leading and trailing white space. */
void str_trim(const char **s, size_t *n);
/* A copy of s without leading and trailing white space. Heap string. */
char *str_trim_dup(const char *s);

/* mkdir -p of the directory that holds path (mode 0700); 0 when one could not be made. */
int util_make_parent_dirs(const char *path);
/* Read a whole file into a NUL-terminated heap buffer; NULL and errno on failure. */
char *util_read_file(const char *path, size_t *len);

/* Milliseconds from a monotonic clock. */
double util_now_ms(void);
/* A duration of ms milliseconds as people read it, with digits decimals: under a second in
   milliseconds ("26.2 ms"), from a second on in seconds ("10.6 s", never "10625.3 ms").
   The one writer of durations (counters, :timer, :llm test). */
void util_duration(SBuf *b, double ms, int digits);
/* isatty(fileno(f)), asked once per process for standard input, output and error (the
   program never points those descriptors elsewhere), so a statement costs no ioctl. */
int util_isatty(FILE *f);

#endif
