/*
 * print.c: printing statements, selects and expressions, in either mode (see print.h).
 * Parentheses are put back from precedence: a child is parenthesised when it binds less
 * tightly than its place needs, so the printed text parses to the same tree. The SUQL
 * forms and their translations are in print_sql.c.
 */
#include "print_int.h"
#include "lex.h"

#include <stdlib.h>
#include <string.h>

Printer *print_new(PrintMode mode, const PrintHooks *hooks, const char *src, size_t src_off)
{
	Printer *pr = xcalloc(1, sizeof *pr);
	pr->mode = mode;
	if (hooks)
		pr->hooks = *hooks;
	pr->src = src;
	pr->src_off = src_off;
	return pr;
}

void print_free(Printer *pr)
{
	if (!pr)
		return;
	sb_free(&pr->out);
	free(pr->map);
	free(pr->scope);
	free(pr);
}

PrintMode print_mode(const Printer *pr) { return pr->mode; }
const char *print_text(const Printer *pr) { return sb_str(&pr->out); }
size_t print_len(const Printer *pr) { return pr->out.len; }

char *print_steal(Printer *pr)
{
	if (!pr->out.s)
		return xstrdup("");
	return sb_steal(&pr->out);
}

void pr_map(Printer *pr, size_t src_off, size_t len)
{
	if (pr->mode != PRINT_SQL || (!len && !src_off))
		return;
	if (pr->nmap == pr->capmap) {
		pr->capmap = pr->capmap ? pr->capmap * 2 : 64;
		pr->map = xrealloc(pr->map, pr->capmap * sizeof *pr->map);
	}
	pr->map[pr->nmap++] = (MapEnt){pr->out.len, src_off, len};
}

size_t print_map(const Printer *pr, size_t out_off)
{
	size_t lo = 0, hi = pr->nmap, best = (size_t)-1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pr->map[mid].out <= out_off) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (best == (size_t)-1)
		return pr->nmap ? pr->map[0].src : 0;
	/* prefer the innermost entry that starts at the same place */
	const MapEnt *m = &pr->map[best];
	size_t d = out_off - m->out;
	return m->src + (d < m->len ? d : 0);
}

void print_rawn(Printer *pr, const char *s, size_t n) { sb_putn(&pr->out, s, n); }
void print_raw(Printer *pr, const char *s) { sb_puts(&pr->out, s); }
void pr_keyword(Printer *pr, const char *kw) { sb_puts(&pr->out, kw); }

void print_name(Printer *pr, AstName n)
{
	if (!n.s)
		return;
	if (n.off)
		pr_map(pr, n.off, n.n);
	sb_putn(&pr->out, n.s, n.n);
}

/* ---- expressions ---- */
static const char *binop_text(int op)
{
	switch (op) {
	case OP_OR: return " OR ";
	case OP_AND: return " AND ";
	case OP_EQ: return " = ";
	case OP_NE: return " != ";
	case OP_IS: return " IS ";
	case OP_ISNOT: return " IS NOT ";
	case OP_ISDISTINCT: return " IS DISTINCT FROM ";
	case OP_ISNOTDISTINCT: return " IS NOT DISTINCT FROM ";
	case OP_LT: return " < ";
	case OP_LE: return " <= ";
	case OP_GT: return " > ";
	case OP_GE: return " >= ";
	case OP_BITAND: return " & ";
	case OP_BITOR: return " | ";
	case OP_LSHIFT: return " << ";
	case OP_RSHIFT: return " >> ";
	case OP_ADD: return " + ";
	case OP_SUB: return " - ";
	case OP_MUL: return " * ";
	case OP_DIV: return " / ";
	case OP_REM: return " % ";
	case OP_CONCAT: return " || ";
	case OP_PTR: return " -> ";
	case OP_PTR2: return " ->> ";
	default: return " ? ";
	}
}

void pr_list(Printer *pr, const ExprList *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++) {
		if (i)
			print_raw(pr, ", ");
		pr_expr_prec(pr, l->items[i], PREC_NONE);
	}
}

