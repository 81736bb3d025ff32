/*
 * print_sql.c: the SUQL forms, printed as SUQL or translated to SQLite (see print.h and
 * doc/frontend.md for each translation).
 *
 * Arrays are JSON text, so the array forms go through json_each. A subquery over
 * json_each(A) brings json_each's column names (key, value, type, atom, id, parent,
 * fullkey, path, json, root) into scope; when an operand mentions one of those names
 * unqualified, it would be captured, so the operands are first evaluated in a derived
 * table (SELECT operand AS suql_x) and referred to through it.
 */
#include "sql/print_int.h"

#include <stdio.h>
#include <string.h>

/* ---- unnest ---- */
static const FromItem *unnest_match(const Printer *pr, const Expr *e)
{
	if (pr->mode != PRINT_SQL || e->kind != EX_COLUMN || e->schema.s)
		return NULL;
	for (int i = pr->nscope - 1; i >= 0; i--) {
		const FromItem *f = pr->scope[i];
		AstName tab = f->alias.s ? f->alias : f->name;
		if (f->alias_cols && f->alias_cols->n > 0) {
			if (ast_name_eq(e->name, f->alias_cols->items[0]) &&
			    (!e->table.s || ast_name_eq(e->table, tab)))
				return f;
		} else if (!e->table.s && ast_name_eq(e->name, tab)) {
			return f;
		}
	}
	return NULL;
}

int pr_is_unnest_column(const Printer *pr, const Expr *e)
{
	return unnest_match(pr, e) != NULL;
}

int pr_unnest_column(Printer *pr, const Expr *e)
{
	const FromItem *f = unnest_match(pr, e);
	if (!f)
		return 0;
	print_name(pr, f->alias.s ? f->alias : f->name);
	print_raw(pr, ".value");
	return 1;
}

void pr_unnest_from(Printer *pr, const FromItem *f)
{
	if (pr->mode != PRINT_SQL) {
		print_name(pr, f->name);
		print_raw(pr, "(");
		pr_list(pr, f->args);
		print_raw(pr, ")");
		if (f->alias.s) {
			print_raw(pr, " AS ");
			print_name(pr, f->alias);
			if (f->alias_cols) {
				print_raw(pr, "(");
				print_name(pr, f->alias_cols->items[0]);
				print_raw(pr, ")");
			}
		}
		return;
	}
	print_raw(pr, "json_each(");
	pr_list(pr, f->args);
	print_raw(pr, ") AS ");
	print_name(pr, f->alias.s ? f->alias : f->name);
}

/* ---- capture check ---- */
static const char *const JSON_EACH_COLS[] = {
	"key", "value", "type", "atom", "id", "parent", "fullkey", "path", "json", "root",
};

static int capture_cb(void *ctx, Expr *e)
{
	(void)ctx;
	if (e->kind != EX_COLUMN || e->table.s)
		return AST_CONTINUE;
	for (size_t i = 0; i < sizeof JSON_EACH_COLS / sizeof JSON_EACH_COLS[0]; i++)
		if (ast_name_is(e->name, JSON_EACH_COLS[i]))
			return AST_STOP;
	return AST_CONTINUE;
}

/* Nonzero when e can be printed inside a json_each subquery without name capture. */
static int safe_in_json_each(const Printer *pr, const Expr *e)
{
	if (pr->hooks.expr)
		return 0;   /* a hook may print anything: always go through a derived table */
	AstVisitor v = {0};
	v.expr = capture_cb;
	return ast_visit_expr((Expr *)e, &v) != AST_STOP;
}

/* ---- precedence of what a form prints as ---- */
static int quant_is_in(const Expr *e)
{
	return (e->op == OP_EQ && e->quant != Q_ALL) || (e->op == OP_NE && e->quant == Q_ALL);
}

int pr_suql_prec(const Printer *pr, const Expr *e)
{
	if (pr->mode != PRINT_SQL)
		return ast_prec(e);
	switch (e->kind) {
	case EX_LIKE: return PREC_EQ;
	case EX_QUANT:
		if (quant_is_in(e))
			return PREC_EQ;
		return e->quant == Q_ALL ? PREC_NOT : PREC_PRIMARY;
	case EX_CONTAINS: return PREC_NOT;
	default: return PREC_PRIMARY;
	}
}

/* ---- translations ---- */
void pr_typed_answer(Printer *pr, const Expr *a, PgType pg)
{
	pr_map(pr, a->span.off, a->span.len);
	print_raw(pr, "suql_answer(");
	print_expr(pr, a->left);
	print_raw(pr, ", ");
	print_expr(pr, a->right);
	print_raw(pr, ", '");
	print_raw(pr, ast_pg_name(pg));
	print_raw(pr, "')");
}

