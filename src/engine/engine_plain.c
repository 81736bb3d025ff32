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
 * specially (the operators' SQL functions, answer, summary, matches, bm25 ..., as their
 * rows name them: op_sql_word; unnest, ARRAY, INTERVAL, ILIKE, ANY, SOME, TRUE, FALSE,
 * FREE_TEXT, ENUM, and any name starting with suql_, suql's own tables and functions);
 * and the statement ends where suql's lexer ends it (the first ';' outside
 * quotes and comments). Whether the catalog has ENUM or list columns, a trigger that
 * writes suql's tables or a view that calls suql's functions, is asked once and kept:
 * while only fast statements run, nothing is asked before a statement, and another
 * connection's commit is seen by the statement's own lock, through the pager's data
 * version, before a row is shown or its write is committed (catalog_quick, plain_raced,
 * the commit hook). Then, and after anything suql ran itself, it is asked again.
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
	return n >= 5 && word_is(s, 4, "suql") && s[4] == '_';
}

/* A word the parser or the binder reads as SUQL (by its length, the candidates). */
static int suql_word(const char *s, size_t n)
{
	static const char *const by_len[10][4] = {
		[3] = {"any"},
		[4] = {"some", "true", "enum"},
		[5] = {"array", "ilike", "false"},
		[6] = {"unnest"},
		[8] = {"interval"},
		[9] = {"free_text"},
	};
	if (n < 3 || n > 9)
		return suql_prefix(s, n);
	if (suql_prefix(s, n))
		return 1;
	int c = lower((unsigned char)s[0]);
	for (int i = 0; i < 4 && by_len[n][i]; i++)
		if (by_len[n][i][0] == c && word_is(s, n, by_len[n][i]))
			return 1;
	return 0;
}

/* What the first word makes of the statement. */
static PlainKind first_word(const char *s, size_t n)
{
	static const char *const dml[] = {"select", "insert", "update", "delete", "replace",
	                                  "values", "with"};
	if (n < 3 || n > 7)
		return PK_NONE;
	for (size_t i = 0; i < sizeof dml / sizeof *dml; i++)
		if (word_is(s, n, dml[i]))
			return PK_DML;
	if (word_is(s, n, "begin") || word_is(s, n, "commit") || word_is(s, n, "end"))
		return PK_TXN;
	return PK_NONE;
}

/* Byte classes of the scan. C_OTHER: anything that needs suql's lexer (: @ $ ? # [ ],
   NUL, bytes past ASCII, controls); C_PLAIN: blanks, digits and operators, which the scan
   steps over. */
enum { C_OTHER, C_PLAIN, C_WORD, C_QUOTE, C_DASH, C_SLASH, C_SEMI, C_AMP };
static unsigned char cls[256];
static unsigned char suql_first[256];   /* a letter that starts a word of suql_word */
static unsigned char wordch[256];       /* a letter, digit or '_' */
static unsigned char ends_nothing[256]; /* engine_plain_complete steps over it */

static void classes(void)
{
	if (cls[' '])
		return;
	for (int c = 'a'; c <= 'z'; c++)
		cls[c] = cls[c - 32] = C_WORD;
	cls['_'] = C_WORD;
	for (const char *p = " \n\t\r\f0123456789(),.+*%<>=!|~"; *p; p++)
		cls[(unsigned char)*p] = C_PLAIN;
	cls['\''] = cls['"'] = cls['`'] = C_QUOTE;
	cls['-'] = C_DASH;
	cls['/'] = C_SLASH;
	cls[';'] = C_SEMI;
	cls['&'] = C_AMP;
	for (const char *p = "absmuitfe"; *p; p++)
		suql_first[(unsigned char)*p] = suql_first[(unsigned char)*p - 32] = 1;
	for (int c = 0; c < 256; c++) {
		wordch[c] = cls[c] == C_WORD || (c >= '0' && c <= '9');
		ends_nothing[c] = cls[c] == C_PLAIN || cls[c] == C_WORD || cls[c] == C_AMP ||
		                  c == '?';
	}
}

