/*
 * session_show.c: the compact display (:set show compact). The engine hands the session
 * its plan and its counters as text, a fact a line, in wordings that stay put because
 * tests read them ("worst case: 16 LLM calls", "llm calls: 2", "tokens: 100 in, 20 out",
 * "cost: $0.00120", "time: ... in all"); the compact display reads those lines back and
 * keeps the figures a person decides by: the calls expected and at worst and their price
 * before the statement runs, the calls, tokens, dollars and time after. The engine's
 * display stays whole for :set show full; nothing here changes what it computes.
 */
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

/* The line of text (top level: no indentation) that starts with prefix, or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *l = text; l && *l;) {
		if (strncmp(l, prefix, n) == 0)
			return l;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

/* The number at p (digits), or -1 when there is none. */
static long long number_at(const char *p)
{
	if (!p || *p < '0' || *p > '9')
		return -1;
	return strtoll(p, NULL, 10);
}

/* The dollar figure after marker in the line at l ("$0.00120"), appended to out; 0 when
   the line has none. */
static int dollars_after(const char *l, const char *marker, SBuf *out)
{
	size_t n = strcspn(l, "\n");
	char *line = xstrndup(l, n);
	const char *p = strstr(line, marker);
	int found = 0;
	if (p) {
		p += strlen(marker) - 1;   /* the marker ends with '$' */
		size_t k = 1 + strspn(p + 1, "0123456789.");
		if (k > 1) {
			sb_putn(out, p, k);
			found = 1;
		}
	}
	free(line);
	return found;
}

static void calls(SBuf *out, long long n)
{
	sb_printf(out, "%lld LLM call%s", n, n == 1 ? "" : "s");
}

/* The first line of text, when nothing else can be read. */
static void first_line(const char *text, SBuf *out)
{
	sb_putn(out, text, strcspn(text, "\n"));
}

void session_compact_plan(const char *plan, SBuf *out)
{
	const char *e = line_with(plan, "expected: at most ");
	const char *w = line_with(plan, "worst case: ");
	long long expect = e ? number_at(e + strlen("expected: at most ")) : -1;
	long long worst = w ? number_at(w + strlen("worst case: ")) : -1;
	if (worst < 0) {
		first_line(plan, out);
		return;
	}
	if (worst == 0) {
		sb_puts(out, "no LLM call");
	} else if (expect >= 0 && expect < worst) {
		calls(out, expect);
		sb_printf(out, " expected, at most %lld", worst);
	} else {
		sb_puts(out, "at most ");
		calls(out, worst);
	}
	const char *c = line_with(plan, "cost (");
	if (c) {   /* "...: expected about $E, at most $W at ...'s price" */
		SBuf d = SBUF_INIT;
		if (dollars_after(c, "expected about $", &d))
			sb_puts(&d, ", ");
		size_t had = d.len;
		if (dollars_after(c, "at most $", &d)) {
			sb_puts(out, had ? "; about " : "; at most ");
			if (had) {
				sb_putn(out, d.s, had);
				sb_puts(out, "at most ");
			}
			sb_puts(out, d.s + had);
		}
		sb_free(&d);
	}
	if (line_with(plan, "bulk: "))
		sb_puts(out, "; bulk (lines of a batch)");
}

void session_compact_counters(const char *counters, SBuf *out)
{
	const char *l = line_with(counters, "llm calls: ");
	long long n = l ? number_at(l + strlen("llm calls: ")) : -1;
	if (n < 0) {
		session_compact_join(counters, out);
		return;
	}
	calls(out, n);
	const char *t = line_with(counters, "tokens: ");
	if (t) {   /* "tokens: 100 in (...), 20 out (...)" */
		long long in = number_at(t + strlen("tokens: "));
		const char *o = strstr(t, ", ");
		const char *end = t + strcspn(t, "\n");
		long long outn = o && o < end ? number_at(o + 2) : -1;
		if (in >= 0 && outn >= 0)
			sb_printf(out, ", %lld tokens in, %lld out", in, outn);
	}
	const char *c = line_with(counters, "cost: $");
	if (c) {
		sb_puts(out, ", ");
		dollars_after(c, "cost: $", out);
	}
	const char *tm = line_with(counters, "time: ");
	if (tm) {   /* "time: A waiting for the model, B in all" */
		size_t len = strcspn(tm, "\n");
		char *line = xstrndup(tm, len);
		char *all = strstr(line, " in all");
		char *from = all ? strstr(line, ", ") : NULL;
		if (all && from && from < all)
			sb_printf(out, ", %.*s", (int)(all - from - 2), from + 2);
		free(line);
	}
}

void session_compact_join(const char *text, SBuf *out)
{
	int first = 1;
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		size_t lead = strspn(l, " ");
		if (n > lead) {
			if (!first)
				sb_puts(out, "; ");
			sb_putn(out, l + lead, n - lead);
			first = 0;
		}
		l += n + (l[n] == '\n');
	}
}
