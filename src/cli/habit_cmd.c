/*
 * habit_cmd.c: the habits that take arguments of their own, split as the program they come
 * from splits them (habit_int.h): psql's \set, \unset, \echo and \qecho, \x, \pset, \t, \a
 * and \H, and its \watch, \e, \h, \l and \conninfo, which run suql's meta-commands of the
 * same meaning with psql's arguments (variables interpolated); the sqlite3 shell's .print
 * and .timeout.
 *
 * \x, \pset, \t, \a and \H map psql's display settings onto suql's: format aligned (and
 * wrapped) is table mode, unaligned is list (psql's '|' between values, as sqlite3's list
 * mode), csv, html and suql's own mode names are themselves; border 0 is column mode, 1
 * and 2 the table (a box stays a box); null is nullvalue; tuples_only is headers off;
 * expanded is the expanded setting. At a terminal each change is confirmed in one line, as
 * psql confirms it.
 */
#include "base/vis.h"
#include "cli/habit_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- splitting ---- */

static void push(char ***argv, int *argc, SBuf *a)
{
	*argv = xrealloc(*argv, (size_t)(*argc + 2) * sizeof **argv);
	(*argv)[(*argc)++] = sb_steal(a);
	(*argv)[*argc] = NULL;
}

/* A C-like escape at s[i] == '\\' appended to a; returns the bytes it took. */
static size_t escape(const char *s, size_t n, size_t i, SBuf *a)
{
	if (i + 1 >= n) {
		sb_putc(a, '\\');
		return 1;
	}
	char c = s[i + 1];
	const char *from = "ntrfbav", *to = "\n\t\r\f\b\a\v";
	const char *p = strchr(from, c);
	if (p && c) {
		sb_putc(a, to[p - from]);
		return 2;
	}
	if (c >= '0' && c <= '7') {   /* octal, up to three digits */
		int v = 0;
		size_t k = i + 1;
		while (k < n && k < i + 4 && s[k] >= '0' && s[k] <= '7')
			v = v * 8 + (s[k++] - '0');
		sb_putc(a, (char)v);
		return k - i;
	}
	sb_putc(a, c);   /* \\ \' \" and any other: the character */
	return 2;
}

int habit_psql_args(Repl *r, const char *word, const char *s, size_t n, char ***argv,
                    SuqlErr *err)
{
	int argc = 0;
	*argv = NULL;
	SBuf a = SBUF_INIT;
	sb_puts(&a, word);
	push(argv, &argc, &a);
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		sb_puts(&a, "");
		while (i < n && s[i] != ' ' && s[i] != '\t') {
			char c = s[i];
			if (c == '`') {
				sb_free(&a);
				habit_args_free(argc, *argv);
				err_set(err, SUQL_USAGE, "%s: a backquoted shell command is not run here", word);
				return -1;
			}
			if (c == '\'') {
				size_t e = i + 1;
				for (;;) {
					if (e >= n) {
						sb_free(&a);
						habit_args_free(argc, *argv);
						err_set(err, SUQL_USAGE, "%s: unterminated quoted string", word);
						return -1;
					}
					if (s[e] == '\'' && e + 1 < n && s[e + 1] == '\'') {
						sb_putc(&a, '\'');
						e += 2;
					} else if (s[e] == '\'') {
						break;
					} else if (s[e] == '\\') {
						e += escape(s, n, e, &a);
					} else {
						sb_putc(&a, s[e++]);
					}
				}
				i = e + 1;
			} else if (c == '"') {   /* kept with its quotes, as psql keeps it */
				size_t e = i + 1;
				while (e < n && s[e] != '"')
					e++;
				sb_putn(&a, s + i, (e < n ? e + 1 : n) - i);
				i = e < n ? e + 1 : n;
			} else if (c == ':') {
				size_t took = session_var_ref(&r->s, s, n, i, &a);
				if (!took)
					sb_putc(&a, ':');
				i += took ? took : 1;
			} else {
				sb_putc(&a, c);
				i++;
			}
		}
		push(argv, &argc, &a);
	}
	return argc;
}

