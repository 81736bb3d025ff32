/*
 * complete_shell.c: the bash and zsh completion scripts (suql --completion SHELL), written
 * from the tables the program runs on, so they cannot fall behind it: main.c's options
 * (each with its argument's word: FILE completes files, MODE the output modes, KEY=VALUE
 * the settings and then the values of the one named, ...), render.h's mode names, the
 * settings registry (session_setting_names, session_setting_choices) and psql's special
 * variable ON_ERROR_STOP. Anything else after the options is the database, then SQL:
 * files are offered.
 *
 * bash splits a word at '=' (COMP_WORDBREAKS), so `--set explain=o` arrives as three
 * words; the script puts them together again and offers the values alone, as bash then
 * expects. The scripts use nothing of the bash-completion package, so sourcing the file
 * is enough.
 */
#include "cli/complete_shell.h"
#include "render/render.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

/* What completes an option's argument, by its word in the table. */
typedef enum ArgKind { ARG_NONE, ARG_FILE, ARG_DIR, ARG_MODE, ARG_SET, ARG_VAR, ARG_WORDS }
	ArgKind;

static ArgKind arg_kind(const char *arg, const char **words)
{
	*words = NULL;
	if (!arg)
		return ARG_NONE;
	if (strcmp(arg, "FILE") == 0 || strcmp(arg, "FILE TABLE") == 0 || strcmp(arg, "BENCH") == 0)
		return ARG_FILE;
	if (strcmp(arg, "DIR") == 0)
		return ARG_DIR;
	if (strcmp(arg, "MODE") == 0)
		return ARG_MODE;
	if (strcmp(arg, "KEY=VALUE") == 0)
		return ARG_SET;
	if (strcmp(arg, "NAME=VALUE") == 0)
		return ARG_VAR;
	if (strcmp(arg, "SHELL") == 0)
		*words = "bash zsh";
	else if (strcmp(arg, "SECTION") == 0)
		*words = "options meta-commands settings";
	else if (strcmp(arg, "WAYS") == 0)
		*words = "suql chat linearize all";
	return *words ? ARG_WORDS : ARG_NONE;
}

/* psql's variables that mean something to suql, and their values. */
static const char *const variables[][2] = {{"ON_ERROR_STOP", "on off"}};

/* The case arms "name) echo 'values';;" (bash) or "name) compadd -- values;;" (zsh) of
   every setting whose values are a short list. */
static void setting_values(FILE *out, int zsh, const char *indent)
{
	char **names = session_setting_names(NULL);
	for (char **p = names; *p; p++) {
		char *w = session_setting_choices(NULL, *p);
		if (w && *w)
			fprintf(out, zsh ? "%s%s) compadd -- %s;;\n" : "%s%s) echo '%s';;\n", indent, *p, w);
		free(w);
		free(*p);
	}
	free(names);
}

static void setting_names(FILE *out)
{
	char **names = session_setting_names(NULL);
	for (char **p = names; *p; p++) {
		fprintf(out, "%s%s", p == names ? "" : " ", *p);
		free(*p);
	}
	free(names);
}

/* ---- bash ---- */

/* "-c|--command|-command": the spellings of an option (long ones also with one dash, as
   suql reads them). */
static void bash_pattern(FILE *out, const ShellOption *o)
{
	if (o->shortname)
		fprintf(out, "-%c|", o->shortname);
	fprintf(out, "--%s|-%s", o->name, o->name);
}