static void pr_order(Printer *pr, const OrderList *l)
{
	for (int i = 0; i < l->n; i++) {
		const OrderTerm *t = l->items[i];
		if (i)
			print_raw(pr, ", ");
		pr_expr_prec(pr, t->expr, PREC_NONE);
		if (t->dir == SORT_ASC)
			print_raw(pr, " ASC");
		else if (t->dir == SORT_DESC)
			print_raw(pr, " DESC");
		if (t->nulls == NULLS_FIRST)
			print_raw(pr, " NULLS FIRST");
		else if (t->nulls == NULLS_LAST)
			print_raw(pr, " NULLS LAST");
	}
}

static void pr_bound(Printer *pr, BoundKind k, const Expr *e)
{
	switch (k) {
	case BOUND_UNBOUNDED_PRECEDING: print_raw(pr, "UNBOUNDED PRECEDING"); break;
	case BOUND_UNBOUNDED_FOLLOWING: print_raw(pr, "UNBOUNDED FOLLOWING"); break;
	case BOUND_CURRENT_ROW: print_raw(pr, "CURRENT ROW"); break;
	case BOUND_PRECEDING: pr_expr_prec(pr, e, PREC_NONE); print_raw(pr, " PRECEDING"); break;
	case BOUND_FOLLOWING: pr_expr_prec(pr, e, PREC_NONE); print_raw(pr, " FOLLOWING"); break;
	default: break;
	}
}

static void pr_window_body(Printer *pr, const Window *w)
{
	int sp = 0;
	print_raw(pr, "(");
	if (w->base.s) {
		print_name(pr, w->base);
		sp = 1;
	}
	if (w->partition) {
		print_raw(pr, sp ? " PARTITION BY " : "PARTITION BY ");
		pr_list(pr, w->partition);
		sp = 1;
	}
	if (w->order) {
		print_raw(pr, sp ? " ORDER BY " : "ORDER BY ");
		pr_order(pr, w->order);
		sp = 1;
	}
	if (w->frame) {
		if (sp)
			print_raw(pr, " ");
		print_raw(pr, w->frame == FRAME_ROWS ? "ROWS " : w->frame == FRAME_RANGE ? "RANGE "
		                                                                        : "GROUPS ");
		if (w->between) {
			print_raw(pr, "BETWEEN ");
			pr_bound(pr, w->start_kind, w->start);
			print_raw(pr, " AND ");
			pr_bound(pr, w->end_kind, w->end);
		} else {
			pr_bound(pr, w->start_kind, w->start);
		}
		static const char *const EXCL[] = {"", " EXCLUDE NO OTHERS", " EXCLUDE CURRENT ROW",
		                                   " EXCLUDE GROUP", " EXCLUDE TIES"};
		print_raw(pr, EXCL[w->exclude]);
	}
	print_raw(pr, ")");
}

static void pr_paren_select(Printer *pr, const Select *s)
{
	print_raw(pr, "(");
	print_select(pr, s);
	print_raw(pr, ")");
}

static int out_prec(const Printer *pr, const Expr *e)
{
	if (ast_is_suql_expr(e))
		return pr_suql_prec(pr, e);
	return ast_prec(e);
}

