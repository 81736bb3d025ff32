/*
 * term_complete.c: Tab completion at the prompt. At the start of a line that begins with
 * ':' it offers the meta-commands; after :set every setting of every registry
 * (session_setting_names, the list :set shows) and then the values of the one named; after
 * :mode, :explain and the other settings' own commands their values; after :schema and
 * :index the tables; after :open, :read, :output, :once, :save and :import file names.
 * Elsewhere it offers SQL keywords (SQLite's own list), SUQL's words (its functions as the
 * engine names them, engine_function), and the table and
 * column names of the open database (suql's internal tables hidden), keywords in the case
 * being typed.
 *
 * Quoting is done here, the same with libedit and GNU readline: a file name holding a
 * blank or a quote is offered in '...' (meta.c's argument splitter reads them), a name that
 * is not a plain identifier in "..." (SQL's quoting), and completion goes on inside a quote
 * the user opened ("Rev completes to "Review Text"). Where a word starts is decided by
 * word_breaks(), which both libraries call (rl_completion_word_break_hook) before they look
 * for the word.
 */
#include "cli/meta.h"
#include "cli/term_int.h"
#include "store/catalog.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static Repl *the_repl;

/* SUQL's words beside its functions (engine_function: answer, summary, extract, ...) */
static const char *const suql_words[] = {
	"FREE_TEXT", "ENUM", "ANY", "ARRAY", "ILIKE", "UNNEST", "TRUE", "FALSE", NULL,
};

#define SQL_BREAKS " \t\n\"'`@$><=;|&{(,.*+-/%)"

/* ---- where the word being completed starts ---- */

typedef enum Ctx {
	C_SQL,          /* SQL words and names */
	C_SQL_QUOTED,   /* inside a "... the user opened */
	C_NONE,         /* inside a string: nothing to offer */
	C_META_NAME,    /* :comm */
	C_META_ARG,     /* an argument of a meta-command */
} Ctx;

typedef struct Where {
	Ctx ctx;
	char cmd[32];   /* C_META_ARG: the command's name as typed */
	int arg;        /* C_META_ARG: which argument (1 is the first) */
	char quote;     /* C_META_ARG: the quote the argument opened with, or 0 */
	char first[64]; /* C_META_ARG: the first argument, when arg > 1 */
	char breaks[sizeof SQL_BREAKS];
} Where;

static Where where;

/* Read the line up to the cursor and decide what is being completed. */
static void locate(const char *line, int point, Where *w)
{
	memset(w, 0, sizeof *w);
	int i = 0;
	while (i < point && isspace((unsigned char)line[i]))
		i++;
	if (i < point && line[i] == ':') {
		int j = i + 1;
		while (j < point && !isspace((unsigned char)line[j]))
			j++;
		if (j >= point) {
			w->ctx = C_META_NAME;
			strcpy(w->breaks, " \t");
			return;
		}
		w->ctx = C_META_ARG;
		snprintf(w->cmd, sizeof w->cmd, "%.*s", j - i - 1, line + i + 1);
		/* the arguments before the cursor, split as meta.c splits them */
		char q = 0;
		int n = 0, inword = 0, wstart = point;
		for (int k = j; k < point; k++) {
			char c = line[k];
			if (!q && (c == ' ' || c == '\t')) {
				if (inword && n == 1) {   /* the first argument, without its quotes */
					int o = 0;
					for (int m = wstart; m < k && o + 1 < (int)sizeof w->first; m++)
						if (line[m] != '\'' && line[m] != '"')
							w->first[o++] = line[m];
					w->first[o] = '\0';
				}
				inword = 0;
				continue;
			}
			if (!inword) {
				inword = 1;
				n++;
				wstart = k;
			}
			if (q) {
				if (c == q)
					q = 0;
			} else if (c == '\'' || c == '"') {
				q = c;
			}
		}
		w->arg = inword ? n : n + 1;
		if (inword && q && line[wstart] == q)
			w->quote = q;
		if (w->quote)
			snprintf(w->breaks, sizeof w->breaks, "%c", w->quote);
		else
			strcpy(w->breaks, " \t");
		return;
	}
	/* SQL: is the cursor inside a quote? */
	char q = 0;
	for (int k = 0; k < point; k++) {
		char c = line[k];
		if (q) {
			if (c == q)
				q = 0;   /* a doubled quote closes and reopens: same state after both */
		} else if (c == '\'' || c == '"' || c == '`') {
			q = c;
		} else if (c == '-' && k + 1 < point && line[k + 1] == '-') {
			break;   /* a comment runs to the end of the line */
		}
	}
	if (q == '"') {
		w->ctx = C_SQL_QUOTED;
		strcpy(w->breaks, "\"");
	} else if (q) {
		w->ctx = C_NONE;
		strcpy(w->breaks, " \t");
	} else {
		w->ctx = C_SQL;
		strcpy(w->breaks, SQL_BREAKS);
	}
}

