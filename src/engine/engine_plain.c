/*
 * engine_plain.c: plain SQL straight to SQLite. A statement that suql would hand to SQLite
 * unchanged (no SUQL syntax, over a database whose catalog holds no ENUM and no list
 * column) is prepared from the user's own text, without suql's lexer, parser, binder and
 * printer: a script of many small statements (a load of INSERTs, sqllogictest's scripts)
 * otherwise spends as long in them as SQLite spends preparing (doc/speed.md).
 *
 * The check is conservative, one pass over the bytes: the statement starts with SELECT,
 * INSERT, UPDATE, DELETE, REPLACE, VALUES, WITH, BEGIN, COMMIT or END; it holds none of the
 * characters SUQL's forms and parameters need (`:` `@` `$` `?` `#` `[` `]` `&&`, bytes
 * past ASCII outside quotes) and none of the words the parser or the binder treat
 * specially (answer, summary, matches, bm25, unnest, ARRAY, INTERVAL, ILIKE, ANY, SOME,
 * TRUE, FALSE, FREE_TEXT, ENUM, and any name starting with suql_, suql's own tables and
 * functions); and the statement ends where suql's lexer ends it (the first ';' outside
 * quotes and comments). Whether the catalog has ENUM or list columns, or a trigger that
 * writes suql's tables, is asked once and kept while the schema cookie, the data version
 * and the count of statements run by the full path hold.
 *
 * Anything else takes the full path (engine.c), and so does a statement SQLite will not
 * prepare as written (a mistake, a refusal in read-only mode): the full path reports it
 * with its place and caret, exactly as before. The sink sees the same columns and rows;
 * nothing else is shown for a plain statement (no parsed text unless the sink asks for it
 * always, no plan, no counters). `:set fast_path off` sends every statement through the
 * full path; SUQL_TRACE_SQL prints each statement taken here as "suql plain: ...".
 */
#include "engine/bind_int.h"
#include "engine/engine_int.h"
#include "engine/record_int.h"
#include "sql/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum PlainKind { PK_NONE, PK_DML, PK_TXN } PlainKind;

static int lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* s[0..n) equals the lower-case word w, case-insensitively. */
static int word_is(const char *s, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (!w[i] || lower((unsigned char)s[i]) != w[i])
			return 0;
	return w[n] == 0;
}

static int suql_prefix(const char *s, size_t n)
{
	return n >= 5 && lower((unsigned char)s[0]) == 's' && lower((unsigned char)s[1]) == 'q' &&
	       lower((unsigned char)s[2]) == 'u' && lower((unsigned char)s[3]) == 'l' &&
	       s[4] == '_';
}

/* A word the parser or the binder reads as SUQL. */
static int suql_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"answer", "summary", "matches", "bm25", "unnest", "array", "interval", "ilike",
		"any", "some", "true", "false", "free_text", "enum",
	};
	if (suql_prefix(s, n))
		return 1;
	if (n < 3 || n > 9)
		return 0;
	int c = lower((unsigned char)s[0]);
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (words[i][0] == c && word_is(s, n, words[i]))
			return 1;
	return 0;
}

/* What the first word makes of the statement. */
static PlainKind first_word(const char *s, size_t n)
{
	static const char *const dml[] = {"select", "insert", "update", "delete", "replace",
	                                  "values", "with"};
	for (size_t i = 0; i < sizeof dml / sizeof *dml; i++)
		if (word_is(s, n, dml[i]))
			return PK_DML;
	if (word_is(s, n, "begin") || word_is(s, n, "commit") || word_is(s, n, "end"))
		return PK_TXN;
	return PK_NONE;
}

static int word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The kind of the first statement of s[0..len), and where it ends (after its ';', or len),
   or PK_NONE when the full path must run it. */