static void pr_node(Printer *pr, const Expr *e)
{
	switch (e->kind) {
	case EX_LITERAL:
		switch (e->lit) {
		case LIT_NULL: print_raw(pr, "NULL"); break;
		case LIT_TRUE: print_raw(pr, "TRUE"); break;
		case LIT_FALSE: print_raw(pr, "FALSE"); break;
		case LIT_CURRENT_TIME: print_raw(pr, "CURRENT_TIME"); break;
		case LIT_CURRENT_DATE: print_raw(pr, "CURRENT_DATE"); break;
		case LIT_CURRENT_TIMESTAMP: print_raw(pr, "CURRENT_TIMESTAMP"); break;
		default: print_name(pr, e->name); break;
		}
		break;
	case EX_PARAM:
		print_name(pr, e->name);
		break;
	case EX_COLUMN:
		if (pr_unnest_column(pr, e))
			break;
		if (e->schema.s) {
			print_name(pr, e->schema);
			print_raw(pr, ".");
		}
		if (e->table.s) {
			print_name(pr, e->table);
			print_raw(pr, ".");
		}
		print_name(pr, e->name);
		break;
	case EX_STAR:
		if (e->table.s) {
			print_name(pr, e->table);
			print_raw(pr, ".");
		}
		print_raw(pr, "*");
		break;
	case EX_UNARY:
		if (e->op == OP_NOT) {
			print_raw(pr, "NOT ");
			pr_expr_prec(pr, e->left, PREC_NOT);
			break;
		}
		print_raw(pr, e->op == OP_NEG ? "-" : e->op == OP_POS ? "+" : "~");
		/* never print "--" (a comment start): "- -x" */
		if (e->op == OP_NEG && e->left->kind == EX_UNARY && e->left->op == OP_NEG)
			print_raw(pr, " ");
		pr_expr_prec(pr, e->left, PREC_UNARY);
		break;
	case EX_BINARY: {
		int prec = ast_binop_prec(e->op);
		pr_expr_prec(pr, e->left, prec);
		print_raw(pr, binop_text(e->op));
		pr_expr_prec(pr, e->right, prec + 1);
		break;
	}
	case EX_LIKE: {
		pr_expr_prec(pr, e->left, PREC_EQ);
		if (e->not_)
			print_raw(pr, " NOT");
		static const char *const NAMES[] = {" LIKE ", " GLOB ", " REGEXP ", " MATCH ", " ILIKE "};
		int i = e->op - OP_LIKE;
		if (e->op == OP_ILIKE && pr->mode == PRINT_SQL)
			i = 0;
		print_raw(pr, NAMES[i]);
		pr_expr_prec(pr, e->right, PREC_EQ + 1);
		if (e->extra) {
			print_raw(pr, " ESCAPE ");
			pr_expr_prec(pr, e->extra, PREC_EQ + 1);
		}
		break;
	}
	case EX_BETWEEN:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOT BETWEEN " : " BETWEEN ");
		pr_expr_prec(pr, e->right, PREC_EQ);
		print_raw(pr, " AND ");
		pr_expr_prec(pr, e->extra, PREC_EQ + 1);
		break;
	case EX_IN:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOT IN " : " IN ");
		if (e->in_table) {
			if (e->schema.s) {
				print_name(pr, e->schema);
				print_raw(pr, ".");
			}
			print_name(pr, e->name);
			if (e->list) {
				print_raw(pr, "(");
				pr_list(pr, e->list);
				print_raw(pr, ")");
			}
		} else if (e->select) {
			pr_paren_select(pr, e->select);
		} else {
			print_raw(pr, "(");
			pr_list(pr, e->list);
			print_raw(pr, ")");
		}
		break;
	case EX_ISNULL:
		pr_expr_prec(pr, e->left, PREC_EQ);
		print_raw(pr, e->not_ ? " NOTNULL" : " ISNULL");
		break;
	case EX_EXISTS:
		print_raw(pr, "EXISTS ");
		pr_paren_select(pr, e->select);
		break;
	case EX_SUBQUERY:
		pr_paren_select(pr, e->select);
		break;
	case EX_CAST:
		if (pr->mode == PRINT_SQL && e->left->kind == EX_ANSWER && e->type->pg) {
			pr_typed_answer(pr, e->left, e->type->pg);
			break;
		}
		print_raw(pr, "CAST(");
		pr_expr_prec(pr, e->left, PREC_NONE);
		print_raw(pr, " AS ");
		print_rawn(pr, e->type->text, e->type->n);
		print_raw(pr, ")");
		break;
	case EX_CASE:
		print_raw(pr, "CASE");
		if (e->left) {
			print_raw(pr, " ");
			pr_expr_prec(pr, e->left, PREC_NONE);
		}
		for (int i = 0; e->list && i + 1 < e->list->n; i += 2) {
			print_raw(pr, " WHEN ");
			pr_expr_prec(pr, e->list->items[i], PREC_NONE);
			print_raw(pr, " THEN ");
			pr_expr_prec(pr, e->list->items[i + 1], PREC_NONE);
		}
		if (e->extra) {
			print_raw(pr, " ELSE ");
			pr_expr_prec(pr, e->extra, PREC_NONE);
		}
		print_raw(pr, " END");
		break;
	case EX_FUNC:
		print_name(pr, e->name);
		print_raw(pr, "(");
		if (e->distinct)
			print_raw(pr, "DISTINCT ");
		if (e->star)
			print_raw(pr, "*");
		pr_list(pr, e->list);
		if (e->order) {
			print_raw(pr, " ORDER BY ");
			pr_order(pr, e->order);
		}
		print_raw(pr, ")");
		if (e->extra) {
			print_raw(pr, " FILTER (WHERE ");
			pr_expr_prec(pr, e->extra, PREC_NONE);
			print_raw(pr, ")");
		}
		if (e->over) {
			print_raw(pr, " OVER ");
			if (e->over->is_ref)
				print_name(pr, e->over->name);
			else
				pr_window_body(pr, e->over);
		}
		break;
	case EX_COLLATE:
		pr_expr_prec(pr, e->left, PREC_COLLATE);
		print_raw(pr, " COLLATE ");
		print_name(pr, e->name);
		break;
	case EX_RAISE: {
		static const char *const R[] = {"IGNORE", "ROLLBACK", "ABORT", "FAIL"};
		print_raw(pr, "RAISE(");
		print_raw(pr, R[e->op - RAISE_IGNORE]);
		if (e->right) {
			print_raw(pr, ", ");
			pr_expr_prec(pr, e->right, PREC_NONE);
		}
		print_raw(pr, ")");
		break;
	}
	case EX_ROW:
		print_raw(pr, "(");
		pr_list(pr, e->list);
		print_raw(pr, ")");
		break;
	default:
		pr_suql_form(pr, e);
		break;
	}
}

