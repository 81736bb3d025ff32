/*
 * agent_query.c: the chat agent's handling of queries and results. It reads what the parse
 * step's reply says (a direct answer, a query, or neither), takes the query out of a
 * model's reply, checks it with the SUQL parser (one SELECT and nothing else) and adds the
 * default LIMIT to the tree of a query without one; it keeps a statement's rows as bounded
 * JSON (for the respond prompt and :save) through an EngineSink, and writes the one-line
 * digest of a result that the dialogue carries into later turns.
 */
#include "chat/agent_int.h"

#include "sql/ast.h"
#include "sql/parse.h"
#include "sql/print.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the query in a reply ---- */

/* Drop a leading label such as "SUQL:", "SQL query:" or "Query:". */
static const char *skip_label(const char *s)
{
	static const char *const labels[] = {"suql query:", "sql query:", "suql:", "sql:",
	                                     "query:", NULL};
	for (int i = 0; labels[i]; i++)
		if (strncasecmp(s, labels[i], strlen(labels[i])) == 0)
			return s + strlen(labels[i]);
	return s;
}

/* The query of a JSON object such as {"database": true, "suql": "SELECT ..."}: the first
   of its keys suql, query and sql that holds a string, else NULL. */
static const char *json_query(json_t *o)
{
	static const char *const keys[] = {"suql", "query", "sql", NULL};
	for (int i = 0; keys[i]; i++) {
		json_t *v = json_object_get(o, keys[i]);
		if (json_is_string(v))
			return json_string_value(v);
	}
	return NULL;
}

/* The JSON object a reply holds, when it is one (maybe fenced or after a line of words)
   and has at least one of the keys the parse step's reply uses. NULL otherwise. */
static json_t *reply_object(const char *reply)
{
	const char *brace = strchr(reply, '{');
	/* a brace after a quote is inside a query's string literal, not an object's start */
	if (!brace || memchr(reply, '\'', (size_t)(brace - reply)))
		return NULL;
	json_t *j = json_loads(brace, JSON_DISABLE_EOF_CHECK, NULL);
	if (j && json_is_object(j) &&
	    (json_object_get(j, "database") || json_object_get(j, "reply") || json_query(j)))
		return j;
	json_decref(j);
	return NULL;
}

static char *extract_text(const char *reply);

char *agent_extract_query(const char *reply)
{
	if (!reply)
		return NULL;
	json_t *j = reply_object(reply);
	if (j) {   /* {"suql": "..."}: the query is the string (which may be fenced in turn) */
		const char *q = json_query(j);
		char *out = q ? extract_text(q) : NULL;
		json_decref(j);
		return out;
	}
	return extract_text(reply);
}

/* "yes", "no" or neither (-1) in a JSON value: true, false, or such words as strings. */
static int json_yes_no(json_t *v)
{
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (str_ieq(s, "true") || str_ieq(s, "yes"))
			return 1;
		if (str_ieq(s, "false") || str_ieq(s, "no"))
			return 0;
	}
	return -1;
}

/* Whether text starts as an SQL statement does: with a statement's first keyword, a
   parenthesis or a comment. */
static int starts_statement(const char *t)
{
	static const char *const first[] = {"SELECT", "WITH", "VALUES", "INSERT", "REPLACE",
	                                     "UPDATE", "DELETE", "DROP", "CREATE", "ALTER",
	                                     "PRAGMA", "EXPLAIN", "ATTACH", "DETACH", "VACUUM",
	                                     "ANALYZE", "REINDEX", "BEGIN", "COMMIT", "END",
	                                     "ROLLBACK", "SAVEPOINT", "RELEASE", NULL};
	if (*t == '(' || strncmp(t, "--", 2) == 0 || strncmp(t, "/*", 2) == 0)
		return 1;
	size_t n = 0;
	while (isalpha((unsigned char)t[n]))
		n++;
	for (int i = 0; first[i]; i++)
		if (str_nieq(t, n, first[i]))
			return 1;
	return 0;
}

