/*
 * dynlib.c: loading a shared library on first use (dynlib.h). dlopen with RTLD_NOW, so a
 * library that loads has every symbol its dependencies need, and RTLD_LOCAL, so its
 * symbols resolve only through the table; then dlsym for each function of the table.
 * POSIX guarantees that a function's address fits the void * dlsym returns; it is copied
 * into the table's member byte for byte.
 */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* "cannot load FILE (install PACKAGE[, or unset VARIABLE]): WHY" */
static SuqlStatus fail(const DynLib *lib, const char *file, const char *why, const char *sym,
                       SuqlErr *err)
{
	int own = file != lib->soname;
	return err_set(err, SUQL_IO, "cannot load %s (install %s%s%s): %s%s", file, lib->package,
	               own ? ", or unset " : "", own ? lib->env : "", why ? "" : sym ? "no symbol " : "",
	               why ? why : sym ? sym : "unknown reason");
}

SuqlStatus dynlib_load(DynLib *lib, SuqlErr *err)
{
	if (lib->loaded)
		return SUQL_OK;
	const char *file = getenv(lib->env);
	if (!file || !*file)
		file = lib->soname;
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return fail(lib, file, dlerror(), NULL, err);
	for (const DynSym *s = lib->syms; s->name; s++) {
		dlerror();
		void *p = dlsym(h, s->name);
		if (!p) {
			SuqlStatus st = fail(lib, file, dlerror(), s->name, err);
			dlclose(h);
			return st;
		}
		memcpy((char *)lib->table + s->offset, &p, sizeof p);
	}
	lib->loaded = 1;
	return SUQL_OK;
}
