/*
 * settings.c: the one registry of settings. Each module contributes a table of rows
 * (base/setting.h): the session's display settings are here, then come the engine's
 * (engine_settings_table), the chat agent's (agent_settings_table) and the LLM client's
 * (llm_settings_table), in the order :set lists them. :set and --set (session_set), :set's
 * listing, tab completion (names and values), :help set and the manual page's SETTINGS
 * section (suql --help-man settings) are all made from these rows; the LLM client's rows
 * also name the keys of the config file.
 */
#include "render/render.h"
#include "session/session.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the session's own: the display ---- */

/* A mode's name; "insert TABLE" also names the table insert mode writes into (as the
   sqlite3 shell's .mode insert TABLE; "insert" alone: "table"). */
static SuqlStatus set_mode(void *obj, const SetRow *row, const char *value, SuqlErr *err)
{
	Session *s = obj;
	(void)row;
	size_t w = strcspn(value, " \t");
	const char *table = value + w + strspn(value + w, " \t");
	char *name = xstrndup(value, w);
	RenderMode m;
	int ok = render_mode_parse(name, &m);
	free(name);
	if (!ok)
		return err_set(err, SUQL_USAGE, "unknown mode '%s' (%s)", value, RENDER_MODE_NAMES);
	if (*table && m != RENDER_INSERT)
		return err_set(err, SUQL_USAGE, "only insert mode takes a table name, not '%s'", value);
	s->mode = m;
	if (m == RENDER_INSERT) {
		free(s->insert_table);
		s->insert_table = *table ? xstrdup(table) : NULL;
	}
	return SUQL_OK;
}

static void show_mode(const void *obj, const SetRow *row, SBuf *out)
{
	const Session *s = obj;
	(void)row;
	sb_puts(out, render_mode_name(s->mode));
	if (s->mode == RENDER_INSERT && s->insert_table)
		sb_printf(out, " %s", s->insert_table);
}

#define SS(field) offsetof(Session, field)

static const SetRow display_rows[] = {
	{"mode", SET_CHOICE, 0, 0, 0, RENDER_MODE_WORDS, "MODE", "table",
	 "output mode: " RENDER_MODE_NAMES " (insert TABLE: the table its statements name)",
	 NULL, NULL, NULL, 0, set_mode, show_mode},
	{"headers", SET_BOOL, SS(headers), 0, 0, NULL, "on|off", "on",
	 "column names above table, box and csv output", NULL, NULL, NULL, 0, NULL, NULL},
	{"nullvalue", SET_TEXT, SS(nullvalue), 0, 0, NULL, "TEXT", "NULL",
	 "how table, box, line, markdown and html modes show NULL; list, tabs and column show "
	 "it as nothing until it is set, as the sqlite3 shell does", NULL, NULL, NULL, 0, NULL,
	 NULL},
	{"expanded", SET_CHOICE, SS(expanded), 0, 0, "off on auto", "on|off|auto", "off",
	 "expanded display (psql's \\x): on, table, box and column show each row as line mode "
	 "does, a value a line; auto, only a result wider than the terminal", NULL,
	 "takes on, off or auto", NULL, 0, NULL, NULL},
	{"echo", SET_BOOL, SS(echo), 0, 0, NULL, "on|off", "off",
	 "write each statement and meta-command, as read, before it runs (where results go, "
	 "as the sqlite3 shell's .echo; also --echo)", NULL, NULL, NULL, 0, NULL, NULL},
	{"explain", SET_CHOICE, SS(explain), 0, 0, "off on auto rows", "on|off|auto|rows",
	 "auto at a terminal, else off", "show each statement's parsed SUQL and plan; auto: only "
	 "for statements with free text, so plain SQL looks as in sqlite3; rows: on, and after "
	 "the counters one line per candidate the walk examined (:why N tells more)", NULL,
	 "takes on, off, auto or rows", NULL, 0, NULL, NULL},
	{"stats", SET_BOOL, SS(stats), 0, 0, NULL, "on|off", "on at a terminal, else off",
	 "show the counters of statements with free text", NULL, NULL, NULL, 0, NULL, NULL},
	{"show", SET_CHOICE, SS(show), 0, 0, "full compact rows", "full|compact|rows", "full",
	 "how much is shown around a statement's rows: full, the parsed SUQL, plan and counters "
	 "as explain and stats say; compact, one line of plan (the calls expected and at worst, "
	 "the dollars) and one of counters (calls, tokens, dollars, time); rows, the rows alone, "
	 "with errors, warnings and notes", NULL, "takes full, compact or rows", NULL, 0, NULL,
	 NULL},
	{"timer", SET_BOOL, SS(timer), 0, 0, NULL, "on|off", "off",
	 "show how long each statement took", NULL, NULL, NULL, 0, NULL, NULL},
	{"ascii", SET_BOOL, SS(ascii), 0, 0, NULL, "on|off", "off",
	 "draw tables at a terminal and :chart's bars with ASCII characters alone (+-| lines, "
	 "# bars; also --ascii); charts are ASCII in a locale that is not UTF-8 anyway", NULL,
	 NULL, NULL, 0, NULL, NULL},
	{"pager", SET_BOOL, SS(pager), 0, 0, NULL, "on|off", "on", "at a terminal, show results "
	 "taller than the screen through $PAGER (less -S when PAGER is not set)", NULL, NULL, NULL,
	 0, NULL, NULL},
	{"timeout", SET_REAL, SS(timeout), 0, 1000000, NULL, "SECONDS", "0", "stop any statement "
	 "(or :import) that runs longer, with an error; 0: no limit (also --timeout)", NULL,
	 "takes a number of seconds from 0 (no limit) to 1000000", NULL, 0, NULL, NULL},
	{"max_width", SET_INT, SS(max_width), 0, 1000000, NULL, "N",
	 SETTING_STR(RENDER_MAX_WIDTH), "the most display columns a line of a table or box cell "
	 "shows, the rest elided with an ellipsis (~ in ASCII tables); 0: no limit (csv, json "
	 "and line modes always show values whole)", NULL, NULL, NULL, 0, NULL, NULL},
	{"fetch_count", SET_LONG, SS(fetch_count), 0, 1000000000, NULL, "N",
	 SETTING_STR(SESSION_FETCH_COUNT), "rows held before they are shown: past N, table, "
	 "box, column and markdown show the rows in tables of N, each as wide as its rows "
	 "need; 0: hold them all",
	 NULL, NULL, NULL, 0, NULL, NULL},
};

