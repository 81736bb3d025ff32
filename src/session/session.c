/*
 * session.c: the session's life (init, open a database, free), where results and sections
 * go (:output, :once) and whether what was written there arrived (session_check_output),
 * the secrets masked in the history, and notices.
 */
#include "session/session.h"

#include "base/secret.h"
#include "base/vis.h"
#include "store/own.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
	s->max_width = RENDER_MAX_WIDTH;
}

void session_free(Session *s)
{
	agent_free(s->agent);
	render_free(s->render);
	engine_close(s->engine);
	if (s->out_path)
		fclose(s->out);
	free(s->out_path);
	if (s->prev_path)
		fclose(s->prev_out);
	free(s->prev_path);
	free(s->werr_name);
	free(s->nullvalue);
	free(s->insert_table);
	session_vars_free(s);
	session_result_free(&s->last);
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
	int n = engine_own_scan(e, &msgs);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "warning: %s\n", msgs[i]);
	if (n)
		own_strings_free(msgs, n);
	return SUQL_OK;
}

/* Close an :output or :once file; a write that fails now (what was still buffered) is kept
   for session_check_output to report. */
static void close_out(Session *s, FILE *f, const char *path)
{
	errno = 0;
	int bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad && !s->werr) {
		s->werr = e ? e : s->out_errno ? s->out_errno : -1;
		s->out_errno = 0;
		free(s->werr_name);
		s->werr_name = xstrdup(path);
	}
}

/* Flush f and say whether a write to it failed since the last check: its errno (hint when
   the failed write's own is gone, -1 when neither is known); clears its error flag. */
static int stream_failed(FILE *f, int hint)
{
	errno = 0;
	int bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	clearerr(f);
	if (!bad)
		return 0;
	struct pollfd p = {fileno(f), POLLOUT, 0};
	if (p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR))
		return EPIPE;   /* a pipe without a reader (POLLERR says so whatever errno was) */
	return e ? e : hint ? hint : -1;
}

static SuqlStatus lost(SuqlErr *err, const char *name, int e)
{
	if (e > 0)
		return err_set(err, SUQL_IO, "cannot write to %s: %s (output lost)", name,
		               strerror(e));
	return err_set(err, SUQL_IO, "cannot write to %s (output lost)", name);
}

SuqlStatus session_check_output(Session *s, SuqlErr *err)
{
	int hint = s->out_errno;
	s->out_errno = 0;
	if (s->werr) {
		int e = s->werr;
		s->werr = 0;
		stream_failed(s->out, 0);
		stream_failed(stderr, 0);
		return lost(err, s->werr_name, e);
	}
	int e = stream_failed(s->out, hint);
	const char *name = s->out_path ? s->out_path : "standard output";
	if (e == EPIPE && s->out == stdout) {
		s->broken_pipe = 1;
		stream_failed(stderr, 0);
		return SUQL_OK;
	}
	if (!e && s->out != stdout && (e = stream_failed(stdout, 0)) != 0)
		name = "standard output";   /* a section or a note that went to stdout */
	if (e)
		return lost(err, name, e);
	if ((e = stream_failed(stderr, 0)) != 0)
		return lost(err, "standard error", e);
	return SUQL_OK;
}

void session_once_over(Session *s)
{
	if (!s->once)
		return;
	if (s->out_path)
		close_out(s, s->out, s->out_path);
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
		close_out(s, s->out, s->out_path);
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

/* The first "llm.key" in t, in any case, or NULL. */
static const char *find_key_setting(const char *t)
{
	for (; *t; t++)
		if (strncasecmp(t, "llm.key", 7) == 0)
			return t;
	return NULL;
}

/* The value after "llm.key" (":set llm.key VALUE", "--set llm.key=VALUE") masked. */
static char *mask_key_setting(char *t)
{
	SBuf b = SBUF_INIT;
	const char *p = t, *hit;
	while ((hit = find_key_setting(p)) != NULL) {
		const char *v = hit + 7;
		while (*v == ' ' || *v == '\t' || *v == '=')
			v++;
		const char *e = v;
		while (*e && *e != '\n' && *e != ' ' && *e != '\t' && *e != ';')
			e++;
		sb_putn(&b, p, (size_t)(v - p));
		if (e > v)
			sb_puts(&b, "***");
		p = e;
	}
	sb_puts(&b, p);
	free(t);
	return sb_steal(&b);
}

char *session_history_text(const Session *s, const char *text)
{
	int n = s->nsecrets + 2;
	const char **v = xcalloc((size_t)n, sizeof *v);
	v[0] = getenv("SUQL_LLM_KEY");
	v[1] = getenv("OPENAI_API_KEY");
	for (int i = 0; i < s->nsecrets; i++)
		v[i + 2] = s->secrets[i];
	char *t = secret_mask(text, v, n);
	free(v);
	return mask_key_setting(t);
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
	const char *lwhy = s->llm ? llm_log_notice(s->llm) : NULL;
	if (lwhy) {
		fflush(s->out);
		fputs("warning: running without the request log: ", stderr);
		vis_fputs(stderr, lwhy, VIS_TEXT);
		fputs(" (:set llm.log off stops trying)\n", stderr);
		fflush(stderr);
	}
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