static void bash(FILE *out, const ShellOption *opts, int n)
{
	fputs("# bash completion for suql, written by `suql --completion bash` from the program's\n"
	      "# own tables (make install puts it in PREFIX/share/bash-completion/completions/suql).\n"
	      "_suql_setting_values() {\n\tcase $1 in\n", out);
	setting_values(out, 0, "\t");
	fputs("\tesac\n}\n\n_suql() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= key= pre= i=$COMP_CWORD\n"
	      "\t(( i > 0 )) && prev=${COMP_WORDS[i-1]}\n"
	      "\t# bash splits KEY=VALUE at the '=' (COMP_WORDBREAKS): take it as one word again\n"
	      "\tif [[ $cur == = && $i -ge 2 ]]; then\n"
	      "\t\tkey=$prev cur= prev=${COMP_WORDS[i-2]}\n"
	      "\telif [[ $prev == = && $i -ge 3 ]]; then\n"
	      "\t\tkey=${COMP_WORDS[i-2]} prev=${COMP_WORDS[i-3]}\n"
	      "\telif [[ $cur == *=* ]]; then\n"
	      "\t\tkey=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=}\n"
	      "\tfi\n"
	      "\tCOMPREPLY=()\n"
	      "\tcase $prev in\n", out);
	for (int i = 0; i < n; i++) {
		const ShellOption *o = &opts[i];
		const char *words;
		ArgKind k = arg_kind(o->arg, &words);
		if (!o->arg)
			continue;
		fputc('\t', out);
		bash_pattern(out, o);
		fputs(")\n", out);
		switch (k) {
		case ARG_FILE:
			fputs("\t\tcompopt -o filenames 2>/dev/null\n"
			      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"));;\n", out);
			break;
		case ARG_DIR:
			fputs("\t\tcompopt -o filenames 2>/dev/null\n"
			      "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"));;\n", out);
			break;
		case ARG_MODE:
			fprintf(out, "\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"));;\n",
			        RENDER_MODE_WORDS);
			break;
		case ARG_WORDS:
			fprintf(out, "\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"));;\n", words);
			break;
		case ARG_SET:
			fputs("\t\tif [[ -n $key ]]; then\n"
			      "\t\t\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$(_suql_setting_values \"$key\")\" "
			      "-- \"$cur\"))\n"
			      "\t\telse\n"
			      "\t\t\tcompopt -o nospace 2>/dev/null\n"
			      "\t\t\tCOMPREPLY=($(compgen -S = -W '", out);
			setting_names(out);
			fputs("' -- \"$cur\"))\n\t\tfi;;\n", out);
			break;
		case ARG_VAR:
			fputs("\t\tif [[ -n $key ]]; then\n\t\t\tcase $key in\n", out);
			for (size_t v = 0; v < sizeof variables / sizeof *variables; v++)
				fprintf(out, "\t\t\t%s) COMPREPLY=($(compgen -P \"$pre\" -W '%s' -- "
				        "\"$cur\"));;\n", variables[v][0], variables[v][1]);
			fputs("\t\t\tesac\n\t\telse\n\t\t\tcompopt -o nospace 2>/dev/null\n"
			      "\t\t\tCOMPREPLY=($(compgen -S = -W '", out);
			for (size_t v = 0; v < sizeof variables / sizeof *variables; v++)
				fprintf(out, "%s%s", v ? " " : "", variables[v][0]);
			fputs("' -- \"$cur\"))\n\t\tfi;;\n", out);
			break;
		case ARG_NONE:
			fputs("\t\t;;   # nothing to offer\n", out);
			break;
		}
	}
	/* -v NAME=VALUE is psql's -v; -v alone is --explain, followed by the database */
	fputs("\t-v)\n"
	      "\t\tif [[ -n $key ]]; then\n\t\t\tcase $key in\n", out);
	for (size_t v = 0; v < sizeof variables / sizeof *variables; v++)
		fprintf(out, "\t\t\t%s) COMPREPLY=($(compgen -P \"$pre\" -W '%s' -- \"$cur\"));;\n",
		        variables[v][0], variables[v][1]);
	fputs("\t\t\tesac\n"
	      "\t\telif [[ $cur != -* ]]; then\n"
	      "\t\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\tfi;;\n"
	      "\t*)\n"
	      "\t\tif [[ $cur == -* ]]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -W '", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s--%s", i ? " " : "", opts[i].name);
	for (int i = 0; i < n; i++)
		if (opts[i].shortname)
			fprintf(out, " -%c", opts[i].shortname);
	fputs("' -- \"$cur\"))\n"
	      "\t\telse   # the database, then SQL\n"
	      "\t\t\tcompopt -o filenames 2>/dev/null\n"
	      "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\tfi;;\n"
	      "\tesac\n"
	      "}\n"
	      "complete -F _suql suql\n", out);
}

