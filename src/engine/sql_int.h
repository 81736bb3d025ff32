/*
 * sql_int.h: the engine's own SQL, the bottom group of the engine with the statement model
 * (engine_int.h) and the memo (memo_int.h): what every phase above calls to build, print,
 * prepare, count and run statements, and to report errors and warnings. exec.c builds and
 * runs them on SQLite and holds the statement's errors and the budget's refusals;
 * exec_pg_plan.c prints them for PostgreSQL (exec_print_select calls its hooks);
 * exec_hint.c words SQLite's errors about the user's text; dialect_sqlite.c and
 * dialect_pg.c hold each backend's row of the backend table (engine_int.h: Dialect).
 * Nothing here calls a phase above it (tests/suites/44-layers.sh).
 *
 * Ownership: what returns heap text (exec_print_select, exec_print_expr, exec_value_text,
 * exec_pg_plan_params) leaves it to the caller; the Exec owns its PostgreSQL parameters
 * (its backend state, Exec.backend: exec_pg_plan_free).
 */
#ifndef SUQL_SQL_INT_H
#define SUQL_SQL_INT_H

#include "engine/engine_int.h"
#include "engine/memo_int.h"

/* ---- exec.c: the statement's errors, the budget, the engine's own statements ---- */

/* The refusal of a statement whose expected calls (expect_total, worst_total) are over
   the budget; and the error of one the budget's cap stopped while it ran (s is returned
   when it is not SUQL_BUDGET, or nothing was sent). */
SuqlStatus exec_over_budget(Exec *ex, SuqlErr *err);
SuqlStatus exec_budget_stopped(Exec *ex, SuqlStatus s, SuqlErr *err);
/* Dollars are written by llm_money (llm.h): the plan's cost line, the refusal of
   budget_usd, the counters, the caps' messages and :cost all write them alike. */
/* A statement whose status s is SUQL_OK but whose spend went past a cap anyway (an
   endpoint reporting more tokens than any bound): SUQL_LLM, saying by how much (and,
   unless shown, that no rows are returned: its rows were not shown yet). */
SuqlStatus exec_budget_passed(Exec *ex, SuqlStatus s, int shown, SuqlErr *err);
/* UPDATE's or DELETE's own block (the statement's clauses), or NULL. */
Block *exec_dml_block(Exec *ex);
/* The refusal of a statement the authorizer denied (engine.c's: a table of evaluation
   labels in read-only mode, a write there, a trigger on one of suql's tables), said as
   what was refused. */
SuqlStatus exec_refused(Engine *e, SuqlErr *err);
/* An SQLite error about a user's statement sql[0..len) that pr translated: placed in the
   user's text where SQLite's offset maps back to it. */
SuqlStatus exec_user_error(sqlite3 *db, const Printer *pr, const char *sql, size_t len,
                           SuqlErr *err);
/* Record a failure of an SQL function, e (NULL: "no answer") with status st; the first one
   wins, and exec_sqlerr reports it, its place in the statement included. */
void exec_fail(Exec *ex, SuqlStatus st, const SuqlErr *e);
void exec_warn(Exec *ex, const char *msg);
/* A reply the model gave for one value could not be read (reply: what it said). */
void exec_unread(Exec *ex, int sig, const char *reply);
/* At the statement's end: a warning per question some replies of which could not be read,
   and the statement fails (SUQL_LLM) when llm.unreadable says so; s is returned otherwise. */
SuqlStatus exec_unread_report(Exec *ex, SuqlStatus s, SuqlErr *err);
/* The error of a statement the engine made: the SQLite message, or the function's. */
SuqlStatus exec_sqlerr(Exec *ex, SuqlErr *err, const char *what);

/* Statements the planner and the executor build: l AND r (either may be NULL); a SELECT of
   cols over block b's FROM (with the WITH clauses in scope); one more result column; a
   SELECT printed for the backend (its Dialect.print_select: every block's WHERE relaxed
   while ex->relaxing); an expression as SUQL text (heap text). */
Expr *exec_and(Arena *a, Expr *l, Expr *r);
Select *exec_select(Exec *ex, Block *b, ResultList *cols, Expr *where, OrderList *order);
void exec_col(Arena *a, ResultList **l, Expr *e, const char *alias);
char *exec_print_select(Exec *ex, Select *s);
char *exec_print_expr(Exec *ex, const Expr *e);
/* SQLite's Dialect.print_select; and the printing hook of the budget phase, which prints
   every block's WHERE relaxed (ctx: the Exec; each backend's printer calls it while
   ex->relaxing) */
