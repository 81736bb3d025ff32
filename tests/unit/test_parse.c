/* Unit tests for the parser and the printers: tree shapes, precedence, the round trip,
   the executor's tools (visitor, copies, constructors, printer hooks), and the caps. */
#include "sql/ast.h"
#include "sql/parse.h"
#include "sql/print.h"
#include "unit.h"

#include <stdlib.h>

static Ast *parse1(const char *s)
{
	Ast *ast = NULL;
	size_t end;
	SuqlErr err = {0};
	parse_statement(s, strlen(s), 0, &ast, &end, &err);
	err_clear(&err);
	return ast;
}

static char *sql_of(const char *s)
{
	Ast *ast = parse1(s);
	if (!ast)
		return xstrdup("(error)");
	char *r = print_sql_stmt(ast);
	ast_free(ast);
	return r;
}

static char *suql_of(const char *s)
{
	Ast *ast = parse1(s);
	if (!ast)
		return xstrdup("(error)");
	char *r = print_suql_stmt(ast);
	ast_free(ast);
	return r;
}

static SuqlStatus status_of(const char *s, size_t len, char **msg)
{
	Ast *ast = NULL;
	size_t end;
	SuqlErr err = {0};
	SuqlStatus st = parse_statement(s, len, 0, &ast, &end, &err);
	if (msg)
		*msg = err.msg ? xstrdup(err.msg) : NULL;
	err_clear(&err);
	ast_free(ast);
	return st;
}

static int count_answers(void *ctx, Expr *e)
{
	if (e->kind == EX_ANSWER)
		(*(int *)ctx)++;
	return AST_CONTINUE;
}

/* A hook that prints every answer() as a reference to a precomputed column. */
static int hook(void *ctx, Printer *pr, const Expr *e)
{
	int *n = ctx;
	if (e->kind != EX_ANSWER)
		return 0;
	char buf[32];
	snprintf(buf, sizeof buf, "r.ans%d", ++*n);
	print_raw(pr, buf);
	return 1;
}

static int hook_sum(void *ctx, Printer *pr, const Expr *e)
{
	(void)ctx;
	if (e->kind != EX_ANSWER)
		return 0;
	print_raw(pr, "x + 1");
	return 1;
}

static int hook_func(void *ctx, Printer *pr, const Expr *e)
{
	(void)ctx;
	if (e->kind != EX_SUMMARY)
		return 0;
	print_raw(pr, "my_summary(");
	print_expr(pr, e->left);   /* back into the printer for the operand */
	print_raw(pr, ")");
	return 1;
}