static int is_interval(const Expr *e)
{
	return e->kind == EX_PGCAST && e->type->pg == PGT_INTERVAL;
}

static void pr_interval_mods(Printer *pr, const Expr *iv, int neg, const char *sep)
{
	char mods[AST_INTERVAL_MAX][AST_INTERVAL_MOD];
	int n = ast_interval_mods(iv->left->name.s, iv->left->name.n, mods, NULL);
	for (int i = 0; i < n; i++) {
		if (neg)
			mods[i][0] = mods[i][0] == '-' ? '+' : '-';
		print_raw(pr, i ? sep : "'");
		print_raw(pr, mods[i]);
	}
	print_raw(pr, "'");
}

/* What x is: a time (PGT_TIME), a date and time (PGT_TIMESTAMP) or a date (PGT_DATE), as far
   as its form says; a sum with an interval is what date_func makes of it. */
static PgType temporal(const Expr *x)
{
	if (x->kind == EX_PGCAST && (x->type->pg == PGT_TIME || x->type->pg == PGT_TIMESTAMP))
		return x->type->pg;
	if (x->kind == EX_LITERAL)
		return x->lit == LIT_CURRENT_TIME ? PGT_TIME
		       : x->lit == LIT_CURRENT_TIMESTAMP ? PGT_TIMESTAMP : PGT_DATE;
	if (x->kind == EX_FUNC)
		return ast_name_is(x->name, "time") ? PGT_TIME
		       : ast_name_is(x->name, "datetime") ? PGT_TIMESTAMP : PGT_DATE;
	if (x->kind == EX_BINARY && (is_interval(x->left) || is_interval(x->right))) {
		const Expr *iv = is_interval(x->left) ? x->left : x->right;
		int t = 0;
		ast_interval_mods(iv->left->name.s, iv->left->name.n, NULL, &t);
		PgType y = temporal(is_interval(x->left) ? x->right : x->left);
		return y == PGT_TIME ? PGT_TIME : t ? PGT_TIMESTAMP : y;
	}
	return PGT_DATE;
}

/* The date function that keeps what x is, and the time of day an interval adds */
static const char *date_func(const Expr *x, int has_time)
{
	PgType t = temporal(x);
	return t == PGT_TIME ? "time(" : has_time || t == PGT_TIMESTAMP ? "datetime(" : "date(";
}

/* x + INTERVAL '3 days' -> date(x, '+3 days'); datetime() when the interval or x has a
   time of day, time() for a time. 1 when e was such a sum or difference. */
int pr_interval_sql(Printer *pr, const Expr *e)
{
	if (e->op != OP_ADD && e->op != OP_SUB)
		return 0;
	int l = is_interval(e->left), r = is_interval(e->right);
	if (l == r)
		return 0;
	const Expr *x = l ? e->right : e->left, *iv = l ? e->left : e->right;
	int has_time = 0;
	if (ast_interval_mods(iv->left->name.s, iv->left->name.n, NULL, &has_time) <= 0)
		return 0;
	print_raw(pr, date_func(x, has_time));
	print_expr(pr, x);
	print_raw(pr, ", ");
	pr_interval_mods(pr, iv, e->op == OP_SUB, "', '");
	print_raw(pr, ")");
	return 1;
}

static void pr_pgcast_sql(Printer *pr, const Expr *e)
{
	PgType pg = e->type->pg;
	if (pg == PGT_INTERVAL) {   /* alone: its modifiers as text */
		pr_interval_mods(pr, e, 0, " ");
		return;
	}
	if (e->left->kind == EX_ANSWER && !e->left->extra && !pr->hooks.expr) {
		pr_typed_answer(pr, e->left, pg);
		return;
	}
	/* with a hook, the hook sees the answer() call and the conversion goes around it */
	switch (pg) {
	case PGT_DATE: case PGT_TIMESTAMP: case PGT_TIME:
		print_raw(pr, pg == PGT_DATE ? "date(" : pg == PGT_TIME ? "time(" : "datetime(");
		print_expr(pr, e->left);
		print_raw(pr, ")");
		return;
	case PGT_BOOL:
		/* one evaluation of the operand (a simple CASE); anything else is NULL */
		print_raw(pr, "CASE lower(trim(CAST(");
		print_expr(pr, e->left);
		print_raw(pr, " AS TEXT))) WHEN 'true' THEN 1 WHEN 't' THEN 1 WHEN 'yes' THEN 1 "
		              "WHEN 'y' THEN 1 WHEN 'on' THEN 1 WHEN '1' THEN 1 WHEN '1.0' THEN 1 "
		              "WHEN 'false' THEN 0 WHEN 'f' THEN 0 WHEN 'no' THEN 0 WHEN 'n' THEN 0 "
		              "WHEN 'off' THEN 0 WHEN '0' THEN 0 WHEN '0.0' THEN 0 END");
		return;
	default: {
		const char *t = pg == PGT_INT ? "INTEGER" : pg == PGT_REAL ? "REAL" :
		                pg == PGT_NUMERIC ? "NUMERIC" : "TEXT";
		print_raw(pr, "CAST(");
		print_expr(pr, e->left);
		print_raw(pr, " AS ");
		print_raw(pr, t);
		print_raw(pr, ")");
		return;
	}
	}
}

