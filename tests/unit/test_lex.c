/* Unit tests for lex.c: token kinds, keywords, SUQL tokens, statement ends, and
   engine_complete, which the REPL uses to decide whether to read another line. */
#include "engine/engine.h"
#include "sql/lex.h"
#include "unit.h"

#include <sqlite3.h>
#include <stdio.h>

/* The token kinds of s, as a string of their numbers separated by spaces. */
static const char *kinds(const char *s)
{
	static char buf[512];
	Lexer lx;
	lex_init(&lx, s, strlen(s), 0);
	buf[0] = '\0';
	for (;;) {
		Token t = lex_next(&lx);
		if (t.type == TK_EOF)
			break;
		char one[16];
		snprintf(one, sizeof one, "%s%d", buf[0] ? " " : "", (int)t.type);
		strncat(buf, one, sizeof buf - strlen(buf) - 1);
	}
	return buf;
}

static Token first(const char *s)
{
	Lexer lx;
	lex_init(&lx, s, strlen(s), 0);
	return lex_next(&lx);
}

int main(void)
{
	int sorted = 1;
	for (int k = KW_NONE + 2; k < KW_COUNT; k++)
		if (strcmp(lex_keyword_name((Keyword)(k - 1)), lex_keyword_name((Keyword)k)) >= 0)
			sorted = 0;
	CHECK(sorted, "keyword table is alphabetical");
	int found = 1;
	for (int k = KW_NONE + 1; k < KW_COUNT; k++) {
		const char *w = lex_keyword_name((Keyword)k);
		if (lex_keyword(w, strlen(w)) != (Keyword)k) {
			printf("# %s is not found as keyword %d\n", w, k);
			found = 0;
		}
	}
	CHECK(found, "every keyword's spelling looks up to that keyword (names match the enum)");
	CHECK(lex_keyword("select", 6) == KW_SELECT && lex_keyword("SeLeCt", 6) == KW_SELECT,
	      "keywords are case-insensitive");
	CHECK(lex_keyword("selects", 7) == KW_NONE && lex_keyword("ANY", 3) == KW_NONE,
	      "words that are not keywords");
	CHECK(lex_keyword("current_timestamp", 17) == KW_CURRENT_TIMESTAMP, "longest keyword");
	CHECK(lex_keyword_is_fallback(KW_KEY) && lex_keyword_is_fallback(KW_REPLACE) &&
	      !lex_keyword_is_fallback(KW_SELECT) && !lex_keyword_is_fallback(KW_FROM),
	      "fallback keywords can be names, reserved ones cannot");
	CHECK(lex_keyword_is_join(KW_LEFT) && !lex_keyword_is_join(KW_JOIN), "join keywords");

	/* the fallback list is SQLite's own: a keyword names a column in SQLite exactly when
	   suql takes it as a name there (a fallback keyword, or a join keyword, which SQLite's
	   grammar takes as a column's name); the fuzzer found ROLLBACK missing */
	sqlite3 *db = NULL;
	sqlite3_open(":memory:", &db);
	int agree = 1;
	for (int k = KW_NONE + 1; k < KW_COUNT; k++) {
		char sql[96];
		snprintf(sql, sizeof sql, "CREATE TABLE kw_t(%s)", lex_keyword_name((Keyword)k));
		sqlite3_stmt *st = NULL;
		int takes = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
		sqlite3_finalize(st);
		int ours = lex_keyword_is_fallback((Keyword)k) || lex_keyword_is_join((Keyword)k);
		if (takes != ours) {
			printf("# %s: SQLite %s it as a column's name, suql %s\n",
			       lex_keyword_name((Keyword)k), takes ? "takes" : "refuses",
			       ours ? "takes" : "refuses");
			agree = 0;
		}
	}
	sqlite3_close(db);
	CHECK(agree, "every keyword is a name to suql exactly where it is one to SQLite");

	Token t = first("'it''s'");
	CHECK(t.type == TK_STRING && t.len == 7, "string with a doubled quote");
	CHECK(first("\"a\"\"b\"").type == TK_QID && first("`x`").type == TK_QID &&
	      first("[a b]").type == TK_QID, "three quoted identifier styles");
	CHECK(first("x'0aFF'").type == TK_BLOB && first("x'abc'").type == TK_ILLEGAL,
	      "blobs need an even number of hex digits");
	CHECK(first("0x1F").type == TK_INTEGER && first("1.5e-3").type == TK_FLOAT &&
	      first(".5").type == TK_FLOAT && first("12abc").type == TK_ILLEGAL &&
	      first("1e").type == TK_ILLEGAL, "numbers");
	CHECK(first("?12").type == TK_VARIABLE && first(":n").type == TK_VARIABLE &&
	      first("@n").type == TK_VARIABLE && first("$n").type == TK_VARIABLE &&
	      first("?").type == TK_VARIABLE, "parameters");
	t = first("$a::b(x) y");
	CHECK(t.type == TK_VARIABLE && t.len == 8 && first("#n").type == TK_VARIABLE &&
	      first("$(x)").type == TK_ILLEGAL && first("$a(x y)").type == TK_ILLEGAL,
	      "SQLite's TCL-style parameters");
	CHECK(first("\vx").type == TK_ILLEGAL && first(" \vx").type == TK_ID,
	      "a vertical tab only continues a run of blanks");
	CHECK(first("'abc").type == TK_UNTERM_STRING && first("\"abc").type == TK_UNTERM_QID &&
	      first("[abc").type == TK_UNTERM_QID, "unterminated strings and names");
	char ops[64];
	snprintf(ops, sizeof ops, "%d %d %d %d %d %d %d %d", TK_CONCAT, TK_PTR, TK_PTR2, TK_LSHIFT,
	         TK_RSHIFT, TK_LE, TK_GE, TK_EQ);
	CHECK_STR(kinds("|| -> ->> << >> <= >= =="), ops, "two-character operators");
	snprintf(ops, sizeof ops, "%d %d %d %d %d", TK_NE, TK_NE, TK_BITAND, TK_BITOR, TK_BITNOT);
	CHECK_STR(kinds("!= <> & | ~"), ops, "not-equal forms and bit operators");
	snprintf(ops, sizeof ops, "%d %d %d %d %d", TK_ID, TK_DCOLON, TK_ID, TK_CONTAINS, TK_ID);
	CHECK_STR(kinds("x::date @> y"), ops, "SUQL :: and @>");
	snprintf(ops, sizeof ops, "%d %d %d", TK_ID, TK_CONTAINED, TK_ID);
	CHECK_STR(kinds("a <@ b"), ops, "SUQL <@");
	snprintf(ops, sizeof ops, "%d %d %d", TK_ID, TK_LT, TK_VARIABLE);
	CHECK_STR(kinds("a <@b"), ops, "<@name stays SQLite's < and a parameter");
	snprintf(ops, sizeof ops, "%d %d %d %d", TK_ID, TK_LBRACKET, TK_STRING, TK_RBRACKET);
	CHECK_STR(kinds("ARRAY['x']"), ops, "[ after ARRAY is a bracket");
	snprintf(ops, sizeof ops, "%d %d", TK_ID, TK_ARRSUFFIX);
	CHECK_STR(kinds("TEXT[]"), ops, "[] is the array type suffix");
	snprintf(ops, sizeof ops, "%d %d", TK_ID, TK_QID);
	CHECK_STR(kinds("array [x]"), ops, "[x] after a space stays a quoted name");
	snprintf(ops, sizeof ops, "%d %d", TK_ID, TK_INTEGER);
	CHECK_STR(kinds("SELECT -- c\n/* d */ 1"), ops, "comments are skipped");
	Lexer lx;
	lex_init(&lx, "SELECT 1 /* open", 16, 0);
	lex_next(&lx);
	lex_next(&lx);
	CHECK(lex_next(&lx).type == TK_EOF && lx.unterm_comment, "unterminated comment is noted");

	int complete, empty;
	const char *s = "SELECT 1; SELECT 2";
	size_t e = lex_statement_end(s, strlen(s), 0, &complete, &empty);
	CHECK(e == 9 && complete && !empty, "statement ends after its ';'");
	e = lex_statement_end(s, strlen(s), e, &complete, &empty);
	CHECK(e == strlen(s) && !complete, "last statement without ';' is not complete");
	s = "SELECT ';' -- ;\n, \";\" /* ; */;";
	e = lex_statement_end(s, strlen(s), 0, &complete, &empty);
	CHECK(e == strlen(s) && complete, "';' in strings, names and comments does not count");
	s = "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT CASE WHEN 1 THEN 2 END; "
	    "UPDATE x SET a = 1; END; SELECT 1;";
	e = lex_statement_end(s, strlen(s), 0, &complete, &empty);
	CHECK(complete && strncmp(s + e - 4, "END;", 4) == 0 && s[e] == ' ',
	      "a trigger body holds ';' up to its END (CASE...END inside)");
	s = "  -- nothing\n /* here */ ";
	lex_statement_end(s, strlen(s), 0, &complete, &empty);
	CHECK(complete && empty, "blanks and comments only");

	CHECK(engine_complete("SELECT 1;", 9), "complete: one statement");
	CHECK(!engine_complete("SELECT 1", 8), "complete: no ';' yet");
	CHECK(!engine_complete("SELECT 'a;", 10), "complete: ';' inside a string");
	CHECK(engine_complete("SELECT 1; -- done", 17), "complete: a comment after ';'");
	CHECK(!engine_complete("SELECT 1; /* open", 17), "complete: an open comment");
	CHECK(engine_complete("", 0) && engine_complete("  \n", 3), "complete: blank text");
	/* SQLite's TCL-style parameter :a(...) runs to a blank or ')', quotes and ';' included */
	s = "SELECT :a(x';) FROM t WHERE b = 'c';";
	CHECK(engine_complete(s, strlen(s)), "complete: a quote inside :a(...) opens no string");
	s = "SELECT @a(x') 'y;";
	CHECK(!engine_complete(s, strlen(s)), "complete: ... so the next quote opens one");
	s = "SELECT #a(x';) FROM t;";
	CHECK(engine_complete(s, strlen(s)), "complete: ';' inside #a(...) ends nothing");
	s = "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1;";
	CHECK(!engine_complete(s, strlen(s)), "complete: trigger without END");
	s = "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END;";
	CHECK(engine_complete(s, strlen(s)), "complete: trigger with END;");
	return unit_done();
}