static void pr_default_prec(Printer *pr, const Expr *e, int minprec)
{
	int paren = out_prec(pr, e) < minprec;
	if (paren)
		print_raw(pr, "(");
	pr_map(pr, e->span.off, e->span.len);
	pr_node(pr, e);
	if (paren)
		print_raw(pr, ")");
}

/* Nonzero when s[0..n) needs no parentheses anywhere: a (qualified) name or a call
   name(...) whose parentheses close at the end. */
static int primary_text(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (lex_idchar((unsigned char)s[i]) || s[i] == '.' || s[i] == '"'))
		i++;
	if (i == n)
		return 1;
	if (i == 0 || s[i] != '(' || s[n - 1] != ')')
		return 0;
	int depth = 0;
	char q = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (q) {
			if (c == q)
				q = 0;
		} else if (c == '\'' || c == '"') {
			q = c;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0 && i != n - 1) {
			return 0;
		}
	}
	return depth == 0 && !q;
}

void pr_expr_prec(Printer *pr, const Expr *e, int minprec)
{
	if (!e)
		return;
	if (pr->hooks.expr) {
		size_t mark = pr->out.len, mmark = pr->nmap;
		if (pr->hooks.expr(pr->hooks.ctx, pr, e)) {
			if (minprec > PREC_NONE && pr->out.len > mark &&
			    !primary_text(pr->out.s + mark, pr->out.len - mark)) {
				/* put the hook's output in parentheses */
				size_t l = pr->out.len - mark;
				sb_putc(&pr->out, ' ');
				memmove(pr->out.s + mark + 1, pr->out.s + mark, l);
				pr->out.s[mark] = '(';
				sb_putc(&pr->out, ')');
				for (size_t i = mmark; i < pr->nmap; i++)
					pr->map[i].out++;
			}
			return;
		}
		sb_truncate(&pr->out, mark);
		pr->nmap = mmark;
	}
	pr_default_prec(pr, e, minprec);
}

void print_expr(Printer *pr, const Expr *e)
{
	pr_expr_prec(pr, e, PREC_NONE);
}

void print_expr_default(Printer *pr, const Expr *e)
{
	pr_default_prec(pr, e, PREC_NONE);
}