int habit_shell_args(const char *word, const char *s, size_t n, char ***argv, SuqlErr *err)
{
	int argc = 0;
	*argv = NULL;
	SBuf a = SBUF_INIT;
	sb_puts(&a, word);
	push(argv, &argc, &a);
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		sb_puts(&a, "");
		if (s[i] == '"' || s[i] == '\'') {
			char q = s[i++];
			while (i < n && s[i] != q) {
				if (q == '"' && s[i] == '\\')
					i += escape(s, n, i, &a);
				else
					sb_putc(&a, s[i++]);
			}
			if (i >= n) {
				sb_free(&a);
				habit_args_free(argc, *argv);
				err_set(err, SUQL_USAGE, "%s: unterminated %c quote", word, q);
				return -1;
			}
			i++;
		} else {
			while (i < n && s[i] != ' ' && s[i] != '\t') {
				if (s[i] == '\\')
					i += escape(s, n, i, &a);
				else
					sb_putc(&a, s[i++]);
			}
		}
		push(argv, &argc, &a);
	}
	return argc;
}

void habit_args_free(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* ---- psql ---- */

/* The confirmation psql prints after a display change, at a terminal only (a script's
   output stays its results). */
static void confirm(Repl *r, const char *what, const char *value)
{
	if (!r->s.interactive)
		return;
	fflush(r->s.out);
	fprintf(stderr, "%s is %s\n", what, value);
}

static void put(FILE *f, const char *text, size_t n)
{
	if (util_isatty(f)) {
		SBuf b = SBUF_INIT;
		vis_put(&b, text, n, VIS_TEXT);
		fwrite(sb_str(&b), 1, b.len, f);
		sb_free(&b);
	} else {
		fwrite(text, 1, n, f);
	}
}

SuqlStatus habit_set(Repl *r, int argc, char **argv, SuqlErr *err)
{
	if (argc == 1) {
		SBuf b = SBUF_INIT;
		session_vars_show(&r->s, &b);
		put(r->s.out, sb_str(&b), b.len);
		sb_free(&b);
		return SUQL_OK;
	}
	SBuf v = SBUF_INIT;   /* psql joins the value's words without blanks */
	for (int i = 2; i < argc; i++)
		sb_puts(&v, argv[i]);
	SuqlStatus st = session_var_set(&r->s, argv[1], sb_str(&v), err);
	sb_free(&v);
	return st;
}

SuqlStatus habit_unset(Repl *r, int argc, char **argv, SuqlErr *err)
{
	if (argc != 2)
		return err_set(err, SUQL_USAGE, "usage: \\unset NAME");
	session_var_unset(&r->s, argv[1]);
	return SUQL_OK;
}

/* \echo [-n] TEXT...: the words, a blank apart, on the standard output (as psql writes
   them, wherever results go); \qecho where results go. */
SuqlStatus habit_echo(Repl *r, int argc, char **argv, SuqlErr *err)
{
	(void)err;
	int i = 1, nl = 1;
	if (argc > 1 && strcmp(argv[1], "-n") == 0)
		i++, nl = 0;
	SBuf b = SBUF_INIT;
	for (int k = i; k < argc; k++)
		sb_printf(&b, "%s%s", k > i ? " " : "", argv[k]);
	if (nl)
		sb_putc(&b, '\n');
	FILE *f = strcmp(argv[0], "\\qecho") == 0 ? r->s.out : stdout;
	if (f != r->s.out)
		fflush(r->s.out);
	put(f, sb_str(&b), b.len);
	fflush(f);
	sb_free(&b);
	return SUQL_OK;
}

static const char *const expanded_words[] = {"off", "on", "auto"};

/* expanded to value, or turned over (on becomes off, off and auto on) when value is NULL. */
static SuqlStatus set_expanded(Repl *r, const char *value, SuqlErr *err)
{
	if (!value)
		value = r->s.expanded == RENDER_EXPANDED_ON ? "off" : "on";
	SuqlStatus st = session_set(&r->s, "expanded", value, err);
	if (st == SUQL_OK)
		confirm(r, "expanded display", expanded_words[r->s.expanded]);
	return st;
}

SuqlStatus habit_x(Repl *r, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return err_set(err, SUQL_USAGE, "usage: \\x [on|off|auto]");
	return set_expanded(r, argc == 2 ? argv[1] : NULL, err);
}

/* The psql name of suql's mode, for \pset's listing. */
static const char *format_name(RenderMode m)
{
	return m == RENDER_TABLE ? "aligned" : m == RENDER_LIST ? "unaligned" : render_mode_name(m);
}

static SuqlStatus set_format(Repl *r, const char *f, SuqlErr *err)
{
	const char *mode = str_ieq(f, "aligned") || str_ieq(f, "wrapped") ? "table"
	                   : str_ieq(f, "unaligned") ? "list" : f;
	RenderMode m;
	if (!render_mode_parse(mode, &m))
		return err_set(err, SUQL_USAGE, "\\pset: format '%s' is not one suql has (aligned, "
		               "unaligned, wrapped, or a mode: %s)", f, RENDER_MODE_NAMES);
	SuqlStatus st = session_set(&r->s, "mode", mode, err);
	if (st == SUQL_OK)
		confirm(r, "output format", format_name(r->s.mode));
	return st;
}

static int border_of(RenderMode m)
{
	return m == RENDER_COLUMN ? 0 : m == RENDER_TABLE || m == RENDER_BOX ? 2 : 1;
}

static SuqlStatus set_border(Repl *r, const char *v, SuqlErr *err)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
		return err_set(err, SUQL_USAGE, "\\pset: border takes 0 (column mode), 1 or 2 (a "
		               "table), not '%s'", v);
	if (v[0] == '0')
		r->s.mode = RENDER_COLUMN;
	else if (r->s.mode != RENDER_BOX)
		r->s.mode = RENDER_TABLE;
	confirm(r, "border style", v);
	return SUQL_OK;
}

