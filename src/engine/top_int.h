/*
 * top_int.h: the top group of the engine: a statement's entry points and pipeline, and the
 * plan shown. exec_statement.c runs one statement (bind, rewrite, check, plan, budget,
 * run, report) on either backend, through the backend's row of the table below
 * (exec_sqlite.c; exec_pg.c with exec_pg_run.c and exec_pg_dml.c), which also opens the
 * database and runs each statement (engine.c picks the row); engine_ddl.c keeps the
 * catalog of SUQL types in step with DDL; plan_show.c writes the plan and the counters
 * from what every phase below made of the statement. Only the top group includes it
 * (tests/suites/44-layers.sh): the phases below report through the Exec, never by calling
 * up.
 */
#ifndef SUQL_TOP_INT_H
#define SUQL_TOP_INT_H

#include "engine/exec_int.h"
#include "engine/op_int.h"

/* ---- the statement driver and its backends ----
   exec_statement runs every statement on either backend through one pipeline (bind,
   rewrite, check, plan, budget, classify, show, run, record, counters); what differs is a
   row of this table, the backend's entries of the top group (a Dialect entry, in the
   model group, cannot call up into the walks and the final run). exec_sqlite.c holds
   SQLite's row, exec_pg.c and exec_pg_run.c PostgreSQL's. */
typedef struct Backend {
	const char *name;             /* "SQLite": what runs a statement without free text */
	const Dialect *dialect;       /* its row of the table the phases below read */
	/* ---- the database (engine.c opens it with the first row that claims its path) ---- */
	/* the database at path is this backend's (NULL: any, the last row) */
	int (*claims)(const char *path);
	/* the store over it, and suql's SQLite connection: the database's own, or a scratch
	   one for what SQLite evaluates whatever the backend (own_db 0); NULL on failure */
	Store *(*open)(const char *path, int readonly, sqlite3 **db, SuqlErr *err);
	int own_db;
	/* what open made beside the store, closed after it (NULL: nothing) */
	void (*close)(Engine *e);
	/* one parsed statement run (a statement suql binds through exec_statement; DDL with
	   the catalog of SUQL types, engine_ddl.c; any other as it is) */
	SuqlStatus (*run)(Engine *e, Ast *ast, const char *sql, size_t len, const EngineSink *sink,
	                  SuqlErr *err);
	/* :index: the free-text columns' indexes made current, a line per column on out; and
	   whether :import --index is the importer's, as it writes (else :index's, after) */
	SuqlStatus (*index)(Engine *e, const char *table, FILE *out, SuqlErr *err);
	int import_indexes;
	/* ---- the pipeline (exec_statement.c) ---- */
	PrintMode print;              /* how such a statement is printed for it */
	const char *explain_other;    /* what EXPLAIN of a statement without free text shows */
	/* the statement's transaction, begun before anything is counted or asked (planned:
	   one snapshot for the candidates listed and the final statement that reads them),
	   *began whether one was; and, when one was, ended: committed, or rolled back when s
	   failed (s returned, or the commit's failure). NULL: statements run in the
	   database's own transactions. */
	SuqlStatus (*begin)(Exec *ex, int planned, int *began, SuqlErr *err);
	SuqlStatus (*end)(Exec *ex, SuqlStatus s, SuqlErr *err);
	/* the statement as written, judged before any count or call: a mistake placed in the
	   user's text, what read-only mode refuses. suql: suql has a part in it (free text,
	   ENUM literals, a semantic join or aggregate; a view's ENUM literals); explain: only
	   its plan is to be shown. */
	SuqlStatus (*check)(Exec *ex, int suql, int explain, SuqlErr *err);
	/* the statement run, its rows to the sink: planned, as the walks left it (its values
	   known, or evaluated on demand where the backend calls suql's functions); else as
	   written (ENUM literals rewritten) */
	SuqlStatus (*final)(Exec *ex, int planned, SuqlErr *err);
	/* the record's second reading of the rows returned (record_int.h), after final */
	void (*record)(Exec *ex);
	/* a refusal of the operator table (op_refusal's why), as an error placed at what it
	   is about */
	SuqlStatus (*refused)(Exec *ex, const char *why, SuqlErr *err);
	/* the backend's own state of the statement (Exec.backend) released */
	void (*free)(Exec *ex);
} Backend;

extern const Backend exec_sqlite_backend, exec_pg_backend;

/* ---- engine_ddl.c: the catalog of SUQL types kept in step with DDL ---- */

/* Whether st changes what the catalog records (CREATE TABLE with SUQL types, DROP TABLE,
   ALTER TABLE). */