/* ---- select ---- */
static void pr_results(Printer *pr, const ResultList *l)
{
	for (int i = 0; i < l->n; i++) {
		const ResultCol *c = l->items[i];
		if (i)
			print_raw(pr, ", ");
		pr_expr_prec(pr, c->expr, PREC_NONE);
		if (c->alias.s) {
			print_raw(pr, " AS ");
			print_name(pr, c->alias);
		} else if (pr->mode == PRINT_SQL && pr->src && c->span.len &&
		           c->expr->kind != EX_STAR &&
		           (c->expr->kind != EX_COLUMN || pr_is_unnest_column(pr, c->expr)) &&
		           c->span.off >= pr->src_off) {
			/* SQLite names such a column after its text as written; keep that name
			   (an unnest element is named after itself, as a column would be) */
			print_raw(pr, " AS ");
			if (c->expr->kind == EX_COLUMN) {
				Arena *a = arena_new();
				char *v = ast_name_value(a, c->expr->name);
				sb_put_ident(&pr->out, v, strlen(v));
				arena_free(a);
			} else {
				sb_put_ident(&pr->out, pr->src + (c->span.off - pr->src_off), c->span.len);
			}
		}
	}
}

static void pr_idlist(Printer *pr, const IdList *l)
{
	print_raw(pr, "(");
	for (int i = 0; i < l->n; i++) {
		if (i)
			print_raw(pr, ", ");
		print_name(pr, l->items[i]);
	}
	print_raw(pr, ")");
}

static void pr_from_list(Printer *pr, const FromList *l);

void print_from_item_default(Printer *pr, const FromItem *f)
{
	pr_map(pr, f->span.off, 0);
	switch (f->kind) {
	case FROM_UNNEST:
		pr_unnest_from(pr, f);
		return;
	case FROM_SUBQUERY:
		pr_paren_select(pr, f->select);
		break;
	case FROM_JOIN:
		print_raw(pr, "(");
		pr_from_list(pr, f->nested);
		print_raw(pr, ")");
		break;
	default:
		if (f->schema.s) {
			print_name(pr, f->schema);
			print_raw(pr, ".");
		}
		print_name(pr, f->name);
		if (f->kind == FROM_FUNC) {
			print_raw(pr, "(");
			pr_list(pr, f->args);
			print_raw(pr, ")");
		}
		break;
	}
	if (f->alias.s) {
		print_raw(pr, " AS ");
		print_name(pr, f->alias);
	}
	if (f->indexed == INDEXED_BY) {
		print_raw(pr, " INDEXED BY ");
		print_name(pr, f->index);
	} else if (f->indexed == NOT_INDEXED) {
		print_raw(pr, " NOT INDEXED");
	}
}

static void pr_from_list(Printer *pr, const FromList *l)
{
	for (int i = 0; i < l->n; i++) {
		const FromItem *f = l->items[i];
		if (f->comma) {
			print_raw(pr, ", ");
		} else if (f->njoin) {
			print_raw(pr, " ");
			for (int k = 0; k + 1 < f->njoin; k++) {
				print_raw(pr, lex_keyword_name(f->join_kw[k]));
				print_raw(pr, " ");
			}
			print_raw(pr, "JOIN ");
		}
		if (!pr->hooks.from || !pr->hooks.from(pr->hooks.ctx, pr, f))
			print_from_item_default(pr, f);
		if (f->on) {
			print_raw(pr, " ON ");
			pr_expr_prec(pr, f->on, PREC_NONE);
		}
		if (f->using_) {
			print_raw(pr, " USING ");
			pr_idlist(pr, f->using_);
		}
	}
}

/* Collect the unnest() items of a FROM list (nested joins included) into the scope. */
static void scope_add(Printer *pr, const FromList *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++) {
		const FromItem *f = l->items[i];
		if (f->kind == FROM_JOIN)
			scope_add(pr, f->nested);
		if (f->kind != FROM_UNNEST)
			continue;
		if (pr->nscope == pr->capscope) {
			pr->capscope = pr->capscope ? pr->capscope * 2 : 8;
			pr->scope = xrealloc(pr->scope, (size_t)pr->capscope * sizeof *pr->scope);
		}
		pr->scope[pr->nscope++] = f;
	}
}

