/*
 * exec_pg_ro.c: PostgreSQL's read-only mode, which SQL cannot undo.
 *
 * --readonly on a PostgreSQL database sets default_transaction_read_only for the session
 * (engine.c), and every statement then runs in a read-only transaction it cannot change:
 * one of suql's own (BEGIN ... READ ONLY, exec_pg.c), locked by a first query (a
 * transaction's mode cannot change once it has read anything), or the user's own, made
 * read-only (SET TRANSACTION READ ONLY) and locked right after the user's BEGIN. Two walls
 * stand in front of a write:
 *
 *  1. suql refuses, before the server sees it, what a read-only transaction lets through
 *     or what would leave one: BEGIN ... READ WRITE (at the words READ WRITE), ANALYZE,
 *     VACUUM and REINDEX (the server's maintenance writes), a call anywhere in the
 *     statement (subqueries, CTEs, FROM, defaults and other parts kept as text) of a
 *     function that changes settings (set_config: default_transaction_read_only and
 *     transaction_read_only with it), reads or writes the server's files or large objects
 *     (lo_import, lo_export, pg_read_file, pg_ls_dir, adminpack's pg_file_write ...),
 *     reaches another connection (dblink, which a read-only transaction does not bind),
 *     runs SQL given as text (query_to_xml ...) or acts on the server (pg_terminate_backend,
 *     pg_reload_conf, replication slots, statistics resets). The calls are found in the
 *     statement's tokens (sql/lex.h, the lexer the parser uses: strings, quoted names and
 *     comments are never taken for calls); where PostgreSQL would read a token otherwise
 *     than suql's lexer does (an escape string E'...', a dollar-quoted string), the
 *     statement is refused, so that what suql checked is what the server runs. SET, RESET,
 *     START TRANSACTION, SET TRANSACTION, SET SESSION CHARACTERISTICS, DO, CALL and COPY
 *     (PROGRAM or a server file) are no statements of SUQL: the parser refuses them on
 *     every backend.
 *  2. The server refuses every write in the read-only transaction; after each statement
 *     suql reads transaction_read_only and default_transaction_read_only back, and when
 *     either is off (a function of the user's that called set_config, say) it rolls the
 *     transaction back, which undoes the change, sets the default on again and fails the
 *     statement.
 *
 * A role without the right to write is the real boundary (doc/postgres.md shows one): a
 * function or view of the database may do anything its owner may, where no statement of
 * the user's names it.
 */
#include "engine/top_int.h"

#include "sql/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions refused wherever they are called (a trailing '*': every name so starting). */
static const char *const denied[] = {
	/* settings: default_transaction_read_only, transaction_read_only, and any other */
	"set_config",
	/* large objects: the server's files, and writes a read-only transaction allows */
	"lo_import", "lo_export", "lo_create", "lo_creat", "lo_unlink", "lo_put",
	"lo_from_bytea", "lowrite", "lo_truncate", "lo_truncate64", "lo_open",
	/* the server's files */
	"pg_read_file", "pg_read_binary_file", "pg_stat_file", "pg_ls_*", "pg_file_*",
	"pg_logdir_ls",
	/* other connections, SQL given as text */
	"dblink*", "query_to_xml*", "query_to_xmlschema", "cursor_to_xml*", "table_to_xml*",
	"schema_to_xml*", "database_to_xml*", "ts_stat",
	/* the server itself */
	"pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
	"pg_promote", "pg_switch_wal", "pg_create_restore_point", "pg_backup_*", "pg_start_backup",
	"pg_stop_backup", "pg_*_replication_slot", "pg_replication_slot_advance",
	"pg_logical_slot_*", "pg_logical_emit_message", "pg_replication_origin_*",
	"pg_stat_reset*", "pg_stat_statements_reset", "pg_import_system_collations",
	"pg_wal_replay_*", "pg_log_backend_memory_contexts", "pg_notify",
};

/* name[0..n) against a pattern of the list: a '*' stands for any run of characters. */
static int like(const char *name, size_t n, const char *pat)
{
	if (!*pat)
		return n == 0;
	if (*pat == '*') {
		for (size_t k = 0; k <= n; k++)
			if (like(name + k, n - k, pat + 1))
				return 1;
		return 0;
	}
	return n > 0 && (name[0] | 0x20) == (*pat | 0x20) && like(name + 1, n - 1, pat + 1);
}