AgentVerdict agent_read_parse(const char *reply, char **direct, char **query)
{
	*direct = *query = NULL;
	if (!reply)
		return AGENT_UNREAD;
	json_t *j = reply_object(reply);
	if (j) {
		const char *q = json_query(j);
		json_t *rp = json_object_get(j, "reply");
		/* a query given is run whatever "database" says: a search is safer than an answer
		   made up without one */
		*query = q ? extract_text(q) : NULL;
		if (!*query && json_yes_no(json_object_get(j, "database")) == 0 &&
		    json_is_string(rp) && *json_string_value(rp))
			*direct = str_trim_dup(json_string_value(rp));
		json_decref(j);
		if (*direct && !**direct) {
			free(*direct);
			*direct = NULL;
		}
		return *query ? AGENT_QUERY : *direct ? AGENT_DIRECT : AGENT_UNREAD;
	}
	const char *t = reply;
	while (*t && (isspace((unsigned char)*t) || *t == '"' || *t == '*'))
		t++;
	if (strncasecmp(t, "reply:", 6) == 0) {
		char *d = str_trim_dup(t + 6);
		if (*d) {
			*direct = d;
			return AGENT_DIRECT;
		}
		free(d);
		return AGENT_UNREAD;
	}
	/* text that starts like a statement is the query written plainly (the parser and the
	   check judge it, so a DROP TABLE is refused with its name); prose is no query */
	*query = extract_text(reply);
	if (*query && !starts_statement(*query)) {
		free(*query);
		*query = NULL;
	}
	return *query ? AGENT_QUERY : AGENT_UNREAD;
}

int agent_reply_has_query(const char *reply)
{
	char *q = agent_extract_query(reply);
	int yes = q && starts_statement(q);
	free(q);
	return yes;
}

static char *extract_text(const char *reply)
{
	const char *s = reply;
	/* a fenced block anywhere wins: ```sql ... ``` */
	const char *fence = strstr(s, "```");
	size_t n;
	if (fence) {
		const char *body = strchr(fence + 3, '\n');
		body = body ? body + 1 : fence + 3;
		const char *close = strstr(body, "```");
		s = body;
		n = close ? (size_t)(close - body) : strlen(body);
	} else {
		n = strlen(s);
	}
	while (n && isspace((unsigned char)*s))
		s++, n--;
	const char *l = skip_label(s);
	n -= (size_t)(l - s);
	s = l;
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ';'))
		n--;
	if (!n || str_nieq(s, n, "none") || str_nieq(s, n, "none."))
		return NULL;
	return xstrndup(s, n);
}

/* ---- the answer in a short-answer reply ---- */

char *agent_read_short(const char *reply)
{
	static const char *const labels[] = {"short answer:", "succinct answer:", "answer:", NULL};
	const char *s = reply ? reply : "";
	size_t n = strlen(s);
	str_trim(&s, &n);
	for (int i = 0; labels[i]; i++)
		if (n >= strlen(labels[i]) && strncasecmp(s, labels[i], strlen(labels[i])) == 0) {
			s += strlen(labels[i]);
			n -= strlen(labels[i]);
			str_trim(&s, &n);
			break;
		}
	if (memchr(s, '\n', n))   /* the first line holds the answer; the rest is talk */
		n = (size_t)((const char *)memchr(s, '\n', n) - s);
	str_trim(&s, &n);
	if (n >= 2 && ((s[0] == '"' && s[n - 1] == '"') || (s[0] == '\'' && s[n - 1] == '\''))) {
		s++;
		n -= 2;
		str_trim(&s, &n);
	}
	if (n && s[n - 1] == '.' && !(n >= 2 && isupper((unsigned char)s[n - 2]) &&
	                              (n == 2 || s[n - 3] == ' ' || s[n - 3] == '.')))
		n--;   /* a full stop, not the one of an initial ("Frank W.") */
	if (str_nieq(s, n, "no answer") || str_nieq(s, n, "no info") || str_nieq(s, n, "none") ||
	    str_nieq(s, n, "unknown"))
		n = 0;
	return xstrndup(s, n);
}

/* ---- checking a query ---- */

/* A statement's kind in words ("a DROP TABLE statement"), for refusals. */
static const char *agent_stmt_words(StmtKind kind)
{
	switch (kind) {
	case ST_INSERT: return "an INSERT statement";
	case ST_UPDATE: return "an UPDATE statement";
	case ST_DELETE: return "a DELETE statement";
	case ST_CREATE_TABLE: return "a CREATE TABLE statement";
	case ST_CREATE_VIEW: return "a CREATE VIEW statement";
	case ST_ALTER_TABLE: return "an ALTER TABLE statement";
	case ST_DROP_TABLE: return "a DROP TABLE statement";
	default: return "a statement other than SELECT";
	}
}

