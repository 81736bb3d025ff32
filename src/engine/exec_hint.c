/*
 * exec_hint.c: making SQLite's "no such table" and "no such column" errors precise. SQLite
 * gives no position for an unknown table, so the name is looked up among the tokens of the
 * user's statement to put a caret under it; and a name that is close to one the database
 * has ("restaurant" for "restaurants", "nme" for "name") earns a hint.
 */
#include "base/text.h"
#include "engine/sql_int.h"
#include "sql/lex.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A lower-cased (ASCII) copy of n bytes of s. Heap string. */
static char *lower_dup(const char *s, size_t n)
{
	char *v = xstrndup(s, n);
	for (char *p = v; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return v;
}

/* The unquoted, lower-cased text of an identifier token ("Foo" -> foo). Heap string. */
static char *token_name(const char *src, Token t)
{
	const char *s = src + t.off;
	size_t n = t.len;
	if (t.type == TK_QID && n >= 2) {
		s++;
		n -= 2;
	}
	return lower_dup(s, n);
}

/* Where the identifier name (possibly schema.name: the last part counts) first appears
   in src; -1 when it does not. */
static long find_name(const char *src, size_t len, const char *name, size_t *tlen)
{
	const char *dot = strrchr(name, '.');
	const char *want = dot ? dot + 1 : name;
	Lexer lx;
	lex_init(&lx, src, len, 0);
	for (;;) {
		Token t = lex_next(&lx);
		if (t.type == TK_EOF || t.type == TK_ILLEGAL || t.type == TK_UNTERM_STRING ||
		    t.type == TK_UNTERM_QID)
			return -1;
		if (t.type != TK_ID && t.type != TK_QID)
			continue;
		char *v = token_name(src, t);
		int hit = strcasecmp(v, want) == 0;
		free(v);
		if (hit) {
			*tlen = t.len;
			return (long)t.off;
		}
	}
}

/* The name among those the query lists that is closest to name, if it is close enough to
   be a likely typo: at most a third of its letters differ. Heap string or NULL. */
static char *closest(sqlite3 *db, const char *query, const char *name)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	char *best = NULL;
	int bestd = 0;
	size_t n = strlen(name);
	int limit = n < 4 ? 1 : (int)(n / 3) + 1;
	char *low = lower_dup(name, n);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (!c)
			continue;
		char *cl = lower_dup(c, strlen(c));
		int d = text_edit_distance(low, cl);
		free(cl);
		if (d > 0 && d <= limit && (!best || d < bestd)) {
			free(best);
			best = xstrdup(c);
			bestd = d;
		}
	}
	sqlite3_finalize(st);
	free(low);
	return best;
}

static const char *const TABLES_Q =
	"SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
	"AND name NOT LIKE 'suql\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
	"ORDER BY name";
static const char *const COLUMNS_Q =
	"SELECT DISTINCT p.name FROM sqlite_schema AS s, pragma_table_info(s.name) AS p "
	"WHERE s.type IN ('table', 'view') AND s.name NOT LIKE 'suql\\_%' ESCAPE '\\' "
	"AND s.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY p.name";

SuqlStatus exec_hint_name_error(sqlite3 *db, const char *msg, const char *sql, size_t len,
                           long off, size_t tlen, SuqlErr *err)
{
	static const char TPFX[] = "no such table: ", CPFX[] = "no such column: ";
	char *hint = NULL;
	if (strncmp(msg, TPFX, sizeof TPFX - 1) == 0) {
		const char *name = msg + sizeof TPFX - 1;
		if (off < 0)
			off = find_name(sql, len, name, &tlen);
		const char *dot = strrchr(name, '.');
		char *c = closest(db, TABLES_Q, dot ? dot + 1 : name);
		if (c)
			hint = xprintf("did you mean %s?", c);
		free(c);
	} else if (strncmp(msg, CPFX, sizeof CPFX - 1) == 0) {
		const char *name = msg + sizeof CPFX - 1;
		const char *dot = strrchr(name, '.');
		char *c = closest(db, COLUMNS_Q, dot ? dot + 1 : name);
		if (c)
			hint = xprintf("did you mean %s?", c);
		free(c);
	}
	SuqlStatus s = off >= 0 ? err_at(err, SUQL_ERROR, sql, len, (size_t)off, tlen, hint, "%s",
	                                 msg)
	                        : err_set(err, SUQL_ERROR, "%s%s%s", msg, hint ? "\nhint: " : "",
	                                  hint ? hint : "");
	free(hint);
	return s;
}
