/*
 * progress.c: the terminal progress bar of progress.h. It draws
 *     label  [##########..........]  48%  1,234,567
 * with a carriage return and no newline, and erases itself when closed, so that nothing is
 * left in the terminal's scrollback and piped output is never touched.
 */
#include "base/progress.h"
#include "base/util.h"
#include "base/vis.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct Progress {
	FILE *f;
	char *label;
	double total, done;
	double last_ms;
	int drawn;      /* width of the last line drawn, to erase it */
};

static void thousands(char *buf, size_t cap, double v)
{
	char raw[32];
	snprintf(raw, sizeof raw, "%.0f", v < 0 ? 0 : v);
	size_t n = strlen(raw), o = 0;
	for (size_t i = 0; i < n && o + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

static void draw(Progress *p)
{
	char line[256], count[40];
	thousands(count, sizeof count, p->done);
	int n;
	if (p->total > 0) {
		double frac = p->done / p->total;
		if (frac > 1)
			frac = 1;
		char bar[21];
		int full = (int)(frac * 20);
		for (int i = 0; i < 20; i++)
			bar[i] = i < full ? '#' : '.';
		bar[20] = '\0';
		n = snprintf(line, sizeof line, "%.60s  [%s] %3d%%  %s", p->label, bar,
		             (int)(frac * 100), count);
	} else {
		n = snprintf(line, sizeof line, "%.60s  %s", p->label, count);
	}
	if (n < 0)
		return;
	if (n >= (int)sizeof line)
		n = (int)sizeof line - 1;
	fprintf(p->f, "\r%s", line);
	for (int i = n; i < p->drawn; i++)
		fputc(' ', p->f);
	fflush(p->f);
	p->drawn = n;
}

Progress *progress_open(FILE *f, int mode, const char *label, double total)
{
	if (!f || mode == PROGRESS_OFF)
		return NULL;
	if (mode == PROGRESS_AUTO) {
		if (!util_isatty(f))   /* asked first: it is kept, TERM is looked for */
			return NULL;
		const char *term = getenv("TERM");
		if (term && strcmp(term, "dumb") == 0)
			return NULL;
	}
	Progress *p = xcalloc(1, sizeof *p);
	p->f = f;
	SBuf b = SBUF_INIT;   /* a file or table name may hold control characters */
	sb_puts(&b, "");
	vis_put(&b, label ? label : "", label ? strlen(label) : 0, 0);
	p->label = sb_steal(&b);
	p->total = total;
	p->last_ms = -1e9;
	return p;
}

void progress_set(Progress *p, double done)
{
	if (!p)
		return;
	p->done = done;
	double now = util_now_ms();
	if (now - p->last_ms < 100 && !(p->total > 0 && done >= p->total))
		return;
	p->last_ms = now;
	draw(p);
}

void progress_phase(Progress *p, const char *label, double total)
{
	if (!p)
		return;
	free(p->label);
	SBuf b = SBUF_INIT;   /* a file or table name may hold control characters */
	sb_puts(&b, "");
	vis_put(&b, label ? label : "", label ? strlen(label) : 0, 0);
	p->label = sb_steal(&b);
	p->total = total;
	p->done = 0;
	p->last_ms = -1e9;
}

void progress_close(Progress *p)
{
	if (!p)
		return;
	if (p->drawn) {
		fputc('\r', p->f);
		for (int i = 0; i < p->drawn; i++)
			fputc(' ', p->f);
		fputc('\r', p->f);
		fflush(p->f);
	}
	free(p->label);
	free(p);
}

void progress_text(Progress *p, const char *text, int now)
{
	if (!p)
		return;
	double t = util_now_ms();
	if (!now && t - p->last_ms < 100)
		return;
	p->last_ms = t;
	struct winsize ws;
	int cols = ioctl(fileno(p->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	int n = (int)strlen(text);
	if (n > cols - 1)
		n = cols - 1;   /* one line, never wrapped: \r must reach its start */
	if (n < 0)
		n = 0;
	fprintf(p->f, "\r%.*s", n, text);
	for (int i = n; i < p->drawn; i++)
		fputc(' ', p->f);
	if (p->drawn > n)
		fprintf(p->f, "\r%.*s", n, text);
	fflush(p->f);
	p->drawn = n;
}

int progress_erase(Progress *p)
{
	if (!p || !p->drawn)
		return 0;
	fputs("\r\033[K", p->f);   /* to the end of the line: a ^C echoed after it goes too */
	fflush(p->f);
	p->drawn = 0;
	p->last_ms = -1e9;
	return 1;
}
