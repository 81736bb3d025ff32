/*
 * lex.c: the SUQL lexer (see lex.h). It follows SQLite's tokenizer rule by rule, so that a
 * plain SQLite statement is cut into the same tokens SQLite itself sees, and adds the few
 * PostgreSQL tokens SUQL needs. It also finds where a statement ends (a ';' outside strings,
 * comments and trigger bodies), which the REPL and the script runner use.
 */
#include "sql/lex.h"

#include <string.h>
#include <strings.h>

/* Keyword spellings in the order of enum Keyword (kept alphabetical, so that a new one has
   one obvious place; lookup goes through the hash table below). */
static const char *const KW_NAMES[KW_COUNT] = {
	"",
	"ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND",
	"AS", "ASC", "ATTACH", "AUTOINCREMENT", "BEFORE", "BEGIN", "BETWEEN", "BY",
	"CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN", "COMMIT", "CONFLICT",
	"CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
	"CURRENT_TIMESTAMP", "DATABASE", "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE",
	"DESC", "DETACH", "DISTINCT", "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE",
	"EXCEPT", "EXCLUDE", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL", "FILTER", "FIRST",
	"FOLLOWING", "FOR", "FOREIGN", "FROM", "FULL", "GENERATED", "GLOB", "GROUP",
	"GROUPS", "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED",
	"INITIALLY", "INNER", "INSERT", "INSTEAD", "INTERSECT", "INTO", "IS", "ISNULL",
	"JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT", "MATCH", "MATERIALIZED",
	"NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET",
	"ON", "OR", "ORDER", "OTHERS", "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA",
	"PRECEDING", "PRIMARY", "QUERY", "RAISE", "RANGE", "RECURSIVE", "REFERENCES",
	"REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RETURNING",
	"RIGHT", "ROLLBACK", "ROW", "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE",
	"TEMP", "TEMPORARY", "THEN", "TIES", "TO", "TRANSACTION", "TRIGGER", "UNBOUNDED",
	"UNION", "UNIQUE", "UPDATE", "USING", "VACUUM", "VALUES", "VIEW", "VIRTUAL",
	"WHEN", "WHERE", "WINDOW", "WITH", "WITHOUT",
};

/* Keywords that are not reserved: SQLite accepts them where a name is expected (its
   %fallback ID list, plus WINDOW, OVER and FILTER, which its tokenizer treats as words
   unless the context makes them keywords, and INDEXED, which its grammar allows as an id). */
static const Keyword FALLBACK[] = {
	KW_ABORT, KW_ACTION, KW_AFTER, KW_ALWAYS, KW_ANALYZE, KW_ASC, KW_ATTACH, KW_BEFORE,
	KW_BEGIN, KW_BY, KW_CASCADE, KW_CAST, KW_COLUMN, KW_CONFLICT, KW_CURRENT,
	KW_CURRENT_DATE, KW_CURRENT_TIME, KW_CURRENT_TIMESTAMP, KW_DATABASE, KW_DEFERRED,
	KW_DESC, KW_DETACH, KW_DO, KW_EACH, KW_END, KW_EXCLUDE, KW_EXCLUSIVE, KW_EXPLAIN,
	KW_FAIL, KW_FILTER, KW_FIRST, KW_FOLLOWING, KW_FOR, KW_GENERATED, KW_GLOB, KW_GROUPS,
	KW_IF, KW_IGNORE, KW_IMMEDIATE, KW_INDEXED, KW_INITIALLY, KW_INSTEAD, KW_KEY, KW_LAST,
	KW_LIKE, KW_MATCH, KW_MATERIALIZED, KW_NO, KW_NULLS, KW_OF, KW_OFFSET, KW_OTHERS,
	KW_OVER, KW_PARTITION, KW_PLAN, KW_PRAGMA, KW_PRECEDING, KW_QUERY, KW_RAISE, KW_RANGE,
	KW_RECURSIVE, KW_REGEXP, KW_REINDEX, KW_RELEASE, KW_RENAME, KW_REPLACE, KW_RESTRICT,
	KW_ROLLBACK, KW_ROW, KW_ROWS, KW_SAVEPOINT, KW_TEMP, KW_TEMPORARY, KW_TIES, KW_TRIGGER,
	KW_UNBOUNDED, KW_VACUUM, KW_VIEW, KW_VIRTUAL, KW_WINDOW, KW_WITH, KW_WITHOUT,
};

static int up(int c)
{
	return c >= 'a' && c <= 'z' ? c - 32 : c;
}

static void kw_hash_init(void);

static unsigned char kw_flags[KW_COUNT];   /* 1: fallback, 2: join keyword */
static int kw_flags_ready;

