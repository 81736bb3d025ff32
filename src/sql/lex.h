/*
 * lex.h: the SUQL lexer. It cuts statement text into tokens the way SQLite's tokenizer does
 * (identifiers in four quoting styles, strings, blobs, numbers, parameters, every operator,
 * comments), plus the PostgreSQL forms SUQL borrows: `::` (cast), `@>` and `<@` (array
 * containment), and square brackets for `ARRAY[...]` and the `[]` type suffix (`TEXT[]`).
 * A `[` right after the word ARRAY, and an empty `[]`, are brackets; any other `[...]` is
 * SQLite's bracket-quoted identifier. `<@` followed by a letter, digit, `_` or `$` stays
 * SQLite's `<` and the parameter `@name`.
 *
 * The lexer never allocates: a token is a slice (offset, length) of the input, and keyword
 * lookup is case-insensitive. Whitespace and comments are skipped. Errors come back as token
 * types (TK_ILLEGAL, TK_UNTERM_*) that the parser turns into messages.
 *
 * Ownership: a Lexer borrows its input; nothing here owns heap memory.
 */
#ifndef SUQL_LEX_H
#define SUQL_LEX_H

#include <stddef.h>

typedef enum TokType {
	TK_EOF = 0,
	TK_ID,          /* unquoted word; Token.kw says which keyword it is, if any */
	TK_QID,         /* "quoted", `backticked` or [bracketed] identifier */
	TK_STRING,      /* 'text' */
	TK_BLOB,        /* x'0A1B' */
	TK_INTEGER,     /* 42, 0x2A */
	TK_FLOAT,       /* 1.5, .5, 1e10 */
	TK_VARIABLE,    /* ?, ?3, :name, @name, $name, #name (and SQLite's $a::b, $a(x)) */
	TK_SEMI, TK_LP, TK_RP, TK_COMMA, TK_DOT,
	TK_STAR, TK_PLUS, TK_MINUS, TK_SLASH, TK_REM,
	TK_CONCAT,      /* || */
	TK_PTR,         /* -> */
	TK_PTR2,        /* ->> */
	TK_LSHIFT, TK_RSHIFT, TK_LT, TK_LE, TK_GT, TK_GE,
	TK_EQ,          /* = or == */
	TK_NE,          /* != or <> */
	TK_BITAND, TK_BITOR, TK_BITNOT,
	TK_DCOLON,      /* :: (SUQL cast) */
	TK_CONTAINS,    /* @> */
	TK_CONTAINED,   /* <@ */
	TK_OVERLAP,     /* && (lists share an element) */
	TK_LBRACKET,    /* [ after ARRAY */
	TK_RBRACKET,    /* ] */
	TK_ARRSUFFIX,   /* [] */
	TK_ILLEGAL,     /* a character or malformed number/blob SQLite does not accept */
	TK_UNTERM_STRING,
	TK_UNTERM_QID,
	TK_COUNT
} TokType;

/* Keywords. KW_NONE for an ordinary word. The order is alphabetical (KW_NAMES in lex.c
   follows it). */
