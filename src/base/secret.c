/*
 * secret.c: masking secrets in text that leaves the process (see secret.h): URL
 * credentials, Authorization values, and the secret values the caller names, with their
 * Base64 forms.
 */
#include "base/secret.h"

#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MASK "***"

char *secret_base64(const char *s, size_t n)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	SBuf b = SBUF_INIT;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)u[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)u[i + 1] << 8;
		if (i + 2 < n)
			v |= u[i + 2];
		sb_putc(&b, al[(v >> 18) & 63]);
		sb_putc(&b, al[(v >> 12) & 63]);
		sb_putc(&b, i + 1 < n ? al[(v >> 6) & 63] : '=');
		sb_putc(&b, i + 2 < n ? al[v & 63] : '=');
	}
	return b.len ? sb_steal(&b) : xstrdup("");
}

/* Characters that end a URL's credentials (or a token) in running text. */
static int ends_token(char c)
{
	return c == '\0' || isspace((unsigned char)c) || c == '"' || c == '\'' || c == '`' ||
	       c == ',' || c == ';' || c == '<' || c == '>' || c == ')' || c == ']' || c == '}';
}

/* The credentials of the URL at text[at] ("://" starts at at): [*a, *e) is "user:pass"
   (or a token) before '@' in the host part; 0 when there are none. */
static int url_creds(const char *text, size_t at, size_t *a, size_t *e)
{
	size_t s = at + 3, i = s;
	while (!ends_token(text[i]) && text[i] != '/' && text[i] != '@' && text[i] != '?' &&
	       text[i] != '#')
		i++;
	if (text[i] != '@' || i == s)
		return 0;
	*a = s;
	*e = i;
	return 1;
}

/* URL credentials masked: user:pass@ -> user:***@, token@ -> ***@. */
static void mask_urls(SBuf *out, const char *text)
{
	size_t i = 0, from = 0;
	const char *p;
	while ((p = strstr(text + i, "://")) != NULL) {
		size_t at = (size_t)(p - text), a, e;
		if (url_creds(text, at, &a, &e)) {
			const char *colon = memchr(text + a, ':', e - a);
			size_t keep = colon ? (size_t)(colon - text) + 1 : a;
			sb_putn(out, text + from, keep - from);
			sb_puts(out, MASK);
			from = e;
			i = e;
		} else {
			i = at + 3;
		}
	}
	sb_puts(out, text + from);
}

/* The value after an Authorization header name or a Bearer/Basic scheme word masked:
   "Authorization: Basic dXNl..." -> "Authorization: Basic ***". */
static void mask_auth(SBuf *out, const char *text)
{
	static const char *const words[] = {"authorization", "bearer", "basic"};
	size_t from = 0;
	for (size_t i = 0; text[i];) {
		size_t w = 0;
		const char *hit = NULL;
		for (size_t k = 0; k < sizeof words / sizeof *words && !hit; k++) {
			size_t n = strlen(words[k]);
			if (strncasecmp(text + i, words[k], n) == 0 &&
			    (i == 0 || !isalnum((unsigned char)text[i - 1])) &&
			    !isalnum((unsigned char)text[i + n])) {
				hit = words[k];
				w = n;
			}
		}
		if (!hit) {
			i++;
			continue;
		}
		size_t j = i + w;
		/* what separates a header name (or a scheme word) from its value */
		int named = 0;   /* a ':' or '=' between them: a header's value, not prose */
		for (; text[j] == ':' || text[j] == '=' || text[j] == ' ' || text[j] == '\t' ||
		       text[j] == '"' || text[j] == '\'' || text[j] == '\\'; j++)
			named |= text[j] == ':' || text[j] == '=';
		if (strcasecmp(hit, "authorization") == 0 && !named) {
			i = j;   /* "the Authorization header": a word in a sentence */
			continue;
		}
		if (strcasecmp(hit, "authorization") == 0) {
			/* a scheme word stays, its value goes */
			size_t k = j;
			while (isalpha((unsigned char)text[k]))
				k++;
			if (k > j && (text[k] == ' ' || text[k] == '\t'))   /* a scheme: Basic, Bearer */
				for (j = k; text[j] == ' ' || text[j] == '\t';)
					j++;
		}
		size_t v = j;
		int tokenish = 0;   /* a digit or a token's punctuation: not a word of a sentence */
		while (!ends_token(text[v]) && text[v] != '\\') {
			tokenish |= isdigit((unsigned char)text[v]) || strchr("-_.+/=~", text[v]) != NULL;
			v++;
		}
		int header = strcasecmp(hit, "authorization") == 0;
		if (v == j || (!header && (v - j < 8 || !tokenish)) ||
		    (j == i + w && !header)) {
			i = j > i + w ? j : i + w;   /* no value (or a word in a sentence) */
			continue;
		}
		sb_putn(out, text + from, j - from);
		sb_puts(out, MASK);
		from = i = v;
	}
	sb_puts(out, text + from);
}

/* The bytes of a long secret that, seen at the start of a match, mean the secret itself
   (cut short where a server shortened its message). */
#define SECRET_PREFIX 12

/* Every occurrence of value replaced by ***; for a value of 16 bytes or more, also a start
   of it of SECRET_PREFIX bytes or more (the rest cut off). */
static char *mask_value(char *text, const char *value)
{
	size_t n = value ? strlen(value) : 0;
	size_t need = n >= 16 ? SECRET_PREFIX : n;
	if (n < 4)
		return text;
	char *lead = xstrndup(value, need);
	if (!strstr(text, lead)) {
		free(lead);
		return text;
	}
	SBuf b = SBUF_INIT;
	const char *p = text, *hit;
	while ((hit = strstr(p, lead)) != NULL) {
		size_t m = need;
		while (m < n && hit[m] == value[m])
			m++;
		sb_putn(&b, p, (size_t)(hit - p));
		sb_puts(&b, MASK);
		p = hit + m;
	}
	free(lead);
	sb_puts(&b, p);
	free(text);
	return sb_steal(&b);
}

/* value and its Base64 masked; for a URL, its credentials too (the pair, the password,
   and the pair's Base64, as Basic auth sends it). */
static char *mask_secret(char *text, const char *value)
{
	const char *p = strstr(value, "://");
	size_t a, e;
	if (p && !url_creds(value, (size_t)(p - value), &a, &e))
		return text;   /* a URL without credentials is no secret */
	if (p) {
		char *pair = xstrndup(value + a, e - a);
		char *b64 = secret_base64(pair, e - a);
		text = mask_value(text, b64);
		text = mask_value(text, pair);
		const char *colon = strchr(pair, ':');
		if (colon)
			text = mask_value(text, colon + 1);
		free(b64);
		free(pair);
		return text;
	}
	char *b64 = secret_base64(value, strlen(value));
	text = mask_value(text, value);
	text = mask_value(text, b64);
	free(b64);
	return text;
}

char *secret_mask(const char *text, const char *const *secrets, int n)
{
	if (!text)
		return NULL;
	char *t = xstrdup(text);
	for (int i = 0; i < n; i++)
		if (secrets[i])
			t = mask_secret(t, secrets[i]);
	SBuf b = SBUF_INIT;
	mask_urls(&b, t);
	free(t);
	SBuf c = SBUF_INIT;
	mask_auth(&c, sb_str(&b));
	sb_free(&b);
	char *r = xstrdup(sb_str(&c));
	sb_free(&c);
	return r;
}