char *exec_print_sqlite(Exec *ex, Select *s);
int exec_relax_hook(void *ctx, Printer *pr, const Expr *e);
/* SQLite's Dialect.query (traced as exec_prepare traces) and Dialect.try_query: on the
   connection, where suql's functions are */
SuqlStatus exec_query_sqlite(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err);
SuqlStatus exec_try_sqlite(Exec *ex, const char *sql, StoreCursor **c);
/* A statement the planner runs at once, printed last: free text in it is not asked
   (counting), its work is bounded (exec_bound) and a failure does not fail the statement
   around it (Dialect.try_query). open: 0, or -1 when it failed; next: 1 a row (read from
   p->c), 0 the end, -1 an error, -2 stopped at the bound; close restores what open set. */
typedef struct ExecProbe {
	Exec *ex;
	StoreCursor *c;
	int saved;
} ExecProbe;
int exec_probe_open(ExecProbe *p, Exec *ex, const char *sql);
int exec_probe_next(ExecProbe *p);
void exec_probe_close(ExecProbe *p);
/* Run one SQL text and read one integer (count(*)); -1 on error, EXEC_COUNT_CUT when it
   took more than EXEC_COUNT_STEPS SQLite instructions and was stopped (planning never
   runs an unbounded query: an endless recursive CTE, a large cross join). */
long long exec_count(Exec *ex, const char *sql);
#define EXEC_COUNT_CUT (-2)
#define EXEC_COUNT_STEPS 50000000L   /* about half a second */
/* Bound (on) or unbound (off) the statements run next to EXEC_COUNT_STEPS instructions
   each: a bounded one is stopped (SQLITE_INTERRUPT) past it. */
void exec_bound(Exec *ex, int on);
/* Prepare one of the engine's statements on the connection (an error: exec_sqlerr's). */
SuqlStatus exec_prepare(Exec *ex, const char *sql, sqlite3_stmt **st, SuqlErr *err);
/* Print sql on stderr when SUQL_TRACE_SQL is set (what SQLite is given to prepare). */
void exec_trace(const char *sql);
/* Run SQL text (the engine's own statements) with sqlite3_exec; SUQL_ERROR with SQLite's
   message. */
SuqlStatus exec_run_sql(sqlite3 *db, const char *sql, SuqlErr *err);
char *exec_value_text(sqlite3_value *v, size_t *n);
/* Append a copy of s to the string vector *v of *n. */
void exec_strv_push(char ***v, int *n, const char *s);

/* ---- exec_hint.c ---- */

/* An SQLite error message about the user's text: at off (or, for an unknown table, where
   its name stands) with a caret, and a "did you mean" hint for a near-miss table or column
   name. off < 0: no known position. */
SuqlStatus exec_hint_name_error(sqlite3 *db, const char *msg, const char *sql, size_t len,
                                long off, size_t tlen, SuqlErr *err);

/* ---- exec_pg_plan.c: the statements of the SQLite planner and walk printed for
   PostgreSQL (exec_pg_run.c runs a free-text SELECT through them) ---- */

/* Printing hook for Postgres (ctx: the Exec): an occurrence becomes a look-up of its
   value in bound arrays, a walked block's WHERE keeps to the rows it passed, and the
   markers made by exec_pg_plan_text and exec_pg_plan_rowid print what they stand for.
   Parameters go into the statement's PostgreSQL state (Exec.backend). */
int exec_pg_plan_hook(void *ctx, Printer *pr, const Expr *e);
/* The FROM hook beside it: an unnest() item WITH ORDINALITY, its number named suql_ord. */
int exec_pg_plan_from(void *ctx, Printer *pr, const FromItem *f);
Expr *exec_pg_plan_text(Exec *ex, Expr *arg);            /* the argument's text */
/* FROM item it's row as a number: its key (bind_scope.c), else its ctid numbered
   block * 65536 + offset */
Expr *exec_pg_plan_rowid(Exec *ex, const ScopeItem *it);
/* A row identity of the walk's numbering that is a ctid (block * 65536 + offset), as
   Postgres writes a tid: "(block,offset)". */
