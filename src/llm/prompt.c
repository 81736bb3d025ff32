/*
 * prompt.c: finding prompt templates (built in or from a directory) and filling their
 * {{placeholders}}.
 */
#include "base/util.h"
#include "llm/prompt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *prompt_get(const char *dir, const char *name, SuqlErr *err)
{
	if (dir && *dir) {
		char *path = xprintf("%s/%s.txt", dir, name);
		char *text = util_read_file(path, NULL);
		if (text) {
			free(path);
			return text;
		}
		if (errno != ENOENT) {
			err_set(err, SUQL_IO, "cannot read prompt %s: %s", path, strerror(errno));
			free(path);
			return NULL;
		}
		free(path);
	}
	for (const PromptFile *p = prompt_files; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return xstrdup(p->text);
	err_set(err, SUQL_IO, "no prompt named '%s'", name);
	return NULL;
}

char *prompt_render(const char *tmpl, const char *const *kv, int nkv)
{
	SBuf b = SBUF_INIT;
	const char *p = tmpl;
	while (*p) {
		const char *open = strstr(p, "{{");
		if (!open) {
			sb_puts(&b, p);
			break;
		}
		sb_putn(&b, p, (size_t)(open - p));
		const char *close = strstr(open + 2, "}}");
		if (!close) {
			sb_puts(&b, open);
			break;
		}
		const char *k = open + 2;
		size_t klen = (size_t)(close - k);
		str_trim(&k, &klen);
		int found = 0;
		for (int i = 0; i < nkv && !found; i++) {
			if (strlen(kv[2 * i]) == klen && strncmp(kv[2 * i], k, klen) == 0) {
				sb_puts(&b, kv[2 * i + 1] ? kv[2 * i + 1] : "");
				found = 1;
			}
		}
		if (!found)
			sb_putn(&b, open, (size_t)(close + 2 - open));
		p = close + 2;
	}
	return sb_steal(&b);
}