static char *word_breaks(void)
{
	locate(rl_line_buffer, rl_point, &where);
	/* libedit breaks at these as well as at the hook's: make them the same */
	rl_basic_word_break_characters = where.breaks;
	return where.breaks;
}

/* ---- candidates ---- */

typedef struct Cands {
	char **v;
	int n, cap;
} Cands;

static Cands cands;
static int next_cand;

static void push(const char *w)
{
	for (int i = 0; i < cands.n; i++)
		if (strcmp(cands.v[i], w) == 0)
			return;   /* a column several tables have is offered once */
	if (cands.n == cands.cap) {
		cands.cap = cands.cap ? cands.cap * 2 : 64;
		cands.v = xrealloc(cands.v, (size_t)cands.cap * sizeof *cands.v);
	}
	cands.v[cands.n++] = xstrdup(w);
}

/* word (n bytes) when text is a prefix of it, ignoring case; in lower case with lower. */
static void add(const char *text, const char *word, size_t n, int lower)
{
	size_t tl = strlen(text);
	if (n < tl || strncasecmp(word, text, tl) != 0)
		return;
	char *w = xstrndup(word, n);
	if (lower)
		for (char *p = w; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	push(w);
	free(w);
}

/* Names that SQL must see in double quotes: not a plain identifier, or a keyword. */
static int needs_quotes(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || (unsigned char)*s >= 0x80))
		return 1;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80))
			return 1;
	return sqlite3_keyword_check(s, (int)strlen(s)) != 0;
}

/* A table or column name: as it is, or "quoted" when it must be; inside a quote the user
   opened, the rest of it and the closing quote. */
static void add_name(const char *text, const char *name)
{
	size_t tl = strlen(text);
	if (strlen(name) < tl || strncasecmp(name, text, tl) != 0) {
		return;
	}
	if (where.ctx != C_SQL_QUOTED && !needs_quotes(name)) {
		push(name);
		return;
	}
	SBuf b = SBUF_INIT;
	if (where.ctx != C_SQL_QUOTED)
		sb_putc(&b, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			sb_putc(&b, '"');
		sb_putc(&b, *p);
	}
	sb_putc(&b, '"');
	push(b.s);
	sb_free(&b);
}

/* The tables and views (and with columns set, their columns). */
static void add_schema(const char *text, int columns)
{
	Store *st = engine_store(the_repl->s.engine);
	StoreTable *t;
	int n;
	if (store_tables(st, &t, &n, NULL) != SUQL_OK)
		return;
	for (int i = 0; i < n; i++)
		add_name(text, t[i].name);
	for (int i = 0; i < n && columns; i++) {
		StoreColumn *c;
		int nc;
		if (store_columns(st, t[i].name, &c, &nc, NULL) != SUQL_OK)
			continue;
		for (int k = 0; k < nc; k++)
			add_name(text, c[k].name);
		store_columns_free(c, nc);
	}
	store_tables_free(t, n);
}

static void add_tables(const char *text)
{
	add_schema(text, 0);
}

static void add_names(const char *text)
{
	add_schema(text, 1);
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
	const char *f;
	for (int i = 0; (f = engine_function(i)) != NULL; i++) {
		char up[64];
		size_t n = strlen(f);
		for (size_t k = 0; k < n && k + 1 < sizeof up; k++)
			up[k] = (char)toupper((unsigned char)f[k]);
		up[n < sizeof up ? n : sizeof up - 1] = 0;
		add(text, up, strlen(up), lower);
	}
	add_names(text);
}

