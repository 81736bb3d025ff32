/*
 * secret.c: masking secrets in text that leaves the process (see secret.h): URL
 * credentials, Authorization values, and the secret values the caller names, with their
 * Base64 forms.
 */
#include "base/secret.h"

#include "base/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MASK "***"

/* The shortest run of a secret that is masked wherever it appears (secret.h). */
#define SECRET_RUN 8

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
		char c0 = (char)(text[i] | 0x20);   /* each word starts with a or b */
		if (c0 != 'a' && c0 != 'b') {
			i++;
			continue;
		}
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

/* ---- runs of a secret ----

   A secret is masked wherever SECRET_RUN bytes of it in a row appear, not only whole: a
   server that echoes a request may cut its message anywhere, so the end of a key, or the
   middle of a Basic credential's Base64, can stand alone. The bytes of each secret's forms
   (the value; the password and the credentials around it; their Base64, as a Basic header
   carries it and as any text that holds them encodes it at each of its three alignments)
   are kept as their runs of SECRET_RUN bytes, and the text is searched for each run as it
   stands and as it reads after its JSON escapes are undone (up to three levels: a JSON
   string quoted in a JSON message) and after its %XX escapes are undone. */

typedef struct Needles {
	uint64_t *w;      /* the runs, SECRET_RUN bytes each, packed */
	size_t nw, cap;
	uint64_t *set;    /* the runs again, an open-addressing hash set (0: an empty slot; no
	                     run of a C string is 0), looked up at each byte of a long text */
	size_t setmask;
	char **small;     /* forms shorter than SECRET_RUN (but at least 4 bytes): masked whole */
	size_t nsmall;
} Needles;

static uint64_t pack(const char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static size_t slot_of(uint64_t k, size_t mask)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & mask;
}

/* The hash set of the runs, a quarter full at most. */
static void set_build(Needles *nd)
{
	size_t n = 64;
	while (n < 4 * nd->nw)
		n *= 2;
	nd->set = xcalloc(n, sizeof *nd->set);
	nd->setmask = n - 1;
	for (size_t i = 0; i < nd->nw; i++) {
		size_t h = slot_of(nd->w[i], nd->setmask);
		while (nd->set[h] && nd->set[h] != nd->w[i])
			h = (h + 1) & nd->setmask;
		nd->set[h] = nd->w[i];
	}
}

static int set_has(const Needles *nd, uint64_t k)
{
	for (size_t h = slot_of(k, nd->setmask); nd->set[h]; h = (h + 1) & nd->setmask)
		if (nd->set[h] == k)
			return 1;
	return 0;
}

static void add_runs(Needles *nd, const char *s, size_t n)
{
	if (n < SECRET_RUN) {
		if (n >= 4) {
			nd->small = xrealloc(nd->small, (nd->nsmall + 1) * sizeof *nd->small);
			nd->small[nd->nsmall++] = xstrndup(s, n);
		}
		return;
	}
	for (size_t i = 0; i + SECRET_RUN <= n; i++) {
		if (nd->nw == nd->cap) {
			nd->cap = nd->cap ? nd->cap * 2 : 64;
			nd->w = xrealloc(nd->w, nd->cap * sizeof *nd->w);
		}
		nd->w[nd->nw++] = pack(s + i);
	}
}

/* The Base64 of s[0..n) at each alignment, in the standard and the URL-safe alphabet: as
   sent alone (padded), and the characters that s alone decides when s stands 1 or 2 bytes
   after a 3-byte boundary of a longer text (the first characters mix in the bytes before
   it, the last ones the bytes after it). */
static void add_base64(Needles *nd, const char *s, size_t n)
{
	for (size_t k = 0; k < 3; k++) {
		char *in = xmalloc(n + 3);
		memset(in, 0, k);
		memcpy(in + k, s, n);
		size_t m = n + k;
		char *b = secret_base64(in, m);
		size_t from = k == 0 ? 0 : k == 1 ? 2 : 3;
		size_t to = k == 0 ? strlen(b) : 4 * (m / 3) + (m % 3 == 1 ? 1 : m % 3 == 2 ? 2 : 0);
		for (int alphabet = 0; alphabet < 2 && to > from; alphabet++) {
			if (alphabet)   /* URL-safe: - and _ for + and / */
				for (char *c = b; *c; c++)
					*c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
			add_runs(nd, b + from, to - from);
		}
		free(b);
		free(in);
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) with its %XX escapes undone. Heap string; *len its length. */
static char *pct_decode(const char *s, size_t n, size_t *len)
{
	char *o = xmalloc(n + 1);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		int h, l;
		if (s[i] == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 &&
		    (l = hexval(s[i + 2])) >= 0) {
			o[j++] = (char)(h * 16 + l);
			i += 2;
		} else {
			o[j++] = s[i];
		}
	}
	o[j] = '\0';
	*len = j;
	return o;
}

