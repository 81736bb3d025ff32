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

/* The role a marker line names ("[system]"), or NULL. */
static const char *marker(const char *line, size_t n)
{
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	if (str_nieq(line, n, "[system]"))
		return "system";
	if (str_nieq(line, n, "[user]"))
		return "user";
	if (str_nieq(line, n, "[assistant]"))
		return "assistant";
	return NULL;
}

int prompt_split(const char *tmpl, PromptPart *parts, int max)
{
	int np = 0;
	const char *role = "user";
	size_t start = 0, len = strlen(tmpl);
	for (size_t at = 0; at <= len;) {
		size_t e = at;
		while (e < len && tmpl[e] != '\n')
			e++;
		const char *mk = at < len ? marker(tmpl + at, e - at) : NULL;
		if (mk || at >= len) {
			size_t end = at >= len ? len : at;
			if (np < max && (end > start || !mk)) {
				parts[np].role = role;
				parts[np].text = xstrndup(tmpl + start, end - start);
				np++;
			}
			if (mk)
				role = mk;
			start = e < len ? e + 1 : len;
		}
		if (at >= len)
			break;
		at = e + 1;
	}
	return np;
}
