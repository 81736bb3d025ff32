/*
 * parse.c: the parser's entry points, token helpers, error reporting, and the statement
 * dispatch. Expressions are in parse_expr.c (primaries in parse_primary.c, types and
 * windows in parse_type.c), SELECT in parse_select.c, INSERT/UPDATE/DELETE in
 * parse_dml.c, CREATE/ALTER in parse_ddl.c.
 *
 * The parser is recursive descent over a small lookahead window. Errors unwind with
 * longjmp to parse_statement, which frees the half-built tree (one arena).
 */
#include "sql/parse_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hint for a word glued to the string before it ('Men's'), or NULL. */
static const char *p_quote_hint(Parser *p, Token t);

/* ---- tokens ---- */
static void fill(Parser *p, int k)
{
	while (p->nla <= k) {
		p->la[p->nla++] = lex_next(&p->lx);
	}
}

Token p_peek(Parser *p, int k)
{
	fill(p, k);
	return p->la[k];
}

Token p_tok(Parser *p)
{
	return p_peek(p, 0);
}

Token p_next(Parser *p)
{
	fill(p, 0);
	Token t = p->la[0];
	memmove(p->la, p->la + 1, (size_t)(p->nla - 1) * sizeof(Token));
	p->nla--;
	p->last_end = t.off + t.len;
	p->last_type = t.type;
	p->last_kw = t.type == TK_ID ? t.kw : KW_NONE;
	if (t.type == TK_ILLEGAL) {
		/* show control bytes as \xNN */
		char shown[200];
		size_t o = 0;
		for (size_t i = 0; i < t.len && i < 40 && o + 5 < sizeof shown; i++) {
			unsigned char c = (unsigned char)p->text[t.off + i];
			if (c < 0x20 || c == 0x7f)
				o += (size_t)snprintf(shown + o, sizeof shown - o, "\\x%02x", c);
			else
				shown[o++] = (char)c;
		}
		shown[o] = '\0';
		p_fail_at(p, t, NULL, "unrecognized token: \"%s\"", shown);
	}
	return t;
}

int p_is(Parser *p, TokType t)
{
	return p_tok(p).type == t;
}

int p_kw_at(Parser *p, int k, Keyword kw)
{
	Token t = p_peek(p, k);
	return t.type == TK_ID && t.kw == kw;
}

int p_kw(Parser *p, Keyword kw)
{
	return p_kw_at(p, 0, kw);
}

int p_word_is(Parser *p, int k, const char *word)
{
	Token t = p_peek(p, k);
	return t.type == TK_ID && str_nieq(p->text + t.off, t.len, word);
}

int p_accept(Parser *p, TokType t)
{
	if (!p_is(p, t))
		return 0;
	p_next(p);
	return 1;
}

int p_accept_kw(Parser *p, Keyword kw)
{
	if (!p_kw(p, kw))
		return 0;
	p_next(p);
	return 1;
}

Token p_expect(Parser *p, TokType t, const char *what)
{
	if (!p_is(p, t))
		p_unexpected(p, what);
	return p_next(p);
}

void p_expect_kw(Parser *p, Keyword kw)
{
	if (!p_kw(p, kw))
		p_unexpected(p, lex_keyword_name(kw));
	p_next(p);
}

void p_expect_close(Parser *p, Token open)
{
	if (p_is(p, TK_RP)) {
		p_next(p);
		return;
	}
	char hint[96];
	p_open_hint(p, open, "'('", "is never closed", hint, sizeof hint);
	Token t = p_tok(p);
	if (t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID || t.type == TK_ILLEGAL)
		p_next(p);   /* reports the bad token itself */
	const char *qh = p_quote_hint(p, t);
	p_fail_at(p, t, qh ? qh : hint, "missing ')' to close '('");
}

/* ---- names ---- */
int tok_is_id(Token t)
{
	/* [] is SUQL's array suffix after a column's type (parse_type.c); anywhere else it is
	   what SQLite reads: a name in brackets, empty (found by the fuzzer: SELECT :p[]) */
	if (t.type == TK_QID || t.type == TK_ARRSUFFIX)
		return 1;
	return t.type == TK_ID && (t.kw == KW_NONE || lex_keyword_is_fallback(t.kw));
}

int tok_is_nm(Token t)
{
	return tok_is_id(t) || t.type == TK_STRING ||
	       (t.type == TK_ID && lex_keyword_is_join(t.kw));
}

int tok_is_alias(Token t)
{
	return tok_is_id(t) || t.type == TK_STRING;
}

