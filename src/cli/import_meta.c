/*
 * import_meta.c: the command-line side of importing and indexing: the argument parser
 * shared by ":import" and "suql DB --import", and the meta-commands :import and :index.
 */
#include "base/util.h"
#include "import/import.h"
#include "retrieve/retrieve.h"

#include <stdlib.h>
#include <string.h>

static const char *const USAGE =
	"FILE TABLE [--format csv|json|jsonl] [--types SPEC] [--array-sep SEP] "
	"[--columns LIST] [--delimiter C] [--index]";

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

SuqlStatus meta_import(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	const char *file, *table;
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	ImportStats st = {0};
	if (import_parse_args(argc - 1, argv + 1, &file, &table, &opt, err) != SUQL_OK)
		return SUQL_USAGE;
	opt.progress = env->tty ? PROGRESS_AUTO : PROGRESS_OFF;
	opt.stats = &st;
	SuqlStatus s = import_file(engine_db(env->engine), file, table, &opt, err);
	if (s != SUQL_OK)
		return s;
	fprintf(env->out, "imported %lld row%s into %s (%s, %d column%s)", st.rows,
	        st.rows == 1 ? "" : "s", table, st.created ? "new table" : "appended", st.columns,
	        st.columns == 1 ? "" : "s");
	if (st.indexed)
		fprintf(env->out, "; indexed %d free-text column%s", st.indexed,
		        st.indexed == 1 ? "" : "s");
	fputc('\n', env->out);
	return SUQL_OK;
}

typedef struct Report {
	FILE *out;
	int n;
} Report;

static void report(void *ctx, const char *table, const char *column, const RetInfo *info)
{
	Report *r = ctx;
	r->n++;
	fprintf(r->out, "%s.%s: %lld row%s, %lld passage%s\n", table, column, info->rows,
	        info->rows == 1 ? "" : "s", info->passages, info->passages == 1 ? "" : "s");
}

SuqlStatus meta_index(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return err_set(err, SUQL_USAGE, "usage: :index [TABLE]");
	const char *table = argc == 2 ? argv[1] : NULL;
	Report r = {env->out, 0};
	SuqlStatus s = ret_rebuild(engine_db(env->engine), table, report, &r, err);
	if (s == SUQL_OK && r.n == 0)
		fprintf(env->out, "no free-text columns to index\n");
	return s;
}
