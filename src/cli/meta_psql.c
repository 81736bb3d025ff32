/*
 * meta_psql.c: the meta-commands psql and the sqlite3 shell taught people, in suql's own
 * spelling (habit.c maps \watch, \e, \l, \conninfo, .databases onto them):
 *
 *   :echo TEXT        the words, a blank apart, where results go
 *   :watch [N] [c=K]  the last statement again every N seconds (2 by default), K times or
 *                     until Ctrl-C; psql 16's i=N and c=K spellings too
 *   :edit [FILE]      $EDITOR on the last statement (or FILE), then what was saved runs
 *   :conninfo         the database: SQLite's file (or memory), PostgreSQL's server and user
 *   :databases        the databases: PostgreSQL's (psql's \l), or SQLite's attached files
 *
 * The last statement is the REPL's (Repl.last): every statement run keeps its text as it
 * ran, so :watch and :edit run exactly what ran before.
 */
#include "cli/meta.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

SuqlStatus meta_echo(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	(void)err;
	for (int i = 1; i < argc; i++)
		fprintf(env->out, "%s%s", i > 1 ? " " : "", argv[i]);
	fputc('\n', env->out);
	return SUQL_OK;
}

/* ---- :watch ---- */

/* Wait until the clock reads until_ms; 0 when Ctrl-C came first. */
static int wait_until(double until_ms)
{
	for (;;) {
		if (suql_interrupted)
			return 0;
		double left = until_ms - util_now_ms();
		if (left <= 0)
			return 1;
		struct timespec ts = {(time_t)(left / 1000), (long)((left - (double)(long)(left / 1000) *
		                      1000) * 1e6)};
		nanosleep(&ts, NULL);   /* SIGINT ends it early (no SA_RESTART) */
	}
}

/* "N", "i=N" or "interval=N" seconds; "c=K" or "count=K" runs. */
static SuqlStatus watch_args(int argc, char **argv, double *every, long *count, SuqlErr *err)
{
	int interval_seen = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t kl = eq ? (size_t)(eq - a) : 0;
		const char *v = eq ? eq + 1 : a;
		if (!eq || (kl == 1 && a[0] == 'i') || (kl == 8 && strncmp(a, "interval", 8) == 0)) {
			if (interval_seen || !setting_parse_real(v, 0, 86400, 0, every))
				return err_set(err, SUQL_USAGE, "usage: :watch [SECONDS] [c=COUNT] (SECONDS "
				               "from 0 to 86400, not '%s')", a);
			interval_seen = 1;
		} else if ((kl == 1 && a[0] == 'c') || (kl == 5 && strncmp(a, "count", 5) == 0)) {
			if (!setting_parse_long(v, 1, (double)LONG_MAX, count))
				return err_set(err, SUQL_USAGE, "usage: :watch [SECONDS] [c=COUNT] (COUNT a "
				               "whole number from 1, not '%s')", v);
		} else {
			return err_set(err, SUQL_USAGE, "usage: :watch [SECONDS] [c=COUNT], not '%s'", a);
		}
	}
	return SUQL_OK;
}

SuqlStatus meta_watch(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	Repl *r = env->r;
	double every = 2;
	long count = 0;
	if (watch_args(argc, argv, &every, &count, err) != SUQL_OK)
		return SUQL_USAGE;
	if (r->last.len == 0)
		return err_set(err, SUQL_USAGE, ":watch runs the last statement again: run one first");
	char *sql = xstrndup(r->last.s, r->last.len);   /* running it keeps it again */
	size_t len = strlen(sql);
	double t0 = util_now_ms();
	for (long k = 0; (count == 0 || k < count) && !r->quit; k++) {
		if (k > 0 && !wait_until(t0 + (double)k * every * 1000))
			break;
		if (r->s.interactive) {   /* psql's title: when, and how often */
			char when[64];
			time_t now = time(NULL);
			strftime(when, sizeof when, "%a %d %b %Y %H:%M:%S", localtime(&now));
			fprintf(session_section_out(&r->s), "%s%s (every %gs)\n\n", k ? "\n" : "", when,
			        every);
		}
		if (repl_run_statements(r, sql, len, NULL, 1) != SUQL_OK)
			break;   /* said already; a failing statement is not watched on */
		fflush(r->s.out);
	}
	free(sql);
	if (suql_interrupted && r->s.interactive)
		session_after_ctrl_c(&r->s);   /* Ctrl-C ends the watch; the prompt comes back */
	return SUQL_OK;
}

/* ---- :edit ---- */