int engine_ddl_needs_catalog(const Stmt *st);
/* After such a statement ran (inside the backend's savepoint or transaction): the
   catalog's rows made to follow it (existed: CREATE TABLE IF NOT EXISTS of a table that
   was there, nothing to record). */
SuqlStatus engine_ddl_catalog(Engine *e, const Ast *ast, int existed, SuqlErr *err);
/* CREATE VIEW whose query has free text or reads a view of suql's: suql's catalog keeps
   its text (engine_ddl_view_keeps says whether; engine_ddl_view makes it: the backend's
   final run stores the view where the database can, the catalog's row where not).
   engine_ddl_view_only: DROP VIEW of a view that only suql's catalog holds (PostgreSQL),
   which removes its row and sends nothing. */
int engine_ddl_view_keeps(Exec *ex);
SuqlStatus engine_ddl_view(Exec *ex, const Backend *be, SuqlErr *err);
int engine_ddl_view_only(Engine *e, const Ast *ast);

/* ---- exec_statement.c ---- */

/* One statement of ast (a query, a data change, CREATE VIEW or CREATE TABLE ... AS; on
   PostgreSQL any statement) on backend be. */
SuqlStatus exec_statement(Engine *e, const Backend *be, Ast *ast, const char *sql, size_t len,
                          const EngineSink *sink, SuqlErr *err);
/* Whether suql binds st (queries and data changes, which may hold free text or ENUM
   literals; views; CREATE TABLE ... AS): the rest runs as written (on SQLite, engine.c
   runs it itself). */
int exec_statement_bound(const Stmt *st);

/* ---- exec_pg.c, exec_pg_run.c, exec_pg_dml.c: PostgreSQL's row ---- */

/* The backend's check, final and record entries for a planned statement (exec_pg_run.c):
   the statement planned by the server with its parameters empty, a write refused in a
   read-only transaction; the final statement with every value bound (UPDATE and DELETE
   through exec_pg_dml_final); the record's reading of the rows returned. */
SuqlStatus exec_pg_run_check(Exec *ex, int explain, SuqlErr *err);
/* A view with free text suql keeps (engine_ddl.c): its query planned by the server, its
   free text read from an empty parameter, so that a mistake is placed in CREATE VIEW's
   text rather than met when the view is read. */
SuqlStatus exec_pg_run_check_view(Exec *ex, SuqlErr *err);
SuqlStatus exec_pg_run_final(Exec *ex, SuqlErr *err);
void exec_pg_run_record(Exec *ex);
/* UPDATE or DELETE with free text, planned and walked: its values evaluated in the order
   SQLite's functions would be called, then the statement with them bound, all or
   nothing (exec_pg_dml.c). */
SuqlStatus exec_pg_dml_final(Exec *ex, SuqlErr *err);

/* ---- exec_pg_ro.c: PostgreSQL's read-only mode, which SQL cannot undo ---- */

/* Whether st is transaction control (BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT, RELEASE). */
int exec_pg_ro_txn_control(const Stmt *st);
/* What read-only mode refuses before the server sees it (BEGIN ... READ WRITE, ANALYZE,
   VACUUM, REINDEX, a call of a refused function anywhere, a token PostgreSQL reads
   otherwise), placed in the user's text. */
SuqlStatus exec_pg_ro_refuse(Engine *e, const Ast *ast, const char *sql, size_t len,
                             SuqlErr *err);
/* Fix the open transaction read-only (user: the user's, SET TRANSACTION READ ONLY first):
   a first query takes its snapshot, after which its mode cannot change. */
SuqlStatus exec_pg_ro_lock(Engine *e, int user, SuqlErr *err);
/* transaction_read_only (and default_transaction_read_only, check_default) still on; when
   not, the transaction rolled back, the default set on again, and an error. */
SuqlStatus exec_pg_ro_verify(Engine *e, int check_default, SuqlErr *err);
/* --readonly, around each statement: the user's transaction still read-only before it;
   after it, the user's BEGIN made read-only, and the settings verified (s: the
   statement's status, kept when it failed). */
SuqlStatus exec_pg_ro_before(Engine *e, const Ast *ast, SuqlErr *err);
SuqlStatus exec_pg_ro_after(Engine *e, const Ast *ast, SuqlStatus s, SuqlErr *err);

/* ---- plan_show.c: the plan and the counters, as text ---- */

void plan_show(Exec *ex, SBuf *out);
void plan_show_counters(Exec *ex, SBuf *out);
/* EXPLAIN's answer as one JSON object (its calls, tokens and dollars, expected and worst,
   and the lines of ex->plan), for a sink that asks for JSON (EngineSink.explain_json). */
void plan_show_json(Exec *ex, const char *parsed, SBuf *out);

#endif