static int is_blank(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'; }

static size_t word_end(const char *s, size_t i, size_t len)
{
	while (i < len && wordch[(unsigned char)s[i]])
		i++;
	return i;
}

/* After the quote at s[i]: the offset past its closing quote (a doubled quote stands for
   itself), or 0 when it is not closed. */
static size_t quote_end(const char *s, size_t i, size_t len)
{
	char q = s[i];
	for (i++;; i += 2) {
		const char *e = memchr(s + i, q, len - i);
		if (!e)
			return 0;
		i = (size_t)(e - s);
		if (i + 1 >= len || s[i + 1] != q)
			return i + 1;
	}
}

/* After the comment at s[i] ('--' or a block): the offset past it, 0 when a block is not
   closed, i itself when s[i] starts no comment. */
static size_t comment_end(const char *s, size_t i, size_t len)
{
	if (i + 1 >= len)
		return i;
	if (s[i] == '-' && s[i + 1] == '-') {
		const char *nl = memchr(s + i, '\n', len - i);
		return nl ? (size_t)(nl - s) : len;
	}
	if (s[i] == '/' && s[i + 1] == '*') {
		for (i += 2; i + 1 < len; i++)
			if (s[i] == '*' && s[i + 1] == '/')
				return i + 2;
		return 0;
	}
	return i;
}

/* Past blanks and comments from s[i]; 0 for an unclosed block comment. */
static size_t skip_blank(const char *s, size_t i, size_t len)
{
	for (;;) {
		while (i < len && is_blank(s[i]))
			i++;
		size_t j = comment_end(s, i, len);
		if (j == i || j == 0)
			return j;
		i = j;
	}
}

/* The kind of the first statement of s[0..len), and where it ends (after its ';', or len),
   or PK_NONE when the full path must run it. */
static PlainKind scan(const char *s, size_t len, size_t *end)
{
	classes();
	size_t i = skip_blank(s, 0, len), j;
	if (!i && len && is_blank(s[0]))
		return PK_NONE;
	if (i >= len || cls[(unsigned char)s[i]] != C_WORD)
		return PK_NONE;
	j = word_end(s, i + 1, len);
	PlainKind kind = first_word(s + i, j - i);
	if (kind == PK_NONE)
		return PK_NONE;
	for (i = j;;) {
		while (i < len && cls[(unsigned char)s[i]] == C_PLAIN)
			i++;
		if (i >= len)
			break;
		switch (cls[(unsigned char)s[i]]) {
		case C_WORD:
			j = word_end(s, i + 1, len);
			if ((suql_first[(unsigned char)s[i]] && suql_word(s + i, j - i)) ||
			    op_sql_word(s + i, j - i))   /* an operator's SQL function (op.c) */
				return PK_NONE;
			i = j;
			break;
		case C_QUOTE:
			j = quote_end(s, i, len);
			if (!j || suql_prefix(s + i + 1, j - i - 2) || memchr(s + i + 1, 0, j - i - 2))
				return PK_NONE;   /* unterminated: the parser says so */
			i = j;
			break;
		case C_DASH:
		case C_SLASH:
			j = comment_end(s, i, len);
			if (!j)
				return PK_NONE;
			i = j == i ? i + 1 : j;
			break;
		case C_SEMI:
			*end = i + 1;
			return kind;
		case C_AMP:
			if (i + 1 < len && s[i + 1] == '&')
				return PK_NONE;
			i++;
			break;
		default:
			return PK_NONE;
		}
	}
	*end = len;
	return kind;
}

/* The last text engine_plain_complete found to be one plain statement, whole: the REPL
   asks whether its buffer is complete and then runs the same bytes, which engine_plain_run
   then need not scan again (it compares them; a statement longer than the copy is
   scanned again). */
static struct {
	char text[2048];
	size_t len, end;
	PlainKind kind;
} last;

static PlainKind scan_kept(const char *s, size_t len, size_t *end)
{
	if (last.kind != PK_NONE && len == last.len && memcmp(s, last.text, len) == 0) {
		*end = last.end;
		return last.kind;
	}
	return scan(s, len, end);
}

/* Whether text[0..len) is one complete statement, by the same classes: 1 when it is one
   statement whose ';' comes last (only blanks after it), -1 when this look cannot tell
   (several statements, a trigger body, brackets, TCL-style variables, no ';' at all):
   the lexer decides then. A plain statement (scan) is found whole the same way, ending
   at its first ';', and kept for engine_plain_run. */
int engine_plain_complete(const char *s, size_t len)
{
	size_t i, j;
	PlainKind kind = len < sizeof last.text ? scan(s, len, &j) : PK_NONE;
	if (kind != PK_NONE && j > 0 && s[j - 1] == ';') {
		for (i = j; i < len && is_blank(s[i]); i++)
			;
		if (i == len) {
			memcpy(last.text, s, len);
			last.len = len;
			last.end = j;
			last.kind = kind;
			return 1;
		}
	}
	classes();
	i = skip_blank(s, 0, len);
	if ((!i && len && is_blank(s[0])) || i >= len)
		return -1;
	if (cls[(unsigned char)s[i]] == C_WORD) {
		j = word_end(s, i + 1, len);
		if (word_is(s + i, j - i, "create") || word_is(s + i, j - i, "explain"))
			return -1;   /* CREATE TRIGGER's body holds ';' */
		i = j;
	}
	for (;;) {
		while (i < len && ends_nothing[(unsigned char)s[i]])
			i++;
		if (i >= len)
			return -1;
		switch (cls[(unsigned char)s[i]]) {
		case C_QUOTE:
			if (!(i = quote_end(s, i, len)))
				return -1;
			break;
		case C_DASH:
		case C_SLASH:
			j = comment_end(s, i, len);
			if (!j)
				return -1;
			i = j == i ? i + 1 : j;
			break;
		case C_SEMI:
			for (i++; i < len; i++)
				if (!is_blank(s[i]))
					return -1;
			return 1;
		default: {
			unsigned char c = (unsigned char)s[i];
			if (c == '[' || c == '$' || c >= 0x80 || c == 0)
				return -1;
			/* a parameter named after : @ # (as after $) may go on in SQLite's TCL form,
			   :a(x';) or :a::b, whose bytes hold quotes and ';' (fuzz_plain found it) */
			if ((c == ':' || c == '@' || c == '#') && i + 1 < len &&
			    wordch[(unsigned char)s[i + 1]])
				return -1;
			i++;   /* a lone : @ # and controls end no statement */
			break;
		}
		}
	}
}

/* ---- the catalog ---- */

/* The schema cookie, read by stepping the kept PRAGMA, which opens a read transaction
   when none is open. With hold, the PRAGMA is left stepped, so that the read transaction
   stays open until plain_release: a read-only statement run before that runs in the same
   transaction and takes no lock of its own (sqlite3 takes one per statement; suql took
   two, doc/speed.md). */
static long long schema_cookie(Engine *e, int hold)
{
	long long v = -1;
	if (!e->plain.cookie &&
	    sqlite3_prepare_v3(e->db, "PRAGMA schema_version", -1, SQLITE_PREPARE_PERSISTENT,
	                       &e->plain.cookie, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(e->plain.cookie) == SQLITE_ROW)
		v = sqlite3_column_int64(e->plain.cookie, 0);
	e->plain.held = hold && v >= 0;
	if (!e->plain.held)
		sqlite3_reset(e->plain.cookie);
	return v;
}

/* Ends the read transaction schema_cookie held open (nothing when none is). */
static void plain_release(Engine *e)
{
	if (e->plain.held)
		sqlite3_reset(e->plain.cookie);
	e->plain.held = 0;
}

/* A write in autocommit mode runs in a transaction of its own, begun before the catalog
   check: BEGIN IMMEDIATE takes the locks the write would take (and waits for another
   writer within the busy timeout), so the check reads the schema cookie inside it and
   takes no lock of its own, and the write then takes as many as in the sqlite3 shell
   (doc/speed.md). T_BEGIN, T_COMMIT or T_ROLLBACK; 0 when it ran. */
enum { T_BEGIN, T_COMMIT, T_ROLLBACK };
static int plain_txn(Engine *e, int which)
{
	static const char *const sql[] = {"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"};
	sqlite3_stmt **st = &e->plain.txn[which];
	if (!*st && sqlite3_prepare_v3(e->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT, st,
	                               NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(*st);
	sqlite3_reset(*st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Ends the transaction plain_txn began: commits it when commit is set and it is still open
   (a failed statement was rolled back by itself), else rolls it back. The status of the
   statement, or an error when the commit failed (its changes are then rolled back). */
static SuqlStatus plain_end(Engine *e, int commit, SuqlStatus s, SuqlErr *err)
{
	e->plain.txn_checked = 0;
	if (sqlite3_get_autocommit(e->db))
		return s;
	if (commit && s == SUQL_OK && plain_txn(e, T_COMMIT) == 0)
		return s;
	if (commit && s == SUQL_OK)
		s = err_set(err, suql_interrupted ? SUQL_INTERRUPT : SUQL_ERROR, "%s",
		            suql_interrupted ? "interrupted" : sqlite3_errmsg(e->db));
	if (!sqlite3_get_autocommit(e->db))
		plain_txn(e, T_ROLLBACK);
	return s;
}

/* Nothing in the database makes suql change a plain statement: no ENUM column (its '='
   classifies), no list column (JSON output reads it as an array), no trigger that names
   suql's tables (a plain write could change the catalog through it), no view that names
   suql's functions (a plain SELECT of it would call them outside a statement suql runs). */
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
	if (ok && sqlite3_prepare_v2(e->db, "SELECT 1 FROM sqlite_schema WHERE type IN ('trigger', 'view') "
	                             "AND sql LIKE '%suql\\_%' ESCAPE '\\'", -1, &st, NULL) ==
	              SQLITE_OK) {
		ok = sqlite3_step(st) != SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return ok;
}

/* The pager's data version: it moves with every commit to the file, this connection's
   own and, once this connection next takes the file's lock and sees the file changed,
   every other connection's. 0 when it cannot be read. */
static int data_version(Engine *e, unsigned int *dv)
{
	return sqlite3_file_control(e->db, NULL, SQLITE_FCNTL_DATA_VERSION, dv) == SQLITE_OK;
}

/* The answer of catalog_plain, kept against the schema cookie, the data version, the
   count of statements run by the full path and the connection's count of changes (suql's
   meta-commands and imports write rows as they create tables). Inside a transaction, once
   checked there, the database can change only through this connection, which the last
   two count. With hold (a read-only statement in autocommit mode), the read transaction
   the check opened is left open for the statement; the caller ends it with plain_release.
   A write is not run inside it: a connection that holds a read transaction and must wait
   for a writer gets SQLITE_BUSY at once instead of waiting within the busy timeout. */
static int catalog_ok(Engine *e, int hold)
{
	EnginePlain *p = &e->plain;
	int in_txn = !sqlite3_get_autocommit(e->db);
	long long changes = sqlite3_total_changes64(e->db);
	if (p->known && in_txn && p->txn_checked && p->full_seen == p->full &&
	    changes == p->changes_seen)
		return p->ok;
	p->txn_checked = in_txn;
	long long cookie = schema_cookie(e, hold && !in_txn);
	unsigned int dv = 0;
	if (cookie < 0 || !data_version(e, &dv)) {
		plain_release(e);
		return p->known = 0;
	}
	if (!p->known || p->cookie_seen != cookie || p->dv_seen != dv || p->full_seen != p->full ||
	    p->changes_seen != changes) {
		p->ok = catalog_plain(e);
		p->known = 1;
		p->cookie_seen = cookie;
		p->dv_seen = dv;
		p->full_seen = p->full;
		p->changes_seen = changes;
	}
	return p->ok;
}

/* Whether the catalog's answer can be trusted without asking SQLite anything: nothing ran
   since the last fast statement but fast statements (the full path's count, the count of
   changes). In autocommit mode a commit since (another connection's, or one of this
   connection that was not a statement: a meta-command's DDL) is seen once the statement
   has taken the file's lock, by the data version (plain_raced and the commit hook);
   inside a transaction the lock is held from the check made there, so nobody else can
   commit. */
static int catalog_quick(Engine *e, int autocommit)
{
	EnginePlain *p = &e->plain;
	if (!p->known || !p->ok || p->full_seen != p->full ||
	    sqlite3_total_changes64(e->db) != p->changes_seen)
		return 0;
	return autocommit || (p->txn_checked && sqlite3_txn_state(e->db, "main") != SQLITE_TXN_NONE);
}

/* The commit hook, armed for a write in autocommit mode that was let through by
   catalog_quick: another connection's commit, seen when the statement took the file's
   lock, moved the data version, and the catalog may have changed with it (an ENUM column,
   a trigger): the commit becomes a rollback, and the full path runs the statement. */
static int plain_commit_hook(void *ctx)
{
	EnginePlain *p = &((Engine *)ctx)->plain;
	if (!p->armed)
		return 0;
	unsigned int dv;
	p->hook = data_version(ctx, &dv) && dv == p->dv_seen ? 1 : 2;
	return p->hook == 2;
}

/* After the first step of a statement let through by catalog_quick in autocommit mode:
   whether another connection committed before the statement took the file's lock (the
   commit hook said so, or the data version moved without a commit of this one). The
   statement's rows are not shown yet and its changes are not committed (or were rolled
   back by the hook). */
static int plain_raced(Engine *e)
{
	EnginePlain *p = &e->plain;
	if (p->hook)
		return p->hook == 2;
	unsigned int dv;
	return !data_version(e, &dv) || dv != p->dv_seen;
}

/* ---- the statement ---- */

int engine_plain_run(Engine *e, const char *sql, size_t len, size_t *used,
                     const EngineSink *sink, SuqlStatus *status, SuqlErr *err)
{
	if (!e->set.fast_path || !e->dialect->fast_path || (sink && sink->parsed && !sink->parsed_if_freetext))
		return 0;
	size_t end = 0;
	PlainKind kind = scan_kept(sql, len, &end);
	if (kind == PK_NONE || end > PARSE_MAX_INPUT)
		return 0;
	EnginePlain *p = &e->plain;
	int autocommit = sqlite3_get_autocommit(e->db);
	int quick = catalog_quick(e, autocommit);
	/* a catalog last seen not plain is asked again before anything is prepared */
	if (!quick && p->known && !p->ok && !catalog_ok(e, 0))
		return 0;
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	e->guard = e->readonly;
	/* SQLite copies a text that does not end with a NUL (with its own allocator, under
	   its mutex); copied once into a buffer kept from statement to statement, it need
	   not */
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
	int readonly = sqlite3_stmt_readonly(st);
	int own = 0;
	if (!quick) {
		/* the catalog is checked after the statement is prepared (which reads nothing
		   once the schema is loaded), so that a read-only statement can run in the
		   transaction the check opens, and a write in the one it begins */
		own = kind == PK_DML && !readonly && !e->readonly && autocommit &&
		      plain_txn(e, T_BEGIN) == 0;
		if (!catalog_ok(e, kind == PK_DML && readonly)) {
			sqlite3_finalize(st);
			plain_release(e);
			if (own)
				plain_end(e, 0, SUQL_OK, err);
			return 0;
		}
	}
	/* a write in autocommit mode that takes the file's lock itself: the commit hook
	   checks that nobody committed before it did (the hook is set once; unarmed, it lets
	   every commit through) */
	if (!p->hooked) {
		sqlite3_commit_hook(e->db, plain_commit_hook, e);
		p->hooked = 1;
	}
	p->armed = kind == PK_DML && !readonly && autocommit && !own;
	p->hook = 0;
	rc = sqlite3_step(st);
	if (kind == PK_DML && autocommit && (quick || p->armed) && plain_raced(e)) {
		/* nothing shown, nothing committed: the full path runs it under the catalog
		   as it is now (its count makes the next fast statement check again); a
		   statement stopped by Ctrl-C is reported as stopped, not run again */
		sqlite3_finalize(st);
		p->armed = 0;
		e->denied = NULL;
		if (!suql_interrupted)
			return 0;
		*used = end;
		*status = err_set(err, SUQL_INTERRUPT, "interrupted");
		return 1;
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
	Row row;
	store_row_sqlite(&row, st);
	if (sink && sink->columns && sqlite3_column_count(st) > 0)
		sink->columns(sink->ctx, &row);
	for (; rc == SQLITE_ROW; rc = sqlite3_step(st))
		if (sink && sink->row && sink->row(sink->ctx, &row))
			break;
	SuqlStatus s = SUQL_OK;
	if (rc == SQLITE_INTERRUPT || (rc != SQLITE_ROW && rc != SQLITE_DONE && suql_interrupted))
		s = err_set(err, SUQL_INTERRUPT, "interrupted");
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		s = err_set(err, SUQL_ERROR, "%s", sqlite3_errmsg(e->db));
	sqlite3_finalize(st);
	p->armed = 0;
	plain_release(e);
	if (own)
		s = plain_end(e, 1, s, err);
	/* what the next statement compares: the count of changes, and the data version after
	   a commit of this connection, that of a write in autocommit mode or of the COMMIT
	   that ends a transaction (every change since the check was this statement's, made
	   under the lock it was checked under; not so for a BEGIN in autocommit mode, whose
	   IMMEDIATE or EXCLUSIVE takes the lock after the check, and a read or a statement
	   inside a transaction commits nothing) */
	p->changes_seen = sqlite3_total_changes64(e->db);
	unsigned int dv;
	if ((autocommit ? kind == PK_DML && !readonly : kind == PK_TXN) && data_version(e, &dv))
		p->dv_seen = dv;
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
	for (int i = 0; i < 3; i++) {
		sqlite3_finalize(e->plain.txn[i]);
		e->plain.txn[i] = NULL;
	}
	free(e->plain.buf);
	e->plain.buf = NULL;
	e->plain.cap = 0;
}
