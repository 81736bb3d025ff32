/*
 * test_secret.c: secret_mask (base/secret.c) against slices of secrets: no run of 8 bytes of
 * an API key, of a URL's password (or of the credentials around it), or of the Base64 of the
 * credentials at any of its three alignments survives, whether the slice stands as it is,
 * cut at any offset, JSON-escaped once or twice, or %-escaped; text without a secret comes
 * back as it was, and the user's name stays.
 */
#include "base/secret.h"
#include "base/util.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN 8

static const char *const KEY = "sk-test-Zq81xKpL0v9Wm3Rt5Yb7Nc2Dh4Jf6Gs";
static const char *const URL = "http://alice:S3cr3t-P%40ss-Word-42%2Fx@127.0.0.1:9/v1";
static const char *const PAIR = "alice:S3cr3t-P@ss-Word-42/x";   /* as libcurl sends it */

/* The forms no run of which may be printed. */
static char *forms[64];
static int nforms;

static void form(char *s)
{
	forms[nforms++] = s;
}

/* Base64 of s at alignment k (0..2), only the characters s alone decides. */
static char *b64_at(const char *s, int k)
{
	size_t n = strlen(s);
	char *in = xmalloc(n + 3);
	memset(in, 'Q', (size_t)k);
	memcpy(in + k, s, n);
	size_t m = n + (size_t)k;
	char *b = secret_base64(in, m);
	size_t from = k == 0 ? 0 : k == 1 ? 2 : 3;
	size_t to = 4 * (m / 3) + (m % 3 == 1 ? 1 : m % 3 == 2 ? 2 : 0);
	char *r = xstrndup(b + from, to - from);
	free(b);
	free(in);
	return r;
}

static void setup(void)
{
	form(xstrdup(KEY));
	form(xstrdup("S3cr3t-P@ss-Word-42/x"));
	form(xstrdup("S3cr3t-P%40ss-Word-42%2Fx"));
	form(xstrdup(":S3cr3t-P@ss-Word-42/x"));
	for (int k = 0; k < 3; k++) {
		form(b64_at(PAIR, k));
		form(b64_at(KEY, k));
	}
	form(secret_base64(PAIR, strlen(PAIR)));   /* as the header carries it, padded */
}

/* The first run of a form found in out, or NULL. */
static const char *leak(const char *out, char *where, size_t wn)
{
	for (int f = 0; f < nforms; f++) {
		size_t n = strlen(forms[f]);
		for (size_t i = 0; i + RUN <= n; i++) {
			char w[RUN + 1];
			memcpy(w, forms[f] + i, RUN);
			w[RUN] = '\0';
			if (strstr(out, w)) {
				snprintf(where, wn, "%s (of form %d)", w, f);
				return where;
			}
		}
	}
	return NULL;
}

static char *mask(const char *text)
{
	const char *secrets[] = {KEY, URL, NULL};
	return secret_mask(text, secrets, 3);
}

/* JSON escapes of s: quotes, backslashes and slashes (as some servers write them). */
static char *json_esc(const char *s)
{
	SBuf b = SBUF_INIT;
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '/')
			sb_putc(&b, '\\');
		sb_putc(&b, *s);
	}
	return sb_steal(&b);
}

static char *pct_esc(const char *s)
{
	SBuf b = SBUF_INIT;
	for (; *s; s++) {
		if (strchr("+/=@:%", *s))
			sb_printf(&b, "%%%02X", (unsigned char)*s);
		else
			sb_putc(&b, *s);
	}
	return sb_steal(&b);
}

/* Every slice of src of RUN bytes or more, each as it is, JSON-escaped once and twice, and
   %-escaped, inside a message: none may leave a run. Counts the texts tried. */