static void pr_window_defs(Printer *pr, const WindowList *w)
{
	print_raw(pr, " WINDOW ");
	for (int i = 0; i < w->n; i++) {
		if (i)
			print_raw(pr, ", ");
		print_name(pr, w->items[i]->name);
		print_raw(pr, " AS ");
		pr_window_body(pr, w->items[i]);
	}
}

static void pr_core(Printer *pr, const SelectCore *c)
{
	pr_map(pr, c->span.off, 0);
	if (c->kind == CORE_VALUES) {
		print_raw(pr, "VALUES ");
		for (int i = 0; i < c->rows->n; i++) {
			if (i)
				print_raw(pr, ", ");
			print_raw(pr, "(");
			pr_list(pr, c->rows->items[i]);
			print_raw(pr, ")");
		}
		return;
	}
	int saved = pr->nscope;
	if (pr->mode == PRINT_SQL)
		scope_add(pr, c->from);
	print_raw(pr, "SELECT ");
	if (c->distinct == DISTINCT_DISTINCT)
		print_raw(pr, "DISTINCT ");
	else if (c->distinct == DISTINCT_ALL)
		print_raw(pr, "ALL ");
	pr_results(pr, c->cols);
	if (c->from) {
		print_raw(pr, " FROM ");
		pr_from_list(pr, c->from);
	}
	if (c->where) {
		print_raw(pr, " WHERE ");
		pr_expr_prec(pr, c->where, PREC_NONE);
	}
	if (c->group) {
		print_raw(pr, " GROUP BY ");
		pr_list(pr, c->group);
	}
	if (c->having) {
		print_raw(pr, " HAVING ");
		pr_expr_prec(pr, c->having, PREC_NONE);
	}
	if (c->windows)
		pr_window_defs(pr, c->windows);
	pr->nscope = saved;
}

static void pr_with(Printer *pr, const With *w)
{
	print_raw(pr, w->recursive ? "WITH RECURSIVE " : "WITH ");
	for (int i = 0; i < w->n; i++) {
		const Cte *c = w->items[i];
		if (i)
			print_raw(pr, ", ");
		print_name(pr, c->name);
		if (c->cols) {
			print_raw(pr, " ");
			pr_idlist(pr, c->cols);
		}
		print_raw(pr, c->mat == MAT_YES ? " AS MATERIALIZED " :
		              c->mat == MAT_NO ? " AS NOT MATERIALIZED " : " AS ");
		pr_paren_select(pr, c->select);
	}
	print_raw(pr, " ");
}

static void pr_limit(Printer *pr, const OrderList *order, const Expr *limit, const Expr *offset)
{
	if (order) {
		print_raw(pr, " ORDER BY ");
		pr_order(pr, order);
	}
	if (limit) {
		print_raw(pr, " LIMIT ");
		pr_expr_prec(pr, limit, PREC_NONE);
		if (offset) {
			print_raw(pr, " OFFSET ");
			pr_expr_prec(pr, offset, PREC_NONE);
		}
	}
}

void print_select(Printer *pr, const Select *s)
{
	if (++pr->depth > 4 * 1000) {   /* trees come from the parser, which caps depth */
		print_raw(pr, "NULL");
		pr->depth--;
		return;
	}
	if (s->with)
		pr_with(pr, s->with);
	static const char *const OPS[] = {"", " UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "};
	for (int i = 0; i < s->ncore; i++) {
		if (i)
			print_raw(pr, OPS[s->ops[i]]);
		pr_core(pr, s->cores[i]);
	}
	pr_limit(pr, s->order, s->limit, s->offset);
	pr->depth--;
}

/* ---- statements ---- */
static void pr_or(Printer *pr, OrAction a)
{
	static const char *const OR[] = {"", " OR ROLLBACK", " OR ABORT", " OR REPLACE",
	                                 " OR FAIL", " OR IGNORE"};
	print_raw(pr, OR[a]);
}