void exec_pg_plan_ctid(long long id, char out[48]);
/* The plan's line "row identity: t.id (primary key), u.ctid (no key of integers)": what
   identifies the rows of each table read (nothing when none is identified). */
void exec_pg_plan_show_identity(const Exec *ex, SBuf *out);
/* The key of an aggregate's group (call: its suql_agg(id, text)), as exec_agg.c's memo
   keys it: the group's texts joined, in the order of the rows. */
Expr *exec_pg_plan_aggkey(Exec *ex, Expr *call);
/* Whether e is the call of an aggregate over free text (suql_agg). */
int exec_pg_plan_is_agg(const Exec *ex, const Expr *e);
/* ord followed by the identity (key or ctid) of each FROM item (rows with identity):
   Postgres returns rows in a defined order, that of SQLite's rowids for rows inserted in
   order (for a key of integers, SQLite's rowid itself). */
OrderList *exec_pg_plan_order(Exec *ex, Block *b, OrderList *ord);
/* Run sql (printed last: its parameters are the state's) in Postgres. */
SuqlStatus exec_pg_plan_query(Exec *ex, const char *sql, StoreCursor **c, SuqlErr *err);
/* The same for a statement that may fail without failing the statement around it (a
   count while planning): under a savepoint, so the transaction goes on. */
SuqlStatus exec_pg_plan_try(Exec *ex, const char *sql, StoreCursor **c);
/* A server error (s) about the statement pr printed, placed in the user's text with a
   caret where the server's offset maps back to it; s otherwise. */
SuqlStatus exec_pg_plan_place(Exec *ex, const Printer *pr, SuqlStatus s, SuqlErr *err);
/* The same for a text sent with shift bytes before pr's ("EXPLAIN "). */
SuqlStatus exec_pg_plan_place_shifted(Exec *ex, const Printer *pr, SuqlStatus s, long shift,
                                      SuqlErr *err);
/* Whether what is printed now takes no parameters (CREATE TABLE ... AS ... WITH NO DATA:
   Postgres binds none there): every free-text value a NULL of its type, walked blocks not
   kept to their rows. */
void exec_pg_plan_nodata(Exec *ex, int on);
void exec_pg_plan_free(Exec *ex);
/* PostgreSQL's Dialect.print_select: the SELECT printed PRINT_PG, free text read from the
   values bound as parameters (exec_pg_plan_hook); relaxed while counting. */
char *exec_pg_plan_print_select(Exec *ex, Select *s);
/* The parameters of the statement printed last (how many), and none kept (the next
   statement is the engine's own SQL, printed by no printer: Dialect.unbind). */
int exec_pg_plan_nparams(Exec *ex);
void exec_pg_plan_unbind(Exec *ex);
/* The printer of the statement (sel; NULL: the user's) printed last, walked blocks kept
   to the rows they passed; it holds the text and the map back to the user's
   (exec_pg_plan_place). */
Printer *exec_pg_plan_print_final(Exec *ex, const Select *sel);
/* PostgreSQL's Dialect.final_query: sel printed as the final statement, run with its
   parameters. */
SuqlStatus exec_pg_plan_final_query(Exec *ex, const Select *sel, StoreCursor **c,
                                    SuqlErr *err);
/* exec_final_count on PostgreSQL: the rows the user's statement returns with what is known
   (printed last, run under a savepoint); 0, or -1 when it cannot tell. */
int exec_pg_plan_count(Exec *ex, long long *n);
/* The parameters of the statement printed last, as texts (Postgres arrays), and their free. */
char **exec_pg_plan_params(Exec *ex, int *n, SuqlErr *err);   /* NULL: err says why */
void exec_pg_plan_params_free(char **v, int n);

/* ---- a bulk job's write, once (each backend's Dialect.once_begin) ---- */

/* Whether job's row is in suql's table of jobs done (table: its name in the backend): 1,
   0, or -1 (an error, in err). (exec.c) */
int exec_once_marked(Engine *e, const char *table, const char *job, SuqlErr *err);
/* The message refusing a job's write inside a transaction of the user's. */
#define DIALECT_ONCE_OPEN "a transaction is open (BEGIN without COMMIT): a batch's write " \
	"commits in a transaction of its own, with the mark that it ran; end it with COMMIT or " \
	"ROLLBACK, then :bulk resume"

#endif