static const SetTable display_table = {
	"Output",
	"These also have meta-commands of their own (:mode, :headers, :explain, :stats, :timer, "
	":pager); psql's \\x and \\pset and the sqlite3 shell's .echo set them too.",
	NULL, display_rows, (int)(sizeof display_rows / sizeof *display_rows), NULL,
};

/* ---- the registry ---- */

typedef struct Part {
	const SetTable *t;
	void *(*obj)(Session *s);   /* the object its rows set; NULL when there is none */
} Part;

static void *of_session(Session *s)
{
	return s;
}

static void *of_engine(Session *s)
{
	return s->engine;
}

static void *of_agent(Session *s)
{
	return session_agent(s);
}

static void *of_llm(Session *s)
{
	return s->llm;
}

static const Part parts[] = {
	{&display_table, of_session},
	{&engine_settings_table, of_engine},
	{&agent_settings_table, of_agent},
	{&llm_settings_table, of_llm},
};
enum { NPARTS = sizeof parts / sizeof *parts };

/* The row called key, and its part; NULL when no table has it. */
static const SetRow *find(const char *key, const Part **part)
{
	for (int i = 0; i < NPARTS; i++) {
		const SetRow *row = setting_find(parts[i].t, key);
		if (row) {
			*part = &parts[i];
			return row;
		}
	}
	return NULL;
}

static SuqlStatus unknown(const char *key, SuqlErr *err)
{
	for (int i = 0; i < NPARTS; i++) {
		const char *pre = parts[i].t->prefix;
		if (pre && strncasecmp(key, pre, strlen(pre)) == 0)
			return setting_unknown(parts[i].t, key, err);
	}
	return setting_unknown(NULL, key, err);
}

SuqlStatus session_set(Session *s, const char *key, const char *value, SuqlErr *err)
{
	const Part *p;
	const SetRow *row = find(key, &p);
	if (!row)
		return unknown(key, err);
	void *obj = p->obj(s);
	if (!obj)
		return err_set(err, SUQL_USAGE, "%s cannot be set here (%s)", row->name, p->t->title);
	if (row->flags & SET_SECRET)
		session_add_secret(s, value);
	return setting_apply(p->t, row, obj, value, err);
}