size_t p_off(Parser *p, Token t)
{
	return p->base + t.off;
}

const char *p_text_at(Parser *p, size_t abs_off)
{
	return p->text + (abs_off - p->base);
}

AstName p_name_of(Parser *p, Token t)
{
	AstName n = {p->text + t.off, t.len, p->base + t.off};
	return n;
}

AstName p_expect_nm(Parser *p, const char *what)
{
	Token t = p_tok(p);
	if (!tok_is_nm(t))
		p_unexpected(p, what);
	p_next(p);
	return p_name_of(p, t);
}

IdList *p_column_names(Parser *p, Token open)
{
	IdList *l = NULL;
	do
		ast_idlist_push(p->arena, &l, p_expect_nm(p, "a column name"));
	while (p_accept(p, TK_COMMA));
	p_expect_close(p, open);
	return l;
}

AstSpan p_span_from(Parser *p, size_t start_off)
{
	size_t abs_end = p->base + p->last_end;
	AstSpan s = {start_off, abs_end > start_off ? abs_end - start_off : 0};
	return s;
}

/* SQLite names an unaliased result column after its text from the first token to the next
   token after it, so comments in between are part of the name ("1 -- note" for
   SELECT 1 -- note), white space at the end is not (its sqlite3DbSpanDup). */
AstSpan p_span_to_next(Parser *p, size_t start_off)
{
	size_t end = p_off(p, p_tok(p));
	while (end > start_off) {
		char c = *p_text_at(p, end - 1);
		if (c != ' ' && (c < '\t' || c > '\r'))
			break;
		end--;
	}
	AstSpan sp = {start_off, end > start_off ? end - start_off : 0};
	return sp;
}

void p_enter(Parser *p, Token at)
{
	if (++p->depth > PARSE_MAX_DEPTH)
		p_fail_at(p, at, "split the statement or use fewer nested parentheses",
		          "the statement nests too deeply (more than %d levels)", PARSE_MAX_DEPTH);
}

void p_leave(Parser *p)
{
	p->depth--;
}

/* ---- errors ---- */
const char *p_open_hint(Parser *p, Token open, const char *what, const char *tail, char *buf,
                        size_t n)
{
	p->open_off = p_off(p, open);
	snprintf(buf, n, "the %s at {place} %s", what, tail);
	return buf;
}

static const char *p_quote_hint(Parser *p, Token t)
{
	if (p->last_type == TK_STRING && p->last_end == t.off &&
	    (t.type == TK_ID || t.type == TK_UNTERM_STRING))
		return "a quote inside a string is written twice: 'Men''s'";
	return NULL;
}


void p_fail_at(Parser *p, Token t, const char *hint, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	SuqlStatus code = SUQL_ERROR;
	size_t off = p_off(p, t), len = t.len;
	if (t.type == TK_EOF) {
		code = SUQL_INCOMPLETE;
		len = 0;
	}
	if (t.type == TK_UNTERM_STRING || t.type == TK_UNTERM_QID) {
		code = SUQL_INCOMPLETE;
		len = 1;
	}
	const char *pre = code == SUQL_INCOMPLETE ? "incomplete input: " : "";
	if (hint && strstr(hint, "{place}"))
		err_at_rel(p->err, code, p->src, p->srclen, off, len, p->open_off, hint, "%s%s", pre,
		           msg);
	else
		err_at(p->err, code, p->src, p->srclen, off, len, hint, "%s%s", pre, msg);
	p->status = code;
	longjmp(p->fail, 1);
}

void p_unexpected(Parser *p, const char *expected)
{
	Token t = p_tok(p);
	switch (t.type) {
	case TK_EOF:
		p_fail_at(p, t, NULL, "expected %s", expected);
	case TK_UNTERM_STRING:
		p_fail_at(p, t, "a string ends with a ' (write '' for a quote inside it)",
		          "unterminated string");
	case TK_UNTERM_QID:
		p_fail_at(p, t, NULL, "unterminated quoted name");
	case TK_ILLEGAL:
		p_next(p);   /* reports it */
		break;
	default:
		break;
	}
	const char *s = p->text + t.off;
	int n = (int)(t.len > 40 ? 40 : t.len);
	const char *qh = p_quote_hint(p, t);
	if (qh)
		p_fail_at(p, t, qh, "expected %s, found '%.*s'", expected, n, s);
	if (t.type == TK_ID && t.kw != KW_NONE && !lex_keyword_is_fallback(t.kw) &&
	    strstr(expected, "name")) {
		char hint[128];
		snprintf(hint, sizeof hint, "%s is a keyword; write \"%.*s\" to use it as a name",
		         lex_keyword_name(t.kw), n, s);
		p_fail_at(p, t, hint, "expected %s, found keyword %s", expected,
		          lex_keyword_name(t.kw));
	}
	if (t.type == TK_ID && t.kw != KW_NONE)
		p_fail_at(p, t, NULL, "expected %s, found %s", expected, lex_keyword_name(t.kw));
	p_fail_at(p, t, NULL, "expected %s, found '%.*s'", expected, n, s);
}

