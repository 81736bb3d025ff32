/*
 * top_int.h: the top group of the engine: a statement's entry points and pipeline, and the
 * plan shown. exec_statement.c runs one statement on SQLite (bind, rewrite, validate,
 * plan, budget, run, report); exec_pg.c runs one on PostgreSQL, and exec_pg_run.c the
 * free-text SELECTs it does not walk itself; plan_show.c writes the plan and the counters
 * from what every phase below made of the statement. Only the top group includes it
 * (tests/suites/44-layers.sh): the phases below report through the Exec, never by calling
 * up.
 */
#ifndef SUQL_TOP_INT_H
#define SUQL_TOP_INT_H

#include "engine/exec_int.h"
#include "engine/op_int.h"

/* ---- exec_statement.c ---- */

SuqlStatus exec_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                          const EngineSink *sink, SuqlErr *err);
/* A statement's Exec (its memo, counters and the model's statement counters begun, the
   budget set as the model's cap, the running statement of the engine), and its end
   (exec_statement_end: the cap lifted, the statement before it running again, the Exec freed). */
Exec *exec_statement_begin(Engine *e, Ast *ast, const char *sql, size_t len, const EngineSink *sink);
void exec_statement_end(Exec *ex);
/* An EXPLAIN's answer: ex->plan (made by the caller) with a last line saying nothing ran
   (and what `other` shows instead), handed to the sink with the statement as parsed. */
void exec_statement_explained(Exec *ex, const char *parsed, const char *other);

/* ---- exec_pg.c, exec_pg_run.c: statements on PostgreSQL ---- */

SuqlStatus exec_pg_statement(Engine *e, Ast *ast, const char *sql, size_t len,
                             const EngineSink *sink, SuqlErr *err);
SuqlStatus exec_pg_index(Engine *e, const char *table, FILE *out, SuqlErr *err);
/* A server error (s) about the statement pr printed, placed in the user's text with a
   caret where the server's offset maps back to it; s otherwise. */
SuqlStatus exec_pg_place(Exec *ex, const Printer *pr, SuqlStatus s, SuqlErr *err);
/* The same for a text sent with shift bytes before pr's ("EXPLAIN "). */
SuqlStatus exec_pg_place_shifted(Exec *ex, const Printer *pr, SuqlStatus s, long shift,
                                 SuqlErr *err);
/* The statement when pg_shape does not take it: NULL when it ran (s its status), else
   why it is not supported (nothing was run). With parsed (the statement as written, for
   an EXPLAIN), it is planned and its plan shown, as SQLite's EXPLAIN shows it: nothing
   runs and no model is asked. */
const char *exec_pg_run(Exec *ex, const char *parsed, SuqlStatus *s, SuqlErr *err);
/* The statement as it will run, planned by the server with EXPLAIN (nothing runs, its
   arrays empty): a mistake in it is placed in the user's text before any call. */
SuqlStatus exec_pg_run_validate(Exec *ex, SuqlErr *err);
/* A statement that writes (what: "UPDATE", ...) in a read-only transaction (--readonly,
   or the user's own) is refused before any call, in the server's words; SUQL_OK when
   the transaction may write. EXPLAIN does not tell. */
SuqlStatus exec_pg_run_writable(Exec *ex, const char *what, SuqlErr *err);
/* ---- exec_pg_dml.c: free text in UPDATE and DELETE on PostgreSQL ---- */
/* The same contract as exec_pg_run's, for an UPDATE or DELETE. */
const char *exec_pg_dml_run(Exec *ex, SuqlStatus *s, SuqlErr *err);

/* ---- plan_show.c: the plan and the counters, as text ---- */

void plan_show(Exec *ex, SBuf *out);
void plan_show_counters(Exec *ex, SBuf *out);

#endif
