/*
 * import_args.c: the arguments of an import, "FILE TABLE [options]", as :import and
 * "suql DB --import" take them (one parser for both).
 */
#include "base/util.h"
#include "import/import.h"

#include <string.h>

static const char *const USAGE =
	"FILE TABLE [--format csv|json|jsonl] [--types SPEC] [--array-sep SEP] "
	"[--columns LIST] [--delimiter C] [--encoding NAME] [--index]";

SuqlStatus import_parse_args(int argc, char **argv, const char **file, const char **table,
                             ImportOptions *opt, SuqlErr *err)
{
	*file = *table = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--index") == 0) {
			opt->index = 1;
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			if (!val)
				return err_set(err, SUQL_USAGE, "%s needs a value; usage: %s", a, USAGE);
			i++;
			if (strcmp(a, "--format") == 0) {
				opt->format = import_format_named(val);
				if (opt->format == IMPORT_AUTO)
					return err_set(err, SUQL_USAGE, "--format: unknown format '%s' (csv, json "
					               "or jsonl)", val);
			} else if (strcmp(a, "--types") == 0) {
				opt->types = val;
			} else if (strcmp(a, "--array-sep") == 0) {
				if (!*val)
					return err_set(err, SUQL_USAGE, "--array-sep: empty separator");
				opt->array_sep = val;
			} else if (strcmp(a, "--encoding") == 0) {
				if (!*val)
					return err_set(err, SUQL_USAGE, "--encoding: empty name (latin1, cp1252, "
					               "utf-8, ...)");
				opt->encoding = val;
			} else if (strcmp(a, "--columns") == 0) {
				opt->columns = val;
			} else if (strcmp(a, "--delimiter") == 0) {
				if (strcmp(val, "\\t") == 0 || strcmp(val, "tab") == 0)
					opt->delim = '\t';
				else if (strlen(val) == 1 && val[0] != '"' && val[0] != '\n' && val[0] != '\r')
					opt->delim = val[0];
				else
					return err_set(err, SUQL_USAGE, "--delimiter: one character, or \\t");
			} else {
				return err_set(err, SUQL_USAGE, "unknown option %s; usage: %s", a, USAGE);
			}
			continue;
		}
		if (!*file)
			*file = a;
		else if (!*table)
			*table = a;
		else
			return err_set(err, SUQL_USAGE, "unexpected '%s'; usage: %s", a, USAGE);
	}
	if (!*file || !*table)
		return err_set(err, SUQL_USAGE, "usage: %s", USAGE);
	return SUQL_OK;
}
