/*
 * fuzz_chatreply.c: a libFuzzer target over the readers of the chat agent's model replies
 * (chat/agent_query.c): the parse step's verdict (agent_read_parse: a direct answer, a
 * query, or neither), the query in a reply (agent_extract_query) and the short answer
 * (agent_read_short). Checked: exactly the output of the verdict returned is set, and it
 * is never empty; nothing read out is longer than the reply (a JSON string's escapes only
 * shorten it); and the readers never read past what they were given (AddressSanitizer).
 * Any violation aborts.
 */
#include "chat/agent.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *reply = xstrndup((const char *)data, size);   /* the reply as text: to its NUL */
	size_t n = strlen(reply);
	char *direct = NULL, *query = NULL;
	AgentVerdict v = agent_read_parse(reply, &direct, &query);
	if (v == AGENT_DIRECT && (!direct || !*direct || query))
		abort();
	if (v == AGENT_QUERY && (!query || !*query || direct || strlen(query) > n))
		abort();
	if (v == AGENT_UNREAD && (direct || query))
		abort();
	if (direct && strlen(direct) > n)
		abort();
	char *q = agent_extract_query(reply);
	if (q && (!*q || strlen(q) > n))
		abort();
	char *s = agent_read_short(reply);
	if (!s || strlen(s) > n)
		abort();
	free(direct);
	free(query);
	free(q);
	free(s);
	free(reply);
	return 0;
}
