/*
 * dynlib.h: shared libraries loaded when a statement first needs them (dlopen by soname),
 * so that plain SQL on SQLite never maps them: libcurl (llm_http.c), libpq (store_pg.c)
 * and OpenSSL's libcrypto (llm_cache.c) are compiled against their headers and loaded at
 * run time (doc/speed.md, start-up). Each user declares a table of the functions it calls
 * and a DynLib naming the library; dynlib_load fills the table once, or says why it cannot.
 *
 * An environment variable (SUQL_LIBCURL, SUQL_LIBPQ, SUQL_LIBCRYPTO) names another file to
 * load instead of the soname: a library of the same ABI installed elsewhere, or, in the
 * tests, one that does not exist.
 *
 * Ownership: a DynLib is a static object of its module; the handle stays open until the
 * program ends (the library's own cleanup runs through its table, never through dlclose).
 */
#ifndef SUQL_DYNLIB_H
#define SUQL_DYNLIB_H

#include "base/suql.h"

#include <stddef.h>

typedef struct DynSym {
	const char *name;     /* the symbol, as the header declares it */
	size_t offset;        /* where its pointer goes in the table */
} DynSym;

typedef struct DynLib {
	const char *soname;   /* "libcurl.so.4" */
	const char *package;  /* the Debian package that ships it: "libcurl4" */
	const char *env;      /* the variable naming another file: "SUQL_LIBCURL" */
	const DynSym *syms;   /* the functions used, ended by {NULL, 0} */
	void *table;          /* a struct of function pointers, filled by dynlib_load */
	int loaded;
} DynLib;

/* One pointer of a table: the member of a struct of function pointers typed as the
   header declares the function (DYNLIB_FIELD), and its DynSym (DYNLIB_SYM). */
#define DYNLIB_FIELD(f) __typeof__(f) *f;
#define DYNLIB_SYM(type, f) {#f, offsetof(type, f)},

/* Load the library and every symbol of its table; once loaded, later calls return at
   once. SUQL_IO when the library or a symbol is missing: "cannot load libcurl.so.4
   (install libcurl4): <dlerror>"; a later call tries again (the package may have been
   installed meanwhile). */
SuqlStatus dynlib_load(DynLib *lib, SuqlErr *err);

#endif
