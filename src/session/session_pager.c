/*
 * session_pager.c: long results at a terminal go through a pager, as in psql. With :set pager
 * on (the default at a terminal) a statement's result is written to memory first; when it
 * is taller than the terminal it is piped to $PAGER ("less -S" when PAGER is unset, none
 * when it is set but empty), otherwise it is written out as usual. Colour escapes are taken
 * out for the pager (a pager shows them as text unless told otherwise). A pager that cannot
 * run loses nothing: the result is written to the terminal with a warning.
 */
#include "session/session.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGER_DEFAULT "less -S"

/* The pager command, or NULL for none. */
static const char *pager_command(void)
{
	const char *p = getenv("PAGER");
	if (!p)
		return PAGER_DEFAULT;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p ? p : NULL;
}

FILE *session_pager_buffer(Session *s, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (!s->pager || !s->interactive || s->out != stdout || !util_isatty(stdout) ||
	    !pager_command())
		return NULL;
	return open_memstream(buf, len);
}

/* Text without the renderer's colour escapes (ESC [ digits m); stored text never holds an
   ESC, as the renderer shows control characters as ^X. */
static void strip_color(char *s, size_t *n)
{
	size_t o = 0;
	for (size_t i = 0; i < *n; i++) {
		if (s[i] == '\033' && i + 1 < *n && s[i + 1] == '[') {
			size_t j = i + 2;
			while (j < *n && s[j] >= '0' && s[j] <= '9')
				j++;
			if (j < *n && s[j] == 'm') {
				i = j;
				continue;
			}
		}
		s[o++] = s[i];
	}
	*n = o;
}

/* Rows of the terminal the text takes, long lines wrapping at cols. */
static long screen_rows(const char *s, size_t n, int cols)
{
	long rows = 0;
	for (size_t a = 0; a < n;) {
		size_t e = a;
		while (e < n && s[e] != '\n')
			e++;
		size_t w = render_width(s + a, e - a);
		rows += w > (size_t)cols ? (long)((w + (size_t)cols - 1) / (size_t)cols) : 1;
		a = e + 1;
	}
	return rows;
}

/* 0 when the pager ran; -1 when it could not (nothing, or not all, was shown). */
static int run_pager(const char *cmd, const char *text, size_t n)
{
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);   /* quitting the pager early is not an error */
	int was = suql_interrupted;
	fflush(stdout);
	FILE *p = popen(cmd, "w");
	int rc = -1;
	if (p) {
		fwrite(text, 1, n, p);
		rc = pclose(p);
	}
	sigaction(SIGPIPE, &old, NULL);
	suql_interrupted = was;   /* Ctrl-C inside the pager is the pager's */
	if (rc == -1 || (WIFEXITED(rc) && (WEXITSTATUS(rc) == 127 || WEXITSTATUS(rc) == 126)))
		return -1;
	return 0;
}

void session_pager_show(Session *s, FILE *f, char **buf, size_t *len)
{
	fclose(f);
	struct winsize ws;
	int rows = 24, cols = 80;
	if (ioctl(fileno(stdout), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) {
		rows = ws.ws_row;
		cols = ws.ws_col > 0 ? ws.ws_col : cols;
	}
	const char *cmd = pager_command();
	if (*len && cmd && screen_rows(*buf, *len, cols) > rows - 1) {
		char *copy = xstrndup(*buf, *len);
		size_t n = *len;
		strip_color(copy, &n);
		int ok = run_pager(cmd, copy, n) == 0;
		free(copy);
		if (ok)
			goto done;
		fprintf(stderr, "warning: the pager '%s' could not run; the result follows (set "
		        "PAGER, or :set pager off)\n", cmd);
	}
	fwrite(*buf ? *buf : "", 1, *len, s->out);
done:
	fflush(s->out);
	free(*buf);
	*buf = NULL;
	*len = 0;
}