typedef enum Keyword {
	KW_NONE = 0,
	KW_ABORT, KW_ACTION, KW_ADD, KW_AFTER, KW_ALL, KW_ALTER, KW_ALWAYS, KW_ANALYZE, KW_AND,
	KW_AS, KW_ASC, KW_ATTACH, KW_AUTOINCREMENT, KW_BEFORE, KW_BEGIN, KW_BETWEEN, KW_BY,
	KW_CASCADE, KW_CASE, KW_CAST, KW_CHECK, KW_COLLATE, KW_COLUMN, KW_COMMIT, KW_CONFLICT,
	KW_CONSTRAINT, KW_CREATE, KW_CROSS, KW_CURRENT, KW_CURRENT_DATE, KW_CURRENT_TIME,
	KW_CURRENT_TIMESTAMP, KW_DATABASE, KW_DEFAULT, KW_DEFERRABLE, KW_DEFERRED, KW_DELETE,
	KW_DESC, KW_DETACH, KW_DISTINCT, KW_DO, KW_DROP, KW_EACH, KW_ELSE, KW_END, KW_ESCAPE,
	KW_EXCEPT, KW_EXCLUDE, KW_EXCLUSIVE, KW_EXISTS, KW_EXPLAIN, KW_FAIL, KW_FILTER, KW_FIRST,
	KW_FOLLOWING, KW_FOR, KW_FOREIGN, KW_FROM, KW_FULL, KW_GENERATED, KW_GLOB, KW_GROUP,
	KW_GROUPS, KW_HAVING, KW_IF, KW_IGNORE, KW_IMMEDIATE, KW_IN, KW_INDEX, KW_INDEXED,
	KW_INITIALLY, KW_INNER, KW_INSERT, KW_INSTEAD, KW_INTERSECT, KW_INTO, KW_IS, KW_ISNULL,
	KW_JOIN, KW_KEY, KW_LAST, KW_LEFT, KW_LIKE, KW_LIMIT, KW_MATCH, KW_MATERIALIZED,
	KW_NATURAL, KW_NO, KW_NOT, KW_NOTHING, KW_NOTNULL, KW_NULL, KW_NULLS, KW_OF, KW_OFFSET,
	KW_ON, KW_OR, KW_ORDER, KW_OTHERS, KW_OUTER, KW_OVER, KW_PARTITION, KW_PLAN, KW_PRAGMA,
	KW_PRECEDING, KW_PRIMARY, KW_QUERY, KW_RAISE, KW_RANGE, KW_RECURSIVE, KW_REFERENCES,
	KW_REGEXP, KW_REINDEX, KW_RELEASE, KW_RENAME, KW_REPLACE, KW_RESTRICT, KW_RETURNING,
	KW_RIGHT, KW_ROLLBACK, KW_ROW, KW_ROWS, KW_SAVEPOINT, KW_SELECT, KW_SET, KW_TABLE,
	KW_TEMP, KW_TEMPORARY, KW_THEN, KW_TIES, KW_TO, KW_TRANSACTION, KW_TRIGGER, KW_UNBOUNDED,
	KW_UNION, KW_UNIQUE, KW_UPDATE, KW_USING, KW_VACUUM, KW_VALUES, KW_VIEW, KW_VIRTUAL,
	KW_WHEN, KW_WHERE, KW_WINDOW, KW_WITH, KW_WITHOUT,
	KW_COUNT
} Keyword;

typedef struct Token {
	TokType type;
	Keyword kw;     /* for TK_ID */
	size_t off;     /* byte offset in the lexer's input */
	size_t len;
} Token;

typedef struct Lexer {
	const char *src;
	size_t len;
	size_t pos;
	Token prev;           /* the token handed out last (for `ARRAY[`) */
	int unterm_comment;   /* set when a block comment runs to the end of the input */
	int no_keywords;      /* skip keyword lookup (Token.kw stays KW_NONE) */
} Lexer;

void lex_init(Lexer *lx, const char *src, size_t len, size_t start);
Token lex_next(Lexer *lx);

/* The keyword spelled s[0..n) (case-insensitive), or KW_NONE. */
Keyword lex_keyword(const char *s, size_t n);
/* The keyword's upper-case spelling ("SELECT"). */
const char *lex_keyword_name(Keyword kw);
/* Nonzero for keywords SQLite lets stand for an identifier (ASC, KEY, REPLACE, ...). */
int lex_keyword_is_fallback(Keyword kw);
/* Nonzero for NATURAL LEFT RIGHT FULL INNER CROSS OUTER. */
int lex_keyword_is_join(Keyword kw);

/* Nonzero when the character can continue an identifier (letters, digits, _, $, UTF-8). */
int lex_idchar(unsigned char c);

/*
 * Find where the statement that starts at src[start] ends. Returns the offset just past its
 * terminating ';' (or len when none). *complete is set when a ';' was found (trigger bodies
 * hold ';' up to their END), or when the text holds only blanks and comments; it is 0 when
 * the text ends inside the statement, a string, a quoted name or a comment. *empty is set
 * when the statement has no tokens at all (blanks, comments, lone ';').
 */
size_t lex_statement_end(const char *src, size_t len, size_t start, int *complete, int *empty);

#endif