/* Blank-separated words (choices of a setting) that text begins. */
static void add_words(const char *text, const char *words)
{
	for (const char *p = words; p && *p;) {
		size_t n = strcspn(p, " ");
		add(text, p, n, 0);
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* File names: text is what was typed of the path (inside the quote, when one was opened).
   Directories end in '/' and wait for more; a file ends the argument (closing quote, blank).
   A name with a blank or a quote in it is offered in '...' when no quote was opened. */
static void add_files(const char *text)
{
	char *f;
	for (int state = 0; (f = rl_filename_completion_function(text, state)) != NULL; state++) {
		struct stat sb;
		int dir = stat(f, &sb) == 0 && S_ISDIR(sb.st_mode);
		int quote = !where.quote && strpbrk(f, " \t'\"") != NULL;
		SBuf b = SBUF_INIT;
		if (quote)
			sb_putc(&b, strchr(f, '\'') ? '"' : '\'');
		sb_puts(&b, f);
		if (dir) {
			sb_putc(&b, '/');
		} else {
			if (where.quote)
				sb_putc(&b, where.quote);
			else if (quote)
				sb_putc(&b, strchr(f, '\'') ? '"' : '\'');
			sb_putc(&b, ' ');
		}
		push(b.s);
		sb_free(&b);
		free(f);
	}
	/* GNU readline's generator asks for filename treatment (its own quoting and a '/'
	   after directories); the candidates here are already quoted and ended */
	rl_filename_completion_desired = 0;
}

static int takes_file(const char *cmd, int arg)
{
	static const char *const file_cmds[] = {"open", "read", "output", "once", "save",
	                                        "import", NULL};
	for (int i = 0; file_cmds[i]; i++)
		if (strcmp(cmd, file_cmds[i]) == 0)
			return arg == 1;
	return 0;
}

static void add_meta_arg(const char *text)
{
	const char *cmd = where.cmd;
	if (takes_file(cmd, where.arg)) {
		rl_completion_append_character = '\0';   /* the candidates end themselves */
		add_files(text);
		return;
	}
	char *choices = NULL;
	if (strcmp(cmd, "set") == 0 && where.arg == 1) {
		char **names = session_setting_names(&the_repl->s);
		for (int k = 0; names && names[k]; k++) {
			add(text, names[k], strlen(names[k]), 0);
			free(names[k]);
		}
		free(names);
	} else if (strcmp(cmd, "set") == 0 && where.arg == 2) {
		choices = session_setting_choices(&the_repl->s, where.first);
	} else if (strcmp(cmd, "help") == 0 && where.arg == 1) {
		for (const MetaCommand *c = meta_commands; c->name; c++)
			add(text, c->name, strlen(c->name), 0);
		char **names = session_setting_names(&the_repl->s);
		for (int k = 0; names && names[k]; k++) {
			add(text, names[k], strlen(names[k]), 0);
			free(names[k]);
		}
		free(names);
	} else if ((strcmp(cmd, "schema") == 0 || strcmp(cmd, "index") == 0) && where.arg == 1) {
		add_tables(text);
	} else if (strcmp(cmd, "import") == 0 && where.arg == 2) {
		add_tables(text);
	} else if (where.arg == 1) {   /* :mode, :explain, ...: a setting's own command */
		choices = session_setting_choices(&the_repl->s, cmd);
	}
	add_words(text, choices);
	free(choices);
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
	for (int i = 0; i < cands.n; i++)
		free(cands.v[i]);
	cands.n = 0;
	rl_attempted_completion_over = 1;
	rl_completion_append_character = ' ';
	/* the word as this file sees it (the libraries agree but for odd corners) */
	const char *line = rl_line_buffer;
	locate(line, end, &where);
	int ws = end;
	while (ws > 0 && !strchr(where.breaks, line[ws - 1]))
		ws--;
	if (ws < start)
		ws = start;
	char *word = xstrndup(line + ws, (size_t)(end - ws));
	switch (where.ctx) {
	case C_META_NAME:
		for (const MetaCommand *c = meta_commands; c->name; c++) {
			char *w = xprintf(":%s", c->name);
			add(word, w, strlen(w), 0);
			free(w);
		}
		break;
	case C_META_ARG:
		add_meta_arg(word);
		break;
	case C_SQL:
		add_sql_words(word);
		break;
	case C_SQL_QUOTED:
		add_names(word);
		break;
	case C_NONE:
		break;
	}
	free(word);
	(void)text;
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
	if (ws > start) {   /* the library's word began earlier: keep what lies between */
		for (int m = 0; m < cands.n; m++) {
			char *w = xprintf("%.*s%s", ws - start, line + start, cands.v[m]);
			free(cands.v[m]);
			cands.v[m] = w;
		}
	}
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
	static char breaks[] = SQL_BREAKS;
	if (!the_repl)
		atexit(free_cands);
	the_repl = r;
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = breaks;
	rl_completion_word_break_hook = word_breaks;
	/* GNU readline appends a quote that began the word in place of the blank; the
	   candidates here carry their own closing quotes */
	rl_basic_quote_characters = "";
}