/* ---- zsh ---- */

/* An option's help as a zsh description in '[...]' inside single quotes: its first clause,
   at most about 60 characters, with what the quoting would read escaped. */
static void zsh_help(FILE *out, const char *help)
{
	size_t n = strcspn(help, ";:(");
	while (n && help[n - 1] == ' ')
		n--;
	if (n > 60) {
		n = 60;
		while (n > 0 && help[n] != ' ')
			n--;
	}
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		char c = help[i];
		if (c == '\'')
			fputs("'\\''", out);
		else if (c == '[' || c == ']' || c == '\\')
			fprintf(out, "\\%c", c);
		else
			fputc(c, out);
	}
	fputc(']', out);
}

static void zsh_action(FILE *out, const ShellOption *o)
{
	const char *words;
	ArgKind k = arg_kind(o->arg, &words);
	fputs(":", out);
	for (const char *p = o->arg; *p; p++)
		fputc(*p == ':' || *p == '\'' ? '_' : *p, out);
	switch (k) {
	case ARG_FILE: fputs(":_files", out); break;
	case ARG_DIR: fputs(":_files -/", out); break;
	case ARG_MODE: fprintf(out, ":(%s)", RENDER_MODE_WORDS); break;
	case ARG_WORDS: fprintf(out, ":(%s)", words); break;
	case ARG_SET: fputs(":_suql_set", out); break;
	case ARG_VAR: fputs(":_suql_variable", out); break;
	case ARG_NONE: fputs(": ", out); break;
	}
}

static void zsh(FILE *out, const ShellOption *opts, int n)
{
	fputs("#compdef suql\n"
	      "# zsh completion for suql, written by `suql --completion zsh` from the program's own\n"
	      "# tables (make install puts it in PREFIX/share/zsh/site-functions/_suql).\n\n"
	      "_suql_set() {\n"
	      "\tif compset -P '*='; then\n"
	      "\t\tcase ${IPREFIX%=} in\n", out);
	setting_values(out, 1, "\t\t");
	fputs("\t\tesac\n\telse\n\t\tcompadd -S '=' -- ", out);
	setting_names(out);
	fputs("\n\tfi\n}\n\n"
	      "_suql_variable() {\n"
	      "\tif compset -P '*='; then\n"
	      "\t\tcase ${IPREFIX%=} in\n", out);
	for (size_t v = 0; v < sizeof variables / sizeof *variables; v++)
		fprintf(out, "\t\t%s) compadd -- %s;;\n", variables[v][0], variables[v][1]);
	fputs("\t\tesac\n\telse\n\t\tcompadd -S '=' --", out);
	for (size_t v = 0; v < sizeof variables / sizeof *variables; v++)
		fprintf(out, " %s", variables[v][0]);
	fputs("\n\tfi\n}\n\n"
	      "_arguments -s -S \\\n", out);
	for (int i = 0; i < n; i++) {
		const ShellOption *o = &opts[i];
		for (int form = o->shortname ? 0 : 1; form < 2; form++) {
			if (form == 0)
				fprintf(out, "\t'-%c", o->shortname);
			else
				fprintf(out, "\t'--%s%s", o->name, o->arg ? "=" : "");
			zsh_help(out, o->help);
			if (o->arg)
				zsh_action(out, o);
			fputs("' \\\n", out);
		}
	}
	fputs("\t'*:database, then SQL:_files'\n", out);
}

SuqlStatus complete_shell(FILE *out, const char *shell, const ShellOption *opts, int n,
                          SuqlErr *err)
{
	if (strcmp(shell, "bash") == 0)
		bash(out, opts, n);
	else if (strcmp(shell, "zsh") == 0)
		zsh(out, opts, n);
	else
		return err_set(err, SUQL_USAGE, "--completion: no script for '%s' (bash, zsh)", shell);
	return SUQL_OK;
}