static PlainKind scan(const char *s, size_t len, size_t *end)
{
	PlainKind kind = PK_NONE;
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
			i++;
		} else if (word_char(c)) {
			size_t j = i + 1;
			while (j < len && word_char((unsigned char)s[j]))
				j++;
			if (c >= '0' && c <= '9') {   /* a number: 1.5e10, 0x1F */
				while (j < len && (word_char((unsigned char)s[j]) || s[j] == '.'))
					j++;
			} else if (kind == PK_NONE) {
				kind = first_word(s + i, j - i);
				if (kind == PK_NONE)
					return PK_NONE;
			} else if (suql_word(s + i, j - i)) {
				return PK_NONE;
			}
			i = j;
		} else if (c == '\'' || c == '"' || c == '`') {
			size_t j = i + 1;
			for (;;) {   /* a doubled quote stands for itself */
				while (j < len && (unsigned char)s[j] != c)
					j++;
				if (j >= len)
					return PK_NONE;   /* unterminated: the parser says so */
				if (j + 1 < len && (unsigned char)s[j + 1] == c) {
					j += 2;
					continue;
				}
				break;
			}
			if (kind == PK_NONE || suql_prefix(s + i + 1, j - i - 1) ||
			    memchr(s + i + 1, 0, j - i - 1))
				return PK_NONE;
			i = j + 1;
		} else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *close = NULL;
			for (size_t j = i + 2; j + 1 < len; j++)
				if (s[j] == '*' && s[j + 1] == '/') {
					close = s + j;
					break;
				}
			if (!close)
				return PK_NONE;
			i = (size_t)(close - s) + 2;
		} else if (c == ';') {
			*end = i + 1;
			return kind;
		} else if (c == '&' && i + 1 < len && s[i + 1] == '&') {
			return PK_NONE;
		} else if (strchr("(),.+-*/%<>=!|~&", c) && c) {
			if (kind == PK_NONE)
				return PK_NONE;
			i++;
		} else {   /* : @ $ ? # [ ] NUL, bytes past ASCII, anything else */
			return PK_NONE;
		}
	}
	*end = len;
	return kind;
}

/* Whether text[0..len) is one complete statement, by the same one pass: 1 when it is one
   statement whose ';' comes last (only blanks after it), -1 when that pass cannot tell
   (several statements, a trigger body, brackets, TCL-style variables, no ';' at all):
   the lexer decides then. */
int engine_plain_complete(const char *s, size_t len)
{
	size_t i = 0;
	int first = 1;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
			i++;
		} else if (word_char(c)) {
			size_t j = i + 1;
			while (j < len && word_char((unsigned char)s[j]))
				j++;
			if (first && (word_is(s + i, j - i, "create") || word_is(s + i, j - i, "explain")))
				return -1;   /* CREATE TRIGGER's body holds ';' */
			first = 0;
			i = j;
		} else if (c == '\'' || c == '"' || c == '`') {
			size_t j = i + 1;
			while (j < len && (unsigned char)s[j] != c)
				j++;
			if (j >= len)
				return -1;
			i = j + 1;   /* a doubled quote reads as two strings here: the same ends */
		} else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			size_t j = i + 2;
			while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/'))
				j++;
			if (j + 1 >= len)
				return -1;
			i = j + 2;
		} else if (c == ';') {
			for (i++; i < len; i++)
				if (!(s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f'))
					return -1;
			return 1;
		} else if (c == '[' || c == '$' || c >= 0x80 || c == 0) {
			return -1;
		} else {
			first = 0;
			i++;
		}
	}
	return -1;
}

/* ---- the catalog ---- */