/* The keywords that begin a statement kept as text. */
static int other_statement(Keyword kw)
{
	switch (kw) {
	case KW_CREATE: case KW_DROP: case KW_ALTER: case KW_PRAGMA: case KW_BEGIN:
	case KW_COMMIT: case KW_END: case KW_ROLLBACK: case KW_SAVEPOINT: case KW_RELEASE:
	case KW_ATTACH: case KW_DETACH: case KW_ANALYZE: case KW_VACUUM: case KW_REINDEX:
		return 1;
	default:
		return 0;
	}
}

/* BEGIN's transaction modes, kept as text but read for one thing: whether it asks for a
   transaction that may write (READ WRITE, PostgreSQL's), which read-only mode refuses. */
static void txn_modes(Parser *p, Stmt *st)
{
	for (;;) {
		Token t = p_tok(p);
		if (t.type == TK_EOF || t.type == TK_SEMI || t.type == TK_UNTERM_STRING ||
		    t.type == TK_UNTERM_QID)
			return;   /* p_skip_rest ends the statement (and reports what is unterminated) */
		if (p_word_is(p, 0, "READ") && p_word_is(p, 1, "WRITE")) {
			Token w = p_peek(p, 1);
			st->read_write.off = p_off(p, t);
			st->read_write.len = p_off(p, w) + w.len - st->read_write.off;
			return;
		}
		p_next(p);
	}
}

/* stmt: [EXPLAIN [QUERY PLAN]] (select | insert | update | delete | create | other) */
static Stmt *p_stmt(Parser *p)
{
	Stmt *st = P_NEW(p, Stmt);
	Token first = p_tok(p);
	if (p_kw(p, KW_EXPLAIN)) {
		p_next(p);
		st->explain = 1;
		if (p_kw(p, KW_QUERY)) {
			p_next(p);
			p_expect_kw(p, KW_PLAN);
			st->explain = 2;
		}
	}
	Token t = p_tok(p);
	Keyword kw = t.type == TK_ID ? t.kw : KW_NONE;
	With *with = NULL;
	if (kw == KW_WITH) {
		/* WITH belongs to the statement after it (attached below) */
		p_next(p);
		with = p_with(p);
		t = p_tok(p);
		kw = t.type == TK_ID ? t.kw : KW_NONE;
		if (kw != KW_SELECT && kw != KW_VALUES && kw != KW_INSERT && kw != KW_REPLACE &&
		    kw != KW_UPDATE && kw != KW_DELETE)
			p_unexpected(p, "SELECT, VALUES, INSERT, REPLACE, UPDATE or DELETE");
	}
	if (kw == KW_SELECT || kw == KW_VALUES) {
		st->kind = ST_SELECT;
		st->select = p_select(p);
		p_error_within(p, st->select);
	} else if (kw == KW_INSERT || kw == KW_REPLACE) {
		p_insert(p, st);
	} else if (kw == KW_UPDATE) {
		p_update(p, st);
	} else if (kw == KW_DELETE) {
		p_delete(p, st);
	} else if (kw == KW_CREATE) {
		p_next(p);
		p_create(p, st);
	} else if (kw == KW_ALTER) {
		p_next(p);
		p_alter(p, st);
	} else if (kw == KW_DROP) {
		p_next(p);
		st->kind = ST_OTHER;
		if (p_kw(p, KW_TABLE)) {
			p_next(p);
			st->kind = ST_DROP_TABLE;
			if (p_kw(p, KW_IF) && p_kw_at(p, 1, KW_EXISTS)) {
				p_next(p);
				p_next(p);
				st->if_exists = 1;
			}
			p_qualified(p, &st->schema, &st->table, "a table name");
		} else if (p_kw(p, KW_VIEW)) {
			/* kept as text; its name for suql's catalog of views (engine_ddl.c) */
			p_next(p);
			st->drop_view = 1;
			if (p_kw(p, KW_IF) && p_kw_at(p, 1, KW_EXISTS)) {
				p_next(p);
				p_next(p);
				st->if_exists = 1;
			}
			p_qualified(p, &st->schema, &st->table, "a view name");
		}
		p_skip_rest(p, 0);
	} else if (other_statement(kw)) {
		st->kind = ST_OTHER;
		st->lead = kw;
		if (kw == KW_BEGIN)
			txn_modes(p, st);
		p_skip_rest(p, 0);
	} else if (t.type == TK_EOF) {
		p_unexpected(p, "a statement");
	} else if (t.type == TK_LP && p_starts_select(p, 1)) {
		p_fail_at(p, t, "remove the parentheses around the SELECT",
		          "a statement cannot start with '('");
	} else {
		p_unexpected(p, "a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, ...)");
	}
	if (with && st->kind == ST_SELECT)
		st->select->with = with;
	else
		st->with = with;
	Token end = p_tok(p);
	if (end.type != TK_EOF && end.type != TK_SEMI) {
		if (end.type == TK_RP)
			p_fail_at(p, end, "remove it, or add the '(' it should close",
			          "unexpected ')' without a matching '('");
		p_unexpected(p, "the end of the statement");
	}
	size_t s = p_off(p, first);
	st->span = p_span_from(p, s);
	st->text = p_text_at(p, s);
	st->text_len = st->span.len;
	st->text_off = s;
	st->has_suql = p->has_suql;
	return st;
}

