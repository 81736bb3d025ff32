/*
 * own.h: what suql trusts in an SQLite file it is given. suql keeps its own data in the
 * user's database, in tables named suql_* (the catalog, table properties, ENUM mappings,
 * the retrieval index). A file may come from someone else, so before suql writes one of
 * those tables it checks two things, here:
 *
 *   - no trigger of the file sits on the table (a trigger there would run code from the
 *     file each time suql stores its own data: suql refuses to write through it and says
 *     which trigger to drop);
 *   - the table has the columns suql makes (a user's table that only shares the name is
 *     never rebuilt, altered or written: suql says so and asks for it to be renamed).
 *
 * While suql writes its own tables the connection's trusted_schema is off (own_write_begin
 * and own_write_end): no function with side effects and no virtual table can then run from
 * the file's schema (an index expression, a default). The user's own statements run with
 * SQLite's default, as the sqlite3 shell does, since turning it off for them would break
 * ordinary files (an FTS5 table kept in step by triggers is refused when it is off).
 *
 * Ownership: the messages returned are heap strings the caller frees; own_scan and
 * own_triggers fill a heap array of heap strings, freed with own_strings_free.
 */
#ifndef SUQL_OWN_H
#define SUQL_OWN_H

#include <sqlite3.h>

#include "base/suql.h"

/* Whether name is one of suql's (starts with suql_, in any case). */
int own_is_name(const char *name);

/* Why suql must not write its table `table` in this file (a trigger on it, or columns suql
   did not make), as a message that says what to do; NULL when it may (or the table does not
   exist yet). */
char *own_refusal(sqlite3 *db, const char *table);

/* Why the table `table` of that name is not suql's (its columns differ from the ones suql
   makes); NULL when it is suql's or does not exist. */
char *own_foreign_shape(sqlite3 *db, const char *table);

/* Before suql writes its table `table`: SUQL_ERROR with own_refusal's message when it must
   not; else trusted_schema is turned off until own_write_end. */
SuqlStatus own_write_begin(sqlite3 *db, const char *table, SuqlErr *err);
/* trusted_schema off until own_write_end, after the caller's own checks */
void own_untrusted(sqlite3 *db);
/* trusted_schema back as it was before the outermost own_write_begin */
void own_write_end(sqlite3 *db);

/* Everything in the file that suql will not write through, one message each (for a warning
   when the file is opened). Returns the count. */
int own_scan(sqlite3 *db, char ***msgs);

/* The names of the triggers on suql's tables. Returns the count. */
int own_triggers(sqlite3 *db, char ***names);

void own_strings_free(char **v, int n);

#endif