static const char *denied_fn(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++)
		if (like(name, n, denied[i]))
			return denied[i];
	return NULL;
}

/* What a refused function does, for the message. */
static const char *why_denied(const char *name, size_t n)
{
	if (like(name, n, "set_config"))
		return "changes the server's settings, read-only ones among them";
	if (like(name, n, "lo_*") || like(name, n, "lowrite"))
		return "reads or writes the server's files and large objects";
	if (like(name, n, "pg_read*") || like(name, n, "pg_ls_*") || like(name, n, "pg_file_*") ||
	    like(name, n, "pg_stat_file") || like(name, n, "pg_logdir_ls"))
		return "reads or writes the server's files";
	if (like(name, n, "dblink*"))
		return "reaches another connection, which no read-only transaction binds";
	if (like(name, n, "*xml*") || like(name, n, "ts_stat"))
		return "runs SQL given as text";
	return "acts on the server";
}

/* The statement's tokens: a call of a refused function, or a token PostgreSQL reads
   otherwise than suql's lexer. */
static SuqlStatus scan(const Stmt *st, const char *sql, size_t len, SuqlErr *err)
{
	Lexer lx;
	lex_init(&lx, st->text, st->text_len, 0);
	Token prev = {0}, t;
	for (; (t = lex_next(&lx)).type != TK_EOF; prev = t) {
		const char *s = st->text + t.off;
		size_t at = st->text_off + t.off;
		if (t.type == TK_LP && (prev.type == TK_ID || prev.type == TK_QID)) {
			const char *name = st->text + prev.off;
			size_t n = prev.len;
			if (prev.type == TK_QID && n >= 2) {   /* "set_config"(...) */
				name++;
				n -= 2;
			}
			if (denied_fn(name, n))
				return err_at(err, SUQL_ERROR, sql, len, st->text_off + prev.off, prev.len,
				              "a role without the right to write is the boundary that holds "
				              "(doc/postgres.md, \"Read-only mode\")",
				              "read-only mode (--readonly) refuses %.*s(): it %s", (int)n, name,
				              why_denied(name, n));
		}
		/* E'...': PostgreSQL reads backslash escapes (E'\'' is one quote), suql's lexer
		   does not, so the two would see different statements */
		if (t.type == TK_STRING && prev.type == TK_ID && prev.len == 1 &&
		    (st->text[prev.off] | 0x20) == 'e' && prev.off + 1 == t.off)
			return err_at(err, SUQL_ERROR, sql, len, st->text_off + prev.off, t.len + 1,
			              "write the string without E, a quote inside it doubled ('it''s')",
			              "read-only mode (--readonly) refuses an escape string (E'...'): "
			              "PostgreSQL reads its backslashes, suql does not");
		/* $tag$...$tag$ is a string to PostgreSQL, parameters or names to suql */
		if (t.type == TK_VARIABLE && s[0] == '$' && strspn(s + 1, "0123456789") + 1 != t.len)
			return err_at(err, SUQL_ERROR, sql, len, at, t.len,
			              "write the string in single quotes, a quote inside it doubled",
			              "read-only mode (--readonly) refuses a dollar-quoted string: "
			              "PostgreSQL and suql would read the statement differently");
	}
	return SUQL_OK;
}

static int is_lead(const Stmt *st, Keyword kw)
{
	return st->kind == ST_OTHER && st->lead == kw;
}

int exec_pg_ro_txn_control(const Stmt *st)
{
	return is_lead(st, KW_BEGIN) || is_lead(st, KW_COMMIT) || is_lead(st, KW_END) ||
	       is_lead(st, KW_ROLLBACK) || is_lead(st, KW_SAVEPOINT) || is_lead(st, KW_RELEASE);
}

SuqlStatus exec_pg_ro_refuse(Engine *e, const Ast *ast, const char *sql, size_t len,
                             SuqlErr *err)
{
	(void)e;
	const Stmt *st = ast->stmt;
	if (is_lead(st, KW_BEGIN) && st->read_write.len > 0)
		return err_at(err, SUQL_ERROR, sql, len, st->read_write.off, st->read_write.len,
		              "write BEGIN without READ WRITE: its transaction is read-only here",
		              "read-only mode (--readonly) refuses a transaction that may write "
		              "(READ WRITE)");
	/* (EXPLAIN ANALYZE runs its statement in the read-only transaction, which refuses a
	   write; ANALYZE alone writes the statistics, which the transaction allows) */
	if (!st->explain && (is_lead(st, KW_ANALYZE) || is_lead(st, KW_VACUUM) ||
	                     is_lead(st, KW_REINDEX)))
		return err_at(err, SUQL_ERROR, sql, len, st->text_off,
		              strlen(lex_keyword_name(st->lead)), NULL, "read-only mode (--readonly) "
		              "refuses %s: it writes the server's statistics or storage",
		              lex_keyword_name(st->lead));
	return scan(st, sql, len, err);
}

