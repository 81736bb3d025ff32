/*
 * import_meta.c: the meta-commands of importing and indexing, :import and :index: the
 * arguments are the importer's (import_parse_args), the work the importer's and the
 * retrieval index's; this file reports what they did.
 */
#include "base/util.h"
#include "cli/meta.h"
#include "import/import.h"
#include "retrieve/retrieve.h"

#include <stdlib.h>
#include <string.h>

SuqlStatus meta_import(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	const char *file, *table;
	ImportOptions opt = IMPORT_OPTIONS_INIT;
	ImportStats st = {0};
	if (import_parse_args(argc - 1, argv + 1, &file, &table, &opt, err) != SUQL_OK)
		return SUQL_USAGE;
	opt.progress = env->tty ? PROGRESS_AUTO : PROGRESS_OFF;
	opt.stats = &st;
	/* On PostgreSQL the importer moves rows only; --index is :index's GIN indexes, made
	   once the rows are in (a failed import makes none) */
	int pg_index = opt.index && !engine_db(env->engine);
	if (pg_index)
		opt.index = 0;
	if (env->s)
		session_limit_begin(env->s);   /* :set timeout covers an import too */
	SuqlStatus s = import_file(engine_store(env->engine), file, table, &opt, err);
	if (env->s)
		s = session_limit_end(env->s, s, err);
	if (s != SUQL_OK)
		return s;
	fprintf(env->out, "imported %lld row%s into %s (%s, %d column%s)", st.rows,
	        st.rows == 1 ? "" : "s", table, st.created ? "new table" : "appended", st.columns,
	        st.columns == 1 ? "" : "s");
	if (st.indexed)
		fprintf(env->out, "; indexed %d free-text column%s", st.indexed,
		        st.indexed == 1 ? "" : "s");
	fputc('\n', env->out);
	return pg_index ? engine_pg_index(env->engine, table, env->out, err) : SUQL_OK;
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
	if (!engine_db(env->engine))
		return engine_pg_index(env->engine, table, env->out, err);
	SuqlStatus s = ret_rebuild(engine_db(env->engine), table, report, &r, err);
	if (s == SUQL_OK && r.n == 0)
		fprintf(env->out, "no free-text columns to index\n");
	return s;
}