static const char *cmp_text(int op)
{
	switch (op) {
	case OP_EQ: return " = ";
	case OP_NE: return " != ";
	case OP_LT: return " < ";
	case OP_LE: return " <= ";
	case OP_GT: return " > ";
	case OP_GE: return " >= ";
	default: return " = ";
	}
}

static void quant_kw(Printer *pr, const Expr *e)
{
	print_raw(pr, e->quant == Q_ALL ? "ALL" : e->quant == Q_SOME ? "SOME" : "ANY");
}

/* "(SELECT x AS xname, arr AS suql_a) AS s, json_each(s.suql_a)": the operands evaluated
   in a derived table, out of reach of json_each's column names (x may be NULL). */
static void pr_derived(Printer *pr, const Expr *x, const char *xname, const Expr *arr,
                       const char *s)
{
	print_raw(pr, "(SELECT ");
	if (x) {
		print_expr(pr, x);
		print_raw(pr, " AS ");
		print_raw(pr, xname);
		print_raw(pr, ", ");
	}
	print_expr(pr, arr);
	print_raw(pr, " AS suql_a) AS ");
	print_raw(pr, s);
	print_raw(pr, ", json_each(");
	print_raw(pr, s);
	print_raw(pr, ".suql_a)");
}

static void pr_quant_sql(Printer *pr, const Expr *e)
{
	int n = ++pr->uniq;
	char j[32], s[32];
	snprintf(j, sizeof j, "suql_j%d", n);
	snprintf(s, sizeof s, "suql_s%d", n);
	int all = e->quant == Q_ALL;
	if (e->select) {
		if (quant_is_in(e)) {
			pr_expr_prec(pr, e->left, PREC_EQ);
			print_raw(pr, all ? " NOT IN (" : " IN (");
			print_select(pr, e->select);
			print_raw(pr, ")");
			return;
		}
		/* a CTE names the subquery's one column */
		print_raw(pr, all ? "NOT EXISTS (WITH " : "EXISTS (WITH ");
		print_raw(pr, j);
		print_raw(pr, "(suql_v) AS (");
		print_select(pr, e->select);
		print_raw(pr, ") SELECT 1 FROM ");
		print_raw(pr, j);
		print_raw(pr, " WHERE ");
		if (all)
			print_raw(pr, "(");
		pr_expr_prec(pr, e->left, ast_binop_prec(e->op) + 1);
		print_raw(pr, cmp_text(e->op));
		print_raw(pr, j);
		print_raw(pr, ".suql_v");
		print_raw(pr, all ? ") IS NOT 1)" : ")");
		return;
	}
	int safe_arr = safe_in_json_each(pr, e->right);
	if (quant_is_in(e)) {
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, all ? " NOT IN (" : " IN (");
		if (safe_arr) {
			print_raw(pr, "SELECT value FROM json_each(");
			print_expr(pr, e->right);
			print_raw(pr, "))");
		} else {
			print_raw(pr, "SELECT ");
			print_raw(pr, j);
			print_raw(pr, ".value FROM ");
			pr_derived(pr, NULL, NULL, e->right, s);
			print_raw(pr, " AS ");
			print_raw(pr, j);
			print_raw(pr, ")");
		}
		return;
	}
	int safe = safe_arr && safe_in_json_each(pr, e->left);
	print_raw(pr, all ? "NOT EXISTS (SELECT 1 FROM " : "EXISTS (SELECT 1 FROM ");
	if (safe) {
		print_raw(pr, "json_each(");
		print_expr(pr, e->right);
		print_raw(pr, ") AS ");
		print_raw(pr, j);
		print_raw(pr, all ? " WHERE (" : " WHERE ");
		pr_expr_prec(pr, e->left, ast_binop_prec(e->op) + 1);
	} else {
		pr_derived(pr, e->left, "suql_x", e->right, s);
		print_raw(pr, " AS ");
		print_raw(pr, j);
		print_raw(pr, all ? " WHERE (" : " WHERE ");
		print_raw(pr, s);
		print_raw(pr, ".suql_x");
	}
	print_raw(pr, cmp_text(e->op));
	print_raw(pr, j);
	print_raw(pr, ".value");
	print_raw(pr, all ? ") IS NOT 1)" : ")");
}

