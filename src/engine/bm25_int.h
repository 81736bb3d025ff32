/*
 * bm25_int.h: the relevance function bm25(column, 'query') (bm25.c): the binder's rewrite
 * into suql_bm25(...), the SQL function, and the rankings a statement made with it (heap
 * memory of the Exec, freed by bm25_free).
 */
#ifndef SUQL_BM25_INT_H
#define SUQL_BM25_INT_H

#include "engine/bind_int.h"

/* slot holds bm25(column, 'query'): rewritten in place into suql_bm25(...); 1 when it was
   such a call (an error about it is left in bd) */
int bm25_bind(Bind *bd, int b, Expr **slot);
void bm25_register(Engine *e);
void bm25_free(Exec *ex);

#endif