static int slices(const char *name, const char *src, int *bad)
{
	size_t n = strlen(src);
	int tried = 0;
	for (size_t a = 0; a < n; a++)
		for (size_t e = a + RUN; e <= n; e++) {
			char *s = xstrndup(src + a, e - a);
			char *j1 = json_esc(s), *j2 = json_esc(j1), *p = pct_esc(s);
			const char *forms_of[] = {s, j1, j2, p};
			for (int k = 0; k < 4; k++) {
				char *text = xprintf("{\"error\": {\"message\": \"echo: x%sy, headers\"}}",
				                     forms_of[k]);
				char *out = mask(text);
				char where[128];
				if (leak(out, where, sizeof where) && (*bad)++ < 5)
					printf("# %s: slice [%zu, %zu) form %d leaves %s in: %s\n", name, a, e, k,
					       where, out);
				tried++;
				free(out);
				free(text);
			}
			free(s), free(j1), free(j2), free(p);
		}
	return tried;
}

int main(void)
{
	setup();
	char *b = secret_base64("user:PASS9876", 13);
	CHECK_STR(b, "dXNlcjpQQVNTOTg3Ng==", "base64: a known value");
	free(b);

	/* the sources a server may echo: the header's Base64, the credentials, the key, and the
	   Base64 of a text holding the credentials at each alignment (a whole URL encoded) */
	char *hdr = secret_base64(PAIR, strlen(PAIR));
	char *url1 = xprintf("http://%s@h/v1", PAIR), *url2 = xprintf("x http://%s@h", PAIR);
	char *enc[3] = {secret_base64(url1, strlen(url1)), secret_base64(url2, strlen(url2)),
	                secret_base64(PAIR + 1, strlen(PAIR) - 1)};
	char *bearer = xprintf("Bearer %s", KEY);
	char *keyb64 = secret_base64(KEY, strlen(KEY));
	struct {
		const char *name, *src;
	} src[] = {
		{"the Basic header's Base64", hdr},
		{"the credentials", PAIR},
		{"the credentials as written in the URL", "alice:S3cr3t-P%40ss-Word-42%2Fx"},
		{"the key", KEY},
		{"the key's Base64", keyb64},
		{"a whole URL's Base64 (alignment 1)", enc[0]},
		{"a text holding the URL, in Base64 (alignment 2)", enc[1]},
		{"the credentials less a byte, in Base64", enc[2]},
		{"a Bearer header", bearer},
	};
	for (size_t i = 0; i < sizeof src / sizeof *src; i++) {
		int bad = 0;
		int tried = slices(src[i].name, src[i].src, &bad);
		char name[200];
		snprintf(name, sizeof name, "no run of %d of any secret survives %d slices of %s", RUN,
		         tried, src[i].name);
		CHECK(bad == 0, name);
	}
	free(hdr), free(url1), free(url2), free(bearer), free(keyb64);
	for (int k = 0; k < 3; k++)
		free(enc[k]);

	/* a slice with JSON's \u escapes */
	char *u = mask("echo \\u0053\\u0033cr3t-P@ss-Wo and more");
	CHECK(strstr(u, "ss-Wo") == NULL && strstr(u, "and more"), "a slice written with \\u escapes");
	free(u);

	/* what is no secret stays */
	const char *plain = "the model m is not served here (HTTP 404); check llm.model and llm.url";
	char *o = mask(plain);
	CHECK_STR(o, plain, "text without a secret comes back as it was");
	free(o);
	o = mask("connecting to http://alice:S3cr3t-P%40ss-Word-42%2Fx@127.0.0.1:9/v1 failed");
	CHECK_STR(o, "connecting to http://alice:***@127.0.0.1:9/v1 failed",
	          "a URL keeps its user, its password goes");
	free(o);
	o = mask("caf\xC3\xA9 S3cr3t-P@ss-Word-42/x\xC3\xA9t\xC3\xA9");
	CHECK_STR(o, "caf\xC3\xA9 ***\xC3\xA9t\xC3\xA9", "the text around a secret stays");
	free(o);
	const char *none[] = {NULL};
	o = secret_mask("nothing to hide", none, 1);
	CHECK_STR(o, "nothing to hide", "no secrets given: the text as it was");
	free(o);
	for (int f = 0; f < nforms; f++)
		free(forms[f]);
	return unit_done();
}