static SuqlStatus set_tuples_only(Repl *r, const char *v, SuqlErr *err)
{
	int on = r->s.headers;   /* turned over: headers now on means tuples only next */
	if (v && !str_parse_bool(v, &on))
		return err_set(err, SUQL_USAGE, "tuples_only takes on or off, not '%s'", v);
	r->s.headers = !on;
	confirm(r, "tuples only", on ? "on" : "off");
	return SUQL_OK;
}

SuqlStatus habit_pset(Repl *r, int argc, char **argv, SuqlErr *err)
{
	Session *s = &r->s;
	if (argc > 3)
		return err_set(err, SUQL_USAGE, "usage: \\pset [OPTION [VALUE]]");
	const char *opt = argc > 1 ? argv[1] : NULL, *v = argc > 2 ? argv[2] : NULL;
	int all = !opt;
	SBuf b = SBUF_INIT;
	SuqlStatus st = SUQL_OK;
	if (all || (!v && (str_ieq(opt, "format") || str_ieq(opt, "border") ||
	                   str_ieq(opt, "null")))) {
		if (all || str_ieq(opt, "border"))
			sb_printf(&b, "%-24s %d\n", "border", border_of(s->mode));
		if (all)
			sb_printf(&b, "%-24s %s\n", "expanded", expanded_words[s->expanded]);
		if (all || str_ieq(opt, "format"))
			sb_printf(&b, "%-24s %s\n", "format", format_name(s->mode));
		if (all || str_ieq(opt, "null")) {
			sb_printf(&b, "%-24s ", "null");
			session_quote(&b, s->nullvalue ? s->nullvalue : "NULL", '\'');
			sb_putc(&b, '\n');
		}
		if (all)
			sb_printf(&b, "%-24s %s\n", "tuples_only", s->headers ? "off" : "on");
		put(s->out, sb_str(&b), b.len);
	} else if (str_ieq(opt, "format")) {
		st = set_format(r, v, err);
	} else if (str_ieq(opt, "border")) {
		st = set_border(r, v, err);
	} else if (str_ieq(opt, "null")) {
		st = session_set(s, "nullvalue", v, err);
	} else if (str_ieq(opt, "tuples_only") || str_ieq(opt, "t")) {
		st = set_tuples_only(r, v, err);
	} else if (str_ieq(opt, "expanded") || str_ieq(opt, "x")) {
		st = set_expanded(r, v, err);
	} else {
		st = err_set(err, SUQL_USAGE, "\\pset: no option '%s' here (format, border, null, "
		             "tuples_only, expanded)", opt);
	}
	sb_free(&b);
	return st;
}