static void kw_init(void)
{
	if (kw_flags_ready)
		return;
	for (size_t i = 0; i < sizeof FALLBACK / sizeof FALLBACK[0]; i++)
		kw_flags[FALLBACK[i]] |= 1;
	kw_flags[KW_NATURAL] |= 2;
	kw_flags[KW_LEFT] |= 2;
	kw_flags[KW_RIGHT] |= 2;
	kw_flags[KW_FULL] |= 2;
	kw_flags[KW_INNER] |= 2;
	kw_flags[KW_CROSS] |= 2;
	kw_flags[KW_OUTER] |= 2;
	kw_hash_init();
	kw_flags_ready = 1;
}

int lex_keyword_is_fallback(Keyword kw)
{
	kw_init();
	return kw > KW_NONE && kw < KW_COUNT && (kw_flags[kw] & 1);
}

int lex_keyword_is_join(Keyword kw)
{
	kw_init();
	return kw > KW_NONE && kw < KW_COUNT && (kw_flags[kw] & 2);
}

const char *lex_keyword_name(Keyword kw)
{
	return kw > KW_NONE && kw < KW_COUNT ? KW_NAMES[kw] : "";
}

/* Keyword lookup: an open-addressing hash table over the upper-case spellings, built once. */
#define KW_HASH_SIZE 512
static unsigned char kw_hash[KW_HASH_SIZE];   /* Keyword, 0 = empty */

static unsigned kw_hash_of(const char *s, size_t n)
{
	unsigned h = (unsigned)n * 31u;
	for (size_t i = 0; i < n; i++)
		h = h * 33u + (unsigned)up((unsigned char)s[i]);
	return h & (KW_HASH_SIZE - 1);
}

static void kw_hash_init(void)
{
	for (int k = 1; k < KW_COUNT; k++) {
		unsigned h = kw_hash_of(KW_NAMES[k], strlen(KW_NAMES[k]));
		while (kw_hash[h])
			h = (h + 1) & (KW_HASH_SIZE - 1);
		kw_hash[h] = (unsigned char)k;
	}
}

Keyword lex_keyword(const char *s, size_t n)
{
	if (n < 2 || n > 17)
		return KW_NONE;
	kw_init();
	unsigned h = kw_hash_of(s, n);
	while (kw_hash[h]) {
		const char *k = KW_NAMES[kw_hash[h]];
		size_t i = 0;
		while (i < n && k[i] && up((unsigned char)s[i]) == (unsigned char)k[i])
			i++;
		if (i == n && !k[i])
			return (Keyword)kw_hash[h];
		h = (h + 1) & (KW_HASH_SIZE - 1);
	}
	return KW_NONE;
}

int lex_idchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