SuqlStatus agent_prepare(const char *sql, int default_limit, char **out, int *limited,
                         SuqlErr *err)
{
	*out = NULL;
	*limited = 0;
	size_t len = strlen(sql), end = 0;
	Ast *ast = NULL;
	SuqlStatus s = parse_statement(sql, len, 0, &ast, &end, err);
	if (s == SUQL_INCOMPLETE)
		s = SUQL_ERROR;   /* for the agent an unfinished query is just wrong */
	if (s != SUQL_OK)
		return s;
	if (!ast)
		return err_set(err, SUQL_ERROR, "the reply holds no query");
	const Stmt *st = ast->stmt;
	if (st->kind != ST_SELECT || st->explain || !st->select) {
		s = err_at(err, SUQL_ERROR, sql, len, st->span.off, 0,
		           "write one SELECT query (WITH ... SELECT is fine); nothing may change "
		           "the database", "only a SELECT query may run here, and this is %s",
		           st->explain ? "an EXPLAIN statement" : agent_stmt_words(st->kind));
		ast_free(ast);
		return s;
	}
	/* anything after the first statement must be blanks and comments */
	Ast *more = NULL;
	size_t end2 = len;
	SuqlErr e2 = {0};
	if (end < len && (parse_statement(sql, len, end, &more, &end2, &e2) != SUQL_OK || more)) {
		size_t at = end;
		while (at < len && isspace((unsigned char)sql[at]))
			at++;
		s = err_at(err, SUQL_ERROR, sql, len, at, 0, "write the query alone, as one "
		           "statement", "more than one statement; only one SELECT query may run");
		ast_free(more);
		err_clear(&e2);
		ast_free(ast);
		return s;
	}
	err_clear(&e2);
	Select *sel = st->select;
	/* SQLite takes no LIMIT after a VALUES list (whose rows are written out anyway) */
	int values = sel->ncore > 0 && sel->cores[sel->ncore - 1]->kind == CORE_VALUES;
	if (default_limit > 0 && !sel->limit && !values) {
		sel->limit = ast_integer(ast->arena, default_limit);
		*limited = 1;
	}
	*out = print_suql_stmt(ast);
	ast_free(ast);
	return SUQL_OK;
}

/* ---- keeping rows ---- */

void agent_rows_init(AgentRows *rows, size_t max_bytes, size_t cell_max)
{
	memset(rows, 0, sizeof *rows);
	rows->rows = json_array();
	rows->max_bytes = max_bytes;
	rows->cell_max = cell_max;
}

void agent_rows_free(AgentRows *rows)
{
	for (int i = 0; i < rows->ncols; i++)
		free(rows->cols[i]);
	free(rows->cols);
	json_decref(rows->rows);
	memset(rows, 0, sizeof *rows);
}

static void rows_columns(void *ctx, const Row *st)
{
	AgentRows *rows = ctx;
	for (int i = 0; i < rows->ncols; i++)
		free(rows->cols[i]);
	free(rows->cols);
	rows->ncols = row_count(st);
	rows->cols = xcalloc((size_t)rows->ncols + 1, sizeof *rows->cols);
	for (int i = 0; i < rows->ncols; i++) {
		const char *n = row_name(st, i);
		rows->cols[i] = xstrdup(n ? n : "?");
	}
}

/* Length of the longest prefix of s[0..n) that is whole valid UTF-8 characters. */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
		         : (c & 0xF8) == 0xF0 ? 4 : 0;
		if (!k || i + k > n)
			break;
		for (size_t j = 1; j < k; j++)
			if ((s[i + j] & 0xC0) != 0x80)
				return i;
		i += k;
	}
	return i;
}

/* A JSON string of text, cut to at most max bytes (at a character) with "..." after;
   bytes that are not UTF-8 end the text there. */
static json_t *text_value(const unsigned char *t, size_t n, size_t max)
{
	int cut = 0;
	if (max && n > max) {
		n = max;
		cut = 1;
	}
	size_t ok = utf8_valid_prefix(t, n);
	if (ok < n)
		cut = 1;
	if (!cut)
		return json_stringn((const char *)t, ok);
	char *s = xmalloc(ok + 4);
	memcpy(s, t, ok);
	memcpy(s + ok, "...", 4);
	json_t *j = json_string(s);
	free(s);
	return j ? j : json_string("...");
}

static int rows_row(void *ctx, const Row *st)
{
	AgentRows *rows = ctx;
	rows->count++;
	if (rows->omitted) {   /* once a row did not fit, later ones are counted only */
		rows->omitted++;
		return 0;
	}
	json_t *o = json_object();
	for (int i = 0; i < rows->ncols && i < row_count(st); i++) {
		json_t *v;
		size_t n;
		const char *t;
		switch (row_kind(st, i)) {
		case ROW_INTEGER:
			v = json_integer(row_integer(st, i));
			break;
		case ROW_REAL:
			v = json_real(row_real(st, i));
			break;
		case ROW_NULL:
			v = json_null();
			break;
		case ROW_BLOB: {
			char b[48];
			row_text(st, i, &n);
			snprintf(b, sizeof b, "(a blob of %zu bytes)", n);
			v = json_string(b);
			break;
		}
		default:
			t = row_text(st, i, &n);
			v = text_value((const unsigned char *)(t ? t : ""), n, rows->cell_max);
		}
		json_object_set_new(o, rows->cols[i], v ? v : json_null());
	}
	char *text = json_dumps(o, AGENT_JSON);
	size_t sz = text ? strlen(text) + 2 : 2;
	free(text);
	if (rows->max_bytes && rows->bytes + sz > rows->max_bytes && json_array_size(rows->rows)) {
		rows->omitted++;
		json_decref(o);
		return 0;
	}
	json_array_append_new(rows->rows, o);
	rows->bytes += sz;
	return 0;
}