SuqlStatus session_show_settings(Session *s, const char *key, FILE *out, SuqlErr *err)
{
	SBuf b = SBUF_INIT;
	if (key) {
		const Part *p;
		const SetRow *row = find(key, &p);
		void *obj = row ? p->obj(s) : NULL;
		if (!obj)
			return err_set(err, SUQL_USAGE, "unknown setting '%s' (:set alone lists them)",
			               key);
		setting_show(row, obj, &b);
	} else {
		for (int i = 0; i < NPARTS; i++) {
			void *obj = parts[i].obj(s);
			if (obj)
				setting_show_all(parts[i].t, obj, &b);
		}
	}
	fputs(sb_str(&b), out);
	sb_free(&b);
	return SUQL_OK;
}

char **session_setting_names(Session *s)
{
	(void)s;
	int n = 0;
	for (int i = 0; i < NPARTS; i++)
		n += parts[i].t->nrows;
	char **v = xcalloc((size_t)n + 1, sizeof *v);
	n = 0;
	for (int i = 0; i < NPARTS; i++)
		for (int j = 0; j < parts[i].t->nrows; j++)
			v[n++] = xstrdup(parts[i].t->rows[j].name);
	return v;
}

int session_setting_exists(const char *key)
{
	const Part *p;
	return find(key, &p) != NULL;
}

char *session_setting_choices(Session *s, const char *key)
{
	(void)s;
	const Part *p;
	const SetRow *row = find(key, &p);
	return row ? setting_words(row) : NULL;
}

/* ---- help and the manual ---- */

/* "(1 to 256; default 32)", or "(default on)". Heap string. */
static char *range_default(const SetRow *row)
{
	int number = row->kind == SET_INT || row->kind == SET_LONG || row->kind == SET_SIZE ||
	             (row->kind == SET_REAL && !(row->flags & SET_ABOVE_MIN));
	if (number && !row->set)
		return xprintf("(%.15g to %.15g; default %s)", row->min, row->max, row->def);
	return xprintf("(default %s)", row->def);
}

/* :help set at 80 columns (or a narrower terminal's width): each setting's name, the
   values it takes and its range and default on a line, its description wrapped under it. */
static void help_row(FILE *out, const SetRow *row, int width)
{
	char *rd = range_default(row), *head = xprintf("%s %s %s", row->name, row->values, rd);
	fputs("  ", out);
	render_wrap(out, head, 2, 6, width);
	fputs("      ", out);
	render_wrap(out, row->help, 6, 6, width);
	free(head);
	free(rd);
}

static void help_table(FILE *out, const SetTable *t, int titled, int width)
{
	if (titled)
		fprintf(out, "%s:\n", t->title);
	for (int i = 0; i < t->nrows; i++)
		help_row(out, &t->rows[i], width);
}

int session_setting_help(FILE *out, const char *key, int width)
{
	const Part *p;
	const SetRow *row = find(key, &p);
	if (!row)
		return 0;
	fprintf(out, ":set %s %s\n", row->name, row->values);
	help_row(out, row, width <= 0 || width > 80 ? 80 : width);
	return 1;
}

void session_settings_help(FILE *out, int all, int width)
{
	if (width <= 0 || width > 80)
		width = 80;
	fprintf(out, "Settings (:set KEY VALUE, or suql --set KEY=VALUE):\n");
	if (!all) {
		help_table(out, parts[0].t, 0, width);
		fprintf(out, "The engine's, the chat agent's and the LLM client's: :help set.\n");
		return;
	}
	for (int i = 0; i < NPARTS; i++)
		help_table(out, parts[i].t, 1, width);
}

void session_settings_man(SBuf *b)
{
	for (int i = 0; i < NPARTS; i++) {
		const SetTable *t = parts[i].t;
		sb_puts(b, ".SS \"");
		render_roff(b, t->title);
		sb_puts(b, "\"\n");
		if (t->intro)
			render_roff_text(b, t->intro);
		for (int j = 0; j < t->nrows; j++) {
			const SetRow *row = &t->rows[j];
			char *rd = range_default(row), *head = xprintf(" %s %s", row->values, rd);
			sb_puts(b, ".TP\n.BR \"");
			render_roff(b, row->name);
			sb_puts(b, "\" \"");
			render_roff(b, head);
			sb_puts(b, "\"\n");
			render_roff_sentence(b, row->help);
			if (row->more)
				render_roff_text(b, row->more);
			free(head);
			free(rd);
		}
	}
}
