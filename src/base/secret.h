/*
 * secret.h: secrets kept out of text that leaves the process. suql holds two kinds: the API
 * key (llm.key, SUQL_LLM_KEY, OPENAI_API_KEY) and credentials written into a URL
 * (http://user:PASS@host/v1, which libcurl sends as "Authorization: Basic BASE64"). Text
 * that is stored (the REPL's history) or shown after a server wrote it (an error body that
 * echoes the request's headers) goes through secret_mask first:
 *
 *   - the password of a URL's credentials becomes ***, the user stays
 *     (http://user:***@host/v1); credentials without a ':' (a token as user) become ***;
 *   - the value after "Authorization", "Bearer" or "Basic" becomes *** whatever it is;
 *   - every run of 8 bytes or more of a secret becomes ***, wherever it stands (a server
 *     may cut an echo anywhere): of each secret value given (at least 4 bytes; a shorter
 *     one of 4 to 7 bytes only whole), of a URL's password as written and with its %XX
 *     escapes undone, of the credentials user:password where a run reaches into the
 *     password, and of the Base64 of the credentials, of the password and of each value,
 *     at each of the three alignments Base64 can take inside a longer text (standard and
 *     URL-safe alphabets). The text is searched as it stands, after up to three levels of
 *     JSON escapes are undone (\/, \", \uXXXX ...) and after its %XX escapes are undone.
 *
 * Ownership: every function returns a heap string the caller frees; arguments are
 * borrowed.
 */
#ifndef SUQL_SECRET_H
#define SUQL_SECRET_H

#include <stddef.h>

/* text with every secret it holds masked as above. secrets: n values (NULL entries and
   values shorter than 4 bytes are skipped); a URL among them gives its credentials (a URL
   without any is no secret). */
char *secret_mask(const char *text, const char *const *secrets, int n);

/* text with only the runs of the given secrets masked (the third rule above): for text a
   model wrote, whose other words (a URL, "bearer") are its own and stay. */
char *secret_mask_runs(const char *text, const char *const *secrets, int n);

/* Base64 (RFC 4648, padded) of s[0..n). */
char *secret_base64(const char *s, size_t n);

#endif