static long long schema_cookie(Engine *e)
{
	long long v = -1;
	if (!e->plain.cookie &&
	    sqlite3_prepare_v3(e->db, "PRAGMA schema_version", -1, SQLITE_PREPARE_PERSISTENT,
	                       &e->plain.cookie, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(e->plain.cookie) == SQLITE_ROW)
		v = sqlite3_column_int64(e->plain.cookie, 0);
	sqlite3_reset(e->plain.cookie);
	return v;
}

/* Nothing in the database makes suql change a plain statement: no ENUM column (its '='
   classifies), no list column (JSON output reads it as an array), no trigger that names
   suql's tables (a plain write could change the catalog through it). */
static int catalog_plain(Engine *e)
{
	int ok = 1;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(e->db, "SELECT type FROM suql_catalog", -1, &st, NULL) ==
	    SQLITE_OK) {
		while (ok && sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			CatColumn c = {0};
			SuqlErr err = {0};
			int r = catalog_parse_type(t ? t : "", &c, &err);
			if (r < 0 || (r > 0 && (c.is_enum || c.is_array)))
				ok = 0;
			catalog_column_free(&c);
			err_clear(&err);
		}
	}
	sqlite3_finalize(st);
	if (ok && sqlite3_prepare_v2(e->db, "SELECT 1 FROM sqlite_schema WHERE type = 'trigger' "
	                             "AND sql LIKE '%suql\\_%' ESCAPE '\\'", -1, &st, NULL) ==
	              SQLITE_OK) {
		ok = sqlite3_step(st) != SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return ok;
}

/* The answer of catalog_plain, kept. In autocommit mode it is checked against the schema
   cookie and the data version before every statement. Inside a transaction, once checked
   there, the database can change only through this connection: by a statement of the full
   path (counted), or by a write that is not one of the fast path's own (suql's meta-commands
   and imports write rows as they create tables: the connection's count of changes moves). */
static int catalog_ok(Engine *e)
{
	EnginePlain *p = &e->plain;
	int in_txn = !sqlite3_get_autocommit(e->db);
	if (p->known && in_txn && p->txn_checked && p->full_seen == p->full &&
	    sqlite3_total_changes64(e->db) == p->changes_seen)
		return p->ok;
	p->txn_checked = in_txn;
	long long cookie = schema_cookie(e);
	unsigned int dv = 0;
	if (cookie < 0 ||
	    sqlite3_file_control(e->db, "main", SQLITE_FCNTL_DATA_VERSION, &dv) != SQLITE_OK)
		return p->known = 0;
	if (!p->known || p->cookie_seen != cookie || p->dv_seen != dv || p->full_seen != p->full) {
		p->ok = catalog_plain(e);
		p->known = 1;
		p->cookie_seen = cookie;
		p->dv_seen = dv;
		p->full_seen = p->full;
	}
	return p->ok;
}

/* ---- the statement ---- */

int engine_plain_run(Engine *e, const char *sql, size_t len, size_t *used,
                     const EngineSink *sink, SuqlStatus *status, SuqlErr *err)
{
	if (!e->set.fast_path || e->pg || (sink && sink->parsed && !sink->parsed_if_freetext))
		return 0;
	size_t end = 0;
	PlainKind kind = scan(sql, len, &end);
	if (kind == PK_NONE || end > PARSE_MAX_INPUT || !catalog_ok(e))
		return 0;
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	e->guard = e->readonly;
	/* SQLite copies a text that does not end with a NUL (with its own allocator, under
	   its mutex); copied once into a buffer kept from statement to statement, it need
	   not */
	EnginePlain *p = &e->plain;
	if (end + 1 > p->cap) {
		p->cap = end + 1 > 256 ? end + 1 : 256;
		free(p->buf);
		p->buf = xmalloc(p->cap);
	}
	memcpy(p->buf, sql, end);
	p->buf[end] = 0;
	int rc = sqlite3_prepare_v3(e->db, p->buf, (int)end + 1, 0, &st, &tail);
	e->guard = 0;
	if (rc != SQLITE_OK || !st || tail != p->buf + end) {
		/* the full path prepares it again and reports what SQLite says, in place */
		sqlite3_finalize(st);
		e->denied = NULL;
		return 0;
	}
	static int trace = -1;
	if (trace < 0)
		trace = getenv("SUQL_TRACE_SQL") != NULL;
	if (trace) {   /* one line, as the full path's trace */
		fputs("suql plain: ", stderr);
		for (size_t i = 0; i < end; i++)
			fputc(sql[i] == '\n' || sql[i] == '\r' ? ' ' : sql[i], stderr);
		fputc('\n', stderr);
	}
	p->taken++;
	*used = end;
	if (kind == PK_DML) {   /* as a plain statement through the executor: nothing to explain */
		exec_record_free(e->record);
		e->record = NULL;
	}
	if (sink && sink->columns && sqlite3_column_count(st) > 0)
		sink->columns(sink->ctx, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sink && sink->row && sink->row(sink->ctx, st))
			break;
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_INTERRUPT || (rc != SQLITE_ROW && rc != SQLITE_DONE && suql_interrupted))
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		s = err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(e->db));
	sqlite3_finalize(st);
	p->changes_seen = sqlite3_total_changes64(e->db);
	if (kind == PK_TXN) {   /* as engine.c does after a statement it runs itself */
		p->txn_checked = 0;
		bind_scope_tabs_check(e, 1);
	}
	*status = s;
	return 1;
}

void engine_plain_free(Engine *e)
{
	sqlite3_finalize(e->plain.cookie);
	e->plain.cookie = NULL;
	free(e->plain.buf);
	e->plain.buf = NULL;
	e->plain.cap = 0;
}