static void pr_set(Printer *pr, const SetList *l)
{
	for (int i = 0; i < l->n; i++) {
		const SetItem *s = l->items[i];
		if (i)
			print_raw(pr, ", ");
		if (s->paren)
			pr_idlist(pr, s->cols);
		else
			print_name(pr, s->cols->items[0]);
		print_raw(pr, " = ");
		pr_expr_prec(pr, s->expr, PREC_NONE);
	}
}

static void pr_qualified(Printer *pr, const Stmt *st)
{
	if (st->schema.s) {
		print_name(pr, st->schema);
		print_raw(pr, ".");
	}
	print_name(pr, st->table);
	if (st->alias.s) {
		print_raw(pr, " AS ");
		print_name(pr, st->alias);
	}
	if (st->indexed == INDEXED_BY) {
		print_raw(pr, " INDEXED BY ");
		print_name(pr, st->index);
	} else if (st->indexed == NOT_INDEXED) {
		print_raw(pr, " NOT INDEXED");
	}
}

static void pr_returning(Printer *pr, const Stmt *st)
{
	if (st->returning) {
		print_raw(pr, " RETURNING ");
		pr_results(pr, st->returning);
	}
}

static void pr_insert(Printer *pr, const Stmt *st)
{
	if (st->replace_kw) {
		print_raw(pr, "REPLACE");
	} else {
		print_raw(pr, "INSERT");
		pr_or(pr, st->or_action);
	}
	print_raw(pr, " INTO ");
	pr_qualified(pr, st);
	if (st->columns) {
		print_raw(pr, " ");
		pr_idlist(pr, st->columns);
	}
	if (st->default_values) {
		print_raw(pr, " DEFAULT VALUES");
	} else {
		print_raw(pr, " ");
		print_select(pr, st->select);
	}
	for (int i = 0; st->upsert && i < st->upsert->n; i++) {
		const Upsert *u = st->upsert->items[i];
		print_raw(pr, " ON CONFLICT");
		if (u->target) {
			print_raw(pr, " (");
			pr_order(pr, u->target);
			print_raw(pr, ")");
			if (u->target_where) {
				print_raw(pr, " WHERE ");
				pr_expr_prec(pr, u->target_where, PREC_NONE);
			}
		}
		if (u->do_nothing) {
			print_raw(pr, " DO NOTHING");
		} else {
			print_raw(pr, " DO UPDATE SET ");
			pr_set(pr, u->set);
			if (u->where) {
				print_raw(pr, " WHERE ");
				pr_expr_prec(pr, u->where, PREC_NONE);
			}
		}
	}
	pr_returning(pr, st);
}

static void pr_verbatim(Printer *pr, const Stmt *st)
{
	pr_map(pr, st->text_off, st->text_len);
	print_rawn(pr, st->text, st->text_len);
}

static void pr_column_def(Printer *pr, const ColumnDef *c)
{
	print_name(pr, c->name);
	if (c->type) {
		print_raw(pr, " ");
		if (c->type->suql && pr->mode == PRINT_SQL)
			print_raw(pr, "TEXT");
		else
			print_rawn(pr, c->type->text, c->type->n);
	}
	if (c->cons.len) {
		print_raw(pr, " ");
		pr_map(pr, c->cons.off, c->cons.len);
		print_rawn(pr, c->cons_text, c->cons.len);
	}
}

static void pr_create_table(Printer *pr, const Stmt *st)
{
	print_raw(pr, st->temp ? "CREATE TEMP TABLE " : "CREATE TABLE ");
	if (st->if_not_exists)
		print_raw(pr, "IF NOT EXISTS ");
	if (st->schema.s) {
		print_name(pr, st->schema);
		print_raw(pr, ".");
	}
	print_name(pr, st->table);
	if (st->select) {
		print_raw(pr, " AS ");
		print_select(pr, st->select);
		return;
	}
	print_raw(pr, " (");
	for (int i = 0; i < st->cols->n; i++) {
		if (i)
			print_raw(pr, ", ");
		pr_column_def(pr, st->cols->items[i]);
	}
	if (st->tcons) {
		print_raw(pr, ", ");
		print_rawn(pr, st->tcons, st->tcons_len);
	}
	print_raw(pr, ")");
	if (st->options) {
		print_raw(pr, " ");
		print_rawn(pr, st->options, st->options_len);
	}
}