/* A parser over src[start..stop) of the caller's text src[0..len), copied into arena a. */
static void parser_init(Parser *p, const char *src, size_t len, size_t start, size_t stop,
                        Arena *a, SuqlErr *err)
{
	memset(p, 0, sizeof *p);
	p->src = src;
	p->srclen = len;
	p->base = start;
	p->arena = a;
	p->err = err;
	p->text = arena_strndup(a, src + start, stop - start);
	lex_init(&p->lx, p->text, stop - start, 0);
}

static SuqlStatus parse_run(Parser *p, const char *src, size_t len, size_t start,
                            size_t stmt_end, int complete, Ast **out, SuqlErr *err)
{
	Ast *ast = xcalloc(1, sizeof *ast);
	ast->arena = arena_new();
	parser_init(p, src, len, start, stmt_end, ast->arena, err);
	p->complete = complete;
	ast->src = p->text;
	ast->src_off = start;
	if (setjmp(p->fail)) {
		sb_free(&p->tmp);
		ast_free(ast);
		*out = NULL;
		return p->status;
	}
	ast->stmt = p_stmt(p);
	sb_free(&p->tmp);
	*out = ast;
	return SUQL_OK;
}

SuqlStatus parse_statement(const char *src, size_t len, size_t start, Ast **out, size_t *end,
                           SuqlErr *err)
{
	*out = NULL;
	if (start > len)
		start = len;
	int complete, empty;
	size_t e = lex_statement_end(src, len, start, &complete, &empty);
	*end = e;
	if (empty)
		return SUQL_OK;
	if (e - start > PARSE_MAX_INPUT) {
		Lexer lx;
		lex_init(&lx, src, len, start);
		Token t = lex_next(&lx);
		return err_at(err, SUQL_ERROR, src, len, t.off, 0, "split it into smaller statements",
		              "the statement is too long (%zu bytes; the limit is %zu MB)", e - start,
		              PARSE_MAX_INPUT / (1024 * 1024));
	}
	const char *nul = memchr(src + start, 0, e - start);
	if (nul)
		return err_at(err, SUQL_ERROR, src, len, (size_t)(nul - src), 1,
		              "SQL text cannot hold a NUL byte; use a blob like x'00'",
		              "unexpected NUL byte");
	Parser *p = xmalloc(sizeof *p);
	SuqlStatus s = parse_run(p, src, len, start, e, complete, out, err);
	free(p);
	return s;
}

SuqlStatus parse_expression(Arena *a, const char *src, size_t len, Expr **out, SuqlErr *err)
{
	Parser *p = xmalloc(sizeof *p);
	parser_init(p, src, len, 0, len, a, err);
	*out = NULL;
	if (setjmp(p->fail)) {
		SuqlStatus s = p->status;
		sb_free(&p->tmp);
		free(p);
		return s;
	}
	Expr *e = p_expr(p);
	if (!p_is(p, TK_EOF))
		p_unexpected(p, "the end of the expression");
	*out = e;
	sb_free(&p->tmp);
	free(p);
	return SUQL_OK;
}
