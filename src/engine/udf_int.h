/*
 * udf_int.h: the SQL functions suql registers on its connection (udf.c): suql_atom,
 * suql_answer, suql_summary, suql_verify, suql_choice. Each looks its result up in the
 * running statement's memo and, on a miss, asks the model itself (one row, one call); the
 * operators' own functions (in their files) do the same through udf_evaluate.
 */
#ifndef SUQL_UDF_INT_H
#define SUQL_UDF_INT_H

#include "engine/engine_int.h"

/* Register the functions on e's connection (the filter walk's row: its functions entry). */
void udf_register(Engine *e);
/* The statement running now, for a function of suql's called by SQLite (NULL, with the
   error in c, outside one). */
Exec *udf_current(sqlite3_context *c);
/* Look (sig, value t) up in the memo and set c's result; on a miss NULL for a planned
   occurrence (planned) or while reading from the memo only, else the model asked now. */
void udf_evaluate(sqlite3_context *c, Exec *ex, int sig, int planned, sqlite3_value *t);
/* The occurrence a function's first argument numbers (NULL, with the error in c, when
   the statement has none). */
const Occ *udf_occ(sqlite3_context *c, Exec *ex, sqlite3_value *id);

#endif
