/*
 * udf_int.h: the SQL functions suql registers on its connection (udf.c): suql_atom,
 * suql_answer, suql_summary, suql_verify. Each looks its result up in the running
 * statement's memo and, on a miss, asks the model itself (one row, one call).
 */
#ifndef SUQL_UDF_INT_H
#define SUQL_UDF_INT_H

#include "engine/engine_int.h"

/* Register the functions on e's connection. */
void udf_register(Engine *e);

#endif
