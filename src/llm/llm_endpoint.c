/*
 * llm_endpoint.c: which endpoint answers, as the keys of kept results name it.
 *
 * A result the model gave is kept under a key (the cache file, bulk mode's replies, an ENUM
 * mapping, the vectors of embeddings). The model's name alone does not say who answered:
 * two endpoints may serve a model of one name and answer differently (a local server, a
 * proxy, a test server scripted to lie, the provider itself), so every such key names the
 * endpoint's origin too. The origin is the URL's scheme, host, port and path, written one
 * way whatever the spelling of the configured URL:
 *
 *   - the scheme and the host in lower case, a trailing dot of the host dropped;
 *   - the port left out when it is the scheme's default (80 for http, 443 for https), and
 *     written without leading zeros otherwise;
 *   - the path without trailing slashes (case kept: servers may tell it apart);
 *   - never the credentials (user:password@), the query (which may carry a key, as
 *     ?api-key=...) or the fragment.
 *
 * So http://u:p@API.example.com:80/v1/ and http://api.example.com/v1 are one endpoint, and
 * http://127.0.0.1:8001/v1 and http://127.0.0.1:8002/v1 are two. llm_relabel keeps the
 * origin and the model's identity (llm_model_id: "MODEL at ORIGIN") on the Llm.
 */
#include "base/util.h"
#include "llm/llm_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *llm_origin_of(const char *url)
{
	if (!url || !*url)
		return NULL;
	SBuf b = SBUF_INIT;
	const char *p = strstr(url, "://");
	const char *scheme = "http";   /* what libcurl assumes of a URL without one */
	size_t sn = 4;
	const char *auth = url;
	if (p) {
		scheme = url;
		sn = (size_t)(p - url);
		auth = p + 3;
	}
	for (size_t i = 0; i < sn; i++)
		sb_putc(&b, (char)tolower((unsigned char)scheme[i]));
	sb_puts(&b, "://");
	/* the authority: up to the path, the query or the fragment */
	size_t an = strcspn(auth, "/?#");
	/* credentials end at the authority's last '@' */
	const char *host = auth;
	for (size_t i = 0; i < an; i++)
		if (auth[i] == '@')
			host = auth + i + 1;
	size_t hn = (size_t)(auth + an - host);
	/* the port: after the last ':' outside an IPv6 literal's brackets */
	const char *port = NULL;
	size_t pn = 0;
	const char *rb = memchr(host, ']', hn);
	const char *from = rb ? rb + 1 : host;
	for (const char *q = host + hn; q > from; q--)
		if (q[-1] == ':') {
			port = q;
			pn = (size_t)(host + hn - q);
			hn = (size_t)(q - 1 - host);
			break;
		}
	if (hn > 0 && host[hn - 1] == '.')
		hn--;
	for (size_t i = 0; i < hn; i++)
		sb_putc(&b, (char)tolower((unsigned char)host[i]));
	if (port) {
		while (pn > 1 && *port == '0') {
			port++;
			pn--;
		}
		int dflt = (sn == 4 && strncasecmp(scheme, "http", 4) == 0 && pn == 2 &&
		            memcmp(port, "80", 2) == 0) ||
		           (sn == 5 && strncasecmp(scheme, "https", 5) == 0 && pn == 3 &&
		            memcmp(port, "443", 3) == 0);
		if (pn > 0 && !dflt) {
			sb_putc(&b, ':');
			sb_putn(&b, port, pn);
		}
	}
	const char *path = auth + an;
	size_t qn = *path == '/' ? strcspn(path, "?#") : 0;
	while (qn > 0 && path[qn - 1] == '/')
		qn--;
	sb_putn(&b, path, qn);
	return sb_steal(&b);
}

const char *llm_origin(const Llm *llm)
{
	return llm_is_offline(llm) ? NULL : llm->origin;
}

void llm_endpoint_update(Llm *llm)
{
	free(llm->origin);
	free(llm->model_id);
	llm->origin = llm->s.url ? llm_origin_of(llm->s.url) : NULL;
	llm->model_id = xprintf("%s at %s", llm->s.model ? llm->s.model : "",
	                        llm->origin ? llm->origin : "(no endpoint)");
}

const char *llm_model_id(const Llm *llm)
{
	if (llm_is_offline(llm))
		return LLM_OFFLINE_VERSION;
	return llm->model_id ? llm->model_id : "";
}