void print_stmt(Printer *pr, const Stmt *st)
{
	int verbatim = st->kind == ST_OTHER || st->kind == ST_DROP_TABLE ||
	               (st->kind == ST_ALTER_TABLE && !(pr->mode == PRINT_SQL && st->coldef &&
	                                                st->coldef->type && st->coldef->type->suql)) ||
	               (pr->mode == PRINT_SQL && !st->has_suql &&
	                (st->kind == ST_CREATE_TABLE || st->kind == ST_CREATE_VIEW));
	if (verbatim) {
		pr_verbatim(pr, st);
		return;
	}
	if (st->kind == ST_ALTER_TABLE) {
		/* ADD COLUMN with a SUQL type: the text with the type replaced by TEXT */
		const TypeName *t = st->coldef->type;
		size_t a = t->span.off - st->text_off, b = a + t->span.len;
		pr_map(pr, st->text_off, a);
		print_rawn(pr, st->text, a);
		print_raw(pr, "TEXT");
		pr_map(pr, t->span.off + t->span.len, st->text_len - b);
		print_rawn(pr, st->text + b, st->text_len - b);
		return;
	}
	pr_map(pr, st->span.off, 0);
	if (st->explain)
		print_raw(pr, st->explain == 2 ? "EXPLAIN QUERY PLAN " : "EXPLAIN ");
	if (st->with)
		pr_with(pr, st->with);
	switch (st->kind) {
	case ST_SELECT:
		print_select(pr, st->select);
		break;
	case ST_INSERT:
		pr_insert(pr, st);
		break;
	case ST_UPDATE:
		print_raw(pr, "UPDATE");
		pr_or(pr, st->or_action);
		print_raw(pr, " ");
		pr_qualified(pr, st);
		print_raw(pr, " SET ");
		pr_set(pr, st->set);
		if (st->from) {
			print_raw(pr, " FROM ");
			pr_from_list(pr, st->from);
		}
		if (st->where) {
			print_raw(pr, " WHERE ");
			pr_expr_prec(pr, st->where, PREC_NONE);
		}
		pr_returning(pr, st);
		pr_limit(pr, st->order, st->limit, st->offset);
		break;
	case ST_DELETE:
		print_raw(pr, "DELETE FROM ");
		pr_qualified(pr, st);
		if (st->where) {
			print_raw(pr, " WHERE ");
			pr_expr_prec(pr, st->where, PREC_NONE);
		}
		pr_returning(pr, st);
		pr_limit(pr, st->order, st->limit, st->offset);
		break;
	case ST_CREATE_TABLE:
		pr_create_table(pr, st);
		break;
	case ST_CREATE_VIEW:
		print_raw(pr, st->temp ? "CREATE TEMP VIEW " : "CREATE VIEW ");
		if (st->if_not_exists)
			print_raw(pr, "IF NOT EXISTS ");
		if (st->schema.s) {
			print_name(pr, st->schema);
			print_raw(pr, ".");
		}
		print_name(pr, st->table);
		if (st->columns) {
			print_raw(pr, " ");
			pr_idlist(pr, st->columns);
		}
		print_raw(pr, " AS ");
		print_select(pr, st->select);
		break;
	default:
		pr_verbatim(pr, st);
		break;
	}
}

char *print_suql_stmt(const Ast *ast)
{
	Printer *pr = print_new(PRINT_SUQL, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	char *s = print_steal(pr);
	print_free(pr);
	return s;
}

char *print_sql_stmt(const Ast *ast)
{
	Printer *pr = print_new(PRINT_SQL, NULL, ast->src, ast->src_off);
	print_stmt(pr, ast->stmt);
	char *s = print_steal(pr);
	print_free(pr);
	return s;
}
