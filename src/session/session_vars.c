/*
 * session_vars.c: psql's variables. `\set NAME VALUE`, `-v NAME=VALUE` and `--variable
 * NAME=VALUE` give a name (letters, digits and underscores) a text; `\unset NAME` takes it
 * away; `\set` alone lists them. One has a meaning of its own, as in psql: ON_ERROR_STOP,
 * a boolean, stops a script at its first error as --bail does (the REPL reads
 * Session.on_error_stop). The others are text for the statements to use.
 *
 * Interpolation is psql's: in a statement, outside strings, quoted names and comments,
 * `:NAME` becomes the value as written, `:'NAME'` the value as an SQL string literal (each
 * quote doubled) and `:"NAME"` as a quoted name (each double quote doubled); a name that
 * is not set is left as it was typed (then `:NAME` is SQLite's parameter, as before), and
 * `::` is a cast. The values come only from the user (the command line, \set, the init
 * file): no variable is ever set from a table, a file of data or a model, so text from
 * those never becomes SQL this way; :'NAME' is the form that keeps a value data.
 *
 * Ownership: the Session owns every name and value (session_free frees them); the text
 * session_interpolate returns is the caller's.
 */
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

int session_var_name_ok(const char *name, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return 1;
}

/* The index of name in the sorted table, or where it would go (then *found is 0). */
static int slot(const Session *s, const char *name, size_t n, int *found)
{
	int lo = 0, hi = s->nvars;
	*found = 0;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const char *v = s->vars[mid].name;
		int c = strncmp(v, name, n);
		if (c == 0)
			c = v[n] ? 1 : 0;
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *get(const Session *s, const char *name, size_t n)
{
	int found, i = slot(s, name, n, &found);
	return found ? s->vars[i].value : NULL;
}

SuqlStatus session_var_set(Session *s, const char *name, const char *value, SuqlErr *err)
{
	size_t n = strlen(name);
	if (!session_var_name_ok(name, n))
		return err_set(err, SUQL_USAGE, "invalid variable name '%s' (letters, digits and "
		               "underscores)", name);
	if (strcmp(name, "ON_ERROR_STOP") == 0) {
		int on;
		if (!str_parse_bool(value, &on))
			return err_set(err, SUQL_USAGE, "ON_ERROR_STOP takes on or off (also true, false, "
			               "yes, no, 1, 0), not '%s'", value);
		s->on_error_stop = on;
	}
	int found, i = slot(s, name, n, &found);
	if (found) {
		free(s->vars[i].value);
		s->vars[i].value = xstrdup(value);
		return SUQL_OK;
	}
	s->vars = xrealloc(s->vars, (size_t)(s->nvars + 1) * sizeof *s->vars);
	memmove(&s->vars[i + 1], &s->vars[i], (size_t)(s->nvars - i) * sizeof *s->vars);
	s->vars[i] = (SessionVar){xstrdup(name), xstrdup(value)};
	s->nvars++;
	return SUQL_OK;
}

void session_var_unset(Session *s, const char *name)
{
	int found, i = slot(s, name, strlen(name), &found);
	if (!found)
		return;
	if (strcmp(name, "ON_ERROR_STOP") == 0)
		s->on_error_stop = 0;
	free(s->vars[i].name);
	free(s->vars[i].value);
	memmove(&s->vars[i], &s->vars[i + 1], (size_t)(s->nvars - i - 1) * sizeof *s->vars);
	s->nvars--;
}

void session_vars_show(const Session *s, SBuf *out)
{
	for (int i = 0; i < s->nvars; i++) {   /* as psql lists them: NAME = 'value' */
		sb_printf(out, "%s = '", s->vars[i].name);
		for (const char *p = s->vars[i].value; *p; p++) {
			if (*p == '\'')
				sb_putc(out, '\'');
			sb_putc(out, *p);
		}
		sb_puts(out, "'\n");
	}
}

void session_vars_free(Session *s)
{
	for (int i = 0; i < s->nvars; i++) {
		free(s->vars[i].name);
		free(s->vars[i].value);
	}
	free(s->vars);
	s->vars = NULL;
	s->nvars = 0;
	s->on_error_stop = 0;
}

void session_quote(SBuf *b, const char *v, char q)
{
	sb_putc(b, q);
	for (; *v; v++) {
		if (*v == q)
			sb_putc(b, q);
		sb_putc(b, *v);
	}
	sb_putc(b, q);
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* At s[i] == ':': the variable reference that starts there, as psql reads it (:NAME,
   :'NAME', :"NAME"), appended to b as its value; returns the bytes it took, or 0 when
   it is not a reference to a variable that is set. */
size_t session_var_ref(const Session *s, const char *sql, size_t n, size_t i, SBuf *b)
{
	if (i + 1 >= n)
		return 0;
	char q = sql[i + 1];
	size_t a = i + 1 + (q == '\'' || q == '"'), e = a;
	while (e < n && name_char(sql[e]))
		e++;
	if (e == a || ((q == '\'' || q == '"') && (e >= n || sql[e] != q)))
		return 0;
	const char *v = get(s, sql + a, e - a);
	if (!v)
		return 0;
	if (q == '\'' || q == '"') {
		session_quote(b, v, q);
		e++;
	} else {
		sb_puts(b, v);
	}
	return e - i;
}

char *session_interpolate(const Session *s, const char *sql, size_t n, size_t *outn)
{
	if (s->nvars == 0 || !memchr(sql, ':', n))
		return NULL;   /* the common case: nothing to look at */
	SBuf b = SBUF_INIT;
	size_t done = 0;   /* sql[done..i) is still to be copied */
	int changed = 0;
	for (size_t i = 0; i < n;) {
		char c = sql[i];
		if (c == '\'' || c == '"' || c == '`') {   /* a string or a quoted name: as it is */
			size_t e = i + 1;
			while (e < n && sql[e] != c)
				e++;
			i = e < n ? e + 1 : n;
		} else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
			while (i < n && sql[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
			size_t e = i + 2;
			while (e + 1 < n && !(sql[e] == '*' && sql[e + 1] == '/'))
				e++;
			i = e + 1 < n ? e + 2 : n;
		} else if (c == ':' && i + 1 < n && sql[i + 1] == ':') {
			i += 2;   /* a cast: x::int */
		} else if (c == ':') {
			size_t mark = b.len;
			sb_putn(&b, sql + done, i - done);
			size_t took = session_var_ref(s, sql, n, i, &b);
			if (took) {
				changed = 1;
				i += took;
				done = i;
			} else {
				sb_truncate(&b, mark);
				i++;
			}
		} else {
			i++;
		}
	}
	if (!changed) {
		sb_free(&b);
		return NULL;
	}
	sb_putn(&b, sql + done, n - done);
	*outn = b.len;
	return sb_steal(&b);
}