/* The values of transaction_read_only and default_transaction_read_only: 1 each is on, 0
   off; -1 when they cannot be read (a transaction that failed). */
static int settings(Engine *e, int *txn, int *dflt)
{
	StoreCursor *c;
	*txn = *dflt = -1;
	if (store_query(e->store, "SELECT current_setting('transaction_read_only'), "
	                "current_setting('default_transaction_read_only')", NULL, 0, &c,
	                NULL) != SUQL_OK)
		return -1;
	if (store_next(c) > 0) {
		*txn = store_text(c, 0) && strcmp(store_text(c, 0), "on") == 0;
		*dflt = store_text(c, 1) && strcmp(store_text(c, 1), "on") == 0;
	}
	store_done(c);
	return *txn < 0 ? -1 : 0;
}

SuqlStatus exec_pg_ro_lock(Engine *e, int user, SuqlErr *err)
{
	int txn, dflt;
	if (user && store_exec(e->store, "SET TRANSACTION READ ONLY", err) != SUQL_OK) {
		store_exec(e->store, "ROLLBACK", NULL);
		return SUQL_ERROR;
	}
	/* the query takes the transaction's snapshot: its mode is fixed from here on */
	if (settings(e, &txn, &dflt) != 0 || !txn) {
		if (user)   /* suql's own transaction ends with its statement (exec_pg.c) */
			store_exec(e->store, "ROLLBACK", NULL);
		return err_set(err, SUQL_ERROR, "read-only mode (--readonly): the transaction could "
		               "not be made read-only, so it was rolled back");
	}
	return SUQL_OK;
}

SuqlStatus exec_pg_ro_verify(Engine *e, int check_default, SuqlErr *err)
{
	int txn, dflt;
	if (store_pg_in_failed_transaction(e->store))
		return SUQL_OK;   /* nothing runs there but ROLLBACK, which undoes any change */
	if (settings(e, &txn, &dflt) == 0 && txn && (dflt || !check_default))
		return SUQL_OK;
	/* a rollback undoes a setting changed in the transaction, and what it wrote (it could
	   not: it was read-only from its start) */
	if (store_pg_in_transaction(e->store))
		store_exec(e->store, "ROLLBACK", NULL);
	if (check_default)
		store_exec(e->store, "SET default_transaction_read_only = on", NULL);
	return err_set(err, SUQL_ERROR, "read-only mode (--readonly): a statement turned the "
	               "server's read-only setting off (%s); suql rolled its transaction back "
	               "and set it on again", !txn ? "transaction_read_only"
	               : "default_transaction_read_only");
}

SuqlStatus exec_pg_ro_before(Engine *e, const Ast *ast, SuqlErr *err)
{
	const Stmt *st = ast->stmt;
	/* the user's transaction: made read-only at its BEGIN, and still so */
	if (!store_pg_in_transaction(e->store) || store_pg_in_failed_transaction(e->store) ||
	    is_lead(st, KW_ROLLBACK))
		return SUQL_OK;
	return exec_pg_ro_verify(e, 1, err);
}

SuqlStatus exec_pg_ro_after(Engine *e, const Ast *ast, SuqlStatus s, SuqlErr *err)
{
	const Stmt *st = ast->stmt;
	if (s == SUQL_OK && is_lead(st, KW_BEGIN) && store_pg_in_transaction(e->store))
		return exec_pg_ro_lock(e, 1, err);
	SuqlErr v = {0};
	if (exec_pg_ro_verify(e, 1, &v) == SUQL_OK)
		return s;
	/* the statement's own error stays first when it had one */
	if (s == SUQL_OK) {
		err_copy(err, &v);
		err_clear(&v);
		return SUQL_ERROR;
	}
	err_clear(&v);
	return s;
}
