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
 *   - each secret value given (at least 4 bytes) becomes ***, and so do its Base64 form and
 *     the Base64 of "user:password" for each URL given (what Basic auth sends).
 *
 * Ownership: every function returns a heap string the caller frees; arguments are
 * borrowed.
 */
#ifndef SUQL_SECRET_H
#define SUQL_SECRET_H

#include <stddef.h>

/* text with every secret it holds masked as above. secrets: n values (NULL entries and
   values shorter than 4 bytes are skipped); URLs among them also give their credentials
   (the user:password part, its password and its Base64). */
char *secret_mask(const char *text, const char *const *secrets, int n);

/* Base64 (RFC 4648, padded) of s[0..n). */
char *secret_base64(const char *s, size_t n);

#endif
