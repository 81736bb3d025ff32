/*
 * term_complete.c: Tab completion at the prompt. At the start of a line that begins with
 * ':' it offers the meta-commands; after :mode the modes, after :set and --set keys the
 * settings, after :schema the tables, after :open, :read and :output file names. Elsewhere
 * it offers SQL keywords (SQLite's own list), SUQL's words, and the table and column names
 * of the open database (suql's internal tables hidden), keywords in the case being typed.
 */
#include "term_int.h"
#include "meta.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static Repl *the_repl;

static const char *const suql_words[] = {
	"ANSWER", "SUMMARY", "FREE_TEXT", "ENUM", "ANY", "ARRAY", "ILIKE", "UNNEST", "TRUE",
	"FALSE", NULL,
};

typedef struct Cands {
	char **v;
	int n, cap;
} Cands;

static Cands cands;
static int next_cand;

static void add(const char *text, const char *word, size_t n, int lower)
{
	size_t tl = strlen(text);
	if (n < tl || strncasecmp(word, text, tl) != 0)
		return;
	if (cands.n == cands.cap) {
		cands.cap = cands.cap ? cands.cap * 2 : 64;
		cands.v = xrealloc(cands.v, (size_t)cands.cap * sizeof *cands.v);
	}
	char *w = xstrndup(word, n);
	if (lower)
		for (char *p = w; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	cands.v[cands.n++] = w;
}

static void add_query(const char *text, const char *sql)
{
	sqlite3 *db = engine_db(the_repl->engine);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(st, 0);
		if (w)
			add(text, w, strlen(w), 0);
	}
	sqlite3_finalize(st);
}

static void add_tables(const char *text)
{
	add_query(text, REPL_VISIBLE_TABLES);
}

static void add_sql_words(const char *text)
{
	/* keywords come out in the case the user types them */
	int lower = 0;
	for (const char *p = text; *p; p++)
		if (islower((unsigned char)*p))
			lower = 1;
	int nk = sqlite3_keyword_count();
	for (int i = 0; i < nk; i++) {
		const char *k;
		int n;
		if (sqlite3_keyword_name(i, &k, &n) == SQLITE_OK)
			add(text, k, (size_t)n, lower);
	}
	for (int i = 0; suql_words[i]; i++)
		add(text, suql_words[i], strlen(suql_words[i]), lower);
	add_tables(text);
	add_query(text, "SELECT DISTINCT p.name FROM (" REPL_VISIBLE_TABLES ") t, "
	                "pragma_table_info(t.name) p");
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *generate(const char *text, int state)
{
	(void)text;
	if (state == 0)
		next_cand = 0;
	return next_cand < cands.n ? xstrdup(cands.v[next_cand++]) : NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	for (int i = 0; i < cands.n; i++)
		free(cands.v[i]);
	cands.n = 0;
	rl_attempted_completion_over = 1;

	const char *line = rl_line_buffer;
	int i = 0;
	while (i < start && isspace((unsigned char)line[i]))
		i++;
	if (line[i] == ':') {
		if (start == i) {   /* the command name itself */
			for (const MetaCommand *c = meta_commands; c->name; c++) {
				char *w = xprintf(":%s", c->name);
				add(text, w, strlen(w), 0);
				free(w);
			}
		} else {
			int j = i + 1;
			while (j < start && !isspace((unsigned char)line[j]))
				j++;
			char *cmd = xstrndup(line + i + 1, (size_t)(j - i - 1));
			if (strcmp(cmd, "open") == 0 || strcmp(cmd, "read") == 0 ||
			    strcmp(cmd, "output") == 0 || strcmp(cmd, "import") == 0) {
				free(cmd);
				rl_attempted_completion_over = 0;   /* file names */
				return NULL;
			}
			if (strcmp(cmd, "mode") == 0) {
				for (RenderMode m = RENDER_TABLE; m <= RENDER_LINE; m++)
					add(text, render_mode_name(m), strlen(render_mode_name(m)), 0);
			} else if (strcmp(cmd, "set") == 0 || strcmp(cmd, "help") == 0) {
				for (int k = 0; meta_setting_name(k); k++)
					add(text, meta_setting_name(k), strlen(meta_setting_name(k)), 0);
				if (strcmp(cmd, "help") == 0)
					for (const MetaCommand *c = meta_commands; c->name; c++)
						add(text, c->name, strlen(c->name), 0);
			} else if (strcmp(cmd, "schema") == 0) {
				add_tables(text);
			} else if (strcmp(cmd, "headers") == 0 || strcmp(cmd, "explain") == 0 ||
			           strcmp(cmd, "stats") == 0 || strcmp(cmd, "timer") == 0) {
				add(text, "on", 2, 0);
				add(text, "off", 3, 0);
			}
			free(cmd);
		}
	} else {
		add_sql_words(text);
	}
	if (cands.n == 0)
		return NULL;
	qsort(cands.v, (size_t)cands.n, sizeof *cands.v, cmp);
	int k = 0;
	for (int m = 0; m < cands.n; m++) {   /* drop repeats */
		if (k && strcmp(cands.v[k - 1], cands.v[m]) == 0)
			free(cands.v[m]);
		else
			cands.v[k++] = cands.v[m];
	}
	cands.n = k;
	return rl_completion_matches(text, generate);
}

static void free_cands(void)
{
	for (int i = 0; i < cands.n; i++)
		free(cands.v[i]);
	free(cands.v);
	cands.v = NULL;
	cands.n = cands.cap = 0;
}

void term_complete_init(Repl *r)
{
	static char breaks[] = " \t\n\"'`@$><=;|&{(,.*+-/%";
	if (!the_repl)
		atexit(free_cands);
	the_repl = r;
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = breaks;
}
