/*
 * main_argv.c: the command line as the sqlite3 shell and psql spell it, made getopt's
 * before main.c parses it. sqlite3 writes every long option with one dash (-csv, -header,
 * -cmd): those become --csv, ... (whole names only, so "-cSQL" stays -c with its
 * argument); the sqlite3 shell's options suql does not have are refused by their whole
 * name, with what to use instead. psql's -v NAME=VALUE (and -vNAME=VALUE) becomes
 * --variable; any other -v stays --explain, as it always was, so no old command line
 * changes meaning.
 */
#include "cli/main_int.h"

#include <stdlib.h>
#include <string.h>

/* A string made for the command line (a rewritten word, a KEY=VALUE), freed at exit. */
char *cli_keep(Cli *cli, char *s)
{
	cli->dashed = xrealloc(cli->dashed, (size_t)(cli->ndashed + 1) * sizeof *cli->dashed);
	cli->dashed[cli->ndashed++] = s;
	return s;
}

/* Whether a word is a psql variable's assignment: NAME=VALUE, NAME letters, digits and
   underscores (so "SELECT a=1", "./x=1.db" and "-x" are not). */
int cli_assignment(const char *w)
{
	const char *eq = strchr(w, '=');
	return eq && session_var_name_ok(w, (size_t)(eq - w));
}

/* The option called name (len bytes), or NULL. */
static const CliOption *cli_find_option(const char *name, size_t len)
{
	for (const CliOption *p = cli_options(); p->name; p++)
		if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
			return p;
	return NULL;
}

/* The sqlite3 shell's options that suql does not have, refused by their whole name (so
   that "-column" is not read as -c "olumn") with what to use instead. */
static const struct { const char *name, *advice; } foreign_options[] = {
	{"separator", "suql's --list separates values with '|', --tabs with a tab and --csv with "
	 "','"},
	{"newline", "suql ends each row with a line feed"},
	{"ascii", "suql's output modes are " RENDER_MODE_NAMES " (suql's own --ascii, with two "
	 "dashes, draws tables and charts in ASCII characters)"},
	{"batch", "a script is read whenever stdin is not a terminal (-f FILE reads one)"},
	{"interactive", "the REPL starts when stdin and stdout are terminals"},
	{"append", "suql opens SQLite files only"},
	{"deserialize", "suql opens SQLite files only"},
	{"zip", "suql opens SQLite files only"},
	{"nofollow", "suql opens SQLite files as SQLite does"},
	{"safe", "--readonly opens the database read-only"},
	{"stats", "the counters of free text are :stats on"},
	{"vfs", "suql opens SQLite files with the default VFS"},
	{"mmap", "suql leaves SQLite's memory settings as they are"},
	{"maxsize", "suql opens SQLite files only"},
	{"lookaside", "suql leaves SQLite's memory settings as they are"},
	{"pagecache", "suql leaves SQLite's memory settings as they are"},
	{"memtrace", "suql leaves SQLite's memory settings as they are"},
	{"pcachetrace", "suql leaves SQLite's memory settings as they are"},
	{"nonce", "suql has no safe mode"},
};

const char *cli_foreign_advice(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof foreign_options / sizeof *foreign_options; i++)
		if (strlen(foreign_options[i].name) == len &&
		    strncmp(foreign_options[i].name, name, len) == 0)
			return foreign_options[i].advice;
	return NULL;
}

/* sqlite3's spelling: "-csv" is "--csv", for every long option (only whole names, so
   "-cSQL" stays -c with its argument). The words that are arguments of other options are
   left alone. psql's -v: "-v NAME=VALUE" and "-vNAME=VALUE" are --variable (assignment
   says which words are), any other -v is --explain, as it always was. Rewrites argv in
   place; the new strings are kept in cli->dashed. */
void cli_dash_options(Cli *cli, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (strcmp(a, "-v") == 0 && i + 1 < argc && cli_assignment(argv[i + 1])) {
			argv[i] = cli_keep(cli, xstrdup("--variable"));
			i++;
			continue;
		}
		if (a[1] == 'v' && cli_assignment(a + 2)) {
			argv[i] = cli_keep(cli, xprintf("--variable=%s", a + 2));
			continue;
		}
		size_t nl = strcspn(a + 1 + (a[1] == '-'), "=");
		/* a name both have is the sqlite3 shell's with its one dash (-ascii, its output
		   mode), and suql's with two (--ascii) */
		if ((!cli_find_option(a + 1 + (a[1] == '-'), nl) || a[1] != '-') &&
		    cli_foreign_advice(a + 1 + (a[1] == '-'), nl)) {
			cli->foreign = a;
			return;
		}
		if (a[1] == '-') {   /* --name VALUE: skip the value */
			const CliOption *o = cli_find_option(a + 2, strcspn(a + 2, "="));
			if (o && o->arg && !strchr(a, '='))
				i++;
			continue;
		}
		const CliOption *o = cli_find_option(a + 1, strcspn(a + 1, "="));
		if (o && strlen(a) > 2) {
			argv[i] = cli_keep(cli, xprintf("-%s", a));
			if (o->arg && !strchr(a, '='))
				i++;
			continue;
		}
		/* short options, maybe several in one word: one that takes a value takes the
		   rest of the word, or the next word when it is last */
		for (const char *c = a + 1; *c; c++) {
			const CliOption *p = cli_options();
			while (p->name && p->shortname != *c)
				p++;
			if (p->name && p->arg) {
				if (c[1] == '\0')
					i++;
				break;
			}
		}
	}
}