/* big @> small: every element of small is in big (no element of small is missing from
   big); a && b: some element of b is in a. The same two nested json_each scans, negated for
   containment. */
static void pr_contains_sql(Printer *pr, const Expr *e)
{
	const Expr *big = e->op == OP_CONTAINS || e->op == OP_OVERLAP ? e->left : e->right;
	const Expr *small = e->op == OP_CONTAINS || e->op == OP_OVERLAP ? e->right : e->left;
	const char *no = e->op == OP_OVERLAP ? "" : "NOT ";
	int n = ++pr->uniq;
	char j[32], k[32], s[32];
	snprintf(j, sizeof j, "suql_j%d", n);
	snprintf(k, sizeof k, "suql_k%d", n);
	snprintf(s, sizeof s, "suql_s%d", n);
	int safe = safe_in_json_each(pr, big) && safe_in_json_each(pr, small);
	print_raw(pr, no);
	print_raw(pr, "EXISTS (SELECT 1 FROM ");
	if (safe) {
		print_raw(pr, "json_each(");
		print_expr(pr, small);
		print_raw(pr, ")");
	} else {
		pr_derived(pr, big, "suql_b", small, s);
	}
	print_raw(pr, " AS ");
	print_raw(pr, j);
	print_raw(pr, " WHERE ");
	print_raw(pr, no);
	print_raw(pr, "EXISTS (SELECT 1 FROM json_each(");
	if (safe) {
		print_expr(pr, big);
	} else {
		print_raw(pr, s);
		print_raw(pr, ".suql_b");
	}
	print_raw(pr, ") AS ");
	print_raw(pr, k);
	print_raw(pr, " WHERE ");
	print_raw(pr, k);
	print_raw(pr, ".value = ");
	print_raw(pr, j);
	print_raw(pr, ".value))");
}

void pr_suql_form(Printer *pr, const Expr *e)
{
	int sql = pr->mode == PRINT_SQL;
	switch (e->kind) {
	case EX_ANSWER:
		/* a constrained answer's self-contained form is suql_choice(t, q, json_array(...)) */
		print_raw(pr, !sql ? "answer(" : e->extra ? "suql_choice(" : "suql_answer(");
		print_expr(pr, e->left);
		print_raw(pr, ", ");
		print_expr(pr, e->right);
		if (e->extra) {
			print_raw(pr, ", ");
			print_expr(pr, e->extra);
		}
		print_raw(pr, ")");
		break;
	case EX_SUMMARY:
		print_raw(pr, sql ? "suql_summary(" : "summary(");
		print_expr(pr, e->left);
		print_raw(pr, ")");
		break;
	case EX_PGCAST:
		if (sql) {
			pr_pgcast_sql(pr, e);
			break;
		}
		/* A named parameter swallows a following "::" ($x::int is one
		 * parameter, as in SQLite), so a parameter operand keeps its
		 * parentheses. */
		if (e->left->kind == EX_PARAM) {
			print_raw(pr, "(");
			print_expr(pr, e->left);
			print_raw(pr, ")");
		} else {
			pr_expr_prec(pr, e->left, PREC_PGCAST);
		}
		print_raw(pr, "::");
		print_rawn(pr, e->type->text, e->type->n);
		break;
	case EX_QUANT:
		if (sql) {
			pr_quant_sql(pr, e);
			break;
		}
		pr_expr_prec(pr, e->left, ast_binop_prec(e->op));
		print_raw(pr, cmp_text(e->op));
		quant_kw(pr, e);
		print_raw(pr, " (");
		if (e->select)
			print_select(pr, e->select);
		else
			print_expr(pr, e->right);
		print_raw(pr, ")");
		break;
	case EX_CONTAINS:
		if (sql) {
			pr_contains_sql(pr, e);
			break;
		}
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->op == OP_CONTAINS ? " @> " : e->op == OP_CONTAINED ? " <@ " : " && ");
		pr_expr_prec(pr, e->right, PREC_EQ + 1);
		break;
	case EX_ARRAY:
		print_raw(pr, sql ? "json_array(" : "ARRAY[");
		pr_list(pr, e->list);
		print_raw(pr, sql ? ")" : "]");
		break;
	default:
		break;
	}
}