EngineSink agent_rows_sink(AgentRows *rows)
{
	EngineSink s = {0};
	s.ctx = rows;
	s.columns = rows_columns;
	s.row = rows_row;
	return s;
}

char *agent_rows_json(const AgentRows *rows)
{
	SBuf b = SBUF_INIT;
	sb_puts(&b, "[");
	size_t n = json_array_size(rows->rows);
	for (size_t i = 0; i < n; i++) {
		char *t = json_dumps(json_array_get(rows->rows, i), AGENT_JSON);
		sb_printf(&b, "%s\n  %s", i ? "," : "", t ? t : "{}");
		free(t);
	}
	sb_puts(&b, n ? "\n]" : "]");
	return sb_steal(&b);
}

/* ---- the digest ---- */

/* How much a column name looks like the key a person would name a row by: 3 for "name" or
   "title", 2 for names containing them, 1 for ids, 0 otherwise. */
static int key_rank(const char *col)
{
	char low[64];
	size_t n = strlen(col);
	if (n >= sizeof low)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)col[i]);
	if (!strcmp(low, "name") || !strcmp(low, "title"))
		return 3;
	if (strstr(low, "name") || strstr(low, "title"))
		return 2;
	if (!strcmp(low, "id") || (n > 3 && !strcmp(low + n - 3, "_id")) || !strcmp(low, "rowid"))
		return 1;
	return 0;
}

/* A value for the digest: text cut at 40 bytes (at a character). */
static void put_value(SBuf *b, json_t *v)
{
	if (!v || json_is_null(v)) {
		sb_puts(b, "NULL");
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = strlen(s);
		if (n > 40) {
			n = 37;
			while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
				n--;
			while (n && s[n - 1] == ' ')
				n--;
			sb_putn(b, s, n);
			sb_puts(b, "...");
		} else {
			sb_putn(b, s, n);
		}
	} else {
		char *t = json_dumps(v, JSON_ENCODE_ANY | AGENT_JSON);
		sb_puts(b, t ? t : "?");
		free(t);
	}
}

char *agent_digest(const AgentRows *rows)
{
	SBuf b = SBUF_INIT;
	if (rows->count == 0) {
		sb_puts(&b, "no rows");
		return sb_steal(&b);
	}
	/* the columns to show: name-like ones (at most 2), then one id-like; else the first 2 */
	int pick[3], np = 0;
	for (int want = 3; want >= 2; want--)
		for (int i = 0; i < rows->ncols && np < 2; i++)
			if (key_rank(rows->cols[i]) == want)
				pick[np++] = i;
	int named = np > 0;
	for (int i = 0; i < rows->ncols && np < 3; i++)
		if (key_rank(rows->cols[i]) == 1) {
			pick[np++] = i;
			break;
		}
	if (np == 0)
		for (int i = 0; i < rows->ncols && np < 2; i++)
			pick[np++] = i;
	sb_printf(&b, "%ld row%s", rows->count, rows->count == 1 ? "" : "s");
	size_t kept = json_array_size(rows->rows);
	for (size_t r = 0; r < kept && r < 10; r++) {
		json_t *o = json_array_get(rows->rows, r);
		sb_puts(&b, r ? "; " : ": ");
		for (int k = 0; k < np; k++) {
			json_t *v = json_object_get(o, rows->cols[pick[k]]);
			if (named && k == 0) {
				put_value(&b, v);
				continue;
			}
			if (named)
				sb_puts(&b, k == 1 ? " (" : ", ");
			else if (k)
				sb_puts(&b, ", ");
			sb_printf(&b, "%s=", rows->cols[pick[k]]);
			put_value(&b, v);
		}
		if (named && np > 1)
			sb_putc(&b, ')');
	}
	long shown = kept < 10 ? (long)kept : 10;
	if (rows->count > shown)
		sb_printf(&b, "; and %ld more", rows->count - shown);
	return sb_steal(&b);
}