static int isdig(unsigned char c) { return c >= '0' && c <= '9'; }
static int isxdig(unsigned char c)
{
	return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void lex_init(Lexer *lx, const char *src, size_t len, size_t start)
{
	memset(lx, 0, sizeof *lx);
	lx->src = src;
	lx->len = len;
	lx->pos = start;
	kw_init();
}

/* Scan one token at p (no whitespace skipping); sets *type and returns its length. */
static size_t scan(Lexer *lx, size_t p, TokType *type, Keyword *kw)
{
	const unsigned char *z = (const unsigned char *)lx->src;
	size_t n = lx->len, i;
	unsigned char c = z[p];
	unsigned char c1 = p + 1 < n ? z[p + 1] : 0;
	*kw = KW_NONE;
	switch (c) {
	case '-':
		if (c1 == '>') {
			if (p + 2 < n && z[p + 2] == '>') { *type = TK_PTR2; return 3; }
			*type = TK_PTR; return 2;
		}
		*type = TK_MINUS; return 1;
	case '(': *type = TK_LP; return 1;
	case ')': *type = TK_RP; return 1;
	case ';': *type = TK_SEMI; return 1;
	case '+': *type = TK_PLUS; return 1;
	case '*': *type = TK_STAR; return 1;
	case '/': *type = TK_SLASH; return 1;
	case '%': *type = TK_REM; return 1;
	case ',': *type = TK_COMMA; return 1;
	case '~': *type = TK_BITNOT; return 1;
	case '&':
		if (c1 == '&') { *type = TK_OVERLAP; return 2; }
		*type = TK_BITAND; return 1;
	case ']': *type = TK_RBRACKET; return 1;
	case '=':
		*type = TK_EQ; return c1 == '=' ? 2 : 1;
	case '<':
		if (c1 == '=') { *type = TK_LE; return 2; }
		if (c1 == '>') { *type = TK_NE; return 2; }
		if (c1 == '<') { *type = TK_LSHIFT; return 2; }
		if (c1 == '@' && !(p + 2 < n && lex_idchar(z[p + 2]))) { *type = TK_CONTAINED; return 2; }
		*type = TK_LT; return 1;
	case '>':
		if (c1 == '=') { *type = TK_GE; return 2; }
		if (c1 == '>') { *type = TK_RSHIFT; return 2; }
		*type = TK_GT; return 1;
	case '!':
		if (c1 == '=') { *type = TK_NE; return 2; }
		*type = TK_ILLEGAL; return 1;
	case '|':
		if (c1 == '|') { *type = TK_CONCAT; return 2; }
		*type = TK_BITOR; return 1;
	case '\'': case '"': case '`':
		for (i = p + 1; i < n; i++) {
			if (z[i] == 0) {   /* SQL text cannot hold a NUL byte */
				*type = TK_ILLEGAL;
				return i + 1 - p;
			}
			if (z[i] == c) {
				if (i + 1 < n && z[i + 1] == c) { i++; continue; }
				*type = c == '\'' ? TK_STRING : TK_QID;
				return i + 1 - p;
			}
		}
		*type = c == '\'' ? TK_UNTERM_STRING : TK_UNTERM_QID;
		return n - p;
	case '.':
		if (!isdig(c1)) { *type = TK_DOT; return 1; }
		__attribute__((fallthrough));
		/* a number like .5 */
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		*type = TK_INTEGER;
		i = p;
		if (c == '0' && (c1 == 'x' || c1 == 'X') && p + 2 < n && isxdig(z[p + 2])) {
			/* as in SQLite, a hex number ends at its last hex digit: 0x1g is 0x1 g */
			for (i = p + 2; i < n && isxdig(z[i]); i++)
				;
			return i - p;
		} else {
			while (i < n && isdig(z[i]))
				i++;
			if (i < n && z[i] == '.') {
				*type = TK_FLOAT;
				i++;
				while (i < n && isdig(z[i]))
					i++;
			}
			if (i < n && (z[i] == 'e' || z[i] == 'E') &&
			    ((i + 1 < n && isdig(z[i + 1])) ||
			     (i + 2 < n && (z[i + 1] == '+' || z[i + 1] == '-') && isdig(z[i + 2])))) {
				*type = TK_FLOAT;
				i += 2;
				while (i < n && isdig(z[i]))
					i++;
			}
		}
		while (i < n && lex_idchar(z[i])) {
			*type = TK_ILLEGAL;
			i++;
		}
		return i - p;
	case '[':
		if (lx->prev.type == TK_ID && lx->prev.len == 5 &&
		    strncasecmp(lx->src + lx->prev.off, "ARRAY", 5) == 0 && lx->prev.off + 5 == p) {
			*type = TK_LBRACKET; return 1;
		}
		if (c1 == ']') { *type = TK_ARRSUFFIX; return 2; }
		for (i = p + 1; i < n && z[i] != ']'; i++)
			if (z[i] == 0) {
				*type = TK_ILLEGAL;
				return i + 1 - p;
			}
		if (i >= n) { *type = TK_UNTERM_QID; return n - p; }
		*type = TK_QID;
		return i + 1 - p;
	case '?':
		for (i = p + 1; i < n && isdig(z[i]); i++)
			;
		*type = TK_VARIABLE;
		return i - p;
	case ':':
		if (c1 == ':') { *type = TK_DCOLON; return 2; }
		__attribute__((fallthrough));
	case '@':
		if (c == '@' && c1 == '>') { *type = TK_CONTAINS; return 2; }
		__attribute__((fallthrough));
	case '$': case '#': {
		/* SQLite's named parameters, TCL forms included: $a::b, $a(x) */
		size_t nid = 0;
		*type = TK_VARIABLE;
		for (i = p + 1; i < n; i++) {
			unsigned char d = z[i];
			if (lex_idchar(d)) {
				nid++;
			} else if (d == '(' && nid > 0) {
				do
					i++;
				while (i < n && z[i] != ')' && z[i] != ' ' && z[i] != '\t' &&
				       z[i] != '\n' && z[i] != '\r' && z[i] != '\f' && z[i] != '\v');
				if (i < n && z[i] == ')')
					i++;
				else
					*type = TK_ILLEGAL;
				break;
			} else if (d == ':' && i + 1 < n && z[i + 1] == ':') {
				i++;
			} else {
				break;
			}
		}
		if (nid == 0)
			*type = TK_ILLEGAL;
		return i - p;
	}
	case 'x': case 'X':
		if (c1 == '\'') {
			*type = TK_BLOB;
			for (i = p + 2; i < n && isxdig(z[i]); i++)
				;
			if (i >= n || z[i] != '\'' || (i - p) % 2) {
				*type = TK_ILLEGAL;
				while (i < n && z[i] != '\'')
					i++;
				if (i < n)
					i++;
				return i - p;
			}
			return i + 1 - p;
		}
		__attribute__((fallthrough));
	default:
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80) {
			for (i = p + 1; i < n && lex_idchar(z[i]); i++)
				;
			*type = TK_ID;
			if (!lx->no_keywords)
				*kw = lex_keyword(lx->src + p, i - p);
			return i - p;
		}
		*type = TK_ILLEGAL;
		return 1;
	}
}