/* The forms of one secret: an API key, or a URL's credentials (user:password, whose
   Base64 a Basic Authorization header carries; libcurl sends the pair with its %XX
   escapes undone). The user's name alone is not a secret (it stays in user:***@host), so
   of the pair only the runs that reach into the password count. */
static void add_secret(Needles *nd, const char *value)
{
	const char *p = strstr(value, "://");
	size_t a, e;
	if (p && !url_creds(value, (size_t)(p - value), &a, &e))
		return;   /* a URL without credentials is no secret */
	if (!p) {
		add_runs(nd, value, strlen(value));
		add_base64(nd, value, strlen(value));
		return;
	}
	for (int decoded = 0; decoded < 2; decoded++) {
		size_t n = e - a;
		char *pair = decoded ? pct_decode(value + a, n, &n) : xstrndup(value + a, n);
		const char *colon = memchr(pair, ':', n);
		if (colon) {
			size_t c = (size_t)(colon - pair);
			size_t from = c + 1 >= SECRET_RUN ? c + 1 - (SECRET_RUN - 1) : 0;
			add_runs(nd, pair + c + 1, n - c - 1);     /* the password */
			add_runs(nd, pair + from, n - from);       /* runs that reach into it */
			add_base64(nd, pair + c + 1, n - c - 1);
		} else {
			add_runs(nd, pair, n);                     /* a token as the user */
		}
		add_base64(nd, pair, n);
		free(pair);
	}
}

/* A reading of the text: its bytes and, for each, the span [from, to) of the original
   text it was read from. */
typedef struct View {
	char *s;
	size_t n;
	size_t *from, *to;
} View;

static void view_free(View *v)
{
	free(v->s);
	free(v->from);
	free(v->to);
}

static void view_push(View *v, char c, size_t from, size_t to)
{
	v->s[v->n] = c;
	v->from[v->n] = from;
	v->to[v->n] = to;
	v->n++;
}

static void view_alloc(View *v, size_t cap)
{
	v->s = xmalloc(cap + 1);
	v->from = xmalloc((cap + 1) * sizeof *v->from);
	v->to = xmalloc((cap + 1) * sizeof *v->to);
	v->n = 0;
}