int main(void)
{
	char *s;
	/* precedence and associativity, seen through the normalised printer */
	s = suql_of("SELECT (1 + 2) * 3, 1 + (2 * 3), (a - b) - c, a - (b - c)");
	CHECK_STR(s, "SELECT (1 + 2) * 3, 1 + 2 * 3, a - b - c, a - (b - c)",
	          "parentheses kept only where precedence needs them");
	free(s);
	s = suql_of("SELECT NOT a = b, (NOT a) = b, a OR b AND c, (a OR b) AND c");
	CHECK_STR(s, "SELECT NOT a = b, (NOT a) = b, a OR b AND c, (a OR b) AND c",
	          "NOT binds looser than =, AND tighter than OR");
	free(s);
	s = suql_of("SELECT - - 1, -(-a), - (1 + 2)");
	CHECK_STR(s, "SELECT - -1, - -a, -(1 + 2)", "unary minus never prints as a comment");
	free(s);
	/* ERROR WITHIN e% AT CONFIDENCE c% [SEED n]: SUQL prints it, SQL (what SQLite checks)
	   does not; a table named error keeps its alias; out-of-range numbers are refused */
	s = suql_of("SELECT count(*) FROM t WHERE answer(r, 'q') = 'Yes' GROUP BY c "
	            "error within 7.5% at confidence 90% seed 3");
	CHECK_STR(s, "SELECT count(*) FROM t WHERE answer(r, 'q') = 'Yes' GROUP BY c ERROR WITHIN "
	          "7.5% AT CONFIDENCE 90% SEED 3", "ERROR WITHIN: the SUQL printer keeps the clause");
	free(s);
	s = sql_of("SELECT count(*) FROM t ERROR WITHIN 10% AT CONFIDENCE 95%");
	CHECK_STR(s, "SELECT count(*) FROM t", "ERROR WITHIN: not in the SQL SQLite checks");
	free(s);
	s = sql_of("SELECT error.a FROM t error WHERE a = 1");
	CHECK_STR(s, "SELECT error.a FROM t AS error WHERE a = 1",
	          "ERROR WITHIN: error is still an alias");
	{
		const char *bad[] = {"SELECT count(*) FROM t ERROR WITHIN 0% AT CONFIDENCE 95%",
		                     "SELECT count(*) FROM t ERROR WITHIN 10% AT CONFIDENCE 100%",
		                     "SELECT count(*) FROM t ERROR WITHIN 101% AT CONFIDENCE 95%",
		                     "SELECT count(*) FROM t ERROR WITHIN 10 AT CONFIDENCE 95%",
		                     "SELECT count(*) FROM t ERROR WITHIN 10% AT CONFIDENCE 95% SEED -1",
		                     "SELECT count(*) FROM t ERROR WITHIN 10%",
		                     "SELECT * FROM (SELECT 1 ERROR WITHIN 10% AT CONFIDENCE 95%)", NULL};
		int all = 1;
		for (int i = 0; bad[i]; i++) {
			char *m = NULL;
			all &= status_of(bad[i], strlen(bad[i]), &m) != SUQL_OK && m && strstr(m, "^");
			free(m);
		}
		CHECK(all, "ERROR WITHIN: bad numbers, a missing part or a subquery's clause refused, "
		      "with a caret");
	}
	free(s);
	s = suql_of("SELECT a COLLATE nocase || b, -x::int, x::int::text");
	CHECK_STR(s, "SELECT a COLLATE nocase || b, -x::int, x::int::text", "postfix operators");
	free(s);

	/* statements kept as text: their first keyword, and BEGIN's READ WRITE placed */
	const char *bq = "BEGIN ISOLATION LEVEL READ COMMITTED, read /* c */ WRITE";
	Ast *tx = parse1(bq);
	CHECK(tx && tx->stmt->kind == ST_OTHER && tx->stmt->lead == KW_BEGIN &&
	      tx->stmt->read_write.off == 38 && tx->stmt->read_write.len == 18,
	      "BEGIN: READ WRITE found among its modes, a comment between, its span placed");
	ast_free(tx);
	tx = parse1("BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY");
	CHECK(tx && tx->stmt->lead == KW_BEGIN && tx->stmt->read_write.len == 0,
	      "BEGIN ... READ ONLY (and READ COMMITTED) is no READ WRITE");
	ast_free(tx);
	tx = parse1("ANALYZE t");
	CHECK(tx && tx->stmt->kind == ST_OTHER && tx->stmt->lead == KW_ANALYZE,
	      "ANALYZE: kept as text, its keyword known");
	ast_free(tx);
	tx = parse1("SELECT 1");
	CHECK(tx && tx->stmt->lead == KW_NONE, "a parsed statement has no lead keyword");
	ast_free(tx);

	/* tree shapes */
	Ast *ast = parse1("SELECT * FROM t WHERE 'x' = ANY (tags) AND answer(r, 'q') = 'Yes' "
	                  "ORDER BY a LIMIT 2");
	CHECK(ast && ast->stmt->kind == ST_SELECT, "select parses");
	SelectCore *core = ast ? ast_simple_core(ast->stmt->select) : NULL;
	CHECK(core && core->where && core->where->kind == EX_BINARY && core->where->op == OP_AND,
	      "WHERE is an AND");
	CHECK(core && core->where->left->kind == EX_QUANT && core->where->left->quant == Q_ANY &&
	      core->where->right->left->kind == EX_ANSWER, "SUQL nodes have kinds of their own");
	CHECK(ast && ast->stmt->has_suql, "statement knows it holds SUQL");
	CHECK(ast && ast->stmt->select->limit && ast->stmt->select->order,
	      "ORDER BY and LIMIT on the select");
	Expr **slots[4];
	CHECK(core && ast_expr_children(core->where, slots, 4) == 2 && *slots[0] == core->where->left,
	      "children give the slots");
	int n = 0;
	AstVisitor v = {0};
	v.ctx = &n;
	v.expr = count_answers;
	ast_visit_stmt(ast->stmt, &v);
	CHECK(n == 1, "visitor finds the answer() call");

	/* copies and constructors */
	Arena *a = arena_new();
	Expr *c = ast_expr_copy(a, core->where);
	SBuf d1 = SBUF_INIT, d2 = SBUF_INIT;
	ast_dump_expr(&d1, core->where);
	ast_dump_expr(&d2, c);
	CHECK(strcmp(sb_str(&d1), sb_str(&d2)) == 0 && c != core->where && c->left != core->where->left,
	      "deep copy has the same structure");
	Expr *pred = ast_binary(a, OP_AND, ast_binary(a, OP_EQ, ast_column(a, "t", "price"),
	                                               ast_string(a, "it's")),
	                        ast_unary(a, OP_NOT, ast_binary(a, OP_OR, ast_column(a, NULL, "select"),
	                                                        ast_integer(a, -3))));
	Printer *pr = print_new(PRINT_SQL, NULL, NULL, 0);
	print_expr(pr, pred);
	CHECK_STR(print_text(pr), "t.price = 'it''s' AND NOT (\"select\" OR -3)",
	          "built nodes print with quotes and parentheses");
	print_free(pr);
	arena_free(a);
	sb_free(&d1);
	sb_free(&d2);

	/* hooks */
	n = 0;
	PrintHooks hk = {&n, hook, NULL};
	pr = print_new(PRINT_SQL, &hk, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	CHECK(strstr(print_text(pr), "r.ans1 = 'Yes'") != NULL && n == 1,
	      "expression hook replaces answer()");
	print_free(pr);
	hk.expr = hook_sum;
	pr = print_new(PRINT_SQL, &hk, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	CHECK(strstr(print_text(pr), "(x + 1) = 'Yes'") != NULL,
	      "a hook's output is parenthesised inside an operator");
	print_free(pr);
	ast_free(ast);
	/* a subquery in FROM without a name gets one for PostgreSQL (before 16 it wants
	   one), and only there */
	ast = parse1("SELECT n FROM (SELECT 1 AS n) WHERE n IN (SELECT n FROM (SELECT 1 AS n) "
	             "AS named)");
	pr = print_new(PRINT_PG, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	CHECK_STR(print_text(pr), "SELECT n FROM (SELECT 1 AS n) AS suql_sub1 WHERE n IN "
	          "(SELECT n FROM (SELECT 1 AS n) AS named)",
	          "PostgreSQL: an unnamed subquery in FROM is named, a named one kept");
	print_free(pr);
	pr = print_new(PRINT_SQL, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	CHECK(strstr(print_text(pr), "suql_sub") == NULL, "SQLite: it stays unnamed");
	print_free(pr);
	ast_free(ast);
	ast = parse1("SELECT summary(a || b) * 2 FROM t");
	hk.expr = hook_func;
	pr = print_new(PRINT_SQL, &hk, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	CHECK(strstr(print_text(pr), "my_summary(a || b) * 2") != NULL,
	      "a hook calls back into the printer for the operand");
	print_free(pr);
	ast_free(ast);

	/* position map: output offsets lead back to the source */
	const char *src = "SELECT   nme FROM t";
	ast = parse1(src);
	pr = print_new(PRINT_SQL, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	const char *out = print_text(pr);
	size_t at = (size_t)(strstr(out, "nme") - out);
	CHECK(print_map(pr, at) == 9, "position map finds the source offset");
	print_free(pr);
	ast_free(ast);

	/* round trip of statements of every kind */
	static const char *const RT[] = {
		"SELECT a, b AS c FROM t AS x LEFT JOIN u ON x.a = u.a WHERE a > 1 GROUP BY a "
		"HAVING count(*) > 1 ORDER BY 1 DESC NULLS LAST LIMIT 5 OFFSET 2",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT * FROM c",
		"INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = a + 1 RETURNING a",
		"UPDATE t SET a = 1 WHERE b IN (SELECT b FROM u)", "DELETE FROM t WHERE a = ?1",
		"CREATE TABLE r (name TEXT, tags TEXT[], p ENUM('a', 'b'), rev FREE_TEXT[])",
		"SELECT x FROM t, unnest(arr) AS x WHERE x @> ARRAY['a'] AND x ILIKE 'b%'",
		"SELECT answer(r, 'q')::date, summary(r) FROM t WHERE 1 < ALL (SELECT n FROM u)",
		"SELECT CASE WHEN a THEN b ELSE c END, CAST(x AS INT), EXISTS (SELECT 1)",
		/* found by the fuzzer: the printers write answer() and summary() in lower case */
		"SELECT ANSWER(reviews, 'q'), Summary(reviews) FROM restaurants",
	};
	int rt_ok = 1;
	for (size_t i = 0; i < sizeof RT / sizeof RT[0]; i++) {
		Ast *x = parse1(RT[i]);
		char *q = x ? print_suql_stmt(x) : NULL;
		Ast *y = q ? parse1(q) : NULL;
		if (!x || !y || !ast_equal(x->stmt, y->stmt)) {
			printf("# round trip failed: %s\n", RT[i]);
			rt_ok = 0;
		}
		free(q);
		ast_free(x);
		ast_free(y);
	}
	CHECK(rt_ok, "parse(print_suql(tree)) is the same tree");

	/* translations */
	s = sql_of("SELECT * FROM t WHERE 'a' = ANY (tags)");
	CHECK_STR(s, "SELECT * FROM t WHERE 'a' IN (SELECT value FROM json_each(tags))", "= ANY");
	free(s);
	s = sql_of("SELECT x FROM t, unnest(arr) AS x");
	CHECK_STR(s, "SELECT x.value AS \"x\" FROM t, json_each(arr) AS x", "unnest element");
	free(s);

	/* parse_expression and names */
	a = arena_new();
	Expr *ex = NULL;
	SuqlErr e2 = {0};
	const char *xs = "price = 'cheap' AND \"Flag Bearer\" IS NOT NULL";
	CHECK(parse_expression(a, xs, strlen(xs), &ex, &e2) == SUQL_OK && ex && ex->kind == EX_BINARY && ex->op == OP_AND &&
	      ast_name_is(ex->right->left->name, "flag bearer"), "parse_expression");
	CHECK(parse_expression(a, "a +", 3, &ex, &e2) == SUQL_INCOMPLETE && !ex,
	      "parse_expression: incomplete");
	err_clear(&e2);
	AstName nm = ast_name_make(a, "Flag Bearer");
	CHECK(nm.n == 13 && nm.s[0] == '"' && strcmp(ast_name_value(a, nm), "Flag Bearer") == 0,
	      "names: made with quotes, read without");
	CHECK(ast_name_make(a, "select").s[0] == '"' && ast_name_make(a, "plain").s[0] == 'p',
	      "names: keywords are quoted, plain words are not");
	AstName q1 = {"[a b]", 5, 0}, q2 = {"`A B`", 5, 0};
	CHECK(ast_name_eq(q1, q2), "names: quoting styles and case do not matter");
	AstName dq = {"\"a\"\"B\"", 6, 0}, br = {"[a\"\"b]", 6, 0}, pl = {"ab", 2, 0};
	AstName sq = {"'it''s'", 7, 0}, lone = {"\"", 1, 0};
	CHECK(strcmp(ast_name_value(a, dq), "a\"B") == 0 &&
	      strcmp(ast_name_value(a, br), "a\"\"b") == 0 &&
	      strcmp(ast_name_value(a, sq), "it's") == 0 && strcmp(ast_name_value(a, lone), "\"") == 0,
	      "names: a doubled quote reads as one, except inside brackets");
	CHECK(ast_name_is(dq, "A\"b") && !ast_name_is(dq, "a\"") && !ast_name_is(dq, "a\"Bc") &&
	      ast_name_is(pl, "AB") && !ast_name_is(pl, "abc"),
	      "names: ast_name_is compares whole values, case-insensitively");
	AstName pq = {"\"ab\"", 4, 0}, none = {NULL, 0, 0};
	CHECK(ast_name_eq(pl, pq) && ast_name_eq(pq, pl) && !ast_name_eq(pl, dq) &&
	      !ast_name_eq(pl, none) && ast_name_eq(none, none),
	      "names: ast_name_eq with plain, quoted and absent names");
	arena_free(a);

	/* errors and caps */
	char *msg = NULL;
	CHECK(status_of("SELECT (1", 9, &msg) == SUQL_INCOMPLETE && msg &&
	      strstr(msg, "incomplete input"), "input ending mid-statement is incomplete");
	free(msg);
	CHECK(status_of("SELECT 'x", 9, NULL) == SUQL_INCOMPLETE, "unterminated string");
	size_t deep = 10000;
	char *p = xmalloc(2 * deep + 16);
	strcpy(p, "SELECT ");
	memset(p + 7, '(', deep);
	p[7 + deep] = '1';
	memset(p + 8 + deep, ')', deep);
	p[8 + 2 * deep] = '\0';
	CHECK(status_of(p, strlen(p), &msg) == SUQL_ERROR && msg && strstr(msg, "too deeply"),
	      "10,000 nested parentheses: an error, not a crash");
	free(msg);
	free(p);
	size_t big = 10 * 1024 * 1024;
	p = xmalloc(big + 32);
	strcpy(p, "SELECT '");
	memset(p + 8, 'x', big);
	strcpy(p + 8 + big, "'");
	ast = parse1(p);
	CHECK(ast != NULL, "a 10 MB string literal parses");
	s = ast ? print_sql_stmt(ast) : NULL;
	CHECK(s && strlen(s) > big, "and prints");
	free(s);
	ast_free(ast);
	free(p);
	/* long left-deep chains stay within the depth cap */
	SBuf chain = SBUF_INIT;
	sb_puts(&chain, "SELECT 1");
	for (int i = 0; i < 5000; i++)
		sb_puts(&chain, " + 1");
	CHECK(status_of(chain.s, chain.len, &msg) == SUQL_ERROR && msg && strstr(msg, "too deep"),
	      "5,000 chained operators: an error");
	free(msg);
	sb_free(&chain);
	unsigned seed = 12345;
	int crashed = 0;
	for (int i = 0; i < 2000; i++) {
		char buf[256];
		size_t len = 1 + (size_t)(i % 255);
		for (size_t k = 0; k < len; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[k] = (char)(seed >> 16);
		}
		SuqlStatus st = status_of(buf, len, NULL);
		if (st != SUQL_OK && st != SUQL_ERROR && st != SUQL_INCOMPLETE)
			crashed = 1;
	}
	CHECK(!crashed, "random bytes: a status, never a crash");
	return unit_done();
}
