/*
 * session.c: the session's life (init, open a database, free), where results and sections
 * go (:output, :once), the secrets kept out of the history, and notices.
 */
#include "session/session.h"

#include "base/vis.h"
#include "store/own.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void session_init(Session *s, int interactive)
{
	memset(s, 0, sizeof *s);
	s->out = stdout;
	s->mode = RENDER_TABLE;
	s->headers = 1;
	s->interactive = interactive;
	s->explain = interactive ? SESSION_AUTO : 0;
	s->stats = interactive;
	s->pager = 1;   /* used only at a terminal */
	s->color_ok = 1;
	s->fetch_count = SESSION_FETCH_COUNT;
}

void session_free(Session *s)
{
	agent_free(s->agent);
	engine_close(s->engine);
	if (s->out_path)
		fclose(s->out);
	free(s->out_path);
	if (s->prev_path)
		fclose(s->prev_out);
	free(s->prev_path);
	free(s->nullvalue);
	for (int i = 0; i < s->nsecrets; i++)
		free(s->secrets[i]);
	free(s->secrets);
	memset(s, 0, sizeof *s);
}

SuqlStatus session_open(Session *s, const char *path, SuqlErr *err)
{
	Engine *e = engine_open_mode(path, s->llm, s->readonly, err);
	if (!e)
		return err->code ? err->code : SUQL_IO;
	engine_copy_settings(e, s->engine);
	engine_close(s->engine);
	s->engine = e;
	/* what suql will not write through in this file, said once when it is opened */
	char **msgs;
	int n = engine_db(e) ? own_scan(engine_db(e), &msgs) : 0;
	for (int i = 0; i < n; i++)
		fprintf(stderr, "warning: %s\n", msgs[i]);
	if (n)
		own_strings_free(msgs, n);
	return SUQL_OK;
}

void session_once_over(Session *s)
{
	if (!s->once)
		return;
	if (s->out_path)
		fclose(s->out);
	free(s->out_path);
	s->out = s->prev_out;
	s->out_path = s->prev_path;
	s->prev_out = NULL;
	s->prev_path = NULL;
	s->once = 0;
	s->once_mode = 0;
}

void session_once_mode(Session *s, RenderMode m)
{
	if (s->once)
		s->once_mode = (int)m + 1;
}

int session_mode_of_path(const char *path, RenderMode *m)
{
	static const struct { const char *ext; RenderMode m; } exts[] = {
		{".csv", RENDER_CSV}, {".json", RENDER_JSON}, {".md", RENDER_MARKDOWN},
		{".markdown", RENDER_MARKDOWN}, {".html", RENDER_HTML}, {".htm", RENDER_HTML},
	};
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return 0;
	for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
		if (str_ieq(dot, exts[i].ext)) {
			*m = exts[i].m;
			return 1;
		}
	return 0;
}

SuqlStatus session_set_output(Session *s, const char *path, int once, SuqlErr *err)
{
	FILE *f = stdout;
	if (path && strcmp(path, "-") != 0) {
		f = fopen(path, "w");
		if (!f)
			return err_set(err, SUQL_IO, "cannot write %s: %s", path, strerror(errno));
	}
	char *fpath = f == stdout ? NULL : xstrdup(path);
	session_once_over(s);   /* a :once not used yet is replaced */
	if (once) {
		s->prev_out = s->out;
		s->prev_path = s->out_path;
		s->once = 1;
	} else if (s->out_path) {
		fclose(s->out);
		free(s->out_path);
	}
	s->out = f;
	s->out_path = fpath;
	return SUQL_OK;
}

void session_add_secret(Session *s, const char *value)
{
	if (!value || !*value)
		return;
	s->secrets = xrealloc(s->secrets, (size_t)(s->nsecrets + 1) * sizeof *s->secrets);
	s->secrets[s->nsecrets++] = xstrdup(value);
}

int session_is_secret(const Session *s, const char *text)
{
	if (str_icontains(text, "llm.key"))
		return 1;
	static const char *const envs[] = {"SUQL_LLM_KEY", "OPENAI_API_KEY"};
	for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
		const char *v = getenv(envs[i]);
		if (v && strlen(v) >= 4 && strstr(text, v))
			return 1;
	}
	for (int i = 0; i < s->nsecrets; i++)
		if (strstr(text, s->secrets[i]))
			return 1;
	return 0;
}

/* A script whose statement the offline backend answered, though no one chose it: one line
   on standard error, once a run (the REPL labels every such statement itself). */
static void offline_notice(Session *s)
{
	if (s->interactive || s->offline_noted || !llm_offline_unasked(s->llm))
		return;
	const LlmCounts *t = &llm_stats_session(s->llm)->total;
	if (t->calls + t->cache_hits == 0)
		return;
	s->offline_noted = 1;
	fflush(s->out);
	fputs("note: answered by the offline backend (lexical, no language model): configure an "
	      "endpoint (--llm-url and --model, or the config file) for a model's answers; "
	      "--offline or :set llm.offline_note off hides this note\n", stderr);
	fflush(stderr);
}

void session_notices(Session *s)
{
	offline_notice(s);
	const char *why = s->llm ? llm_cache_notice(s->llm) : NULL;
	if (!why)
		return;
	fflush(s->out);
	fputs("warning: running without the LLM cache: ", stderr);
	vis_fputs(stderr, why, VIS_TEXT);
	fputs(" (results are not kept between sessions; :cache shows this again)\n", stderr);
	fflush(stderr);
}

FILE *session_section_out(const Session *s)
{
	(void)s;
	return util_isatty(stdout) ? stdout : stderr;
}

void session_after_ctrl_c(Session *s)
{
	if (!suql_interrupted || s->ctrlc_shown || !s->interactive)
		return;
	session_status_clear(s);   /* erasing the status line takes the ^C with it */
	if (s->ctrlc_shown)
		return;
	s->ctrlc_shown = 1;
	fflush(stderr);
	fputc('\n', stdout);
	fflush(stdout);
}