/* UTF-8 of code point u into o; its length. */
static size_t utf8(unsigned u, char o[4])
{
	if (u < 0x80) {
		o[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = (char)(0xC0 | (u >> 6));
		o[1] = (char)(0x80 | (u & 0x3F));
		return 2;
	}
	if (u < 0x10000) {
		o[0] = (char)(0xE0 | (u >> 12));
		o[1] = (char)(0x80 | ((u >> 6) & 0x3F));
		o[2] = (char)(0x80 | (u & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (u >> 18));
	o[1] = (char)(0x80 | ((u >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((u >> 6) & 0x3F));
	o[3] = (char)(0x80 | (u & 0x3F));
	return 4;
}

static int hex4(const char *s, size_t n, size_t i, unsigned *u)
{
	if (i + 4 > n)
		return 0;
	unsigned v = 0;
	for (size_t k = 0; k < 4; k++) {
		int h = hexval(s[i + k]);
		if (h < 0)
			return 0;
		v = v * 16 + (unsigned)h;
	}
	*u = v;
	return 1;
}

/* in read with its JSON escapes undone (\" \\ \/ \b \f \n \r \t \uXXXX, pairs of
   surrogates); anything else stays as it is. */
static void view_unjson(const View *in, View *out)
{
	view_alloc(out, in->n);
	const char *s = in->s;
	for (size_t i = 0; i < in->n;) {
		if (s[i] != '\\' || i + 1 >= in->n) {
			view_push(out, s[i], in->from[i], in->to[i]);
			i++;
			continue;
		}
		char c = s[i + 1];
		const char *simple = strchr("\"\\/bfnrt", c);
		if (c && simple) {
			static const char with[] = "\"\\/\b\f\n\r\t";
			view_push(out, with[simple - "\"\\/bfnrt"], in->from[i], in->to[i + 1]);
			i += 2;
			continue;
		}
		unsigned u, lo;
		size_t len = 6;
		if (c == 'u' && hex4(s, in->n, i + 2, &u)) {
			if (u >= 0xD800 && u < 0xDC00 && i + 12 <= in->n && s[i + 6] == '\\' &&
			    s[i + 7] == 'u' && hex4(s, in->n, i + 8, &lo) && lo >= 0xDC00 && lo < 0xE000) {
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
				len = 12;
			}
			char o[4];
			size_t k = utf8(u, o);
			for (size_t j = 0; j < k; j++)   /* never longer than the escape it replaces */
				view_push(out, o[j], in->from[i], in->to[i + len - 1]);
			i += len;
			continue;
		}
		view_push(out, s[i], in->from[i], in->to[i]);
		i++;
	}
	out->s[out->n] = '\0';
}

/* in read with its %XX escapes undone. */
static void view_unpct(const View *in, View *out)
{
	view_alloc(out, in->n);
	for (size_t i = 0; i < in->n;) {
		int h, l;
		if (in->s[i] == '%' && i + 2 < in->n && (h = hexval(in->s[i + 1])) >= 0 &&
		    (l = hexval(in->s[i + 2])) >= 0) {
			view_push(out, (char)(h * 16 + l), in->from[i], in->to[i + 2]);
			i += 3;
		} else {
			view_push(out, in->s[i], in->from[i], in->to[i]);
			i++;
		}
	}
	out->s[out->n] = '\0';
}

/* Mark in mark[] every byte of the original text that a run (or a small form) covers in
   this reading of it. */
static void mark_view(const Needles *nd, const View *v, unsigned char *mark)
{
	for (size_t i = 0; nd->nw && i + SECRET_RUN <= v->n; i++) {
		if (set_has(nd, pack(v->s + i)))
			for (size_t j = v->from[i]; j < v->to[i + SECRET_RUN - 1]; j++)
				mark[j] = 1;
	}
	for (size_t k = 0; k < nd->nsmall; k++) {
		size_t m = strlen(nd->small[k]);
		for (size_t i = 0; i + m <= v->n; i++)
			if (memcmp(v->s + i, nd->small[k], m) == 0)
				for (size_t j = v->from[i]; j < v->to[i + m - 1]; j++)
					mark[j] = 1;
	}
}

char *secret_mask_runs(const char *text, const char *const *secrets, int n)
{
	if (!text)
		return NULL;
	Needles nd = {0};
	for (int i = 0; i < n; i++)
		if (secrets[i] && strlen(secrets[i]) >= 4)
			add_secret(&nd, secrets[i]);
	size_t len = strlen(text);
	if (nd.nw == 0 && nd.nsmall == 0)
		return xstrdup(text);
	set_build(&nd);
	unsigned char *mark = xcalloc(len + 1, 1);
	View raw;
	view_alloc(&raw, len);
	for (size_t i = 0; i < len; i++)
		view_push(&raw, text[i], i, i + 1);
	raw.s[len] = '\0';
	/* the text as it stands and with up to three levels of JSON escapes undone, each also
	   with its %XX escapes undone */
	View cur = raw;
	for (int level = 0; level < 4; level++) {
		mark_view(&nd, &cur, mark);
		if (memchr(cur.s, '%', cur.n)) {   /* else its %XX reading is the same text */
			View pct;
			view_unpct(&cur, &pct);
			mark_view(&nd, &pct, mark);
			view_free(&pct);
		}
		if (!memchr(cur.s, '\\', cur.n))
			break;   /* no JSON escape: the next level reads the same text */
		View next;
		view_unjson(&cur, &next);
		view_free(&cur);
		cur = next;
	}
	view_free(&cur);
	/* whole characters: a mask never leaves half of a UTF-8 sequence */
	for (size_t i = 1; i < len; i++)
		if (mark[i] && !mark[i - 1] && ((unsigned char)text[i] & 0xC0) == 0x80)
			for (size_t j = i; j > 0 && ((unsigned char)text[j] & 0xC0) == 0x80; j--)
				mark[j - 1] = 1;
	for (size_t i = len; i-- > 1;)
		if (mark[i - 1] && !mark[i] && ((unsigned char)text[i] & 0xC0) == 0x80)
			mark[i] = 1;
	SBuf b = SBUF_INIT;
	for (size_t i = 0; i < len;) {
		if (!mark[i]) {
			size_t j = i;
			while (j < len && !mark[j])
				j++;
			sb_putn(&b, text + i, j - i);
			i = j;
			continue;
		}
		sb_puts(&b, MASK);
		while (i < len && mark[i])
			i++;
	}
	free(mark);
	free(nd.w);
	free(nd.set);
	for (size_t k = 0; k < nd.nsmall; k++)
		free(nd.small[k]);
	free(nd.small);
	return b.len ? sb_steal(&b) : xstrdup("");
}

char *secret_mask(const char *text, const char *const *secrets, int n)
{
	if (!text)
		return NULL;
	/* a URL's password first, so that its user stays (user:***@host) */
	SBuf b = SBUF_INIT;
	mask_urls(&b, text);
	char *t = secret_mask_runs(sb_str(&b), secrets, n);
	sb_free(&b);
	SBuf c = SBUF_INIT;
	mask_auth(&c, t);
	free(t);
	char *r = xstrdup(sb_str(&c));
	sb_free(&c);
	return r;
}