/* \t [on|off]: tuples only; \a: aligned and unaligned turned over; \H: html and back. */
SuqlStatus habit_toggle(Repl *r, int argc, char **argv, SuqlErr *err)
{
	const char *w = argv[0];
	if (strcmp(w, "\\t") == 0) {
		if (argc > 2)
			return err_set(err, SUQL_USAGE, "usage: \\t [on|off]");
		return set_tuples_only(r, argc == 2 ? argv[1] : NULL, err);
	}
	if (argc > 1)
		return err_set(err, SUQL_USAGE, "%s takes no argument", w);
	RenderMode to = strcmp(w, "\\a") == 0 ? RENDER_LIST : RENDER_HTML;
	return set_format(r, r->s.mode == to ? "table" : render_mode_name(to), err);
}

/* psql's commands that are suql meta-commands: the same with psql's arguments. */
SuqlStatus habit_meta(Repl *r, int argc, char **argv, SuqlErr *err)
{
	static const char *const map[][2] = {
		{"\\watch", "watch"}, {"\\e", "edit"}, {"\\edit", "edit"}, {"\\h", "syntax"},
		{"\\help", "syntax"}, {"\\l", "databases"}, {"\\list", "databases"},
		{"\\conninfo", "conninfo"}, {".databases", "databases"},
	};
	const char *meta = NULL;
	for (size_t i = 0; i < sizeof map / sizeof *map && !meta; i++)
		if (strcmp(argv[0], map[i][0]) == 0)
			meta = map[i][1];
	if (!meta)
		return err_set(err, SUQL_USAGE, "%s is not a suql command", argv[0]);
	const char **v = xcalloc((size_t)argc + 1, sizeof *v);
	v[0] = meta;
	for (int i = 1; i < argc; i++)
		v[i] = argv[i];
	SuqlStatus st = meta_run_argv(r, argc, v, err);
	free(v);
	return st;
}

/* ---- the sqlite3 shell ---- */

/* .print TEXT...: the words, a blank apart, where results go. */
SuqlStatus habit_print(Repl *r, int argc, char **argv, SuqlErr *err)
{
	(void)err;
	SBuf b = SBUF_INIT;
	for (int i = 1; i < argc; i++)
		sb_printf(&b, "%s%s", i > 1 ? " " : "", argv[i]);
	sb_putc(&b, '\n');
	put(r->s.out, sb_str(&b), b.len);
	sb_free(&b);
	return SUQL_OK;
}

/* .timeout MS: busy_timeout, which counts seconds; alone, what it is. */
SuqlStatus habit_timeout(Repl *r, int argc, char **argv, SuqlErr *err)
{
	if (argc == 1)
		return session_show_settings(&r->s, "busy_timeout", r->s.out, err);
	long ms;
	if (argc > 2 || !setting_parse_long(argv[1], 0, 86400000.0, &ms))
		return err_set(err, SUQL_USAGE, "usage: .timeout MS (milliseconds, 0 to 86400000)");
	char v[32];
	snprintf(v, sizeof v, "%g", (double)ms / 1000.0);
	return session_set(&r->s, "busy_timeout", v, err);
}