Token lex_next(Lexer *lx)
{
	const char *z = lx->src;
	size_t n = lx->len;
	for (;;) {
		size_t p = lx->pos;
		/* SQLite's blanks: a run starts with space, tab, newline, CR or form feed and may
		   go on with vertical tabs too; a \v that starts a token is unrecognized */
		if (p < n && (z[p] == ' ' || z[p] == '\t' || z[p] == '\n' || z[p] == '\r' ||
		              z[p] == '\f'))
			while (p < n && (z[p] == ' ' || z[p] == '\t' || z[p] == '\n' || z[p] == '\r' ||
			                 z[p] == '\f' || z[p] == '\v'))
				p++;
		if (p + 1 < n && z[p] == '-' && z[p + 1] == '-') {
			while (p < n && z[p] != '\n')
				p++;
			lx->pos = p;
			continue;
		}
		if (p + 1 < n && z[p] == '/' && z[p + 1] == '*') {
			size_t q = p + 2;
			while (q + 1 < n && !(z[q] == '*' && z[q + 1] == '/'))
				q++;
			if (q + 1 >= n) {
				lx->unterm_comment = 1;
				lx->pos = n;
				continue;
			}
			lx->pos = q + 2;
			continue;
		}
		Token t = {TK_EOF, KW_NONE, p, 0};
		if (p >= n) {
			lx->pos = n;
			t.off = n;
			lx->prev = t;
			return t;
		}
		t.len = scan(lx, p, &t.type, &t.kw);
		lx->pos = p + t.len;
		lx->prev = t;
		return t;
	}
}

size_t lex_statement_end(const char *src, size_t len, size_t start, int *complete, int *empty)
{
	/* Trigger bodies: after CREATE [TEMP] TRIGGER, a ';' ends the statement only when it
	   follows an END that itself directly follows a ';' (the rule sqlite3_complete uses). */
	enum { S_START, S_EXPLAIN, S_CREATE, S_NORMAL, S_TRIG, S_TSEMI, S_TEND } st = S_START;
	Lexer lx;
	lex_init(&lx, src, len, start);
	*empty = 1;
	for (;;) {
		/* keywords matter only at the start and inside trigger bodies */
		lx.no_keywords = st == S_NORMAL;
		Token t = lex_next(&lx);
		if (t.type == TK_EOF) {
			*complete = *empty && !lx.unterm_comment;
			return len;
		}
		if (t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID) {
			*complete = 0;
			*empty = 0;
			return len;
		}
		if (t.type == TK_SEMI) {
			if (st == S_TRIG || st == S_TSEMI) {
				st = S_TSEMI;
				continue;
			}
			*complete = 1;
			return t.off + 1;
		}
		*empty = 0;
		Keyword kw = t.type == TK_ID ? t.kw : KW_NONE;
		switch (st) {
		case S_START:
			st = kw == KW_EXPLAIN ? S_EXPLAIN : kw == KW_CREATE ? S_CREATE : S_NORMAL;
			break;
		case S_EXPLAIN:
			st = kw == KW_CREATE ? S_CREATE : S_EXPLAIN;
			break;
		case S_CREATE:
			if (kw == KW_TRIGGER)
				st = S_TRIG;
			else if (kw != KW_TEMP && kw != KW_TEMPORARY)
				st = S_NORMAL;
			break;
		case S_TSEMI:
			st = kw == KW_END ? S_TEND : S_TRIG;
			break;
		case S_TEND:
			st = S_TRIG;
			break;
		default:
			break;
		}
		if (st == S_TEND) {
			/* look ahead: END followed by ';' or the end of input closes the trigger */
			Lexer save = lx;
			Token nx = lex_next(&lx);
			if (nx.type == TK_SEMI) {
				*complete = 1;
				return nx.off + 1;
			}
			if (nx.type == TK_EOF) {
				*complete = 0;
				return len;
			}
			lx = save;
		}
	}
}