/* Run `$EDITOR path` (else $VISUAL, else vi) through the shell, the path as its argument
   (never part of the command's text), and wait for it; Ctrl-C is the editor's meanwhile. */
static SuqlStatus run_editor(const char *path, SuqlErr *err)
{
	const char *ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = "vi";
	char *cmd = xprintf("%s \"$1\"", ed);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	SuqlStatus st = SUQL_OK;
	if (pid < 0) {
		st = err_set(err, SUQL_IO, "cannot start the editor: %s", strerror(errno));
	} else {
		struct sigaction ign, old;
		memset(&ign, 0, sizeof ign);
		ign.sa_handler = SIG_IGN;
		sigaction(SIGINT, &ign, &old);
		int ws = 0;
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		sigaction(SIGINT, &old, NULL);
		if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			st = err_set(err, SUQL_ERROR, "the editor (%s) failed (status %d): nothing was run",
			             ed, WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
	}
	free(cmd);
	return st;
}

static char *slurp(const char *path, size_t *len, SuqlErr *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		err_set(err, SUQL_IO, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	SBuf b = SBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_putn(&b, buf, n);
	fclose(f);
	*len = b.len;
	return sb_steal(&b);
}

SuqlStatus meta_edit(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	Repl *r = env->r;
	if (argc > 2)
		return err_set(err, SUQL_USAGE, "usage: :edit [FILE]");
	char tmp[4096];
	const char *path = argc == 2 ? argv[1] : NULL;
	if (!path) {   /* the last statement, in a file of its own */
		const char *dir = getenv("TMPDIR");
		snprintf(tmp, sizeof tmp, "%s/suql-edit-XXXXXX.sql", dir && *dir ? dir : "/tmp");
		int fd = mkstemps(tmp, 4);
		if (fd < 0)
			return err_set(err, SUQL_IO, "cannot make a file to edit: %s", strerror(errno));
		FILE *f = fdopen(fd, "w");
		int ok = f != NULL;
		if (ok && r->last.len) {
			ok = fwrite(r->last.s, 1, r->last.len, f) == r->last.len;
			if (r->last.s[r->last.len - 1] != '\n')
				ok &= fputc('\n', f) != EOF;
		}
		if (f)
			ok &= fclose(f) == 0;
		else
			close(fd);
		if (!ok) {
			unlink(tmp);
			return err_set(err, SUQL_IO, "cannot write %s: %s", tmp, strerror(errno));
		}
		path = tmp;
	}
	SuqlStatus st = run_editor(path, err);
	size_t len = 0;
	char *text = st == SUQL_OK ? slurp(path, &len, err) : NULL;
	if (path == tmp)
		unlink(tmp);
	if (!text)
		return st == SUQL_OK ? SUQL_IO : st;
	repl_run_text(r, argc == 2 ? path : NULL, text, len);   /* what was saved, as typed */
	free(text);
	return SUQL_OK;
}

/* ---- the database ---- */

SuqlStatus meta_conninfo(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return err_set(err, SUQL_USAGE, "usage: :%s", argv[0]);
	Store *st = engine_store(env->engine);
	const char *path = engine_path(env->engine);
	const char *ro = env->s->readonly ? ", read-only" : "";
	if (store_pg_target(path)) {
		char *d = store_pg_describe(st);
		fprintf(env->out, "connected to the %s (server %s%s)\n", d, store_version(st), ro);
		free(d);
	} else if (!*path || strcmp(path, ":memory:") == 0) {
		fprintf(env->out, "connected to a SQLite database in memory (SQLite %s; nothing is "
		        "saved)\n", store_version(st));
	} else {
		char *abs = realpath(path, NULL);
		fprintf(env->out, "connected to the SQLite database file %s (SQLite %s%s)\n",
		        abs ? abs : path, store_version(st), ro);
		free(abs);
	}
	return SUQL_OK;
}

/* psql's \l on PostgreSQL: the server's databases; on SQLite, the files attached (the
   sqlite3 shell's .databases). A statement, shown in the output mode. */
SuqlStatus meta_databases(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 1)
		return err_set(err, SUQL_USAGE, "usage: :%s", argv[0]);
	const char *sql = store_pg_target(engine_path(env->engine))
		? "SELECT datname AS \"Name\", pg_get_userbyid(datdba) AS \"Owner\", "
		  "pg_encoding_to_char(encoding) AS \"Encoding\" FROM pg_database "
		  "WHERE NOT datistemplate ORDER BY datname;"
		: "SELECT name, file FROM pragma_database_list ORDER BY seq;";
	size_t used = 0;
	return session_run(env->s, sql, strlen(sql), &used, NULL, 0, NULL, err);
}
