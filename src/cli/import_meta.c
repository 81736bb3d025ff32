/*
 * import_meta.c: the meta-commands of importing and indexing, :import and :index: the
 * arguments are the importer's (import_parse_args), the work the importer's and the
 * engine's (engine_index: the database's backend makes its indexes); this file reports
 * what they did.
 */
#include "base/util.h"
#include "cli/meta.h"
#include "import/import.h"

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
	/* where the importer moves rows only (PostgreSQL), --index is :index's, made once the
	   rows are in (a failed import makes none) */
	int index_after = opt.index && !engine_import_indexes(env->engine);
	if (index_after)
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
	return index_after ? engine_index(env->engine, table, env->out, err) : SUQL_OK;
}

SuqlStatus meta_index(MetaEnv *env, int argc, char **argv, SuqlErr *err)
{
	if (argc > 2)
		return err_set(err, SUQL_USAGE, "usage: :index [TABLE]");
	return engine_index(env->engine, argc == 2 ? argv[1] : NULL, env->out, err);
}
